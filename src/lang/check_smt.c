/*
 * check_smt.c: the checks that need a solver: contradicting equations,
 * equations that leave arguments uncovered, and the truth of properties.
 *
 * Expressions over integers and booleans are translated into FxSmt terms
 * (src/proof/smt.h). A call of the intent itself, or of an intent that is
 * not a plain `result = EXPR`, becomes an uninterpreted function: the
 * solver may then give it any value. That makes the translation an
 * over-approximation, which decides the two directions differently:
 *
 *   - "no counterexample exists" (UNSAT) is a proof even with uninterpreted
 *     calls, since it holds for every interpretation, the real one included;
 *   - a counterexample is only trusted when no uninterpreted call was
 *     involved; otherwise the question stays undecided.
 *
 * Undecided properties become warnings and are kept as assumptions, as the
 * language reference says. Anything that can't be translated (lists, floats,
 * strings) is undecided too. Counterexamples are searched among small
 * values first, so that the user sees f(0, 1) rather than f(8127, -3).
 */
#include "check_int.h"
#include "laws.h"

#include <stdlib.h>
#include <string.h>

#include "proof/smt.h"

typedef FX_VEC(FxSmtTerm) TermVec;

typedef struct Binding {
    const char *name;
    FxSmtTerm term;
    FxSmtTerm len; /* a list or string parameter's length (never_both), or {0} */
} Binding;

typedef struct Ctx {
    FxProgram *prog;
    FxDiag *diag;
    FxIntent *in;
    FxSmt *smt;
    unsigned timeout_ms;
    FX_VEC(Binding) env;
    const FxSmtTerm *params; /* terms of the current parameters */
    unsigned inline_depth;
    bool uses_uf;            /* an uninterpreted call was translated */
    /* the exponents of the powers `b ^ e` translated with e not a constant:
     * exact for e in 0..POW_EXACT, uninterpreted past it (tr_pow) */
    FxSmtTerm pow_exps[8];
    size_t n_pow;
    FxLaws laws;             /* of the library's isqrt and log2 calls translated (laws.h) */
    const char *untranslatable; /* why translation failed, or NULL */
    /* never_both: the lengths of the list and string parameters, whose
     * own terms are {0} (any other use of them is untranslatable) */
    FxSmtTerm lens[16];
} Ctx;

static FxSmtTerm tr(Ctx *c, const FxExpr *e);

static FxSmtTerm fail(Ctx *c, const char *why)
{
    if (!c->untranslatable)
        c->untranslatable = why;
    FxSmtTerm none = {0};
    return none;
}

static bool sort_of(const FxType *t, FxSmtSort *out)
{
    if (!t)
        return false;
    if (t->kind == FX_TY_NATURAL || t->kind == FX_TY_INT) {
        *out = FX_SMT_SORT_INT;
        return true;
    }
    if (t->kind == FX_TY_BOOL) {
        *out = FX_SMT_SORT_BOOL;
        return true;
    }
    return false;
}

static FxSmtTerm bin(Ctx *c, FxSmtOp op, FxSmtTerm a, FxSmtTerm b)
{
    return fx_smt_binop(c->smt, op, a, b);
}

/* ---- calls ---- */

/* An uninterpreted application of `callee`. */
static FxSmtTerm opaque_call(Ctx *c, const FxIntent *callee, const FxSmtTerm *args)
{
    FxSmtSort ret, sorts[16];
    if (callee->n_params > 16 || !sort_of(callee->ret, &ret))
        return fail(c, "a call whose result is not a number or a boolean");
    for (size_t i = 0; i < callee->n_params; i++)
        if (!sort_of(callee->params[i].type, &sorts[i]))
            return fail(c, "a call with an argument that is not a number or a boolean");
    c->uses_uf = true;
    return fx_smt_apply(c->smt, callee->name, ret, callee->n_params, args, sorts);
}

static FxSmtTerm define_call(Ctx *c, const FxIntent *callee, const FxSmtTerm *args);

/* len(x) for x a list or string parameter, or a pattern variable bound to
 * one, when never_both gave it a length; else {0}. */
static FxSmtTerm length_of(Ctx *c, const FxExpr *x)
{
    FxSmtTerm none = {0};
    if (x->kind != FX_EXPR_NAME)
        return none;
    if (x->ref == FX_REF_PARAM && x->ref_index < 16 && c->params)
        return c->lens[x->ref_index];
    if (x->ref != FX_REF_LOCAL)
        return none;
    for (size_t i = c->env.len; i-- > 0;)
        if (strcmp(c->env.data[i].name, x->u.text) == 0)
            return c->env.data[i].len;
    return none;
}

static FxSmtTerm tr_call(Ctx *c, const FxExpr *e)
{
    size_t n = e->u.call.n_args;
    if (n > 16)
        return fail(c, "a call with too many arguments");
    FxSmtTerm length = n == 1 && e->ref == FX_REF_BUILTIN && !strcmp(e->u.call.name, "len")
                           ? length_of(c, e->u.call.args[0])
                           : (FxSmtTerm){0};
    if (length.v)
        return length;
    FxSmtTerm args[16];
    for (size_t i = 0; i < n; i++)
        args[i] = tr(c, e->u.call.args[i]);
    if (e->ref == FX_REF_BUILTIN) {
        bool is_min = strcmp(e->u.call.name, "min") == 0;
        if (n == 2 && (is_min || strcmp(e->u.call.name, "max") == 0)) {
            FxSmtTerm lt = bin(c, is_min ? FX_SMT_LE : FX_SMT_GE, args[0], args[1]);
            return fx_smt_ite(c->smt, lt, args[0], args[1]);
        }
        if (n == 1 && fx_laws_known(e->u.call.name)) {
            c->uses_uf = true;
            return fx_laws_apply(&c->laws, c->smt, e->u.call.name, args[0]);
        }
        return fail(c, "a built-in function the solver does not model");
    }
    if (e->ref != FX_REF_INTENT || !e->ref_intent)
        return fail(c, "an unresolved call");
    if (e->ref_intent == c->in)
        return opaque_call(c, c->in, args);
    return define_call(c, e->ref_intent, args);
}

/* The value of callee(args): its body inlined when it is a plain
 * non-recursive `result = EXPR`, an uninterpreted function otherwise. */
static FxSmtTerm define_call(Ctx *c, const FxIntent *callee, const FxSmtTerm *args)
{
    const FxExpr *body = fx_check_simple_body(callee);
    if (!body || callee->recursive || c->inline_depth >= 8)
        return opaque_call(c, callee, args);
    size_t env_mark = c->env.len;
    const FxSmtTerm *saved = c->params;
    c->params = args;
    c->inline_depth++;
    FxSmtTerm t = tr(c, body);
    c->inline_depth--;
    c->params = saved;
    c->env.len = env_mark;
    return t;
}

/* ---- expressions ---- */

static FxSmtTerm lookup(Ctx *c, const char *name)
{
    for (size_t i = c->env.len; i-- > 0;)
        if (strcmp(c->env.data[i].name, name) == 0)
            return c->env.data[i].term.v ? c->env.data[i].term
                                         : fail(c, "a list or a string");
    return fail(c, "an unbound variable");
}

static FxSmtTerm tr_name(Ctx *c, const FxExpr *e)
{
    switch (e->ref) {
    case FX_REF_PARAM:
        return c->params && c->params[e->ref_index].v ? c->params[e->ref_index]
                                                       : fail(c, "a parameter");
    case FX_REF_LOCAL:
        return lookup(c, e->u.text);
    case FX_REF_CONST:
        return fail(c, "a Float constant");
    default:
        return fail(c, "a size or a data source");
    }
}

#define POW_EXACT 8 /* a power's exponents the solver knows exactly */

/* b ^ e for an exponent that is not a constant: b^0 .. b^POW_EXACT exactly,
 * an uninterpreted function past them. A model is a counterexample only
 * when each such exponent is within 0..POW_EXACT in it (model_exact), as
 * the search's first box (0..3) makes it: `commutative` on `b ^ e` is
 * refuted with pow_of(0, 1) = 0 but pow_of(1, 0) = 1. */
static FxSmtTerm tr_pow_any(Ctx *c, FxSmtTerm base, FxSmtTerm ex)
{
    if (c->n_pow == FX_ARRAY_LEN(c->pow_exps))
        return fail(c, "too many powers with a non-constant exponent");
    c->pow_exps[c->n_pow++] = ex;
    FxSmtSort sorts[2] = {FX_SMT_SORT_INT, FX_SMT_SORT_INT};
    FxSmtTerm args[2] = {base, ex};
    FxSmtTerm acc = fx_smt_apply(c->smt, "pow", FX_SMT_SORT_INT, 2, args, sorts), power[POW_EXACT + 1];
    power[0] = fx_smt_int64(c->smt, 1);
    for (int k = 1; k <= POW_EXACT; k++)
        power[k] = bin(c, FX_SMT_MUL, power[k - 1], base);
    for (int k = POW_EXACT; k >= 0; k--)
        acc = fx_smt_ite(c->smt, bin(c, FX_SMT_EQ, ex, fx_smt_int64(c->smt, k)), power[k], acc);
    return acc;
}

/* Is the solver's model a run's values: no uninterpreted call in the
 * query, and each power's exponent within what tr_pow_any knows exactly? */
static bool model_exact(Ctx *c)
{
    if (c->uses_uf)
        return false;
    for (size_t i = 0; i < c->n_pow; i++) {
        char *v = fx_smt_model_value(c->smt, c->pow_exps[i]), *end = NULL;
        long k = v ? strtol(v, &end, 10) : -1;
        bool in = v && end && !*end && k >= 0 && k <= POW_EXACT;
        free(v);
        if (!in)
            return false;
    }
    return true;
}

static FxSmtTerm tr_pow(Ctx *c, const FxExpr *e)
{
    const FxExpr *ex = e->u.binary.rhs;
    if (ex->kind != FX_EXPR_INT || strlen(ex->u.text) > 2 || atoi(ex->u.text) > 16) {
        if (!fx_type_is_int(e->type))
            return fail(c, "a power with a non-constant exponent");
        FxSmtTerm base = tr(c, e->u.binary.lhs), x = tr(c, ex);
        return base.v && x.v ? tr_pow_any(c, base, x) : fail(c, "a power");
    }
    FxSmtTerm base = tr(c, e->u.binary.lhs), acc = fx_smt_int64(c->smt, 1);
    for (int i = atoi(ex->u.text); i > 0; i--)
        acc = bin(c, FX_SMT_MUL, acc, base);
    return acc;
}

static FxSmtTerm tr_binary(Ctx *c, const FxExpr *e)
{
    static const struct {
        FxOp op;
        FxSmtOp smt;
    } table[] = {
        {FX_OP_ADD, FX_SMT_ADD},  {FX_OP_SUB, FX_SMT_SUB}, {FX_OP_MUL, FX_SMT_MUL},
        {FX_OP_IDIV, FX_SMT_DIV}, {FX_OP_MOD, FX_SMT_MOD}, {FX_OP_AND, FX_SMT_AND},
        {FX_OP_OR, FX_SMT_OR},
    };
    if (e->u.binary.op == FX_OP_POW)
        return tr_pow(c, e);
    for (size_t i = 0; i < FX_ARRAY_LEN(table); i++)
        if (table[i].op == e->u.binary.op)
            return bin(c, table[i].smt, tr(c, e->u.binary.lhs), tr(c, e->u.binary.rhs));
    return fail(c, "an operation on floats, strings or lists");
}

static FxSmtTerm tr_in_range(Ctx *c, FxSmtTerm x, const FxExpr *range)
{
    if (range->kind != FX_EXPR_RANGE)
        return fail(c, "membership in a list");
    FxSmtTerm lo = tr(c, range->u.range.lo), hi = tr(c, range->u.range.hi);
    return bin(c, FX_SMT_AND, bin(c, FX_SMT_LE, lo, x),
               bin(c, range->u.range.inclusive ? FX_SMT_LE : FX_SMT_LT, x, hi));
}

static FxSmtTerm tr_compare(Ctx *c, const FxExpr *e)
{
    static const FxSmtOp ops[] = {
        [FX_OP_EQ] = FX_SMT_EQ, [FX_OP_NE] = FX_SMT_NE, [FX_OP_LT] = FX_SMT_LT,
        [FX_OP_LE] = FX_SMT_LE, [FX_OP_GT] = FX_SMT_GT, [FX_OP_GE] = FX_SMT_GE,
    };
    FxSmtTerm acc = fx_smt_bool(c->smt, true);
    FxSmtTerm left = tr(c, e->u.compare.operands[0]);
    for (size_t i = 0; i + 1 < e->u.compare.n; i++) {
        const FxExpr *r = e->u.compare.operands[i + 1];
        FxOp op = e->u.compare.ops[i];
        FxSmtTerm step, right = {0};
        if (op == FX_OP_IN) {
            step = tr_in_range(c, left, r);
        } else {
            right = tr(c, r);
            step = bin(c, ops[op], left, right);
        }
        acc = bin(c, FX_SMT_AND, acc, step);
        left = right;
    }
    return acc;
}

static FxSmtTerm tr_quant(Ctx *c, const FxExpr *e)
{
    if (e->u.quant.n_binders != 1)
        return fail(c, "a quantifier over several variables");
    const FxBinder *b = &e->u.quant.binders[0];
    FxSmtTerm v = fx_smt_var(c->smt, b->name, FX_SMT_SORT_INT);
    FxSmtTerm in_domain = tr_in_range(c, v, b->domain);
    Binding bind = {b->name, v};
    fx_vec_push(&c->env, bind);
    FxSmtTerm body = tr(c, e->u.quant.body);
    c->env.len--;
    if (e->u.quant.is_forall)
        return fx_smt_forall(c->smt, v, bin(c, FX_SMT_IMPLIES, in_domain, body));
    return fx_smt_exists(c->smt, v, bin(c, FX_SMT_AND, in_domain, body));
}

static FxSmtTerm tr(Ctx *c, const FxExpr *e)
{
    if (!e)
        return fail(c, "a missing expression");
    switch (e->kind) {
    case FX_EXPR_INT: return fx_smt_int(c->smt, e->u.text);
    case FX_EXPR_BOOL: return fx_smt_bool(c->smt, e->u.boolean);
    case FX_EXPR_NAME: return tr_name(c, e);
    case FX_EXPR_UNARY:
        return e->u.unary.op == FX_OP_NOT ? fx_smt_not(c->smt, tr(c, e->u.unary.operand))
                                          : fx_smt_neg(c->smt, tr(c, e->u.unary.operand));
    case FX_EXPR_BINARY: return tr_binary(c, e);
    case FX_EXPR_COMPARE: return tr_compare(c, e);
    case FX_EXPR_IF:
        return fx_smt_ite(c->smt, tr(c, e->u.if_.cond), tr(c, e->u.if_.then_e),
                          tr(c, e->u.if_.else_e));
    case FX_EXPR_CALL: return tr_call(c, e);
    case FX_EXPR_QUANT: return tr_quant(c, e);
    default: return fail(c, "a value other than a number or a boolean");
    }
}

/* ---- solving ---- */

/* Satisfiable? Looks among small values of `vars` first, for readable
 * counterexamples. */
static FxSmtResult solve(Ctx *c, TermVec *facts, const FxSmtTerm *vars, size_t n_vars)
{
    static const int64_t boxes[][2] = {{0, 3}, {-8, 8}};
    size_t outer = facts->len;
    if (c->laws.all.v) /* for this query only: the caller's facts stay its own */
        fx_vec_push(facts, c->laws.all);
    size_t mark = facts->len;
    for (size_t b = 0; b < FX_ARRAY_LEN(boxes); b++) {
        for (size_t i = 0; i < n_vars; i++) {
            if (fx_smt_sort_of(c->smt, vars[i]) != FX_SMT_SORT_INT)
                continue;
            fx_vec_push(facts, bin(c, FX_SMT_LE, fx_smt_int64(c->smt, boxes[b][0]), vars[i]));
            fx_vec_push(facts, bin(c, FX_SMT_LE, vars[i], fx_smt_int64(c->smt, boxes[b][1])));
        }
        FxSmtResult r = facts->len > mark ? fx_smt_check(c->smt, facts->len, facts->data)
                                          : FX_SMT_UNSAT;
        facts->len = mark;
        if (r == FX_SMT_SAT) {
            facts->len = outer;
            return r;
        }
    }
    FxSmtResult r = fx_smt_check(c->smt, facts->len, facts->data);
    facts->len = outer;
    return r;
}

/* "f(0, 1)" from the model. Caller frees. */
static char *show_call(Ctx *c, const char *name, const FxSmtTerm *args, size_t n)
{
    FxBuf b = {0};
    fx_buf_printf(&b, "%s(", name);
    for (size_t i = 0; i < n; i++) {
        char *v = fx_smt_model_value(c->smt, args[i]);
        fx_buf_printf(&b, "%s%s", i ? ", " : "", v ? v : "?");
        free(v);
    }
    fx_buf_puts(&b, ")");
    return fx_buf_take(&b);
}

static char *show_value(Ctx *c, FxSmtTerm t)
{
    char *v = fx_smt_model_value(c->smt, t);
    return v ? v : fx_xstrdup("?");
}

/* A fresh term named NAME + suffix of sort s, >= 0 when natural. */
static FxSmtTerm fresh_var(Ctx *c, const char *name, const char *suffix, FxSmtSort s,
                           bool natural, TermVec *facts)
{
    char *full = fx_xasprintf("%s%s", name, suffix);
    FxSmtTerm t = fx_smt_var(c->smt, full, s);
    free(full);
    if (natural)
        fx_vec_push(facts, bin(c, FX_SMT_GE, t, fx_smt_int64(c->smt, 0)));
    return t;
}

/* Fresh terms for the intent's parameters, with their type's constraints. */
static bool fresh_params(Ctx *c, const char *suffix, FxSmtTerm *out, TermVec *facts)
{
    for (size_t i = 0; i < c->in->n_params; i++) {
        FxSmtSort s;
        const FxType *t = c->in->params[i].type;
        if (!sort_of(t, &s))
            return false;
        out[i] = fresh_var(c, c->in->params[i].name, suffix, s, t->kind == FX_TY_NATURAL, facts);
    }
    return true;
}

/* ---- equations: contradictions and coverage ---- */

/* The condition under which equation k applies to args, binding its pattern
 * variables in the environment (left bound for translating its body). */
static FxSmtTerm applies(Ctx *c, const FxConstraint *k, const FxSmtTerm *args)
{
    FxSmtTerm cond = fx_smt_bool(c->smt, true);
    for (size_t i = 0; k->u.eq.head && i < k->u.eq.n_patterns; i++) {
        const FxExpr *p = k->u.eq.patterns[i];
        if (p->kind == FX_EXPR_NAME) {
            Binding b = {p->u.text, args[i], {0}};
            fx_vec_push(&c->env, b);
        } else {
            cond = bin(c, FX_SMT_AND, cond, bin(c, FX_SMT_EQ, args[i], tr(c, p)));
        }
    }
    if (k->u.eq.guard)
        cond = bin(c, FX_SMT_AND, cond, tr(c, k->u.eq.guard));
    return cond;
}

static size_t line_of(const FxConstraint *k)
{
    size_t line, col;
    fx_diag_position(k->span.src, k->span.offset, &line, &col);
    return line;
}

/* Literal patterns that differ at some position: the equations never meet. */
static bool literally_disjoint(const FxConstraint *a, const FxConstraint *b)
{
    if (!a->u.eq.head || !b->u.eq.head)
        return false;
    for (size_t i = 0; i < a->u.eq.n_patterns; i++) {
        const FxExpr *p = a->u.eq.patterns[i], *q = b->u.eq.patterns[i];
        if (p->kind == FX_EXPR_INT && q->kind == FX_EXPR_INT && strcmp(p->u.text, q->u.text) != 0)
            return true;
    }
    return false;
}

/* The conjuncts of e (its `and`s taken apart) that translate, as facts;
 * the others are left out, which only weakens the conditions. */
static void conjuncts(Ctx *c, const FxExpr *e, TermVec *facts)
{
    if (e->kind == FX_EXPR_BINARY && e->u.binary.op == FX_OP_AND) {
        conjuncts(c, e->u.binary.lhs, facts);
        conjuncts(c, e->u.binary.rhs, facts);
        return;
    }
    c->untranslatable = NULL;
    FxSmtTerm t = tr(c, e);
    if (!c->untranslatable && t.v)
        fx_vec_push(facts, t);
    c->untranslatable = NULL;
}

/* What must hold for equation k to apply to args, as far as it translates:
 * its literal patterns and its guard's conjuncts (binding its pattern
 * variables in the environment). */
static void conditions(Ctx *c, const FxConstraint *k, const FxSmtTerm *args, TermVec *facts)
{
    for (size_t i = 0; k->u.eq.head && i < k->u.eq.n_patterns; i++) {
        const FxExpr *p = k->u.eq.patterns[i];
        if (p->kind == FX_EXPR_NAME) {
            Binding b = {p->u.text, args[i], i < 16 ? c->lens[i] : (FxSmtTerm){0}};
            fx_vec_push(&c->env, b);
        } else if (args[i].v) {
            c->untranslatable = NULL;
            FxSmtTerm eq = bin(c, FX_SMT_EQ, args[i], tr(c, p));
            if (!c->untranslatable)
                fx_vec_push(facts, eq);
            c->untranslatable = NULL;
        }
    }
    if (k->u.eq.guard)
        conjuncts(c, k->u.eq.guard, facts);
}

/* Can equations a and b never apply to the same argument? Their literal
 * patterns and guards alone, each list or string parameter seen only
 * through its length (`f(xs) = 0 when len(xs) = 0` and `... when len(xs) >
 * 0`), the conjuncts out of the solver's reach left out (`a[0] <= b[0]`):
 * for equations whose values the solver cannot compare. */
static bool never_both(Ctx *c, const FxConstraint *a, const FxConstraint *b)
{
    if (c->in->n_params > 16)
        return false;
    TermVec facts = {0};
    FxSmtTerm args[16];
    c->untranslatable = NULL;
    c->uses_uf = false;
    c->n_pow = 0;
    c->laws = (FxLaws){0};
    for (size_t i = 0; i < c->in->n_params; i++) {
        FxSmtSort sort;
        const FxType *t = c->in->params[i].type;
        const char *name = c->in->params[i].name;
        bool number = sort_of(t, &sort);
        bool sized = !number && t && (fx_type_is_collection(t) || t->kind == FX_TY_STRING);
        args[i] = number ? fresh_var(c, name, "", sort, t->kind == FX_TY_NATURAL, &facts)
                         : (FxSmtTerm){0};
        c->lens[i] = sized ? fresh_var(c, "len_", name, FX_SMT_SORT_INT, true, &facts)
                           : (FxSmtTerm){0};
    }
    c->params = args;
    size_t before = facts.len;
    conditions(c, a, args, &facts);
    c->env.len = 0;
    conditions(c, b, args, &facts);
    c->env.len = 0;
    bool disjoint = facts.len > before && solve(c, &facts, args, 0) == FX_SMT_UNSAT;
    c->params = NULL;
    memset(c->lens, 0, sizeof(c->lens));
    fx_vec_free(&facts);
    return disjoint;
}

static void check_pair(Ctx *c, const FxConstraint *a, const FxConstraint *b)
{
    TermVec facts = {0};
    FxSmtTerm args[16];
    c->untranslatable = NULL;
    c->uses_uf = false;
    c->n_pow = 0;
    c->laws = (FxLaws){0};
    c->params = args;
    if (c->in->n_params > 16 || !fresh_params(c, "", args, &facts)) {
        c->untranslatable = "parameters that are not numbers or booleans";
    } else {
        fx_vec_push(&facts, applies(c, a, args));
        FxSmtTerm va = tr(c, a->u.eq.rhs);
        c->env.len = 0;
        fx_vec_push(&facts, applies(c, b, args));
        FxSmtTerm vb = tr(c, b->u.eq.rhs);
        c->env.len = 0;
        fx_vec_push(&facts, bin(c, FX_SMT_NE, va, vb));
        if (!c->untranslatable) {
            FxSmtResult r = solve(c, &facts, args, c->in->n_params);
            if (r == FX_SMT_UNSAT)
                goto out;
            if (r == FX_SMT_SAT && model_exact(c)) {
                char *call = show_call(c, c->in->alias ? c->in->alias : c->in->name, args,
                                       c->in->n_params);
                char *x = show_value(c, va), *y = show_value(c, vb);
                FxDiagItem *it = fx_diag_error(
                        c->diag, b->span,
                        "contradictory equations at lines %zu and %zu: for %s the first gives "
                        "%s and the second gives %s",
                        line_of(a), line_of(b), call, x, y);
                fx_diag_note(c->diag, it, a->span, "the equation at line %zu is here", line_of(a));
                free(call);
                free(x);
                free(y);
                goto out;
            }
        }
    }
    if (!never_both(c, a, b))
        fx_diag_warning(c->diag, b->span, "cannot decide whether the equations at lines %zu "
                        "and %zu agree where both apply; the one at line %zu is used there",
                        line_of(a), line_of(b), line_of(a));
out:
    c->params = NULL;
    fx_vec_free(&facts);
}

/* Equations of one tier that can apply to the same argument must agree. */
static void check_contradictions(Ctx *c, FxConstraint **eqs, size_t n)
{
    for (size_t j = 1; j < n; j++)
        for (size_t i = 0; i < j; i++)
            if (eqs[i]->u.eq.tier == eqs[j]->u.eq.tier && !literally_disjoint(eqs[i], eqs[j]))
                check_pair(c, eqs[i], eqs[j]);
}

/* Is some argument covered by no equation? SAT leaves the model with it. */
static FxSmtResult find_uncovered(Ctx *c, FxConstraint **eqs, size_t n, FxSmtTerm *args)
{
    TermVec facts = {0};
    FxSmtResult r = FX_SMT_UNKNOWN;
    c->untranslatable = NULL;
    c->uses_uf = false;
    c->n_pow = 0;
    c->laws = (FxLaws){0};
    c->params = args;
    if (c->in->n_params <= 16 && fresh_params(c, "", args, &facts)) {
        for (size_t i = 0; i < n; i++) {
            fx_vec_push(&facts, fx_smt_not(c->smt, applies(c, eqs[i], args)));
            c->env.len = 0;
        }
        if (!c->untranslatable)
            r = solve(c, &facts, args, c->in->n_params);
    }
    c->params = NULL;
    fx_vec_free(&facts);
    return r;
}

static bool covers_everything(Ctx *c, FxConstraint **eqs, size_t n)
{
    FxSmtTerm args[16];
    return find_uncovered(c, eqs, n, args) == FX_SMT_UNSAT;
}

/* Without an unguarded equation, some argument may be covered by none. */
static void check_coverage(Ctx *c, FxConstraint **eqs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (eqs[i]->u.eq.tier == FX_TIER_OTHERWISE)
            return;
    FxSmtTerm args[16];
    if (find_uncovered(c, eqs, n, args) == FX_SMT_SAT && model_exact(c)) {
        char *call = show_call(c, c->in->alias ? c->in->alias : c->in->name, args,
                               c->in->n_params);
        fx_diag_warning(c->diag, c->in->name_span, "no equation of `%s` covers %s; such a "
                        "call fails at run time", c->in->name, call);
        free(call);
    }
}

/* ---- the function as a term, for properties ---- */

/* The value of the intent at args, from its equations in tier order: an
 * if-then-else chain. Recursive calls stay uninterpreted. */
static FxSmtTerm function_term(Ctx *c, const FxSmtTerm *args)
{
    FxConstraint **eqs;
    size_t n = fx_check_equations(c->in, &eqs);
    const FxSmtTerm *saved = c->params;
    c->params = args;
    FxSmtTerm acc = {0};
    if (n == 0) {
        free(eqs);
        c->params = saved;
        return fail(c, "a result that is not defined by equations");
    }
    /* innermost: the first unguarded equation, which always applies; without
     * one, uncovered arguments get any value (the call fails at run time) */
    size_t otherwise = n;
    for (size_t i = n; i-- > 0;)
        if (eqs[i]->u.eq.tier == FX_TIER_OTHERWISE)
            otherwise = i;
    if (otherwise < n) {
        size_t mark = c->env.len;
        applies(c, eqs[otherwise], args);
        acc = tr(c, eqs[otherwise]->u.eq.rhs);
        c->env.len = mark;
    } else {
        acc = opaque_call(c, c->in, args);
    }
    for (int tier = FX_TIER_GUARDED; tier >= FX_TIER_LITERAL; tier--) {
        for (size_t i = n; i-- > 0;) {
            if ((int)eqs[i]->u.eq.tier != tier)
                continue;
            size_t mark = c->env.len;
            FxSmtTerm cond = applies(c, eqs[i], args);
            FxSmtTerm val = tr(c, eqs[i]->u.eq.rhs);
            c->env.len = mark;
            acc = fx_smt_ite(c->smt, cond, val, acc);
        }
    }
    free(eqs);
    c->params = saved;
    return acc;
}

/* ---- properties ---- */

static void verdict(Ctx *c, FxProperty *pr, FxVerdict v, const char *reason)
{
    pr->verdict = v;
    pr->reason = fx_arena_strdup(&c->prog->arena, reason);
}

static void assume(Ctx *c, FxProperty *pr, const char *why)
{
    char *reason = fx_xasprintf("could not be proved or refuted (%s); kept as an assumption", why);
    verdict(c, pr, FX_VERDICT_ASSUMED, reason);
    fx_diag_warning(c->diag, pr->name_span, "property `%s` of `%s` %s", pr->name, c->in->name,
                    reason);
    free(reason);
}

static void refute(Ctx *c, FxProperty *pr, const char *counterexample)
{
    char *reason = fx_xasprintf("is false: %s", counterexample);
    verdict(c, pr, FX_VERDICT_FALSE, reason);
    fx_diag_error(c->diag, pr->name_span, "property `%s` of `%s` %s", pr->name, c->in->name,
                  reason);
    free(reason);
}

/* Decides an algebraic law. `violation` is the negated law over the fresh
 * variables in vars; `describe` writes the counterexample from the model. */
typedef char *(*DescribeFn)(Ctx *c, const FxSmtTerm *terms);

static void decide_law(Ctx *c, FxProperty *pr, TermVec *facts, FxSmtTerm violation,
                       const FxSmtTerm *vars, size_t n_vars, DescribeFn describe,
                       const FxSmtTerm *terms, const char *proved)
{
    if (c->untranslatable) {
        assume(c, pr, c->untranslatable);
        return;
    }
    fx_vec_push(facts, violation);
    FxSmtResult r = solve(c, facts, vars, n_vars);
    if (r == FX_SMT_UNSAT) {
        verdict(c, pr, FX_VERDICT_HOLDS, proved);
    } else if (r == FX_SMT_SAT && model_exact(c)) {
        char *cex = describe(c, terms);
        refute(c, pr, cex);
        free(cex);
    } else if (r == FX_SMT_SAT) {
        assume(c, pr, c->laws.n_apps ? "the solver knows `isqrt` and `log2` by their laws only"
                                     : "its recursion is not unfolded by the solver");
    } else {
        assume(c, pr, fx_smt_reason(c->smt)[0] ? fx_smt_reason(c->smt) : "the solver gave up");
    }
}

/* terms: a, b, f(a, b), f(b, a) */
static char *describe_commutative(Ctx *c, const FxSmtTerm *t)
{
    const char *name = c->in->name;
    FxSmtTerm ab[2] = {t[0], t[1]}, ba[2] = {t[1], t[0]};
    char *x = show_call(c, name, ab, 2), *y = show_call(c, name, ba, 2);
    char *vx = show_value(c, t[2]), *vy = show_value(c, t[3]);
    char *s = fx_xasprintf("%s = %s but %s = %s", x, vx, y, vy);
    free(x);
    free(y);
    free(vx);
    free(vy);
    return s;
}

/* terms: a, b, c, f(f(a, b), c), f(a, f(b, c)) */
static char *describe_associative(Ctx *c, const FxSmtTerm *t)
{
    char *a = show_value(c, t[0]), *b = show_value(c, t[1]), *d = show_value(c, t[2]);
    char *l = show_value(c, t[3]), *r = show_value(c, t[4]);
    const char *f = c->in->name;
    char *s = fx_xasprintf("%s(%s(%s, %s), %s) = %s but %s(%s, %s(%s, %s)) = %s", f, f, a, b, d,
                           l, f, a, f, b, d, r);
    free(a);
    free(b);
    free(d);
    free(l);
    free(r);
    return s;
}

/* terms: a, b, c, f(a, b + c), f(a, b) + f(a, c) */
static char *describe_distributive(Ctx *c, const FxSmtTerm *t)
{
    char *a = show_value(c, t[0]), *b = show_value(c, t[1]), *d = show_value(c, t[2]);
    char *l = show_value(c, t[3]), *r = show_value(c, t[4]);
    const char *f = c->in->name;
    char *s = fx_xasprintf("%s(%s, %s + %s) = %s but %s(%s, %s) + %s(%s, %s) = %s", f, a, b, d,
                           l, f, a, b, f, a, d, r);
    free(a);
    free(b);
    free(d);
    free(l);
    free(r);
    return s;
}

/* terms: x-args..., y-args..., f(x), f(y) laid out as [x0..xn-1, y0..yn-1, fx, fy] */
static char *describe_monotone(Ctx *c, const FxSmtTerm *t)
{
    size_t n = c->in->n_params;
    char *x = show_call(c, c->in->name, t, n), *y = show_call(c, c->in->name, t + n, n);
    char *vx = show_value(c, t[2 * n]), *vy = show_value(c, t[2 * n + 1]);
    char *s = fx_xasprintf("%s = %s > %s = %s", x, vx, y, vy);
    free(x);
    free(y);
    free(vx);
    free(vy);
    return s;
}

static bool same_sort_params(Ctx *c, size_t n)
{
    FxSmtSort s0, s;
    if (c->in->n_params < n || !sort_of(c->in->params[0].type, &s0))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!sort_of(c->in->params[i].type, &s) || s != s0)
            return false;
    return true;
}

/* Are the first n parameters of one type (whether or not the solver takes it)? */
static bool same_type_params(Ctx *c, size_t n)
{
    if (c->in->n_params < n)
        return false;
    for (size_t i = 1; i < n; i++)
        if (!fx_type_assignable(c->in->params[i].type, c->in->params[0].type) ||
            !fx_type_assignable(c->in->params[0].type, c->in->params[i].type))
            return false;
    return true;
}

static void check_commutative(Ctx *c, FxProperty *pr)
{
    if (same_type_params(c, 2) && !same_sort_params(c, 2)) {
        assume(c, pr, "the solver decides integers and booleans only");
        return;
    }
    if (!same_type_params(c, 2)) {
        fx_diag_error(c->diag, pr->name_span, "`commutative` needs an intent whose first two "
                      "parameters have the same type; `%s` has %zu parameter%s", c->in->name,
                      c->in->n_params, c->in->n_params == 1 ? "" : "s");
        pr->verdict = FX_VERDICT_FALSE;
        return;
    }
    TermVec facts = {0};
    FxSmtTerm x[16], y[16], t[4];
    if (c->in->n_params > 16 || !fresh_params(c, "", x, &facts)) {
        assume(c, pr, "its parameters are not numbers or booleans");
        fx_vec_free(&facts);
        return;
    }
    memcpy(y, x, sizeof(x[0]) * c->in->n_params);
    y[0] = x[1];
    y[1] = x[0];
    t[0] = x[0];
    t[1] = x[1];
    t[2] = function_term(c, x);
    t[3] = function_term(c, y);
    decide_law(c, pr, &facts, fx_smt_binop(c->smt, FX_SMT_NE, t[2], t[3]), x,
               c->in->n_params, describe_commutative, t, "proved by Z3: f(a, b) = f(b, a)");
    fx_vec_free(&facts);
}

static bool binary_closed(Ctx *c)
{
    return c->in->n_params == 2 && same_type_params(c, 2) &&
           fx_type_assignable(c->in->ret, c->in->params[0].type);
}

/* The law has the right shape but involves values the solver doesn't take. */
static bool beyond_solver(Ctx *c, FxProperty *pr)
{
    FxSmtSort s;
    bool ok = sort_of(c->in->ret, &s);
    for (size_t i = 0; i < c->in->n_params && ok; i++)
        ok = sort_of(c->in->params[i].type, &s);
    if (!ok)
        assume(c, pr, "the solver decides integers and booleans only");
    return !ok;
}

static void check_associative(Ctx *c, FxProperty *pr)
{
    if (binary_closed(c) && beyond_solver(c, pr))
        return;
    if (!binary_closed(c)) {
        fx_diag_error(c->diag, pr->name_span, "`associative` needs an intent f(a, b) whose "
                      "parameters and result have one type");
        pr->verdict = FX_VERDICT_FALSE;
        return;
    }
    TermVec facts = {0};
    FxSmtTerm v[3], t[5];
    fresh_params(c, "", v, &facts);
    FxSmtTerm extra[2];
    fresh_params(c, "_2", extra, &facts);
    v[2] = extra[0];
    FxSmtTerm ab[2] = {v[0], v[1]}, bc[2] = {v[1], v[2]};
    FxSmtTerm l_in[2] = {function_term(c, ab), v[2]};
    FxSmtTerm r_in[2] = {v[0], function_term(c, bc)};
    t[0] = v[0];
    t[1] = v[1];
    t[2] = v[2];
    t[3] = function_term(c, l_in);
    t[4] = function_term(c, r_in);
    decide_law(c, pr, &facts, fx_smt_binop(c->smt, FX_SMT_NE, t[3], t[4]), v, 3,
               describe_associative, t, "proved by Z3: f(f(a, b), c) = f(a, f(b, c))");
    fx_vec_free(&facts);
}

static void check_distributive(Ctx *c, FxProperty *pr)
{
    bool shape = c->in->n_params == 2 && same_type_params(c, 2) &&
                 fx_type_is_numeric(c->in->ret) && fx_type_is_numeric(c->in->params[0].type);
    if (shape && beyond_solver(c, pr))
        return;
    if (!shape) {
        fx_diag_error(c->diag, pr->name_span, "`distributive` (over `+`) needs an intent f(a, b) "
                      "of numbers");
        pr->verdict = FX_VERDICT_FALSE;
        return;
    }
    TermVec facts = {0};
    FxSmtTerm v[3], t[5], extra[2];
    fresh_params(c, "", v, &facts);
    fresh_params(c, "_2", extra, &facts);
    v[2] = extra[1];
    FxSmtTerm sum[2] = {v[0], bin(c, FX_SMT_ADD, v[1], v[2])};
    FxSmtTerm ab[2] = {v[0], v[1]}, ac[2] = {v[0], v[2]};
    t[0] = v[0];
    t[1] = v[1];
    t[2] = v[2];
    t[3] = function_term(c, sum);
    t[4] = bin(c, FX_SMT_ADD, function_term(c, ab), function_term(c, ac));
    decide_law(c, pr, &facts, fx_smt_binop(c->smt, FX_SMT_NE, t[3], t[4]), v, 3,
               describe_distributive, t, "proved by Z3: f(a, b + c) = f(a, b) + f(a, c)");
    fx_vec_free(&facts);
}

/* A law about two arguments, claimed of a function of fewer: it says
 * nothing, which deserves a warning rather than a rejection. */
static void says_nothing(Ctx *c, FxProperty *pr)
{
    char *reason = fx_xasprintf("says nothing about `%s`, which takes %zu parameter%s: it relates "
                                "the values of a function of two arguments",
                                c->in->name, c->in->n_params, c->in->n_params == 1 ? "" : "s");
    verdict(c, pr, FX_VERDICT_ASSUMED, reason);
    fx_diag_warning(c->diag, pr->name_span, "property `%s` %s; it is ignored", pr->name, reason);
    free(reason);
}

static bool is_name(const FxExpr *e, const char *name)
{
    return e && e->kind == FX_EXPR_NAME && !strcmp(e->u.text, name);
}

/* X[a, b] with X, a and b the names given */
static bool is_entry(const FxExpr *e, const char *x, const char *a, const char *b)
{
    return e && e->kind == FX_EXPR_INDEX && e->u.index.n == 2 && is_name(e->u.index.base, x) &&
           is_name(e->u.index.indices[0], a) && is_name(e->u.index.indices[1], b);
}

/* Is `in` the product of its two matrix parameters: A: Matrix[M, K],
 * B: Matrix[K, N] -> Matrix[M, N], one element type, built by
 * `result[i, j] = sum(A[i, k] * B[k, j] for k in 0..K)`? */
static bool matrix_product(const FxIntent *in)
{
    if (in->n_params != 2)
        return false;
    const FxType *a = in->params[0].type, *b = in->params[1].type, *r = in->ret;
    if (a->kind != FX_TY_MATRIX || b->kind != FX_TY_MATRIX || r->kind != FX_TY_MATRIX ||
        a->elem->kind != b->elem->kind || a->elem->kind != r->elem->kind ||
        strcmp(a->cols, b->rows) || strcmp(r->rows, a->rows) || strcmp(r->cols, b->cols))
        return false;
    const FxConstraint *def = NULL;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == FX_CON_ELEMENTWISE)
        def = *kp;
    if (!def || def->u.elem.n_indices != 2)
        return false;
    const char *i = def->u.elem.indices[0], *j = def->u.elem.indices[1];
    const FxExpr *s = def->u.elem.rhs;
    if (s->kind != FX_EXPR_AGGREGATE || s->u.aggregate.agg != FX_AGG_SUM ||
        s->u.aggregate.n_binders != 1 || s->u.aggregate.filter || s->u.aggregate.group_key)
        return false;
    const FxBinder *k = &s->u.aggregate.binders[0];
    const FxExpr *d = k->domain, *m = s->u.aggregate.body;
    return d->kind == FX_EXPR_RANGE && !d->u.range.inclusive && d->u.range.lo->kind == FX_EXPR_INT &&
           !strcmp(d->u.range.lo->u.text, "0") && is_name(d->u.range.hi, a->cols) &&
           m->kind == FX_EXPR_BINARY && m->u.binary.op == FX_OP_MUL &&
           is_entry(m->u.binary.lhs, in->params[0].name, i, k->name) &&
           is_entry(m->u.binary.rhs, in->params[1].name, k->name, j);
}

/* `associative` and `distributive` of a matrix product are the laws of the
 * product of matrices ((AB)C = A(BC); A(B + C) = AB + AC and (A + B)C =
 * AC + BC), not of numbers. Over exact elements they are theorems, proved
 * in Coq and cited; over floats they hold only up to rounding. */
static void matrix_product_law(Ctx *c, FxProperty *pr)
{
    bool assoc = !strcmp(pr->name, "associative");
    if (c->in->ret->elem->kind == FX_TY_FLOAT) {
        char *reason = fx_xasprintf(
                "could not be proved or refuted (the product of Float matrices %s only up to "
                "rounding: floating-point addition is not associative); kept as an assumption",
                assoc ? "is associative" : "distributes over `+`");
        verdict(c, pr, FX_VERDICT_ASSUMED, reason);
        fx_diag_warning(c->diag, pr->name_span, "property `%s` of `%s` %s", pr->name,
                        c->in->name, reason);
        free(reason);
        return;
    }
    verdict(c, pr, FX_VERDICT_HOLDS,
            assoc ? "the matrix product is associative: (AB)C = A(BC), the library lemma "
                    "Flux.Matmul.matmul_assoc (proofs/Matmul.v), for exact elements"
                  : "the matrix product distributes over `+`: A(B + C) = AB + AC and (A + B)C = "
                    "AC + BC, the library lemmas Flux.Matmul.matmul_distrib_left and "
                    "matmul_distrib_right (proofs/Matmul.v), for exact elements");
}

static void check_monotone(Ctx *c, FxProperty *pr)
{
    size_t n = c->in->n_params;
    if (n > 8) {
        assume(c, pr, "the solver is asked about at most 8 parameters");
        return;
    }
    bool shape = n > 0 && fx_type_is_numeric(c->in->ret);
    for (size_t i = 0; i < n; i++)
        shape = shape && fx_type_is_numeric(c->in->params[i].type);
    if (shape && beyond_solver(c, pr))
        return;
    if (!shape) {
        fx_diag_error(c->diag, pr->name_span, "`monotone` needs an intent with parameters and a "
                      "result that are numbers");
        pr->verdict = FX_VERDICT_FALSE;
        return;
    }
    TermVec facts = {0};
    FxSmtTerm t[18];
    if (!fresh_params(c, "", t, &facts) || !fresh_params(c, "_2", t + n, &facts)) {
        assume(c, pr, "its parameters are not numbers");
        fx_vec_free(&facts);
        return;
    }
    /* x <= y pointwise; a violation is f(x) > f(y) */
    for (size_t i = 0; i < n; i++)
        fx_vec_push(&facts, bin(c, FX_SMT_LE, t[i], t[n + i]));
    t[2 * n] = function_term(c, t);
    t[2 * n + 1] = function_term(c, t + n);
    decide_law(c, pr, &facts, bin(c, FX_SMT_GT, t[2 * n], t[2 * n + 1]), t, 2 * n,
               describe_monotone, t, "proved by Z3: x <= y implies f(x) <= f(y)");
    fx_vec_free(&facts);
}

/* ---- structural properties ---- */

static const FxConstraint *find_form(const FxIntent *in, FxConstraintKind kind)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == kind) return *kp;
    return NULL;
}

static void check_parallelizable_over(Ctx *c, FxProperty *pr)
{
    const FxConstraint *elem = find_form(c->in, FX_CON_ELEMENTWISE);
    if (!elem) {
        fx_diag_error(c->diag, pr->name_span, "`parallelizable_over` names the indices of an "
                      "element-wise definition such as `result[i, j] = ...`, and `%s` has none",
                      c->in->name);
        pr->verdict = FX_VERDICT_FALSE;
        return;
    }
    for (size_t a = 0; a < pr->n_args; a++) {
        for (size_t b = 0; b < a; b++) {
            if (strcmp(pr->args[a], pr->args[b]) == 0) {
                fx_diag_error(c->diag, pr->arg_spans[a], "`%s` is named twice", pr->args[a]);
                pr->verdict = FX_VERDICT_FALSE;
                return;
            }
        }
        bool found = false;
        for (size_t i = 0; i < elem->u.elem.n_indices; i++)
            found |= strcmp(elem->u.elem.indices[i], pr->args[a]) == 0;
        if (!found) {
            fx_diag_error(c->diag, pr->arg_spans[a], "`%s` is not an index of the element-wise "
                          "definition of `%s`", pr->args[a], c->in->name);
            pr->verdict = FX_VERDICT_FALSE;
            return;
        }
    }
    verdict(c, pr, FX_VERDICT_HOLDS, "each element is computed from the parameters alone: the "
                                     "definition reads no other element of result");
}

static const FxExpr *result_map(const FxIntent *in);

static void check_parallelizable(Ctx *c, FxProperty *pr)
{
    const char *why = "an intent has no side effects, so its independent sub-computations may "
                      "run in parallel";
    if (find_form(c->in, FX_CON_ELEMENTWISE))
        why = "each element of the result is computed independently";
    else if (find_form(c->in, FX_CON_COMPREHENSION))
        why = "each candidate of the comprehension is tested independently";
    else if (find_form(c->in, FX_CON_PERMUTATION))
        why = "a sorted permutation can be built from independently sorted parts";
    else if (result_map(c->in))
        why = "each element of the result is computed independently, from its own element of "
              "the input";
    verdict(c, pr, FX_VERDICT_HOLDS, why);
}

/* The map comprehension that builds the result on its own (`result = [E for
 * x in XS ...]` or `for each x in XS: E`), one generator, no grouping; or NULL. */
static const FxExpr *result_map(const FxIntent *in)
{
    const FxExpr *map = NULL;
    size_t equations = 0;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        if (k->kind != FX_CON_EQUATION)
            continue;
        equations++;
        const FxExpr *r = k->u.eq.rhs;
        if (!k->u.eq.head && !k->u.eq.guard && r->kind == FX_EXPR_AGGREGATE &&
            r->u.aggregate.agg == FX_AGG_LIST && r->u.aggregate.n_binders == 1 &&
            !r->u.aggregate.group_key)
            map = r;
    }
    return equations == 1 ? map : NULL;
}

static void check_order_independent(Ctx *c, FxProperty *pr)
{
    if (find_form(c->in, FX_CON_PERMUTATION) && find_form(c->in, FX_CON_ORDER)) {
        verdict(c, pr, FX_VERDICT_HOLDS, "the sorted permutation of a list is unique, whatever "
                                         "the order of its input");
        return;
    }
    if (result_map(c->in)) {
        verdict(c, pr, FX_VERDICT_HOLDS, "each element of the result is computed from its own "
                                         "element of the input, so the elements may be processed "
                                         "in any order (the result keeps the input's order)");
        return;
    }
    assume(c, pr, "only a sorted permutation and a map over a collection are recognised as "
                  "order independent");
}

/* total: every argument is covered by an equation and recursion ends. The
 * recursion check looks for one parameter that every recursive call
 * decreases towards a bound: a Natural one, or the absolute value of an Int. */
static bool recursion_decreases(Ctx *c, FxConstraint **eqs, size_t n, size_t param);

static void check_total(Ctx *c, FxProperty *pr)
{
    FxConstraint **eqs;
    size_t n = fx_check_equations(c->in, &eqs);
    bool otherwise = n == 0;
    for (size_t i = 0; i < n; i++)
        otherwise |= eqs[i]->u.eq.tier == FX_TIER_OTHERWISE;
    if (!otherwise && !covers_everything(c, eqs, n)) {
        free(eqs);
        assume(c, pr, "the equations were not shown to cover every argument");
        return;
    }
    if (!c->in->recursive) {
        free(eqs);
        verdict(c, pr, FX_VERDICT_HOLDS, "an unguarded equation covers every argument and "
                                         "nothing recurses");
        return;
    }
    for (size_t p = 0; p < c->in->n_params; p++) {
        if (recursion_decreases(c, eqs, n, p)) {
            char *why = fx_xasprintf("proved by Z3: every recursive call decreases `%s`, which "
                                     "is bounded below", c->in->params[p].name);
            verdict(c, pr, FX_VERDICT_HOLDS, why);
            free(why);
            free(eqs);
            return;
        }
    }
    free(eqs);
    assume(c, pr, "no parameter was found to decrease at every recursive call");
}

/* Collects the recursive calls of e together with the condition under which
 * each is evaluated (the branches of `if` that lead to it). */
typedef struct RecCall {
    const FxExpr *call;
    FxSmtTerm path;
} RecCall;
typedef FX_VEC(RecCall) RecCalls;

static void collect_calls(Ctx *c, const FxExpr *e, FxSmtTerm path, RecCalls *out)
{
    if (!e)
        return;
    switch (e->kind) {
    case FX_EXPR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++)
            collect_calls(c, e->u.call.args[i], path, out);
        if (e->ref == FX_REF_INTENT && e->ref_intent == c->in) {
            RecCall rc = {e, path};
            fx_vec_push(out, rc);
        }
        break;
    case FX_EXPR_IF: {
        FxSmtTerm cond = tr(c, e->u.if_.cond);
        collect_calls(c, e->u.if_.cond, path, out);
        collect_calls(c, e->u.if_.then_e, bin(c, FX_SMT_AND, path, cond), out);
        collect_calls(c, e->u.if_.else_e, bin(c, FX_SMT_AND, path, fx_smt_not(c->smt, cond)),
                      out);
        break;
    }
    case FX_EXPR_UNARY: collect_calls(c, e->u.unary.operand, path, out); break;
    case FX_EXPR_BINARY:
        collect_calls(c, e->u.binary.lhs, path, out);
        collect_calls(c, e->u.binary.rhs, path, out);
        break;
    case FX_EXPR_COMPARE:
        for (size_t i = 0; i < e->u.compare.n; i++)
            collect_calls(c, e->u.compare.operands[i], path, out);
        break;
    default:
        break;
    }
}

static bool recursion_decreases(Ctx *c, FxConstraint **eqs, size_t n, size_t param)
{
    bool natural = c->in->params[param].type->kind == FX_TY_NATURAL;
    bool ok = true;
    FxSmtTerm args[16];
    for (size_t i = 0; i < n && ok; i++) {
        TermVec facts = {0};
        c->untranslatable = NULL;
        c->uses_uf = false;
        c->n_pow = 0;
        c->laws = (FxLaws){0};
        c->params = args;
        if (c->in->n_params > 16 || !fresh_params(c, "", args, &facts)) {
            fx_vec_free(&facts);
            return false;
        }
        /* an equation applies only where the earlier tiers did not */
        for (size_t j = 0; j < n; j++) {
            if (eqs[j]->u.eq.tier < eqs[i]->u.eq.tier) {
                fx_vec_push(&facts, fx_smt_not(c->smt, applies(c, eqs[j], args)));
                c->env.len = 0;
            }
        }
        fx_vec_push(&facts, applies(c, eqs[i], args));
        RecCalls calls = {0};
        collect_calls(c, eqs[i]->u.eq.rhs, fx_smt_bool(c->smt, true), &calls);
        fx_vec_foreach(RecCall, rc, &calls)
        {
            FxSmtTerm now = args[param], next = tr(c, rc->call->u.call.args[param]);
            FxSmtTerm m_now = natural ? now : fx_smt_ite(c->smt, bin(c, FX_SMT_LT, now,
                                                                     fx_smt_int64(c->smt, 0)),
                                                         fx_smt_neg(c->smt, now), now);
            FxSmtTerm m_next = natural ? next : fx_smt_ite(c->smt, bin(c, FX_SMT_LT, next,
                                                                       fx_smt_int64(c->smt, 0)),
                                                           fx_smt_neg(c->smt, next), next);
            FxSmtTerm decreases = bin(c, FX_SMT_AND, bin(c, FX_SMT_LT, m_next, m_now),
                                      bin(c, FX_SMT_GE, m_next, fx_smt_int64(c->smt, 0)));
            size_t mark = facts.len;
            fx_vec_push(&facts, rc->path);
            fx_vec_push(&facts, fx_smt_not(c->smt, decreases));
            ok = !c->untranslatable &&
                 fx_smt_check(c->smt, facts.len, facts.data) == FX_SMT_UNSAT;
            facts.len = mark;
            if (!ok)
                break;
        }
        c->env.len = 0;
        fx_vec_free(&calls);
        fx_vec_free(&facts);
    }
    c->params = NULL;
    return ok;
}

static void check_property(Ctx *c, FxProperty *pr)
{
    if (pr->verdict != FX_VERDICT_UNCHECKED)
        return; /* already rejected for its shape */
    const char *name = pr->name;
    c->untranslatable = NULL;
    c->uses_uf = false;
    c->n_pow = 0;
    c->laws = (FxLaws){0};
    c->env.len = 0;
    if (!strcmp(name, "pure") || !strcmp(name, "deterministic") || !strcmp(name, "stateless"))
        verdict(c, pr, FX_VERDICT_HOLDS, "by construction: intents have no state, input, output "
                                         "or randomness");
    else if (!strcmp(name, "tolerance"))
        verdict(c, pr, FX_VERDICT_HOLDS, "a permission, not a claim: floating-point sums may be "
                                         "reordered within it (docs/language.md §6)");
    else if (!strcmp(name, "parallelizable"))
        check_parallelizable(c, pr);
    else if (!strcmp(name, "parallelizable_over"))
        check_parallelizable_over(c, pr);
    else if (!strcmp(name, "order_independent"))
        check_order_independent(c, pr);
    else if (!strcmp(name, "total"))
        check_total(c, pr);
    else if ((!strcmp(name, "commutative") || !strcmp(name, "associative") ||
              !strcmp(name, "distributive")) && c->in->n_params < 2)
        says_nothing(c, pr);
    else if ((!strcmp(name, "associative") || !strcmp(name, "distributive")) &&
             matrix_product(c->in))
        matrix_product_law(c, pr);
    else if (!strcmp(name, "commutative"))
        check_commutative(c, pr);
    else if (!strcmp(name, "associative"))
        check_associative(c, pr);
    else if (!strcmp(name, "distributive"))
        check_distributive(c, pr);
    else if (!strcmp(name, "monotone"))
        check_monotone(c, pr);
}

void fx_check_intent_smt(FxProgram *prog, FxIntent *in, const FxCheckOptions *options)
{
    FxConstraint **eqs;
    size_t n = fx_check_equations(in, &eqs);
    bool pairs = false;
    for (size_t j = 1; j < n && !pairs; j++)
        for (size_t i = 0; i < j; i++)
            pairs |= eqs[i]->u.eq.tier == eqs[j]->u.eq.tier && !literally_disjoint(eqs[i], eqs[j]);
    bool uncovered = n > 0;
    for (size_t i = 0; i < n; i++)
        uncovered &= eqs[i]->u.eq.tier != FX_TIER_OTHERWISE;
    if (options && options->skip_smt) {
        free(eqs);
        return;
    }
    if (!pairs && !uncovered && in->properties.len == 0) {
        free(eqs);
        return;
    }
    if (fx_smt_missing()) { /* only a program that needs the solver says so */
        fx_diag_error(prog->diag, in->name_span, "checking `%s` needs the solver: %s", in->name,
                      fx_smt_missing());
        free(eqs);
        return;
    }
    Ctx c = {.prog = prog, .diag = prog->diag, .in = in};
    unsigned timeout = options && options->smt_timeout_ms ? options->smt_timeout_ms : 2000;
    c.smt = fx_smt_new(timeout, 0);
    if (pairs)
        check_contradictions(&c, eqs, n);
    if (uncovered)
        check_coverage(&c, eqs, n);
    fx_vec_foreach(FxProperty *, pp, &in->properties) check_property(&c, *pp);
    free(eqs);
    fx_vec_free(&c.env);
    fx_smt_free(c.smt);
}
