/*
 * value_test.c: run-time values: the one representation of integers
 * (promotion past int64 and demotion back), floor division, exact mixed
 * comparison and hashing, both text syntaxes, and reference counts. Leaks
 * are caught by LeakSanitizer when the test runs in the asan build, so
 * every test releases what it made.
 */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "exec/value.h"
#include "exec/table.h"
#include "exec/value_gmp.h"
#include "fx_test.h"

typedef bool (*BinOp)(FxValue, FxValue, FxValue *, FxError *);

/* The printed form of v; caller frees. */
static char *show(FxValue v)
{
    FxBuf b = {0};
    fx_val_print(v, &b);
    return fx_buf_take(&b);
}

static char *show_json(FxValue v)
{
    FxBuf b = {0};
    fx_val_print_json(v, &b);
    return fx_buf_take(&b);
}

/* Checks the printed form of v, then releases v (the test's reference). */
#define EXPECT_PRINTS(v, want)                                                                     \
    do {                                                                                           \
        FxValue v_ = (v);                                                                          \
        char *s_ = show(v_);                                                                       \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
        fx_value_release(v_);                                                                      \
    } while (0)

#define EXPECT_JSON(v, want)                                                                       \
    do {                                                                                           \
        FxValue v_ = (v);                                                                          \
        char *s_ = show_json(v_);                                                                  \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
        fx_value_release(v_);                                                                      \
    } while (0)

/* a op b, which must succeed; a failure shows up as UNIT. */
static FxValue calc(BinOp op, FxValue a, FxValue b)
{
    FxValue out = {.kind = FX_VAL_UNIT};
    FxError err = {0};
    if (!op(a, b, &out, &err)) {
        fprintf(stderr, "unexpected error: %s\n", err.message);
        return (FxValue){.kind = FX_VAL_UNIT};
    }
    return out;
}

/* Like calc, on two decimal texts, releasing the operands. */
static FxValue calc_text(BinOp op, const char *a, const char *b)
{
    FxValue x = fx_val_int_text(a), y = fx_val_int_text(b);
    FxValue r = calc(op, x, y);
    fx_value_release(x);
    fx_value_release(y);
    return r;
}

static FxValue str(const char *s)
{
    return fx_val_string(s, strlen(s));
}

/* ---- integers: one representation ---- */

/* A list kept unboxed (a kernel's int64 output) behaves as the same list
 * of INT values: elements, length, equality both ways, order, hash, text,
 * JSON and its length, and concatenation with either kind. */
FX_TEST(unboxed_lists_are_lists_of_ints)
{
    int64_t raw[] = {INT64_MIN, -7, 0, 42, INT64_MAX};
    FxValue boxed_items[5];
    for (int i = 0; i < 5; i++)
        boxed_items[i] = fx_val_int(raw[i]);
    FxValue flat = fx_val_list_of_i64(raw, 5), boxed = fx_val_list(boxed_items, 5);
    EXPECT(fx_val_list_ints(flat) != NULL);
    EXPECT(fx_val_list_ints(boxed) == NULL);
    EXPECT_EQ(fx_val_list_len(flat), 5);
    for (size_t i = 0; i < 5; i++)
        EXPECT(fx_val_list_at(flat, i).kind == FX_VAL_INT && fx_val_list_at(flat, i).u.i == raw[i]);
    EXPECT(fx_val_equal(flat, boxed) && fx_val_equal(boxed, flat));
    bool ok;
    EXPECT_EQ(fx_val_compare(flat, boxed, &ok), 0);
    EXPECT(ok);
    EXPECT_EQ(fx_val_hash(flat), fx_val_hash(boxed));
    FxBuf a = {0}, b = {0}, ja = {0}, jb = {0};
    fx_val_print(flat, &a);
    fx_val_print(boxed, &b);
    EXPECT_STR_EQ(fx_buf_str(&a), fx_buf_str(&b));
    fx_val_print_json(flat, &ja);
    fx_val_print_json(boxed, &jb);
    EXPECT_STR_EQ(fx_buf_str(&ja), fx_buf_str(&jb));
    EXPECT_EQ(fx_val_json_at_least(flat, SIZE_MAX, NULL), ja.len);
    EXPECT_EQ(fx_val_json_at_least(boxed, SIZE_MAX, NULL), jb.len);
    int64_t less[] = {INT64_MIN, -7, 0, 41};
    FxValue shorter = fx_val_list_of_i64(less, 4);
    EXPECT(fx_val_compare(shorter, boxed, &ok) < 0 && ok);
    EXPECT(!fx_val_equal(shorter, flat));
    FxValue both, mixed;
    FxError err = {0};
    EXPECT(fx_val_concat(flat, shorter, &both, &err));
    EXPECT(fx_val_list_ints(both) != NULL && fx_val_list_len(both) == 9);
    EXPECT(fx_val_concat(boxed, shorter, &mixed, &err));
    EXPECT(fx_val_equal(both, mixed));
    EXPECT_EQ(fx_val_hash(both), fx_val_hash(mixed));
    EXPECT(fx_val_list_at(mixed, 8).u.i == 41);
    fx_buf_free(&a);
    fx_buf_free(&b);
    fx_buf_free(&ja);
    fx_buf_free(&jb);
    fx_value_release(both);
    fx_value_release(mixed);
    fx_value_release(shorter);
    fx_value_release(flat);
    fx_value_release(boxed);
}

/* An integer past int64 meets a float as its nearest double, ties to
 * even, as strtod reads its digits (GMP's mpz_get_d truncates): in
 * fx_val_int_to_double and in arithmetic with a float. */
FX_TEST(big_integers_round_to_the_nearest_double)
{
    static const char *const cases[] = {
        "1152921504606847104",   /* 2^60 + 2^7: a tie, to the even 2^60 */
        "1152921504606847105",   /* 2^60 + 2^7 + 1: up to 2^60 + 2^8 */
        "1152921504606847360",   /* 2^60 + 3 * 2^7: a tie, to the even 2^60 + 2^9 */
        "-1152921504606847105",
        "18446744073709551615",  /* 2^64 - 1: up to 2^64 */
        "123456789012345678901234567890123456789",
        "1" "00000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000", /* 10^320: inf */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        FxValue v = fx_val_int_text(cases[i]), one = fx_val_float(1.0), prod;
        double want = strtod(cases[i], NULL), got = fx_val_int_to_double(v);
        EXPECT(memcmp(&got, &want, sizeof(got)) == 0);
        FxError err = {0};
        EXPECT(fx_val_mul(v, one, &prod, &err));
        EXPECT(prod.kind == FX_VAL_FLOAT && memcmp(&prod.u.f, &want, sizeof(want)) == 0);
        fx_value_release(v);
    }
}

/* A list of floats kept unboxed behaves as the same list of FLOAT values:
 * elements, equality both ways (and with integers equal to them), order,
 * hash, text and JSON, and concatenation with either kind. */
FX_TEST(unboxed_lists_are_lists_of_floats)
{
    double raw[] = {-0.0, 0.5, -1e300, 3.0, 1.0 / 3.0};
    FxValue boxed_items[5];
    for (int i = 0; i < 5; i++)
        boxed_items[i] = fx_val_float(raw[i]);
    double *copy = malloc(sizeof(raw));
    memcpy(copy, raw, sizeof(raw));
    FxValue flat = fx_val_list_adopt_floats(copy, 5), boxed = fx_val_list(boxed_items, 5);
    EXPECT(fx_val_list_floats(flat) != NULL && fx_val_list_ints(flat) == NULL);
    for (size_t i = 0; i < 5; i++)
        EXPECT(fx_val_list_at(flat, i).kind == FX_VAL_FLOAT && fx_val_list_at(flat, i).u.f == raw[i]);
    EXPECT(fx_val_equal(flat, boxed) && fx_val_equal(boxed, flat));
    bool ok;
    EXPECT_EQ(fx_val_compare(flat, boxed, &ok), 0);
    EXPECT(ok);
    EXPECT_EQ(fx_val_hash(flat), fx_val_hash(boxed));
    FxBuf a = {0}, b = {0};
    fx_val_print(flat, &a);
    fx_val_print(boxed, &b);
    EXPECT_STR_EQ(fx_buf_str(&a), fx_buf_str(&b));
    a.len = b.len = 0;
    fx_val_print_json(flat, &a);
    fx_val_print_json(boxed, &b);
    EXPECT_STR_EQ(fx_buf_str(&a), fx_buf_str(&b));
    EXPECT(fx_val_json_at_least(flat, SIZE_MAX, NULL) <= a.len);
    FxValue ints_items[2] = {fx_val_int(3), fx_val_int(-1)};
    double twos[] = {3.0, -1.0};
    double *t = malloc(sizeof(twos));
    memcpy(t, twos, sizeof(twos));
    FxValue as_floats = fx_val_list_adopt_floats(t, 2), as_ints = fx_val_list(ints_items, 2);
    EXPECT(fx_val_equal(as_floats, as_ints));
    EXPECT_EQ(fx_val_hash(as_floats), fx_val_hash(as_ints));
    FxValue both, mixed;
    FxError err = {0};
    EXPECT(fx_val_concat(flat, as_floats, &both, &err));
    EXPECT(fx_val_list_floats(both) != NULL && fx_val_list_len(both) == 7);
    EXPECT(fx_val_concat(boxed, as_floats, &mixed, &err));
    EXPECT(fx_val_equal(both, mixed) && fx_val_hash(both) == fx_val_hash(mixed));
    fx_buf_free(&a);
    fx_buf_free(&b);
    FxValue all[] = {both, mixed, as_floats, as_ints, flat, boxed};
    for (size_t i = 0; i < 6; i++)
        fx_value_release(all[i]);
}

/* A list of records kept by column (table.h) is the same list as its rows
 * boxed: each row, equality, hash and text; a row taken alone is a record
 * of its cells. */
FX_TEST(tables_are_lists_of_records)
{
    static const char *const names[] = {"k", "s", "x", "b"};
    FxTable *t = calloc(1, sizeof(*t));
    t->n_rows = 3;
    t->n_cols = 4;
    t->names = names;
    t->cols = calloc(4, sizeof(FxColumn));
    int64_t k[] = {-5, 0, INT64_MAX};
    double x[] = {0.25, -2.0, 1e10};
    uint8_t bo[] = {1, 0, 1};
    uint64_t off[] = {0, 3, 3, 8};
    t->cols[0] = (FxColumn){FX_COL_INT, {.ints = malloc(sizeof(k))}, NULL};
    memcpy(t->cols[0].u.ints, k, sizeof(k));
    t->cols[1] = (FxColumn){FX_COL_STRING, {.offsets = malloc(sizeof(off))}, malloc(8)};
    memcpy(t->cols[1].u.offsets, off, sizeof(off));
    memcpy(t->cols[1].bytes, "abc\xc3\xa9\xe6\xbc\xa2", 8); /* "abc", "", "é漢" */
    t->cols[2] = (FxColumn){FX_COL_FLOAT, {.floats = malloc(sizeof(x))}, NULL};
    memcpy(t->cols[2].u.floats, x, sizeof(x));
    t->cols[3] = (FxColumn){FX_COL_BOOL, {.bools = malloc(sizeof(bo))}, NULL};
    memcpy(t->cols[3].u.bools, bo, sizeof(bo));
    FxValue table = fx_val_list_of_table(t);
    static const char *texts[] = {"abc", "", "\xc3\xa9\xe6\xbc\xa2"};
    FxValue rows[3];
    for (size_t r = 0; r < 3; r++) {
        FxValue f[4] = {fx_val_int(k[r]), fx_val_string(texts[r], strlen(texts[r])),
                        fx_val_float(x[r]), fx_val_bool(bo[r])};
        rows[r] = fx_val_record(4, names, f);
        fx_value_release(f[1]);
        FxValue one = fx_val_list_get(table, r);
        EXPECT(fx_val_equal(one, rows[r]));
        fx_value_release(one);
    }
    FxValue boxed = fx_val_list(rows, 3);
    EXPECT(fx_val_list_table(table) != NULL && fx_val_list_len(table) == 3);
    EXPECT_EQ(fx_val_hash(table), fx_val_hash(boxed)); /* the rows made whole from here */
    EXPECT(fx_val_equal(table, boxed));
    FxBuf a = {0}, b = {0};
    fx_val_print(table, &a);
    fx_val_print(boxed, &b);
    EXPECT_STR_EQ(fx_buf_str(&a), fx_buf_str(&b));
    FxValue one = fx_val_list_get(table, 2);
    EXPECT(fx_val_equal(one, rows[2]));
    fx_value_release(one);
    fx_buf_free(&a);
    fx_buf_free(&b);
    for (size_t r = 0; r < 3; r++)
        fx_value_release(rows[r]);
    fx_value_release(boxed);
    fx_value_release(table);
}

/* The last 20 digits of big integers (from residues mod 2^20 and 5^20)
 * against GMP's division by 10^20: random sizes, both signs, and numbers
 * whose low digits are zeros or nines. */
FX_TEST(last_digits_of_big_integers)
{
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 20261201);
    mpz_t z, r, ten20;
    mpz_inits(z, r, ten20, NULL);
    mpz_ui_pow_ui(ten20, 10, 20);
    int bad = 0;
    for (int i = 0; i < 400; i++) {
        mpz_urandomb(z, rs, 65 + (mp_bitcnt_t)(i * 37 % 5000));
        if (i % 5 == 1)
            mpz_mul(z, z, ten20); /* ends in 20 zeros */
        if (i % 5 == 2)
            mpz_sub_ui(z, ten20, 1); /* 99...9 */
        if (i % 5 == 2 && i % 3)
            mpz_pow_ui(z, z, 3);
        if (i % 2)
            mpz_neg(z, z);
        if (mpz_sizeinbase(z, 2) <= 63)
            continue; /* an INT, not a BIG */
        mpz_tdiv_r(r, z, ten20);
        mpz_abs(r, r);
        char want[48], got[24], digits[24];
        mpz_get_str(digits, 10, r);
        snprintf(want, sizeof(want), "%.*s%s", (int)(20 - strlen(digits)), "00000000000000000000",
                 digits);
        mpz_t copy;
        mpz_init_set(copy, z);
        FxValue v = fx_val_int_take_mpz(copy);
        fx_val_int_last_digits(v, got, sizeof(got));
        bad += strcmp(want, got) != 0;
        fx_value_release(v);
    }
    EXPECT_EQ(bad, 0);
    mpz_clears(z, r, ten20, NULL);
    gmp_randclear(rs);
}

FX_TEST(overflow_promotes_and_demotes)
{
    FxValue max = fx_val_int(INT64_MAX);
    FxValue big = calc(fx_val_add, max, fx_val_int(1));
    EXPECT_EQ(big.kind, FX_VAL_BIG);
    EXPECT_PRINTS(fx_val_int(0), "0");
    char *s = show(big);
    EXPECT_STR_EQ(s, "9223372036854775808");
    free(s);

    FxValue back = calc(fx_val_sub, big, fx_val_int(1));
    EXPECT_EQ(back.kind, FX_VAL_INT);
    EXPECT(fx_val_equal(back, max));
    EXPECT_EQ(back.u.i, INT64_MAX);
    int64_t i = 0;
    EXPECT(fx_val_to_int64(back, &i) && i == INT64_MAX);
    EXPECT(!fx_val_to_int64(big, &i));
    EXPECT(!fx_val_equal(big, max));
    fx_value_release(big);

    // The same for the other end and for multiplication.
    FxValue low = calc(fx_val_sub, fx_val_int(INT64_MIN), fx_val_int(1));
    EXPECT_EQ(low.kind, FX_VAL_BIG);
    EXPECT_EQ(fx_val_int_sign(low), -1);
    FxValue min = calc(fx_val_add, low, fx_val_int(1));
    EXPECT_EQ(min.kind, FX_VAL_INT);
    EXPECT_EQ(min.u.i, INT64_MIN);
    fx_value_release(low);

    FxValue sq = calc(fx_val_mul, fx_val_int(4294967296), fx_val_int(4294967296));
    EXPECT_PRINTS(sq, "18446744073709551616");
}

FX_TEST(int_text_picks_the_representation)
{
    FxValue a = fx_val_int_text("9223372036854775807");
    FxValue b = fx_val_int_text("9223372036854775808");
    FxValue c = fx_val_int_text("-9223372036854775808");
    FxValue d = fx_val_int_text("-123456789012345678901234567890");
    EXPECT_EQ(a.kind, FX_VAL_INT);
    EXPECT_EQ(b.kind, FX_VAL_BIG);
    EXPECT_EQ(c.kind, FX_VAL_INT);
    EXPECT_EQ(c.u.i, INT64_MIN);
    EXPECT_EQ(d.kind, FX_VAL_BIG);
    EXPECT_EQ(fx_val_int_sign(d), -1);
    EXPECT_PRINTS(d, "-123456789012345678901234567890");
    EXPECT_PRINTS(b, "9223372036854775808");
    EXPECT_PRINTS(fx_val_int_text("-42"), "-42");
    // Leading zeros in a long text still demote.
    FxValue z = fx_val_int_text("000000000000000000000000000042");
    EXPECT_EQ(z.kind, FX_VAL_INT);
    EXPECT_EQ(z.u.i, 42);
}

FX_TEST(fibonacci_crosses_int64)
{
    static const char *const want[] = {
            "2880067194370816120",  "4660046610375530309",  "7540113804746346429",
            "12200160415121876738", "19740274219868223167", "31940434634990099905",
    };
    FxValue a = fx_val_int(0), b = fx_val_int(1); // fib(0), fib(1)
    for (int n = 0; n < 96; n++) {
        if (n >= 90) {
            char *s = show(a);
            EXPECT_STR_EQ(s, want[n - 90]);
            free(s);
            FxValue t = fx_val_int_text(want[n - 90]);
            EXPECT(fx_val_equal(a, t));
            EXPECT_EQ(a.kind, n <= 92 ? FX_VAL_INT : FX_VAL_BIG);
            fx_value_release(t);
        }
        FxValue next = calc(fx_val_add, a, b);
        fx_value_release(a);
        a = b;
        b = next;
    }
    fx_value_release(a);
    fx_value_release(b);
}

/* 2^n in decimal by schoolbook doubling, independent of GMP. */
static void power_of_two_text(int n, char *out, size_t cap)
{
    unsigned char digit[400] = {1}; // little-endian
    size_t len = 1;
    for (int k = 0; k < n; k++) {
        int carry = 0;
        for (size_t i = 0; i < len; i++) {
            int d = digit[i] * 2 + carry;
            digit[i] = (unsigned char)(d % 10);
            carry = d / 10;
        }
        if (carry)
            digit[len++] = (unsigned char)carry;
    }
    for (size_t i = 0; i < len && i + 1 < cap; i++)
        out[i] = (char)('0' + digit[len - 1 - i]);
    out[len < cap ? len : cap - 1] = '\0';
}

FX_TEST(two_to_the_664)
{
    char want[401];
    power_of_two_text(664, want, sizeof(want));
    EXPECT_EQ(strlen(want), 200);

    FxValue p = calc(fx_val_pow, fx_val_int(2), fx_val_int(664));
    char *s = show(p);
    EXPECT_EQ(strlen(s), 200);
    EXPECT_STR_EQ(s, want);
    free(s);
    FxValue t = fx_val_int_text(want);
    EXPECT(fx_val_equal(p, t));
    EXPECT_EQ(fx_val_hash(p), fx_val_hash(t));

    // Repeated doubling reaches the same value by another path.
    FxValue d = fx_val_int(1);
    for (int k = 0; k < 664; k++) {
        FxValue next = calc(fx_val_mul, d, fx_val_int(2));
        fx_value_release(d);
        d = next;
    }
    EXPECT(fx_val_equal(p, d));
    fx_value_release(d);
    fx_value_release(t);
    fx_value_release(p);
}

/* ---- floor division ---- */

FX_TEST(floor_division_int64)
{
    static const int64_t cases[][4] = {
            {7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1}, {6, 3, 2, 0},
            {-6, 3, -2, 0}, {0, -5, 0, 0}, {INT64_MIN, 2, INT64_MIN / 2, 0}, {INT64_MIN, -1, 0, 0},
    };
    for (size_t i = 0; i < FX_ARRAY_LEN(cases); i++) {
        FxValue a = fx_val_int(cases[i][0]), b = fx_val_int(cases[i][1]);
        FxValue q = calc(fx_val_idiv, a, b), r = calc(fx_val_mod, a, b);
        if (cases[i][1] != -1) {
            EXPECT_EQ(q.kind, FX_VAL_INT);
            EXPECT_EQ(q.u.i, cases[i][2]);
        }
        EXPECT_EQ(r.kind, FX_VAL_INT);
        EXPECT_EQ(r.u.i, cases[i][3]);
        fx_value_release(q);
    }
    // INT64_MIN div -1 is 2^63: it promotes rather than trapping.
    EXPECT_PRINTS(calc(fx_val_idiv, fx_val_int(INT64_MIN), fx_val_int(-1)), "9223372036854775808");
}

FX_TEST(floor_division_big)
{
    static const char *const cases[][4] = {
            {"700000000000000000001", "2", "350000000000000000000", "1"},
            {"-700000000000000000001", "2", "-350000000000000000001", "1"},
            {"700000000000000000001", "-2", "-350000000000000000001", "-1"},
            {"-700000000000000000001", "-2", "350000000000000000000", "-1"},
            {"700000000000000000001", "200000000000000000000", "3", "100000000000000000001"},
            {"-700000000000000000001", "200000000000000000000", "-4", "99999999999999999999"},
            {"700000000000000000001", "-200000000000000000000", "-4", "-99999999999999999999"},
            {"-700000000000000000001", "-200000000000000000000", "3", "-100000000000000000001"},
            {"7", "200000000000000000000", "0", "7"},
            {"-7", "200000000000000000000", "-1", "199999999999999999993"},
            {"7", "-200000000000000000000", "-1", "-199999999999999999993"},
            {"-7", "-200000000000000000000", "0", "-7"},
    };
    for (size_t i = 0; i < FX_ARRAY_LEN(cases); i++) {
        FxValue q = calc_text(fx_val_idiv, cases[i][0], cases[i][1]);
        FxValue r = calc_text(fx_val_mod, cases[i][0], cases[i][1]);
        EXPECT_PRINTS(q, cases[i][2]);
        EXPECT_PRINTS(r, cases[i][3]);
    }
    // A small quotient of two BIGs is an INT again.
    FxValue q = calc_text(fx_val_idiv, "700000000000000000001", "200000000000000000000");
    EXPECT_EQ(q.kind, FX_VAL_INT);
}

FX_TEST(division_by_zero)
{
    FxValue out = {.kind = FX_VAL_UNIT};
    FxError err = {0};
    EXPECT(!fx_val_idiv(fx_val_int(1), fx_val_int(0), &out, &err));
    EXPECT_STR_EQ(err.message, "division by zero");
    err.message[0] = '\0';
    EXPECT(!fx_val_mod(fx_val_int(-1), fx_val_int(0), &out, &err));
    EXPECT_STR_EQ(err.message, "division by zero");
    FxValue big = fx_val_int_text("123456789012345678901234567890");
    err.message[0] = '\0';
    EXPECT(!fx_val_idiv(big, fx_val_int(0), &out, &err));
    EXPECT_STR_EQ(err.message, "division by zero");
    fx_value_release(big);
    // `/` is IEEE: a float zero divisor gives an infinity, not an error.
    EXPECT_PRINTS(calc(fx_val_div_float, fx_val_int(1), fx_val_float(0.0)), "inf");
}

/* ---- the rest of the arithmetic ---- */

FX_TEST(powers)
{
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(2), fx_val_int(10)), "1024");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(3), fx_val_int(40)), "12157665459056928801");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(7), fx_val_int(0)), "1");
    FxValue m = calc(fx_val_pow, fx_val_int(-2), fx_val_int(63));
    EXPECT_EQ(m.kind, FX_VAL_INT);
    EXPECT_EQ(m.u.i, INT64_MIN);
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(2), fx_val_int(63)), "9223372036854775808");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_float(2.0), fx_val_int(-1)), "0.5");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(4), fx_val_float(0.5)), "2.0");

    FxValue huge = fx_val_int_text("1000000000000000000000000000001");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(1), huge), "1");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(-1), huge), "-1");
    EXPECT_PRINTS(calc(fx_val_pow, fx_val_int(0), huge), "0");
    EXPECT_PRINTS(calc(fx_val_pow, huge, fx_val_int(0)), "1");
    EXPECT_PRINTS(calc(fx_val_pow, huge, fx_val_int(2)),
                  "1000000000000000000000000000002000000000000000000000000000001");

    FxValue out;
    FxError err = {0};
    EXPECT(!fx_val_pow(fx_val_int(2), fx_val_int(-1), &out, &err));
    EXPECT_STR_EQ(err.message, "negative exponent on an integer; use a Float base");
    EXPECT(!fx_val_pow(fx_val_int(2), huge, &out, &err));
    EXPECT(!fx_val_pow(fx_val_int(2), fx_val_int((int64_t)1 << 33), &out, &err));
    EXPECT(!fx_val_pow(huge, fx_val_int((int64_t)1 << 31), &out, &err));
    fx_value_release(huge);
}

FX_TEST(negation)
{
    FxValue p = calc(fx_val_sub, fx_val_int(0), fx_val_int(INT64_MIN));
    EXPECT_EQ(p.kind, FX_VAL_BIG);
    FxValue n;
    EXPECT(fx_val_neg(fx_val_int(INT64_MIN), &n, NULL));
    EXPECT(fx_val_equal(n, p));
    FxValue back;
    EXPECT(fx_val_neg(n, &back, NULL));
    EXPECT_EQ(back.kind, FX_VAL_INT);
    EXPECT_EQ(back.u.i, INT64_MIN);
    EXPECT_PRINTS(n, "9223372036854775808");
    fx_value_release(p);

    FxValue f;
    EXPECT(fx_val_neg(fx_val_float(2.5), &f, NULL));
    EXPECT_PRINTS(f, "-2.5");
    FxError err = {0};
    FxValue s = str("x");
    EXPECT(!fx_val_neg(s, &f, &err));
    EXPECT(strstr(err.message, "String") != NULL);
    fx_value_release(s);
}

FX_TEST(mixed_and_mistyped_arithmetic)
{
    EXPECT_PRINTS(calc(fx_val_add, fx_val_int(1), fx_val_float(0.5)), "1.5");
    EXPECT_PRINTS(calc(fx_val_mul, fx_val_float(0.5), fx_val_int(4)), "2.0");
    EXPECT_PRINTS(calc(fx_val_div_float, fx_val_int(1), fx_val_float(4.0)), "0.25");
    FxValue big = fx_val_int_text("18446744073709551616");
    EXPECT_PRINTS(calc(fx_val_add, big, fx_val_float(0.0)), "1.8446744073709552e+19");
    fx_value_release(big);

    FxValue out;
    FxError err = {0};
    FxValue s = str("a");
    EXPECT(!fx_val_add(s, fx_val_int(1), &out, &err));
    EXPECT_STR_EQ(err.message, "`+` needs two numbers, not String and Int");
    EXPECT(!fx_val_idiv(fx_val_float(1.0), fx_val_int(1), &out, &err));
    EXPECT_STR_EQ(err.message, "`div` needs two integers, not Float and Int");
    EXPECT(!fx_val_concat(s, fx_val_int(1), &out, &err));
    fx_value_release(s);
}

FX_TEST(concatenation)
{
    FxValue a = str("ab"), b = str("cd");
    EXPECT_PRINTS(calc(fx_val_concat, a, b), "\"abcd\"");
    FxValue xs_items[] = {fx_val_int(1), a};
    FxValue xs = fx_val_list(xs_items, 2);
    FxValue ys = fx_val_list(&b, 1);
    fx_value_release(a);
    fx_value_release(b);
    FxValue zs = calc(fx_val_concat, xs, ys);
    fx_value_release(xs);
    fx_value_release(ys);
    EXPECT_EQ(fx_val_list_len(zs), 3);
    EXPECT_PRINTS(zs, "[1, \"ab\", \"cd\"]");
}

/* ---- comparison and hashing ---- */

FX_TEST(equality_across_number_kinds)
{
    EXPECT(fx_val_equal(fx_val_int(1), fx_val_float(1.0)));
    EXPECT(fx_val_equal(fx_val_float(-0.0), fx_val_int(0)));
    EXPECT(!fx_val_equal(fx_val_int(1), fx_val_float(1.5)));
    EXPECT(!fx_val_equal(fx_val_float(NAN), fx_val_float(NAN)));
    // 2^53 + 1 has no double: it must not equal its rounding.
    EXPECT(!fx_val_equal(fx_val_int(9007199254740993), fx_val_float(9007199254740992.0)));
    EXPECT(fx_val_equal(fx_val_int(INT64_MIN), fx_val_float(-0x1p63)));
    EXPECT(!fx_val_equal(fx_val_int(INT64_MAX), fx_val_float(0x1p63)));

    FxValue big = fx_val_int_text("18446744073709551616");
    EXPECT(fx_val_equal(big, fx_val_float(0x1p64)));
    EXPECT(fx_val_equal(fx_val_float(0x1p64), big));
    fx_value_release(big);

    EXPECT(!fx_val_equal(fx_val_int(1), fx_val_bool(true)));
    FxValue s = str("1");
    EXPECT(!fx_val_equal(s, fx_val_int(1)));
    fx_value_release(s);
}

FX_TEST(compare_numbers_exactly)
{
    bool ok = false;
    FxValue big = fx_val_int_text("18446744073709551617"); // 2^64 + 1
    EXPECT_EQ(fx_val_compare(big, fx_val_float(0x1p64), &ok), 1);
    EXPECT(ok);
    EXPECT_EQ(fx_val_compare(fx_val_float(0x1p64), big, &ok), -1);
    EXPECT_EQ(fx_val_compare(big, fx_val_float(INFINITY), &ok), -1);
    EXPECT_EQ(fx_val_compare(big, fx_val_float(-INFINITY), &ok), 1);
    EXPECT_EQ(fx_val_compare(big, fx_val_float(1e30), &ok), -1);
    EXPECT_EQ(fx_val_compare(big, fx_val_int(INT64_MAX), &ok), 1);
    fx_val_compare(big, fx_val_float(NAN), &ok);
    EXPECT(!ok);
    fx_value_release(big);

    FxValue neg = fx_val_int_text("-18446744073709551617");
    EXPECT_EQ(fx_val_compare(neg, fx_val_int(INT64_MIN), &ok), -1);
    EXPECT_EQ(fx_val_compare(neg, fx_val_float(-0x1p64), &ok), -1);
    fx_value_release(neg);

    FxValue two53p1 = fx_val_int(9007199254740993); // 2^53 + 1: no double is equal
    EXPECT_EQ(fx_val_compare(two53p1, fx_val_float(9007199254740992.0), &ok), 1);
    EXPECT_EQ(fx_val_compare(fx_val_int(INT64_MAX), fx_val_float(0x1p63), &ok), -1);
    EXPECT_EQ(fx_val_compare(fx_val_int(-3), fx_val_float(-2.5), &ok), -1);
    EXPECT_EQ(fx_val_compare(fx_val_int(-2), fx_val_float(-2.5), &ok), 1);
    EXPECT_EQ(fx_val_compare(fx_val_float(2.5), fx_val_int(2), &ok), 1);
    fx_val_compare(fx_val_float(NAN), fx_val_int(1), &ok);
    EXPECT(!ok);
}

FX_TEST(compare_other_kinds)
{
    bool ok = false;
    FxValue a = str("abc"), b = str("abd"), ab = str("ab");
    EXPECT_EQ(fx_val_compare(a, b, &ok), -1);
    EXPECT(ok);
    EXPECT_EQ(fx_val_compare(a, ab, &ok), 1);
    EXPECT_EQ(fx_val_compare(a, a, &ok), 0);
    EXPECT_EQ(fx_val_compare(fx_val_bool(false), fx_val_bool(true), &ok), -1);

    FxValue x[] = {fx_val_int(1), fx_val_int(2)}, y[] = {fx_val_int(1), fx_val_int(3)};
    FxValue xs = fx_val_list(x, 2), ys = fx_val_list(y, 2), x1 = fx_val_list(x, 1);
    EXPECT_EQ(fx_val_compare(xs, ys, &ok), -1);
    EXPECT(ok);
    EXPECT_EQ(fx_val_compare(x1, xs, &ok), -1);
    EXPECT_EQ(fx_val_compare(xs, xs, &ok), 0);

    const char *names[] = {"a"};
    FxValue r = fx_val_record(1, names, x);
    fx_val_compare(r, r, &ok);
    EXPECT(!ok);
    fx_val_compare(a, fx_val_int(1), &ok);
    EXPECT(!ok);
    FxValue vals[] = {a, b, ab, xs, ys, x1, r};
    for (size_t i = 0; i < FX_ARRAY_LEN(vals); i++)
        fx_value_release(vals[i]);
}

FX_TEST(hash_agrees_with_equal)
{
    EXPECT_EQ(fx_val_hash(fx_val_int(1)), fx_val_hash(fx_val_float(1.0)));
    EXPECT_EQ(fx_val_hash(fx_val_int(0)), fx_val_hash(fx_val_float(-0.0)));
    EXPECT_EQ(fx_val_hash(fx_val_int(INT64_MIN)), fx_val_hash(fx_val_float(-0x1p63)));
    EXPECT(fx_val_hash(fx_val_int(1)) != fx_val_hash(fx_val_int(2)));
    FxValue big = fx_val_int_text("18446744073709551616");
    EXPECT_EQ(fx_val_hash(big), fx_val_hash(fx_val_float(0x1p64)));
    fx_value_release(big);

    FxValue ints[] = {fx_val_int(1), fx_val_int(2)};
    FxValue floats[] = {fx_val_float(1.0), fx_val_float(2.0)};
    FxValue li = fx_val_list(ints, 2), lf = fx_val_list(floats, 2);
    EXPECT(fx_val_equal(li, lf));
    EXPECT_EQ(fx_val_hash(li), fx_val_hash(lf));

    // Records match fields by name, whatever their order.
    const char *n1[] = {"x", "y"}, *n2[] = {"y", "x"};
    FxValue f2[] = {fx_val_int(2), fx_val_int(1)};
    FxValue r1 = fx_val_record(2, n1, ints), r2 = fx_val_record(2, n2, f2);
    EXPECT(fx_val_equal(r1, r2));
    EXPECT_EQ(fx_val_hash(r1), fx_val_hash(r2));
    FxValue s1 = str("same"), s2 = str("same");
    EXPECT(fx_val_equal(s1, s2));
    EXPECT_EQ(fx_val_hash(s1), fx_val_hash(s2));
    FxValue vals[] = {li, lf, r1, r2, s1, s2};
    for (size_t i = 0; i < FX_ARRAY_LEN(vals); i++)
        fx_value_release(vals[i]);
}

/* ---- text ---- */

FX_TEST(float_printing)
{
    EXPECT_PRINTS(fx_val_float(0.1), "0.1");
    EXPECT_PRINTS(fx_val_float(1.0), "1.0");
    EXPECT_PRINTS(fx_val_float(1e100), "1e+100");
    EXPECT_PRINTS(fx_val_float(-2.5), "-2.5");
    EXPECT_PRINTS(fx_val_float(1.0 / 3), "0.3333333333333333");
    EXPECT_PRINTS(fx_val_float(0.1 + 0.2), "0.30000000000000004");
    EXPECT_PRINTS(fx_val_float(123456789.0), "123456789.0");
    EXPECT_PRINTS(fx_val_float(-0.0), "-0.0");
    EXPECT_PRINTS(fx_val_float(1e-7), "1e-07");
    EXPECT_PRINTS(fx_val_float(INFINITY), "inf");
    EXPECT_PRINTS(fx_val_float(-INFINITY), "-inf");
    EXPECT_PRINTS(fx_val_float(NAN), "nan");
    // Every finite float reads back as itself.
    double samples[] = {5e-324, 1.7976931348623157e308, 2.0 / 3, 1e23, 0.1 * 3};
    for (size_t i = 0; i < FX_ARRAY_LEN(samples); i++) {
        char *s = show(fx_val_float(samples[i]));
        EXPECT(strtod(s, NULL) == samples[i]);
        free(s);
    }
}

FX_TEST(scalar_and_string_printing)
{
    EXPECT_PRINTS(fx_val_bool(true), "true");
    EXPECT_PRINTS(fx_val_bool(false), "false");
    EXPECT_PRINTS((FxValue){.kind = FX_VAL_UNIT}, "()");
    EXPECT_PRINTS(fx_val_int(-17), "-17");
    EXPECT_PRINTS(str("a\"b\\c\nd\te"), "\"a\\\"b\\\\c\\nd\\te\"");
    EXPECT_PRINTS(str(""), "\"\"");
    // Strings hold bytes: an embedded NUL is kept.
    FxValue z = fx_val_string("a\0b", 3);
    size_t len = 0;
    EXPECT(memcmp(fx_val_string_data(z, &len), "a\0b", 3) == 0);
    EXPECT_EQ(len, 3);
    fx_value_release(z);
}

FX_TEST(container_printing)
{
    FxValue nums[] = {fx_val_int(1), fx_val_int(2), fx_val_int(3)};
    EXPECT_PRINTS(fx_val_list(nums, 3), "[1, 2, 3]");
    EXPECT_PRINTS(fx_val_list(NULL, 0), "[]");
    FxValue inner = fx_val_list(nums, 2);
    FxValue outer_items[] = {inner, fx_val_float(0.5)};
    EXPECT_PRINTS(fx_val_list(outer_items, 2), "[[1, 2], 0.5]");
    fx_value_release(inner);

    FxValue cells[] = {fx_val_float(1.0), fx_val_float(2.0), fx_val_float(3.0), fx_val_float(4.0)};
    FxValue m = fx_val_matrix(2, 2, cells);
    EXPECT_EQ(fx_val_matrix_rows(m), 2);
    EXPECT_EQ(fx_val_matrix_cols(m), 2);
    EXPECT(fx_val_equal(fx_val_matrix_at(m, 1, 0), fx_val_int(3)));
    EXPECT_PRINTS(m, "[[1.0, 2.0], [3.0, 4.0]]");

    const char *names[] = {"name", "age"};
    FxValue fields[] = {str("Ann"), fx_val_int(31)};
    FxValue r = fx_val_record(2, names, fields);
    fx_value_release(fields[0]);
    EXPECT_EQ(fx_val_record_size(r), 2);
    EXPECT_STR_EQ(fx_val_record_name(r, 1), "age");
    EXPECT(fx_val_equal(fx_val_record_field(r, "age"), fx_val_int(31)));
    EXPECT_EQ(fx_val_record_field(r, "height").kind, FX_VAL_UNIT);
    EXPECT_JSON(fx_val_list(&r, 1), "[{\"name\": \"Ann\", \"age\": 31}]");
    EXPECT_PRINTS(r, "{name: \"Ann\", age: 31}");
}

FX_TEST(json_printing)
{
    EXPECT_JSON(fx_val_int_text("1180591620717411303424"), "1180591620717411303424");
    EXPECT_JSON(fx_val_int_text("-1180591620717411303424"), "-1180591620717411303424");
    EXPECT_JSON(str("say \"hi\"\nbye"), "\"say \\\"hi\\\"\\nbye\"");
    EXPECT_JSON(str("tab\there\x01\\"), "\"tab\\there\\u0001\\\\\"");
    EXPECT_JSON(fx_val_float(NAN), "null");
    EXPECT_JSON(fx_val_float(-INFINITY), "null");
    EXPECT_JSON(fx_val_float(2.0), "2.0");
    EXPECT_JSON((FxValue){.kind = FX_VAL_UNIT}, "null");
    FxValue cells[] = {fx_val_int(1), fx_val_int(2)};
    EXPECT_JSON(fx_val_matrix(2, 1, cells), "[[1], [2]]");
}

/* ---- reference counts ---- */

FX_TEST(large_list_refcount)
{
    enum { N = 100000 };
    FxValue *items = malloc(N * sizeof(*items));
    for (int i = 0; i < N; i++)
        items[i] = fx_val_int(i);
    FxValue xs = fx_val_list_take(items, N);
    free(items);
    fx_value_retain(xs);
    EXPECT_EQ(fx_val_list_len(xs), N);
    EXPECT(fx_val_equal(fx_val_list_at(xs, N - 1), fx_val_int(N - 1)));
    fx_value_release(xs);
    EXPECT_EQ(fx_val_list_len(xs), N); // still alive: one reference left
    fx_value_release(xs);
}

FX_TEST(shared_children_live_on)
{
    enum { N = 100000 };
    FxValue s = str("shared");
    FxValue *items = malloc(N * sizeof(*items));
    for (int i = 0; i < N; i++)
        items[i] = i % 2 ? s : fx_val_int_text("100000000000000000000000");
    FxValue xs = fx_val_list(items, N); // retains each element
    for (int i = 0; i < N; i += 2)
        fx_value_release(items[i]);
    free(items);
    FxValue ys = fx_val_list(&xs, 1);
    fx_value_release(xs);
    fx_value_release(ys); // frees ys, xs and every BIG, but not s
    size_t len = 0;
    EXPECT_STR_EQ(fx_val_string_data(s, &len), "shared");
    fx_value_release(s);
}

FX_TEST(deep_nesting_releases_without_recursion)
{
    FxValue v = fx_val_list(NULL, 0);
    for (int i = 0; i < 200000; i++) {
        FxValue outer = fx_val_list_take(&v, 1); // takes v's reference
        v = outer;
    }
    fx_value_release(v);
}

/* ---- strings: positions count code points ---- */

FX_TEST(string_length_counts_code_points)
{
    const struct {
        const char *s;
        size_t points;
    } cases[] = {
        {"", 0}, {"abc", 3}, {"h\xc3\xa9llo", 5}, {"\xe2\x89\xa4", 1}, {"\xf0\x9f\x98\x80!", 2},
        /* not UTF-8: byte 0 starts a code point whatever it is */
        {"\x80", 1}, {"\x80\x80" "a", 2}, {"a\xff", 2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        FxValue v = str(cases[i].s);
        EXPECT_EQ(fx_val_string_length(v), cases[i].points);
        EXPECT_EQ(fx_val_string_offset(v, 0), 0);
        EXPECT_EQ(fx_val_string_offset(v, cases[i].points), strlen(cases[i].s));
        fx_value_release(v);
    }
    FxValue e = str("h\xc3\xa9llo");
    EXPECT_EQ(fx_val_string_offset(e, 1), 1);
    EXPECT_EQ(fx_val_string_offset(e, 2), 3);
    EXPECT_EQ(fx_val_string_offset(e, 4), 5);
    fx_value_release(e);
}

/* Every position of long strings of 1-, 2-, 3- and 4-byte code points,
 * mixed, against a scan: the marks every 64 code points must agree. */
FX_TEST(string_offsets_of_long_strings)
{
    static const char *const points[] = {"a", "\xc3\xa9", "\xe2\x89\xa4", "\xf0\x9f\x98\x80"};
    for (size_t n = 60; n <= 1000; n += 47) {
        FxBuf b = {0};
        size_t *at = malloc((n + 1) * sizeof(size_t));
        for (size_t i = 0; i < n; i++) {
            at[i] = b.len;
            fx_buf_puts(&b, points[(i * 7 + n) % 4]);
        }
        at[n] = b.len;
        FxValue v = fx_val_string(fx_buf_str(&b), b.len);
        EXPECT_EQ(fx_val_string_length(v), n);
        for (size_t i = 0; i <= n; i++)
            EXPECT_EQ(fx_val_string_offset(v, i), at[i]);
        /* concatenation keeps counts and marks right on both sides */
        FxValue w;
        FxError err;
        EXPECT(fx_val_concat(v, v, &w, &err));
        EXPECT_EQ(fx_val_string_length(w), 2 * n);
        for (size_t i = 0; i <= n; i++)
            EXPECT_EQ(fx_val_string_offset(w, n + i), b.len + at[i]);
        fx_value_release(w);
        fx_value_release(v);
        fx_buf_free(&b);
        free(at);
    }
}

FX_TEST(concatenation_glues_stray_continuation_bytes)
{
    FxValue a = str("a"), b = str("\x80" "b"), ab;
    FxError err;
    EXPECT_EQ(fx_val_string_length(b), 2);
    EXPECT(fx_val_concat(a, b, &ab, &err));
    EXPECT_EQ(fx_val_string_length(ab), 2); /* "a\x80" and "b" */
    EXPECT_EQ(fx_val_string_offset(ab, 1), 2);
    fx_value_release(a);
    fx_value_release(b);
    fx_value_release(ab);
}

/* A slice and a reversal keep a list's kind (unboxed ints and floats stay
 * unboxed, boxed ones hold references) and equal the element-wise answer. */
FX_TEST(slices_and_reversals_keep_the_kind)
{
    int64_t raw[] = {5, -3, 0, 99, INT64_MAX, 7};
    double fl[] = {0.5, -0.0, 1e300, -2.25, 3.0, 4.5};
    double *fcopy = malloc(sizeof(fl));
    memcpy(fcopy, fl, sizeof(fl));
    FxValue strs[6];
    for (int i = 0; i < 6; i++) {
        char t[16];
        snprintf(t, sizeof(t), "s%d", i);
        strs[i] = fx_val_string(t, strlen(t));
    }
    FxValue lists[3] = {fx_val_list_of_i64(raw, 6), fx_val_list_adopt_floats(fcopy, 6),
                        fx_val_list(strs, 6)};
    for (int k = 0; k < 3; k++) {
        FxValue xs = lists[k];
        for (size_t from = 0; from <= 6; from++)
            for (size_t to = from; to <= 6; to++) {
                FxValue part = fx_val_list_slice(xs, from, to);
                EXPECT_EQ(fx_val_list_len(part), to - from);
                EXPECT((fx_val_list_ints(part) != NULL) == (k == 0));
                EXPECT((fx_val_list_floats(part) != NULL) == (k == 1));
                for (size_t i = from; i < to; i++)
                    EXPECT(fx_val_equal(fx_val_list_at(part, i - from), fx_val_list_at(xs, i)));
                fx_value_release(part);
            }
        FxValue back = fx_val_list_reversed(xs);
        EXPECT((fx_val_list_ints(back) != NULL) == (k == 0));
        for (size_t i = 0; i < 6; i++)
            EXPECT(fx_val_equal(fx_val_list_at(back, i), fx_val_list_at(xs, 5 - i)));
        FxValue twice = fx_val_list_reversed(back);
        EXPECT(fx_val_equal(twice, xs));
        EXPECT_EQ(fx_val_hash(twice), fx_val_hash(xs));
        fx_value_release(back);
        fx_value_release(twice);
    }
    /* a copy of doubles is a list of Floats, unboxed */
    FxValue copied = fx_val_list_of_f64(fl, 6);
    EXPECT(fx_val_list_floats(copied) != NULL && fx_val_equal(copied, lists[1]));
    EXPECT_EQ(fx_val_hash(copied), fx_val_hash(lists[1]));
    fx_value_release(copied);
    /* the slice holds its own references: the strings outlive the list */
    FxValue part = fx_val_list_slice(lists[2], 1, 3);
    fx_value_release(lists[2]);
    size_t len;
    EXPECT_STR_EQ(fx_val_string_data(fx_val_list_at(part, 1), &len), "s2");
    fx_value_release(part);
    fx_value_release(lists[0]);
    fx_value_release(lists[1]);
    for (int i = 0; i < 6; i++)
        fx_value_release(strs[i]);
}

int main(void)
{
    return fx_test_run();
}
