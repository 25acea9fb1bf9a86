/*
 * sortcost.c: see sortcost.h. The work formulas follow what each kernel in
 * sortk.c does; their constants (32, n/8, 8-bit digits, 2^16 for counting,
 * 512 KiB for LSD) are sortk.c's.
 */
#include "sortcost.h"

#include <math.h>
#include <pthread.h>

#include "base/base.h"
#include "hw/hw.h"
#include "exec/vqsort.h"

#define PARALLEL_START_NS 40000.0 /* starting the workers and two barriers a phase */
/* vqsort's fixed cost in its units: dispatch, and clearing its buffer of
 * a few vectors on the stack (AVX-512: 8 KiB) */
#define VQSORT_START_UNITS 1000.0
#define VQSORT_BASE        128.0 /* keys its base case sorts (AVX-512, int64) */

/* The bytes an array may have and fit each cache level: set once, under
 * limits_once, from the hardware profile. */
static size_t limit[3];
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

static void set_limits(void)
{
    FxHardware hw = fx_hw_detect();
    limit[0] = hw.l1d ? hw.l1d : 32 << 10;
    limit[1] = hw.l2 > limit[0] ? hw.l2 : limit[0] * 16;
    limit[2] = hw.l3 > limit[1] ? hw.l3 : limit[1] * 8;
}

unsigned fx_sortcost_level(size_t n)
{
    FX_CHECK(pthread_once(&limits_once, set_limits) == 0, "pthread_once failed");
    size_t bytes = n * sizeof(int64_t);
    return bytes <= limit[0]   ? FX_SORTCOST_L1
           : bytes <= limit[1] ? FX_SORTCOST_L2
           : bytes <= limit[2] ? FX_SORTCOST_L3
                               : FX_SORTCOST_MEMORY;
}

const char *fx_sortcost_level_name(unsigned level)
{
    static const char *const names[] = {"L1", "L2", "L3", "memory"};
    return level < FX_SORTCOST_LEVELS ? names[level] : "?";
}

void fx_sortcost_defaults(FxSortCosts *c)
{
    /* ns a unit at each level, fitted by bench/sort_choice.c on the
     * development machine (2 cores; L1d 48 KiB, L2 1.25 MiB, L3 48 MiB) */
    static const double fitted[FX_SORTK__COUNT][FX_SORTCOST_LEVELS] = {
        [FX_SORTK_INSERTION] = {1.04, 1.26, 1.71, 1.98},
        [FX_SORTK_PDQ] = {0.84, 1.06, 0.99, 0.99},
        [FX_SORTK_RADIX] = {1.07, 1.67, 2.20, 2.75},
        [FX_SORTK_PARALLEL] = {2.68, 2.68, 2.68, 2.94},
        /* AVX-512: its time over pdq's in the same runs (a loaded machine;
         * 0.45x in L1, 0.33x in L2, 0.29x beyond on random keys) times pdq's
         * costs; beyond the L3, 10^7 random keys in 60 ms on this machine
         * idle (issue 16) */
        [FX_SORTK_VQSORT] = {0.38, 0.35, 0.28, 0.26},
    };
    *c = (FxSortCosts){0};
    for (int k = 0; k < FX_SORTK__COUNT; k++)
        for (int l = 0; l < FX_SORTCOST_LEVELS; l++)
            c->ns_per_unit[k][l] = fitted[k][l];
}

static double log2p(double x)
{
    return log2(x < 2 ? 2 : x);
}

/* Radix work on f: n a pass over the digits that vary, plus the count
 * and the MSD split of an array larger than the cache, and the buckets of
 * each pass; a counting sort when the range is small beside n. */
static double radix_units(const FxSortFeatures *f)
{
    uint64_t r = (uint64_t)f->max - (uint64_t)f->min;
    double n = (double)f->n, range = (double)r;
    if (f->n < 64) /* straight insertion below 64 */
        return n + fmin(n * n / 4, (double)f->descents * n / 2);
    if (range < 65536.0 && range < n)
        return 2 * n + range / 4;
    unsigned bits = r ? 64 - (unsigned)__builtin_clzll(r) : 1;
    unsigned passes = (bits + 7) / 8;
    double split = n * sizeof(int64_t) > (double)(1u << 19) ? n : 0;
    return n * (passes + 1) + split + 256.0 * passes;
}

static double pdq_units(const FxSortFeatures *f)
{
    double n = (double)f->n;
    if (f->n <= 24) /* straight insertion */
        return n + fmin(n * n / 4, (double)f->descents * n / 2);
    if (f->descents == 0) /* a partition that finds it partitioned, then a partial insertion
                           * sort of each side that finds them sorted (bench/sort_choice:
                           * 2-3x batch insertion's time, which scans it once) */
        return 2 * n;
    if (f->descents + 1 >= f->n)
        return 0.5 * n; /* reversed by swaps, then seen sorted */
    return n * log2p(n);
}

/* Does batch insertion give up on f (more than n/8 lifted) and run pdq? */
static bool gives_up(const FxSortFeatures *f)
{
    return f->n > 32 && 2.0 * (double)f->descents > (double)f->n / 8;
}

double fx_sortcost_units(FxSortKind k, const FxSortFeatures *f, unsigned threads)
{
    double n = (double)f->n, d = (double)f->descents;
    switch (k) {
    case FX_SORTK_INSERTION: {
        if (f->n <= 32)
            return n + fmin(n * n / 4, d * n / 2);
        if (f->descents + 1 >= f->n)
            return n; /* reversed by swaps, then seen sorted */
        if (gives_up(f))
            return n + pdq_units(f);
        double lifted = 2 * d; /* a pass to lift them; sorted, merged back */
        return lifted ? 2 * n + lifted * log2p(lifted) : 0.5 * n; /* sorted: one scan */
    }
    case FX_SORTK_PDQ:
        return pdq_units(f);
    case FX_SORTK_RADIX:
        return radix_units(f);
    case FX_SORTK_VQSORT: {
        /* log2 n levels; but a partition of equal keys ends its branch, so
         * when partitions run out of distinct keys before they are small
         * enough for its sorting networks (VQSORT_BASE keys), log2 of the
         * distinct keys */
        double distinct = fmin(n, (double)((uint64_t)f->max - (uint64_t)f->min) + 1);
        double levels = n >= VQSORT_BASE * distinct ? log2p(distinct) : log2p(n);
        return f->n < 2 ? n : n * levels + VQSORT_START_UNITS;
    }
    case FX_SORTK_PARALLEL:
        if (threads < 2 || f->n < FX_SORTK_PARALLEL_MIN)
            return INFINITY;
        return radix_units(f) / threads;
    default:
        return INFINITY;
    }
}

double fx_sortcost_predict(const FxSortCosts *c, FxSortKind k, const FxSortFeatures *f,
                           unsigned threads)
{
    unsigned level = fx_sortcost_level(f->n);
    double units = fx_sortcost_units(k, f, threads);
    if ((k == FX_SORTK_PDQ && f->n <= 24) || (k == FX_SORTK_RADIX && f->n < 64) ||
        (k == FX_SORTK_VQSORT && f->n < 2))
        k = FX_SORTK_INSERTION; /* they run straight insertion there (vqsort: nothing, as
                                 * insertion does): the same cost */
    if (k == FX_SORTK_INSERTION && gives_up(f) && f->descents + 1 < f->n) /* its lifting pass,
                                                                             * then pdq's work */
        return c->ns_per_unit[k][level] * (double)f->n +
               c->ns_per_unit[FX_SORTK_PDQ][level] * pdq_units(f);
    return c->ns_per_unit[k][level] * units + (k == FX_SORTK_PARALLEL ? PARALLEL_START_NS : 0);
}

FxSortKind fx_sortcost_choose(const FxSortCosts *c, const FxSortFeatures *f, unsigned threads,
                              double predicted[FX_SORTK__COUNT])
{
    FxSortKind best = FX_SORTK_INSERTION;
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        predicted[k] = fx_sortcost_predict(c, (FxSortKind)k, f, threads);
        if (predicted[k] < predicted[best] &&
            (k != FX_SORTK_VQSORT || fx_vqsort_available())) /* its plugin opened only here */
            best = (FxSortKind)k;
    }
    return best;
}

void fx_sortcost_observe(FxSortCosts *c, FxSortKind k, const FxSortFeatures *f,
                         unsigned threads, double ns)
{
    double units = fx_sortcost_units(k, f, threads);
    if (f->n < FX_SORTCOST_OBSERVE_MIN || !(units > 0) || !isfinite(units) || !(ns > 0) ||
        (k == FX_SORTK_INSERTION && gives_up(f) && f->descents + 1 < f->n)) /* pdq's time */
        return;
    if (k == FX_SORTK_PARALLEL) /* the start-up is not per unit */
        ns = fmax(ns - PARALLEL_START_NS, ns / 4);
    double *cost = &c->ns_per_unit[k][fx_sortcost_level(f->n)];
    double ratio = fmin(fmax(ns / units / *cost, 0.25), 4.0); /* one odd run moves it little */
    *cost *= pow(ratio, 0.25);
    c->observed[k]++;
    c->refitted[k] = true;
}
