/*
 * builtins_sig.c: the signatures of the built-in functions, for the
 * checker (check.c's check_builtin) and for name lookup.
 *
 * Two kinds of built-in. The six *reserved* ones (len sum product min max
 * count) are part of the language: they take any element type and have
 * aggregate forms, check.c checks them by its own rules, and no intent may
 * take their names. The others are *library* functions: an intent of the
 * program with the same name shadows them (as a user intent shadows a
 * prelude intent), so a program written before a function was added keeps
 * its meaning. A library function is one line of the table below: its
 * parameters, each of a kind of type, and its result. The run time finds
 * it by the same name (exec/builtins.c).
 *
 * Invariant: names are unique; a function's optional parameters come last
 * (min_args <= number of parameters).
 */
#include "check_int.h"

#include <string.h>

/* What each parameter kind accepts, as messages say it. */
static const char *const kind_names[] = {
    [FX_SIG_ANY] = "any value",
    [FX_SIG_STRING] = "String",
    [FX_SIG_NUMBER] = "a number",
    [FX_SIG_STRING_OR_NUMBER] = "a String or a number",
    [FX_SIG_STRING_LIST] = "List[String]",
    [FX_SIG_SEQUENCE] = "a String or a list",
    [FX_SIG_NUMBER_LIST] = "a list of numbers",
    [FX_SIG_INTEGER] = "an integer",
    [FX_SIG_FLOAT] = "Float",
};

#define P(name, kind) {name, FX_SIG_##kind}

static const FxBuiltinSig table[] = {
    /* reserved: checked by check.c's own rules */
    {"len", true, 0, 0, {{0}}, 0},
    {"sum", true, 0, 0, {{0}}, 0},
    {"product", true, 0, 0, {{0}}, 0},
    {"min", true, 0, 0, {{0}}, 0},
    {"max", true, 0, 0, {{0}}, 0},
    {"count", true, 0, 0, {{0}}, 0},
    /* the library: name, not reserved, least and most arguments, parameters, result */
    {"str", false, 1, 1, {P("x", ANY)}, FX_SIG_RET_STRING},
    {"int", false, 1, 1, {P("x", STRING_OR_NUMBER)}, FX_SIG_RET_INT},
    {"float", false, 1, 1, {P("x", STRING_OR_NUMBER)}, FX_SIG_RET_FLOAT},
    {"split", false, 1, 2, {P("s", STRING), P("sep", STRING)}, FX_SIG_RET_STRING_LIST},
    {"join", false, 2, 2, {P("xs", STRING_LIST), P("sep", STRING)}, FX_SIG_RET_STRING},
    {"chars", false, 1, 1, {P("s", STRING)}, FX_SIG_RET_STRING_LIST},
    {"reverse", false, 1, 1, {P("x", SEQUENCE)}, FX_SIG_RET_SAME},
    {"upper", false, 1, 1, {P("s", STRING)}, FX_SIG_RET_STRING},
    {"lower", false, 1, 1, {P("s", STRING)}, FX_SIG_RET_STRING},
    {"trim", false, 1, 1, {P("s", STRING)}, FX_SIG_RET_STRING},
    {"starts_with", false, 2, 2, {P("s", STRING), P("prefix", STRING)}, FX_SIG_RET_BOOL},
    {"ends_with", false, 2, 2, {P("s", STRING), P("suffix", STRING)}, FX_SIG_RET_BOOL},
    {"find", false, 2, 2, {P("s", STRING), P("sub", STRING)}, FX_SIG_RET_INT},
    {"replace", false, 3, 3, {P("s", STRING), P("old", STRING), P("new", STRING)},
     FX_SIG_RET_STRING},
    {"mean", false, 1, 1, {P("xs", NUMBER_LIST)}, FX_SIG_RET_FLOAT},
    /* numbers: libm on Floats (an integer argument converted as float(n) does), exact on integers */
    {"sqrt", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"exp", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"log", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"sin", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"cos", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"tan", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"floor", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"ceil", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"round", false, 1, 1, {P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    {"pow", false, 2, 2, {P("x", NUMBER), P("y", NUMBER)}, FX_SIG_RET_FLOAT},
    {"atan2", false, 2, 2, {P("y", NUMBER), P("x", NUMBER)}, FX_SIG_RET_FLOAT},
    /* of an integer, the prelude's intent abs answers (check.c's check_call) */
    {"abs", false, 1, 1, {P("x", FLOAT)}, FX_SIG_RET_FLOAT},
    {"isqrt", false, 1, 1, {P("n", INTEGER)}, FX_SIG_RET_NATURAL},
    {"log2", false, 1, 1, {P("n", INTEGER)}, FX_SIG_RET_NATURAL},
};

/* The named constants: the shortest decimal texts that read back as C's
 * M_PI and M_E (so the doubles are libm's). A parameter, a variable or a
 * data source of the same name hides them. */
static const struct {
    const char *name, *text;
} constants[] = {{"pi", "3.141592653589793"}, {"e", "2.718281828459045"}};

const char *fx_check_constant(const char *name)
{
    for (size_t i = 0; i < FX_ARRAY_LEN(constants); i++)
        if (strcmp(constants[i].name, name) == 0)
            return constants[i].text;
    return NULL;
}

const FxBuiltinSig *fx_builtin_sig(const char *name)
{
    for (size_t i = 0; i < FX_ARRAY_LEN(table); i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

const FxBuiltinSig *fx_builtin_sig_at(size_t i)
{
    return i < FX_ARRAY_LEN(table) ? &table[i] : NULL;
}

bool fx_check_is_builtin(const char *name)
{
    return fx_builtin_sig(name) != NULL;
}

bool fx_check_is_reserved(const char *name)
{
    const FxBuiltinSig *sig = fx_builtin_sig(name);
    return sig && sig->reserved;
}

const char *fx_builtin_sig_kind_name(FxSigKind kind)
{
    return kind_names[kind];
}

bool fx_builtin_sig_accepts(FxSigKind kind, const FxType *t)
{
    if (fx_type_is_error(t))
        return true;
    switch (kind) {
    case FX_SIG_ANY: return true;
    case FX_SIG_STRING: return t->kind == FX_TY_STRING;
    case FX_SIG_NUMBER: return fx_type_is_numeric(t);
    case FX_SIG_STRING_OR_NUMBER: return t->kind == FX_TY_STRING || fx_type_is_numeric(t);
    case FX_SIG_STRING_LIST:
        return fx_type_is_collection(t) && (fx_type_is_error(t->elem) || t->elem->kind == FX_TY_STRING);
    case FX_SIG_SEQUENCE: return t->kind == FX_TY_STRING || fx_type_is_collection(t);
    case FX_SIG_NUMBER_LIST:
        return fx_type_is_collection(t) && (fx_type_is_error(t->elem) || fx_type_is_numeric(t->elem));
    case FX_SIG_INTEGER: return fx_type_is_int(t);
    case FX_SIG_FLOAT: return t->kind == FX_TY_FLOAT;
    }
    return false;
}
