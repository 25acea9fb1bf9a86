/*
 * rule_inline_test.c: inline expansion, taken from the table of rules as
 * the learning round takes it: where it applies (and where not: a Natural
 * parameter given an Int, a recursive callee), the candidate's calls, the
 * proof by unfolding (floats, lists, records and loops included), the
 * measurement's decision, the candidate's values against the original's,
 * and an argument that may fail still failing the call when the callee
 * reads its parameter only in a branch. The unfolding refuses a candidate
 * that computes anything differently, a float product commuted included.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/interp.h"
#include "exec/native.h"
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
    "        - result = sum(sq(i) for i in 0..n)\n"
    "type P = { x: Float, m: Float }\n"
    "intent gap(a: P, b: P) -> Float:\n"
    "    constraints:\n"
    "        - result = (a.x - b.x) * (a.x - b.x) + 0.5\n"
    "intent pull(a: P, b: P) -> Float:\n"
    "    constraints:\n"
    "        - result = b.m / (gap(a, b) * gap(a, b))\n"
    "intent pulls(n: Natural) -> Float:\n"
    "    constraints:\n"
    "        - result = sum(pull({x: float(i), m: 1.0}, {x: float(j) * 0.5, m: 2.0})"
    " for i in 0..n for j in 0..n)\n"
    "intent pulls_commuted(n: Natural) -> Float:\n"
    "    constraints:\n"
    "        - result = sum(2.0 / (((float(i) - float(j) * 0.5) * (float(i) - float(j) * 0.5)"
    " + 0.5) * ((float(j) * 0.5 - float(i)) * (float(i) - float(j) * 0.5) + 0.5))"
    " for i in 0..n for j in 0..n)\n"
    "intent pulls_by_hand(n: Natural) -> Float:\n"
    "    constraints:\n"
    "        - result = sum(2.0 / (((float(i) - float(j) * 0.5) * (float(i) - float(j) * 0.5)"
    " + 0.5) * ((float(i) - float(j) * 0.5) * (float(i) - float(j) * 0.5) + 0.5))"
    " for i in 0..n for j in 0..n)\n"
    "intent either(x: Int, c: Bool) -> Int:\n"
    "    constraints:\n"
    "        - result = if c then x else 0\n"
    "intent fifth(n: Natural) -> Int:\n"
    "    constraints:\n"
    "        - result = either([k * 2 for k in 0..n][5], n > 100)\n"
    "intent total(n: Natural) -> Int:\n"
    "    constraints:\n"
    "        - result = sum(k * k for k in 0..n)\n"
    "intent shown(n: Natural) -> String:\n"
    "    constraints:\n"
    "        - result = str(total(n)) ++ \" in all\"\n";

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
        if (fx_rules[i]->name && !strcmp(fx_rules[i]->name, "inline expansion"))
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

static bool native_signature(void *ctx, const FxGraph *g)
{
    (void)ctx;
    return fx_native_signature(prog, g);
}

/* A loop native code could run stays a call from an intent whose result
 * native code does not hold (a String): expanded, it would run
 * interpreted on a trained store. */
FX_TEST(keeps_a_loop_within_reach_of_native_code)
{
    const FxRule *rule = inline_rule();
    FX_CHECK(rule, "no inline expansion in the table");
    FxRuleRun r = run_on("shown");
    FxBuf why = {0};
    EXPECT(rule->applies(&r, &why)); /* no native tier: expanded */
    host.native_signature = native_signature;
    fx_buf_free(&why);
    EXPECT(!fx_native_signature(prog, r.current));
    EXPECT(fx_native_signature(prog, lower(NULL, "total")));
    EXPECT(!rule->applies(&r, &why));
    EXPECT(strstr(fx_buf_str(&why), "looping where native code could run it") != NULL);
    host.native_signature = NULL;
    fx_buf_free(&why);
}

FX_TEST(leaves_what_it_cannot_expand)
{
    const FxRule *rule = inline_rule();
    FX_CHECK(rule, "no inline expansion in the table");
    /* half's Natural parameter checks the sign of an Int; down recurses */
    FxRuleRun r = run_on("signed");
    FxBuf why = {0};
    EXPECT(!rule->applies(&r, &why));
    EXPECT(strstr(fx_buf_str(&why), "no call of another intent to expand") != NULL);
    fx_buf_free(&why);
}

/* cand proved the same function as r's running version */
static FxProofVerdict verdict(const FxGraph *cur, const FxGraph *cand)
{
    FxProof *p = fx_prove_same_function(cur, cand, lower, NULL, NULL, 2000);
    FxProofVerdict v = p->verdict;
    fx_proof_free(p);
    return v;
}

static FxValue float_value(const FxGraph *g, int64_t n, FxStatus *st)
{
    FxRuntime *rt = fx_runtime_new(prog);
    fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version));
    FxValue arg = fx_val_int(n), v = fx_val_int(-1);
    *st = fx_runtime_call(rt, g->intent, &arg, 1, &v);
    fx_runtime_free(rt);
    return v;
}

FX_TEST(expands_floats_records_and_loops_proved_by_unfolding)
{
    const FxRule *rule = inline_rule();
    FxRuleRun r = run_on("looped");
    FxBuf why = {0};
    EXPECT(rule->applies(&r, &why));
    FxGraph *cand = rule->candidate(&r, &why);
    EXPECT_EQ(calls_of(cand, "sq"), 0);
    EXPECT_EQ(verdict(r.current, cand), FX_PROOF_PROVED);
    fx_graph_free(cand);

    r = run_on("pulls"); /* pull, then the two gaps in it, shared */
    EXPECT(rule->applies(&r, &why));
    cand = rule->candidate(&r, &why);
    char bad[256] = "";
    EXPECT(fx_graph_verify(cand, bad, sizeof(bad)));
    EXPECT_EQ(calls_of(cand, "pull") + calls_of(cand, "gap"), 0);
    int muls = 0;
    for (uint32_t i = 0; i < cand->n_nodes; i++)
        muls += cand->nodes[i].op == FX_NODE_MUL;
    EXPECT_EQ(muls, 3); /* j * 0.5, gap's square, gap * gap: gap is computed once */
    int records = 0;
    for (uint32_t i = 0; i < cand->n_nodes; i++)
        records += cand->nodes[i].op == FX_NODE_RECORD;
    EXPECT_EQ(records, 0); /* the two points' fields are read where they are built */
    FxProof *p = fx_prove_same_function(r.current, cand, lower, NULL, NULL, 2000);
    EXPECT_EQ(p->verdict, FX_PROOF_PROVED);
    EXPECT_STR_EQ(p->obligations.data[0].kind, "unfolding");
    EXPECT(strstr(p->obligations.data[0].what, "calls of pull, gap expanded in place") != NULL);
    EXPECT(strstr(p->obligations.data[0].what, "fields of records built in place") != NULL);
    fx_proof_free(p);
    for (int64_t n = 0; n < 6; n++) { /* bit for bit */
        FxStatus s1, s2;
        FxValue a = float_value(r.current, n, &s1), b = float_value(cand, n, &s2);
        EXPECT(s1 == FX_OK && s2 == FX_OK && fx_val_equal(a, b));
        fx_value_release(a);
        fx_value_release(b);
    }
    /* the same arithmetic written out is the same term; a product
     * commuted is not, though a solver over the reals would say so */
    FxGraph *by_hand = fx_graph_copy_as(lower(NULL, "pulls_by_hand"), "pulls", "v3");
    FxGraph *commuted = fx_graph_copy_as(lower(NULL, "pulls_commuted"), "pulls", "v3");
    EXPECT_EQ(verdict(r.current, by_hand), FX_PROOF_PROVED);
    EXPECT(verdict(r.current, commuted) != FX_PROOF_PROVED);
    fx_graph_free(by_hand);
    fx_graph_free(commuted);
    fx_graph_free(cand);
    fx_buf_free(&why);
}

FX_TEST(an_argument_that_may_fail_still_fails_the_call)
{
    const FxRule *rule = inline_rule();
    FxRuleRun r = run_on("fifth"); /* either reads x only when c holds */
    FxBuf why = {0};
    EXPECT(rule->applies(&r, &why));
    FxGraph *cand = rule->candidate(&r, &why);
    EXPECT_EQ(calls_of(cand, "either"), 0);
    int lets = 0;
    for (uint32_t i = 0; i < cand->n_nodes; i++)
        lets += cand->nodes[i].op == FX_NODE_LET;
    EXPECT_EQ(lets, 1); /* the index, evaluated where the call was */
    EXPECT_EQ(verdict(r.current, cand), FX_PROOF_PROVED);
    for (int64_t n = 0; n < 8; n++) { /* [..][5] fails below 6 */
        FxStatus s1, s2;
        FxValue a = float_value(r.current, n, &s1), b = float_value(cand, n, &s2);
        EXPECT_EQ(s1 == FX_OK, n >= 6);
        EXPECT_EQ(s1, s2);
        if (s1 == FX_OK)
            EXPECT(fx_val_equal(a, b));
        fx_value_release(a);
        fx_value_release(b);
    }
    fx_graph_free(cand);
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
