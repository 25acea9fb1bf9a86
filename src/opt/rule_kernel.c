/*
 * rule_kernel.c: the rules of the kernel registry (graph/kernel.h): for
 * each kernel whose shape is its whole precondition (FxKernel.rule: the
 * matrix kernel, the query index, the closed-form sum), the first node of
 * the running version with that shape goes on the kernel. One FxRule
 * serves them all: the round gives it a turn per kernel (r->kernel) under
 * the kernel's rule name, so a new kernel needs no rule of its own.
 * fx_prove_kernel_rewrite proves the candidate.
 */
#include <stdlib.h>

#include "rule.h"

static bool kernel_applies(FxRuleRun *r, FxBuf *why)
{
    uint32_t *at = r->state = fx_xcalloc(1, sizeof(*at));
    const char *w;
    bool applies = fx_kernel_find(r->current, r->kernel, at, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxGraph *kernel_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    return fx_kernel_candidate(r->current, *(uint32_t *)r->state, r->kernel, r->label);
}

static bool kernel_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    /* the node in the evidence by its op: "map": 7, "fold": 9 */
    char *extra = fx_xasprintf("\"%s\": %u, ", fx_graph_op_name((FxNodeOp)fx_kernel(r->kernel)->marks),
                               *(uint32_t *)r->state);
    bool worth = fx_rule_measured_gain(r, cand, extra, evidence, why);
    free(extra);
    return worth;
}

static FxProof *kernel_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, fx_kernel(r->kernel)->effect);
    return fx_prove_kernel_rewrite(r->current, cand, (FxNodeId){*(uint32_t *)r->state}, r->kernel,
                                   r->host->proof_cache, 5000);
}

static void kernel_release(FxRuleRun *r)
{
    free(r->state);
}

const FxRule fx_rule_kernels = {NULL, kernel_applies, kernel_candidate, kernel_measurement,
                                kernel_obligations, kernel_release};
