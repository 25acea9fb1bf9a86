/*
 * parse.c: the recursive-descent parser.
 *
 * The whole file is tokenized first, so the parser can look ahead and back
 * up: a constraint line that starts like `f(x) = ...` is tried as a defining
 * equation and re-read as a plain boolean expression if it is not one.
 *
 * Error recovery is per line: the first error on a line is reported and the
 * rest of the line is skipped (the `panic` flag suppresses cascades), so one
 * run reports every broken line of a file. At the top level the parser skips
 * to the next declaration.
 *
 * Each parse function opens with the grammar rule it implements.
 */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "lex.h"

typedef struct Parser {
    FxDiag *diag;
    FxModule *mod;
    FxArena *arena;
    FxTokens toks;
    size_t pos;
    bool panic; /* an error was reported on this line; stay quiet until it ends */
    bool dropped; /* something was skipped since the current intent began */
    size_t depth; /* nested parse_expr, prefix operators and types: bounded by
                   * FX_MAX_EXPR_DEPTH, so the C stack is too */
    const FxIntent *intent; /* whose constraints are being read */
} Parser;

/* ---- token access ---- */

static const FxToken *peek(const Parser *p)
{
    return &p->toks.data[p->pos];
}

static const FxToken *peek_at(const Parser *p, size_t ahead)
{
    size_t i = p->pos + ahead;
    return &p->toks.data[i < p->toks.len ? i : p->toks.len - 1];
}

static bool check(const Parser *p, FxTokKind kind)
{
    return peek(p)->kind == kind;
}

static bool check_word(const Parser *p, const char *word)
{
    return check(p, FX_TOK_IDENT) && strcmp(peek(p)->text, word) == 0;
}

static const FxToken *advance(Parser *p)
{
    const FxToken *t = peek(p);
    if (t->kind != FX_TOK_EOF)
        p->pos++;
    return t;
}

static bool accept(Parser *p, FxTokKind kind)
{
    if (!check(p, kind))
        return false;
    advance(p);
    return true;
}

static FxSpan prev_span(const Parser *p)
{
    return p->toks.data[p->pos ? p->pos - 1 : 0].span;
}

/* The span from `start` to the end of the last consumed token. */
static FxSpan span_from(const Parser *p, FxSpan start)
{
    return fx_span_join(start, prev_span(p));
}

/* ---- errors ---- */

static char *describe(const FxToken *t)
{
    switch (t->kind) {
    case FX_TOK_IDENT:
        return fx_xasprintf("`%s`", t->text);
    case FX_TOK_INT:
    case FX_TOK_FLOAT:
        return fx_xasprintf("number `%s`", t->text);
    case FX_TOK_STRING:
        return fx_xstrdup("a string");
    default:
        return fx_xstrdup(fx_tok_describe(t->kind));
    }
}

/* Did the lexer (or an earlier stage) already report an error on this line? */
static bool line_has_error(const Parser *p, FxSpan sp)
{
    if (!sp.src)
        return false;
    size_t line, col;
    fx_diag_position(sp.src, sp.offset, &line, &col);
    fx_vec_foreach(FxDiagItem *, it, &p->diag->items)
    {
        if ((*it)->level != FX_DIAG_ERROR || (*it)->span.src != sp.src)
            continue;
        size_t l2, c2;
        fx_diag_position(sp.src, (*it)->span.offset, &l2, &c2);
        if (l2 == line)
            return true;
    }
    return false;
}

/* Reports at the current token, unless this line already has an error. An
 * ERROR token reports its own message instead: it is the real cause. */
static void error_at_current(Parser *p, const char *fmt, const char *arg)
{
    p->dropped = true;
    if (p->panic)
        return;
    p->panic = true;
    const FxToken *t = peek(p);
    if (t->kind == FX_TOK_ERROR) {
        fx_diag_error(p->diag, t->span, "%s", t->text);
        return;
    }
    if (line_has_error(p, t->span))
        return;
    char *found = describe(t);
    char *msg = fx_xasprintf(fmt, arg);
    FxSpan sp = t->span;
    /* "expected `:`" at the end of a line points just past the last token */
    if (t->kind == FX_TOK_NEWLINE || t->kind == FX_TOK_EOF || t->kind == FX_TOK_DEDENT ||
        t->kind == FX_TOK_INDENT) {
        sp = prev_span(p);
        sp.offset += sp.len;
        sp.len = 1;
        fx_diag_error(p->diag, sp, "%s", msg);
    } else {
        fx_diag_error(p->diag, sp, "%s, found %s", msg, found);
    }
    free(msg);
    free(found);
}

static void error_at(Parser *p, FxSpan span, const char *msg);

/* A full sentence at the current token, with no ", found X". */
static void error_here(Parser *p, const char *msg)
{
    error_at(p, peek(p)->span, msg);
}

static void error_at(Parser *p, FxSpan span, const char *msg)
{
    p->dropped = true;
    if (p->panic)
        return;
    p->panic = true;
    if (!line_has_error(p, span))
        fx_diag_error(p->diag, span, "%s", msg);
}

static bool expect(Parser *p, FxTokKind kind, const char *what)
{
    if (accept(p, kind))
        return true;
    error_at_current(p, "expected %s", what);
    return false;
}

/* Skips the rest of the current line, including any block nested under it,
 * and the NEWLINE that ends it. */
static void skip_line(Parser *p)
{
    int depth = 0;
    for (;;) {
        FxTokKind k = peek(p)->kind;
        if (k == FX_TOK_EOF)
            break;
        if (k == FX_TOK_DEDENT && depth == 0)
            break;
        advance(p);
        if (k == FX_TOK_INDENT) {
            depth++;
        } else if (k == FX_TOK_DEDENT) {
            if (--depth == 0)
                break; /* the block nested under the line has ended */
        } else if (k == FX_TOK_NEWLINE && depth == 0 && !check(p, FX_TOK_INDENT)) {
            break;
        }
    }
    p->panic = false;
}

/* Ends an item line: a NEWLINE must follow; anything else is an error. */
static void end_item(Parser *p, const char *context)
{
    if (!check(p, FX_TOK_NEWLINE) && !check(p, FX_TOK_EOF) && !check(p, FX_TOK_DEDENT))
        error_at_current(p, "expected the end of the line after %s", context);
    skip_line(p);
}

/* ---- small constructors ---- */

static FxExpr *new_expr(Parser *p, FxExprKind kind, FxSpan span)
{
    FxExpr *e = FX_NEW(p->arena, FxExpr);
    e->kind = kind;
    e->span = span;
    return e;
}

#define ARENA_ARRAY(p, T, vec)                                                                     \
    ((T *)copy_array((p), (vec)->data, (vec)->len, sizeof(T)))

static void *copy_array(Parser *p, const void *data, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    void *out = fx_arena_alloc(p->arena, n * size);
    memcpy(out, data, n * size);
    return out;
}

/* ---- expressions ---- */

static FxExpr *parse_expr(Parser *p);
static FxExpr *parse_unary(Parser *p);

static FxExpr *error_expr(Parser *p)
{
    return new_expr(p, FX_EXPR_BOOL, peek(p)->span);
}

#define TOO_DEEP_MSG "this nests deeper than 1000 levels, the most Flux allows; split it into intents"

/* One level deeper: false, with an error here, past FX_MAX_EXPR_DEPTH. The
 * caller then stops descending; the line is dropped. */
static bool descend(Parser *p)
{
    if (p->depth >= FX_MAX_EXPR_DEPTH) {
        error_here(p, TOO_DEEP_MSG);
        return false;
    }
    p->depth++;
    return true;
}

/* The parsed expression nests too deep for the passes after parsing (a
 * long chain `1 + 1 + ...` nests without recursing here): an error at the
 * first node past the limit. */
static void check_depth(Parser *p, FxExpr *e)
{
    const FxExpr *deep = e && !p->panic ? fx_expr_too_deep(e) : NULL;
    if (deep)
        error_at(p, deep->span, TOO_DEEP_MSG);
}

/* binder = NAME "in" range_expr */
static bool parse_binder(Parser *p, FxBinder *out);

/* binders = binder ("," binder)* */
static size_t parse_binders(Parser *p, FxBinder **out)
{
    FX_VEC(FxBinder) bs = {0};
    do {
        FxBinder b = {0};
        if (!parse_binder(p, &b))
            break;
        fx_vec_push(&bs, b);
    } while (accept(p, FX_TOK_COMMA));
    *out = ARENA_ARRAY(p, FxBinder, &bs);
    size_t n = bs.len;
    fx_vec_free(&bs);
    return n;
}

static FxExpr *parse_range(Parser *p);

static bool parse_binder(Parser *p, FxBinder *out)
{
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "a variable name");
        return false;
    }
    const FxToken *t = advance(p);
    out->name = t->text;
    out->span = t->span;
    if (!expect(p, FX_TOK_IN, "`in` and a range or collection"))
        return false;
    out->domain = parse_range(p);
    return true;
}

/* quant = ("forall" | "exists") binders ":" expr */
static FxExpr *parse_quant(Parser *p)
{
    const FxToken *t = advance(p);
    FxExpr *e = new_expr(p, FX_EXPR_QUANT, t->span);
    e->u.quant.is_forall = t->kind == FX_TOK_FORALL;
    e->u.quant.n_binders = parse_binders(p, &e->u.quant.binders);
    if (!expect(p, FX_TOK_COLON, "`:` before the quantified condition"))
        return e;
    e->u.quant.body = parse_expr(p);
    e->span = span_from(p, t->span);
    return e;
}

static bool aggregate_kind(const char *name, FxAggKind *out)
{
    static const char *const names[] = {"sum", "product", "min", "max", "count"};
    for (size_t i = 0; i < FX_ARRAY_LEN(names); i++) {
        if (strcmp(name, names[i]) == 0) {
            *out = (FxAggKind)i;
            return true;
        }
    }
    if (strcmp(name, "mean") == 0) {
        *out = FX_AGG_MEAN;
        return true;
    }
    return false;
}

/* generators = ("for" binder ("," binder)*)+ [("if" | "where") expr]
 * called with "for" next; fills e's binders and filter */
static void parse_generators(Parser *p, FxExpr *e)
{
    FX_VEC(FxBinder) bs = {0};
    while (accept(p, FX_TOK_FOR)) {
        FxBinder b = {0};
        if (!parse_binder(p, &b))
            break;
        fx_vec_push(&bs, b);
        while (accept(p, FX_TOK_COMMA)) {
            if (!parse_binder(p, &b))
                break;
            fx_vec_push(&bs, b);
        }
    }
    e->u.aggregate.binders = ARENA_ARRAY(p, FxBinder, &bs);
    e->u.aggregate.n_binders = bs.len;
    fx_vec_free(&bs);
    if (accept(p, FX_TOK_IF) || accept(p, FX_TOK_WHERE))
        e->u.aggregate.filter = parse_expr(p);
}

/* aggregate = AGG "(" expr generators ")"
 * called after AGG "(" expr, with "for" next */
static FxExpr *parse_aggregate(Parser *p, const FxToken *name, FxExpr *body)
{
    FxExpr *e = new_expr(p, FX_EXPR_AGGREGATE, name->span);
    aggregate_kind(name->text, &e->u.aggregate.agg);
    e->u.aggregate.name_span = name->span;
    e->u.aggregate.body = body;
    parse_generators(p, e);
    expect(p, FX_TOK_RPAREN, "`)` to close the aggregate");
    e->span = span_from(p, name->span);
    return e;
}

/* call = NAME "(" [expr ("," expr)*] ")" | aggregate */
static FxExpr *parse_call(Parser *p, const FxToken *name)
{
    advance(p); /* ( */
    FX_VEC(FxExpr *) args = {0};
    FxAggKind agg;
    if (!check(p, FX_TOK_RPAREN)) {
        do {
            FxExpr *arg = parse_expr(p);
            if (args.len == 0 && check(p, FX_TOK_FOR) && aggregate_kind(name->text, &agg)) {
                fx_vec_free(&args);
                return parse_aggregate(p, name, arg);
            }
            fx_vec_push(&args, arg);
        } while (accept(p, FX_TOK_COMMA));
    }
    if (check(p, FX_TOK_FOR))
        error_here(p, "`for` makes a generator only inside sum, product, min, max, count or a "
                      "list `[e for x in xs]`");
    expect(p, FX_TOK_RPAREN, "`)` to close the call");
    FxExpr *e = new_expr(p, FX_EXPR_CALL, span_from(p, name->span));
    e->u.call.name = name->text;
    e->u.call.name_span = name->span;
    e->u.call.n_args = args.len;
    e->u.call.args = ARENA_ARRAY(p, FxExpr *, &args);
    fx_vec_free(&args);
    return e;
}

/* list = "[" [expr ("," expr)*] "]" | "[" expr generators ["group" "by" expr] "]" */
static FxExpr *parse_list(Parser *p)
{
    const FxToken *open = advance(p);
    FX_VEC(FxExpr *) items = {0};
    if (!check(p, FX_TOK_RBRACKET)) {
        do {
            if (check(p, FX_TOK_RBRACKET))
                break; /* trailing comma */
            fx_vec_push(&items, parse_expr(p));
            if (items.len == 1 && check(p, FX_TOK_FOR)) {
                FxExpr *e = new_expr(p, FX_EXPR_AGGREGATE, open->span);
                e->u.aggregate.agg = FX_AGG_LIST;
                e->u.aggregate.name_span = open->span;
                e->u.aggregate.body = items.data[0];
                fx_vec_free(&items);
                parse_generators(p, e);
                if (check_word(p, "group") && peek_at(p, 1)->kind == FX_TOK_IDENT &&
                    !strcmp(peek_at(p, 1)->text, "by")) {
                    p->pos += 2;
                    e->u.aggregate.group_key = parse_expr(p);
                }
                expect(p, FX_TOK_RBRACKET, "`]` to close the list comprehension");
                e->span = span_from(p, open->span);
                return e;
            }
        } while (accept(p, FX_TOK_COMMA));
    }
    expect(p, FX_TOK_RBRACKET, "`]` to close the list");
    FxExpr *e = new_expr(p, FX_EXPR_LIST, span_from(p, open->span));
    e->u.list.n = items.len;
    e->u.list.items = ARENA_ARRAY(p, FxExpr *, &items);
    fx_vec_free(&items);
    return e;
}

/* record = "{" [NAME ":" expr ("," NAME ":" expr)*] "}" */
static FxExpr *parse_record(Parser *p)
{
    const FxToken *open = advance(p);
    FX_VEC(const char *) names = {0};
    FX_VEC(FxSpan) spans = {0};
    FX_VEC(FxExpr *) values = {0};
    while (!check(p, FX_TOK_RBRACE) && !p->panic) {
        if (!check(p, FX_TOK_IDENT)) {
            error_at_current(p, "expected %s", "a field name");
            break;
        }
        const FxToken *f = advance(p);
        fx_vec_push(&names, f->text);
        fx_vec_push(&spans, f->span);
        expect(p, FX_TOK_COLON, "`:` after the field name");
        fx_vec_push(&values, parse_expr(p));
        if (!accept(p, FX_TOK_COMMA))
            break;
    }
    expect(p, FX_TOK_RBRACE, "`}` to close the record");
    FxExpr *e = new_expr(p, FX_EXPR_RECORD, span_from(p, open->span));
    e->u.record.n = names.len;
    e->u.record.names = ARENA_ARRAY(p, const char *, &names);
    e->u.record.name_spans = ARENA_ARRAY(p, FxSpan, &spans);
    e->u.record.values = ARENA_ARRAY(p, FxExpr *, &values);
    fx_vec_free(&names);
    fx_vec_free(&spans);
    fx_vec_free(&values);
    return e;
}

/* if_expr = "if" expr "then" expr "else" expr */
static FxExpr *parse_if(Parser *p)
{
    const FxToken *t = advance(p);
    FxExpr *e = new_expr(p, FX_EXPR_IF, t->span);
    e->u.if_.cond = parse_expr(p);
    if (expect(p, FX_TOK_THEN, "`then`"))
        e->u.if_.then_e = parse_expr(p);
    if (expect(p, FX_TOK_ELSE, "`else`; an `if` expression needs both branches"))
        e->u.if_.else_e = parse_expr(p);
    if (!e->u.if_.then_e)
        e->u.if_.then_e = error_expr(p);
    if (!e->u.if_.else_e)
        e->u.if_.else_e = error_expr(p);
    e->span = span_from(p, t->span);
    return e;
}

/* primary = INT | FLOAT | STRING | "true" | "false" | NAME | call | "result"
 *         | "(" expr ")" | list | record | quant | if_expr */
static FxExpr *parse_primary(Parser *p)
{
    const FxToken *t = peek(p);
    FxExpr *e;
    switch (t->kind) {
    case FX_TOK_INT:
    case FX_TOK_FLOAT:
    case FX_TOK_STRING:
        advance(p);
        e = new_expr(p, t->kind == FX_TOK_INT     ? FX_EXPR_INT
                        : t->kind == FX_TOK_FLOAT ? FX_EXPR_FLOAT
                                                  : FX_EXPR_STRING,
                     t->span);
        e->u.text = t->text;
        return e;
    case FX_TOK_TRUE:
    case FX_TOK_FALSE:
        advance(p);
        e = new_expr(p, FX_EXPR_BOOL, t->span);
        e->u.boolean = t->kind == FX_TOK_TRUE;
        return e;
    case FX_TOK_IDENT:
        if (peek_at(p, 1)->kind == FX_TOK_LPAREN) {
            advance(p);
            return parse_call(p, t);
        }
        advance(p);
        e = new_expr(p, FX_EXPR_NAME, t->span);
        e->u.text = t->text;
        return e;
    case FX_TOK_RESULT:
        advance(p);
        return new_expr(p, FX_EXPR_RESULT, t->span);
    case FX_TOK_LPAREN:
        advance(p);
        e = parse_expr(p);
        expect(p, FX_TOK_RPAREN, "`)`");
        return e;
    case FX_TOK_LBRACKET:
        return parse_list(p);
    case FX_TOK_LBRACE:
        return parse_record(p);
    case FX_TOK_FORALL:
    case FX_TOK_EXISTS:
        return parse_quant(p);
    case FX_TOK_IF:
        return parse_if(p);
    default:
        error_at_current(p, "expected %s", "an expression");
        return error_expr(p);
    }
}

/* postfix = primary ("[" expr ("," expr)* "]" | "." NAME | "with" record)* */
static FxExpr *parse_postfix(Parser *p)
{
    FxExpr *e = parse_primary(p);
    for (;;) {
        if (accept(p, FX_TOK_LBRACKET)) {
            FX_VEC(FxExpr *) idx = {0};
            do
                fx_vec_push(&idx, parse_expr(p));
            while (accept(p, FX_TOK_COMMA));
            expect(p, FX_TOK_RBRACKET, "`]` to close the index");
            FxExpr *ix = new_expr(p, FX_EXPR_INDEX, span_from(p, e->span));
            ix->u.index.base = e;
            ix->u.index.n = idx.len;
            ix->u.index.indices = ARENA_ARRAY(p, FxExpr *, &idx);
            fx_vec_free(&idx);
            e = ix;
        } else if (accept(p, FX_TOK_DOT)) {
            if (!check(p, FX_TOK_IDENT)) {
                error_at_current(p, "expected %s", "a field name after `.`");
                return e;
            }
            const FxToken *f = advance(p);
            FxExpr *fe = new_expr(p, FX_EXPR_FIELD, span_from(p, e->span));
            fe->u.field.base = e;
            fe->u.field.name = f->text;
            fe->u.field.name_span = f->span;
            e = fe;
        } else if (check_word(p, "with") && peek_at(p, 1)->kind == FX_TOK_LBRACE) {
            advance(p);
            FxExpr *r = parse_record(p);
            r->u.record.base = e;
            r->span = span_from(p, e->span);
            e = r;
        } else if (check(p, FX_TOK_LPAREN) && !peek(p)->space_before) {
            error_here(p, "only a function named by its name can be called");
            return e;
        } else {
            return e;
        }
    }
}

static FxExpr *make_binary(Parser *p, FxOp op, FxSpan op_span, FxExpr *lhs, FxExpr *rhs)
{
    FxExpr *e = new_expr(p, FX_EXPR_BINARY, fx_span_join(lhs->span, rhs->span));
    e->u.binary.op = op;
    e->u.binary.op_span = op_span;
    e->u.binary.lhs = lhs;
    e->u.binary.rhs = rhs;
    return e;
}

/* power = postfix ["^" unary]   (right associative, tighter than unary minus) */
static FxExpr *parse_power(Parser *p)
{
    FxExpr *base = parse_postfix(p);
    if (!check(p, FX_TOK_CARET))
        return base;
    FxSpan op = advance(p)->span;
    return make_binary(p, FX_OP_POW, op, base, parse_unary(p));
}

/* unary = "-" unary | power */
static FxExpr *parse_unary(Parser *p)
{
    if (!check(p, FX_TOK_MINUS))
        return parse_power(p);
    if (!descend(p))
        return error_expr(p);
    FxSpan op = advance(p)->span;
    FxExpr *operand = parse_unary(p);
    p->depth--;
    FxExpr *e = new_expr(p, FX_EXPR_UNARY, fx_span_join(op, operand->span));
    e->u.unary.op = FX_OP_NEG;
    e->u.unary.operand = operand;
    return e;
}

/* mul = unary (("*" | "/" | "div" | "mod" | "%") unary)* */
static FxExpr *parse_mul(Parser *p)
{
    FxExpr *e = parse_unary(p);
    for (;;) {
        FxOp op;
        switch (peek(p)->kind) {
        case FX_TOK_STAR: op = FX_OP_MUL; break;
        case FX_TOK_SLASH: op = FX_OP_DIV; break;
        case FX_TOK_DIV: op = FX_OP_IDIV; break;
        case FX_TOK_MOD:
        case FX_TOK_PERCENT: op = FX_OP_MOD; break;
        default: return e;
        }
        FxSpan sp = advance(p)->span;
        e = make_binary(p, op, sp, e, parse_unary(p));
    }
}

/* additive = mul (("+" | "-" | "++") mul)* */
static FxExpr *parse_additive(Parser *p)
{
    FxExpr *e = parse_mul(p);
    for (;;) {
        FxOp op;
        switch (peek(p)->kind) {
        case FX_TOK_PLUS: op = FX_OP_ADD; break;
        case FX_TOK_MINUS: op = FX_OP_SUB; break;
        case FX_TOK_PLUSPLUS: op = FX_OP_CONCAT; break;
        default: return e;
        }
        FxSpan sp = advance(p)->span;
        e = make_binary(p, op, sp, e, parse_mul(p));
    }
}

/* range = additive [(".." | "..=") additive] */
static FxExpr *parse_range(Parser *p)
{
    FxExpr *lo = parse_additive(p);
    if (!check(p, FX_TOK_DOTDOT) && !check(p, FX_TOK_DOTDOTEQ))
        return lo;
    bool inclusive = advance(p)->kind == FX_TOK_DOTDOTEQ;
    FxExpr *hi = parse_additive(p);
    FxExpr *e = new_expr(p, FX_EXPR_RANGE, fx_span_join(lo->span, hi->span));
    e->u.range.lo = lo;
    e->u.range.hi = hi;
    e->u.range.inclusive = inclusive;
    return e;
}

static bool compare_op(FxTokKind k, FxOp *out)
{
    switch (k) {
    case FX_TOK_EQ: *out = FX_OP_EQ; return true;
    case FX_TOK_NE: *out = FX_OP_NE; return true;
    case FX_TOK_LT: *out = FX_OP_LT; return true;
    case FX_TOK_LE: *out = FX_OP_LE; return true;
    case FX_TOK_GT: *out = FX_OP_GT; return true;
    case FX_TOK_GE: *out = FX_OP_GE; return true;
    case FX_TOK_IN: *out = FX_OP_IN; return true;
    default: return false;
    }
}

/* compare = range (CMP range)*    -- a chain: a < b < c means a < b and b < c */
static FxExpr *parse_compare(Parser *p)
{
    FxExpr *first = parse_range(p);
    FxOp op;
    if (!compare_op(peek(p)->kind, &op))
        return first;
    FX_VEC(FxExpr *) operands = {0};
    FX_VEC(FxOp) ops = {0};
    FX_VEC(FxSpan) spans = {0};
    fx_vec_push(&operands, first);
    while (compare_op(peek(p)->kind, &op)) {
        fx_vec_push(&spans, advance(p)->span);
        fx_vec_push(&ops, op);
        fx_vec_push(&operands, parse_range(p));
    }
    FxExpr *e = new_expr(p, FX_EXPR_COMPARE,
                         fx_span_join(first->span, operands.data[operands.len - 1]->span));
    e->u.compare.n = operands.len;
    e->u.compare.operands = ARENA_ARRAY(p, FxExpr *, &operands);
    e->u.compare.ops = ARENA_ARRAY(p, FxOp, &ops);
    e->u.compare.op_spans = ARENA_ARRAY(p, FxSpan, &spans);
    fx_vec_free(&operands);
    fx_vec_free(&ops);
    fx_vec_free(&spans);
    return e;
}

/* not = "not" not | compare */
static FxExpr *parse_not(Parser *p)
{
    if (!check(p, FX_TOK_NOT))
        return parse_compare(p);
    if (!descend(p))
        return error_expr(p);
    FxSpan op = advance(p)->span;
    FxExpr *operand = parse_not(p);
    p->depth--;
    FxExpr *e = new_expr(p, FX_EXPR_UNARY, fx_span_join(op, operand->span));
    e->u.unary.op = FX_OP_NOT;
    e->u.unary.operand = operand;
    return e;
}

/* and = not ("and" not)*     or = and ("or" and)* */
static FxExpr *parse_and(Parser *p)
{
    FxExpr *e = parse_not(p);
    while (check(p, FX_TOK_AND)) {
        FxSpan sp = advance(p)->span;
        e = make_binary(p, FX_OP_AND, sp, e, parse_not(p));
    }
    return e;
}

static FxExpr *parse_or(Parser *p)
{
    FxExpr *e = parse_and(p);
    while (check(p, FX_TOK_OR)) {
        FxSpan sp = advance(p)->span;
        e = make_binary(p, FX_OP_OR, sp, e, parse_and(p));
    }
    return e;
}

/* expr = if_expr | or */
static FxExpr *parse_expr(Parser *p)
{
    if (!descend(p))
        return error_expr(p);
    FxExpr *e = check(p, FX_TOK_IF) ? parse_if(p) : parse_or(p);
    p->depth--;
    return e;
}

/* ---- constraints ---- */

static FxConstraint *new_constraint(Parser *p, FxConstraintKind kind, FxSpan span)
{
    FxConstraint *c = FX_NEW(p->arena, FxConstraint);
    c->kind = kind;
    c->span = span;
    return c;
}

/* comprehension = "result" "contains" "all" NAME [NAME] "where" expr */
static FxConstraint *parse_comprehension(Parser *p, FxSpan start)
{
    FxConstraint *c = new_constraint(p, FX_CON_COMPREHENSION, start);
    if (!expect(p, FX_TOK_ALL, "`all` after `result contains`"))
        return c;
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "a variable, a kind (`primes p`) or a collection");
        return c;
    }
    const FxToken *first = advance(p);
    c->u.comp.first = first->text;
    c->u.comp.first_span = first->span;
    if (check(p, FX_TOK_IDENT)) {
        const FxToken *second = advance(p);
        c->u.comp.second = second->text;
        c->u.comp.second_span = second->span;
    }
    if (!expect(p, FX_TOK_WHERE, "`where` and a condition"))
        return c;
    c->u.comp.cond = parse_expr(p);
    c->span = span_from(p, start);
    return c;
}

/* order  = "result" "is" "sorted" ["ascending" | "descending"] ["by" expr]
 * perm   = "result" "is" ("a" | "an") "permutation" "of" expr
 * choice = "result" "is" "one" "of" expr ("," expr)* */
static FxConstraint *parse_is(Parser *p, FxSpan start)
{
    if (check_word(p, "sorted")) {
        advance(p);
        FxConstraint *c = new_constraint(p, FX_CON_ORDER, start);
        if (check_word(p, "ascending") || check_word(p, "descending"))
            c->u.order.descending = strcmp(advance(p)->text, "descending") == 0;
        if (check_word(p, "by")) {
            advance(p);
            c->u.order.key = parse_expr(p);
        }
        c->span = span_from(p, start);
        return c;
    }
    if (check_word(p, "one") && peek_at(p, 1)->kind == FX_TOK_IDENT &&
        !strcmp(peek_at(p, 1)->text, "of")) {
        p->pos += 2;
        FxConstraint *c = new_constraint(p, FX_CON_CHOICE, start);
        FX_VEC(FxExpr *) cands = {0};
        do
            fx_vec_push(&cands, parse_expr(p));
        while (accept(p, FX_TOK_COMMA));
        c->u.choice.n = cands.len;
        c->u.choice.candidates = ARENA_ARRAY(p, FxExpr *, &cands);
        fx_vec_free(&cands);
        c->span = span_from(p, start);
        return c;
    }
    if (check_word(p, "a") || check_word(p, "an"))
        advance(p);
    if (!check_word(p, "permutation")) {
        error_at_current(p, "expected %s", "`sorted`, `a permutation of` or `one of` after `result is`");
        return NULL;
    }
    advance(p);
    if (!check_word(p, "of")) {
        error_at_current(p, "expected %s", "`of` after `permutation`");
        return NULL;
    }
    advance(p);
    FxConstraint *c = new_constraint(p, FX_CON_PERMUTATION, start);
    c->u.perm.of = parse_expr(p);
    c->span = span_from(p, start);
    return c;
}

/* The tokens from..to read as one expression, quietly: what a line that
 * looked like an equation is when its head names another function (the
 * checker decides, knowing every name). NULL when they do not read so. */
static FxExpr *as_expression(Parser *p, size_t from, size_t to)
{
    size_t save = p->pos, depth = p->depth;
    bool panic = p->panic, dropped = p->dropped;
    FxDiag *diag = p->diag, scratch = {0};
    p->diag = &scratch;
    p->pos = from;
    p->panic = false;
    FxExpr *e = parse_expr(p);
    bool ok = !p->panic && fx_diag_errors(&scratch) == 0 && p->pos == to &&
              !fx_expr_too_deep(e);
    fx_diag_free(&scratch);
    p->diag = diag;
    p->pos = save;
    p->panic = panic;
    p->dropped = dropped;
    p->depth = depth;
    return ok ? e : NULL;
}

/* Tries `LHS = EXPR [when COND]` where LHS is `result`, `result[i, ...]` or
 * `NAME(ARGS)`. Returns NULL (with the position restored and nothing
 * reported) when the line is not of that shape. */
static FxConstraint *try_equation(Parser *p)
{
    size_t save = p->pos;
    bool was_panic = p->panic;
    FxSpan start = peek(p)->span;
    FxExpr *lhs = parse_postfix(p);
    if (p->panic != was_panic || !check(p, FX_TOK_EQ)) {
        p->pos = save;
        p->panic = was_panic;
        return NULL;
    }
    FxConstraint *c;
    if (lhs->kind == FX_EXPR_RESULT) {
        c = new_constraint(p, FX_CON_EQUATION, start);
    } else if (lhs->kind == FX_EXPR_CALL) {
        c = new_constraint(p, FX_CON_EQUATION, start);
        c->u.eq.head = lhs->u.call.name;
        c->u.eq.head_span = lhs->u.call.name_span;
        c->u.eq.n_patterns = lhs->u.call.n_args;
        c->u.eq.patterns = lhs->u.call.args;
    } else if (lhs->kind == FX_EXPR_INDEX && lhs->u.index.base->kind == FX_EXPR_RESULT) {
        c = new_constraint(p, FX_CON_ELEMENTWISE, start);
        size_t n = lhs->u.index.n;
        c->u.elem.n_indices = n;
        c->u.elem.indices = fx_arena_alloc(p->arena, n * sizeof(char *));
        c->u.elem.index_spans = fx_arena_alloc(p->arena, n * sizeof(FxSpan));
        for (size_t i = 0; i < n; i++) {
            FxExpr *ix = lhs->u.index.indices[i];
            if (ix->kind != FX_EXPR_NAME) {
                error_at(p, ix->span, "an element-wise definition indexes `result` with "
                                      "variables, as in `result[i, j] = ...`");
                return c;
            }
            c->u.elem.indices[i] = ix->u.text;
            c->u.elem.index_spans[i] = ix->span;
        }
    } else {
        p->pos = save;
        p->panic = was_panic;
        return NULL;
    }
    advance(p); /* = */
    FxExpr *rhs = parse_expr(p);
    if (c->kind == FX_CON_ELEMENTWISE) {
        c->u.elem.rhs = rhs;
    } else {
        c->u.eq.rhs = rhs;
        if (accept(p, FX_TOK_WHEN))
            c->u.eq.guard = parse_expr(p);
        if (c->u.eq.head && !p->panic && !(p->intent && !strcmp(c->u.eq.head, p->intent->name)))
            c->u.eq.as_post = as_expression(p, save, p->pos);
    }
    c->span = span_from(p, start);
    return c;
}

/* Two words in a row start no expression: the line is prose ("handle
 * collisions"). Reports it, with what to write instead, and returns true. */
static bool prose(Parser *p, const char *instead)
{
    if (!check(p, FX_TOK_IDENT) || peek_at(p, 1)->kind != FX_TOK_IDENT ||
        (!strcmp(peek_at(p, 1)->text, "with") && peek_at(p, 2)->kind == FX_TOK_LBRACE))
        return false;
    FxSpan start = peek(p)->span, end = start;
    for (size_t i = 0; peek_at(p, i)->kind != FX_TOK_NEWLINE && peek_at(p, i)->kind != FX_TOK_EOF &&
                       peek_at(p, i)->kind != FX_TOK_DEDENT;
         i++)
        end = peek_at(p, i)->span;
    FxSpan line = fx_span_join(start, end);
    char *msg = fx_xasprintf("`%.*s` is prose, not a constraint: %s (docs/language.md §4)",
                             (int)line.len, line.src->text + line.offset, instead);
    error_at(p, line, msg);
    free(msg);
    return true;
}

/* foreach = "for" "each" NAME ["in" expr] ":" expr
 * read as `result = [expr for NAME in COLLECTION]`; without `in`, the
 * collection is the one the word names by the plural rule */
static FxConstraint *parse_for_each(Parser *p, FxSpan start)
{
    advance(p); /* for */
    advance(p); /* each */
    FxConstraint *c = new_constraint(p, FX_CON_EQUATION, start);
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "a name after `for each`, as in `for each p in ps:`");
        return c;
    }
    const FxToken *var = advance(p);
    FxBinder *b = FX_NEW(p->arena, FxBinder);
    b->name = var->text;
    b->span = var->span;
    if (accept(p, FX_TOK_IN)) {
        b->domain = parse_range(p);
    } else {
        b->each = true;
        b->domain = new_expr(p, FX_EXPR_NAME, var->span);
        b->domain->u.text = var->text;
    }
    if (!expect(p, FX_TOK_COLON, "`:` and the new element, as in `for each p in ps: p with {x: "
                                 "p.x + 1.0}`"))
        return c;
    char *instead = fx_xasprintf("after `for each %s:` comes the element of the result, an "
                                 "expression of `%s`, as in `%s with {x: %s.x + %s.vx * dt}`",
                                 var->text, var->text, var->text, var->text, var->text);
    bool words = prose(p, instead);
    free(instead);
    if (words)
        return c;
    FxExpr *body = parse_expr(p);
    FxExpr *list = new_expr(p, FX_EXPR_AGGREGATE, span_from(p, start));
    list->u.aggregate.agg = FX_AGG_LIST;
    list->u.aggregate.name_span = start;
    list->u.aggregate.body = body;
    list->u.aggregate.binders = b;
    list->u.aggregate.n_binders = 1;
    c->u.eq.rhs = list;
    c->span = span_from(p, start);
    return c;
}

/* Is `name` a parameter of the intent being read (then `accuracy` and
 * `latency` are its values, not measures)? */
static bool is_param_name(const Parser *p, const char *name)
{
    for (size_t i = 0; p->intent && i < p->intent->n_params; i++)
        if (!strcmp(p->intent->params[i].name, name))
            return true;
    return false;
}

/* measure = ("accuracy" | "latency") CMP NUMBER ["%" | UNIT] ["on" NAME]
 * accuracy: a percentage or a fraction; latency: ns us ms s */
static FxConstraint *parse_measure(Parser *p, FxSpan start)
{
    bool accuracy = !strcmp(advance(p)->text, "accuracy");
    FxConstraint *c = new_constraint(p, accuracy ? FX_CON_ACCURACY : FX_CON_LATENCY, start);
    FxTokKind k = peek(p)->kind;
    if (k != FX_TOK_GT && k != FX_TOK_GE && k != FX_TOK_LT && k != FX_TOK_LE) {
        error_at_current(p, "expected %s", accuracy ? "a bound, as in `accuracy > 95% on examples`"
                                                    : "a bound, as in `latency < 100ms`");
        return c;
    }
    c->u.measure.op = k == FX_TOK_GT ? FX_OP_GT : k == FX_TOK_GE ? FX_OP_GE
                      : k == FX_TOK_LT ? FX_OP_LT : FX_OP_LE;
    advance(p);
    if (!check(p, FX_TOK_INT) && !check(p, FX_TOK_FLOAT)) {
        error_at_current(p, "expected %s", "a number");
        return c;
    }
    const FxToken *num = advance(p);
    FxSpan bsp = num->span;
    double v = strtod(num->text, NULL);
    const char *unit = "";
    if (accuracy && check(p, FX_TOK_PERCENT)) {
        bsp = fx_span_join(bsp, advance(p)->span);
        unit = "%";
        v /= 100;
    } else if (!accuracy) {
        static const char *const units[] = {"ns", "us", "ms", "s"};
        static const double scale[] = {1e-9, 1e-6, 1e-3, 1};
        size_t u = FX_ARRAY_LEN(units);
        for (size_t i = 0; check(p, FX_TOK_IDENT) && i < FX_ARRAY_LEN(units); i++)
            if (!strcmp(peek(p)->text, units[i]))
                u = i;
        if (u == FX_ARRAY_LEN(units)) {
            error_at_current(p, "expected %s", "a unit of time after the number: ns, us, ms or s");
            return c;
        }
        unit = units[u];
        v *= scale[u];
        bsp = fx_span_join(bsp, advance(p)->span);
    }
    char *text = fx_xasprintf("%s%s", num->text, unit);
    c->u.measure.bound_text = fx_arena_strdup(p->arena, text);
    free(text);
    c->u.measure.bound = v;
    c->u.measure.bound_span = bsp;
    if (check_word(p, "on")) {
        advance(p);
        if (!check(p, FX_TOK_IDENT)) {
            error_at_current(p, "expected %s", accuracy ? "the data source of labelled examples"
                                                        : "a device, as in `on target_device`");
            return c;
        }
        const FxToken *on = advance(p);
        c->u.measure.on = on->text;
        c->u.measure.on_span = on->span;
    }
    c->span = span_from(p, start);
    return c;
}

/* constraint = equation | elementwise | comprehension | order | perm | choice
 *            | foreach | measure | expr */
static FxConstraint *parse_constraint(Parser *p)
{
    FxSpan start = peek(p)->span;
    if ((check_word(p, "accuracy") || check_word(p, "latency")) &&
        !is_param_name(p, peek(p)->text) && peek_at(p, 1)->kind != FX_TOK_LPAREN)
        return parse_measure(p, start);
    if (check(p, FX_TOK_FOR) && peek_at(p, 1)->kind == FX_TOK_IDENT &&
        !strcmp(peek_at(p, 1)->text, "each"))
        return parse_for_each(p, start);
    if (prose(p, "a constraint is an equation (`result = ...`, `f(0) = 1`), an element-wise "
                 "definition, a comprehension, an order, a permutation, `for each x in xs: ...` "
                 "or a boolean expression"))
        return NULL;
    if (check(p, FX_TOK_RESULT)) {
        const FxToken *next = peek_at(p, 1);
        if (next->kind == FX_TOK_IDENT && strcmp(next->text, "contains") == 0) {
            p->pos += 2;
            return parse_comprehension(p, start);
        }
        if (next->kind == FX_TOK_IDENT && strcmp(next->text, "is") == 0) {
            p->pos += 2;
            return parse_is(p, start);
        }
    }
    if (check(p, FX_TOK_RESULT) ||
        (check(p, FX_TOK_IDENT) && peek_at(p, 1)->kind == FX_TOK_LPAREN)) {
        FxConstraint *c = try_equation(p);
        if (c)
            return c;
    }
    FxExpr *e = parse_expr(p);
    if (check(p, FX_TOK_WHEN) && !p->panic)
        error_here(p, "`when` guards only a defining equation such as `f(n) = ... when n > 0`");
    FxConstraint *c = new_constraint(p, FX_CON_POST, span_from(p, start));
    c->u.post.expr = e;
    return c;
}

static void check_constraint_depth(Parser *p, FxConstraint *c)
{
    switch (c->kind) {
    case FX_CON_EQUATION:
        for (size_t i = 0; i < c->u.eq.n_patterns; i++)
            check_depth(p, c->u.eq.patterns[i]);
        check_depth(p, c->u.eq.rhs);
        check_depth(p, c->u.eq.guard);
        break;
    case FX_CON_ELEMENTWISE: check_depth(p, c->u.elem.rhs); break;
    case FX_CON_COMPREHENSION: check_depth(p, c->u.comp.cond); break;
    case FX_CON_ORDER: check_depth(p, c->u.order.key); break;
    case FX_CON_PERMUTATION: check_depth(p, c->u.perm.of); break;
    case FX_CON_POST: check_depth(p, c->u.post.expr); break;
    case FX_CON_CHOICE:
        for (size_t i = 0; i < c->u.choice.n; i++)
            check_depth(p, c->u.choice.candidates[i]);
        break;
    case FX_CON_ACCURACY:
    case FX_CON_LATENCY: break;
    }
}

/* ---- properties and hints ---- */

/* Skips a parenthesised free-text comment: `(no side effects)`. */
static void skip_comment(Parser *p)
{
    int depth = 0;
    do {
        FxTokKind k = peek(p)->kind;
        if (k == FX_TOK_NEWLINE || k == FX_TOK_EOF)
            return;
        if (k == FX_TOK_LPAREN)
            depth++;
        else if (k == FX_TOK_RPAREN)
            depth--;
        advance(p);
    } while (depth > 0);
}

/* property = NAME ["(" ARG ("," ARG)* ")"] ["(" free text ")"], ARG a
 * name or a number (`tolerance(1e-12)`). An argument list touches the
 * name; a comment is separated by a space. */
static FxProperty *parse_property(Parser *p)
{
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "a property name");
        return NULL;
    }
    const FxToken *name = advance(p);
    FxProperty *pr = FX_NEW(p->arena, FxProperty);
    pr->name = name->text;
    pr->name_span = name->span;
    if (check(p, FX_TOK_LPAREN) && !peek(p)->space_before) {
        advance(p);
        FX_VEC(const char *) args = {0};
        FX_VEC(FxSpan) spans = {0};
        do {
            if (!check(p, FX_TOK_IDENT) && !check(p, FX_TOK_INT) && !check(p, FX_TOK_FLOAT)) {
                error_at_current(p, "expected %s", "a variable name or a number");
                break;
            }
            const FxToken *a = advance(p);
            fx_vec_push(&args, a->text);
            fx_vec_push(&spans, a->span);
        } while (accept(p, FX_TOK_COMMA));
        expect(p, FX_TOK_RPAREN, "`)` to close the arguments");
        pr->n_args = args.len;
        pr->args = ARENA_ARRAY(p, const char *, &args);
        pr->arg_spans = ARENA_ARRAY(p, FxSpan, &spans);
        fx_vec_free(&args);
        fx_vec_free(&spans);
    }
    pr->span = span_from(p, name->span);
    if (check(p, FX_TOK_LPAREN))
        skip_comment(p);
    return pr;
}

/* hint = ["if" NAME "then"] NAME [CMP NUMBER [UNIT] | NAME] ["(" free text ")"]
 * Hints never change meaning, so a line that doesn't read as one is a
 * warning and is ignored: *out_why says what was expected. */
static FxHint *parse_hint(Parser *p, const char **out_why)
{
    FxHint *h = FX_NEW(p->arena, FxHint);
    FxSpan start = peek(p)->span;
    if (accept(p, FX_TOK_IF)) {
        if (!check(p, FX_TOK_IDENT)) {
            *out_why = "a condition such as `GPU_available` after `if`";
            return NULL;
        }
        const FxToken *c = advance(p);
        h->condition = c->text;
        h->condition_span = c->span;
        if (!accept(p, FX_TOK_THEN)) {
            *out_why = "`then` and a hint after the condition";
            return NULL;
        }
    }
    if (!check(p, FX_TOK_IDENT)) {
        *out_why = "a hint name";
        return NULL;
    }
    const FxToken *name = advance(p);
    h->name = name->text;
    h->name_span = name->span;
    FxOp op;
    if (compare_op(peek(p)->kind, &op) && op != FX_OP_IN) {
        FxSpan bstart = advance(p)->span;
        h->has_bound = true;
        h->bound_op = op;
        if (!check(p, FX_TOK_INT) && !check(p, FX_TOK_FLOAT)) {
            *out_why = "a number after the comparison, as in `latency < 100ms`";
            return NULL;
        }
        h->bound_value = advance(p)->text;
        if (check(p, FX_TOK_IDENT))
            h->bound_unit = advance(p)->text;
        h->bound_span = span_from(p, bstart);
    } else if (check(p, FX_TOK_IDENT)) {
        const FxToken *a = advance(p);
        h->arg = a->text;
        h->arg_span = a->span;
    }
    h->span = span_from(p, start);
    if (check(p, FX_TOK_LPAREN))
        skip_comment(p);
    if (!check(p, FX_TOK_NEWLINE) && !check(p, FX_TOK_EOF) && !check(p, FX_TOK_DEDENT)) {
        *out_why = "the end of the hint; free text goes in parentheses";
        return NULL;
    }
    return h;
}

/* A hint line that doesn't read: a warning over the rest of the line. */
static void skip_bad_hint(Parser *p, FxSpan start, const char *why)
{
    FxSpan sp = peek(p)->span;
    FxSpan last = start;
    while (!check(p, FX_TOK_NEWLINE) && !check(p, FX_TOK_EOF) && !check(p, FX_TOK_DEDENT))
        last = advance(p)->span;
    if (!line_has_error(p, sp))
        fx_diag_warning(p->diag, fx_span_join(start, last),
                        "this hint is ignored: expected %s", why);
    skip_line(p);
}

/* ---- declarations ---- */

static FxTypeExpr *parse_type_body(Parser *p, FxTypeExpr *t, FxSpan start);

/* type = NAME ["[" type ("," type)* "]"] | INT | "{" NAME ":" type ("," ...)* "}" */
static FxTypeExpr *parse_type(Parser *p)
{
    FxTypeExpr *t = FX_NEW(p->arena, FxTypeExpr);
    FxSpan start = peek(p)->span;
    t->span = start;
    if (!descend(p)) {
        t->name = "?";
        return t;
    }
    t = parse_type_body(p, t, start);
    p->depth--;
    return t;
}

static FxTypeExpr *parse_type_body(Parser *p, FxTypeExpr *t, FxSpan start)
{
    if (check(p, FX_TOK_LBRACE)) {
        advance(p);
        FX_VEC(const char *) names = {0};
        FX_VEC(FxSpan) spans = {0};
        FX_VEC(FxTypeExpr *) types = {0};
        while (!check(p, FX_TOK_RBRACE)) {
            if (!check(p, FX_TOK_IDENT)) {
                error_at_current(p, "expected %s", "a field name");
                break;
            }
            const FxToken *f = advance(p);
            fx_vec_push(&names, f->text);
            fx_vec_push(&spans, f->span);
            if (!expect(p, FX_TOK_COLON, "`:` and the field's type"))
                break;
            fx_vec_push(&types, parse_type(p));
            if (!accept(p, FX_TOK_COMMA))
                break;
        }
        expect(p, FX_TOK_RBRACE, "`}` to close the record type");
        t->n_fields = names.len;
        t->field_names = ARENA_ARRAY(p, const char *, &names);
        t->field_spans = ARENA_ARRAY(p, FxSpan, &spans);
        t->field_types = ARENA_ARRAY(p, FxTypeExpr *, &types);
        fx_vec_free(&names);
        fx_vec_free(&spans);
        fx_vec_free(&types);
        t->span = span_from(p, start);
        return t;
    }
    if (!check(p, FX_TOK_IDENT) && !check(p, FX_TOK_INT)) {
        error_at_current(p, "expected %s", "a type");
        t->name = "?";
        return t;
    }
    t->name = advance(p)->text;
    if (!strcmp(t->name, "len") && check(p, FX_TOK_LPAREN)) { /* a size: len(NAME) */
        advance(p);
        if (check(p, FX_TOK_IDENT)) {
            const FxToken *n = advance(p);
            t->len_of = n->text;
            t->len_span = n->span;
            char *s = fx_xasprintf("len(%s)", n->text);
            t->name = fx_arena_strdup(p->arena, s);
            free(s);
        } else {
            error_at_current(p, "expected %s", "a parameter's name in `len(...)`");
        }
        expect(p, FX_TOK_RPAREN, "`)` to close `len(...)`");
        t->span = span_from(p, start);
        return t;
    }
    if (accept(p, FX_TOK_LBRACKET)) {
        FX_VEC(FxTypeExpr *) args = {0};
        do
            fx_vec_push(&args, parse_type(p));
        while (accept(p, FX_TOK_COMMA));
        expect(p, FX_TOK_RBRACKET, "`]` to close the type arguments");
        t->n_args = args.len;
        t->args = ARENA_ARRAY(p, FxTypeExpr *, &args);
        fx_vec_free(&args);
    }
    t->span = span_from(p, start);
    return t;
}

/* params = "(" [NAME ":" type ("," NAME ":" type)*] ")" */
static void parse_params(Parser *p, FxIntent *in)
{
    FX_VEC(FxParam) params = {0};
    if (expect(p, FX_TOK_LPAREN, "`(` and the parameters")) {
        while (!check(p, FX_TOK_RPAREN) && !p->panic) {
            FxParam prm = {0};
            if (check(p, FX_TOK_RESULT)) {
                error_here(p, "`result` is reserved for the return value and cannot "
                                          "name a parameter");
                break;
            }
            if (!check(p, FX_TOK_IDENT)) {
                error_at_current(p, "expected %s", "a parameter name");
                break;
            }
            const FxToken *name = advance(p);
            prm.name = name->text;
            prm.span = name->span;
            if (!check(p, FX_TOK_COLON)) {
                char *msg = fx_xasprintf("expected `:` and a type after parameter `%s`",
                                         name->text);
                error_at_current(p, "%s", msg);
                free(msg);
                break;
            }
            advance(p);
            prm.type_expr = parse_type(p);
            fx_vec_push(&params, prm);
            if (!accept(p, FX_TOK_COMMA))
                break;
        }
        expect(p, FX_TOK_RPAREN, "`)` to close the parameters");
    }
    in->n_params = params.len;
    in->params = ARENA_ARRAY(p, FxParam, &params);
    fx_vec_free(&params);
}

static const char *section_names[] = {"constraints", "properties", "performance_hints"};

/* One item line of a section: "-" (constraint | property | hint) NEWLINE */
static void parse_item(Parser *p, FxIntent *in, FxSectionKind kind)
{
    if (!accept(p, FX_TOK_MINUS)) {
        error_at_current(p, "expected %s", "`- ` to start an item");
        skip_line(p);
        return;
    }
    switch (kind) {
    case FX_SECTION_CONSTRAINTS: {
        FxConstraint *c = parse_constraint(p);
        if (c && !p->panic)
            check_constraint_depth(p, c);
        if (c && !p->panic)
            fx_vec_push(&in->constraints, c);
        end_item(p, "the constraint");
        break;
    }
    case FX_SECTION_PROPERTIES: {
        FxProperty *pr = parse_property(p);
        if (pr && !p->panic)
            fx_vec_push(&in->properties, pr);
        end_item(p, "the property; free text goes in parentheses");
        break;
    }
    case FX_SECTION_HINTS: {
        FxSpan start = peek(p)->span;
        const char *why = NULL;
        FxHint *h = parse_hint(p, &why);
        if (!h) {
            skip_bad_hint(p, start, why);
            break;
        }
        fx_vec_push(&in->hints, h);
        end_item(p, "the hint");
        break;
    }
    }
}

/* section = SECTION ":" NEWLINE INDENT item+ DEDENT */
static void parse_section(Parser *p, FxIntent *in)
{
    const FxToken *t = peek(p);
    FxSectionKind kind;
    if (t->kind == FX_TOK_CONSTRAINTS) {
        kind = FX_SECTION_CONSTRAINTS;
    } else if (t->kind == FX_TOK_PROPERTIES) {
        kind = FX_SECTION_PROPERTIES;
    } else if (t->kind == FX_TOK_HINTS) {
        kind = FX_SECTION_HINTS;
    } else {
        if (t->kind == FX_TOK_IDENT) {
            char *msg = fx_xasprintf("unknown section `%s`; expected `constraints`, "
                                     "`properties` or `performance_hints`", t->text);
            error_at(p, t->span, msg);
            free(msg);
        } else {
            error_at_current(p, "expected %s", "a section: `constraints`, `properties` or "
                                                "`performance_hints`");
        }
        skip_line(p);
        return;
    }
    advance(p);
    if (in->has_section[kind]) {
        FxDiagItem *it = fx_diag_error(p->diag, t->span, "duplicate section `%s` in intent `%s`",
                                       section_names[kind], in->name);
        fx_diag_note(p->diag, it, in->section_span[kind], "the first `%s` section is here",
                     section_names[kind]);
    }
    in->has_section[kind] = true;
    in->section_span[kind] = t->span;
    if (!expect(p, FX_TOK_COLON, "`:` after the section name") ||
        !expect(p, FX_TOK_NEWLINE, "the section's items on the following lines")) {
        skip_line(p);
        return;
    }
    if (!accept(p, FX_TOK_INDENT)) {
        char *msg = fx_xasprintf("section `%s` is empty; indent its items under it",
                                 section_names[kind]);
        error_at(p, t->span, msg);
        free(msg);
        p->panic = false;
        return;
    }
    while (!check(p, FX_TOK_DEDENT) && !check(p, FX_TOK_EOF))
        parse_item(p, in, kind);
    accept(p, FX_TOK_DEDENT);
}

/* intent = "intent" NAME params "->" type ":" NEWLINE INDENT section+ DEDENT */
static void parse_intent(Parser *p)
{
    const FxToken *kw = advance(p);
    FxIntent *in = FX_NEW(p->arena, FxIntent);
    in->span = kw->span;
    size_t errors_before = fx_diag_errors(p->diag);
    p->dropped = false;
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "the intent's name");
        skip_line(p);
        return;
    }
    const FxToken *name = advance(p);
    in->name = name->text;
    in->name_span = name->span;
    parse_params(p, in);
    p->intent = in;
    if (!p->panic && expect(p, FX_TOK_ARROW, "`->` and the result type"))
        in->ret_expr = parse_type(p);
    if (!p->panic)
        expect(p, FX_TOK_COLON, "`:` at the end of the intent header");
    if (!p->panic && !check(p, FX_TOK_NEWLINE))
        error_at_current(p, "expected %s", "the end of the line after the intent header");
    bool header_ok = !p->panic;
    if (header_ok)
        advance(p); /* the header's NEWLINE */
    else
        skip_line(p); /* a broken header also skips the body */
    if (header_ok) {
        if (accept(p, FX_TOK_INDENT)) {
            while (!check(p, FX_TOK_DEDENT) && !check(p, FX_TOK_EOF))
                parse_section(p, in);
            accept(p, FX_TOK_DEDENT);
        }
        if (!in->has_section[FX_SECTION_CONSTRAINTS])
            fx_diag_error(p->diag, in->name_span, "intent `%s` has no `constraints` section",
                          in->name);
    }
    if (!in->ret_expr) {
        in->ret_expr = FX_NEW(p->arena, FxTypeExpr);
        in->ret_expr->name = "?";
        in->ret_expr->span = in->name_span;
    }
    in->span = span_from(p, kw->span);
    in->has_syntax_errors = p->dropped || fx_diag_errors(p->diag) > errors_before;
    fx_vec_push(&p->mod->intents, in);
}

/* import = "import" (STRING | NAME ("." NAME)*) NEWLINE: a file, or a
 * module of the standard library (`import std.numbers`) */
static void parse_import(Parser *p)
{
    advance(p);
    if (check(p, FX_TOK_STRING)) {
        const FxToken *s = advance(p);
        FxImport imp = {s->text, s->span, false};
        fx_vec_push(&p->mod->imports, imp);
    } else if (check(p, FX_TOK_IDENT)) {
        const FxToken *first = advance(p);
        FxBuf name = {0};
        fx_buf_puts(&name, first->text);
        while (check(p, FX_TOK_DOT)) {
            advance(p);
            if (!check(p, FX_TOK_IDENT)) {
                error_at_current(p, "expected %s", "a module name after `.`");
                break;
            }
            const FxToken *part = advance(p);
            fx_buf_printf(&name, ".%s", part->text);
        }
        FxImport imp = {fx_arena_strdup(p->arena, fx_buf_str(&name)), span_from(p, first->span),
                        true};
        fx_vec_push(&p->mod->imports, imp);
        fx_buf_free(&name);
    } else {
        error_at_current(p, "expected %s",
                         "a file name in quotes or a library module (std.numbers) after `import`");
    }
    end_item(p, "the import");
}

/* typedecl = "type" NAME "=" type NEWLINE */
static void parse_typedecl(Parser *p)
{
    const FxToken *kw = advance(p);
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "the type's name");
        skip_line(p);
        return;
    }
    FxTypeDecl *td = FX_NEW(p->arena, FxTypeDecl);
    const FxToken *name = advance(p);
    td->name = name->text;
    td->name_span = name->span;
    if (expect(p, FX_TOK_EQ, "`=` and the type's definition")) {
        td->def = parse_type(p);
        if (!p->panic) {
            td->span = span_from(p, kw->span);
            fx_vec_push(&p->mod->types, td);
        }
    }
    end_item(p, "the type declaration");
}

/* datadecl = "data" NAME ":" type "from" STRING NEWLINE */
static void parse_datadecl(Parser *p)
{
    const FxToken *kw = advance(p);
    if (!check(p, FX_TOK_IDENT)) {
        error_at_current(p, "expected %s", "the data source's name");
        skip_line(p);
        return;
    }
    FxDataDecl *dd = FX_NEW(p->arena, FxDataDecl);
    const FxToken *name = advance(p);
    dd->name = name->text;
    dd->name_span = name->span;
    if (expect(p, FX_TOK_COLON, "`:` and the data's type")) {
        dd->type_expr = parse_type(p);
        if (!p->panic && !check_word(p, "from"))
            error_at_current(p, "expected %s", "`from` and a file name");
        else if (!p->panic)
            advance(p);
        if (!p->panic && !check(p, FX_TOK_STRING))
            error_at_current(p, "expected %s", "a file name in quotes");
        if (!p->panic) {
            const FxToken *s = advance(p);
            dd->path = s->text;
            dd->path_span = s->span;
            dd->span = span_from(p, kw->span);
            fx_vec_push(&p->mod->data, dd);
        }
    }
    end_item(p, "the data declaration");
}

FxModule *fx_parse(FxDiag *d, const FxSource *src)
{
    FxModule *m = fx_xcalloc(1, sizeof(*m));
    m->src = src;
    Parser p = {.diag = d, .mod = m, .arena = &m->arena};
    fx_lex(d, &m->arena, src, &p.toks);
    while (!check(&p, FX_TOK_EOF)) {
        switch (peek(&p)->kind) {
        case FX_TOK_NEWLINE:
        case FX_TOK_DEDENT:
            advance(&p);
            break;
        case FX_TOK_IMPORT:
            parse_import(&p);
            break;
        case FX_TOK_TYPE:
            parse_typedecl(&p);
            break;
        case FX_TOK_DATA:
            parse_datadecl(&p);
            break;
        case FX_TOK_INTENT:
            parse_intent(&p);
            break;
        case FX_TOK_INDENT:
            error_at(&p, peek(&p)->span, "unexpected indentation");
            skip_line(&p);
            break;
        default:
            error_at_current(&p, "expected %s", "`intent`, `type`, `data` or `import`");
            skip_line(&p);
            break;
        }
    }
    free(p.toks.data);
    return m;
}

void fx_module_free(FxModule *m)
{
    if (!m)
        return;
    fx_vec_free(&m->imports);
    fx_vec_free(&m->types);
    fx_vec_free(&m->data);
    fx_vec_foreach(FxIntent *, in, &m->intents)
    {
        fx_vec_free(&(*in)->constraints);
        fx_vec_free(&(*in)->properties);
        fx_vec_free(&(*in)->hints);
    }
    fx_vec_free(&m->intents);
    fx_arena_free(&m->arena);
    free(m);
}

FxExpr *fx_parse_expression(FxDiag *d, const FxSource *src, FxArena *arena)
{
    FxModule tmp = {0};
    Parser p = {.diag = d, .mod = &tmp, .arena = arena};
    fx_lex(d, arena, src, &p.toks);
    while (check(&p, FX_TOK_INDENT))
        advance(&p);
    FxExpr *e = parse_expr(&p);
    while (check(&p, FX_TOK_NEWLINE) || check(&p, FX_TOK_DEDENT))
        advance(&p);
    if (!check(&p, FX_TOK_EOF))
        error_at_current(&p, "expected %s", "the end of the expression");
    check_depth(&p, e);
    free(p.toks.data);
    return fx_diag_errors(d) ? NULL : e;
}
