/*
 * text_test.c: the string library (exec/text.h): code-point indexing and
 * slicing, conversions between numbers and text (rounding included), and
 * splitting, joining and searching, with the exact error messages. Every
 * test releases what it made (LeakSanitizer checks in the asan build).
 */
#include <math.h>
#include <stdlib.h>

#include "exec/text.h"
#include "fx_test.h"

static FxValue str(const char *s)
{
    return fx_val_string(s, strlen(s));
}

/* The printed form of v, which is released; caller frees. */
static char *shown(FxValue v)
{
    FxBuf b = {0};
    fx_val_print(v, &b);
    fx_value_release(v);
    return fx_buf_take(&b);
}

#define EXPECT_SHOWS(v, want)                                                                      \
    do {                                                                                           \
        char *s_ = shown(v);                                                                       \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
    } while (0)

/* An owned text against the expected one. */
#define EXPECT_TEXT(text, want)                                                                    \
    do {                                                                                           \
        char *t_ = (text);                                                                         \
        EXPECT_STR_EQ(t_, want);                                                                   \
        free(t_);                                                                                  \
    } while (0)

typedef bool (*Unary)(FxValue, FxValue *, FxError *);

/* f(text) printed, or "error: MESSAGE". Caller frees. */
static char *apply(Unary f, FxValue x)
{
    FxValue out;
    FxError err = {0};
    bool ok = f(x, &out, &err);
    fx_value_release(x);
    return ok ? shown(out) : fx_xasprintf("error: %s", err.message);
}

#define EXPECT_APPLY(f, x, want)                                                                   \
    do {                                                                                           \
        char *s_ = apply(f, x);                                                                    \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
    } while (0)

/* ---- indexing and slicing ---- */

static char *at(const char *s, int64_t i)
{
    FxValue v = str(s), out;
    FxError err = {0};
    bool ok = fx_text_at(v, fx_val_int(i), &out, &err);
    fx_value_release(v);
    return ok ? shown(out) : fx_xasprintf("error: %s", err.message);
}

FX_TEST(index_by_code_point)
{
    EXPECT_TEXT(at("hello", 1), "\"e\"");
    EXPECT_TEXT(at("h\xc3\xa9llo", 1), "\"\xc3\xa9\"");
    EXPECT_TEXT(at("h\xc3\xa9llo", 2), "\"l\"");
    EXPECT_TEXT(at("\xf0\x9f\x98\x80", 0), "\"\xf0\x9f\x98\x80\"");
    EXPECT_TEXT(at("abc", 3), "error: index 3 is out of range for a string of 3");
    EXPECT_TEXT(at("abc", -1), "error: index -1 is out of range for a string of 3");
    EXPECT_TEXT(at("", 0), "error: index 0 is out of range for a string of 0");
    FxValue s = str("abc"), big = fx_val_int_text("100000000000000000000"), out;
    FxError err;
    EXPECT(!fx_text_at(s, big, &out, &err));
    EXPECT_STR_EQ(err.message, "index 100000000000000000000 is out of range for a string of 3");
    fx_value_release(s);
    fx_value_release(big);
}

static char *slice(FxValue x, int64_t a, int64_t b, bool closed)
{
    FxValue out;
    FxError err = {0};
    bool ok = fx_text_slice(x, fx_val_int(a), fx_val_int(b), closed, &out, &err);
    fx_value_release(x);
    return ok ? shown(out) : fx_xasprintf("error: %s", err.message);
}

#define EXPECT_SLICE(x, a, b, closed, want)                                                        \
    do {                                                                                           \
        char *s_ = slice(x, a, b, closed);                                                         \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
    } while (0)

static FxValue ints(int n)
{
    FxValue items[16];
    for (int i = 0; i < n; i++)
        items[i] = fx_val_int(i * 10);
    return fx_val_list(items, (size_t)n);
}

FX_TEST(slices_of_strings_and_lists)
{
    EXPECT_SLICE(str("hello"), 1, 3, false, "\"el\"");
    EXPECT_SLICE(str("hello"), 1, 3, true, "\"ell\"");
    EXPECT_SLICE(str("hello"), 0, 5, false, "\"hello\"");
    EXPECT_SLICE(str("hello"), 5, 5, false, "\"\"");
    EXPECT_SLICE(str("hello"), 2, 1, true, "\"\""); /* 2..=1 is 2..2 */
    EXPECT_SLICE(str("h\xc3\xa9llo"), 1, 3, false, "\"\xc3\xa9l\"");
    EXPECT_SLICE(ints(4), 1, 3, false, "[10, 20]");
    EXPECT_SLICE(ints(4), 1, 3, true, "[10, 20, 30]");
    EXPECT_SLICE(ints(4), 0, 0, false, "[]");
    EXPECT_SLICE(str("hello"), 2, 6, false, "error: slice 2..6 is out of range for a string of 5");
    EXPECT_SLICE(str("hello"), 2, 5, true, "error: slice 2..=5 is out of range for a string of 5");
    EXPECT_SLICE(str("hello"), -1, 2, false,
                 "error: slice -1..2 is out of range for a string of 5");
    EXPECT_SLICE(str("hello"), 3, 1, false,
                 "error: slice 3..1 of a string of 5 ends before it starts");
    EXPECT_SLICE(ints(4), 3, 1, true, "error: slice 3..=1 of a list of 4 ends before it starts");
    EXPECT_SLICE(ints(4), 0, 9, false, "error: slice 0..9 is out of range for a list of 4");
}

/* ---- conversions ---- */

FX_TEST(str_is_the_printed_text)
{
    EXPECT_SHOWS(fx_text_str(fx_val_int(-42)), "\"-42\"");
    EXPECT_SHOWS(fx_text_str(fx_val_float(6.0)), "\"6.0\"");
    EXPECT_SHOWS(fx_text_str(fx_val_float(0.1 + 0.2)), "\"0.30000000000000004\"");
    EXPECT_SHOWS(fx_text_str(fx_val_bool(true)), "\"true\"");
    FxValue s = str("say \"hi\"");
    FxValue t = fx_text_str(s);
    EXPECT(t.u.obj == s.u.obj); /* a string is itself, not quoted */
    fx_value_release(t);
    FxValue items[2] = {s, fx_val_int(1)};
    FxValue xs = fx_val_list(items, 2);
    EXPECT_SHOWS(fx_text_str(xs), "\"[\\\"say \\\\\\\"hi\\\\\\\"\\\", 1]\"");
    fx_value_release(xs);
    fx_value_release(s);
}

FX_TEST(int_reads_decimal_integers)
{
    EXPECT_APPLY(fx_text_int, str("42"), "42");
    EXPECT_APPLY(fx_text_int, str(" -42\n"), "-42");
    EXPECT_APPLY(fx_text_int, str("+007"), "7");
    EXPECT_APPLY(fx_text_int, str("-0"), "0");
    EXPECT_APPLY(fx_text_int, str("123456789012345678901234567890"),
                 "123456789012345678901234567890");
    EXPECT_APPLY(fx_text_int, str("-9223372036854775808"), "-9223372036854775808");
    EXPECT_APPLY(fx_text_int, str("9223372036854775808"), "9223372036854775808");
    EXPECT_APPLY(fx_text_int, str(""), "error: `int` needs a decimal integer, not \"\"");
    EXPECT_APPLY(fx_text_int, str("  "), "error: `int` needs a decimal integer, not \"  \"");
    EXPECT_APPLY(fx_text_int, str("-"), "error: `int` needs a decimal integer, not \"-\"");
    EXPECT_APPLY(fx_text_int, str("1.5"), "error: `int` needs a decimal integer, not \"1.5\"");
    EXPECT_APPLY(fx_text_int, str("1_000"), "error: `int` needs a decimal integer, not \"1_000\"");
    EXPECT_APPLY(fx_text_int, str("0x10"), "error: `int` needs a decimal integer, not \"0x10\"");
    EXPECT_APPLY(fx_text_int, str("1 2"), "error: `int` needs a decimal integer, not \"1 2\"");
    EXPECT_APPLY(fx_text_int, str("\xef\xbc\x91"), /* a fullwidth digit one */
                 "error: `int` needs a decimal integer, not \"\xef\xbc\x91\"");
    /* a long text is cut in the message */
    EXPECT_APPLY(fx_text_int, str("0123456789012345678901234567890123456789x123"),
                 "error: `int` needs a decimal integer, not "
                 "\"0123456789012345678901234567890123456789...\"");
}

FX_TEST(int_truncates_floats)
{
    EXPECT_APPLY(fx_text_int, fx_val_float(3.99), "3");
    EXPECT_APPLY(fx_text_int, fx_val_float(-3.99), "-3");
    EXPECT_APPLY(fx_text_int, fx_val_float(-0.5), "0");
    EXPECT_APPLY(fx_text_int, fx_val_float(1e20), "100000000000000000000");
    EXPECT_APPLY(fx_text_int, fx_val_float(-0x1p63), "-9223372036854775808");
    EXPECT_APPLY(fx_text_int, fx_val_float(0x1p63), "9223372036854775808");
    EXPECT_APPLY(fx_text_int, fx_val_float(NAN), "error: `int` needs a finite Float, not nan");
    EXPECT_APPLY(fx_text_int, fx_val_float(-INFINITY),
                 "error: `int` needs a finite Float, not -inf");
    EXPECT_APPLY(fx_text_int, fx_val_int(5), "5");
}

FX_TEST(float_reads_decimal_numbers)
{
    EXPECT_APPLY(fx_text_float, str("1.5"), "1.5");
    EXPECT_APPLY(fx_text_float, str(" -2e-3 "), "-0.002");
    EXPECT_APPLY(fx_text_float, str(".5"), "0.5");
    EXPECT_APPLY(fx_text_float, str("5."), "5.0");
    EXPECT_APPLY(fx_text_float, str("7"), "7.0");
    EXPECT_APPLY(fx_text_float, str("1E3"), "1000.0");
    EXPECT_APPLY(fx_text_float, str("0.1"), "0.1");
    EXPECT_APPLY(fx_text_float, str("1e400"), "inf");
    EXPECT_APPLY(fx_text_float, str("inf"), "inf");
    EXPECT_APPLY(fx_text_float, str("-Infinity"), "-inf");
    EXPECT_APPLY(fx_text_float, str("NaN"), "nan");
    EXPECT_APPLY(fx_text_float, str(""), "error: `float` needs a decimal number, not \"\"");
    EXPECT_APPLY(fx_text_float, str("."), "error: `float` needs a decimal number, not \".\"");
    EXPECT_APPLY(fx_text_float, str("e5"), "error: `float` needs a decimal number, not \"e5\"");
    EXPECT_APPLY(fx_text_float, str("1e"), "error: `float` needs a decimal number, not \"1e\"");
    EXPECT_APPLY(fx_text_float, str("0x1p3"),
                 "error: `float` needs a decimal number, not \"0x1p3\"");
    EXPECT_APPLY(fx_text_float, str("1,5"), "error: `float` needs a decimal number, not \"1,5\"");
    EXPECT_APPLY(fx_text_float, str("infinit"),
                 "error: `float` needs a decimal number, not \"infinit\"");
}

/* An integer to the nearest double, ties to even, beyond int64 too. */
FX_TEST(float_rounds_integers_to_nearest_even)
{
    EXPECT_APPLY(fx_text_float, fx_val_int(3), "3.0");
    EXPECT_APPLY(fx_text_float, fx_val_int((1LL << 53) + 1), "9007199254740992.0");
    EXPECT_APPLY(fx_text_float, fx_val_int((1LL << 53) + 3), "9007199254740996.0");
    EXPECT_APPLY(fx_text_float, fx_val_int(INT64_MAX), "9.223372036854776e+18");
    /* 2^65 + 2^12 is halfway between 2^65 and the next double, 2^65 + 2^13 */
    EXPECT_APPLY(fx_text_float, fx_val_int_text("36893488147419107328"), "3.6893488147419103e+19");
    /* 2^65 + 3 * 2^12 is halfway between 2^65 + 2^13 and 2^65 + 2^14: to the latter */
    FxValue x = fx_val_int_text("36893488147419115520"), y;
    FxError err;
    EXPECT(fx_text_float(x, &y, &err) && y.u.f == 0x1p65 + 0x1p14);
    fx_value_release(x);
    /* just above the halfway point goes up */
    x = fx_val_int_text("36893488147419107329");
    EXPECT(fx_text_float(x, &y, &err) && y.u.f == 0x1p65 + 0x1p13);
    fx_value_release(x);
    x = fx_val_int_text("-36893488147419107329");
    EXPECT(fx_text_float(x, &y, &err) && y.u.f == -(0x1p65 + 0x1p13));
    fx_value_release(x);
    x = fx_val_int_text("1" "0000000000000000000000000000000000000000000000000000000000000000000"
                        "00000000000000000000000000000000000000000000000000000000000000000000"
                        "00000000000000000000000000000000000000000000000000000000000000000000"
                        "00000000000000000000000000000000000000000000000000000000000000000000"
                        "00000000000000000000000000000000000000000000000000000000000000000000");
    EXPECT(fx_text_float(x, &y, &err) && isinf(y.u.f)); /* 10^339 */
    fx_value_release(x);
}

/* ---- splitting, joining, searching ---- */

static char *split(const char *s, const char *sep)
{
    FxValue v = str(s), p = sep ? str(sep) : fx_val_bool(false), out;
    FxError err = {0};
    bool ok = fx_text_split(v, sep ? &p : NULL, &out, &err);
    fx_value_release(v);
    fx_value_release(p);
    return ok ? shown(out) : fx_xasprintf("error: %s", err.message);
}

#define EXPECT_SPLIT(s, sep, want)                                                                 \
    do {                                                                                           \
        char *r_ = split(s, sep);                                                                  \
        EXPECT_STR_EQ(r_, want);                                                                   \
        free(r_);                                                                                  \
    } while (0)

FX_TEST(split_on_whitespace_and_separators)
{
    EXPECT_SPLIT("  the quick\tbrown\n\nfox ", NULL, "[\"the\", \"quick\", \"brown\", \"fox\"]");
    EXPECT_SPLIT("", NULL, "[]");
    EXPECT_SPLIT(" \t\r\n\v\f", NULL, "[]");
    EXPECT_SPLIT("one", NULL, "[\"one\"]");
    EXPECT_SPLIT("1,2,,3", ",", "[\"1\", \"2\", \"\", \"3\"]");
    EXPECT_SPLIT(",a,", ",", "[\"\", \"a\", \"\"]");
    EXPECT_SPLIT("", ",", "[\"\"]");
    EXPECT_SPLIT("a--b--c", "--", "[\"a\", \"b\", \"c\"]");
    EXPECT_SPLIT("aaa", "aa", "[\"\", \"a\"]");
    EXPECT_SPLIT("x\xe2\x89\xa4y\xe2\x89\xa4z", "\xe2\x89\xa4", "[\"x\", \"y\", \"z\"]");
    EXPECT_SPLIT("abc", "", "error: `split` needs a separator that is not empty (use `chars` for "
                            "the code points)");
}

FX_TEST(join_chars_reverse_case_trim)
{
    FxValue items[3] = {str("a"), str("b\xc3\xa9"), str("")}, out;
    FxValue xs = fx_val_list(items, 3), sep = str(", "), none = fx_val_list(NULL, 0);
    FxError err;
    EXPECT(fx_text_join(xs, sep, &out, &err));
    EXPECT_SHOWS(out, "\"a, b\xc3\xa9, \"");
    EXPECT(fx_text_join(none, sep, &out, &err));
    EXPECT_SHOWS(out, "\"\"");
    for (int i = 0; i < 3; i++)
        fx_value_release(items[i]);
    fx_value_release(xs);
    fx_value_release(sep);
    fx_value_release(none);

    FxValue s = str("h\xc3\xa9\xf0\x9f\x98\x80!");
    EXPECT_SHOWS(fx_text_chars(s), "[\"h\", \"\xc3\xa9\", \"\xf0\x9f\x98\x80\", \"!\"]");
    EXPECT_SHOWS(fx_text_reverse(s), "\"!\xf0\x9f\x98\x80\xc3\xa9h\"");
    fx_value_release(s);
    FxValue empty = str("");
    EXPECT_SHOWS(fx_text_chars(empty), "[]");
    fx_value_release(empty);
    FxValue three = ints(3);
    EXPECT_SHOWS(fx_text_reverse(three), "[20, 10, 0]");
    fx_value_release(three);

    FxValue mixed = str("Stra\xc3\x9f" "e 42");
    EXPECT_SHOWS(fx_text_case(mixed, true), "\"STRA\xc3\x9f" "E 42\"");
    EXPECT_SHOWS(fx_text_case(mixed, false), "\"stra\xc3\x9f" "e 42\"");
    fx_value_release(mixed);
    FxValue padded = str(" \t x y \n");
    EXPECT_SHOWS(fx_text_trim(padded), "\"x y\"");
    fx_value_release(padded);
    FxValue blank = str("   ");
    EXPECT_SHOWS(fx_text_trim(blank), "\"\"");
    fx_value_release(blank);
}

FX_TEST(find_and_friends_count_code_points)
{
    FxValue s = str("h\xc3\xa9llo w\xc3\xb6rld"), l = str("l"), w = str("w\xc3\xb6"), no = str("z");
    FxValue e = str(""), he = str("h\xc3\xa9"), ld = str("ld");
    EXPECT_EQ(fx_text_find(s, l), 2);
    EXPECT_EQ(fx_text_find(s, w), 6);
    EXPECT_EQ(fx_text_find(s, no), -1);
    EXPECT_EQ(fx_text_find(s, e), 0);
    EXPECT(fx_text_contains(s, w));
    EXPECT(fx_text_contains(s, e));
    EXPECT(!fx_text_contains(s, no));
    EXPECT(fx_text_starts_with(s, he));
    EXPECT(!fx_text_starts_with(s, ld));
    EXPECT(fx_text_ends_with(s, ld));
    EXPECT(fx_text_ends_with(s, e));
    EXPECT(!fx_text_ends_with(l, ld));
    FxValue vals[] = {s, l, w, no, e, he, ld};
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        fx_value_release(vals[i]);
}

static char *replace(const char *s, const char *old, const char *with)
{
    FxValue a = str(s), b = str(old), c = str(with), out;
    FxError err = {0};
    bool ok = fx_text_replace(a, b, c, &out, &err);
    fx_value_release(a);
    fx_value_release(b);
    fx_value_release(c);
    return ok ? shown(out) : fx_xasprintf("error: %s", err.message);
}

FX_TEST(replace_every_occurrence)
{
    EXPECT_TEXT(replace("a-b-c", "-", " + "), "\"a + b + c\"");
    EXPECT_TEXT(replace("aaaa", "aa", "b"), "\"bb\"");
    EXPECT_TEXT(replace("aaa", "aa", "b"), "\"ba\"");
    EXPECT_TEXT(replace("abc", "x", "y"), "\"abc\"");
    EXPECT_TEXT(replace("caf\xc3\xa9", "\xc3\xa9", "e"), "\"cafe\"");
    EXPECT_TEXT(replace("abc", "abc", ""), "\"\"");
    EXPECT_TEXT(replace("abc", "", "x"),
                  "error: `replace` needs a text to replace that is not empty");
}

/* The search against the obvious one on every short text and pattern over
 * two letters, where Knuth-Morris-Pratt's fallbacks all get exercised. */
FX_TEST(search_agrees_with_brute_force)
{
    char text[16], pat[6];
    unsigned seed = 12345;
    for (int round = 0; round < 20000; round++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 8) % 15, m = 1 + (seed >> 16) % 5;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            text[i] = "ab"[(seed >> 16) & 1];
        }
        for (size_t i = 0; i < m; i++) {
            seed = seed * 1103515245u + 12345u;
            pat[i] = "ab"[(seed >> 16) & 1];
        }
        int64_t want = -1;
        for (size_t i = 0; i + m <= n && want < 0; i++)
            if (memcmp(text + i, pat, m) == 0)
                want = (int64_t)i;
        FxValue t = fx_val_string(text, n), p = fx_val_string(pat, m);
        int64_t got = fx_text_find(t, p);
        if (got != want) {
            fprintf(stderr, "find(\"%.*s\", \"%.*s\") = %lld, not %lld\n", (int)n, text, (int)m,
                    pat, (long long)got, (long long)want);
            EXPECT(false);
        }
        fx_value_release(t);
        fx_value_release(p);
    }
}

int main(void)
{
    return fx_test_run();
}
