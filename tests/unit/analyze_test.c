/*
 * analyze_test.c: the analyzer's features (recurring inputs, sizes, runs
 * of the current version) and the cost model's complexity classes, each
 * recovered from points made with a known class and some noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "fx_test.h"
#include "opt/analyze.h"
#include "opt/cost.h"

static FxTrace trace(const char *version, double size, uint64_t input)
{
    FxTrace t = {0, {0}, size, 1.0, 0, -1, input, NULL, NULL};
    strcpy(t.version, version);
    return t;
}

FX_TEST(recurring_inputs_are_found_in_the_window)
{
    FxTrace t[100];
    /* newest first: 70 runs, 40 of input 7, 20 of input 9, 10 distinct others;
     * then 30 older runs of input 5, outside the window of 64 */
    size_t n = 0;
    for (int i = 0; i < 70; i++)
        t[n++] = trace(i < 3 ? "v2" : "v1", i, i % 7 < 4 ? 7 : i % 7 < 6 ? 9 : 100 + (uint64_t)i);
    for (int i = 0; i < 30; i++)
        t[n++] = trace("v1", 1000 + i, 5);
    FxAnalysis a;
    fx_analyze(t, n, "v2", &a);
    EXPECT_EQ(a.runs, 100);
    EXPECT_EQ(a.runs_current, 3);
    EXPECT(a.newest_is_current);
    EXPECT_EQ(a.window, FX_HOT_WINDOW);
    EXPECT_EQ(a.n_hot, 2); /* input 5 is older than the window */
    EXPECT_EQ(a.hot[0].example->input_hash, 7);
    EXPECT_EQ(a.hot[1].example->input_hash, 9);
    EXPECT(a.hot[0].count > a.hot[1].count);
    EXPECT(a.hot_share > 0.8 && a.hot_share < 0.9);
    EXPECT_EQ(a.largest_size, 1029);
    EXPECT_EQ(a.newest_size, 0);
    EXPECT_EQ(a.largest_before_newest, 1029);
}

FX_TEST(no_input_recurs_three_times)
{
    FxTrace t[6];
    for (int i = 0; i < 6; i++)
        t[i] = trace("v1", i, (uint64_t)i % 3); /* each input twice */
    FxAnalysis a;
    fx_analyze(t, 6, "v1", &a);
    EXPECT_EQ(a.n_hot, 0);
    EXPECT_EQ(a.distinct_in_window, 3);
    EXPECT(a.hot_share == 0);
}

FX_TEST(an_empty_history)
{
    FxAnalysis a;
    fx_analyze(NULL, 0, "v1", &a);
    EXPECT_EQ(a.runs, 0);
    EXPECT(!a.newest_is_current);
}

/* Points t = f(n) * (1 + noise) for n = 16, 32, ... */
static size_t points(double (*f)(double), double noise, FxCostPoint *out)
{
    size_t k = 0;
    for (double n = 16; n <= 65536; n *= 2, k++) {
        double wobble = (k % 2 ? 1 : -1) * noise;
        out[k] = (FxCostPoint){n, f(n) * (1 + wobble)};
    }
    return k;
}

static double linear(double n) { return 0.001 + 2e-5 * n; }
static double square(double n) { return 0.002 + 3e-9 * n * n; }
static double nlogn(double n) { return 1e-6 * n * log2(n + 1); }
static double expo(double n) { return 1e-4 * exp(0.0003 * n); }
static double flat(double n) { (void)n; return 0.05; }

FX_TEST(complexity_classes_are_recovered)
{
    FxCostPoint p[16];
    FxCostModel m;
    struct {
        double (*f)(double);
        FxCostClass want;
    } cases[] = {{linear, FX_COST_LINEAR}, {square, FX_COST_SQUARE}, {nlogn, FX_COST_NLOGN},
                 {expo, FX_COST_EXP},      {flat, FX_COST_CONST}};
    for (size_t i = 0; i < FX_ARRAY_LEN(cases); i++) {
        size_t n = points(cases[i].f, 0.05, p);
        EXPECT(fx_cost_fit(p, n, &m));
        EXPECT_STR_EQ(fx_cost_class_name(m.klass), fx_cost_class_name(cases[i].want));
        /* and it extrapolates within a factor of 2 at 4x the largest size */
        double want = cases[i].f(4 * 65536), got = fx_cost_predict(&m, 4 * 65536);
        EXPECT(got > want / 2 && got < want * 2);
    }
}

FX_TEST(a_fit_needs_two_sizes)
{
    FxCostPoint p[3] = {{10, 1}, {10, 2}, {10, 3}};
    FxCostModel m;
    EXPECT(!fx_cost_fit(p, 3, &m));
    EXPECT(!fx_cost_fit(p, 1, &m));
    FxCostClass k;
    EXPECT(fx_cost_class_from_name("n log n", &k) && k == FX_COST_NLOGN);
    EXPECT(!fx_cost_class_from_name("n^7", &k));
}

int main(void)
{
    return fx_test_run();
}
