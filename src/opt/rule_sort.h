/*
 * rule_sort.h: the naive sort becomes the sort kernels. v1 sorts by bubble
 * sort (the reading of "a sorted permutation" that is correct by
 * construction); the candidate's sort node runs a kernel chosen per call
 * from the input's features (insertion, pdq, radix, parallel radix, vqsort; a
 * stable merge sort for values that are not 64-bit integers).
 */
#ifndef FX_RULE_SORT_H
#define FX_RULE_SORT_H

#include "graph/graph.h"

/* Does the rule apply: g's result is a sort (the sort lemma instance is
 * about the result) that does not run the kernels yet? On false, *why says
 * which condition failed (static text). */
bool fx_rule_sort_applies(const FxGraph *g, const char **why);

/* The candidate: g with its sort node on the kernels, labelled `label`.
 * Caller frees. */
FxGraph *fx_rule_sort_candidate(const FxGraph *g, const char *label);

#endif
