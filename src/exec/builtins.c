/*
 * builtins.c: the functions of the language that are not intents, because
 * they take lists of any element type: len, sum, product, min, max, count,
 * mean, the sizes of a matrix, and membership (`x in xs`, `sub in s`); and
 * the string library (str, int, float, split, join, ...; text.c does the
 * work) and the numeric one (sqrt, exp, ..., isqrt; mathfn.c), with the slices of lists and strings and the code point at `s[i]`
 * (`char_at`, which the compiler emits for an index into a String).
 *
 * A builtin that walks a list counts a unit of work an element on the
 * meter (meter.h), and one that makes a value of the program's size asks
 * the meter first; arithmetic on the elements is priced by value.c.
 */
#include <stdlib.h>
#include <string.h>

#include "interp_int.h"
#include "mathfn.h"
#include "meter.h"
#include "text.h"

/* ORDER FX_BUILTIN */
static const char *const names[FX_BUILTIN__COUNT] = {
    "len", "sum", "product", "min", "max", "count", "rows", "cols", "contains",
    "to_matrix", "to_float_matrix", "mean", "char_at", "slice", "slice_closed", "str",
    "int", "float", "split", "join", "chars", "reverse", "upper", "lower", "trim",
    "starts_with", "ends_with", "find", "replace", "sqrt", "exp", "log", "sin", "cos", "tan",
    "floor", "ceil", "round", "pow", "atan2", "abs", "isqrt", "log2",
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

static bool fold_list(FxValue list, bool product, FxValue *out, FxError *err)
{
    size_t n = fx_val_list_len(list);
    fx_meter_work(n);
    const double *f = fx_val_list_floats(list);
    if (f && n) { /* unboxed floats: the same additions, in the same order, on doubles */
        double a = product ? 1.0 : 0.0; /* what the integer 1 or 0 becomes with a Float */
        for (size_t i = 0; i < n; i++)
            a = product ? a * f[i] : a + f[i];
        *out = fx_val_float(a);
        return true;
    }
    FxValue acc = fx_val_int(product ? 1 : 0);
    for (size_t i = 0; i < n; i++) {
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

/* min or max of a list: the pairs in order, as min(a, b) picks (mathfn.c). */
static bool extreme(FxValue list, bool larger, FxValue *out, FxError *err)
{
    size_t n = fx_val_list_len(list);
    if (n == 0) {
        snprintf(err->message, sizeof(err->message), "`%s` of an empty list",
                 larger ? "max" : "min");
        return false;
    }
    fx_meter_work(n);
    FxValue best = fx_val_list_at(list, 0);
    fx_value_retain(best);
    for (size_t i = 1; i < n; i++) {
        FxValue next;
        bool ok = fx_math_pick(best, fx_val_list_at(list, i), larger, &next, err);
        fx_value_release(best);
        if (!ok)
            return false;
        best = next;
    }
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
static bool to_matrix(FxValue rows, bool floats, FxValue *out, FxError *err)
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

/* The string library, and slices. */
static bool text_builtin(FxBuiltin b, const FxValue *args, size_t n, FxValue *out,
                         FxError *err)
{
    /* a result of the argument's size (or its code points, each a string):
     * asked for before it is made (split, join and replace ask in text.c) */
    if (args[0].kind == FX_VAL_STRING &&
        (b == FX_BUILTIN_CHARS || b == FX_BUILTIN_REVERSE || b == FX_BUILTIN_UPPER ||
         b == FX_BUILTIN_LOWER || b == FX_BUILTIN_TRIM)) {
        size_t len;
        fx_val_string_data(args[0], &len);
        size_t points = b == FX_BUILTIN_CHARS ? len : 1;
        if (!fx_meter_afford(len, points * (fx_val_string_bytes(4) + sizeof(FxValue)) + 2 * len)) {
            fx_meter_message(NULL, err->message, sizeof(err->message));
            return false;
        }
    }
    switch (b) {
    case FX_BUILTIN_CHAR_AT:
        return fx_text_at(args[0], args[1], out, err);
    case FX_BUILTIN_SLICE:
    case FX_BUILTIN_SLICE_CLOSED:
        return fx_text_slice(args[0], args[1], args[2], b == FX_BUILTIN_SLICE_CLOSED, out, err);
    case FX_BUILTIN_STR:
        /* the decimal digits of a big integer cost more than its size says:
         * asked of the time budget first (3^(10^8): 16 s past a 2 s budget) */
        if (!fx_meter_afford(fx_val_decimal_work(args[0]), 0)) {
            fx_meter_message(NULL, err->message, sizeof(err->message));
            return false;
        }
        *out = fx_text_str(args[0]);
        return true;
    case FX_BUILTIN_INT:
        return fx_text_int(args[0], out, err);
    case FX_BUILTIN_FLOAT:
        return fx_text_float(args[0], out, err);
    case FX_BUILTIN_SPLIT:
        return fx_text_split(args[0], n == 2 ? &args[1] : NULL, out, err);
    case FX_BUILTIN_JOIN:
        return fx_text_join(args[0], args[1], out, err);
    case FX_BUILTIN_CHARS:
        *out = fx_text_chars(args[0]);
        return true;
    case FX_BUILTIN_REVERSE:
        *out = fx_text_reverse(args[0]);
        return true;
    case FX_BUILTIN_UPPER:
    case FX_BUILTIN_LOWER:
        *out = fx_text_case(args[0], b == FX_BUILTIN_UPPER);
        return true;
    case FX_BUILTIN_TRIM:
        *out = fx_text_trim(args[0]);
        return true;
    case FX_BUILTIN_STARTS_WITH:
        *out = fx_val_bool(fx_text_starts_with(args[0], args[1]));
        return true;
    case FX_BUILTIN_ENDS_WITH:
        *out = fx_val_bool(fx_text_ends_with(args[0], args[1]));
        return true;
    case FX_BUILTIN_FIND:
        *out = fx_val_int(fx_text_find(args[0], args[1]));
        return true;
    case FX_BUILTIN_REPLACE:
        return fx_text_replace(args[0], args[1], args[2], out, err);
    default:
        snprintf(err->message, sizeof(err->message), "unknown builtin");
        return false;
    }
}

bool fx_builtin_call(FxBuiltin b, const FxValue *args, size_t n, FxValue *out, FxError *err)
{
    switch (b) {
    case FX_BUILTIN_LEN:
        /* a string's length counts code points, as columns are counted */
        *out = fx_val_int((int64_t)(args[0].kind == FX_VAL_STRING ? fx_val_string_length(args[0])
                                                                  : fx_val_list_len(args[0])));
        return true;
    case FX_BUILTIN_SUM:
    case FX_BUILTIN_PRODUCT:
        return fold_list(args[0], b == FX_BUILTIN_PRODUCT, out, err);
    case FX_BUILTIN_MIN:
    case FX_BUILTIN_MAX:
        if (n == 2)
            return fx_math_pick(args[0], args[1], b == FX_BUILTIN_MAX, out, err);
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
        *out = fx_val_bool(args[0].kind == FX_VAL_STRING ? fx_text_contains(args[0], args[1])
                                                         : contains(args[0], args[1]));
        return true;
    case FX_BUILTIN_TO_MATRIX:
    case FX_BUILTIN_TO_FLOAT_MATRIX:
        return to_matrix(args[0], b == FX_BUILTIN_TO_FLOAT_MATRIX, out, err);
    case FX_BUILTIN_MEAN: { /* sum / count, the sum exact, divided as `/` divides */
        size_t len = fx_val_list_len(args[0]);
        if (len == 0) {
            snprintf(err->message, sizeof(err->message), "`mean` of an empty sequence");
            return false;
        }
        FxValue sum;
        if (!fold_list(args[0], false, &sum, err))
            return false;
        bool ok = fx_val_div_float(sum, fx_val_int((int64_t)len), out, err);
        fx_value_release(sum);
        return ok;
    }
    default:
        if (fx_math_is(b))
            return fx_math_call(b, args, n, out, err);
        return text_builtin(b, args, n, out, err);
    }
}

