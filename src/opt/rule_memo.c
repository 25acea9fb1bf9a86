/*
 * rule_memo.c: see rule_memo.h. The candidate is the very same graph with
 * the memo kernel around it, so the prover's validity obligation compares a
 * graph with itself and the rule's soundness rests on purity, which every
 * intent has by construction (no state, input, output or randomness).
 */
#include "rule_memo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

bool fx_rule_memo_applies(const FxGraph *g, const FxCallEvidence *ev, const char **why)
{
    if (g->kernel) {
        *why = "this version already keeps a table of its results";
        return false;
    }
    if (!fx_graph_calls_itself(g)) {
        *why = "the intent does not call itself";
        return false;
    }
    bool lists;
    if (!fx_graph_args_key_a_table_by_value(g, &lists)) {
        *why = "a parameter is not a number, boolean or string, or a list of them, to key a "
               "table";
        return false;
    }
    if (ev->calls < 64 || ev->calls < 2 * ev->distinct) {
        *why = "the recorded run shows no repeated work";
        return false;
    }
    return true;
}

FxGraph *fx_rule_memo_candidate(const FxGraph *g, const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    c->kernel = FX_KERNEL_MEMO;
    return c;
}

/* ---- the rule (rule.h) ---- */

/* The evidence is the newest EXPR run again, its calls of the intent
 * counted (r->state keeps the count). */
static bool memo_applies(FxRuleRun *r, FxBuf *why)
{
    FxCallEvidence *ev = r->state = fx_xcalloc(1, sizeof(*ev));
    const char *w;
    if (!r->host->calls(r->host->ctx, r->expr, ev)) {
        fx_buf_puts(why, "the newest run calls no intent");
        return false;
    }
    if (!fx_rule_memo_applies(r->current, ev, &w)) {
        fx_buf_puts(why, w);
        return false;
    }
    return true;
}

static FxGraph *memo_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    return fx_rule_memo_candidate(r->current, r->label);
}

static bool memo_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    const FxCallEvidence *ev = r->state;
    bool lists;
    if (fx_graph_args_key_a_table_by_value(r->current, &lists) && lists) {
        /* a list argument is hashed at each call: the table must be timed to pay */
        char extra[96];
        snprintf(extra, sizeof(extra), "\"calls\": %llu, \"distinct\": %llu, \"list_keys\": true, ",
                 (unsigned long long)ev->calls, (unsigned long long)ev->distinct);
        return fx_rule_measured_gain(r, cand, extra, evidence, why);
    }
    fx_buf_puts(evidence, "{\"expr\": ");
    fx_rule_expr_json(r->expr, evidence);
    fx_buf_printf(evidence, ", \"calls\": %llu, \"distinct\": %llu%s, \"predicted_gain\": %.3g}",
                  (unsigned long long)ev->calls, (unsigned long long)ev->distinct,
                  ev->calls >= FX_RULE_EVIDENCE_STEPS / 2 ? ", \"cut\": true" : "",
                  (double)ev->calls / (double)(ev->distinct ? ev->distinct : 1));
    return true;
}

static FxProof *memo_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_printf(effect, "%s is pure by construction (no state, input, output or randomness), "
                  "so a table of its results is its results", r->intent);
    return fx_prove_same_function(r->current, cand, NULL, NULL, r->host->proof_cache, 5000);
}

static void memo_release(FxRuleRun *r)
{
    free(r->state);
}

const FxRule fx_rule_memo = {"memoization", memo_applies, memo_candidate, memo_measurement,
                             memo_obligations, memo_release};
