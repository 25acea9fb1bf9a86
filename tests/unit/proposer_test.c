/*
 * proposer_test.c: the learned proposer's policy (opt/proposer.h): fresh
 * arms tie (the table's order stands), an arm rewarded in a context ranks
 * above one that earned nothing there, an arm never pulled is tried
 * (its optimistic prior) before a pulled one with a middling reward, a
 * correction moves the estimate without counting a pull, and the
 * features stay in [0, 1].
 */
#include <string.h>

#include "base/base.h"
#include "fx_test.h"
#include "graph/graph.h"
#include "opt/proposer.h"

#define D FX_PROPOSER_DIM

static void context(double x[D], double v)
{
    for (int i = 0; i < D; i++)
        x[i] = i == 0 ? 1 : (i % 3 == 0) * v;
}

static double score(FxProposer *p, const char *arm, const double x[D])
{
    double mean, width;
    return fx_proposer_score(fx_proposer_arm(p, arm), x, &mean, &width);
}

FX_TEST(fresh_arms_tie)
{
    FxProposer p = {0};
    double x[D];
    context(x, 0.5);
    EXPECT(score(&p, "a", x) == score(&p, "b", x));
    fx_proposer_free(&p);
}

FX_TEST(rewards_rank_the_arms)
{
    FxProposer p = {0};
    double x[D], y[D];
    context(x, 0.8);
    context(y, 0.1);
    for (int i = 0; i < 4; i++) {
        fx_proposer_reward(&p, "good", x, 7, "f", "installed v2");
        fx_proposer_reward(&p, "none", x, 0, "f", "no version");
    }
    EXPECT(score(&p, "good", x) > score(&p, "none", x) + 3);
    EXPECT_EQ(p.pulls, 8);
    EXPECT(p.total > 27.9 && p.total < 28.1);
    EXPECT_EQ(p.history.len, 8);
    /* an arm never pulled beats a middling one: it is tried */
    for (int i = 0; i < 4; i++)
        fx_proposer_reward(&p, "middling", y, 3, "g", "installed v2");
    EXPECT(score(&p, "new", y) > score(&p, "middling", y));
    /* a reward beyond the clamp counts as the clamp */
    EXPECT(fx_proposer_reward(&p, "huge", x, 1e9, "f", "installed v2") == FX_REWARD_MAX);
    fx_proposer_free(&p);
}

FX_TEST(a_rollback_replaces_the_reward)
{
    FxProposer p = {0};
    FxPending q = {.lineage = 1, .version = "v2", .arm = "power"};
    context(q.x, 0.5);
    double before, after, width;
    q.reward = fx_proposer_reward(&p, "power", q.x, 6, "f", "installed v2");
    fx_proposer_score(fx_proposer_arm(&p, "power"), q.x, &before, &width);
    fx_proposer_correct(&p, &q, FX_REWARD_ROLLED_BACK, "f", "rolled back v2");
    fx_proposer_score(fx_proposer_arm(&p, "power"), q.x, &after, &width);
    EXPECT(after < before - 4);
    EXPECT_EQ(fx_proposer_arm(&p, "power")->pulls, 1);
    EXPECT(p.total > -2.01 && p.total < -1.99);
    fx_proposer_free(&p);
}

FX_TEST(the_history_keeps_the_newest)
{
    FxProposer p = {0};
    double x[D];
    context(x, 0.3);
    for (int i = 0; i < FX_PROPOSER_HISTORY + 5; i++)
        fx_proposer_reward(&p, i == FX_PROPOSER_HISTORY + 4 ? "last" : "a", x, 1, "f", "x");
    EXPECT_EQ(p.history.len, FX_PROPOSER_HISTORY);
    EXPECT_STR_EQ(p.history.data[FX_PROPOSER_HISTORY - 1].arm, "last");
    fx_proposer_free(&p);
}

FX_TEST(features_are_scaled)
{
    FxGraph *g = fx_graph_new("f", "v1");
    FxAnalysis an = {.runs = 1000000, .largest_size = 1e30, .hot_share = 1};
    FxHotOps hot = {.calls = 1, .calls_per_run = 1e12};
    FxHardware hw = {.cores = 4096, .threads = 4096, .l3 = (size_t)1 << 40, .avx512f = true};
    double x[D];
    fx_proposer_features(g, &an, &hot, &hw, x);
    EXPECT_EQ(x[0], 1);
    for (int i = 0; i < D; i++)
        EXPECT(x[i] >= 0 && x[i] <= 1);
    fx_graph_free(g);
}

int main(void)
{
    return fx_test_run();
}
