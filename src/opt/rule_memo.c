/*
 * rule_memo.c: see rule_memo.h. The candidate is the very same graph with
 * the memo kernel around it, so the prover's validity obligation compares a
 * graph with itself and the rule's soundness rests on purity, which every
 * intent has by construction (no state, input, output or randomness).
 */
#include "rule_memo.h"

#include <string.h>

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
    if (!fx_graph_args_key_a_table(g)) {
        *why = "a parameter is not a number, boolean or string to key a table";
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
