/*
 * typeid.c: type ids parsed from the text lang/types.c prints.
 */
#include "typeid.h"

#include <string.h>

#include "base/base.h"

enum { LEVELS = 8 };

/* ORDER FX_TK */
static const char *const kind_names[] = {
    "?", "Natural", "Int", "Bool", "Float", "String", "List", "Stream", "Matrix", "record", "()",
};

const char *fx_typeid_kind_name(FxTypeIdKind k)
{
    return (size_t)k < FX_ARRAY_LEN(kind_names) ? kind_names[k] : "?";
}

static bool starts(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

/* The start of the last top-level argument of "Matrix[a, b, T]" between
 * s and end (the text inside the brackets), and how many there are. */
static const char *last_argument(const char *s, const char *end, int *count)
{
    const char *last = s;
    int depth = 0;
    *count = 1;
    for (const char *p = s; p < end; p++) {
        if (*p == '[' || *p == '(')
            depth++;
        else if (*p == ']' || *p == ')')
            depth--;
        else if (*p == ',' && depth == 0) {
            (*count)++;
            last = p + 1;
            while (last < end && *last == ' ')
                last++;
        }
    }
    return last;
}

static FxTypeId parse(const char *s, const char *end, int level)
{
    if (level == LEVELS || s >= end)
        return 0;
    static const struct {
        const char *word;
        FxTypeIdKind kind;
    } scalars[] = {
        {"Natural", FX_TK_NATURAL}, {"Int", FX_TK_INT},       {"Bool", FX_TK_BOOL},
        {"Float", FX_TK_FLOAT},     {"String", FX_TK_STRING}, {"()", FX_TK_UNIT},
        {"?", FX_TK_UNKNOWN},
    };
    for (size_t i = 0; i < FX_ARRAY_LEN(scalars); i++)
        if ((size_t)(end - s) == strlen(scalars[i].word) && starts(s, end, scalars[i].word))
            return scalars[i].kind;
    FxTypeIdKind kind = starts(s, end, "List[")     ? FX_TK_LIST
                      : starts(s, end, "Stream[") ? FX_TK_STREAM
                      : starts(s, end, "Matrix[") ? FX_TK_MATRIX
                                                  : FX_TK_RECORD;
    if (kind == FX_TK_RECORD || end[-1] != ']')
        return FX_TK_RECORD;
    const char *inner = strchr(s, '[') + 1, *close = end - 1;
    FxTypeId elem;
    if (kind == FX_TK_MATRIX) {
        int count;
        const char *last = last_argument(inner, close, &count);
        elem = count == 3 ? parse(last, close, level + 1) : FX_TK_FLOAT;
    } else {
        elem = parse(inner, close, level + 1);
    }
    return (FxTypeId)kind | elem << 4;
}

FxTypeId fx_typeid_parse(const char *text)
{
    return text ? parse(text, text + strlen(text), 0) : FX_TK_UNKNOWN;
}

bool fx_typeid_has_float(FxTypeId t)
{
    for (; t; t = fx_typeid_elem(t))
        if (fx_typeid_kind(t) == FX_TK_FLOAT)
            return true;
    return false;
}

bool fx_typeid_is_exact_key(FxTypeId t)
{
    FxTypeIdKind k = fx_typeid_kind(t);
    return k == FX_TK_NATURAL || k == FX_TK_INT || k == FX_TK_BOOL || k == FX_TK_STRING;
}

FxMachineType fx_typeid_machine(FxTypeId t)
{
    switch (fx_typeid_kind(t)) {
    case FX_TK_NATURAL:
    case FX_TK_INT: return FX_MT_INTEGER;
    case FX_TK_FLOAT: return FX_MT_DOUBLE;
    case FX_TK_BOOL: return FX_MT_BOOL;
    case FX_TK_STRING: return FX_MT_STRING;
    case FX_TK_LIST:
    case FX_TK_STREAM: return FX_MT_SEQUENCE;
    case FX_TK_MATRIX: return FX_MT_MATRIX;
    case FX_TK_RECORD: return FX_MT_RECORD;
    case FX_TK_UNIT: return FX_MT_UNIT;
    default: return FX_MT_UNKNOWN;
    }
}
