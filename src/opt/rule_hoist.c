/*
 * rule_hoist.c: loop-invariant code motion: what a loop's body computes
 * the same way at every step, `a.m * dt` in `sum(f(a, b) * a.m * dt for b
 * in ps)`, is computed once, before the loop, and read from a variable.
 *
 * Where: in the body or filter of a fold or map that no other loop is
 * inside (the innermost loops, where the steps are; a later round reaches
 * the next level), a sub-expression that reads no variable the loop or
 * anything inside it binds, is not a constant or a variable, and cannot
 * fail (proof/unfold.h: fx_unfold_total): evaluated before the loop it is
 * evaluated even when the loop has no step, so it must not be able to
 * fail there. The largest such sub-expressions are hoisted, each bound by
 * a `let` around the loop, the loop reading the variable instead.
 *
 * The proof is the unfolding (a let whose value cannot fail is its body
 * with the variable read as the value); the gain is measured on the newest
 * EXPR.
 */
#include <stdlib.h>
#include <string.h>

#include "proof/unfold.h"
#include "rule.h"
#include "rule_dce.h"

#define REWRITE "loop-invariant code motion"
#define MAX_HOISTED 16 /* a loop's hoisted sub-expressions */

static bool is_loop(const FxNode *n)
{
    return (n->op == FX_NODE_FOLD || n->op == FX_NODE_MAP) && n->kernel == FX_KERNEL_NONE;
}

/* One loop's analysis: inside[m] when m is reached from the loop's lazy
 * inputs; bound[s] when the loop or a node inside binds slot s; variant[m]
 * when m reads such a slot. */
typedef struct Loop {
    bool *inside, *bound, *variant;
    bool nested; /* another loop is inside */
} Loop;

static void mark_inside(const FxGraph *g, FxNodeId id, Loop *L)
{
    if (!id.v || L->inside[id.v])
        return;
    L->inside[id.v] = true;
    const FxNode *n = fx_graph_node(g, id);
    int64_t s[2];
    fx_graph_bound_slots(n, s);
    for (int k = 0; k < 2; k++)
        if (s[k] >= 0 && (uint64_t)s[k] < g->n_slots)
            L->bound[s[k]] = true;
    L->nested |= is_loop(n);
    for (uint32_t k = 0; k < n->n_inputs; k++)
        mark_inside(g, n->inputs[k], L);
}

static Loop analyse(const FxGraph *g, FxNodeId loop)
{
    Loop L = {fx_xcalloc(g->n_nodes + 1, sizeof(bool)), fx_xcalloc(g->n_slots + 1, sizeof(bool)),
              fx_xcalloc(g->n_nodes + 1, sizeof(bool)), false};
    const FxNode *n = fx_graph_node(g, loop);
    int64_t s[2];
    fx_graph_bound_slots(n, s);
    for (int k = 0; k < 2; k++)
        if (s[k] >= 0 && (uint64_t)s[k] < g->n_slots)
            L.bound[s[k]] = true;
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (fx_graph_input_is_lazy(n->op, k))
            mark_inside(g, n->inputs[k], &L);
    for (uint32_t i = 1; i <= g->n_nodes; i++) { /* inputs come first */
        const FxNode *m = fx_graph_node(g, (FxNodeId){i});
        bool v = m->op == FX_NODE_VAR && (uint64_t)m->num < g->n_slots && L.bound[m->num];
        int64_t b[2];
        fx_graph_bound_slots(m, b); /* a binder inside the loop is its steps' too */
        v |= (b[0] >= 0 || b[1] >= 0) && L.inside[i];
        for (uint32_t k = 0; k < m->n_inputs && !v; k++)
            v = L.variant[m->inputs[k].v];
        L.variant[i] = v;
    }
    return L;
}

static void release(Loop *L)
{
    free(L->inside);
    free(L->bound);
    free(L->variant);
}

static bool hoistable(const FxGraph *g, FxNodeId id, const Loop *L)
{
    const FxNode *n = fx_graph_node(g, id);
    return L->inside[id.v] && !L->variant[id.v] && n->op != FX_NODE_CONST &&
           n->op != FX_NODE_VAR && n->op != FX_NODE_PARAM && fx_unfold_total(g, id);
}

/* The largest hoistable sub-expressions under id, into out (at most
 * MAX_HOISTED, each once). */
static void collect(const FxGraph *g, FxNodeId id, const Loop *L, bool *seen, FxNodeId *out,
                    uint32_t *n_out)
{
    if (!id.v || seen[id.v])
        return;
    seen[id.v] = true;
    if (hoistable(g, id, L)) {
        if (*n_out < MAX_HOISTED)
            out[(*n_out)++] = id;
        return;
    }
    const FxNode *n = fx_graph_node(g, id);
    for (uint32_t k = 0; k < n->n_inputs; k++)
        collect(g, n->inputs[k], L, seen, out, n_out);
}

/* The hoisted sub-expressions of the innermost loop at id (none when
 * another loop is inside it). */
static uint32_t invariants(const FxGraph *g, FxNodeId loop, FxNodeId *out)
{
    const FxNode *n = fx_graph_node(g, loop);
    if (!is_loop(n))
        return 0;
    Loop L = analyse(g, loop);
    uint32_t k = 0;
    if (!L.nested) {
        bool *seen = fx_xcalloc(g->n_nodes + 1, sizeof(bool));
        for (uint32_t i = 0; i < n->n_inputs; i++)
            if (fx_graph_input_is_lazy(n->op, i))
                collect(g, n->inputs[i], &L, seen, out, &k);
        free(seen);
    }
    release(&L);
    return k;
}

static bool hoist_applies(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    FxNodeId found[MAX_HOISTED];
    for (uint32_t i = 1; i <= g->n_nodes; i++)
        if (invariants(g, (FxNodeId){i}, found))
            return true;
    fx_buf_puts(why, "no innermost loop computes a sub-expression that cannot fail the same "
                     "way at every step");
    return false;
}

/* A copy of the subgraph at id, in c, reading hoisted node h[j] as VAR
 * slot[j]; nodes that read none of them are their copies in map. */
static FxNodeId substituted(FxGraph *c, const FxGraph *g, FxNodeId id, const FxNodeId *map,
                            FxNodeId *sub, const FxNodeId *h, const FxNodeId *var, uint32_t n_h)
{
    if (!id.v)
        return id;
    if (sub[id.v].v)
        return sub[id.v];
    for (uint32_t j = 0; j < n_h; j++)
        if (h[j].v == id.v)
            return sub[id.v] = var[j];
    const FxNode *n = fx_graph_node(g, id);
    FxNodeId small[8], *in = n->n_inputs > 8 ? fx_xmalloc(n->n_inputs * sizeof(FxNodeId)) : small;
    bool changed = false;
    for (uint32_t k = 0; k < n->n_inputs; k++) {
        in[k] = substituted(c, g, n->inputs[k], map, sub, h, var, n_h);
        changed |= in[k].v != map[n->inputs[k].v].v;
    }
    FxNodeId out = map[id.v];
    if (changed) {
        out = fx_graph_add(c, n->op, n->type, in, n->n_inputs, n->origin);
        FxNode *m = fx_graph_node(c, out);
        m->text = fx_graph_intern(c, n->text);
        m->num = n->num;
        m->num2 = n->num2;
    }
    if (in != small)
        free(in);
    return sub[id.v] = out;
}

static FxGraph *hoist_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    const FxGraph *g = r->current;
    FxGraph *c = fx_rule_new_version(g, r->label);
    const char *rewrite = fx_graph_intern(c, REWRITE);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    FxNodeId *sub = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        FxNodeId h[MAX_HOISTED], var[MAX_HOISTED], slot[MAX_HOISTED];
        uint32_t n_h = invariants(g, (FxNodeId){i}, h);
        if (!n_h) {
            map[i] = fx_rule_copy_node(c, n, map);
            continue;
        }
        for (uint32_t j = 0; j < n_h; j++) {
            slot[j].v = fx_graph_new_slot(c);
            FxOrigin o = fx_graph_node(g, h[j])->origin;
            o.rewrite = rewrite;
            var[j] = fx_graph_add(c, FX_NODE_VAR, fx_graph_node(g, h[j])->type, NULL, 0, o);
            fx_graph_node(c, var[j])->num = slot[j].v;
        }
        memset(sub, 0, (g->n_nodes + 1) * sizeof(FxNodeId));
        FxNodeId in[3];
        for (uint32_t k = 0; k < n->n_inputs && k < 3; k++)
            in[k] = fx_graph_input_is_lazy(n->op, k)
                        ? substituted(c, g, n->inputs[k], map, sub, h, var, n_h)
                        : map[n->inputs[k].v];
        FxNodeId loop = fx_graph_add(c, n->op, n->type, in, n->n_inputs, n->origin);
        FxNode *m = fx_graph_node(c, loop);
        m->text = fx_graph_intern(c, n->text);
        m->num = n->num;
        m->num2 = n->num2;
        for (uint32_t j = n_h; j-- > 0;) { /* the first hoisted outermost */
            FxOrigin o = n->origin;
            o.rewrite = rewrite;
            FxNodeId let_in[2] = {map[h[j].v], loop};
            loop = fx_graph_add(c, FX_NODE_LET, n->type, let_in, 2, o);
            fx_graph_node(c, loop)->num2 = slot[j].v;
        }
        map[i] = loop;
    }
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    free(sub);
    FxGraph *d = fx_rule_dce(c, r->label); /* the loop bodies' old copies */
    if (!d)
        return c;
    fx_graph_free(c);
    return d;
}

static bool hoist_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    return fx_rule_measured_gain(r, cand, NULL, evidence, why);
}

static FxProof *hoist_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "what a loop computes the same way at every step, and cannot fail, is "
                        "computed once before it");
    return fx_prove_same_function(r->current, cand, r->host->lower, r->host->ctx,
                                  r->host->proof_cache, 5000);
}

const FxRule fx_rule_hoist = {REWRITE, hoist_applies, hoist_candidate, hoist_measurement,
                              hoist_obligations, NULL};
