/*
 * rollback_test.c: the rollback rule (opt/rollback.h) on made-up runs:
 * tiny runs near the clock's noise never roll a version back, a version
 * clearly slower on the parent's sizes does, one outlier does not, sizes
 * the parent never ran are not compared, the parent's times between its
 * sizes follow the log-log line, and a rewrite may come back once inputs
 * reach 4x the sizes it was judged on.
 */
#include <math.h>

#include "fx_test.h"
#include "opt/rollback.h"

/* A deterministic wobble of +-frac around 1, different for each i. */
static double wobble(int i, double frac)
{
    return 1 + frac * sin(1.7 * i + 0.3);
}

FX_TEST(tiny_runs_within_the_slack_stand)
{
    /* a kernel version a third slower than v1 on 5- to 20-element lists,
     * at 0.045 against 0.06 ms: what a fixed cost of a few tens of
     * microseconds gives, and the old median-of-ratios rule rolled back */
    FxCostPoint parent[8], mine[12];
    for (int i = 0; i < 8; i++)
        parent[i] = (FxCostPoint){5.0 * (1 + i % 4), 0.045 * wobble(i, 0.2)};
    for (int i = 0; i < 12; i++)
        mine[i] = (FxCostPoint){5.0 * (1 + i % 4), 0.06 * wobble(i + 3, 0.2)};
    FxRollbackVerdict v;
    fx_rollback_judge(mine, 12, parent, 8, &v);
    EXPECT_EQ(v.compared, 12);
    EXPECT(v.ratio > 1.25); /* slower, as measured */
    EXPECT(!v.slower);      /* but not beyond the noise of such runs */
}

FX_TEST(a_clearly_slower_version_is_rolled_back)
{
    FxCostPoint parent[6], mine[6];
    for (int i = 0; i < 6; i++) {
        double n = 100.0 * (i + 1);
        parent[i] = (FxCostPoint){n, n / 100 * wobble(i, 0.1)};
        mine[i] = (FxCostPoint){n, 2 * n / 100 * wobble(i + 5, 0.1)};
    }
    FxRollbackVerdict v;
    fx_rollback_judge(mine, 6, parent, 6, &v);
    EXPECT(v.slower);
    EXPECT_EQ(v.compared, 6);
    EXPECT_EQ(v.exact, 6);
    EXPECT(v.lo == 100 && v.hi == 600);
    EXPECT(v.parent_lo == 100 && v.parent_hi == 600);
    EXPECT(v.ratio > 1.8 && v.ratio < 2.2);
    EXPECT(v.bound > FX_ROLLBACK_RATIO && v.bound < v.ratio);
}

FX_TEST(one_outlier_does_not_decide)
{
    FxCostPoint parent[8], mine[8];
    for (int i = 0; i < 8; i++) {
        parent[i] = (FxCostPoint){1000, 1.0};
        mine[i] = (FxCostPoint){1000, i == 3 ? 10.0 : 1.0}; /* a sampled check, a page fault */
    }
    FxRollbackVerdict v;
    fx_rollback_judge(mine, 8, parent, 8, &v);
    EXPECT_EQ(v.compared, 8);
    EXPECT(!v.slower);
}

FX_TEST(sizes_the_parent_never_ran_are_not_compared)
{
    /* the parent on small inputs only: its model says nothing at 10x them */
    FxCostPoint parent[5], mine[6];
    for (int i = 0; i < 5; i++)
        parent[i] = (FxCostPoint){10.0 * (i + 1), 0.01 * (i + 1)};
    for (int i = 0; i < 6; i++)
        mine[i] = (FxCostPoint){1000.0 * (i + 1), 50.0};
    FxRollbackVerdict v;
    fx_rollback_judge(mine, 6, parent, 5, &v);
    EXPECT_EQ(v.compared, 0);
    EXPECT(!v.slower);
}

FX_TEST(between_the_parents_sizes_the_log_log_line)
{
    /* the parent linear, measured at 10 and 10000 only (three runs each,
     * the median kept); the version exactly as fast in between */
    FxCostPoint parent[6] = {{10, 0.1}, {10, 0.2}, {10, 0.15}, {10000, 100}, {10000, 300},
                             {10000, 150}};
    FxCostPoint mine[5];
    for (int i = 0; i < 5; i++) {
        double n = 20.0 * pow(4, i); /* 20 to 5120 */
        mine[i] = (FxCostPoint){n, 0.15 * n / 10};
    }
    FxRollbackVerdict v;
    fx_rollback_judge(mine, 5, parent, 6, &v);
    EXPECT_EQ(v.compared, 5);
    EXPECT_EQ(v.exact, 0);
    EXPECT(v.ratio > 0.9 && v.ratio < 1.1);
    EXPECT(!v.slower);
}

FX_TEST(a_rewrite_comes_back_at_four_times_the_sizes_judged)
{
    EXPECT(!fx_rollback_retry(1000, 1500));
    EXPECT(!fx_rollback_retry(1000, 3999));
    EXPECT(fx_rollback_retry(1000, 4000));
    EXPECT(fx_rollback_retry(1000, 1e6));
    EXPECT(!fx_rollback_retry(0, 3)); /* judged on empty inputs: sizes count from 1 */
    EXPECT(fx_rollback_retry(0, 4));
}

int main(void)
{
    return fx_test_run();
}
