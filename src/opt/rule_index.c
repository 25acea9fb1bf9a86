/*
 * rule_index.c: see rule_index.h. The checker proves it
 * (fx_prove_index_rewrite).
 */
#include "rule_index.h"

#include <string.h>

bool fx_rule_index_find(const FxGraph *g, FxNodeId *fold, const char **why)
{
    *why = "no fold selects the elements of a collection by comparing a field";
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        FxNodeId id = {i + 1}, cmp, value;
        if (!fx_graph_selection_shape(g, id, &cmp, &value))
            continue;
        if (g->nodes[i].kernel == FX_KERNEL_INDEX) {
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
    FX_CHECK(fx_graph_mark_kernel(c, fold, FX_KERNEL_INDEX), "the fold found is no selection");
    n->origin.rewrite = fx_graph_intern(c, "query index");
    return c;
}
