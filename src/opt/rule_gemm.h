/*
 * rule_gemm.h: the element-wise definition of a matrix product,
 * result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K), becomes a matrix
 * kernel: cache-blocked and on every core, exact for Int matrices, and for
 * Float ones bit-identical to the definition's order of additions (no
 * reassociation without a declared tolerance).
 */
#ifndef FX_RULE_GEMM_H
#define FX_RULE_GEMM_H

#include "graph/graph.h"

/* The first map of g with the shape of a matrix product
 * (fx_graph_matmul_shape) that is not on the kernel yet. */
bool fx_rule_gemm_find(const FxGraph *g, FxNodeId *map, const char **why);

/* The candidate: g with that map on the kernel (FX_KERNEL_GEMM). */
FxGraph *fx_rule_gemm_candidate(const FxGraph *g, FxNodeId map, const char *label);

#endif
