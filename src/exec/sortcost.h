/*
 * sortcost.h: the cost model that chooses a sorting kernel per call
 * (sortk.h) from the input's features.
 *
 * Each kernel's time is predicted as its cost per unit of work times the
 * work its algorithm does on those features (docs/executor.md gives the
 * formulas), the cost per unit kept for each level of the memory the
 * array fits in (the L1 and L2 caches, the L3, memory: the hardware
 * profile's sizes), since a unit costs more the farther its data: insertion's n + inversions, batch insertion's n + m log m for
 * m lifted elements, pdq's n log n, radix's n per digit pass (a counting
 * sort's 2n plus the range), the parallel radix's share per thread plus
 * starting the threads, vqsort's n log2 n (log2 of the distinct keys when
 * they are few) plus its fixed cost. The call runs the kernel predicted fastest.
 *
 * The costs per unit start from defaults measured on the development
 * machine (bench/sort_choice.c fits them and reports how often the choice
 * is the fastest kernel) and are refitted on the kernels' own runs: every
 * sort of at least FX_SORTCOST_OBSERVE_MIN elements is timed and moves its
 * kernel's cost a quarter of the way (in ratio) toward what it measured,
 * so a machine unlike this one corrects the model as it runs. The model
 * is kept in the store, a row per kernel (fx_sortk_name), device and
 * hardware (src/api/costs.c): read with a store's installed versions and
 * given to each runtime made, written back after a run that refitted it,
 * so the corrections outlive the process.
 */
#ifndef FX_SORTCOST_H
#define FX_SORTCOST_H

#include "exec/sortk.h"

/* Sorts this large are timed and refit the model; below, a clock read
 * would be a noticeable share of the time. */
#define FX_SORTCOST_OBSERVE_MIN ((size_t)1 << 12)

/* Where an array of n int64 fits: FX_SORTCOST_L1 ... FX_SORTCOST_MEMORY. */
enum { FX_SORTCOST_L1, FX_SORTCOST_L2, FX_SORTCOST_L3, FX_SORTCOST_MEMORY, FX_SORTCOST_LEVELS };
unsigned fx_sortcost_level(size_t n);
/* "L1", "L2", "L3", "memory" */
const char *fx_sortcost_level_name(unsigned level);

typedef struct FxSortCosts {
    double ns_per_unit[FX_SORTK__COUNT][FX_SORTCOST_LEVELS];
    unsigned observed[FX_SORTK__COUNT]; /* runs that refitted each cost */
    bool refitted[FX_SORTK__COUNT]; /* since the model was last kept: set by observe,
                                     * cleared by whoever keeps it (the store) */
} FxSortCosts;

/* Kernel k's work units on f (its prediction with every cost 1 ns). */
double fx_sortcost_units(FxSortKind k, const FxSortFeatures *f, unsigned threads);

/* The defaults (measured here). */
void fx_sortcost_defaults(FxSortCosts *c);

/* Predicted nanoseconds for kernel k on an input with features f, on
 * `threads` threads; INFINITY when k cannot sort it that way (the
 * parallel kernel below FX_SORTK_PARALLEL_MIN or on one thread). */
double fx_sortcost_predict(const FxSortCosts *c, FxSortKind k, const FxSortFeatures *f,
                           unsigned threads);

/* The kernel predicted fastest; predicted[k] gets every kernel's
 * prediction. */
FxSortKind fx_sortcost_choose(const FxSortCosts *c, const FxSortFeatures *f, unsigned threads,
                              double predicted[FX_SORTK__COUNT]);

/* Refits kernel k's cost on a measured run of it (ns), when the input was
 * large enough to time. */
void fx_sortcost_observe(FxSortCosts *c, FxSortKind k, const FxSortFeatures *f,
                         unsigned threads, double ns);

#endif
