/*
 * sort.c: the sorting kernels (src/exec/sortk.c) against C++ std::sort and
 * glibc qsort, in one process, best of several runs each, printed as
 * times and ratios:
 *
 *   1. 10^7 random int64: the fastest one-thread kernel at least as fast
 *      as std::sort, and at least 3x faster than qsort;
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
 * Not part of the Makefile; build and run by hand from the repository root
 * (std::sort is C++, so its half is built with g++):
 *
 *   g++ -O2 -Isrc -c bench/sort_std.cpp -o /tmp/sort_std.o && \
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -pthread -Isrc bench/sort.c \
 *      src/exec/sortk.c src/base/base.c /tmp/sort_std.o -lstdc++ -o /tmp/sort && /tmp/sort
 *
 * `/tmp/sort quick` runs each case once, for a smoke test. The rows take
 * turns, so that a machine busy with other work slows them alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/sortk.h"

void bench_std_sort(int64_t *a, size_t n, bool descending);
void bench_std_stable_sort(FxSortPair *p, size_t n, bool descending);

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

/* What is timed: a kernel, std::sort or qsort. */
typedef enum { RUN_KERNEL, RUN_STD, RUN_QSORT } RunWhat;

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
        {"std::sort", RUN_STD, 0, 1},
        {"qsort", RUN_QSORT, 0, 1},
};

/* Sorts a copy of in[0..n) with the row, checks it against ref; returns
 * the time. Exits on a wrong result. */
static double run_row(const Row *r, const int64_t *in, const int64_t *ref, int64_t *work, size_t n,
                      bool desc)
{
    memcpy(work, in, n * sizeof(*work));
    double t0 = now();
    bool ok = true;
    if (r->what == RUN_KERNEL)
        ok = fx_sortk(r->kind, work, n, desc, r->threads);
    else if (r->what == RUN_STD)
        bench_std_sort(work, n, desc);
    else
        qsort(work, n, sizeof(*work), desc ? cmp_desc : cmp_asc);
    double t = now() - t0;
    if (!ok || memcmp(work, ref, n * sizeof(*work)) != 0) {
        fprintf(stderr, "%s: wrong result\n", r->name);
        exit(1);
    }
    return t;
}

/* The best one-thread kernel's speed-up over std::sort and over qsort. */
typedef struct Ratios {
    double vs_std, vs_qsort;
} Ratios;

/* Times every row on the input, the rows taking turns (best of `runs`
 * each: a machine busy with other work slows them alike); prints ms,
 * x std::sort (above 1 is faster) and x qsort. */
static Ratios bench_case(const char *title, const int64_t *in, size_t n, bool desc)
{
    enum { ROWS = sizeof(rows) / sizeof(rows[0]) };
    int64_t *ref = malloc(n * sizeof(*ref)), *work = malloc(n * sizeof(*work));
    memcpy(ref, in, n * sizeof(*ref));
    bench_std_sort(ref, n, desc);

    FxSortFeatures f;
    fx_sortk_features(in, n, &f);
    printf("\n%s%s: descents %zu, range [%lld, %lld]%s\n", title, desc ? ", sorted descending" : "",
           f.descents, (long long)f.min, (long long)f.max, f.sampled ? " (sampled)" : "");
    double best[ROWS];
    for (int i = 0; i < ROWS; i++)
        best[i] = 1e30;
    for (int rep = 0; rep < runs; rep++) {
        for (int i = 0; i < ROWS; i++) {
            if (rows[i].what == RUN_QSORT && rep >= 2) continue; // slow, and steady
            double t = run_row(&rows[i], in, ref, work, n, desc);
            best[i] = t < best[i] ? t : best[i];
        }
    }
    double t_std = best[ROWS - 2], t_qsort = best[ROWS - 1], best_one = 1e30;
    for (int i = 0; i < ROWS; i++) {
        printf("  %-11s %8.1f ms   %6.2fx std::sort   %6.2fx qsort\n", rows[i].name, best[i] * 1e3,
               t_std / best[i], t_qsort / best[i]);
        if (rows[i].what == RUN_KERNEL && rows[i].threads == 1 && best[i] < best_one)
            best_one = best[i];
    }
    free(ref);
    free(work);
    return (Ratios){t_std / best_one, t_qsort / best_one};
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
    int64_t *in = malloc(N * sizeof(*in));
    printf("sortk: n = 10^7 int64 unless said, best of %d runs (qsort: of 2); x std::sort above\n"
           "1 is faster; parallel on %d threads\n",
           runs, THREADS);

    for (size_t i = 0; i < N; i++)
        in[i] = (int64_t)rnd();
    Ratios random = bench_case("10^7 random int64", in, N, false);
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
    free(in);
    return 0;
}
