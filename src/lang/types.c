/*
 * types.c: see types.h. Everything here is a pure function of its inputs.
 */
#include "types.h"

#include <stdlib.h>
#include <string.h>

FxType *fx_type_new(FxArena *a, FxTypeKind kind)
{
    FxType *t = FX_NEW(a, FxType);
    t->kind = kind;
    return t;
}

FxType *fx_type_list(FxArena *a, FxType *elem)
{
    FxType *t = fx_type_new(a, FX_TY_LIST);
    t->elem = elem;
    return t;
}

bool fx_type_is_error(const FxType *t)
{
    return !t || t->kind == FX_TY_ERROR || t->kind == FX_TY_ANY;
}

bool fx_type_is_int(const FxType *t)
{
    return fx_type_is_error(t) || t->kind == FX_TY_NATURAL || t->kind == FX_TY_INT;
}

bool fx_type_is_numeric(const FxType *t)
{
    return fx_type_is_int(t) || t->kind == FX_TY_FLOAT;
}

bool fx_type_is_ordered(const FxType *t)
{
    return fx_type_is_numeric(t) || t->kind == FX_TY_STRING;
}

bool fx_type_is_collection(const FxType *t)
{
    return fx_type_is_error(t) || t->kind == FX_TY_LIST || t->kind == FX_TY_STREAM;
}

bool fx_type_is_scalar(const FxType *t)
{
    return fx_type_is_numeric(t) || t->kind == FX_TY_BOOL || t->kind == FX_TY_STRING;
}

bool fx_type_assignable(const FxType *from, const FxType *to)
{
    if (fx_type_is_error(from) || fx_type_is_error(to))
        return true;
    if (fx_type_is_int(from) && fx_type_is_numeric(to))
        return true;
    switch (to->kind) {
    case FX_TY_LIST:
    case FX_TY_STREAM:
        /* a Stream is a List the runtime need not hold whole */
        return fx_type_is_collection(from) && fx_type_assignable(from->elem, to->elem);
    case FX_TY_MATRIX:
        /* a matrix is written as its list of rows: [[1, 2], [3, 4]] */
        if (from->kind == FX_TY_LIST)
            return fx_type_is_error(from->elem) ||
                   (fx_type_is_collection(from->elem) &&
                    fx_type_assignable(from->elem->elem, to->elem));
        return from->kind == FX_TY_MATRIX && fx_type_assignable(from->elem, to->elem);
    case FX_TY_RECORD:
        return from->kind == FX_TY_RECORD && from->record == to->record;
    default:
        return from->kind == to->kind;
    }
}

FxType *fx_type_join(FxArena *a, FxType *x, FxType *y)
{
    if (fx_type_is_error(x))
        return y ? y : x;
    if (fx_type_is_error(y))
        return x;
    if (fx_type_is_numeric(x) && fx_type_is_numeric(y)) {
        if (x->kind == FX_TY_FLOAT || y->kind == FX_TY_FLOAT)
            return fx_type_new(a, FX_TY_FLOAT);
        if (x->kind == FX_TY_NATURAL && y->kind == FX_TY_NATURAL)
            return x;
        return fx_type_new(a, FX_TY_INT);
    }
    if (fx_type_is_collection(x) && fx_type_is_collection(y)) {
        FxType *e = fx_type_join(a, x->elem, y->elem);
        return e ? fx_type_list(a, e) : NULL;
    }
    if (fx_type_assignable(x, y))
        return y;
    if (fx_type_assignable(y, x))
        return x;
    return NULL;
}

/* ORDER FX_TY */
static const char *const kind_names[] = {
    "?", "?", "Natural", "Int", "Bool", "Float", "String", "List", "Stream", "Matrix", "record",
};

void fx_type_print(const FxType *t, FxBuf *out)
{
    if (!t) {
        fx_buf_puts(out, "?");
        return;
    }
    switch (t->kind) {
    case FX_TY_LIST:
    case FX_TY_STREAM:
        fx_buf_printf(out, "%s[", kind_names[t->kind]);
        fx_type_print(t->elem, out);
        fx_buf_puts(out, "]");
        break;
    case FX_TY_MATRIX:
        fx_buf_printf(out, "Matrix[%s, %s", t->rows, t->cols);
        if (t->elem && t->elem->kind != FX_TY_FLOAT) {
            fx_buf_puts(out, ", ");
            fx_type_print(t->elem, out);
        }
        fx_buf_puts(out, "]");
        break;
    case FX_TY_RECORD:
        fx_buf_puts(out, t->record ? t->record->name : "record");
        break;
    default:
        fx_buf_puts(out, kind_names[t->kind]);
        break;
    }
}

char *fx_type_name(const FxType *t)
{
    FxBuf b = {0};
    fx_type_print(t, &b);
    return fx_buf_take(&b);
}
