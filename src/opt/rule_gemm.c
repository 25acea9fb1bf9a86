/*
 * rule_gemm.c: see rule_gemm.h. The checker proves it
 * (fx_prove_gemm_rewrite).
 */
#include "rule_gemm.h"

bool fx_rule_gemm_find(const FxGraph *g, FxNodeId *map, const char **why)
{
    *why = "no element-wise definition has the shape of a matrix product";
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        FxNodeId id = {i + 1}, a, b, fold;
        if (!fx_graph_matmul_shape(g, id, &a, &b, &fold))
            continue;
        if (g->nodes[i].kernel == FX_KERNEL_GEMM) {
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
    FX_CHECK(fx_graph_mark_kernel(c, map, FX_KERNEL_GEMM), "the map found is no matrix product");
    n->origin.rewrite = fx_graph_intern(c, "matrix kernel");
    return c;
}
