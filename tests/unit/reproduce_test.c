/*
 * reproduce_test.c: a refutation is shown only when both versions, run on
 * its arguments, differ (src/api/reproduce.c). A solver's claim that the
 * runs confirm is rewritten from them; one they do not (both fail alike on
 * a division by zero, or both give the same value) leaves the obligation
 * unknown, "unproved: the solver's model did not reproduce", and the proof
 * unproved.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "fx_test.h"
#include "graph/lower.h"
#include "proof/prove.h"

static FluxProgram *fp; /* tests/prove/rewrites.flux, loaded by the first test that runs */

/* The lowered graph of intent, under the name `as` (a candidate is a
 * version of the intent it rewrites). */
static FxGraph *graph(const char *intent, const char *as)
{
    FxGraph *g = fx_lower_intent(fp->prog, fx_program_find_intent(fp->prog, intent));
    FxGraph *r = fx_graph_copy_as(g, as, "candidate");
    fx_graph_free(g);
    return r;
}

/* One refuted validity obligation, at the arguments a and b, that says
 * `claim`; checked by running base and cand. */
static FxProof *checked(const char *base, const char *cand, const char *a, const char *b,
                        const char *claim)
{
    if (!fp)
        FX_CHECK(flux_program_load("tests/prove/rewrites.flux", NULL, stderr, &fp) == FLUX_OK,
                 "cannot load the suite");
    FxProof *p = fx_xcalloc(1, sizeof(*p));
    FxObligation o = {0};
    o.kind = fx_xstrdup("validity");
    o.what = fx_xstrdup("the same values");
    o.verdict = FX_PROOF_REFUTED;
    o.counterexample = fx_xstrdup(claim);
    o.witness = fx_xcalloc(3, sizeof(char *));
    o.witness[0] = fx_xstrdup(a);
    o.witness[1] = fx_xstrdup(b);
    o.n_witness = 2;
    fx_vec_push(&p->obligations, o);
    p->verdict = FX_PROOF_REFUTED;
    FxGraph *cur = graph(base, base), *c = graph(cand, base);
    fx_api_reproduce(fp, cur, c, p);
    fx_graph_free(cur);
    fx_graph_free(c);
    return p;
}

FX_TEST(a_confirmed_counterexample_is_the_runs)
{
    FxProof *p = checked("sub", "sub__bad_1_cex", "0", "1", "a = 0, b = 1: made up");
    EXPECT_EQ(p->verdict, FX_PROOF_REFUTED);
    EXPECT_STR_EQ(p->obligations.data[0].counterexample,
                  "a = 0, b = 1: the current version gives -1, the candidate 1");
    fx_proof_free(p);
}

FX_TEST(a_claim_the_runs_do_not_show_is_not_a_counterexample)
{
    /* b - a and a - b agree at a = b */
    FxProof *p = checked("sub", "sub__bad_1_cex", "2", "2",
                         "a = 2, b = 2: the current version gives 0, the candidate 1");
    const FxObligation *o = &p->obligations.data[0];
    EXPECT_EQ(p->verdict, FX_PROOF_UNKNOWN);
    EXPECT_EQ(o->verdict, FX_PROOF_UNKNOWN);
    EXPECT(o->counterexample == NULL);
    EXPECT(o->reason && strstr(o->reason, "unproved: the solver's model did not reproduce"));
    EXPECT(o->reason && strstr(o->reason, "the current version gives 0, the candidate 0"));
    fx_proof_free(p);
}

FX_TEST(both_failing_alike_is_no_difference)
{
    /* the false counterexample of a division by zero on both sides */
    FxProof *p = checked("remainder", "remainder__ok_1", "0", "0",
                         "a = 0, b = 0: the current version gives -1, the candidate 0");
    const FxObligation *o = &p->obligations.data[0];
    EXPECT_EQ(p->verdict, FX_PROOF_UNKNOWN);
    EXPECT(o->counterexample == NULL);
    EXPECT(o->reason && strstr(o->reason, "the current version fails ("));
    EXPECT(o->reason && strstr(o->reason, "division by zero), the candidate fails ("));
    fx_proof_free(p);
}

int main(void)
{
    int rc = fx_test_run();
    flux_program_free(fp);
    return rc;
}
