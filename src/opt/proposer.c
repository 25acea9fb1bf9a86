/*
 * proposer.c: the learned proposer's policy (proposer.h): the features of
 * a round's context, and LinUCB over them.
 *
 * Why LinUCB: the rounds are few (one a learning round, a handful an
 * intent), the arms a dozen, and the reward of a pull is seen at once (the
 * predicted gain of the install, or the proof's verdict), so a linear model
 * per arm learns from a few pulls where anything deeper would not; its
 * confidence bound explores an arm only while its reward in this kind of
 * context is uncertain, and it needs no random numbers, so a round is
 * reproducible from the store. An arm's state is A = LAMBDA*I + sum x x'
 * and b = LAMBDA*theta0 + sum r x (theta0: OPTIMISM on the bias); its estimate is theta = A^-1 b, its score
 * theta.x + ALPHA * sqrt(x' A^-1 x). A is solved by Cholesky (it is
 * symmetric positive definite by construction), 21 x 21, per arm scored.
 *
 * Features are counts and logs clamped into [0, 1] so that no one of them
 * dominates the ridge prior; the hardware's are constant on one machine
 * (they matter when a store moves) and the ridge shares their weight with
 * the bias.
 */
#include "proposer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D FX_PROPOSER_DIM

static double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

void fx_proposer_features(const FxGraph *g, const FxAnalysis *an, const FxHotOps *hot,
                          const FxHardware *hw, double x[D])
{
    unsigned self = 0, calls = 0, loops = 0, sorts = 0, data = 0, matrix = 0, on_kernel = 0,
             branches = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        switch (n->op) {
        case FX_NODE_CALL:
            if (!strcmp(n->text, g->intent))
                self++;
            else
                calls++;
            break;
        case FX_NODE_FOLD:
        case FX_NODE_GROUP:
            loops++;
            break;
        case FX_NODE_MAP:
            loops++;
            matrix += n->num2 >= 0; /* a map over rows and columns */
            break;
        case FX_NODE_SORT:
            sorts++;
            break;
        case FX_NODE_DATA:
            data++;
            break;
        case FX_NODE_IF:
            branches++;
            break;
        default:
            break;
        }
        on_kernel += n->kernel != FX_KERNEL_NONE;
    }
    unsigned simd = hw->avx512f ? 512 : hw->avx2 || hw->avx ? 256 : 128;
    double f[D] = {
            1, /* the bias */
            clamp01(self / 3.0),
            clamp01(calls / 4.0),
            clamp01(loops / 4.0),
            clamp01(sorts / 2.0),
            clamp01(data / 2.0),
            clamp01(matrix / 2.0),
            clamp01(branches / 4.0),
            clamp01(log2(1.0 + g->n_nodes) / 8),
            g->kernel != FX_KERNEL_NONE || g->n_table || g->n_materialised,
            clamp01(on_kernel / 2.0),
            clamp01(log10(1.0 + an->largest_size) / 7),
            clamp01(log2(1.0 + (double)an->runs) / 9),
            clamp01(an->hot_share),
            clamp01(hot->calls),
            clamp01(hot->loops),
            clamp01(hot->sorts),
            clamp01(log10(1.0 + hot->calls_per_run) / 6),
            clamp01(log2((double)hw->cores) / 6),
            clamp01(log2(1.0 + (double)(hw->l3 ? hw->l3 : hw->l2) / 65536) / 10),
            simd / 512.0,
    };
    memcpy(x, f, sizeof(f));
}

FxArm *fx_proposer_arm(FxProposer *p, const char *name)
{
    fx_vec_foreach(FxArm, a, &p->arms) if (!strcmp(a->name, name)) return a;
    FxArm a = {0};
    snprintf(a.name, sizeof(a.name), "%s", name);
    for (int i = 0; i < D; i++)
        a.A[i * D + i] = FX_PROPOSER_LAMBDA;
    a.b[0] = FX_PROPOSER_LAMBDA * FX_PROPOSER_OPTIMISM; /* the prior theta: OPTIMISM on the bias */
    fx_vec_push(&p->arms, a);
    return &p->arms.data[p->arms.len - 1];
}

/* L with L L' = A (A symmetric positive definite), lower triangle. */
static void cholesky(const double *A, double *L)
{
    memset(L, 0, sizeof(double) * D * D);
    for (int i = 0; i < D; i++)
        for (int j = 0; j <= i; j++) {
            double s = A[i * D + j];
            for (int k = 0; k < j; k++)
                s -= L[i * D + k] * L[j * D + k];
            L[i * D + j] = i == j ? sqrt(s > 1e-12 ? s : 1e-12) : s / L[j * D + j];
        }
}

/* y = L^-1 v (forward), then, when back, x = L'^-1 y. */
static void forward(const double *L, const double *v, double *y)
{
    for (int i = 0; i < D; i++) {
        double s = v[i];
        for (int k = 0; k < i; k++)
            s -= L[i * D + k] * y[k];
        y[i] = s / L[i * D + i];
    }
}

static void backward(const double *L, const double *y, double *x)
{
    for (int i = D - 1; i >= 0; i--) {
        double s = y[i];
        for (int k = i + 1; k < D; k++)
            s -= L[k * D + i] * x[k];
        x[i] = s / L[i * D + i];
    }
}

double fx_proposer_score(const FxArm *a, const double x[D], double *mean, double *width)
{
    double L[D * D], y[D], theta[D];
    cholesky(a->A, L);
    forward(L, a->b, y);
    backward(L, y, theta);
    double m = 0, w = 0;
    forward(L, x, y); /* x' A^-1 x = |L^-1 x|^2 */
    for (int i = 0; i < D; i++) {
        m += theta[i] * x[i];
        w += y[i] * y[i];
    }
    *mean = m;
    *width = sqrt(w);
    return m + FX_PROPOSER_ALPHA * *width;
}

static double clamp_reward(double r)
{
    return r < FX_REWARD_ROLLED_BACK ? FX_REWARD_ROLLED_BACK : r > FX_REWARD_MAX ? FX_REWARD_MAX
                                                                                  : r;
}

static void note(FxProposer *p, const char *arm, double reward, const char *intent,
                 const char *what)
{
    FxReward r = {.reward = reward};
    snprintf(r.arm, sizeof(r.arm), "%s", arm);
    snprintf(r.intent, sizeof(r.intent), "%s", intent);
    snprintf(r.what, sizeof(r.what), "%s", what);
    if (p->history.len == FX_PROPOSER_HISTORY) {
        memmove(p->history.data, p->history.data + 1, (p->history.len - 1) * sizeof(r));
        p->history.len--;
    }
    fx_vec_push(&p->history, r);
    p->total += reward;
}

double fx_proposer_reward(FxProposer *p, const char *arm, const double x[D], double reward,
                        const char *intent, const char *what)
{
    FxArm *a = fx_proposer_arm(p, arm);
    reward = clamp_reward(reward);
    for (int i = 0; i < D; i++) {
        for (int j = 0; j < D; j++)
            a->A[i * D + j] += x[i] * x[j];
        a->b[i] += reward * x[i];
    }
    a->pulls++;
    a->total += reward;
    p->pulls++;
    note(p, arm, reward, intent, what);
    return reward;
}

void fx_proposer_correct(FxProposer *p, const FxPending *was, double reward, const char *intent,
                         const char *what)
{
    FxArm *a = fx_proposer_arm(p, was->arm);
    double delta = clamp_reward(reward) - was->reward;
    for (int i = 0; i < D; i++)
        a->b[i] += delta * was->x[i];
    a->total += delta;
    note(p, was->arm, delta, intent, what);
}

void fx_proposer_pend(FxProposer *p, const FxPending *pend)
{
    if (p->pending.len == FX_PROPOSER_PENDING) {
        memmove(p->pending.data, p->pending.data + 1, (p->pending.len - 1) * sizeof(*pend));
        p->pending.len--;
    }
    fx_vec_push(&p->pending, *pend);
}

void fx_proposer_free(FxProposer *p)
{
    fx_vec_free(&p->arms);
    fx_vec_free(&p->history);
    fx_vec_free(&p->pending);
}
