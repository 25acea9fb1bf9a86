/*
 * prove.c: the checker of prove.h: graphs encoded as solver terms, the
 * obligations derived from two graphs, their verdicts and their cache.
 *
 * Encoding covers what the solver decides well: integers and booleans,
 * arithmetic, comparisons, conditionals, calls (the intent's own calls as
 * one uninterpreted function; another intent's inlined when it does not
 * recurse, uninterpreted otherwise), and folds over ranges with constant
 * bounds (unrolled, up to 64 steps) or `all`/`any` (quantified). Anything
 * else (lists, floats, strings) makes the obligation UNKNOWN: never a
 * proof by omission.
 */
#include "prove.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "lang/laws.h"
#include "smt.h"
#include "unfold.h"

#define MAX_UNROLL 64
#define MAX_INLINE 6

/* ---- encoding ---- */

typedef struct Enc {
    FxSmt *smt;
    FxGraphLookup lookup;
    void *ctx;
    const char *self;     /* calls of this intent are the uninterpreted function */
    const FxGraph *self_g;
    int depth;
    bool uses_uf;
    const char *why_not;  /* set when something could not be encoded */
    /* defined() may give a sufficient condition only (both sides of an
     * `and` defined, when the left one's value cannot be encoded): for an
     * obligation that a computation never fails, never for comparing where
     * two fail */
    bool sufficient;
    FxLaws laws;          /* of the library's isqrt and log2 applications met */
} Enc;

typedef struct Frame {
    const FxGraph *g;
    const FxSmtTerm *params;
    FxSmtTerm *slots;     /* by slot number; {0} when unbound */
} Frame;

static FxSmtTerm enc(Enc *E, Frame *F, FxNodeId id);

static FxSmtTerm fail(Enc *E, const char *why)
{
    if (!E->why_not)
        E->why_not = why;
    FxSmtTerm none = {0};
    return none;
}

static bool sort_of_type(FxTypeId type, FxSmtSort *out)
{
    if (fx_typeid_is_integer(type)) {
        *out = FX_SMT_SORT_INT;
        return true;
    }
    if (fx_typeid_kind(type) == FX_TK_BOOL) {
        *out = FX_SMT_SORT_BOOL;
        return true;
    }
    return false;
}

static FxSmtTerm bin(Enc *E, FxSmtOp op, FxSmtTerm a, FxSmtTerm b)
{
    return fx_smt_binop(E->smt, op, a, b);
}

static FxSmtTerm uninterpreted(Enc *E, const char *name, FxTypeId ret, const FxGraph *sig,
                               const FxSmtTerm *args, uint32_t n)
{
    FxSmtSort rs, sorts[16];
    if (n > 16 || !sort_of_type(ret, &rs))
        return fail(E, "a call whose result is not a number or a boolean");
    for (uint32_t i = 0; i < n; i++)
        if (!sort_of_type(sig->param_tids[i], &sorts[i]))
            return fail(E, "a call with an argument that is not a number or a boolean");
    E->uses_uf = true;
    return fx_smt_apply(E->smt, name, rs, n, args, sorts);
}

static FxSmtTerm encode_graph(Enc *E, const FxGraph *g, const FxSmtTerm *params);

static FxSmtTerm enc_call(Enc *E, Frame *F, const FxNode *n)
{
    FxSmtTerm args[16];
    if (n->n_inputs > 16)
        return fail(E, "a call with more than 16 arguments");
    for (uint32_t i = 0; i < n->n_inputs; i++)
        args[i] = enc(E, F, n->inputs[i]);
    if (!strcmp(n->text, E->self))
        return uninterpreted(E, n->text, n->tid, E->self_g, args, n->n_inputs);
    const FxGraph *callee = E->lookup ? E->lookup(E->ctx, n->text) : NULL;
    if (!callee)
        return fail(E, "a call of an intent the checker cannot see");
    if (fx_graph_calls_itself(callee) || E->depth >= MAX_INLINE)
        return uninterpreted(E, n->text, n->tid, callee, args, n->n_inputs);
    E->depth++;
    FxSmtTerm t = encode_graph(E, callee, args);
    E->depth--;
    return t;
}

static FxSmtTerm enc_builtin(Enc *E, Frame *F, const FxNode *n)
{
    if (n->n_inputs == 1 && fx_laws_known(n->text)) {
        E->uses_uf = true;
        return fx_laws_apply(&E->laws, E->smt, n->text, enc(E, F, n->inputs[0]));
    }
    bool is_min = !strcmp(n->text, "min");
    if (n->n_inputs == 2 && (is_min || !strcmp(n->text, "max"))) {
        FxSmtTerm a = enc(E, F, n->inputs[0]), b = enc(E, F, n->inputs[1]);
        return fx_smt_ite(E->smt, bin(E, is_min ? FX_SMT_LE : FX_SMT_GE, a, b), a, b);
    }
    return fail(E, "a list or matrix operation");
}

static bool const_int(const FxGraph *g, FxNodeId id, long long *out)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_CONST || !fx_typeid_is_integer(n->tid))
        return false;
    char *end;
    *out = strtoll(n->text, &end, 10);
    return *end == '\0' && strlen(n->text) < 15;
}

/* sum/product/count/min/max/all/any over a range with constant bounds. */
static FxSmtTerm enc_fold(Enc *E, Frame *F, const FxNode *n)
{
    const FxNode *dom = fx_graph_node(F->g, n->inputs[0]);
    long long lo, hi;
    if (dom->op != FX_NODE_RANGE || !const_int(F->g, dom->inputs[0], &lo) ||
        !const_int(F->g, dom->inputs[1], &hi))
        return fail(E, "a fold over a list or a range with bounds known only at run time");
    if (dom->num)
        hi++;
    if (hi - lo > MAX_UNROLL)
        return fail(E, "a fold of more than 64 steps");
    FxFoldKind kind = (FxFoldKind)n->num;
    if (kind != FX_FOLD_SUM && kind != FX_FOLD_PRODUCT && kind != FX_FOLD_COUNT &&
        kind != FX_FOLD_ALL && kind != FX_FOLD_ANY)
        return fail(E, "a fold that builds a list or needs a non-empty range");
    FxSmtTerm acc = kind == FX_FOLD_ALL   ? fx_smt_bool(E->smt, true)
                    : kind == FX_FOLD_ANY ? fx_smt_bool(E->smt, false)
                                          : fx_smt_int64(E->smt, kind == FX_FOLD_PRODUCT);
    for (long long v = lo; v < hi; v++) {
        F->slots[n->num2] = fx_smt_int64(E->smt, v);
        FxSmtTerm keep = n->inputs[1].v ? enc(E, F, n->inputs[1]) : fx_smt_bool(E->smt, true);
        FxSmtTerm body = enc(E, F, n->inputs[2]), next;
        switch (kind) {
        case FX_FOLD_SUM: next = bin(E, FX_SMT_ADD, acc, body); break;
        case FX_FOLD_PRODUCT: next = bin(E, FX_SMT_MUL, acc, body); break;
        case FX_FOLD_COUNT: next = bin(E, FX_SMT_ADD, acc, fx_smt_int64(E->smt, 1)); break;
        case FX_FOLD_ALL: next = bin(E, FX_SMT_AND, acc, body); break;
        default: next = bin(E, FX_SMT_OR, acc, body); break;
        }
        acc = fx_smt_ite(E->smt, keep, next, acc);
    }
    FxSmtTerm none = {0};
    F->slots[n->num2] = none;
    return acc;
}

static FxSmtTerm enc_arith(Enc *E, Frame *F, const FxNode *n)
{
    static const FxSmtOp ops[FX_NODE__COUNT] = {
        [FX_NODE_ADD] = FX_SMT_ADD, [FX_NODE_SUB] = FX_SMT_SUB, [FX_NODE_MUL] = FX_SMT_MUL,
        [FX_NODE_IDIV] = FX_SMT_DIV, [FX_NODE_MOD] = FX_SMT_MOD, [FX_NODE_EQ] = FX_SMT_EQ,
        [FX_NODE_NE] = FX_SMT_NE,   [FX_NODE_LT] = FX_SMT_LT,   [FX_NODE_LE] = FX_SMT_LE,
        [FX_NODE_GT] = FX_SMT_GT,   [FX_NODE_GE] = FX_SMT_GE,   [FX_NODE_AND] = FX_SMT_AND,
        [FX_NODE_OR] = FX_SMT_OR,
    };
    if (n->op == FX_NODE_POW) {
        long long k;
        if (!const_int(F->g, n->inputs[1], &k) || k < 0 || k > 16)
            return fail(E, "a power with an exponent that is not a small constant");
        FxSmtTerm base = enc(E, F, n->inputs[0]), acc = fx_smt_int64(E->smt, 1);
        for (long long i = 0; i < k; i++)
            acc = bin(E, FX_SMT_MUL, acc, base);
        return acc;
    }
    return bin(E, ops[n->op], enc(E, F, n->inputs[0]), enc(E, F, n->inputs[1]));
}

static FxSmtTerm enc(Enc *E, Frame *F, FxNodeId id)
{
    const FxNode *n = fx_graph_node(F->g, id);
    FxSmtSort s;
    switch (n->op) {
    case FX_NODE_CONST:
        if (!sort_of_type(n->tid, &s))
            return fail(E, "a constant that is not a number or a boolean");
        return s == FX_SMT_SORT_BOOL ? fx_smt_bool(E->smt, !strcmp(n->text, "true"))
                                     : fx_smt_int(E->smt, n->text);
    case FX_NODE_PARAM:
        return F->params[n->num];
    case FX_NODE_VAR:
        if (n->num < F->g->n_params)
            return F->params[n->num];
        if (!F->slots[n->num].v)
            return fail(E, "a variable bound by a construct the checker does not unroll");
        return F->slots[n->num];
    case FX_NODE_NEG:
        return fx_smt_neg(E->smt, enc(E, F, n->inputs[0]));
    case FX_NODE_NOT:
        return fx_smt_not(E->smt, enc(E, F, n->inputs[0]));
    case FX_NODE_IF:
        return fx_smt_ite(E->smt, enc(E, F, n->inputs[0]), enc(E, F, n->inputs[1]),
                          enc(E, F, n->inputs[2]));
    case FX_NODE_CALL:
        return enc_call(E, F, n);
    case FX_NODE_BUILTIN:
        return enc_builtin(E, F, n);
    case FX_NODE_FOLD:
        return enc_fold(E, F, n);
    case FX_NODE_CHECK: /* a postcondition: the value is the checked one */
        return enc(E, F, n->inputs[0]);
    case FX_NODE_FAIL: {
        FxSmtTerm args[16];
        for (uint32_t i = 0; i < n->n_inputs && i < 16; i++)
            args[i] = enc(E, F, n->inputs[i]);
        char *name = fx_xasprintf("uncovered_%s", F->g->intent);
        FxSmtTerm t = uninterpreted(E, name, n->tid, F->g, args, n->n_inputs);
        free(name);
        return t;
    }
    case FX_NODE_ADD: case FX_NODE_SUB: case FX_NODE_MUL: case FX_NODE_IDIV: case FX_NODE_MOD:
    case FX_NODE_POW: case FX_NODE_EQ: case FX_NODE_NE: case FX_NODE_LT: case FX_NODE_LE:
    case FX_NODE_GT: case FX_NODE_GE: case FX_NODE_AND: case FX_NODE_OR:
        return enc_arith(E, F, n);
    default:
        return fail(E, "a list, float, string, record or data value");
    }
}

static FxSmtTerm encode_graph(Enc *E, const FxGraph *g, const FxSmtTerm *params)
{
    Frame F = {g, params, fx_xcalloc(g->n_slots + 1, sizeof(FxSmtTerm))};
    FxSmtTerm t = enc(E, &F, g->root);
    free(F.slots);
    return t;
}

/* ---- definedness: where a graph fails ---- */

/*
 * A run fails (an error, not a value) at FAIL (no equation covers the
 * call), at a CHECK whose condition is false (a postcondition, a Natural
 * result that came out negative), at a division by zero, and at a call
 * with a negative Natural argument or that itself fails. defined() is the
 * condition, over the parameters, under which evaluating a node does not
 * fail, following the evaluation order: a lazy input counts only where it
 * runs. The recursion's own definedness is the uninterpreted predicate
 * ok_<intent>, shared by both graphs like the recursion's values: the
 * induction hypothesis that smaller calls fail alike.
 */
static FxSmtTerm defined(Enc *E, Frame *F, FxNodeId id);

static FxSmtTerm all(Enc *E, FxSmtTerm a, FxSmtTerm b)
{
    return bin(E, FX_SMT_AND, a, b);
}

static FxSmtTerm defined_call(Enc *E, Frame *F, const FxNode *n)
{
    FxSmtTerm ok = fx_smt_bool(E->smt, true), args[16];
    if (n->n_inputs > 16)
        return fail(E, "a call with more than 16 arguments");
    bool self = !strcmp(n->text, E->self);
    const FxGraph *callee = self ? E->self_g : E->lookup ? E->lookup(E->ctx, n->text) : NULL;
    if (!callee)
        return fail(E, "a call of an intent the checker cannot see");
    for (uint32_t i = 0; i < n->n_inputs; i++) {
        args[i] = enc(E, F, n->inputs[i]);
        ok = all(E, ok, defined(E, F, n->inputs[i]));
        if (i < callee->n_params && fx_typeid_kind(callee->param_tids[i]) == FX_TK_NATURAL)
            ok = all(E, ok, bin(E, FX_SMT_GE, args[i], fx_smt_int64(E->smt, 0)));
    }
    if (!self && !fx_graph_calls_itself(callee) && E->depth < MAX_INLINE) {
        Frame G = {callee, args, fx_xcalloc(callee->n_slots + 1, sizeof(FxSmtTerm))};
        E->depth++;
        ok = all(E, ok, defined(E, &G, callee->root));
        E->depth--;
        free(G.slots);
        return ok;
    }
    FxSmtSort sorts[16];
    for (uint32_t i = 0; i < n->n_inputs; i++)
        if (!sort_of_type(callee->param_tids[i], &sorts[i]))
            return fail(E, "a call with an argument that is not a number or a boolean");
    char *name = fx_xasprintf("ok_%s", n->text);
    E->uses_uf = true;
    ok = all(E, ok, fx_smt_apply(E->smt, name, FX_SMT_SORT_BOOL, n->n_inputs, args, sorts));
    free(name);
    return ok;
}

/* A fold unrolled as enc_fold does: each step's filter, and its body where
 * the filter holds. */
/* One step of a fold, its variable bound to v: the filter, and the body
 * where the filter holds, do not fail. */
static FxSmtTerm defined_step(Enc *E, Frame *F, const FxNode *n, FxSmtTerm v)
{
    F->slots[n->num2] = v;
    FxSmtTerm ok = fx_smt_bool(E->smt, true), keep = ok;
    if (n->inputs[1].v) {
        ok = defined(E, F, n->inputs[1]);
        keep = enc(E, F, n->inputs[1]);
    }
    return all(E, ok, bin(E, FX_SMT_IMPLIES, keep, defined(E, F, n->inputs[2])));
}

static FxSmtTerm defined_fold(Enc *E, Frame *F, const FxNode *n)
{
    const FxNode *dom = fx_graph_node(F->g, n->inputs[0]);
    long long lo, hi;
    if (dom->op == FX_NODE_RANGE &&
        (!const_int(F->g, dom->inputs[0], &lo) || !const_int(F->g, dom->inputs[1], &hi) ||
         hi - lo + dom->num > MAX_UNROLL)) {
        /* bounds known at run time: every step of the range, by a quantifier
         * (stronger than an early-exiting `all` needs: never unsound) */
        FxSmtTerm ok = all(E, defined(E, F, dom->inputs[0]), defined(E, F, dom->inputs[1]));
        FxSmtTerm a = enc(E, F, dom->inputs[0]), b = enc(E, F, dom->inputs[1]);
        FxSmtTerm v = fx_smt_var(E->smt, "step", FX_SMT_SORT_INT);
        FxSmtTerm in = all(E, bin(E, FX_SMT_LE, a, v), bin(E, dom->num ? FX_SMT_LE : FX_SMT_LT, v, b));
        FxSmtTerm step = defined_step(E, F, n, v), none = {0};
        F->slots[n->num2] = none;
        if (E->why_not)
            return step;
        return all(E, ok, fx_smt_forall(E->smt, v, bin(E, FX_SMT_IMPLIES, in, step)));
    }
    if (dom->op != FX_NODE_RANGE)
        return fail(E, "a fold over a list");
    if (dom->num)
        hi++;
    FxSmtTerm ok = defined(E, F, n->inputs[0]);
    for (long long v = lo; v < hi; v++)
        ok = all(E, ok, defined_step(E, F, n, fx_smt_int64(E->smt, v)));
    FxSmtTerm none = {0};
    F->slots[n->num2] = none;
    return ok;
}

/* A built-in that cannot fail on arguments of its types. The others fail
 * on some values (`int("x")`, `min([])`, `s[2..1]`, `split(s, "")`,
 * ragged rows for a matrix) that the encoding cannot tell apart. */
static bool builtin_total(const FxNode *n)
{
    static const char *const total[] = {
        "len", "count", "sum", "product", "rows", "cols", "contains", "str", "join",
        "chars", "reverse", "upper", "lower", "trim", "starts_with", "ends_with", "find",
    };
    if (n->n_inputs == 2 && (!strcmp(n->text, "min") || !strcmp(n->text, "max")))
        return true;
    if (n->n_inputs == 1 && !strcmp(n->text, "split"))
        return true;
    for (size_t i = 0; i < FX_ARRAY_LEN(total); i++)
        if (!strcmp(n->text, total[i]))
            return true;
    return false;
}

static FxSmtTerm defined(Enc *E, Frame *F, FxNodeId id)
{
    const FxNode *n = fx_graph_node(F->g, id);
    FxSmtTerm yes = fx_smt_bool(E->smt, true);
    switch (n->op) {
    case FX_NODE_CONST: case FX_NODE_PARAM: case FX_NODE_VAR:
        return yes;
    case FX_NODE_FAIL:
        return fx_smt_bool(E->smt, false);
    case FX_NODE_IF:
        return all(E, defined(E, F, n->inputs[0]),
                   fx_smt_ite(E->smt, enc(E, F, n->inputs[0]), defined(E, F, n->inputs[1]),
                              defined(E, F, n->inputs[2])));
    case FX_NODE_AND: case FX_NODE_OR: {
        const char *before = E->why_not;
        FxSmtTerm a = enc(E, F, n->inputs[0]);
        if (E->sufficient && !before && E->why_not) { /* whatever the left side's value */
            E->why_not = NULL;
            return all(E, defined(E, F, n->inputs[0]), defined(E, F, n->inputs[1]));
        }
        FxSmtTerm b = defined(E, F, n->inputs[1]);
        return all(E, defined(E, F, n->inputs[0]),
                   n->op == FX_NODE_AND ? fx_smt_ite(E->smt, a, b, yes)
                                        : fx_smt_ite(E->smt, a, yes, b));
    }
    case FX_NODE_IDIV: case FX_NODE_MOD:
        return all(E, all(E, defined(E, F, n->inputs[0]), defined(E, F, n->inputs[1])),
                   bin(E, FX_SMT_NE, enc(E, F, n->inputs[1]), fx_smt_int64(E->smt, 0)));
    case FX_NODE_CALL:
        return defined_call(E, F, n);
    case FX_NODE_FOLD:
        return defined_fold(E, F, n);
    case FX_NODE_CHECK: { /* the value, then the condition on it, bound to the slot */
        FxSmtTerm v = enc(E, F, n->inputs[0]), ok = defined(E, F, n->inputs[0]);
        FxSmtTerm saved = F->slots[n->num2];
        F->slots[n->num2] = v;
        ok = all(E, ok, all(E, defined(E, F, n->inputs[1]), enc(E, F, n->inputs[1])));
        F->slots[n->num2] = saved;
        return ok;
    }
    case FX_NODE_NEG: case FX_NODE_NOT: case FX_NODE_ADD: case FX_NODE_SUB: case FX_NODE_MUL:
    case FX_NODE_POW: case FX_NODE_EQ: case FX_NODE_NE: case FX_NODE_LT: case FX_NODE_LE:
    case FX_NODE_GT: case FX_NODE_GE: case FX_NODE_BUILTIN: case FX_NODE_RANGE: {
        if (n->op == FX_NODE_BUILTIN && n->n_inputs == 1 && fx_laws_known(n->text))
            return all(E, defined(E, F, n->inputs[0]),
                       fx_laws_domain(E->smt, n->text, enc(E, F, n->inputs[0])));
        if (n->op == FX_NODE_BUILTIN && !builtin_total(n))
            return fail(E, "a built-in function that fails on some arguments");
        FxSmtTerm ok = yes;
        for (uint32_t k = 0; k < n->n_inputs; k++)
            ok = all(E, ok, defined(E, F, n->inputs[k]));
        return ok;
    }
    default:
        return fail(E, "a list, float, string, record or data value");
    }
}

static FxSmtTerm defined_graph(Enc *E, const FxGraph *g, const FxSmtTerm *params)
{
    Frame F = {g, params, fx_xcalloc(g->n_slots + 1, sizeof(FxSmtTerm))};
    FxSmtTerm t = defined(E, &F, g->root);
    free(F.slots);
    return t;
}

/* ---- the cache ---- */

typedef struct CacheEntry {
    char hash[17];
    FxProofVerdict verdict;
    char *counterexample, *smtlib, *reason;
    char **witness;
    uint32_t n_witness;
} CacheEntry;

struct FxProofCache {
    FX_VEC(CacheEntry) entries;
};

static void free_strings(char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static char **copy_strings(char *const *v, uint32_t n)
{
    if (!v)
        return NULL;
    char **c = fx_xcalloc(n + 1, sizeof(char *));
    for (uint32_t i = 0; i < n; i++)
        c[i] = fx_xstrdup(v[i]);
    return c;
}

void fx_obligation_drop_witness(FxObligation *o)
{
    free_strings(o->witness, o->n_witness);
    o->witness = NULL;
    o->n_witness = 0;
}

FxProofCache *fx_proof_cache_new(void)
{
    return fx_xcalloc(1, sizeof(FxProofCache));
}

void fx_proof_cache_free(FxProofCache *c)
{
    if (!c)
        return;
    fx_vec_foreach(CacheEntry, e, &c->entries)
    {
        free(e->counterexample);
        free(e->smtlib);
        free(e->reason);
        free_strings(e->witness, e->n_witness);
    }
    fx_vec_free(&c->entries);
    free(c);
}

static char *dup_or_null(const char *s)
{
    return s ? fx_xstrdup(s) : NULL;
}

static bool cache_find(FxProofCache *c, FxObligation *o)
{
    for (size_t i = 0; c && i < c->entries.len; i++) {
        CacheEntry *e = &c->entries.data[i];
        if (strcmp(e->hash, o->hash) == 0) {
            o->verdict = e->verdict;
            o->counterexample = dup_or_null(e->counterexample);
            o->smtlib = dup_or_null(e->smtlib);
            o->reason = dup_or_null(e->reason);
            o->witness = copy_strings(e->witness, e->n_witness);
            o->n_witness = e->n_witness;
            o->cached = true;
            return true;
        }
    }
    return false;
}

static void cache_add(FxProofCache *c, const FxObligation *o)
{
    if (!c)
        return;
    CacheEntry e;
    memcpy(e.hash, o->hash, sizeof(e.hash));
    e.verdict = o->verdict;
    e.counterexample = dup_or_null(o->counterexample);
    e.smtlib = dup_or_null(o->smtlib);
    e.reason = dup_or_null(o->reason);
    e.witness = copy_strings(o->witness, o->n_witness);
    e.n_witness = o->n_witness;
    fx_vec_push(&c->entries, e);
}

/* FNV-1a over the texts that define an obligation: its kind, the solver,
 * and both graphs as stored. */
static void obligation_hash(const char *kind, const FxGraph *a, const FxGraph *b, char out[17])
{
    FxBuf t = {0};
    fx_buf_printf(&t, "%s\n%s\n", kind, fx_smt_solver_version());
    fx_graph_print_json(a, &t);
    fx_graph_print_json(b, &t);
    /* seeded as stores hold them (a digit short of FNV's basis): another
     * seed would orphan every cached proof */
    uint64_t h = fx_fnv1a(1469598103934665603ULL, t.data, t.len);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
    fx_buf_free(&t);
}

/* ---- obligations ---- */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef FX_VEC(FxSmtTerm) TermVec;

/* Parameters as fresh constants, Natural ones >= 0. false when some
 * parameter is not a number or a boolean. */
static bool fresh_params(Enc *E, const FxGraph *g, FxSmtTerm *out, TermVec *facts)
{
    for (uint32_t i = 0; i < g->n_params; i++) {
        FxSmtSort s;
        if (!sort_of_type(g->param_tids[i], &s))
            return false;
        out[i] = fx_smt_var(E->smt, g->param_names[i], s);
        if (fx_typeid_kind(g->param_tids[i]) == FX_TK_NATURAL)
            fx_vec_push(facts, bin(E, FX_SMT_GE, out[i], fx_smt_int64(E->smt, 0)));
    }
    return true;
}

/* Satisfiable, looking among small arguments first for a readable
 * counterexample. */
static FxSmtResult solve(Enc *E, TermVec *facts, const FxSmtTerm *vars, size_t n)
{
    static const long long boxes[][2] = {{0, 3}, {-8, 8}};
    size_t mark = facts->len;
    for (size_t b = 0; b < 2; b++) {
        for (size_t i = 0; i < n; i++) {
            if (fx_smt_sort_of(E->smt, vars[i]) != FX_SMT_SORT_INT)
                continue;
            fx_vec_push(facts, bin(E, FX_SMT_LE, fx_smt_int64(E->smt, boxes[b][0]), vars[i]));
            fx_vec_push(facts, bin(E, FX_SMT_LE, vars[i], fx_smt_int64(E->smt, boxes[b][1])));
        }
        FxSmtResult r = facts->len > mark ? fx_smt_check(E->smt, facts->len, facts->data)
                                          : FX_SMT_UNSAT;
        facts->len = mark;
        if (r == FX_SMT_SAT)
            return r;
    }
    return fx_smt_check(E->smt, facts->len, facts->data);
}

static char *describe_cex(Enc *E, const FxGraph *g, const FxSmtTerm *params, FxSmtTerm old_v,
                          FxSmtTerm new_v)
{
    FxBuf b = {0};
    for (uint32_t i = 0; i < g->n_params; i++) {
        char *v = fx_smt_model_value(E->smt, params[i]);
        fx_buf_printf(&b, "%s%s = %s", i ? ", " : "", g->param_names[i], v ? v : "?");
        free(v);
    }
    char *a = fx_smt_model_value(E->smt, old_v), *c = fx_smt_model_value(E->smt, new_v);
    fx_buf_printf(&b, ": the current version gives %s, the candidate %s", a ? a : "?",
                  c ? c : "?");
    free(a);
    free(c);
    return fx_buf_take(&b);
}

/* With recursive calls uninterpreted, a model shows a difference only for
 * some made-up values of the calls. These arguments are a real
 * counterexample when no values of the calls at all make the two sides
 * agree there. Tries a few models; on success the last one is the model. */
static bool definite_difference(Enc *E, const FxGraph *g, const FxSmtTerm *params,
                                FxSmtTerm diff, const TermVec *facts)
{
    /* facts ends with diff; search grows with the arguments ruled out */
    TermVec search = {0}, agree = {0};
    for (size_t i = 0; i < facts->len; i++)
        fx_vec_push(&search, facts->data[i]);
    bool found = false;
    for (int attempt = 0; attempt < 8 && !found; attempt++) {
        FxSmtTerm pin = fx_smt_bool(E->smt, true);
        bool readable = true;
        for (uint32_t i = 0; i < g->n_params && readable; i++) {
            char *v = fx_smt_model_value(E->smt, params[i]);
            readable = v != NULL;
            if (!v)
                break;
            FxSmtTerm c = fx_smt_sort_of(E->smt, params[i]) == FX_SMT_SORT_BOOL
                                  ? fx_smt_bool(E->smt, !strcmp(v, "true"))
                                  : fx_smt_int(E->smt, v);
            pin = bin(E, FX_SMT_AND, pin, bin(E, FX_SMT_EQ, params[i], c));
            free(v);
        }
        if (!readable)
            break;
        agree.len = 0;
        for (size_t i = 0; i + 1 < facts->len; i++)
            fx_vec_push(&agree, facts->data[i]);
        fx_vec_push(&agree, pin);
        fx_vec_push(&agree, fx_smt_not(E->smt, diff));
        if (fx_smt_check(E->smt, agree.len, agree.data) == FX_SMT_UNSAT) {
            fx_vec_push(&search, pin); /* back to a model of these arguments */
            found = fx_smt_check(E->smt, search.len, search.data) == FX_SMT_SAT;
            break;
        }
        fx_vec_push(&search, fx_smt_not(E->smt, pin));
        if (fx_smt_check(E->smt, search.len, search.data) != FX_SMT_SAT)
            break;
    }
    fx_vec_free(&search);
    fx_vec_free(&agree);
    return found;
}

/* "n = 0: the current version fails, the candidate gives a value", from
 * the model, when a is the current version's definedness. */
static char *describe_failure(Enc *E, const FxGraph *g, const FxSmtTerm *params, FxSmtTerm a)
{
    FxBuf w = {0};
    for (uint32_t i = 0; i < g->n_params; i++) {
        char *v = fx_smt_model_value(E->smt, params[i]);
        fx_buf_printf(&w, "%s%s = %s", i ? ", " : "", g->param_names[i], v ? v : "?");
        free(v);
    }
    char *ok = fx_smt_model_value(E->smt, a);
    bool cur_ok = ok && !strcmp(ok, "true");
    free(ok);
    fx_buf_printf(&w, ": the current version %s, the candidate %s",
                  cur_ok ? "gives a value" : "fails", cur_ok ? "fails" : "gives a value");
    return fx_buf_take(&w);
}

/* The model's arguments, in the parameters' order, as o's witness: what
 * the caller runs both versions on before showing the counterexample.
 * false when the model leaves one without a literal value. */
static bool keep_witness(Enc *E, const FxGraph *g, const FxSmtTerm *params, FxObligation *o)
{
    o->witness = fx_xcalloc(g->n_params + 1, sizeof(char *));
    for (uint32_t i = 0; i < g->n_params; i++) {
        o->witness[i] = fx_smt_model_value(E->smt, params[i]);
        if (!o->witness[i])
            return false;
        o->n_witness = i + 1;
    }
    return true;
}

/* Validity (failures false): the two graphs give the same value for every
 * argument where both give one (both failing is agreement; one failing
 * alone is definedness's to find); or definedness (failures true): they
 * fail at the same arguments. Together: the candidate is defined exactly
 * where the current version is, and equal to it there. Both with the
 * recursion uninterpreted (the same function, and the same ok_ predicate,
 * in both graphs). */
static void differ(FxSmt *smt, const FxGraph *cur, const FxGraph *cand, FxGraphLookup lookup,
                   void *ctx, bool failures, FxObligation *o)
{
    Enc E = {smt, lookup, ctx, cur->intent, cur, 0, false, NULL};
    TermVec facts = {0};
    FxSmtTerm params[64];
    if (cur->n_params > 64 || !fresh_params(&E, cur, params, &facts)) {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xstrdup("the parameters are not numbers or booleans");
        fx_vec_free(&facts);
        return;
    }
    FxSmtTerm ok_a = defined_graph(&E, cur, params), ok_b = defined_graph(&E, cand, params);
    FxSmtTerm a = failures ? ok_a : encode_graph(&E, cur, params);
    FxSmtTerm b = failures ? ok_b : encode_graph(&E, cand, params);
    FxSmtTerm diff = bin(&E, FX_SMT_NE, a, b);
    if (!failures)
        diff = all(&E, all(&E, ok_a, ok_b), diff);
    if (E.laws.all.v) /* before diff, which definite_difference reads last */
        fx_vec_push(&facts, E.laws.all);
    fx_vec_push(&facts, diff);
    if (E.why_not) {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xasprintf("not decidable here: %s", E.why_not);
    } else {
        FxSmtResult r = solve(&E, &facts, params, cur->n_params);
        o->smtlib = fx_smt_last_query(smt);
        bool refuted = r == FX_SMT_SAT &&
                       (!E.uses_uf || definite_difference(&E, cur, params, diff, &facts));
        if (r == FX_SMT_UNSAT) {
            o->verdict = FX_PROOF_PROVED;
        } else if (refuted && keep_witness(&E, cur, params, o)) {
            o->verdict = FX_PROOF_REFUTED;
            o->counterexample = failures ? describe_failure(&E, cur, params, a)
                                         : describe_cex(&E, cur, params, a, b);
        } else {
            o->verdict = FX_PROOF_UNKNOWN;
            fx_obligation_drop_witness(o);
            o->reason = fx_xstrdup(refuted ? "the solver's model has no value for an argument"
                                   : r != FX_SMT_SAT ? (fx_smt_reason(smt)[0] ? fx_smt_reason(smt)
                                                                             : "the solver gave up")
                                   : failures ? "the two fail at different arguments unless the "
                                                "recursive calls make up for it"
                                              : "the bodies differ unless the recursive calls "
                                                "make up for it: not proved, not refuted");
        }
    }
    fx_vec_free(&facts);
}

/* The recursive calls of g with the conditions on the way to each. */
typedef struct Site {
    FxNodeId call;
    FxSmtTerm path;
} Site;
typedef FX_VEC(Site) Sites;

static void find_calls(Enc *E, Frame *F, FxNodeId id, FxSmtTerm path, Sites *out, int depth)
{
    const FxNode *n = fx_graph_node(F->g, id);
    if (depth > 200)
        return;
    if (n->op == FX_NODE_IF) {
        FxSmtTerm c = enc(E, F, n->inputs[0]);
        find_calls(E, F, n->inputs[0], path, out, depth + 1);
        find_calls(E, F, n->inputs[1], bin(E, FX_SMT_AND, path, c), out, depth + 1);
        find_calls(E, F, n->inputs[2], bin(E, FX_SMT_AND, path, fx_smt_not(E->smt, c)), out,
                   depth + 1);
        return;
    }
    if (n->op == FX_NODE_CALL && !strcmp(n->text, F->g->intent)) {
        Site s = {id, path};
        fx_vec_push(out, s);
    }
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (n->inputs[k].v)
            find_calls(E, F, n->inputs[k], path, out, depth + 1);
}

/* The measure of a call's arguments: the sum of the absolute values of the
 * parameters in `mask` (a Natural is its own absolute value). */
static FxSmtTerm measure(Enc *E, const FxGraph *g, const FxSmtTerm *args, uint64_t mask)
{
    FxSmtTerm zero = fx_smt_int64(E->smt, 0), sum = zero;
    for (uint32_t p = 0; p < g->n_params; p++) {
        if (!(mask >> p & 1))
            continue;
        FxSmtTerm x = args[p];
        if (fx_typeid_kind(g->param_tids[p]) != FX_TK_NATURAL)
            x = fx_smt_ite(E->smt, bin(E, FX_SMT_LT, x, zero), fx_smt_neg(E->smt, x), x);
        sum = bin(E, FX_SMT_ADD, sum, x);
    }
    return sum;
}

/* Does every recursive call decrease the measure of `mask` towards 0? */
static bool decreases(Enc *E, Frame *F, const Sites *sites, uint64_t mask, TermVec *facts)
{
    FxSmtTerm zero = fx_smt_int64(E->smt, 0), now = measure(E, F->g, F->params, mask);
    for (size_t i = 0; i < sites->len; i++) {
        const FxNode *call = fx_graph_node(F->g, sites->data[i].call);
        FxSmtTerm args[64];
        for (uint32_t p = 0; p < F->g->n_params; p++)
            args[p] = (mask >> p & 1) ? enc(E, F, call->inputs[p]) : zero;
        FxSmtTerm next = measure(E, F->g, args, mask);
        FxSmtTerm ok = bin(E, FX_SMT_AND, bin(E, FX_SMT_GE, next, zero),
                           bin(E, FX_SMT_LT, next, now));
        size_t mark = facts->len;
        fx_vec_push(facts, sites->data[i].path);
        fx_vec_push(facts, fx_smt_not(E->smt, ok));
        FxSmtResult r = fx_smt_check(E->smt, facts->len, facts->data);
        facts->len = mark;
        if (r != FX_SMT_UNSAT)
            return false;
    }
    return true;
}

static void termination(FxSmt *smt, const FxGraph *cand, FxGraphLookup lookup, void *ctx,
                        FxObligation *o)
{
    if (!fx_graph_calls_itself(cand)) {
        o->verdict = FX_PROOF_PROVED;
        return;
    }
    Enc E = {smt, lookup, ctx, cand->intent, cand, 0, false, NULL};
    TermVec facts = {0};
    FxSmtTerm params[64];
    Sites sites = {0};
    o->verdict = FX_PROOF_UNKNOWN;
    if (cand->n_params <= 64 && fresh_params(&E, cand, params, &facts)) {
        Frame F = {cand, params, fx_xcalloc(cand->n_slots + 1, sizeof(FxSmtTerm))};
        find_calls(&E, &F, cand->root, fx_smt_bool(smt, true), &sites, 0);
        /* one parameter at a time, then the sum of all the integer ones */
        uint64_t ints = 0;
        for (uint32_t p = 0; p < cand->n_params; p++) {
            FxSmtSort s;
            if (sort_of_type(cand->param_tids[p], &s) && s == FX_SMT_SORT_INT)
                ints |= 1ULL << p;
        }
        for (uint32_t p = 0; p <= cand->n_params && o->verdict != FX_PROOF_PROVED; p++) {
            uint64_t mask = p < cand->n_params ? ints & 1ULL << p : ints;
            if (!mask || (p == cand->n_params && !(ints & (ints - 1))))
                continue; /* not an integer; or the sum is the single one tried */
            if (decreases(&E, &F, &sites, mask, &facts) && !E.why_not) {
                o->verdict = FX_PROOF_PROVED;
                free(o->what);
                o->what = p < cand->n_params
                        ? fx_xasprintf("every recursive call of the candidate decreases `%s` "
                                       "towards its bound", cand->param_names[p])
                        : fx_xstrdup("every recursive call of the candidate decreases the sum "
                                     "of its integer parameters' sizes towards 0");
            }
        }
        free(F.slots);
    }
    if (o->verdict != FX_PROOF_PROVED)
        o->reason = fx_xasprintf("no parameter was shown to decrease at every recursive call%s%s",
                                 E.why_not ? ": " : "", E.why_not ? E.why_not : "");
    fx_vec_free(&sites);
    fx_vec_free(&facts);
}

/* ---- the proof ---- */

const char *fx_proof_verdict_name(FxProofVerdict v)
{
    switch (v) {
    case FX_PROOF_PROVED: return "proved";
    case FX_PROOF_REFUTED: return "refuted";
    default: return "unknown";
    }
}

typedef void (*Discharge)(FxSmt *, const FxGraph *, const FxGraph *, FxGraphLookup, void *,
                          FxObligation *);

static void run_validity(FxSmt *s, const FxGraph *a, const FxGraph *b, FxGraphLookup l, void *c,
                         FxObligation *o)
{
    differ(s, a, b, l, c, false, o);
}

static void run_definedness(FxSmt *s, const FxGraph *a, const FxGraph *b, FxGraphLookup l,
                            void *c, FxObligation *o)
{
    differ(s, a, b, l, c, true, o);
}

static void run_termination(FxSmt *s, const FxGraph *a, const FxGraph *b, FxGraphLookup l,
                            void *c, FxObligation *o)
{
    (void)a;
    termination(s, b, l, c, o);
}

/* ---- the hard limit: each obligation in a thread of its own ---- */

/* Z3 honours its interrupt nearly always (smt.c's watchdog sends it at the
 * timeout and again every few ms after); a hard limit must not depend on
 * it. So the obligation is discharged in a thread of its own that works
 * on copies of everything it reads (the two graphs and every graph the
 * lookup gives them): the caller waits at most twice the timeout plus a
 * second, then leaves the thread to end on its own, which frees its copies,
 * and the verdict is unknown. No process is forked: forking a process
 * that runs threads (the pool's, a host's) or holds SQLite is unsafe. */

typedef struct Named {
    char *name;
    FxGraph *g; /* NULL: the lookup knows no such intent */
} Named;

typedef struct Job {
    pthread_mutex_t lock;
    pthread_cond_t finished;
    bool done, abandoned;
    Discharge fn;
    unsigned timeout_ms;
    FxGraph *cur, *cand;
    FX_VEC(Named) callees;
    FxObligation o; /* the thread's findings */
} Job;

static const FxGraph *job_lookup(void *ctx, const char *intent)
{
    Job *j = ctx;
    fx_vec_foreach(Named, n, &j->callees) if (!strcmp(n->name, intent)) return n->g;
    return NULL;
}

static FxGraph *copy_of(const FxGraph *g)
{
    return fx_graph_copy_as(g, g->intent, g->version);
}

/* Copies every graph g's nodes may name, through lookup, and theirs. */
static void copy_callees(Job *j, const FxGraph *g, FxGraphLookup lookup, void *ctx)
{
    for (uint32_t i = 0; lookup && i < g->n_nodes; i++) {
        const char *name = g->nodes[i].text;
        bool known = !name;
        fx_vec_foreach(Named, n, &j->callees) known = known || !strcmp(n->name, name);
        if (known)
            continue;
        const FxGraph *callee = lookup(ctx, name);
        Named n = {fx_xstrdup(name), callee ? copy_of(callee) : NULL};
        fx_vec_push(&j->callees, n);
        if (n.g)
            copy_callees(j, n.g, lookup, ctx);
    }
}

static void job_free(Job *j)
{
    fx_graph_free(j->cur);
    fx_graph_free(j->cand);
    fx_vec_foreach(Named, n, &j->callees)
    {
        free(n->name);
        fx_graph_free(n->g);
    }
    fx_vec_free(&j->callees);
    free(j->o.kind);
    free(j->o.what);
    free(j->o.smtlib);
    free(j->o.counterexample);
    free(j->o.reason);
    fx_obligation_drop_witness(&j->o);
    pthread_cond_destroy(&j->finished);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

static void *discharge_thread(void *arg)
{
    Job *j = arg;
    if (getenv("FLUX_TEST_SOLVER_HANGS")) /* for the test of this very limit */
        for (;;)
            pause();
    FxSmt *smt = fx_smt_new(j->timeout_ms, 0);
    j->fn(smt, j->cur, j->cand, job_lookup, j, &j->o);
    fx_smt_free(smt);
    pthread_mutex_lock(&j->lock);
    j->done = true;
    bool abandoned = j->abandoned;
    pthread_cond_signal(&j->finished);
    pthread_mutex_unlock(&j->lock);
    if (abandoned) /* the caller has gone: the job is this thread's to free */
        job_free(j);
    return NULL;
}

static void deadline_in(struct timespec *t, double ms)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    long long ns = t->tv_nsec + (long long)(ms * 1e6);
    t->tv_sec += (time_t)(ns / 1000000000LL);
    t->tv_nsec = (long)(ns % 1000000000LL);
}

static void discharge_isolated(Discharge fn, const FxGraph *cur, const FxGraph *cand,
                               FxGraphLookup lookup, void *ctx, unsigned timeout_ms,
                               FxObligation *o)
{
    Job *j = fx_xcalloc(1, sizeof(*j));
    pthread_mutex_init(&j->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&j->finished, &attr);
    pthread_condattr_destroy(&attr);
    j->fn = fn;
    j->timeout_ms = timeout_ms;
    j->cur = copy_of(cur);
    j->cand = copy_of(cand);
    copy_callees(j, cur, lookup, ctx);
    copy_callees(j, cand, lookup, ctx);
    j->o.kind = fx_xstrdup(o->kind);
    j->o.what = fx_xstrdup(o->what);
    memcpy(j->o.hash, o->hash, sizeof(j->o.hash));
    double limit = 2.0 * timeout_ms + 1000.0;
    struct timespec deadline;
    deadline_in(&deadline, limit);
    pthread_t thread;
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    bool started = pthread_create(&thread, &ta, discharge_thread, j) == 0;
    pthread_attr_destroy(&ta);
    if (!started) {
        job_free(j);
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xstrdup("could not start the solver's thread");
        return;
    }
    pthread_mutex_lock(&j->lock);
    while (!j->done && pthread_cond_timedwait(&j->finished, &j->lock, &deadline) != ETIMEDOUT)
        ;
    bool done = j->done;
    j->abandoned = !done;
    pthread_mutex_unlock(&j->lock);
    if (!done) {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xasprintf("the solver ran past its hard limit of %.0f ms and its "
                                 "answer was not awaited", limit);
        return;
    }
    o->verdict = j->o.verdict;
    o->smtlib = j->o.smtlib;
    o->counterexample = j->o.counterexample;
    o->reason = j->o.reason;
    o->witness = j->o.witness;
    o->n_witness = j->o.n_witness;
    free(o->what);
    o->what = j->o.what;
    j->o.smtlib = j->o.counterexample = j->o.reason = j->o.what = NULL;
    j->o.witness = NULL;
    j->o.n_witness = 0;
    job_free(j);
}

static void obligation(FxProof *p, const char *kind, const char *what, Discharge fn,
                       const FxGraph *cur, const FxGraph *cand, FxGraphLookup lookup, void *ctx,
                       FxProofCache *cache, unsigned timeout_ms)
{
    FxObligation o = {0};
    o.kind = fx_xstrdup(kind);
    o.what = fx_xstrdup(what);
    obligation_hash(kind, cur, cand, o.hash);
    double start = now_ms();
    if (!cache_find(cache, &o)) {
        discharge_isolated(fn, cur, cand, lookup, ctx, timeout_ms, &o);
        if (o.verdict != FX_PROOF_UNKNOWN || !o.reason || !strstr(o.reason, "hard limit"))
            cache_add(cache, &o);
    }
    o.ms = now_ms() - start;
    fx_vec_push(&p->obligations, o);
}

FxProof *fx_prove_same_function(const FxGraph *cur, const FxGraph *cand, FxGraphLookup lookup,
                                void *ctx, FxProofCache *cache, unsigned timeout_ms)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    if (strcmp(cur->intent, cand->intent) != 0 || cur->n_params != cand->n_params ||
        strcmp(cur->ret_type, cand->ret_type) != 0) {
        FxObligation o = {0};
        o.kind = fx_xstrdup("signature");
        o.what = fx_xstrdup("the candidate has the intent's name, parameters and result type");
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xasprintf("the candidate is %s(%u parameters) -> %s, the intent "
                                        "%s(%u parameters) -> %s", cand->intent, cand->n_params,
                                        cand->ret_type, cur->intent, cur->n_params, cur->ret_type);
        fx_vec_push(&p->obligations, o);
        p->verdict = FX_PROOF_REFUTED;
        return p;
    }
    bool same_params = true;
    for (uint32_t i = 0; i < cur->n_params; i++)
        same_params &= !strcmp(cur->param_types[i], cand->param_types[i]);
    if (same_params && fx_graph_same_shape(cur, cur->root, cand, cand->root)) {
        /* a kernel or a table around the very same nodes: nothing to solve */
        FxObligation o = {0};
        o.kind = fx_xstrdup("identity");
        o.what = fx_xstrdup("the candidate's nodes are the current version's, node for node; "
                            "only what wraps them differs");
        o.verdict = FX_PROOF_PROVED;
        fx_vec_push(&p->obligations, o);
        return p;
    }
    FxBuf laws = {0}, why = {0};
    bool unfolded = same_params && fx_unfold_same(cur, cand, lookup, ctx, &laws, &why);
    fx_buf_free(&why);
    if (unfolded) { /* moved, not changed: floats and lists as they are */
        FxObligation o = {0};
        o.kind = fx_xstrdup("unfolding");
        o.what = fx_xasprintf("once unfolded, the candidate's nodes are the current version's, "
                              "node for node, bound variables renamed: %s", fx_buf_str(&laws));
        o.verdict = FX_PROOF_PROVED;
        fx_vec_push(&p->obligations, o);
        fx_buf_free(&laws);
        return p;
    }
    fx_buf_free(&laws);
    obligation(p, "validity", "for every argument, the candidate's value is the current "
               "version's, whatever the recursive calls return", run_validity, cur, cand,
               lookup, ctx, cache, timeout_ms);
    obligation(p, "definedness", "the candidate fails (no equation covers the call, a "
               "postcondition does not hold, a division by zero) exactly where the current "
               "version fails", run_definedness, cur, cand, lookup, ctx, cache, timeout_ms);
    obligation(p, "termination", "the candidate's recursion ends", run_termination, cur, cand,
               lookup, ctx, cache, timeout_ms);
    fx_proof_tally(p);
    return p;
}

void fx_proof_tally(FxProof *p)
{
    p->verdict = FX_PROOF_PROVED;
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        if (o->verdict == FX_PROOF_REFUTED)
            p->verdict = FX_PROOF_REFUTED;
        else if (o->verdict == FX_PROOF_UNKNOWN && p->verdict == FX_PROOF_PROVED)
            p->verdict = FX_PROOF_UNKNOWN;
    }
}

void fx_proof_free(FxProof *p)
{
    if (!p)
        return;
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        free(o->kind);
        free(o->what);
        free(o->smtlib);
        free(o->counterexample);
        free(o->reason);
        fx_obligation_drop_witness(o);
    }
    fx_vec_free(&p->obligations);
    free(p);
}

/* ---- effect facts ---- */

/* (a op b) op c = a op (b op c) and a op b = b op a, for the fold's
 * operator over its integer or boolean type. */
static void fold_laws(FxSmt *smt, FxFoldKind kind, bool boolean, FxObligation *o)
{
    Enc E = {smt, NULL, NULL, "", NULL, 0, false, NULL};
    FxSmtSort s = boolean ? FX_SMT_SORT_BOOL : FX_SMT_SORT_INT;
    FxSmtTerm a = fx_smt_var(smt, "a", s), b = fx_smt_var(smt, "b", s), c = fx_smt_var(smt, "c", s);
    FxSmtTerm ab, bc, l, r, ba;
#define OP(x, y)                                                                                   \
    (kind == FX_FOLD_SUM || kind == FX_FOLD_COUNT ? bin(&E, FX_SMT_ADD, x, y)                      \
     : kind == FX_FOLD_PRODUCT                    ? bin(&E, FX_SMT_MUL, x, y)                      \
     : kind == FX_FOLD_ALL                        ? bin(&E, FX_SMT_AND, x, y)                      \
     : kind == FX_FOLD_ANY                        ? bin(&E, FX_SMT_OR, x, y)                       \
     : fx_smt_ite(smt, bin(&E, kind == FX_FOLD_MIN || kind == FX_FOLD_MIN_PART ? FX_SMT_LE        \
                                                                           : FX_SMT_GE,         \
                           x, y),                                                               \
                  x, y))
    ab = OP(a, b);
    bc = OP(b, c);
    l = OP(ab, c);
    r = OP(a, bc);
    ba = OP(b, a);
#undef OP
    FxSmtTerm broken = bin(&E, FX_SMT_OR, bin(&E, FX_SMT_NE, l, r), bin(&E, FX_SMT_NE, ab, ba));
    FxSmtResult res = fx_smt_check(smt, 1, &broken);
    o->smtlib = fx_smt_last_query(smt);
    if (res == FX_SMT_UNSAT) {
        o->verdict = FX_PROOF_PROVED;
    } else if (res == FX_SMT_SAT) {
        char *va = fx_smt_model_value(smt, a), *vb = fx_smt_model_value(smt, b);
        char *vc = fx_smt_model_value(smt, c);
        o->verdict = FX_PROOF_REFUTED;
        o->counterexample = fx_xasprintf("a = %s, b = %s, c = %s", va, vb, vc);
        free(va);
        free(vb);
        free(vc);
    } else {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xstrdup(fx_smt_reason(smt));
    }
}

/* Floating point: a concrete triple where the grouping changes the sum (or
 * the product); evaluated here, in IEEE-754 doubles, not assumed. */
static void float_laws(FxFoldKind kind, FxObligation *o)
{
    if (kind == FX_FOLD_MIN || kind == FX_FOLD_MAX || kind == FX_FOLD_MIN_PART ||
        kind == FX_FOLD_MAX_PART || kind == FX_FOLD_COUNT) {
        o->verdict = FX_PROOF_PROVED; /* min and max of doubles group freely */
        return;
    }
    volatile double a = kind == FX_FOLD_PRODUCT ? 1e308 : 0.1;
    volatile double b = kind == FX_FOLD_PRODUCT ? 10.0 : 0.2;
    volatile double c = kind == FX_FOLD_PRODUCT ? 0.1 : 0.3;
    double l = kind == FX_FOLD_PRODUCT ? (a * b) * c : (a + b) + c;
    double r = kind == FX_FOLD_PRODUCT ? a * (b * c) : a + (b + c);
    o->verdict = l == r ? FX_PROOF_UNKNOWN : FX_PROOF_REFUTED;
    o->counterexample = fx_xasprintf("a = %.17g, b = %.17g, c = %.17g: (a %s b) %s c = %.17g "
                                     "but a %s (b %s c) = %.17g", a, b, c,
                                     kind == FX_FOLD_PRODUCT ? "*" : "+",
                                     kind == FX_FOLD_PRODUCT ? "*" : "+", l,
                                     kind == FX_FOLD_PRODUCT ? "*" : "+",
                                     kind == FX_FOLD_PRODUCT ? "*" : "+", r);
    if (l == r)
        o->reason = fx_xstrdup("floating point: not shown to group freely");
}

FxProof *fx_prove_fold_reassociation(const FxGraph *g, FxNodeId fold, FxProofCache *cache,
                                     unsigned timeout_ms)
{
    (void)cache;
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    const FxNode *n = fx_graph_node(g, fold);
    FxObligation o = {0};
    o.kind = fx_xstrdup("effect");
    if (n->op != FX_NODE_FOLD) {
        o.what = fx_xstrdup("the node is a fold");
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xasprintf("node %u is a %s", fold.v, fx_graph_op_name(n->op));
    } else {
        FxFoldKind kind = (FxFoldKind)n->num;
        o.what = fx_xasprintf("`%s` over %s is associative and commutative, so chunks may be "
                              "combined in any grouping", fx_graph_fold_name(kind), n->type);
        double start = now_ms();
        if (kind == FX_FOLD_COLLECT || kind == FX_FOLD_CONCAT) {
            o.verdict = FX_PROOF_PROVED; /* concatenation in chunk order */
        } else if (fx_typeid_has_float(n->tid)) {
            float_laws(kind, &o);
        } else {
            FxSmt *smt = fx_smt_new(timeout_ms, 0);
            fold_laws(smt, kind, fx_typeid_kind(n->tid) == FX_TK_BOOL, &o);
            fx_smt_free(smt);
        }
        o.ms = now_ms() - start;
    }
    p->verdict = o.verdict;
    fx_vec_push(&p->obligations, o);
    return p;
}

/* ---- lemma instance: linear recurrences ---- */

static FxObligation new_obligation(const char *kind, char *what)
{
    FxObligation o = {0};
    o.kind = fx_xstrdup(kind);
    o.what = what;
    return o;
}

/* g's value at n = i (a constant), its own calls uninterpreted, must be
 * initial[i] whatever the calls return. */
static void base_case(FxSmt *smt, const FxGraph *g, FxGraphLookup lookup, void *ctx, uint32_t i,
                      const char *want, FxObligation *o)
{
    Enc E = {smt, lookup, ctx, g->intent, g, 0, false, NULL};
    FxSmtTerm n = fx_smt_int64(smt, i);
    FxSmtTerm v = encode_graph(&E, g, &n), ok = defined_graph(&E, g, &n);
    /* the value is not the certificate's, or the equations fail there */
    FxSmtTerm differs = bin(&E, FX_SMT_OR, bin(&E, FX_SMT_NE, v, fx_smt_int(smt, want)),
                            fx_smt_not(smt, ok));
    if (E.why_not) {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xasprintf("not decidable here: %s", E.why_not);
        return;
    }
    FxSmtResult r = fx_smt_check(smt, 1, &differs);
    o->smtlib = fx_smt_last_query(smt);
    if (r == FX_SMT_UNSAT) {
        o->verdict = FX_PROOF_PROVED;
    } else if (r == FX_SMT_SAT) {
        char *got = fx_smt_model_value(smt, v), *fine = fx_smt_model_value(smt, ok);
        o->verdict = FX_PROOF_REFUTED;
        o->counterexample = fine && !strcmp(fine, "false")
                                    ? fx_xasprintf("%s(%u) fails", g->intent, i)
                                    : fx_xasprintf("%s(%u) = %s, not %s", g->intent, i,
                                                   got ? got : "?", want);
        free(got);
        free(fine);
    } else {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xstrdup(fx_smt_reason(smt));
    }
}

/* For every n >= k: g's body equals the sum of c_j f(n - j), with f the
 * same uninterpreted function as g's own calls. */
static void recurrence(FxSmt *smt, const FxGraph *g, const FxLinRec *cert, FxGraphLookup lookup,
                       void *ctx, FxObligation *o)
{
    Enc E = {smt, lookup, ctx, g->intent, g, 0, false, NULL};
    FxSmtTerm n = fx_smt_var(smt, g->param_names[0], FX_SMT_SORT_INT);
    FxSmtTerm body = encode_graph(&E, g, &n), sum = fx_smt_int64(smt, 0);
    FxSmtTerm ok = defined_graph(&E, g, &n);
    FxSmtTerm prev[64];
    FxSmtSort is[1] = {FX_SMT_SORT_INT};
    TermVec facts = {0};
    char *ok_name = fx_xasprintf("ok_%s", g->intent);
    for (uint32_t j = 1; j <= cert->order; j++) {
        FxSmtTerm arg = bin(&E, FX_SMT_SUB, n, fx_smt_int64(smt, j));
        prev[j - 1] = fx_smt_apply(smt, g->intent, FX_SMT_SORT_INT, 1, &arg, is);
        sum = bin(&E, FX_SMT_ADD, sum,
                  bin(&E, FX_SMT_MUL, fx_smt_int64(smt, cert->coeffs[j - 1]), prev[j - 1]));
        /* the earlier terms are values: the induction hypothesis */
        fx_vec_push(&facts, fx_smt_apply(smt, ok_name, FX_SMT_SORT_BOOL, 1, &arg, is));
    }
    free(ok_name);
    fx_vec_push(&facts, bin(&E, FX_SMT_GE, n, fx_smt_int64(smt, cert->order)));
    /* the equations give another value, or fail */
    fx_vec_push(&facts, bin(&E, FX_SMT_OR, bin(&E, FX_SMT_NE, body, sum), fx_smt_not(smt, ok)));
    /* a Natural function's earlier values are not negative (for a
     * counterexample a reader can believe) */
    for (uint32_t j = 0; fx_typeid_kind(g->ret_tid) == FX_TK_NATURAL && j < cert->order; j++)
        fx_vec_push(&facts, bin(&E, FX_SMT_GE, prev[j], fx_smt_int64(smt, 0)));
    if (E.why_not) {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xasprintf("not decidable here: %s", E.why_not);
        fx_vec_free(&facts);
        return;
    }
    FxSmtResult r = fx_smt_check(smt, facts.len, facts.data);
    fx_vec_free(&facts);
    o->smtlib = fx_smt_last_query(smt);
    if (r == FX_SMT_UNSAT) {
        o->verdict = FX_PROOF_PROVED;
        return;
    }
    if (r != FX_SMT_SAT) {
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_xstrdup(fx_smt_reason(smt));
        return;
    }
    /* the equation's value differs from the certificate's sum for some
     * values of the previous terms: name them */
    FxBuf b = {0};
    char *vn = fx_smt_model_value(smt, n), *vb = fx_smt_model_value(smt, body);
    char *vs = fx_smt_model_value(smt, sum);
    fx_buf_printf(&b, "at %s = %s, when", g->param_names[0], vn ? vn : "?");
    for (uint32_t j = 1; j <= cert->order && j <= 64; j++) {
        char *v = fx_smt_model_value(smt, prev[j - 1]);
        fx_buf_printf(&b, "%s %s(%s - %u) = %s", j > 1 ? "," : "", g->intent, g->param_names[0],
                      j, v ? v : "?");
        free(v);
    }
    char *fine = fx_smt_model_value(smt, ok);
    if (fine && !strcmp(fine, "false")) {
        /* made-up earlier values may be what makes it fail: not a refutation */
        fx_buf_puts(&b, ", the equations would fail (a postcondition, or no equation covers "
                        "it): not shown to be defined for every n");
        o->verdict = FX_PROOF_UNKNOWN;
        o->reason = fx_buf_take(&b);
    } else {
        fx_buf_printf(&b, ", the equations give %s but the certificate's recurrence %s",
                      vb ? vb : "?", vs ? vs : "?");
        o->verdict = FX_PROOF_REFUTED;
        o->counterexample = fx_buf_take(&b);
    }
    free(fine);
    free(vn);
    free(vb);
    free(vs);
}

FxProof *fx_prove_linear_recurrence(const FxGraph *g, const FxLinRec *cert, FxGraphLookup lookup,
                                    void *ctx, unsigned timeout_ms)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    if (g->n_params != 1 || fx_typeid_kind(g->param_tids[0]) != FX_TK_NATURAL || cert->order == 0 ||
        cert->order > 64) {
        FxObligation o = new_obligation("lemma", fx_xstrdup("the intent is a function of one "
                                                            "Natural, of order 1 to 64"));
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xasprintf("%s takes %u parameters%s", g->intent, g->n_params,
                                        g->n_params == 1 ? ", not a Natural" : "");
        fx_vec_push(&p->obligations, o);
        p->verdict = FX_PROOF_REFUTED;
        return p;
    }
    for (uint32_t i = 0; i < cert->order; i++) {
        FxObligation o = new_obligation("base", fx_xasprintf("%s(%u) = %s", g->intent, i,
                                                             cert->initial[i]));
        double t = now_ms();
        FxSmt *smt = fx_smt_new(timeout_ms, 0);
        base_case(smt, g, lookup, ctx, i, cert->initial[i], &o);
        fx_smt_free(smt);
        o.ms = now_ms() - t;
        fx_vec_push(&p->obligations, o);
    }
    FxBuf w = {0};
    fx_buf_printf(&w, "for %s >= %u, %s(%s) =", g->param_names[0], cert->order, g->intent,
                  g->param_names[0]);
    for (uint32_t j = 1; j <= cert->order; j++)
        fx_buf_printf(&w, "%s %lld*%s(%s-%u)", j > 1 ? " +" : "", (long long)cert->coeffs[j - 1],
                      g->intent, g->param_names[0], j);
    FxObligation o = new_obligation("recurrence", fx_buf_take(&w));
    double t = now_ms();
    FxSmt *smt = fx_smt_new(timeout_ms, 0);
    recurrence(smt, g, cert, lookup, ctx, &o);
    fx_smt_free(smt);
    o.ms = now_ms() - t;
    fx_vec_push(&p->obligations, o);
    FxObligation lemma = new_obligation(
            "lemma", fx_xstrdup("LinRec.companion_power (proofs/LinRec.v, checked by make "
                                "proofs): the loop's state after n steps is the companion "
                                "matrix to the power n applied to the initial values"));
    lemma.verdict = FX_PROOF_PROVED;
    fx_vec_push(&p->obligations, lemma);
    if (cert->variants & FX_VARIANT_POWER) {
        FxObligation power = new_obligation(
                "lemma", fx_xstrdup("LinRecPoly.fiduccia_loop_correct, last_bit_loop and, for "
                                    "order 2 with c_2 = +-1, norm_power_correct "
                                    "(proofs/LinRecPoly.v, checked by make proofs): square-and-"
                                    "multiply over the bits of n in the algebra of the companion "
                                    "matrix, as the kernel runs it, gives f(n)"));
        power.verdict = FX_PROOF_PROVED;
        fx_vec_push(&p->obligations, power);
    }
    fx_vec_foreach(FxObligation, ob, &p->obligations)
    {
        if (ob->verdict == FX_PROOF_REFUTED)
            p->verdict = FX_PROOF_REFUTED;
        else if (ob->verdict == FX_PROOF_UNKNOWN && p->verdict == FX_PROOF_PROVED)
            p->verdict = FX_PROOF_UNKNOWN;
    }
    return p;
}

/* ---- lemma instances: the sieve and the sorts ---- */

static void add_result(FxProof *p, FxObligation o)
{
    fx_vec_push(&p->obligations, o);
    if (o.verdict == FX_PROOF_REFUTED)
        p->verdict = FX_PROOF_REFUTED;
    else if (o.verdict == FX_PROOF_UNKNOWN && p->verdict == FX_PROOF_PROVED)
        p->verdict = FX_PROOF_UNKNOWN;
}

/* The node that builds g's value under its checks: postconditions and a
 * final sort wrap the construction. */
static FxNodeId construction(const FxGraph *g)
{
    FxNodeId id = g->root;
    for (;;) {
        const FxNode *n = fx_graph_node(g, id);
        if (n->op == FX_NODE_CHECK || n->op == FX_NODE_SORT)
            id = n->inputs[0];
        else
            return id;
    }
}

/* Is pred a predicate of one parameter whose graph has shape's shape? */
static bool shaped_like(const FxGraph *pred, const FxGraph *shape)
{
    return pred && pred->n_params == 1 &&
           fx_graph_same_shape(pred, pred->root, shape, shape->root);
}

/* The call of a one-parameter predicate on the fold's variable, among the
 * conjuncts of the filter, the leftmost; with shape, the leftmost of those
 * whose predicate has that shape. */
static const FxNode *shaped_call(const FxGraph *g, FxNodeId filter, int64_t slot,
                                 const FxGraph *shape, FxGraphLookup lookup, void *ctx)
{
    const FxNode *n = fx_graph_node(g, filter);
    if (n->op == FX_NODE_AND) {
        const FxNode *l = shaped_call(g, n->inputs[0], slot, shape, lookup, ctx);
        return l ? l : shaped_call(g, n->inputs[1], slot, shape, lookup, ctx);
    }
    if (n->op == FX_NODE_CALL && n->n_inputs == 1) {
        const FxNode *arg = fx_graph_node(g, n->inputs[0]);
        const FxGraph *pred = shape && lookup ? lookup(ctx, n->text) : NULL;
        if (arg->op == FX_NODE_VAR && arg->num == slot && (!shape || shaped_like(pred, shape)))
            return n;
    }
    return NULL;
}

/* The prime-shaped call if there is one, else the first call (which the
 * template then refutes, naming it). */
static const FxNode *kind_call(const FxGraph *g, FxNodeId filter, int64_t slot,
                               const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx)
{
    const FxNode *n = shaped_call(g, filter, slot, prime_shape, lookup, ctx);
    return n ? n : shaped_call(g, filter, slot, NULL, NULL, NULL);
}

static FxObligation sieve_template(const FxGraph *g, const FxGraph *prime_shape,
                                   FxGraphLookup lookup, void *ctx)
{
    FxObligation o = new_obligation("template", fx_xstrdup("the result is the elements of a "
                                    "range that pass the prelude's `prime` (and bounds)"));
    const FxNode *fold = fx_graph_node(g, construction(g));
    const FxNode *dom = fold->op == FX_NODE_FOLD ? fx_graph_node(g, fold->inputs[0]) : NULL;
    const FxNode *call = dom && fold->num == FX_FOLD_COLLECT && dom->op == FX_NODE_RANGE &&
                                         fold->inputs[1].v
                                 ? kind_call(g, fold->inputs[1], fold->num2, prime_shape,
                                             lookup, ctx)
                                 : NULL;
    const FxGraph *pred = call && lookup ? lookup(ctx, call->text) : NULL;
    if (!call) {
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xstrdup("the result is not a fold collecting the elements of a "
                                      "range that a predicate selects");
    } else if (!shaped_like(pred, prime_shape)) {
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xasprintf("the predicate `%s` is not the prelude's prime "
                                        "(p >= 2 and no d in 2..p divides p)", call->text);
    } else {
        o.verdict = FX_PROOF_PROVED;
    }
    return o;
}

/* Every composite x has a factor d with d*d <= x: the crossing rule must
 * reach it. For all 2 <= d with d*d <= x: rule(d, x). */
static FxObligation crossing_rule(const FxSieveCert *cert, unsigned timeout_ms)
{
    FxObligation o = new_obligation("bound", fx_xasprintf("the multiples of every d with d*d "
                                    "%s x are crossed out: every composite x is reached",
                                    cert->strict_bound ? "<" : "<="));
    FxSmt *smt = fx_smt_new(timeout_ms, 0);
    Enc E = {smt, NULL, NULL, "", NULL, 0, false, NULL};
    FxSmtTerm x = fx_smt_var(smt, "x", FX_SMT_SORT_INT), d = fx_smt_var(smt, "d", FX_SMT_SORT_INT);
    FxSmtTerm dd = bin(&E, FX_SMT_MUL, d, d);
    FxSmtTerm rule = bin(&E, cert->strict_bound ? FX_SMT_LT : FX_SMT_LE, dd, x);
    FxSmtTerm facts[4] = {bin(&E, FX_SMT_LE, fx_smt_int64(smt, 2), d),
                          bin(&E, FX_SMT_LE, dd, x),
                          bin(&E, FX_SMT_EQ, bin(&E, FX_SMT_MOD, x, d), fx_smt_int64(smt, 0)),
                          fx_smt_not(smt, rule)};
    FxSmtResult r = fx_smt_check(smt, 4, facts);
    o.smtlib = fx_smt_last_query(smt);
    if (r == FX_SMT_UNSAT) {
        o.verdict = FX_PROOF_PROVED;
    } else if (r == FX_SMT_SAT) {
        char *vx = fx_smt_model_value(smt, x), *vd = fx_smt_model_value(smt, d);
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xasprintf("x = %s is composite (d = %s divides it) but its "
                                        "factor d is never used to cross out: %s*%s < %s is "
                                        "false", vx, vd, vd, vd, vx);
        free(vx);
        free(vd);
    } else {
        o.verdict = FX_PROOF_UNKNOWN;
        o.reason = fx_xstrdup(fx_smt_reason(smt));
    }
    fx_smt_free(smt);
    return o;
}

FxProof *fx_prove_sieve_instance(const FxGraph *g, const FxGraph *prime_shape,
                                 const FxSieveCert *cert, FxGraphLookup lookup, void *ctx,
                                 unsigned timeout_ms)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    add_result(p, sieve_template(g, prime_shape, lookup, ctx));
    add_result(p, crossing_rule(cert, timeout_ms));
    FxObligation lemma = new_obligation("lemma", fx_xstrdup(
            "Sieve.sieve_correct, composite_has_small_factor and crossing_starts_at_square "
            "(proofs/Sieve.v): the sieve keeps exactly the primes of the range"));
    lemma.verdict = FX_PROOF_PROVED;
    add_result(p, lemma);
    return p;
}

/* Is node i of a the same as node i of b: op, type, text, attributes,
 * kernel and input ids? */
static bool same_node(const FxNode *x, const FxNode *y)
{
    if (x->op != y->op || !fx_graph_same_type(x, y) || x->num != y->num || x->num2 != y->num2 ||
        x->kernel != y->kernel ||
        x->n_inputs != y->n_inputs || (!x->text != !y->text) ||
        (x->text && strcmp(x->text, y->text)))
        return false;
    for (uint32_t k = 0; k < x->n_inputs; k++)
        if (x->inputs[k].v != y->inputs[k].v)
            return false;
    return true;
}

/* Does cond hold, without failing, for every element p of the fold's
 * range, whatever the parameters? */
static bool range_implies(const FxGraph *g, const FxNode *fold, FxNodeId cond,
                          FxGraphLookup lookup, void *ctx, unsigned timeout_ms)
{
    const FxNode *dom = fx_graph_node(g, fold->inputs[0]);
    FxSmt *smt = fx_smt_new(timeout_ms, 0);
    Enc E = {smt, lookup, ctx, g->intent, g, 0, false, NULL};
    TermVec facts = {0};
    FxSmtTerm params[64];
    bool holds = false;
    if (g->n_params <= 64 && fresh_params(&E, g, params, &facts)) {
        Frame F = {g, params, fx_xcalloc(g->n_slots + 1, sizeof(FxSmtTerm))};
        FxSmtTerm p = fx_smt_var(smt, "p", FX_SMT_SORT_INT);
        FxSmtTerm lo = enc(&E, &F, dom->inputs[0]), hi = enc(&E, &F, dom->inputs[1]);
        F.slots[fold->num2] = p;
        fx_vec_push(&facts, bin(&E, FX_SMT_GE, p, fx_smt_int64(smt, 0)));
        fx_vec_push(&facts, bin(&E, FX_SMT_LE, lo, p));
        fx_vec_push(&facts, bin(&E, dom->num ? FX_SMT_LE : FX_SMT_LT, p, hi));
        FxSmtTerm ok = all(&E, defined(&E, &F, cond), enc(&E, &F, cond));
        fx_vec_push(&facts, fx_smt_not(smt, ok));
        holds = !E.why_not && fx_smt_check(smt, facts.len, facts.data) == FX_SMT_UNSAT;
        free(F.slots);
    }
    fx_vec_free(&facts);
    fx_smt_free(smt);
    return holds;
}

/* Is target in the subgraph under `from` (from itself included)? */
static bool reaches(const FxGraph *g, FxNodeId from, FxNodeId target, uint8_t *seen)
{
    if (!from.v || seen[from.v])
        return false;
    seen[from.v] = 1;
    if (from.v == target.v)
        return true;
    const FxNode *n = fx_graph_node(g, from);
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (reaches(g, n->inputs[k], target, seen))
            return true;
    return false;
}

bool fx_prove_sieved_call(const FxGraph *g, FxNodeId rest, FxNodeId id,
                          const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_CALL || n->n_inputs != 1 || !rest.v || !lookup)
        return false;
    const FxGraph *pred = lookup(ctx, n->text);
    if (!shaped_like(pred, prime_shape))
        return false;
    uint8_t *seen = fx_xcalloc(g->n_nodes + 1, 1);
    bool inside = reaches(g, rest, id, seen);
    free(seen);
    return inside;
}

FxNodeId fx_prove_sieve_rest(const FxGraph *g, FxNodeId fold, FxNodeId conj,
                             FxGraphLookup lookup, void *ctx, unsigned timeout_ms)
{
    const FxNode *f = fx_graph_node(g, fold);
    FxNodeId rest = {0}, none = {0};
    if (!fx_graph_conjunct_rest(g, f->inputs[1], conj, &rest) || !rest.v)
        return rest;
    if (range_implies(g, f, rest, lookup, ctx, timeout_ms))
        return none;
    const FxNode *r = fx_graph_node(g, rest);
    if (r->op == FX_NODE_AND && r->n_inputs == 2) { /* one side implied: the other remains */
        if (range_implies(g, f, r->inputs[0], lookup, ctx, timeout_ms))
            return r->inputs[1];
        if (range_implies(g, f, r->inputs[1], lookup, ctx, timeout_ms))
            return r->inputs[0];
    }
    return rest;
}

FxProof *fx_prove_sieve_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId fold,
                                const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx,
                                unsigned timeout_ms)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    /* the template */
    FxObligation t = new_obligation("template", fx_xstrdup("a fold over a range whose filter "
                                    "has, as a conjunct, the prelude's `prime` of the fold's "
                                    "variable"));
    const FxNode *f = fold.v && fold.v <= cur->n_nodes ? fx_graph_node(cur, fold) : NULL;
    const FxNode *dom = f && f->op == FX_NODE_FOLD ? fx_graph_node(cur, f->inputs[0]) : NULL;
    const FxNode *call = dom && dom->op == FX_NODE_RANGE && f->inputs[1].v
                                 ? kind_call(cur, f->inputs[1], f->num2, prime_shape, lookup,
                                             ctx)
                                 : NULL;
    const FxGraph *pred = call && lookup ? lookup(ctx, call->text) : NULL;
    FxNodeId call_id = {call ? (uint32_t)(call - cur->nodes) + 1 : 0}, rest = {0};
    bool shaped = call && fx_graph_conjunct_rest(cur, f->inputs[1], call_id, &rest);
    if (shaped) /* what the range implies goes too, each implication proved */
        rest = fx_prove_sieve_rest(cur, fold, call_id, lookup, ctx, timeout_ms);
    if (!shaped) {
        t.verdict = FX_PROOF_REFUTED;
        t.counterexample = fx_xstrdup("not a fold over a range filtered by a predicate of its "
                                      "variable as a conjunct");
    } else if (!shaped_like(pred, prime_shape)) {
        t.verdict = FX_PROOF_REFUTED;
        t.counterexample = fx_xasprintf("the predicate `%s` is not the prelude's prime "
                                        "(p >= 2 and no d in 2..p divides p)", call->text);
    } else {
        t.verdict = FX_PROOF_PROVED;
    }
    add_result(p, t);
    /* the candidate is that rewrite, node for node */
    FxObligation c = new_obligation("candidate", fx_xstrdup("the candidate is the version with "
                                    "that fold over the range's primes, keeping its other "
                                    "conditions, and nothing else changed"));
    bool same = shaped && cand->n_nodes == cur->n_nodes && cand->root.v == cur->root.v &&
                cand->n_params == cur->n_params;
    uint32_t sieved = 0;
    for (uint32_t i = 0; same && i < cur->n_nodes; i++) {
        const FxNode *x = &cur->nodes[i], *y = &cand->nodes[i];
        if (i + 1 != fold.v) {
            FxNode z = *y; /* a call kept in the conditions may be marked sieved */
            bool marked = x->num == 0 && y->num == 1 &&
                          fx_prove_sieved_call(cur, rest, (FxNodeId){i + 1}, prime_shape,
                                               lookup, ctx);
            z.num = marked ? 0 : y->num;
            same = same_node(x, &z);
            sieved += marked;
            continue;
        }
        same = y->op == FX_NODE_FOLD && y->num == x->num && y->num2 == x->num2 &&
               y->n_inputs == 3 && y->inputs[0].v == x->inputs[0].v &&
               y->inputs[2].v == x->inputs[2].v && y->inputs[1].v == rest.v &&
               y->kernel == FX_KERNEL_SIEVE && y->kargs[0].v == x->inputs[0].v;
    }
    c.verdict = same ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!same)
        c.counterexample = fx_xstrdup("the candidate is not that rewrite");
    add_result(p, c);
    if (sieved) {
        FxObligation s2 = new_obligation("sieved calls", fx_xasprintf(
            "%u call%s in the other conditions, each of a predicate with the prime shape, "
            "which is primality (the template, Sieve.v), answered from a sieve of a window "
            "around its argument (fx_sieve_set: the same kernel contract) for an argument "
            ">= 0; a negative one still calls the predicate, so a Natural parameter still "
            "fails as it did", sieved, sieved == 1 ? "" : "s"));
        s2.verdict = FX_PROOF_PROVED;
        add_result(p, s2);
    }
    /* skipping the other conditions on non-primes: they must never fail */
    FxObligation d = new_obligation("definedness", fx_xstrdup("the other conditions never fail, "
                                    "so not evaluating them on non-primes changes nothing"));
    d.verdict = FX_PROOF_PROVED;
    if (shaped && rest.v) {
        FxSmt *smt = fx_smt_new(timeout_ms, 0);
        Enc E = {smt, lookup, ctx, cur->intent, cur, 0, false, NULL};
        TermVec facts = {0};
        FxSmtTerm params[64];
        if (cur->n_params > 64 || !fresh_params(&E, cur, params, &facts)) {
            d.verdict = FX_PROOF_UNKNOWN;
            d.reason = fx_xstrdup("the parameters are not numbers or booleans");
        } else {
            Frame F = {cur, params, fx_xcalloc(cur->n_slots + 1, sizeof(FxSmtTerm))};
            FxSmtTerm v = fx_smt_var(smt, "p", FX_SMT_SORT_INT);
            F.slots[f->num2] = v;
            E.sufficient = true; /* never failing is what is asked */
            /* on the range's elements only: the kernel keeps no other
             * (Goldbach's prime(n - p) is defined for p <= n) */
            FxSmtTerm lo = enc(&E, &F, dom->inputs[0]), hi = enc(&E, &F, dom->inputs[1]);
            fx_vec_push(&facts, bin(&E, FX_SMT_GE, v, fx_smt_int64(smt, 0)));
            fx_vec_push(&facts, bin(&E, FX_SMT_LE, lo, v));
            fx_vec_push(&facts, bin(&E, dom->num ? FX_SMT_LE : FX_SMT_LT, v, hi));
            fx_vec_push(&facts, fx_smt_not(smt, defined(&E, &F, rest)));
            if (E.why_not) {
                d.verdict = FX_PROOF_UNKNOWN;
                d.reason = fx_xasprintf("not decidable here: %s", E.why_not);
            } else {
                FxSmtResult r = fx_smt_check(smt, facts.len, facts.data);
                d.smtlib = fx_smt_last_query(smt);
                d.verdict = r == FX_SMT_UNSAT ? FX_PROOF_PROVED : FX_PROOF_UNKNOWN;
                if (r != FX_SMT_UNSAT)
                    d.reason = fx_xstrdup("the other conditions may fail for some element");
            }
            free(F.slots);
        }
        fx_vec_free(&facts);
        fx_smt_free(smt);
    }
    add_result(p, d);
    FxSieveCert cert = {false};
    add_result(p, crossing_rule(&cert, timeout_ms));
    FxObligation lemma = new_obligation("lemma", fx_xstrdup(
            "Sieve.sieve_correct, composite_has_small_factor and crossing_starts_at_square "
            "(proofs/Sieve.v): the sieve keeps exactly the primes of the range"));
    lemma.verdict = FX_PROOF_PROVED;
    add_result(p, lemma);
    return p;
}

/* "the candidate is cur with node `at` on kernel `mark`, and nothing else
 * changed": every other node the same, that one the same but its kernel,
 * which runs on what its shape binds in cur (what the compiler will use). */
static FxObligation marked_candidate(const FxGraph *cur, const FxGraph *cand, FxNodeId at,
                                     FxKernelId mark, bool shaped, const char *what)
{
    FxObligation c = new_obligation("candidate", fx_xstrdup(what));
    bool same = shaped && cand->n_nodes == cur->n_nodes && cand->root.v == cur->root.v;
    for (uint32_t i = 0; same && i < cur->n_nodes; i++) {
        const FxNode *x = &cur->nodes[i], *y = &cand->nodes[i];
        if (i + 1 != at.v) {
            same = same_node(x, y);
            continue;
        }
        FxNode z = *y;
        z.kernel = x->kernel;
        uint32_t args[FX_KERNEL_MAX_ARGS] = {0};
        same = same_node(x, &z) && y->kernel == mark && fx_kernel(mark)->shape(cur, at.v, args);
        for (int k = 0; same && k < FX_KERNEL_MAX_ARGS; k++)
            same = y->kargs[k].v == args[k];
    }
    c.verdict = same ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!same)
        c.counterexample = fx_xstrdup("the candidate is not that rewrite");
    return c;
}

FxProof *fx_prove_gemm_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId map,
                               FxProofCache *cache, unsigned timeout_ms)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    FxNodeId a, b, fold;
    FxObligation t = new_obligation("template", fx_xstrdup("result[i,j] = sum(A[i,k] * B[k,j] "
                                    "for k in 0..cols(A)) over rows(A) x cols(B)"));
    bool shaped = map.v && map.v <= cur->n_nodes && fx_graph_matmul_shape(cur, map, &a, &b, &fold);
    t.verdict = shaped ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!shaped)
        t.counterexample = fx_xstrdup("the node is not the element-wise definition of a "
                                      "matrix product");
    add_result(p, t);
    add_result(p, marked_candidate(cur, cand, map, FX_KERNEL_GEMM, shaped, "the candidate is the version "
                                   "with that map on the matrix kernel, and nothing else "
                                   "changed"));
    if (!shaped)
        return p;
    if (fx_typeid_kind(fx_graph_node(cur, fold)->tid) == FX_TK_FLOAT) {
        FxObligation o = new_obligation("order", fx_xstrdup(
                "each element adds k = 0 .. K-1 in order from 0, each product rounded, as the "
                "definition does: the kernel's contract (FX_MATMUL_BLOCKED_EXACT, "
                "src/exec/matmul.h, tested bit-identical to the naive loop); no float is "
                "reassociated but under a declared tolerance"));
        o.verdict = FX_PROOF_PROVED;
        add_result(p, o);
        if (cur->tolerance > 0 || cand->tolerance > 0) {
            FxObligation t2 = new_obligation("tolerance", fx_xasprintf(
                "the intent declares tolerance(%g): a product may instead reorder its sums "
                "(FX_MATMUL_BLOCKED) when 2 gamma_K <= %g, gamma_K = K u / (1 - K u), every "
                "entry finite and every nonzero one within [2^-500, 2^500], K < 2^20; then no "
                "product or partial sum overflows or underflows, any order of each element's "
                "sum is within gamma_K of the exact sum times the sum of its terms' magnitudes "
                "(Higham, Accuracy and Stability of Numerical Algorithms, 2002, section 3.1), "
                "and so within the tolerance of the definition's order; otherwise the order is "
                "kept. A cited theorem with a run-time guard, not a machine-checked proof",
                cur->tolerance, cur->tolerance));
            bool within = cand->tolerance <= cur->tolerance;
            t2.verdict = within ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
            if (!within)
                t2.counterexample = fx_xasprintf("the candidate allows a tolerance of %g, the "
                                                 "intent %g", cand->tolerance, cur->tolerance);
            add_result(p, t2);
        }
    } else {
        FxProof *r = fx_prove_fold_reassociation(cur, fold, cache, timeout_ms);
        fx_vec_foreach(FxObligation, o, &r->obligations)
        {
            add_result(p, *o);
            memset(o, 0, sizeof(*o));
        }
        fx_proof_free(r);
    }
    return p;
}

FxProof *fx_prove_index_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId fold)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    FxNodeId cmp, value;
    FxObligation t = new_obligation("template", fx_xstrdup("the fold keeps the elements x of a "
                                    "collection with x.FIELD OP v, v not depending on x"));
    bool shaped = fold.v && fold.v <= cur->n_nodes &&
                  fx_graph_selection_shape(cur, fold, &cmp, &value);
    t.verdict = shaped ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!shaped)
        t.counterexample = fx_xstrdup("the fold is not such a selection");
    add_result(p, t);
    add_result(p, marked_candidate(cur, cand, fold, FX_KERNEL_INDEX, shaped, "the candidate is the "
                                   "version with that fold on the query kernel, and nothing "
                                   "else changed"));
    FxObligation o = new_obligation("order", fx_xstrdup(
            "the field is an Int, a Natural or a String, totally ordered: a stable sorted index "
            "and a binary search keep exactly the elements the comparison keeps, and the "
            "kernel puts them back in the collection's order (a scan does the comparison "
            "itself)"));
    o.verdict = shaped ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!shaped)
        o.counterexample = fx_xstrdup("no selection to order");
    add_result(p, o);
    return p;
}

FxProof *fx_prove_kernel_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId at,
                                 FxKernelId k, FxProofCache *cache, unsigned timeout_ms)
{
    if (k == FX_KERNEL_GEMM)
        return fx_prove_gemm_rewrite(cur, cand, at, cache, timeout_ms);
    if (k == FX_KERNEL_INDEX)
        return fx_prove_index_rewrite(cur, cand, at);
    const FxKernel *K = fx_kernel(k);
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    FxObligation t = new_obligation("template", fx_xstrdup(K->shape_text));
    uint32_t args[FX_KERNEL_MAX_ARGS];
    bool shaped = K->shape && at.v && at.v <= cur->n_nodes &&
                  (int)fx_graph_node(cur, at)->op == K->marks && K->shape(cur, at.v, args);
    t.verdict = shaped ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!shaped)
        t.counterexample = fx_xasprintf("the node has not the shape of the kernel `%s`", K->name);
    add_result(p, t);
    char *what = fx_xasprintf("the candidate is the version with that %s on the kernel `%s`, "
                              "and nothing else changed", fx_graph_op_name((FxNodeOp)K->marks),
                              K->name);
    add_result(p, marked_candidate(cur, cand, at, k, shaped, what));
    free(what);
    FxObligation c = new_obligation("contract", fx_xstrdup(K->contract));
    c.verdict = shaped ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (!shaped)
        c.counterexample = fx_xstrdup("no node of that shape for the contract to hold on");
    add_result(p, c);
    return p;
}

FxProof *fx_prove_sort_instance(const FxGraph *cur, const FxGraph *cand, bool stable)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    const FxNode *a = fx_graph_node(cur, cur->root), *b = fx_graph_node(cand, cand->root);
    FxObligation t = new_obligation("template", fx_xstrdup("both sort the same list the same "
                                                           "way: same list, key and direction"));
    bool sorts = a->op == FX_NODE_SORT && b->op == FX_NODE_SORT;
    if (sorts && a->num == b->num && fx_graph_same_shape(cur, a->inputs[0], cand, b->inputs[0]) &&
        fx_graph_same_shape(cur, a->inputs[1], cand, b->inputs[1])) {
        t.verdict = FX_PROOF_PROVED;
    } else {
        t.verdict = FX_PROOF_REFUTED;
        t.counterexample = fx_xstrdup(!sorts ? "one of the two is not a sorted permutation"
                                             : "they sort different lists, keys or directions");
    }
    add_result(p, t);
    FxObligation order = new_obligation("order", fx_xstrdup("the elements (or keys) have a "
                                                            "total order"));
    FxTypeId elem = b->op == FX_NODE_SORT && b->inputs[1].v
                        ? fx_graph_node(cand, b->inputs[1])->tid
                        : cand->ret_tid;
    if (fx_typeid_has_float(elem)) {
        order.verdict = FX_PROOF_REFUTED;
        order.counterexample = fx_xstrdup("Float has NaN, equal to nothing and ordered with "
                                          "nothing: two sorts may place it differently");
    } else {
        order.verdict = FX_PROOF_PROVED;
    }
    add_result(p, order);
    FxObligation st = new_obligation("stability", fx_xstrdup("a sort by key keeps equal keys "
                                                             "in their input order"));
    bool keyed = a->op == FX_NODE_SORT && a->inputs[1].v;
    st.verdict = !keyed || stable ? FX_PROOF_PROVED : FX_PROOF_REFUTED;
    if (st.verdict == FX_PROOF_REFUTED)
        st.counterexample = fx_xstrdup("sorting by a key with an unstable sort: two elements "
                                       "with equal keys may come out in either order");
    add_result(p, st);
    FxObligation lemma = new_obligation("lemma", fx_xstrdup(
            "SortUnique.sort_correct_any (proofs/SortUnique.v): any two sorted permutations "
            "of a list are equal"));
    lemma.verdict = FX_PROOF_PROVED;
    add_result(p, lemma);
    return p;
}

/* op(op(a, b), c) = op(a, op(b, c)), or op(a, b) = op(b, a). */
static FxObligation operator_law(const FxGraph *op, bool assoc, FxGraphLookup lookup, void *ctx,
                                 unsigned timeout_ms)
{
    FxObligation o = new_obligation(assoc ? "associativity" : "commutativity",
                                    fx_xasprintf(assoc ? "%s(%s(a, b), c) = %s(a, %s(b, c))"
                                                       : "%s(a, b) = %s(b, a)",
                                                 op->intent, op->intent, op->intent,
                                                 op->intent));
    FxSmt *smt = fx_smt_new(timeout_ms, 0);
    Enc E = {smt, lookup, ctx, op->intent, op, 0, false, NULL};
    FxSmtSort s;
    if (op->n_params != 2 || !sort_of_type(op->param_tids[0], &s) ||
        !sort_of_type(op->ret_tid, &s)) {
        o.verdict = FX_PROOF_UNKNOWN;
        o.reason = fx_xstrdup("not an operator on numbers or booleans");
        fx_smt_free(smt);
        return o;
    }
    FxSmtTerm a = fx_smt_var(smt, "a", s), b = fx_smt_var(smt, "b", s), c = fx_smt_var(smt, "c", s);
    FxSmtTerm ab[2] = {a, b}, ba[2] = {b, a}, bc[2] = {b, c};
    FxSmtTerm l, r;
    if (assoc) {
        FxSmtTerm x[2] = {encode_graph(&E, op, ab), c}, y[2] = {a, encode_graph(&E, op, bc)};
        l = encode_graph(&E, op, x);
        r = encode_graph(&E, op, y);
    } else {
        l = encode_graph(&E, op, ab);
        r = encode_graph(&E, op, ba);
    }
    TermVec facts = {0};
    if (E.laws.all.v)
        fx_vec_push(&facts, E.laws.all);
    fx_vec_push(&facts, bin(&E, FX_SMT_NE, l, r));
    FxSmtTerm vars[3] = {a, b, c};
    FxSmtResult res = E.why_not ? FX_SMT_UNKNOWN : solve(&E, &facts, vars, 3);
    o.smtlib = E.why_not ? NULL : fx_smt_last_query(smt);
    if (res == FX_SMT_UNSAT) {
        o.verdict = FX_PROOF_PROVED;
    } else if (res == FX_SMT_SAT && !E.uses_uf) {
        char *va = fx_smt_model_value(smt, a), *vb = fx_smt_model_value(smt, b);
        char *vc = fx_smt_model_value(smt, c), *vl = fx_smt_model_value(smt, l);
        char *vr = fx_smt_model_value(smt, r);
        o.verdict = FX_PROOF_REFUTED;
        o.counterexample = fx_xasprintf("a = %s, b = %s%s%s: %s but %s", va, vb,
                                        assoc ? ", c = " : "", assoc ? vc : "", vl, vr);
        free(va);
        free(vb);
        free(vc);
        free(vl);
        free(vr);
    } else {
        o.verdict = FX_PROOF_UNKNOWN;
        o.reason = fx_xstrdup(E.why_not ? E.why_not : "the solver gave up");
    }
    fx_vec_free(&facts);
    fx_smt_free(smt);
    return o;
}

FxProof *fx_prove_operator_laws(const FxGraph *op, FxGraphLookup lookup, void *ctx,
                                unsigned timeout_ms)
{
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    p->verdict = FX_PROOF_PROVED;
    add_result(p, operator_law(op, true, lookup, ctx, timeout_ms));
    add_result(p, operator_law(op, false, lookup, ctx, timeout_ms));
    return p;
}
