/*
 * rule_inline_test.c: inline expansion, taken from the table of rules as
 * the learning round takes it: where it applies (and where not: a Natural
 * parameter given an Int, a recursive callee, a caller with a loop), the
 * candidate's calls, the checker's proof, the measurement's decision, and
 * the candidate's values against the original's.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/interp.h"
#include "fx_test.h"
#include "lang/program.h"
#include "graph/lower.h"
#include "opt/rule.h"

static const char source[] =
    "intent sq(x: Int) -> Int:\n"
    "    constraints:\n"
    "        - result = x * x\n"
    "intent within(x: Int, lo: Int, hi: Int) -> Bool:\n"
    "    constraints:\n"
    "        - result = lo <= x and x <= hi\n"
    "intent half(x: Natural) -> Natural:\n"
    "    constraints:\n"
    "        - result = x div 2\n"
    "intent down(n: Natural) -> Natural:\n"
    "    constraints:\n"
    "        - down(0) = 0\n"
    "        - down(n) = down(n - 1)\n"
    "intent walk(n: Natural) -> Int:\n"
    "    constraints:\n"
    "        - walk(0) = 0\n"
    "        - walk(n) = walk(n - 1) + (if within(n mod 7, 2, 4) then sq(n + 1) - sq(n - 1)"
    " else sq(n))\n"
    "intent signed(n: Int) -> Natural:\n"
    "    constraints:\n"
    "        - result = half(n * n) + down(2)\n"
    "intent looped(n: Natural) -> Int:\n"
    "    constraints:\n"
    "        - result = sum(sq(i) for i in 0..n)\n";

static FxDiag diag;
static FxProgram *prog;
static FX_VEC(FxGraph *) made;

static const FxGraph *lower(void *ctx, const char *intent)
{
    (void)ctx;
    fx_vec_foreach(FxGraph *, g, &made) if (!strcmp((*g)->intent, intent)) return *g;
    const FxIntent *in = fx_program_find_intent(prog, intent);
    FxGraph *g = in ? fx_lower_intent(prog, in) : NULL;
    if (g)
        fx_vec_push(&made, g);
    return g;
}

/* The measurement's timings: the running version, then the candidate. */
static double times[2];
static int timed;

static double best_time(void *ctx, const FxGraph *g, const char *expr)
{
    (void)ctx, (void)g, (void)expr;
    return times[timed++ % 2];
}

static FxRuleHost host = {.lower = lower, .best_time = best_time};

static const FxRule *inline_rule(void)
{
    for (size_t i = 0; i < fx_rules_count; i++)
        if (!strcmp(fx_rules[i]->name, "inline expansion"))
            return fx_rules[i];
    return NULL;
}

static FxRuleRun run_on(const char *intent)
{
    if (!prog) {
        prog = fx_program_load_text(&diag, "inline.flux", source, strlen(source), NULL);
        FX_CHECK(prog && !fx_diag_errors(&diag), "the test program does not check");
    }
    return (FxRuleRun){.host = &host, .intent = intent, .current = lower(NULL, intent),
                       .label = "v2", .expr = "walk(100)"};
}

static int calls_of(const FxGraph *g, const char *intent)
{
    int n = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        n += g->nodes[i].op == FX_NODE_CALL && !strcmp(g->nodes[i].text, intent);
    return n;
}

static FxValue value(const FxGraph *g, int64_t n)
{
    FxRuntime *rt = fx_runtime_new(prog);
    fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version));
    FxValue arg = fx_val_int(n), v = fx_val_int(-1);
    EXPECT(fx_runtime_call(rt, g->intent, &arg, 1, &v) == FX_OK);
    fx_runtime_free(rt);
    return v;
}

FX_TEST(inlines_small_callees_and_is_proved)
{
    const FxRule *rule = inline_rule();
    FX_CHECK(rule, "no inline expansion in the table");
    FxRuleRun r = run_on("walk");
    FxBuf why = {0}, evidence = {0}, effect = {0};
    EXPECT(rule->applies(&r, &why));
    FxGraph *cand = rule->candidate(&r, &why);
    FX_CHECK(cand, "no candidate: %s", fx_buf_str(&why));
    char verify[256] = "";
    EXPECT(fx_graph_verify(cand, verify, sizeof(verify)));
    EXPECT_EQ(calls_of(r.current, "sq"), 3);
    EXPECT_EQ(calls_of(cand, "sq") + calls_of(cand, "within"), 0);
    EXPECT_EQ(calls_of(cand, "walk"), 1); /* its own recursion stays */
    FxProof *p = rule->obligations(&r, cand, &effect);
    EXPECT_EQ(p->verdict, FX_PROOF_PROVED);
    EXPECT(effect.len > 0);
    fx_proof_free(p);
    for (int64_t n = 0; n < 40; n++) {
        FxValue a = value(r.current, n), b = value(cand, n);
        EXPECT(fx_val_equal(a, b));
        fx_value_release(a);
        fx_value_release(b);
    }
    times[0] = 10, times[1] = 9; /* 1.1x: not worth a version */
    EXPECT(!rule->measurement(&r, cand, &evidence, &why));
    times[0] = 10, times[1] = 5;
    fx_buf_free(&why);
    EXPECT(rule->measurement(&r, cand, &evidence, &why));
    EXPECT(strstr(fx_buf_str(&evidence), "\"predicted_gain\": 2") != NULL);
    if (rule->release)
        rule->release(&r);
    fx_graph_free(cand);
    fx_buf_free(&why);
    fx_buf_free(&evidence);
    fx_buf_free(&effect);
}

FX_TEST(leaves_what_it_cannot_prove_or_would_change)
{
    const FxRule *rule = inline_rule();
    FX_CHECK(rule, "no inline expansion in the table");
    /* half's Natural parameter checks the sign of an Int; down recurses */
    FxRuleRun r = run_on("signed");
    FxBuf why = {0};
    EXPECT(!rule->applies(&r, &why));
    EXPECT_STR_EQ(fx_buf_str(&why), "no call of a small intent that calls nothing");
    fx_buf_free(&why);
    r = run_on("looped"); /* the checker does not unroll a loop of n steps */
    EXPECT(!rule->applies(&r, &why));
    EXPECT_STR_EQ(fx_buf_str(&why), "the version computes more than integers and booleans "
                                    "without loops");
    fx_buf_free(&why);
}

int main(void)
{
    int rc = fx_test_run();
    fx_vec_foreach(FxGraph *, g, &made) fx_graph_free(*g);
    fx_vec_free(&made);
    fx_program_free(prog);
    fx_diag_free(&diag);
    return rc;
}
