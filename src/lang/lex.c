/*
 * lex.c: the tokenizer.
 *
 * One pass over the bytes. At the start of each physical line outside
 * brackets, the indentation is measured and compared with a stack of open
 * levels (invariant: the stack is strictly increasing and starts at 0). A
 * line that holds only a comment or spaces changes nothing. Everything else
 * is a longest-match scan. The lexer never stops early: whatever it cannot
 * read becomes an ERROR token, so the parser can still report the rest of
 * the file.
 */
#include "lex.h"

#include "base/utf8.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct Lexer {
    FxDiag *diag;
    FxArena *arena;
    const FxSource *src;
    const char *text;
    size_t pos, len;
    int depth; /* open brackets: layout is ignored while > 0 */
    size_t outer_open;  /* offset of the outermost open bracket */
    size_t line_indent; /* indentation of the current logical line */
    FX_VEC(size_t) indents;
    FX_VEC(FxToken) toks;
    bool space_before;
} Lexer;

static const struct {
    const char *word;
    FxTokKind kind;
} keywords[] = {
    {"intent", FX_TOK_INTENT},
    {"type", FX_TOK_TYPE},
    {"data", FX_TOK_DATA},
    {"import", FX_TOK_IMPORT},
    {"constraints", FX_TOK_CONSTRAINTS},
    {"properties", FX_TOK_PROPERTIES},
    {"performance_hints", FX_TOK_HINTS},
    {"result", FX_TOK_RESULT},
    {"if", FX_TOK_IF},
    {"then", FX_TOK_THEN},
    {"else", FX_TOK_ELSE},
    {"and", FX_TOK_AND},
    {"or", FX_TOK_OR},
    {"not", FX_TOK_NOT},
    {"for", FX_TOK_FOR},
    {"in", FX_TOK_IN},
    {"where", FX_TOK_WHERE},
    {"all", FX_TOK_ALL},
    {"forall", FX_TOK_FORALL},
    {"exists", FX_TOK_EXISTS},
    {"when", FX_TOK_WHEN},
    {"true", FX_TOK_TRUE},
    {"false", FX_TOK_FALSE},
    {"div", FX_TOK_DIV},
    {"mod", FX_TOK_MOD},
};

/* Unicode aliases, as UTF-8 bytes. */
static const struct {
    const char *bytes;
    FxTokKind kind;
} unicode_ops[] = {
    {"\xE2\x89\xA4", FX_TOK_LE},     /* ≤ */
    {"\xE2\x89\xA5", FX_TOK_GE},     /* ≥ */
    {"\xE2\x89\xA0", FX_TOK_NE},     /* ≠ */
    {"\xE2\x88\x80", FX_TOK_FORALL}, /* ∀ */
    {"\xE2\x88\x83", FX_TOK_EXISTS}, /* ∃ */
    {"\xE2\x88\x88", FX_TOK_IN},     /* ∈ */
    {"\xC3\x97", FX_TOK_STAR},       /* × */
    {"\xE2\x86\x92", FX_TOK_ARROW},  /* → */
    {"\xE2\x88\xA7", FX_TOK_AND},    /* ∧ */
    {"\xE2\x88\xA8", FX_TOK_OR},     /* ∨ */
    {"\xC2\xAC", FX_TOK_NOT},        /* ¬ */
};

/* ORDER FX_TOK */
static const char *const token_names[FX_TOK__COUNT] = {
    "end of file", "end of line", "indentation", "end of block", "invalid token",
    "identifier", "integer", "number", "string",
    "`intent`", "`type`", "`data`", "`import`", "`constraints`", "`properties`",
    "`performance_hints`", "`result`", "`if`", "`then`", "`else`", "`and`", "`or`", "`not`",
    "`for`", "`in`", "`where`", "`all`", "`forall`", "`exists`", "`when`", "`true`", "`false`",
    "`div`", "`mod`",
    "`(`", "`)`", "`[`", "`]`", "`{`", "`}`", "`,`", "`:`", "`.`", "`..`", "`..=`", "`+`", "`-`",
    "`*`", "`/`", "`%`", "`^`", "`++`", "`=`", "`!=`", "`<`", "`<=`", "`>`", "`>=`", "`->`",
};

const char *fx_tok_describe(FxTokKind kind)
{
    return kind < FX_TOK__COUNT ? token_names[kind] : "token";
}

static FxSpan span_at(const Lexer *lx, size_t start, size_t end)
{
    FxSpan s = {lx->src, (uint32_t)start, (uint32_t)(end - start)};
    return s;
}

static void emit(Lexer *lx, FxTokKind kind, size_t start, size_t end, const char *text)
{
    FxToken t = {kind, span_at(lx, start, end), text, lx->space_before};
    fx_vec_push(&lx->toks, t);
    lx->space_before = false;
}

static void emit_error(Lexer *lx, size_t start, size_t end, const char *msg)
{
    emit(lx, FX_TOK_ERROR, start, end, fx_arena_strdup(lx->arena, msg));
}

static FxTokKind last_kind(const Lexer *lx)
{
    return lx->toks.len ? lx->toks.data[lx->toks.len - 1].kind : FX_TOK_NEWLINE;
}

/* Called at the first byte of a physical line outside brackets. Measures the
 * indentation; returns false when the line is blank or a comment, in which
 * case pos is left at its newline (or the end). */
static bool begin_line(Lexer *lx)
{
    size_t col = 0, start = lx->pos;
    bool tabbed = false; /* one error per line, however many tabs */
    while (lx->pos < lx->len && (lx->text[lx->pos] == ' ' || lx->text[lx->pos] == '\t')) {
        if (lx->text[lx->pos] == '\t') {
            FxSpan sp = span_at(lx, lx->pos, lx->pos + 1);
            if (!tabbed)
                fx_diag_error(lx->diag, sp, "tab in indentation; Flux indents with spaces");
            tabbed = true;
            col = (col / 8 + 1) * 8; /* read on as Python would, to avoid a cascade */
        } else {
            col++;
        }
        lx->pos++;
    }
    const char *p = lx->text + lx->pos;
    size_t rest = lx->len - lx->pos;
    if (rest == 0 || *p == '\n' || *p == '\r' || *p == '#' ||
        (rest >= 2 && p[0] == '/' && p[1] == '/'))
        return false;
    lx->line_indent = col;
    size_t top = lx->indents.data[lx->indents.len - 1];
    if (col > top) {
        fx_vec_push(&lx->indents, col);
        emit(lx, FX_TOK_INDENT, start, lx->pos, NULL);
        return true;
    }
    while (col < lx->indents.data[lx->indents.len - 1]) {
        lx->indents.len--;
        emit(lx, FX_TOK_DEDENT, lx->pos, lx->pos, NULL);
    }
    if (col != lx->indents.data[lx->indents.len - 1]) {
        fx_diag_error(lx->diag, span_at(lx, lx->pos, lx->pos + 1),
                      "this line's indentation matches no enclosing block");
        fx_vec_push(&lx->indents, col); /* carry on as if it opened a block */
        emit(lx, FX_TOK_INDENT, start, lx->pos, NULL);
    }
    return true;
}

static void lex_number(Lexer *lx)
{
    size_t start = lx->pos;
    const char *t = lx->text;
    bool is_float = false;
    while (lx->pos < lx->len && isdigit((unsigned char)t[lx->pos]))
        lx->pos++;
    /* `1.5` is a float; `0..n` is an integer and a range */
    if (lx->pos + 1 < lx->len && t[lx->pos] == '.' && isdigit((unsigned char)t[lx->pos + 1])) {
        is_float = true;
        lx->pos++;
        while (lx->pos < lx->len && isdigit((unsigned char)t[lx->pos]))
            lx->pos++;
    }
    if (lx->pos < lx->len && (t[lx->pos] == 'e' || t[lx->pos] == 'E')) {
        size_t e = lx->pos + 1;
        if (e < lx->len && (t[e] == '+' || t[e] == '-'))
            e++;
        if (e < lx->len && isdigit((unsigned char)t[e])) {
            is_float = true;
            lx->pos = e;
            while (lx->pos < lx->len && isdigit((unsigned char)t[lx->pos]))
                lx->pos++;
        }
    }
    const char *text = fx_arena_strndup(lx->arena, t + start, lx->pos - start);
    emit(lx, is_float ? FX_TOK_FLOAT : FX_TOK_INT, start, lx->pos, text);
}

static void lex_word(Lexer *lx)
{
    size_t start = lx->pos;
    while (lx->pos < lx->len &&
           (isalnum((unsigned char)lx->text[lx->pos]) || lx->text[lx->pos] == '_'))
        lx->pos++;
    size_t n = lx->pos - start;
    for (size_t i = 0; i < FX_ARRAY_LEN(keywords); i++) {
        if (strlen(keywords[i].word) == n && memcmp(keywords[i].word, lx->text + start, n) == 0) {
            emit(lx, keywords[i].kind, start, lx->pos, keywords[i].word);
            return;
        }
    }
    emit(lx, FX_TOK_IDENT, start, lx->pos, fx_arena_strndup(lx->arena, lx->text + start, n));
}

/* "..." with \" \\ \n \t. A string ends on its line. */
static void lex_string(Lexer *lx)
{
    size_t start = lx->pos++;
    FX_VEC(char) out = {0};
    const char *bad_escape = NULL;
    size_t bad_at = 0;
    while (lx->pos < lx->len && lx->text[lx->pos] != '"' && lx->text[lx->pos] != '\n') {
        char c = lx->text[lx->pos];
        if ((unsigned char)c >= 0x80) { /* strings are UTF-8, as JSON output needs */
            size_t n = fx_utf8_next(lx->text + lx->pos, lx->len - lx->pos, NULL);
            if (n == 0 && !bad_escape) {
                bad_escape = "invalid UTF-8 in a string";
                bad_at = lx->pos;
            }
            for (size_t i = 0; i < (n ? n : 1); i++)
                fx_vec_push(&out, lx->text[lx->pos++]);
            continue;
        }
        lx->pos++;
        if (c == '\\' && lx->pos < lx->len && lx->text[lx->pos] != '\n') {
            char e = lx->text[lx->pos++];
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            if (e != 'n' && e != 't' && e != '"' && e != '\\' && !bad_escape) {
                bad_escape = "unknown escape sequence in string; use \\\", \\\\, \\n or \\t";
                bad_at = lx->pos - 2;
            }
        }
        fx_vec_push(&out, c);
    }
    if (lx->pos >= lx->len || lx->text[lx->pos] != '"') {
        fx_vec_free(&out);
        emit_error(lx, start, lx->pos, "unterminated string");
        return;
    }
    lx->pos++;
    if (bad_escape) {
        fx_vec_free(&out);
        emit_error(lx, bad_at, bad_at + 2, bad_escape);
        return;
    }
    const char *text = fx_arena_strndup(lx->arena, out.data ? out.data : "", out.len);
    fx_vec_free(&out);
    emit(lx, FX_TOK_STRING, start, lx->pos, text);
}

/* Longest match over the ASCII operators. Returns false if none matches. */
static bool lex_operator(Lexer *lx)
{
    static const struct {
        const char *s;
        FxTokKind kind;
    } ops[] = {
        {"..=", FX_TOK_DOTDOTEQ}, {"..", FX_TOK_DOTDOT}, {"->", FX_TOK_ARROW}, {"++", FX_TOK_PLUSPLUS},
        {"!=", FX_TOK_NE},        {"<=", FX_TOK_LE},     {">=", FX_TOK_GE},    {"==", FX_TOK_EQ},
        {"(", FX_TOK_LPAREN},     {")", FX_TOK_RPAREN},  {"[", FX_TOK_LBRACKET}, {"]", FX_TOK_RBRACKET},
        {"{", FX_TOK_LBRACE},     {"}", FX_TOK_RBRACE},  {",", FX_TOK_COMMA},  {":", FX_TOK_COLON},
        {".", FX_TOK_DOT},        {"+", FX_TOK_PLUS},    {"-", FX_TOK_MINUS},  {"*", FX_TOK_STAR},
        {"/", FX_TOK_SLASH},      {"%", FX_TOK_PERCENT}, {"^", FX_TOK_CARET},  {"=", FX_TOK_EQ},
        {"<", FX_TOK_LT},         {">", FX_TOK_GT},
    };
    const char *p = lx->text + lx->pos;
    size_t rest = lx->len - lx->pos;
    for (size_t i = 0; i < FX_ARRAY_LEN(ops); i++) {
        size_t n = strlen(ops[i].s);
        if (n <= rest && memcmp(p, ops[i].s, n) == 0) {
            FxTokKind k = ops[i].kind;
            if (k == FX_TOK_LPAREN || k == FX_TOK_LBRACKET || k == FX_TOK_LBRACE) {
                if (lx->depth++ == 0)
                    lx->outer_open = lx->pos;
            }
            else if ((k == FX_TOK_RPAREN || k == FX_TOK_RBRACKET || k == FX_TOK_RBRACE) &&
                     lx->depth > 0)
                lx->depth--;
            emit(lx, k, lx->pos, lx->pos + n, NULL);
            lx->pos += n;
            return true;
        }
    }
    for (size_t i = 0; i < FX_ARRAY_LEN(unicode_ops); i++) {
        size_t n = strlen(unicode_ops[i].bytes);
        if (n <= rest && memcmp(p, unicode_ops[i].bytes, n) == 0) {
            emit(lx, unicode_ops[i].kind, lx->pos, lx->pos + n, NULL);
            lx->pos += n;
            return true;
        }
    }
    return false;
}

static void lex_unknown(Lexer *lx)
{
    const char *p = lx->text + lx->pos;
    size_t n = fx_utf8_next(p, lx->len - lx->pos, NULL);
    unsigned char c = (unsigned char)p[0];
    char *msg;
    if (n == 0) {
        n = 1;
        msg = fx_xasprintf("invalid UTF-8 byte 0x%02x", c);
    } else if (n == 1 && (c < 0x20 || c == 0x7F)) {
        msg = fx_xasprintf("unexpected control character \\x%02x", c);
    } else {
        msg = fx_xasprintf("unexpected character `%.*s`", (int)n, p);
    }
    emit_error(lx, lx->pos, lx->pos + n, msg);
    free(msg);
    lx->pos += n;
}

/* Inside brackets, a line that starts a new item (`- ` no deeper than the
 * line that opened the bracket) or a new declaration (column 0) means the
 * bracket was never closed: say so there, rather than swallowing the rest
 * of the file into one line. pos is at the newline. */
static bool bracket_left_open(Lexer *lx)
{
    size_t i = lx->pos + 1, col = 0;
    while (i < lx->len && lx->text[i] == ' ') {
        i++;
        col++;
    }
    if (i >= lx->len || lx->text[i] == '\n' || lx->text[i] == '#')
        return false;
    bool item = lx->text[i] == '-' && i + 1 < lx->len && lx->text[i + 1] == ' ' &&
                col <= lx->line_indent;
    bool declaration = col == 0 && (isalpha((unsigned char)lx->text[i]) != 0);
    static const char *const sections[] = {"constraints", "properties", "performance_hints"};
    for (size_t k = 0; k < FX_ARRAY_LEN(sections) && !declaration; k++) {
        size_t n = strlen(sections[k]);
        const char *after = lx->text + i + n;
        declaration = i + n < lx->len && memcmp(lx->text + i, sections[k], n) == 0 &&
                      (*after == ':' || *after == ' ');
    }
    if (!item && !declaration)
        return false;
    FxSpan sp = span_at(lx, lx->outer_open, lx->outer_open + 1);
    fx_diag_error(lx->diag, sp, "`%c` is never closed", lx->text[lx->outer_open]);
    lx->depth = 0;
    return true;
}

static void end_line(Lexer *lx)
{
    FxTokKind k = last_kind(lx);
    if (k != FX_TOK_NEWLINE && k != FX_TOK_INDENT && k != FX_TOK_DEDENT)
        emit(lx, FX_TOK_NEWLINE, lx->pos, lx->pos, NULL);
}

/* One token (or comment or whitespace) at pos, within a line. */
static void lex_one(Lexer *lx)
{
    char c = lx->text[lx->pos];
    if (c == ' ' || c == '\t' || c == '\r') {
        lx->pos++;
        lx->space_before = true;
    } else if (c == '#' || (c == '/' && lx->pos + 1 < lx->len && lx->text[lx->pos + 1] == '/')) {
        while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
            lx->pos++;
    } else if (isdigit((unsigned char)c)) {
        lex_number(lx);
    } else if (isalpha((unsigned char)c) || c == '_') {
        lex_word(lx);
    } else if (c == '"') {
        lex_string(lx);
    } else if (!lex_operator(lx)) {
        lex_unknown(lx);
    }
}

void fx_lex(FxDiag *d, FxArena *arena, const FxSource *src, FxTokens *out)
{
    Lexer lx = {.diag = d, .arena = arena, .src = src, .text = src->text, .len = src->len};
    fx_vec_push(&lx.indents, (size_t)0);
    bool at_line_start = true;
    /* a UTF-8 byte order mark is not part of the program */
    if (lx.len >= 3 && memcmp(lx.text, "\xEF\xBB\xBF", 3) == 0)
        lx.pos = 3;
    while (lx.pos < lx.len) {
        if (at_line_start && lx.depth == 0 && !begin_line(&lx)) {
            while (lx.pos < lx.len && lx.text[lx.pos] != '\n')
                lx.pos++;
        }
        at_line_start = false;
        if (lx.pos >= lx.len)
            break;
        if (lx.text[lx.pos] == '\n') {
            if (lx.depth == 0 || bracket_left_open(&lx))
                end_line(&lx);
            lx.pos++;
            at_line_start = true;
            lx.space_before = true;
            continue;
        }
        lex_one(&lx);
    }
    end_line(&lx);
    while (lx.indents.len > 1) {
        lx.indents.len--;
        emit(&lx, FX_TOK_DEDENT, lx.len, lx.len, NULL);
    }
    emit(&lx, FX_TOK_EOF, lx.len, lx.len, NULL);
    fx_vec_free(&lx.indents);
    out->data = lx.toks.data;
    out->len = lx.toks.len;
}
