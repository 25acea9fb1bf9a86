/*
 * rule_cse.h: common sub-expression elimination: two nodes that compute
 * the same thing from the same inputs become one, so `f(n-1) + f(n-1)`
 * calls f once.
 */
#ifndef FX_RULE_CSE_H
#define FX_RULE_CSE_H

#include "graph/graph.h"

/* Merges g's equal sub-expressions where that evaluates nothing earlier or
 * more often than g does (rule_cse.c says where exactly). Nodes the merge
 * leaves unread stay in the result (fx_rule_dce drops them). Returns the
 * rewritten graph labelled `label`, frozen, with g's intent, parameters,
 * return type and kernel (caller frees), or NULL when the rule changes
 * nothing. */
FxGraph *fx_rule_cse(const FxGraph *g, const char *label);

#endif
