/*
 * rule_materialise.h: materialised results: a function that reads a data
 * source and is asked again and again for the same arguments keeps the
 * results for those arguments while the sources are unchanged. Unlike a
 * hot-input table (rule_hot.h), nothing is computed ahead: the runtime
 * keeps what it computes, stamped with the sources' files, and a changed
 * file drops it. Sound because the nodes are the same: a kept result is the
 * value the nodes computed for the same arguments over the same data.
 */
#ifndef FX_RULE_MATERIALISE_H
#define FX_RULE_MATERIALISE_H

#include "graph/graph.h"
#include "opt/analyze.h"

/* Does the rule apply: g reads a data source (reads_data, directly or by a
 * call), its parameters are integers or booleans, and inputs that recur at
 * least FX_HOT_MIN times make at least half of the newest runs? On false,
 * *why says which condition failed (static text). */
bool fx_rule_materialise_applies(const FxGraph *g, bool reads_data, const FxAnalysis *a,
                                 const char **why);

/* Is every row of `rows` (n rows of n_params argument texts) materialised
 * by g already? */
bool fx_rule_materialise_has_all(const FxGraph *g, uint32_t n, const char *const *rows);

/* The candidate: g with the n rows' results materialised, labelled
 * `label`. Caller frees. */
FxGraph *fx_rule_materialise_candidate(const FxGraph *g, uint32_t n, const char *const *rows,
                                       const char *label);

#endif
