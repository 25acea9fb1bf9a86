/*
 * rule_simplify.c: simplification: constant folding (rule_fold.h), common
 * sub-expressions (rule_cse.h) and dead code (rule_dce.h) as one rule: the
 * same computation with fewer nodes. It is worth a version when the newest
 * EXPR runs FX_RULE_MIN_GAIN times fewer operations; the prover shows the
 * two graphs the same function.
 */
#include <stdlib.h>

#include <string.h>

#include "rule.h"
#include "rule_cse.h"
#include "rule_dce.h"
#include "rule_fold.h"

/* Applies a pass in place of *g when it changes something; frees the graph
 * it replaces unless that is `keep`. */
static bool step(FxGraph *(*pass)(const FxGraph *, const char *), const FxGraph **g,
                 const FxGraph *keep, const char *label)
{
    FxGraph *next = pass(*g, label);
    if (!next)
        return false;
    if (*g != keep)
        fx_graph_free((FxGraph *)*g);
    *g = next;
    return true;
}

/* The passes run here, since the rule's name says which changed anything. */
static bool simplify_applies(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    bool folded = step(fx_rule_fold, &g, r->current, r->label);
    bool dropped = step(fx_rule_dce, &g, r->current, r->label);
    bool merged = step(fx_rule_cse, &g, r->current, r->label);
    dropped |= step(fx_rule_dce, &g, r->current, r->label);
    if (g == r->current) {
        fx_buf_puts(why, "no constant to fold, sub-expression to share or dead node");
        return false;
    }
    FxBuf what = {0};
    if (folded)
        fx_buf_puts(&what, "constant folding");
    if (merged)
        fx_buf_printf(&what, "%scommon sub-expressions", what.len ? ", " : "");
    if (dropped)
        fx_buf_printf(&what, "%sdead code", what.len ? ", " : "");
    r->name = fx_xasprintf("simplification (%s)", fx_buf_str(&what));
    fx_buf_free(&what);
    r->state = (FxGraph *)g;
    return true;
}

static FxGraph *simplify_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    FxGraph *g = r->state;
    r->state = NULL;
    return g;
}

static bool simplify_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    const FxRuleHost *h = r->host;
    uint64_t before = h->work(h->ctx, r->current, r->expr), after = h->work(h->ctx, cand, r->expr);
    double gain = after ? (double)before / (double)after : 0;
    if (gain < FX_RULE_MIN_GAIN) {
        if (before == 0)
            fx_buf_printf(why, "no operation of it ran for `%.60s%s`", r->expr,
                          strlen(r->expr) > 60 ? "..." : "");
        else
            fx_buf_printf(why, "`%.60s%s` would run %llu operations instead of %llu, a gain of "
                          "%.2gx", r->expr, strlen(r->expr) > 60 ? "..." : "",
                          (unsigned long long)after, (unsigned long long)before, gain);
        return false;
    }
    fx_buf_puts(evidence, "{\"expr\": ");
    fx_rule_expr_json(r->expr, evidence);
    fx_buf_printf(evidence, ", \"nodes\": [%u, %u], \"node_evaluations\": [%llu, %llu], "
                  "\"predicted_gain\": %.3g}", r->current->n_nodes, cand->n_nodes,
                  (unsigned long long)before, (unsigned long long)after, gain);
    return true;
}

static FxProof *simplify_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    (void)effect;
    return fx_prove_same_function(r->current, cand, NULL, NULL, r->host->proof_cache, 5000);
}

static void simplify_release(FxRuleRun *r)
{
    fx_graph_free(r->state);
}

const FxRule fx_rule_simplify = {"simplification", simplify_applies, simplify_candidate,
                                 simplify_measurement, simplify_obligations, simplify_release};
