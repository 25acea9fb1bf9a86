/*
 * utf8_test.c: the well-formedness rules of base/utf8.h, byte by byte, and
 * the JSON printer's guarantee that what it writes is UTF-8 whatever a
 * string holds.
 */
#include "base/utf8.h"
#include "exec/value.h"
#include "fx_test.h"

/* s (n bytes) is not UTF-8 first at byte `at`, for the reason `why`. */
static void expect_bad(const char *s, size_t n, size_t at, const char *why)
{
    const char *got = NULL;
    EXPECT_EQ(fx_utf8_check(s, n, &got), at);
    EXPECT_STR_EQ(got ? got : "(none)", why);
}

FX_TEST(well_formed)
{
    // one to four bytes, at the edges of each length's range
    static const char ok[] = "a\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80"
                             "\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf";
    EXPECT_EQ(fx_utf8_check(ok, sizeof(ok) - 1, NULL), sizeof(ok) - 1);
    EXPECT_EQ(fx_utf8_next("\xe2\x82\xac", 3, NULL), 3u);
    EXPECT_EQ(fx_utf8_next("\xf0\x9f\x98\x80", 4, NULL), 4u);
    EXPECT_EQ(fx_utf8_check("", 0, NULL), 0u);
}

FX_TEST(ill_formed)
{
    expect_bad("ab\x80", 3, 2, "a continuation byte with no lead byte");
    expect_bad("\xc0\xaf", 2, 0, "an overlong encoding");
    expect_bad("\xc1\xbf", 2, 0, "an overlong encoding");
    expect_bad("x\xe0\x9f\xbf", 4, 1, "an overlong encoding");
    expect_bad("\xf0\x8f\xbf\xbf", 4, 0, "an overlong encoding");
    expect_bad("\xed\xa0\x80", 3, 0, "an encoded surrogate (U+D800..U+DFFF)");
    expect_bad("\xed\xbf\xbf", 3, 0, "an encoded surrogate (U+D800..U+DFFF)");
    expect_bad("\xf4\x90\x80\x80", 4, 0, "past U+10FFFF, the last code point");
    expect_bad("\xf5\x80\x80\x80", 4, 0, "past U+10FFFF, the last code point");
    expect_bad("\xff", 1, 0, "a byte that UTF-8 never uses");
    expect_bad("\xe2\x82,", 3, 0, "a sequence cut short");
    expect_bad("\xc3" "a", 2, 0, "a sequence cut short");
    expect_bad("ok\xf0\x9f\x98", 5, 2, "a sequence cut short by the end of the text");
    expect_bad("\xe2", 1, 0, "a sequence cut short by the end of the text");
}

/* The JSON of a string of n bytes: valid UTF-8 passes as it is, and a byte
 * that is not becomes \ufffd. */
static void expect_json(const char *s, size_t n, const char *want)
{
    FxBuf b = {0};
    fx_val_print_json_text(s, n, &b);
    EXPECT_STR_EQ(fx_buf_str(&b), want);
    EXPECT_EQ(fx_utf8_check(fx_buf_str(&b), b.len, NULL), b.len);
    fx_buf_free(&b);
}

FX_TEST(json_is_utf8)
{
    expect_json("na\xc3\xafve \xf0\x9f\x98\x80", 11, "\"na\xc3\xafve \xf0\x9f\x98\x80\"");
    expect_json("a\xff" "b", 3, "\"a\\ufffdb\"");
    expect_json("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");
    expect_json("\xe2\x82", 2, "\"\\ufffd\\ufffd\"");
}

int main(void)
{
    return fx_test_run();
}
