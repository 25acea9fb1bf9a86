/*
 * proposer.h: the learned proposer: which applicable rewrite a learning
 * round tries first. A contextual bandit (LinUCB, Li et al. 2010): each
 * arm (a rule of the table, or one kernel's turn of the kernels' rule)
 * keeps a ridge regression of its reward on the context's features, and
 * an arm's score is its predicted reward plus ALPHA times the width of
 * that prediction's confidence interval. The ridge's prior is optimistic
 * (every arm starts predicting the largest reward), so that an arm is
 * tried in a kind of context before another's good reward there can
 * shut it out. The round tries the applicable
 * arms by descending score; ties keep the table's order, so a fresh
 * proposer is today's fixed order.
 *
 * The policy is pure: features in, scores out, rewards folded in. Where
 * the state lives (the store's learned table) is src/api/proposer.c.
 */
#ifndef FX_PROPOSER_H
#define FX_PROPOSER_H

#include <stdint.h>

#include "base/base.h"
#include "graph/graph.h"
#include "hw/hw.h"
#include "opt/analyze.h"

#define FX_PROPOSER_DIM 21    /* features of a context, the bias included */
#define FX_PROPOSER_ALPHA 0.5 /* the weight of the confidence bound: exploration */
#define FX_PROPOSER_LAMBDA 1.0 /* the ridge prior's weight: A starts at LAMBDA * I */
#define FX_PROPOSER_OPTIMISM 10.0 /* the prior's reward, the most a pull can earn: an
                                   * arm not yet pulled in a context is tried there */
#define FX_PROPOSER_HISTORY 16 /* rewards kept for `optimize --explain` */
#define FX_PROPOSER_PENDING 32 /* installs whose reward may still be corrected */

/* Rewards, in log speed-up (ln of the predicted or measured gain). */
#define FX_REWARD_REJECTED (-1.0) /* the prover rejected the candidate */
#define FX_REWARD_ROLLED_BACK (-2.0) /* an installed version was rolled back */
#define FX_REWARD_MAX 10.0        /* a gain above e^10 teaches nothing more */

/* The hot node ops of the running version's recorded runs: the share of
 * all counted node executions that were calls, comprehensions, sorts, and
 * the calls a run makes. */
typedef struct FxHotOps {
    double calls, loops, sorts;
    double calls_per_run;
} FxHotOps;

typedef struct FxArm {
    char name[64]; /* the rule's name in the table, or the kernel's rule */
    double A[FX_PROPOSER_DIM * FX_PROPOSER_DIM], b[FX_PROPOSER_DIM];
    uint32_t pulls;
    double total; /* of its rewards */
} FxArm;

/* A reward as `optimize --explain` shows it. */
typedef struct FxReward {
    char arm[64], intent[64], what[32]; /* "installed v3", "rejected", "rolled back v3" */
    double reward;
} FxReward;

/* An install whose reward a later rollback replaces: its context, by the
 * lineage and version it made. */
typedef struct FxPending {
    char arm[64];
    int64_t lineage;
    char version[16];
    double x[FX_PROPOSER_DIM];
    double reward;
} FxPending;

typedef struct FxProposer {
    FX_VEC(FxArm) arms;
    FX_VEC(FxReward) history; /* the newest last, FX_PROPOSER_HISTORY at most */
    FX_VEC(FxPending) pending; /* the newest last, FX_PROPOSER_PENDING at most */
    double total; /* cumulative reward */
    uint32_t pulls;
} FxProposer;

/* The context of a round, each feature scaled into [0, 1]: of the running
 * version's graph, of its recorded runs (an, hot) and of the hardware. */
void fx_proposer_features(const FxGraph *g, const FxAnalysis *an, const FxHotOps *hot,
                          const FxHardware *hw, double x[FX_PROPOSER_DIM]);

/* The arm named name, added (with no evidence) when it is not there yet. */
FxArm *fx_proposer_arm(FxProposer *p, const char *name);

/* The arm's upper confidence bound at x: *mean + ALPHA * *width. */
double fx_proposer_score(const FxArm *a, const double x[FX_PROPOSER_DIM], double *mean,
                         double *width);

/* Folds a reward for pulling `arm` at x in, and notes it in the history
 * (`what` happened, on `intent`). Returns the reward, clamped. */
double fx_proposer_reward(FxProposer *p, const char *arm, const double x[FX_PROPOSER_DIM],
                        double reward, const char *intent, const char *what);

/* Replaces the reward of an earlier pull at x by `reward` (a rollback's
 * penalty for an install): the regression's target moves, its count does
 * not. */
void fx_proposer_correct(FxProposer *p, const FxPending *was, double reward, const char *intent,
                         const char *what);

/* Remembers an install that a later round may correct. */
void fx_proposer_pend(FxProposer *p, const FxPending *pend);

void fx_proposer_free(FxProposer *p);

#endif
