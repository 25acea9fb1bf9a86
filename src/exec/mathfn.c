/*
 * mathfn.c: the numeric library (mathfn.h). Each Float function is one
 * call of libm on doubles, nothing around it, so that a result is the bit
 * pattern C gives on this platform; the integer functions are exact.
 */
#include "mathfn.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "value_gmp.h"

typedef double (*Unary)(double);
typedef double (*Binary)(double, double);

/* ORDER FX_BUILTIN: from FX_BUILTIN_SQRT to FX_BUILTIN_ROUND */
static const Unary unary[] = {sqrt, exp, log, sin, cos, tan, floor, ceil, round};

bool fx_math_is(FxBuiltin b)
{
    return b >= FX_BUILTIN_SQRT && b <= FX_BUILTIN_LOG2;
}

/* x as a double: a Float itself, an integer as float(x) rounds it. */
static double as_double(FxValue x)
{
    if (x.kind == FX_VAL_FLOAT)
        return x.u.f;
    FxValue f;
    FxError unused;
    bool ok = fx_text_float(x, &f, &unused);
    FX_CHECK(ok && f.kind == FX_VAL_FLOAT, "a number the checker let through is not one");
    return f.u.f;
}

/* "`name` needs WHAT, not X": X as the language prints it. */
static FX_PRINTF(3, 4) bool refuse(FxError *err, FxValue x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    FxValue text = fx_text_str(x);
    size_t len, used = strlen(err->message);
    const char *s = fx_val_string_data(text, &len);
    snprintf(err->message + used, sizeof(err->message) - used, ", not %.*s", (int)len, s);
    fx_value_release(text);
    return false;
}

/* isqrt(n): the largest r with r*r <= n, for n >= 0. */
static bool int_sqrt(FxValue x, FxValue *out, FxError *err)
{
    if (fx_val_int_sign(x) < 0)
        return refuse(err, x, "`isqrt` needs an integer >= 0");
    mpz_t z;
    fx_val_mpz_init_from(z, x);
    mpz_sqrt(z, z);
    *out = fx_val_int_take_mpz(z);
    return true;
}

/* log2(n): the largest k with 2^k <= n, for n >= 1 (the bit length less one). */
static bool int_log2(FxValue x, FxValue *out, FxError *err)
{
    if (fx_val_int_sign(x) <= 0)
        return refuse(err, x, "`log2` needs an integer >= 1");
    if (x.kind == FX_VAL_INT) {
        *out = fx_val_int(63 - __builtin_clzll((unsigned long long)x.u.i));
        return true;
    }
    mpz_t z;
    fx_val_mpz_init_from(z, x);
    *out = fx_val_int((int64_t)mpz_sizeinbase(z, 2) - 1);
    mpz_clear(z);
    return true;
}

bool fx_math_call(FxBuiltin b, const FxValue *args, size_t n, FxValue *out, FxError *err)
{
    (void)n;
    switch (b) {
    case FX_BUILTIN_POW:
    case FX_BUILTIN_ATAN2: {
        Binary f = b == FX_BUILTIN_POW ? pow : atan2;
        *out = fx_val_float(f(as_double(args[0]), as_double(args[1])));
        return true;
    }
    case FX_BUILTIN_ABS: /* of a Float: the prelude's intent takes integers */
        *out = fx_val_float(fabs(as_double(args[0])));
        return true;
    case FX_BUILTIN_ISQRT:
        return int_sqrt(args[0], out, err);
    case FX_BUILTIN_LOG2:
        return int_log2(args[0], out, err);
    default:
        FX_CHECK(b >= FX_BUILTIN_SQRT && b <= FX_BUILTIN_ROUND, "not a numeric builtin");
        *out = fx_val_float(unary[b - FX_BUILTIN_SQRT](as_double(args[0])));
        return true;
    }
}

static bool is_number(FxValue x)
{
    return x.kind == FX_VAL_FLOAT || fx_val_is_integer(x);
}

bool fx_math_pick(FxValue a, FxValue b, bool larger, FxValue *out, FxError *err)
{
    if ((a.kind == FX_VAL_FLOAT || b.kind == FX_VAL_FLOAT) && is_number(a) && is_number(b)) {
        double x = as_double(a), y = as_double(b);
        *out = fx_val_float(larger ? fmax(x, y) : fmin(x, y));
        return true;
    }
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
