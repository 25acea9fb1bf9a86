/*
 * mathfn_test.c: the numeric library (exec/mathfn.h) against C's libm, bit
 * for bit, on the edge cases (zeros of both signs, negatives, subnormals,
 * the largest double, infinities, NaN), integers converted to Float first
 * (past 2^53 and past the largest double), the exact integer functions
 * against GMP, and the messages of the domain errors. libm is called
 * through volatile pointers so that the compiler cannot fold the expected
 * values with its own (correctly rounded) arithmetic.
 */
#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/mathfn.h"
#include "exec/text.h"
#include "exec/value_gmp.h"
#include "fx_test.h"

typedef double (*Unary)(double);
typedef double (*Binary)(double, double);

static const double edges[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3.0, 1e-310 /* subnormal */, 4.9406564584124654e-324,
    DBL_MIN, DBL_MAX, -DBL_MAX, 1e300, -1e300, 709.78, 710.0, -745.2, 3.141592653589793,
    1e22, 0.1, INFINITY, -INFINITY, NAN,
};

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* b(args) as a double; the call must succeed and give a Float. */
static double call(FxBuiltin b, FxValue x, FxValue y)
{
    FxValue args[2] = {x, y}, out;
    FxError err = {0};
    EXPECT(fx_math_call(b, args, 2, &out, &err));
    EXPECT_EQ(out.kind, FX_VAL_FLOAT);
    fx_value_release(x);
    fx_value_release(y);
    return out.u.f;
}

static void expect_unary(FxBuiltin b, Unary volatile f, const char *name)
{
    for (size_t i = 0; i < FX_ARRAY_LEN(edges); i++) {
        double want = f(edges[i]), got = call(b, fx_val_float(edges[i]), fx_val_int(0));
        if (!same_bits(got, want)) {
            fprintf(stderr, "%s(%.17g) = %.17g, libm %.17g\n", name, edges[i], got, want);
            EXPECT(false);
        }
    }
}

FX_TEST(unary_functions_are_libm_bit_for_bit)
{
    expect_unary(FX_BUILTIN_SQRT, sqrt, "sqrt");
    expect_unary(FX_BUILTIN_EXP, exp, "exp");
    expect_unary(FX_BUILTIN_LOG, log, "log");
    expect_unary(FX_BUILTIN_SIN, sin, "sin");
    expect_unary(FX_BUILTIN_COS, cos, "cos");
    expect_unary(FX_BUILTIN_TAN, tan, "tan");
    expect_unary(FX_BUILTIN_FLOOR, floor, "floor");
    expect_unary(FX_BUILTIN_CEIL, ceil, "ceil");
    expect_unary(FX_BUILTIN_ROUND, round, "round");
    expect_unary(FX_BUILTIN_ABS, fabs, "abs");
}

FX_TEST(binary_functions_are_libm_bit_for_bit)
{
    Binary volatile p = pow, a = atan2;
    for (size_t i = 0; i < FX_ARRAY_LEN(edges); i++) {
        for (size_t j = 0; j < FX_ARRAY_LEN(edges); j++) {
            double x = edges[i], y = edges[j];
            EXPECT(same_bits(call(FX_BUILTIN_POW, fx_val_float(x), fx_val_float(y)), p(x, y)));
            EXPECT(same_bits(call(FX_BUILTIN_ATAN2, fx_val_float(x), fx_val_float(y)), a(x, y)));
        }
    }
}

FX_TEST(named_cases)
{
    EXPECT(call(FX_BUILTIN_ROUND, fx_val_float(2.5), fx_val_int(0)) == 3.0); /* half away from 0 */
    EXPECT(call(FX_BUILTIN_ROUND, fx_val_float(-2.5), fx_val_int(0)) == -3.0);
    EXPECT(isnan(call(FX_BUILTIN_SQRT, fx_val_float(-1.0), fx_val_int(0))));
    EXPECT(call(FX_BUILTIN_LOG, fx_val_float(0.0), fx_val_int(0)) == -INFINITY);
    EXPECT(signbit(call(FX_BUILTIN_SQRT, fx_val_float(-0.0), fx_val_int(0))));
}

/* An integer argument is the double float(n) gives: exact below 2^53, the
 * nearest (ties to even) above, inf past the largest double. */
FX_TEST(integers_are_converted_as_float_converts)
{
    Unary volatile s = sqrt;
    EXPECT(same_bits(call(FX_BUILTIN_SQRT, fx_val_int(2), fx_val_int(0)), s(2.0)));
    EXPECT(same_bits(call(FX_BUILTIN_SQRT, fx_val_int(-4), fx_val_int(0)), s(-4.0)));
    /* 2^53 + 1 is a tie: to 2^53 */
    EXPECT(same_bits(call(FX_BUILTIN_SQRT, fx_val_int((1LL << 53) + 1), fx_val_int(0)),
                     s(9007199254740992.0)));
    FxValue big = fx_val_int_text("1" "000000000000000000000000000000000000000000000000000000000000");
    EXPECT(same_bits(call(FX_BUILTIN_LOG, big, fx_val_int(0)), log(1e60)));
    char *digits = malloc(402);
    digits[0] = '1';
    memset(digits + 1, '0', 400);
    digits[401] = '\0';
    EXPECT(call(FX_BUILTIN_SQRT, fx_val_int_text(digits), fx_val_int(0)) == INFINITY);
    EXPECT(call(FX_BUILTIN_POW, fx_val_int(2), fx_val_int_text(digits)) == INFINITY);
    free(digits);
}

/* isqrt or log2 of x, printed, or "error: MESSAGE". Caller frees. */
static char *exact(FxBuiltin b, FxValue x)
{
    FxValue out;
    FxError err = {0};
    bool ok = fx_math_call(b, &x, 1, &out, &err);
    fx_value_release(x);
    if (!ok)
        return fx_xasprintf("error: %s", err.message);
    FxValue t = fx_text_str(out);
    size_t len;
    const char *s = fx_val_string_data(t, &len);
    char *r = fx_xasprintf("%.*s", (int)len, s);
    fx_value_release(t);
    fx_value_release(out);
    return r;
}

#define EXPECT_EXACT(b, x, want)                                                                   \
    do {                                                                                           \
        char *s_ = exact(b, x);                                                                    \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
    } while (0)

FX_TEST(integer_functions_are_exact)
{
    EXPECT_EXACT(FX_BUILTIN_ISQRT, fx_val_int(0), "0");
    EXPECT_EXACT(FX_BUILTIN_ISQRT, fx_val_int(99), "9");
    EXPECT_EXACT(FX_BUILTIN_ISQRT, fx_val_int(100), "10");
    EXPECT_EXACT(FX_BUILTIN_ISQRT, fx_val_int(INT64_MAX), "3037000499");
    EXPECT_EXACT(FX_BUILTIN_ISQRT, fx_val_int_text("100000000000000000000000000000000000000001"),
                 "316227766016837933199");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int(1), "0");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int(1023), "9");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int(1024), "10");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int(INT64_MAX), "62");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int_text("1267650600228229401496703205376"), "100");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int_text("1267650600228229401496703205375"), "99");
    EXPECT_EXACT(FX_BUILTIN_ISQRT, fx_val_int(-4), "error: `isqrt` needs an integer >= 0, not -4");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int(0), "error: `log2` needs an integer >= 1, not 0");
    EXPECT_EXACT(FX_BUILTIN_LOG2, fx_val_int_text("-100000000000000000000"),
                 "error: `log2` needs an integer >= 1, not -100000000000000000000");
}

/* A random check of isqrt against GMP past int64. */
FX_TEST(isqrt_matches_gmp)
{
    mpz_t z, r;
    mpz_inits(z, r, NULL);
    mpz_set_ui(z, 12345);
    for (int i = 0; i < 50; i++) {
        mpz_mul_ui(z, z, 1000003);
        mpz_add_ui(z, z, (unsigned long)i);
        mpz_sqrt(r, z);
        mpz_t zc;
        mpz_init_set(zc, z);
        FxValue x = fx_val_int_take_mpz(zc), out;
        FxError err = {0};
        EXPECT(fx_math_call(FX_BUILTIN_ISQRT, &x, 1, &out, &err));
        mpz_t got;
        fx_val_mpz_init_from(got, out);
        EXPECT(mpz_cmp(got, r) == 0);
        mpz_clear(got);
        fx_value_release(x);
        fx_value_release(out);
    }
    mpz_clears(z, r, NULL);
}

FX_TEST(min_and_max_of_floats_are_fmin_fmax)
{
    FxValue out;
    FxError err = {0};
    EXPECT(fx_math_pick(fx_val_float(NAN), fx_val_int(1), false, &out, &err));
    EXPECT(out.kind == FX_VAL_FLOAT && out.u.f == 1.0);
    EXPECT(fx_math_pick(fx_val_int(1), fx_val_float(2.0), true, &out, &err));
    EXPECT(out.kind == FX_VAL_FLOAT && out.u.f == 2.0);
    EXPECT(fx_math_pick(fx_val_int(1), fx_val_float(2.0), false, &out, &err));
    EXPECT(out.kind == FX_VAL_FLOAT && out.u.f == 1.0); /* the wider type: Float */
    EXPECT(fx_math_pick(fx_val_int(3), fx_val_int(2), false, &out, &err));
    EXPECT(out.kind == FX_VAL_INT && out.u.i == 2);
    FxValue s = fx_val_string("a", 1);
    EXPECT(!fx_math_pick(s, fx_val_int(2), false, &out, &err));
    EXPECT_STR_EQ(err.message, "`min` of values that have no order");
    fx_value_release(s);
}

int main(void)
{
    return fx_test_run();
}
