/*
 * rule_fold.h: constant folding: what the constants of a graph decide is
 * decided once, when the version is made, not at every run.
 */
#ifndef FX_RULE_FOLD_H
#define FX_RULE_FOLD_H

#include "graph/graph.h"

/* Folds g's constants (rule_fold.c says exactly what is folded, and what is
 * deliberately not). Nodes the folding leaves unread stay in the result
 * (fx_rule_dce drops them). Returns the rewritten graph labelled `label`,
 * frozen, with g's intent, parameters, return type and kernel (caller
 * frees), or NULL when the rule changes nothing. */
FxGraph *fx_rule_fold(const FxGraph *g, const char *label);

#endif
