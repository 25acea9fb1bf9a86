/*
 * rule_hot.h: hot inputs: a pure function asked again and again for the
 * same arguments keeps a bounded table of their results, looked up before
 * anything runs. Sound by purity: a result computed once (by a version
 * proved equal to v1) is the result forever.
 */
#ifndef FX_RULE_HOT_H
#define FX_RULE_HOT_H

#include "graph/graph.h"
#include "opt/analyze.h"

/* Does the rule apply: g reads no data source (reads_data: its results
 * would change with the file; rule_materialise.h keeps those), parameters
 * and result are integers or booleans (the table's cells), and inputs that recur at least FX_HOT_MIN times make
 * at least half of the newest FX_HOT_WINDOW runs? On false, *why says which
 * condition failed (static text). */
bool fx_rule_hot_applies(const FxGraph *g, bool reads_data, const FxAnalysis *a,
                         const char **why);

/* Is every row of `rows` (n rows of n_params argument texts) a row of g's
 * table already? */
bool fx_rule_hot_has_all(const FxGraph *g, uint32_t n, const char *const *rows);

/* The candidate: g under a table of n rows (n_params argument texts then
 * the result's text each), labelled `label`. Caller frees. */
FxGraph *fx_rule_hot_candidate(const FxGraph *g, uint32_t n, const char *const *cells,
                               const char *label);

#endif
