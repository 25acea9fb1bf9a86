/*
 * lex_test.c: the tokenizer: layout tokens, Unicode aliases, numbers,
 * strings, and the errors it must report with positions.
 */
#include <stdlib.h>

#include "base/buf.h"
#include "fx_test.h"
#include "lang/lex.h"

typedef struct {
    FxDiag diag;
    FxArena arena;
    FxTokens toks;
} Lexed;

static Lexed *lex(const char *text)
{
    Lexed *l = calloc(1, sizeof(*l));
    FxSource *src = fx_diag_add_source(&l->diag, "t.flux", text, strlen(text));
    fx_lex(&l->diag, &l->arena, src, &l->toks);
    return l;
}

static void done(Lexed *l)
{
    free(l->toks.data);
    fx_arena_free(&l->arena);
    fx_diag_free(&l->diag);
    free(l);
}

static int kinds_equal(const Lexed *l, const FxTokKind *want, size_t n)
{
    if (l->toks.len != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (l->toks.data[i].kind != want[i])
            return 0;
    return 1;
}

FX_TEST(layout_tokens)
{
    Lexed *l = lex("a:\n    b\n\n    # comment\n    c\nd\n");
    FxTokKind want[] = {FX_TOK_IDENT,   FX_TOK_COLON,   FX_TOK_NEWLINE, FX_TOK_INDENT,
                        FX_TOK_IDENT,   FX_TOK_NEWLINE, FX_TOK_IDENT,   FX_TOK_NEWLINE,
                        FX_TOK_DEDENT,  FX_TOK_IDENT,   FX_TOK_NEWLINE, FX_TOK_EOF};
    EXPECT(kinds_equal(l, want, FX_ARRAY_LEN(want)));
    EXPECT_EQ(fx_diag_errors(&l->diag), 0);
    done(l);
}

FX_TEST(brackets_join_lines)
{
    Lexed *l = lex("f(a,\n      b)\n");
    FxTokKind want[] = {FX_TOK_IDENT, FX_TOK_LPAREN, FX_TOK_IDENT,   FX_TOK_COMMA,
                        FX_TOK_IDENT, FX_TOK_RPAREN, FX_TOK_NEWLINE, FX_TOK_EOF};
    EXPECT(kinds_equal(l, want, FX_ARRAY_LEN(want)));
    done(l);
}

FX_TEST(unicode_aliases)
{
    Lexed *l = lex("≤ ≥ ≠ ∀ ∃ ∈ × → ∧ ∨ ¬");
    FxTokKind want[] = {FX_TOK_LE,  FX_TOK_GE,    FX_TOK_NE, FX_TOK_FORALL,
                        FX_TOK_EXISTS, FX_TOK_IN, FX_TOK_STAR, FX_TOK_ARROW,
                        FX_TOK_AND, FX_TOK_OR,    FX_TOK_NOT, FX_TOK_NEWLINE, FX_TOK_EOF};
    EXPECT(kinds_equal(l, want, FX_ARRAY_LEN(want)));
    /* the span of ≤ covers its three bytes */
    EXPECT_EQ(l->toks.data[0].span.len, 3);
    done(l);
}

FX_TEST(numbers_and_ranges)
{
    Lexed *l = lex("0..n 1.5 1e-9 354224848179261915075 100ms 2..=3");
    FxTokKind want[] = {FX_TOK_INT,  FX_TOK_DOTDOT, FX_TOK_IDENT, FX_TOK_FLOAT, FX_TOK_FLOAT,
                        FX_TOK_INT,  FX_TOK_INT,    FX_TOK_IDENT, FX_TOK_INT,   FX_TOK_DOTDOTEQ,
                        FX_TOK_INT,  FX_TOK_NEWLINE, FX_TOK_EOF};
    EXPECT(kinds_equal(l, want, FX_ARRAY_LEN(want)));
    EXPECT_STR_EQ(l->toks.data[5].text, "354224848179261915075");
    EXPECT_STR_EQ(l->toks.data[4].text, "1e-9");
    EXPECT(!l->toks.data[7].space_before); /* `ms` touches 100 */
    done(l);
}

FX_TEST(strings_unescape)
{
    Lexed *l = lex("\"a\\\"b\\\\c\\n\"");
    EXPECT_EQ(l->toks.data[0].kind, FX_TOK_STRING);
    EXPECT_STR_EQ(l->toks.data[0].text, "a\"b\\c\n");
    done(l);
}

FX_TEST(errors_become_tokens_or_diagnostics)
{
    Lexed *l = lex("x = \"open\ny @ z\n");
    EXPECT_EQ(l->toks.data[2].kind, FX_TOK_ERROR);
    EXPECT_STR_EQ(l->toks.data[2].text, "unterminated string");
    EXPECT_EQ(l->toks.data[5].kind, FX_TOK_ERROR);
    EXPECT_STR_EQ(l->toks.data[5].text, "unexpected character `@`");
    done(l);

    l = lex("a:\n\tb\n");
    EXPECT_EQ(fx_diag_errors(&l->diag), 1);
    size_t line, col;
    fx_diag_position(l->diag.items.data[0]->span.src, l->diag.items.data[0]->span.offset, &line,
                     &col);
    EXPECT_EQ(line, 2);
    EXPECT_EQ(col, 1);
    done(l);

    l = lex("a:\n        b\n    c\n");
    EXPECT_EQ(fx_diag_errors(&l->diag), 1); /* dedent to no enclosing level */
    done(l);
}

FX_TEST(columns_count_code_points)
{
    FxDiag d = {0};
    const char *text = "a ≤ b x";
    FxSource *src = fx_diag_add_source(&d, "t", text, strlen(text));
    size_t line, col;
    fx_diag_position(src, (uint32_t)(strchr(text, 'x') - text), &line, &col);
    EXPECT_EQ(line, 1);
    EXPECT_EQ(col, 7);
    fx_diag_free(&d);
}

/* Positions on long lines come from the column marks: they
 * must agree with counting code points from the line's start, across
 * marks, newlines and multi-byte characters that straddle a mark. */
FX_TEST(columns_on_long_lines_agree_with_counting)
{
    FxBuf b = {0};
    for (int i = 0; i < 3000; i++)
        fx_buf_puts(&b, i % 7 == 0 ? "\xe2\x89\xa4" : i % 401 == 0 ? "\n" : "x");
    FxDiag d = {0};
    FxSource *src = fx_diag_add_source(&d, "t", b.data, b.len);
    size_t line = 1, col = 1, bad = 0;
    for (size_t off = 0; off <= b.len; off++) {
        size_t l, c;
        fx_diag_position(src, (uint32_t)off, &l, &c);
        bad += l != line || c != col;
        if (off < b.len && b.data[off] == '\n')
            line++, col = 1;
        else if (off < b.len && ((unsigned char)b.data[off] & 0xC0) != 0x80)
            col++;
    }
    EXPECT_EQ(bad, 0);
    fx_diag_free(&d);
    fx_buf_free(&b);
}

int main(void)
{
    return fx_test_run();
}
