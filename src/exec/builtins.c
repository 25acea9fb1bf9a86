/*
 * builtins.c: the functions of the language that are not intents, because
 * they take lists of any element type: len, sum, product, min, max, count,
 * the sizes of a matrix, and membership (`x in xs`).
 *
 * A builtin that walks a list counts a unit of work an element on the
 * meter (meter.h), and one that makes a value of the program's size asks
 * the meter first; arithmetic on the elements is priced by value.c.
 */
#include <stdlib.h>
#include <string.h>

#include "interp_int.h"
#include "meter.h"

/* ORDER FX_BUILTIN */
static const char *const names[FX_BUILTIN__COUNT] = {
    "len", "sum", "product", "min", "max", "count", "rows", "cols", "contains",
    "to_matrix", "to_float_matrix",
};

bool fx_builtin_lookup(const char *name, FxBuiltin *out)
{
    for (int i = 0; i < FX_BUILTIN__COUNT; i++) {
        if (strcmp(names[i], name) == 0) {
            *out = (FxBuiltin)i;
            return true;
        }
    }
    return false;
}

static bool fold_list(FxValue list, bool product, FxValue *out, FxValueError *err)
{
    fx_meter_work(fx_val_list_len(list));
    FxValue acc = fx_val_int(product ? 1 : 0);
    for (size_t i = 0; i < fx_val_list_len(list); i++) {
        FxValue next;
        bool ok = product ? fx_val_mul(acc, fx_val_list_at(list, i), &next, err)
                          : fx_val_add(acc, fx_val_list_at(list, i), &next, err);
        fx_value_release(acc);
        if (!ok)
            return false;
        acc = next;
    }
    *out = acc;
    return true;
}

/* The smaller (or larger) of a and b, retained. */
static bool pick(FxValue a, FxValue b, bool larger, FxValue *out, FxValueError *err)
{
    bool ok;
    int c = fx_val_compare(a, b, &ok);
    if (!ok) {
        snprintf(err->message, sizeof(err->message), "`%s` of values that have no order",
                 larger ? "max" : "min");
        return false;
    }
    *out = (larger ? c >= 0 : c <= 0) ? a : b;
    fx_value_retain(*out);
    return true;
}

static bool extreme(FxValue list, bool larger, FxValue *out, FxValueError *err)
{
    size_t n = fx_val_list_len(list);
    if (n == 0) {
        snprintf(err->message, sizeof(err->message), "`%s` of an empty list",
                 larger ? "max" : "min");
        return false;
    }
    fx_meter_work(n);
    FxValue best = fx_val_list_at(list, 0);
    for (size_t i = 1; i < n; i++) {
        bool ok;
        int c = fx_val_compare(fx_val_list_at(list, i), best, &ok);
        if (!ok) {
            snprintf(err->message, sizeof(err->message), "`%s` of values that have no order",
                     larger ? "max" : "min");
            return false;
        }
        if (larger ? c > 0 : c < 0)
            best = fx_val_list_at(list, i);
    }
    fx_value_retain(best);
    *out = best;
    return true;
}

static bool contains(FxValue list, FxValue x)
{
    fx_meter_work(fx_val_list_len(list));
    for (size_t i = 0; i < fx_val_list_len(list); i++)
        if (fx_val_equal(fx_val_list_at(list, i), x))
            return true;
    return false;
}

/* A list of rows as a matrix: every row as long as the first; to Float
 * cells when the matrix holds Floats. */
static bool to_matrix(FxValue rows, bool floats, FxValue *out, FxValueError *err)
{
    if (rows.kind == FX_VAL_MATRIX) {
        fx_value_retain(rows);
        *out = rows;
        return true;
    }
    size_t r = fx_val_list_len(rows), c = r ? fx_val_list_len(fx_val_list_at(rows, 0)) : 0;
    /* the cells gathered, then the matrix's own copy */
    if (!fx_meter_afford(r * c, 2 * r * c * sizeof(FxValue))) {
        fx_meter_message(NULL, err->message, sizeof(err->message));
        return false;
    }
    FxValue *cells = fx_xmalloc((r * c > 0 ? r * c : 1) * sizeof(FxValue));
    for (size_t i = 0; i < r; i++) {
        FxValue row = fx_val_list_at(rows, i);
        if (fx_val_list_len(row) != c) {
            snprintf(err->message, sizeof(err->message), "a matrix needs rows of one length: "
                     "row 0 has %zu elements, row %zu has %zu", c, i, fx_val_list_len(row));
            free(cells);
            return false;
        }
        for (size_t j = 0; j < c; j++) {
            FxValue x = fx_val_list_at(row, j);
            int64_t k;
            if (floats && x.kind == FX_VAL_INT && fx_val_to_int64(x, &k))
                x = fx_val_float((double)k);
            cells[i * c + j] = x;
        }
    }
    *out = fx_val_matrix(r, c, cells);
    free(cells);
    return true;
}

bool fx_builtin_call(FxBuiltin b, const FxValue *args, size_t n, FxValue *out, FxValueError *err)
{
    switch (b) {
    case FX_BUILTIN_LEN:
        if (args[0].kind == FX_VAL_STRING) {
            size_t len;
            const char *s = fx_val_string_data(args[0], &len);
            size_t chars = 0; /* code points, as columns are counted */
            for (size_t i = 0; i < len; i++)
                chars += ((unsigned char)s[i] & 0xC0) != 0x80;
            *out = fx_val_int((int64_t)chars);
        } else {
            *out = fx_val_int((int64_t)fx_val_list_len(args[0]));
        }
        return true;
    case FX_BUILTIN_SUM:
    case FX_BUILTIN_PRODUCT:
        return fold_list(args[0], b == FX_BUILTIN_PRODUCT, out, err);
    case FX_BUILTIN_MIN:
    case FX_BUILTIN_MAX:
        if (n == 2)
            return pick(args[0], args[1], b == FX_BUILTIN_MAX, out, err);
        return extreme(args[0], b == FX_BUILTIN_MAX, out, err);
    case FX_BUILTIN_COUNT:
        *out = fx_val_int((int64_t)fx_val_list_len(args[0]));
        return true;
    case FX_BUILTIN_ROWS:
        *out = fx_val_int((int64_t)fx_val_matrix_rows(args[0]));
        return true;
    case FX_BUILTIN_COLS:
        *out = fx_val_int((int64_t)fx_val_matrix_cols(args[0]));
        return true;
    case FX_BUILTIN_CONTAINS:
        *out = fx_val_bool(contains(args[0], args[1]));
        return true;
    case FX_BUILTIN_TO_MATRIX:
    case FX_BUILTIN_TO_FLOAT_MATRIX:
        return to_matrix(args[0], b == FX_BUILTIN_TO_FLOAT_MATRIX, out, err);
    default:
        snprintf(err->message, sizeof(err->message), "unknown builtin");
        return false;
    }
}
