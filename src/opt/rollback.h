/*
 * rollback.h: when a version is measured slower than its parent, and when
 * a rewrite rolled back for it may be proposed again (docs/optimizer.md,
 * "What a round does").
 *
 * A version's recorded runs are compared with its parent's on comparable
 * inputs only: at a size where the parent has runs, their median; between
 * two sizes the parent was measured at, the log-log line through the
 * medians at the nearest ones (the parent's model, within its measured
 * range and never beyond it). Each compared run gives the ratio of its
 * time to the parent's plus an absolute slack (FX_ROLLBACK_SLACK_MS: a run
 * of a few tens of microseconds is near the clock's and the process's
 * noise), and the version is slower when the lower confidence bound of
 * the ratios' geometric mean (Student's t at 97.5%, one-sided) is above
 * FX_ROLLBACK_RATIO, over at least FX_ROLLBACK_RUNS compared runs (and
 * FX_ROLLBACK_PARENT_RUNS of the parent).
 *
 * A rewrite rolled back on timing was judged on the sizes it was compared
 * at; it may be proposed again once the running version's inputs reach
 * FX_ROLLBACK_RETRY times the largest of them (its gain may be in sizes
 * nobody had asked for), and its measurement decides again. Each rollback
 * raises that bar, so the proposals cannot cycle.
 */
#ifndef FX_ROLLBACK_H
#define FX_ROLLBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "opt/cost.h"

#define FX_ROLLBACK_RATIO 1.25    /* a slow-down this sure rolls a version back */
#define FX_ROLLBACK_RUNS 5        /* compared runs before a version can be judged */
#define FX_ROLLBACK_PARENT_RUNS 3 /* and runs of its parent */
#define FX_ROLLBACK_SLACK_MS 0.05 /* added to the parent's time in each ratio */
#define FX_ROLLBACK_RETRY 4       /* inputs this many times larger: propose again */

typedef struct FxRollbackVerdict {
    bool slower;           /* roll the version back */
    size_t compared;       /* the version's runs compared */
    double lo, hi;         /* the sizes of those runs */
    size_t exact;          /* of them, at a size the parent has runs at */
    double ratio;          /* geometric mean of time over the parent's time */
    double bound;          /* lower confidence bound of it, with the slack */
    size_t parent_runs;    /* the parent's runs */
    double parent_lo, parent_hi; /* their sizes */
} FxRollbackVerdict;

/* Judges a version's runs (mine) against its parent's (theirs). */
void fx_rollback_judge(const FxCostPoint *mine, size_t n_mine, const FxCostPoint *theirs,
                       size_t n_theirs, FxRollbackVerdict *out);

/* May a rewrite rolled back after being judged on sizes up to judged_hi be
 * proposed again, now that the running version's inputs reach `largest`? */
bool fx_rollback_retry(double judged_hi, double largest);

#endif
