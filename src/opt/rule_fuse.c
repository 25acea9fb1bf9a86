/*
 * rule_fuse.c: fold fusion: a fold over the list a comprehension builds,
 * `sum(g(x) for x in [f(y) for y in D])`, becomes one fold over D whose
 * body is `let x = f(y) in g(x)`: the list is never built. Common once a
 * helper that returns a comprehension is inlined into a fold over its
 * result (rule_inline.c).
 *
 * Where: a fold (a sum, product, min, max, count or comprehension; not
 * all/any, which stop early while the list computed every element) with no
 * filter, over a comprehension with no filter that nothing else reads,
 * neither on a kernel. The let computes f(y) at each step, as building
 * the list did, so the fused fold fails exactly where the two did, and the
 * values are the same in the same order: a float sum is bit for bit the
 * same.
 *
 * The proof is the unfolding (proof/unfold.h), by the fusion law proved in
 * Coq (Fusion.fold_map_fusion, proofs/Fusion.v); the gain is measured on
 * the newest EXPR.
 */
#include <stdlib.h>

#include "rule_fuse.h"

#include "proof/unfold.h"
#include "rule.h"
#include "rule_dce.h"

#define REWRITE "fold fusion"

/* Is the fold at id fusable with the comprehension it folds, which only it
 * reads? *inner: the comprehension. */
static bool fusable(const FxGraph *g, FxNodeId id, const uint32_t *readers, FxNodeId *inner)
{
    return fx_unfold_fusable(g, id, inner) && readers[inner->v] == 1 && g->root.v != inner->v;
}

/* How many nodes read each node. Caller frees. */
static uint32_t *count_readers(const FxGraph *g)
{
    uint32_t *readers = fx_xcalloc(g->n_nodes + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < g->n_nodes; i++)
        for (uint32_t k = 0; k < g->nodes[i].n_inputs; k++)
            readers[g->nodes[i].inputs[k].v]++;
    return readers;
}

static bool fuse_applies(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    uint32_t *readers = count_readers(g);
    bool any = false;
    FxNodeId inner;
    for (uint32_t i = 1; i <= g->n_nodes && !any; i++)
        any = fusable(g, (FxNodeId){i}, readers, &inner);
    free(readers);
    if (!any)
        fx_buf_puts(why, "no fold without a filter over a comprehension without one that "
                         "nothing else reads");
    return any;
}

FxGraph *fx_rule_fuse_pass(const FxGraph *g, const char *label)
{
    uint32_t *readers = count_readers(g);
    FxGraph *c = fx_rule_new_version(g, label);
    bool any = false;
    const char *rewrite = fx_graph_intern(c, REWRITE);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        FxNodeId in;
        if (!fusable(g, (FxNodeId){i}, readers, &in)) {
            map[i] = fx_rule_copy_node(c, n, map);
            continue;
        }
        const FxNode *list = fx_graph_node(g, in);
        any = true;
        FxOrigin o = n->origin;
        o.rewrite = rewrite;
        /* let x = f(y) in g(x), x the fold's variable, y the comprehension's */
        FxNodeId let_in[2] = {map[list->inputs[2].v], map[n->inputs[2].v]};
        FxNodeId let = fx_graph_add(c, FX_NODE_LET, fx_graph_node(g, n->inputs[2])->type,
                                    let_in, 2, o);
        fx_graph_node(c, let)->num2 = n->num2;
        FxNodeId fold_in[3] = {map[list->inputs[0].v], {0}, let};
        map[i] = fx_graph_add(c, FX_NODE_FOLD, n->type, fold_in, 3, o);
        FxNode *f = fx_graph_node(c, map[i]);
        f->num = n->num;
        f->num2 = list->num2;
        f->text = fx_graph_intern(c, n->text);
    }
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    free(readers);
    FxGraph *d = any ? fx_rule_dce(c, label) : NULL; /* the comprehensions no fold reads now */
    if (!any || d)
        fx_graph_free(c);
    return any && !d ? c : d;
}

static FxGraph *fuse_candidate(FxRuleRun *r, FxBuf *why)
{
    FxGraph *c = fx_rule_fuse_pass(r->current, r->label);
    if (!c)
        fx_buf_puts(why, "nothing to fuse");
    return c;
}

static bool fuse_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    return fx_rule_measured_gain(r, cand, NULL, evidence, why);
}

static FxProof *fuse_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "each element is computed where the fold reads it, in the list's order, "
                        "so no list is built");
    return fx_prove_same_function(r->current, cand, r->host->lower, r->host->ctx,
                                  r->host->proof_cache, 5000);
}

const FxRule fx_rule_fuse = {REWRITE, fuse_applies, fuse_candidate, fuse_measurement,
                             fuse_obligations, NULL};
