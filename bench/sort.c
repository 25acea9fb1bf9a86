/*
 * sort.c: the sorting kernels (src/exec/sortk.c) against C++ std::sort,
 * glibc qsort and Highway's vqsort called directly (hwy::Sorter), in one
 * process, best of several runs each, printed as times and ratios:
 *
 *   1. 10^7 random int64: the fastest one-thread kernel at least as fast
 *      as std::sort, and at least 3x faster than qsort; the sort kernel as
 *      the interpreter runs it ("chosen": the features, the cost model's
 *      choice with its default costs, that kernel) within 1.2x vqsort's
 *      time;
 *   2. 10^7 nearly sorted int64 (sorted, then 1% random swaps): faster
 *      than std::sort;
 *   3. 10^7 int64 in 0..1000, 10^7 in descending order, and 10^7 random
 *      sorted descending;
 *   4. the parallel kernel on 2 threads, in each of the above;
 *   5. fx_sortk_by_key on 10^6 pairs with repeated keys, both directions,
 *      against std::stable_sort.
 * Every result is checked: equal to std::sort's (std::stable_sort's for
 * pairs), which makes it sorted and a permutation of the input.
 *
 * `make bench` builds it (build/bench/sort; the C++ anchors are in
 * bench/sort_std.cpp) and runs `sort quick`, each case once; without
 * `quick` each is best of 5. The rows take turns, so that a machine busy
 * with other work slows them alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/sortcost.h"

void bench_std_sort(int64_t *a, size_t n, bool descending);
void bench_std_stable_sort(FxSortPair *p, size_t n, bool descending);
void bench_hwy_vqsort(int64_t *a, size_t n, bool descending);

#define N       10000000
#define N_PAIRS 1000000
#define THREADS 2

static int runs = 5; /* best of this many (qsort: of 2) */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t rng = 0x853C49E6748FEA9Bu;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int cmp_asc(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_desc(const void *x, const void *y)
{
    return cmp_asc(y, x);
}

/* ---- int64 ---- */

/* What is timed: a kernel, the kernel the cost model chooses, std::sort,
 * vqsort or qsort. */
typedef enum { RUN_KERNEL, RUN_CHOSEN, RUN_STD, RUN_VQSORT, RUN_QSORT } RunWhat;

typedef struct Row {
    const char *name;
    RunWhat what;
    FxSortKind kind;
    unsigned threads;
} Row;

static const Row rows[] = {
        {"insertion", RUN_KERNEL, FX_SORTK_INSERTION, 1},
        {"pdq", RUN_KERNEL, FX_SORTK_PDQ, 1},
        {"radix", RUN_KERNEL, FX_SORTK_RADIX, 1},
        {"parallel/2", RUN_KERNEL, FX_SORTK_PARALLEL, THREADS},
        {"vqsort", RUN_KERNEL, FX_SORTK_VQSORT, 1},
        {"chosen", RUN_CHOSEN, 0, 1},
        {"hwy vqsort", RUN_VQSORT, 0, 1},
        {"std::sort", RUN_STD, 0, 1},
        {"qsort", RUN_QSORT, 0, 1},
};
enum { ROWS = sizeof(rows) / sizeof(rows[0]), ROW_CHOSEN = ROWS - 4, ROW_VQSORT = ROWS - 3 };

static FxSortCosts costs; /* the defaults, for RUN_CHOSEN */

/* What the interpreter does (vm.c, sort_keys): the features, the choice,
 * the kernel. Its kernel goes to *chosen. */
static bool sort_chosen(int64_t *a, size_t n, bool desc, FxSortKind *chosen)
{
    FxSortFeatures f;
    fx_sortk_features(a, n, &f);
    double predicted[FX_SORTK__COUNT];
    *chosen = fx_sortcost_choose(&costs, &f, 1, predicted);
    return fx_sortk(*chosen, a, n, desc, 1);
}

/* Sorts a copy of in[0..n) with the row, checks it against ref; returns
 * the time. Exits on a wrong result. */
static double run_row(const Row *r, const int64_t *in, const int64_t *ref, int64_t *work, size_t n,
                      bool desc, FxSortKind *chosen)
{
    memcpy(work, in, n * sizeof(*work));
    double t0 = now();
    bool ok = true;
    if (r->what == RUN_KERNEL)
        ok = fx_sortk(r->kind, work, n, desc, r->threads);
    else if (r->what == RUN_CHOSEN)
        ok = sort_chosen(work, n, desc, chosen);
    else if (r->what == RUN_STD)
        bench_std_sort(work, n, desc);
    else if (r->what == RUN_VQSORT)
        bench_hwy_vqsort(work, n, desc);
    else
        qsort(work, n, sizeof(*work), desc ? cmp_desc : cmp_asc);
    double t = now() - t0;
    if (!ok || memcmp(work, ref, n * sizeof(*work)) != 0) {
        fprintf(stderr, "%s: wrong result\n", r->name);
        exit(1);
    }
    return t;
}

/* The best one-thread kernel's speed-up over std::sort and over qsort;
 * the chosen kernel's time over vqsort's. */
typedef struct Ratios {
    double vs_std, vs_qsort, chosen_vs_vqsort;
} Ratios;

/* Times every row on the input, the rows taking turns (best of `runs`
 * each: a machine busy with other work slows them alike); prints ms,
 * x std::sort (above 1 is faster) and x qsort. */
static Ratios bench_case(const char *title, const int64_t *in, size_t n, bool desc)
{
    int64_t *ref = malloc(n * sizeof(*ref)), *work = malloc(n * sizeof(*work));
    memcpy(ref, in, n * sizeof(*ref));
    bench_std_sort(ref, n, desc);

    FxSortFeatures f;
    fx_sortk_features(in, n, &f);
    printf("\n%s%s: descents %zu, range [%lld, %lld]%s\n", title, desc ? ", sorted descending" : "",
           f.descents, (long long)f.min, (long long)f.max, f.sampled ? " (sampled)" : "");
    double best[ROWS];
    FxSortKind chosen = FX_SORTK_INSERTION;
    for (int i = 0; i < ROWS; i++)
        best[i] = 1e30;
    for (int rep = 0; rep < runs; rep++) {
        for (int i = 0; i < ROWS; i++) {
            if (rows[i].what == RUN_QSORT && rep >= 2) continue; // slow, and steady
            double t = run_row(&rows[i], in, ref, work, n, desc, &chosen);
            best[i] = t < best[i] ? t : best[i];
        }
    }
    double t_std = best[ROWS - 2], t_qsort = best[ROWS - 1], best_one = 1e30;
    for (int i = 0; i < ROWS; i++) {
        printf("  %-11s %8.1f ms   %6.2fx std::sort   %6.2fx qsort   %5.2fx vqsort's time", rows[i].name,
               best[i] * 1e3, t_std / best[i], t_qsort / best[i], best[i] / best[ROW_VQSORT]);
        printf(rows[i].what == RUN_CHOSEN ? "   (%s)\n" : "\n", fx_sortk_name(chosen));
        if (rows[i].what == RUN_KERNEL && rows[i].threads == 1 && best[i] < best_one)
            best_one = best[i];
    }
    free(ref);
    free(work);
    return (Ratios){t_std / best_one, t_qsort / best_one, best[ROW_CHOSEN] / best[ROW_VQSORT]};
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The chosen kernel's time over vqsort's, on a machine that other work
 * slows unevenly: `rounds` rounds of the two back to back (which one
 * first alternating), the median of the rounds' ratios. */
static double chosen_vs_vqsort_median(const int64_t *in, size_t n, int rounds)
{
    int64_t *ref = malloc(n * sizeof(*ref)), *work = malloc(n * sizeof(*work));
    memcpy(ref, in, n * sizeof(*ref));
    bench_hwy_vqsort(ref, n, false);
    double ratio[64];
    FxSortKind chosen = FX_SORTK_INSERTION;
    for (int r = 0; r < rounds && r < 64; r++) {
        double t[2];
        for (int j = 0; j < 2; j++) {
            int row = (j ^ (r & 1)) ? ROW_VQSORT : ROW_CHOSEN;
            t[row == ROW_VQSORT] = run_row(&rows[row], in, ref, work, n, false, &chosen);
        }
        ratio[r] = t[0] / t[1];
    }
    qsort(ratio, (size_t)rounds, sizeof(*ratio), cmp_double);
    printf("  chosen (%s) over hwy vqsort, %d rounds back to back: median %.2fx, least %.2fx\n",
           fx_sortk_name(chosen), rounds, ratio[rounds / 2], ratio[0]);
    free(ref);
    free(work);
    return ratio[rounds / 2];
}

/* ---- pairs ---- */

static void bench_pairs(bool desc)
{
    size_t n = N_PAIRS;
    FxSortPair *in = malloc(n * sizeof(*in)), *ref = malloc(n * sizeof(*ref));
    FxSortPair *work = malloc(n * sizeof(*work));
    for (size_t i = 0; i < n; i++)
        in[i] = (FxSortPair){(int64_t)(rnd() % 100000) - 50000, i}; // ~10 per key
    memcpy(ref, in, n * sizeof(*in));
    bench_std_stable_sort(ref, n, desc);

    printf("\n10^6 (key, index) pairs, keys in -50000..49999, stable by key%s\n",
           desc ? ", descending" : "");
    double best[FX_SORTK__COUNT + 1]; // the kinds, then std::stable_sort
    for (int k = 0; k <= FX_SORTK__COUNT; k++)
        best[k] = 1e30;
    for (int rep = 0; rep < runs; rep++) {
        for (int k = 0; k <= FX_SORTK__COUNT; k++) {
            memcpy(work, in, n * sizeof(*in));
            double t0 = now();
            bool ok = true;
            if (k < FX_SORTK__COUNT)
                ok = fx_sortk_by_key((FxSortKind)k, work, n, desc, THREADS);
            else
                bench_std_stable_sort(work, n, desc);
            double t = now() - t0;
            if (!ok || memcmp(work, ref, n * sizeof(*work)) != 0) {
                fprintf(stderr, "by key, %s: wrong result\n", fx_sortk_name((FxSortKind)k));
                exit(1);
            }
            best[k] = t < best[k] ? t : best[k];
        }
    }
    for (int k = 0; k <= FX_SORTK__COUNT; k++) {
        const char *name = k < FX_SORTK__COUNT ? fx_sortk_name((FxSortKind)k) : "std::stable_sort";
        printf("  %-17s %7.1f ms   %6.2fx std::stable_sort\n", name, best[k] * 1e3,
               best[FX_SORTK__COUNT] / best[k]);
    }
    free(in);
    free(ref);
    free(work);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "quick") == 0) runs = 1;
    fx_sortcost_defaults(&costs);
    int64_t *in = malloc(N * sizeof(*in));
    printf("sortk: n = 10^7 int64 unless said, best of %d runs (qsort: of 2); x std::sort above\n"
           "1 is faster; parallel on %d threads\n",
           runs, THREADS);

    for (size_t i = 0; i < N; i++)
        in[i] = (int64_t)rnd();
    Ratios random = bench_case("10^7 random int64", in, N, false);
    double median = chosen_vs_vqsort_median(in, N, runs == 1 ? 5 : 11);
    bench_case("10^7 random int64", in, N, true);

    bench_std_sort(in, N, false); // sorted, then 1% random swaps
    for (size_t s = 0; s < N / 100; s++) {
        size_t i = rnd() % N, j = rnd() % N;
        int64_t t = in[i];
        in[i] = in[j], in[j] = t;
    }
    Ratios nearly = bench_case("10^7 nearly sorted int64 (1% swaps)", in, N, false);

    for (size_t i = 0; i < N; i++)
        in[i] = (int64_t)(rnd() % 1001);
    bench_case("10^7 int64 in 0..1000", in, N, false);

    for (size_t i = 0; i < N; i++)
        in[i] = (int64_t)rnd();
    bench_std_sort(in, N, true);
    bench_case("10^7 int64 in descending order", in, N, false);

    bench_pairs(false);
    bench_pairs(true);

    printf("\ntargets, best one-thread kernel: random %.2fx std::sort (>= 1), %.2fx qsort (>= 3);"
           " nearly sorted %.2fx std::sort (> 1)\n",
           random.vs_std, random.vs_qsort, nearly.vs_std);
    printf("target, the chosen kernel on 10^7 random int64: %.2fx vqsort's time (<= 1.2), the median"
           " of rounds %.2fx\n",
           random.chosen_vs_vqsort, median);
    free(in);
    return 0;
}
