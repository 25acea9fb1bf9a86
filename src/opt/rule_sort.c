/*
 * rule_sort.c: see rule_sort.h. The candidate differs from g in one
 * attribute of its root sort node; fx_prove_sort_instance checks that both
 * sort the same list by the same key in the same direction, that the
 * elements have a total order and that a sort by key is stable, and cites
 * SortUnique.sort_correct_any.
 */
#include "rule_sort.h"

#include <string.h>

#include "rule.h"

bool fx_rule_sort_applies(const FxGraph *g, const char **why)
{
    const FxNode *root = g->root.v ? fx_graph_node(g, g->root) : NULL;
    if (!root || root->op != FX_NODE_SORT) {
        *why = "the result is not a sort";
        return false;
    }
    if (root->text && !strcmp(root->text, "kernels")) {
        *why = "the sort runs the kernels already";
        return false;
    }
    return true;
}

FxGraph *fx_rule_sort_candidate(const FxGraph *g, const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    FxNode *root = fx_graph_node(c, c->root);
    root->text = fx_graph_intern(c, "kernels");
    root->origin.rewrite = fx_graph_intern(c, "sort kernels");
    return c;
}

/* ---- the rule (rule.h) ---- */

static bool sort_applies(FxRuleRun *r, FxBuf *why)
{
    const char *w;
    bool applies = fx_rule_sort_applies(r->current, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxGraph *sort_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    return fx_rule_sort_candidate(r->current, r->label);
}

static bool sort_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    return fx_rule_measured_gain(r, cand, NULL, evidence, why);
}

static FxProof *sort_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "every kernel sorts stably: pdq and insertion sort int64 values, for "
                "which stability is moot, and keyed pairs by a stable merge or radix sort");
    return fx_prove_sort_instance(r->current, cand, true);
}

const FxRule fx_rule_sort = {"sort kernels", sort_applies, sort_candidate, sort_measurement,
                             sort_obligations, NULL};
