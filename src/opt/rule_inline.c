/*
 * rule_inline.c: inline expansion: a call of another intent becomes the
 * callee's nodes, its parameters read as the call's arguments, so the
 * call's frame, argument passing and return go, and the rules that work
 * inside one graph (sharing, fusion, hoisting) see across the call. In
 * `step(u) = [u[i] + r * (at(u, i - 1) - 2.0 * u[i] + at(u, i + 1)) ...]`
 * with `at(u, i) = u[i]`, each element makes no call instead of two.
 *
 * Which calls: every call of an intent that the law of inline expansion
 * allows (proof/unfold.h: fx_unfold_inlinable: the callee pure, its
 * constraints alone, not recursive, of the parameter types its arguments
 * have), when the callee is small (MAX_NODES nodes or fewer: a body
 * repeated at each call site) or called at a single site of the caller
 * (any size: nothing is repeated). An argument that cannot fail is read in
 * place of its parameter; one that may fail is bound by a let where the
 * call was, as the call evaluated it before its body, which may read the
 * parameter only in a branch. The callee's bound variables get slots of
 * the caller's.
 *
 * The proof is the unfolding (fx_prove_same_function, proof/unfold.h):
 * expanded, the two versions are the same nodes; floats, lists and records
 * take part as they are. The gain is measured on the newest EXPR.
 */
#include <stdlib.h>
#include <string.h>

#include "proof/unfold.h"
#include "rule.h"
#include "rule_cse.h"
#include "rule_dce.h"
#include "rule_fuse.h"
#include "rule_scalar.h"

#define REWRITE "inline expansion"
#define MAX_NODES 32 /* a larger body repeated at every call site costs more than the call */

/* The calls of `name` in g. */
static uint32_t call_sites(const FxGraph *g, const char *name)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        k += g->nodes[i].op == FX_NODE_CALL && !strcmp(g->nodes[i].text, name);
    return k;
}

/* Does g loop: a fold, a map or a call (which may recur)? */
static bool loops(const FxGraph *g)
{
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == FX_NODE_FOLD || g->nodes[i].op == FX_NODE_MAP ||
            g->nodes[i].op == FX_NODE_CALL)
            return true;
    return false;
}

/* Would expanding callee into g move its loops out of native code's
 * reach: g's parameters or result are of a type native code does not
 * hold (a String result), so no call of g is native, while the callee's
 * calls may be? The interpreter's timing favours the expansion; trained,
 * the loops would run interpreted where they ran native (spectral-norm's
 * last product inlined into a norm that prints: 4x slower). */
static bool hides_from_native(const FxRuleRun *r, const FxGraph *g, const FxGraph *callee)
{
    const FxRuleHost *h = r->host;
    return h->native_signature && !h->native_signature(h->ctx, g) &&
           h->native_signature(h->ctx, callee) && loops(callee);
}

/* The graph of the intent call n calls when it is to be inlined, or NULL. */
static const FxGraph *inlinable(const FxRuleRun *r, const FxGraph *g, FxNodeId id)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_CALL || n->n_inputs > 16)
        return NULL;
    const FxGraph *callee = fx_unfold_inlinable(g, id, r->host->lower, r->host->ctx, NULL);
    if (!callee || (callee->n_nodes > MAX_NODES && call_sites(g, n->text) > 1) ||
        hides_from_native(r, g, callee))
        return NULL;
    return callee;
}

static bool inline_applies(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    for (uint32_t i = 1; i <= g->n_nodes; i++)
        if (inlinable(r, g, (FxNodeId){i}))
            return true;
    fx_buf_puts(why, "no call of another intent to expand: none, or each recursive, reading "
                     "data, choosing among implementations, of other parameter types, "
                     "large and called at several sites, or looping where native code could "
                     "run it and this intent's could not");
    return false;
}

/* Appends callee's nodes to c for the call at `call` of g (its arguments
 * args, ids in c); returns the id of the expansion's value. */
static FxNodeId expand(FxGraph *c, const FxGraph *g, const FxNode *call, const FxGraph *callee,
                       const FxNodeId *args)
{
    const char *rewrite = fx_graph_intern(c, REWRITE);
    int64_t *slot = fx_xcalloc(callee->n_slots + 1, sizeof(int64_t)); /* callee's to c's */
    bool *bound = fx_xcalloc(callee->n_params + 1, sizeof(bool)); /* by a let */
    for (uint32_t k = 0; k < callee->n_params; k++) {
        bound[k] = !fx_unfold_total(g, call->inputs[k]);
        slot[k] = bound[k] ? (int64_t)fx_graph_new_slot(c) : -1;
    }
    for (uint32_t s = callee->n_params; s < callee->n_slots; s++)
        slot[s] = fx_graph_new_slot(c);
    FxNodeId *map = fx_xcalloc(callee->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= callee->n_nodes; i++) {
        const FxNode *n = fx_graph_node(callee, (FxNodeId){i});
        bool var = n->op == FX_NODE_PARAM || n->op == FX_NODE_VAR;
        if (var && n->num < callee->n_params && !bound[n->num]) {
            map[i] = args[n->num]; /* read in place: it cannot fail */
            continue;
        }
        map[i] = fx_rule_copy_node(c, n, map);
        FxNode *m = fx_graph_node(c, map[i]);
        m->origin.rewrite = rewrite;
        if (var) { /* a let's variable, or the callee's bound one */
            m->op = FX_NODE_VAR;
            m->num = slot[n->num];
            continue;
        }
        int64_t b[2];
        fx_graph_bound_slots(n, b);
        if (n->op == FX_NODE_MAP) {
            m->num = b[0] >= 0 ? slot[b[0]] : m->num;
            m->num2 = b[1] >= 0 ? slot[b[1]] : m->num2;
        } else if (b[0] >= 0) {
            m->num2 = slot[b[0]];
        }
    }
    FxNodeId value = map[callee->root.v];
    for (uint32_t k = callee->n_params; k-- > 0;) { /* the first argument's let outermost */
        if (!bound[k])
            continue;
        FxNodeId in[2] = {args[k], value};
        FxOrigin o = call->origin;
        o.rewrite = rewrite;
        value = fx_graph_add(c, FX_NODE_LET, fx_graph_node(c, value)->type, in, 2, o);
        fx_graph_node(c, value)->num2 = slot[k];
    }
    free(map);
    free(bound);
    free(slot);
    return value;
}

/* g with each call to inline expanded once (the calls in what is expanded
 * stay calls). */
static FxGraph *expand_calls(FxRuleRun *r, const FxGraph *g)
{
    FxGraph *c = fx_rule_new_version(g, r->label);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        const FxGraph *callee = inlinable(r, g, (FxNodeId){i});
        if (!callee) {
            map[i] = fx_rule_copy_node(c, n, map);
            continue;
        }
        FxNodeId args[16]; /* inlinable: at most 16 */
        for (uint32_t k = 0; k < n->n_inputs; k++)
            args[k] = map[n->inputs[k].v];
        map[i] = expand(c, g, n, callee, args);
    }
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    return c;
}

/* b in place of *a when b is a graph (a pass changed something). */
static void take(FxGraph **a, FxGraph *b)
{
    if (b) {
        fx_graph_free(*a);
        *a = b;
    }
}

/* The calls expanded, and the calls in what was expanded, up to MAX_DEPTH
 * levels; then what the expansion repeats shared (a distance computed three
 * times with the same arguments is computed once), the records it built
 * and read kept as scalars, what it left unread dropped, and the folds
 * over the comprehensions it brought in fused. */
#define MAX_DEPTH 4
static FxGraph *inline_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    FxGraph *c = expand_calls(r, r->current);
    for (int depth = 1; depth < MAX_DEPTH; depth++) {
        bool more = false;
        for (uint32_t i = 1; i <= c->n_nodes && !more; i++)
            more = inlinable(r, c, (FxNodeId){i}) != NULL;
        if (!more)
            break;
        take(&c, expand_calls(r, c));
    }
    take(&c, fx_rule_dce(c, r->label));
    take(&c, fx_rule_project_pass(c, r->label));
    FxGraph *shared = fx_rule_cse(c, r->label);
    if (shared) {
        take(&c, shared);
        take(&c, fx_rule_dce(c, r->label));
    }
    take(&c, fx_rule_fuse_pass(c, r->label));
    return c;
}

static bool inline_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    return fx_rule_measured_gain(r, cand, NULL, evidence, why);
}

static FxProof *inline_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "every intent is pure, so a call is its callee's value on the "
                "arguments, computed in place");
    return fx_prove_same_function(r->current, cand, r->host->lower, r->host->ctx,
                                  r->host->proof_cache, 5000);
}

const FxRule fx_rule_inline = {REWRITE, inline_applies, inline_candidate, inline_measurement,
                               inline_obligations, NULL};
