/*
 * check_int.h: what check.c and check_smt.c share. Private to src/lang.
 */
#ifndef FX_CHECK_INT_H
#define FX_CHECK_INT_H

#include "check.h"
#include "types.h"

/* ---- built-in functions (builtins_sig.c) ---- */

/* What a parameter of a library function accepts. ORDER FX_SIG: kind_names[] */
typedef enum {
    FX_SIG_ANY,
    FX_SIG_STRING,
    FX_SIG_NUMBER,           /* Natural, Int or Float */
    FX_SIG_STRING_OR_NUMBER,
    FX_SIG_STRING_LIST,      /* a list (or stream) of String */
    FX_SIG_SEQUENCE,         /* a String or a list (or stream) */
    FX_SIG_NUMBER_LIST,      /* a list (or stream) of numbers */
    FX_SIG_INTEGER,          /* Natural or Int */
    FX_SIG_FLOAT,
} FxSigKind;

/* The type a library function returns. */
typedef enum {
    FX_SIG_RET_BOOL,
    FX_SIG_RET_INT,
    FX_SIG_RET_FLOAT,
    FX_SIG_RET_STRING,
    FX_SIG_RET_STRING_LIST,
    FX_SIG_RET_SAME, /* the first argument's type (a stream gives a list) */
    FX_SIG_RET_NATURAL,
} FxSigRet;

typedef struct FxSigParam {
    const char *name; /* for messages: argument `sep` of `split` */
    FxSigKind kind;
} FxSigParam;

/* A built-in function. A reserved one (len sum product min max count) is
 * checked by check.c's own rules and its other fields are unused; a library
 * function takes min_args..max_args arguments, of params[i].kind. */
typedef struct FxBuiltinSig {
    const char *name;
    bool reserved;
    uint8_t min_args, max_args;
    FxSigParam params[3];
    FxSigRet ret;
} FxBuiltinSig;

/* The built-in function called `name`, or NULL. */
const FxBuiltinSig *fx_builtin_sig(const char *name);
/* The i-th of the table, or NULL past its end (for suggestions). */
const FxBuiltinSig *fx_builtin_sig_at(size_t i);
/* Does kind accept a value of type t? (An error type is accepted.) */
bool fx_builtin_sig_accepts(FxSigKind kind, const FxType *t);
/* "String", "a String or a number", ...: the kind as messages say it. */
const char *fx_builtin_sig_kind_name(FxSigKind kind);
/* Any built-in function, reserved or library. */
bool fx_check_is_builtin(const char *name);
/* A reserved built-in: no intent may take its name. */
bool fx_check_is_reserved(const char *name);

/* Levenshtein distance, capped: for "did you mean" suggestions. */
size_t fx_check_edit_distance(const char *a, const char *b);

/* The defining equations of an intent (FX_CON_EQUATION after the checker
 * classified them), in source order. */
size_t fx_check_equations(const FxIntent *in, FxConstraint ***out);

/* An intent whose whole definition is `result = EXPR` (no guard, no other
 * constructive constraint): its body, or NULL. */
const FxExpr *fx_check_simple_body(const FxIntent *in);

#endif
