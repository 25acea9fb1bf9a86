/*
 * rule_index.h: a query over a collection, `result contains all users
 * where user.age >= age_min`, becomes a fold over what a query kernel
 * selects: a scan in native code, and from a collection's second query in
 * a run a sorted index on the field, searched in O(log n) per query, the
 * rows returned in the collection's order.
 */
#ifndef FX_RULE_INDEX_H
#define FX_RULE_INDEX_H

#include "graph/graph.h"

/* The first fold of g that is a selection (fx_graph_selection_shape) not
 * on the query kernel yet. */
bool fx_rule_index_find(const FxGraph *g, FxNodeId *fold, const char **why);

/* The candidate: g with that fold on the query kernel (FX_KERNEL_INDEX). */
FxGraph *fx_rule_index_candidate(const FxGraph *g, FxNodeId fold, const char *label);

#endif
