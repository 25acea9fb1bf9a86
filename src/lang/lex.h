/*
 * lex.h: turns a source into tokens, with layout made explicit.
 *
 * Indentation is significant: the lexer emits NEWLINE at the end of each
 * logical line, INDENT when a line is indented deeper than the one before,
 * and one DEDENT per closed block, as Python's tokenizer does. Inside
 * brackets, newlines and indentation are ignored, so a long expression may
 * continue on the next line. Blank and comment-only lines are skipped.
 *
 * Unicode operators (≤ ≥ ≠ ∀ ∃ ∈ × → ∧ ∨ ¬) become the same tokens as their
 * ASCII spellings. A character the language does not use becomes an
 * FX_TOK_ERROR token with a message, reported by the parser only if the token
 * is not inside a free-text comment such as `pure (no side effects)`.
 * Layout errors (a tab in indentation, a dedent to no enclosing level) are
 * reported directly.
 */
#ifndef FX_LEX_H
#define FX_LEX_H

#include "base/arena.h"
#include "base/diag.h"

/* ORDER FX_TOK: keep in sync with token_names[] in lex.c */
typedef enum {
    FX_TOK_EOF,
    FX_TOK_NEWLINE,
    FX_TOK_INDENT,
    FX_TOK_DEDENT,
    FX_TOK_ERROR,
    FX_TOK_IDENT,
    FX_TOK_INT,
    FX_TOK_FLOAT,
    FX_TOK_STRING,
    /* keywords */
    FX_TOK_INTENT,
    FX_TOK_TYPE,
    FX_TOK_DATA,
    FX_TOK_IMPORT,
    FX_TOK_CONSTRAINTS,
    FX_TOK_PROPERTIES,
    FX_TOK_HINTS,
    FX_TOK_RESULT,
    FX_TOK_IF,
    FX_TOK_THEN,
    FX_TOK_ELSE,
    FX_TOK_AND,
    FX_TOK_OR,
    FX_TOK_NOT,
    FX_TOK_FOR,
    FX_TOK_IN,
    FX_TOK_WHERE,
    FX_TOK_ALL,
    FX_TOK_FORALL,
    FX_TOK_EXISTS,
    FX_TOK_WHEN,
    FX_TOK_TRUE,
    FX_TOK_FALSE,
    FX_TOK_DIV,
    FX_TOK_MOD,
    /* punctuation */
    FX_TOK_LPAREN,
    FX_TOK_RPAREN,
    FX_TOK_LBRACKET,
    FX_TOK_RBRACKET,
    FX_TOK_LBRACE,
    FX_TOK_RBRACE,
    FX_TOK_COMMA,
    FX_TOK_COLON,
    FX_TOK_DOT,
    FX_TOK_DOTDOT,
    FX_TOK_DOTDOTEQ,
    FX_TOK_PLUS,
    FX_TOK_MINUS,
    FX_TOK_STAR,
    FX_TOK_SLASH,
    FX_TOK_PERCENT,
    FX_TOK_CARET,
    FX_TOK_PLUSPLUS,
    FX_TOK_EQ,
    FX_TOK_NE,
    FX_TOK_LT,
    FX_TOK_LE,
    FX_TOK_GT,
    FX_TOK_GE,
    FX_TOK_ARROW,
    FX_TOK__COUNT
} FxTokKind;

typedef struct FxToken {
    FxTokKind kind;
    FxSpan span;
    /* IDENT: the name; INT: the digits; FLOAT: the literal text; STRING: the
     * unescaped contents; ERROR: the message. Arena-owned. NULL otherwise. */
    const char *text;
    bool space_before; /* whitespace separates it from the previous token */
} FxToken;

typedef struct FxTokens {
    FxToken *data;
    size_t len;
} FxTokens;

/* Tokenizes the whole source. Token texts live in `arena`; the token array is
 * heap memory that the caller frees with free(out->data). Always ends with
 * FX_TOK_EOF. */
void fx_lex(FxDiag *d, FxArena *arena, const FxSource *src, FxTokens *out);

/* "`:`", "identifier", "end of line", ... for messages. */
const char *fx_tok_describe(FxTokKind kind);

#endif
