/*
 * rule_gemm.c: see rule_gemm.h. The checker proves it
 * (fx_prove_gemm_rewrite).
 */
#include "rule_gemm.h"

#include <stdlib.h>
#include <string.h>

#include "rule.h"

bool fx_rule_gemm_find(const FxGraph *g, FxNodeId *map, const char **why)
{
    *why = "no element-wise definition has the shape of a matrix product";
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        FxNodeId id = {i + 1}, a, b, fold;
        if (!fx_graph_matmul_shape(g, id, &a, &b, &fold))
            continue;
        if (g->nodes[i].text && !strcmp(g->nodes[i].text, "gemm")) {
            *why = "the matrix product runs on the kernel already";
            continue;
        }
        *map = id;
        return true;
    }
    return false;
}

FxGraph *fx_rule_gemm_candidate(const FxGraph *g, FxNodeId map, const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    FxNode *n = fx_graph_node(c, map);
    n->text = fx_graph_intern(c, "gemm");
    n->origin.rewrite = fx_graph_intern(c, "matrix kernel");
    return c;
}

/* ---- the rule (rule.h) ---- */

static bool gemm_applies(FxRuleRun *r, FxBuf *why)
{
    FxNodeId *map = r->state = fx_xcalloc(1, sizeof(*map));
    const char *w;
    bool applies = fx_rule_gemm_find(r->current, map, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxGraph *gemm_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    return fx_rule_gemm_candidate(r->current, *(FxNodeId *)r->state, r->label);
}

static bool gemm_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    char *extra = fx_xasprintf("\"map\": %u, ", ((FxNodeId *)r->state)->v);
    bool worth = fx_rule_measured_gain(r, cand, extra, evidence, why);
    free(extra);
    return worth;
}

static FxProof *gemm_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "every element is computed from the parameters alone: the kernel may "
                "compute the elements in any order and on any thread");
    return fx_prove_gemm_rewrite(r->current, cand, *(FxNodeId *)r->state, r->host->proof_cache,
                                 5000);
}

static void gemm_release(FxRuleRun *r)
{
    free(r->state);
}

const FxRule fx_rule_gemm = {"matrix kernel", gemm_applies, gemm_candidate, gemm_measurement,
                             gemm_obligations, gemm_release};
