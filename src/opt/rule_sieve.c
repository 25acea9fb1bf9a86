/*
 * rule_sieve.c: see rule_sieve.h. The prover checks the candidate against
 * its own derivation of it (fx_prove_sieve_rewrite).
 */
#include "rule_sieve.h"

#include <stdlib.h>
#include <string.h>

#include "rule.h"

/* Is node id a call, on the variable `slot`, of a predicate shaped like
 * prime_shape? */
static bool primality(const FxGraph *g, FxNodeId id, int64_t slot, const FxGraph *prime_shape,
                      FxGraphLookup lookup, void *ctx)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_CALL || n->n_inputs != 1)
        return false;
    const FxNode *arg = fx_graph_node(g, n->inputs[0]);
    if (arg->op != FX_NODE_VAR || arg->num != slot)
        return false;
    const FxGraph *pred = lookup(ctx, n->text);
    return pred && pred->n_params == 1 &&
           fx_graph_same_shape(pred, pred->root, prime_shape, prime_shape->root);
}

/* The conjunct of the chain of `and`s at filter that tests primality of
 * the variable `slot`, the leftmost, or {0}. */
static FxNodeId prime_conjunct(const FxGraph *g, FxNodeId filter, int64_t slot,
                               const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx)
{
    FxNodeId none = {0};
    if (!filter.v)
        return none;
    if (primality(g, filter, slot, prime_shape, lookup, ctx))
        return filter;
    const FxNode *f = fx_graph_node(g, filter);
    for (uint32_t k = 0; f->op == FX_NODE_AND && k < 2; k++) {
        FxNodeId c = prime_conjunct(g, f->inputs[k], slot, prime_shape, lookup, ctx);
        if (c.v)
            return c;
    }
    return none;
}

bool fx_rule_sieve_find(const FxGraph *g, const FxGraph *prime_shape, FxGraphLookup lookup,
                        void *ctx, FxNodeId *fold, FxNodeId *conj, const char **why)
{
    *why = "no fold over a range is filtered by primality";
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        if (n->op != FX_NODE_FOLD || fx_graph_node(g, n->inputs[0])->op != FX_NODE_RANGE)
            continue;
        if (n->kernel == FX_KERNEL_SIEVE) {
            *why = "the fold runs on the sieve already";
            continue;
        }
        *conj = prime_conjunct(g, n->inputs[1], n->num2, prime_shape, lookup, ctx);
        if (conj->v) {
            fold->v = i + 1;
            return true;
        }
    }
    return false;
}

FxGraph *fx_rule_sieve_candidate(const FxGraph *g, FxNodeId fold, FxNodeId conj,
                                 const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx,
                                 const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    FxNode *n = fx_graph_node(c, fold);
    n->inputs[1] = fx_prove_sieve_rest(g, fold, conj, lookup, ctx, 2000);
    for (uint32_t i = 0; i < g->n_nodes; i++) /* prime(p + 2): from a sieve too */
        if (fx_prove_sieved_call(g, n->inputs[1], (FxNodeId){i + 1}, prime_shape, lookup, ctx))
            c->nodes[i].num = 1;
    FX_CHECK(fx_graph_mark_kernel(c, fold, FX_KERNEL_SIEVE), "the fold found is not over a range");
    n->origin.rewrite = fx_graph_intern(c, "sieve");
    return c;
}

/* ---- the rule (rule.h) ---- */

typedef struct SieveAt {
    const FxGraph *prime_shape; /* the prelude's definition of `prime` */
    FxNodeId fold, conj;
} SieveAt;

static bool sieve_applies(FxRuleRun *r, FxBuf *why)
{
    const FxRuleHost *h = r->host;
    SieveAt *at = r->state = fx_xcalloc(1, sizeof(*at));
    const char *w = "the prelude has no `prime`";
    at->prime_shape = h->lower(h->ctx, "prime");
    bool applies = at->prime_shape && fx_rule_sieve_find(r->current, at->prime_shape, h->lower,
                                                         h->ctx, &at->fold, &at->conj, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxGraph *sieve_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    const SieveAt *at = r->state;
    return fx_rule_sieve_candidate(r->current, at->fold, at->conj, at->prime_shape, r->host->lower,
                                   r->host->ctx, r->label);
}

static bool sieve_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    char *extra = fx_xasprintf("\"fold\": %u, ", ((SieveAt *)r->state)->fold.v);
    bool worth = fx_rule_measured_gain(r, cand, extra, evidence, why);
    free(extra);
    return worth;
}

static FxProof *sieve_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    const SieveAt *at = r->state;
    fx_buf_puts(effect, "the sieve kernel lists (or counts) the primes of the range; the other "
                "conditions run on those");
    return fx_prove_sieve_rewrite(r->current, cand, at->fold, at->prime_shape, r->host->lower,
                                  r->host->ctx, 5000);
}

static void sieve_release(FxRuleRun *r)
{
    free(r->state);
}

const FxRule fx_rule_sieve = {"sieve", sieve_applies, sieve_candidate, sieve_measurement,
                              sieve_obligations, sieve_release};
