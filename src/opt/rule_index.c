/*
 * rule_index.c: see rule_index.h. The checker proves it
 * (fx_prove_index_rewrite).
 */
#include "rule_index.h"

#include <stdlib.h>
#include <string.h>

#include "rule.h"

bool fx_rule_index_find(const FxGraph *g, FxNodeId *fold, const char **why)
{
    *why = "no fold selects the elements of a collection by comparing a field";
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        FxNodeId id = {i + 1}, cmp, value;
        if (!fx_graph_selection_shape(g, id, &cmp, &value))
            continue;
        if (g->nodes[i].text && !strcmp(g->nodes[i].text, "index")) {
            *why = "the query runs on the kernel already";
            continue;
        }
        *fold = id;
        return true;
    }
    return false;
}

FxGraph *fx_rule_index_candidate(const FxGraph *g, FxNodeId fold, const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    FxNode *n = fx_graph_node(c, fold);
    n->text = fx_graph_intern(c, "index");
    n->origin.rewrite = fx_graph_intern(c, "query index");
    return c;
}

/* ---- the rule (rule.h) ---- */

static bool index_applies(FxRuleRun *r, FxBuf *why)
{
    FxNodeId *fold = r->state = fx_xcalloc(1, sizeof(*fold));
    const char *w;
    bool applies = fx_rule_index_find(r->current, fold, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxGraph *index_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    return fx_rule_index_candidate(r->current, *(FxNodeId *)r->state, r->label);
}

static bool index_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    char *extra = fx_xasprintf("\"fold\": %u, ", ((FxNodeId *)r->state)->v);
    bool worth = fx_rule_measured_gain(r, cand, extra, evidence, why);
    free(extra);
    return worth;
}

static FxProof *index_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "a scan compares each row natively; from a collection's second query in "
                "a run a sorted index answers by binary search");
    return fx_prove_index_rewrite(r->current, cand, *(FxNodeId *)r->state);
}

static void index_release(FxRuleRun *r)
{
    free(r->state);
}

const FxRule fx_rule_index = {"query index", index_applies, index_candidate, index_measurement,
                              index_obligations, index_release};
