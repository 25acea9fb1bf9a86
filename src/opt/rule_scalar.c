/*
 * rule_scalar.c: records that do not escape kept as scalars: a field read
 * of a record built in the same graph, `{x: a, y: b}.x`, is `a`, and a
 * record whose every reader is such a read is never built. After inline
 * expansion a helper's record result (`sub(p, q).x`, a vector of three
 * floats) is three floats in registers instead of a record allocated,
 * filled and read back at every step; `with` is a record of the updated
 * field and the base's others, so `(p with {x: e}).y` is `p.y`.
 *
 * Where: the other fields' values cannot fail (proof/unfold.h:
 * fx_unfold_total), since building the record evaluated them all. The
 * proof is the unfolding (its law of projection); the gain is measured
 * on the newest EXPR.
 */
#include "rule_scalar.h"

#include <stdlib.h>

#include "proof/unfold.h"
#include "rule.h"
#include "rule_dce.h"

#define REWRITE "scalar records"

/* The input of the record that the field read at id reads, or {0}. */
static FxNodeId projected(const FxGraph *g, FxNodeId id)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_FIELD || n->n_inputs != 1)
        return (FxNodeId){0};
    int k = fx_unfold_projection(g, n->inputs[0], n->text);
    return k < 0 ? (FxNodeId){0} : fx_graph_node(g, n->inputs[0])->inputs[k];
}

/* The same type, record names included: a field read and the value read
 * in its place. */
static bool same_type(const FxGraph *g, FxNodeId a, FxNodeId b)
{
    return fx_graph_same_type(fx_graph_node(g, a), fx_graph_node(g, b));
}

FxGraph *fx_rule_project_pass(const FxGraph *g, const char *label)
{
    FxGraph *c = fx_rule_new_version(g, label);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    bool any = false;
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        FxNodeId v = projected(g, (FxNodeId){i});
        if (v.v && same_type(g, (FxNodeId){i}, v)) {
            map[i] = map[v.v];
            any = true;
            continue;
        }
        map[i] = fx_rule_copy_node(c, fx_graph_node(g, (FxNodeId){i}), map);
    }
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    FxGraph *d = any ? fx_rule_dce(c, label) : NULL; /* the records nothing reads now */
    if (!any || d)
        fx_graph_free(c);
    return any && !d ? c : d;
}

static bool scalar_applies(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        FxNodeId v = projected(g, (FxNodeId){i});
        if (v.v && same_type(g, (FxNodeId){i}, v))
            return true;
    }
    fx_buf_puts(why, "no field read of a record built in the same graph whose other fields "
                     "cannot fail");
    return false;
}

static FxGraph *scalar_candidate(FxRuleRun *r, FxBuf *why)
{
    FxGraph *c = fx_rule_project_pass(r->current, r->label);
    if (!c)
        fx_buf_puts(why, "nothing to read in place");
    return c;
}

static bool scalar_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    return fx_rule_measured_gain(r, cand, NULL, evidence, why);
}

static FxProof *scalar_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "a field of a record built in place is the value given it");
    return fx_prove_same_function(r->current, cand, r->host->lower, r->host->ctx,
                                  r->host->proof_cache, 5000);
}

const FxRule fx_rule_scalar = {REWRITE, scalar_applies, scalar_candidate, scalar_measurement,
                               scalar_obligations, NULL};
