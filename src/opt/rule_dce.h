/*
 * rule_dce.h: dead code elimination, the compaction pass of the rewrites,
 * and the two helpers every structural rule (rule_fold.h, rule_cse.h,
 * this one) builds its new version with.
 *
 * Rules never change a graph: each builds a new version, frozen, labelled
 * as the caller says. Folding and CSE leave behind nodes nothing reads any
 * more (an `if`'s dead branch, the second of two merged calls); DCE is the
 * pass that drops them.
 */
#ifndef FX_RULE_DCE_H
#define FX_RULE_DCE_H

#include "graph/graph.h"

/* The nodes reachable from the root, through every input, lazy ones too,
 * dropped otherwise; ids renumbered in the same order, so the dependency
 * order holds. Returns the new version labelled `label`, frozen (caller
 * frees), or NULL when every node is reachable. */
FxGraph *fx_rule_dce(const FxGraph *g, const char *label);

/* A new, unfrozen version of g labelled `label` with g's intent,
 * parameters, slots, return type and kernel (a recurrence's certificate
 * too), and no nodes yet. Caller frees. */
FxGraph *fx_rule_new_version(const FxGraph *g, const char *label);

/* Appends to `into` a copy of node n of another graph whose input k is
 * map[n->inputs[k].v], an id in `into` (map[0] must be {0}: an input n does
 * not have stays absent). Op, type, text, num, num2 and origin are kept.
 * Returns its id. */
FxNodeId fx_rule_copy_node(FxGraph *into, const FxNode *n, const FxNodeId *map);

#endif
