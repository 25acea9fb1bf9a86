/*
 * record.c: what recording costs.
 *
 *   1. One run of 10^5 small calls (a recursion 10^5 deep), evaluated and
 *      recorded (queued, then committed, as `flux run` does), against the
 *      same run without a store, RUNS pairs: the two runs of a pair are
 *      back to back, in turns which goes first, and the overhead is the
 *      median of the pairs' ratios, so that load from other processes,
 *      which comes and goes, falls on both sides of a pair alike. Time is
 *      the process's CPU time (user and system: the commit's writes
 *      included), since neither side waits for anything (a commit does not
 *      sync the disk, docs/store.md) and wall time on a shared machine
 *      counts other processes' time slices; the wall-time figure is
 *      printed beside it.
 *   2. Many tiny runs recorded in batches (flushed every 256), against the
 *      same runs unrecorded: the cost per recorded execution.
 *
 * Built and run by `make bench`; prints the overhead ratios.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flux.h"

#define RUNS 101
#define TINY 20000

static double clock_s(clockid_t which)
{
    struct timespec t;
    clock_gettime(which, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* A run's cost: its CPU time and its wall time, in seconds. */
typedef struct Cost {
    double cpu, wall;
} Cost;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median: noise on a shared machine only ever adds time, but it adds
 * it to either side, so the middle is fairer than the best. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), by_value);
    return v[n / 2];
}

static FluxProgram *load(const char *path)
{
    FluxProgram *p;
    if (flux_program_load(path, NULL, stderr, &p) != FLUX_OK)
        exit(1);
    return p;
}

/* One evaluation (and its recording, when the program has a store). */
static Cost one_run(FluxProgram *p, FluxStore *st, const char *expr)
{
    FluxResult r;
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID), wall = now();
    if (flux_run(p, expr, NULL, stderr, &r) != FLUX_OK)
        exit(1);
    if (st && flux_store_flush(st, stderr) != FLUX_OK)
        exit(1);
    Cost c = {clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu, now() - wall};
    flux_result_free(&r);
    return c;
}

int main(void)
{
    char dir[] = "/tmp/flux-bench-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256], store_dir[256];
    snprintf(path, sizeof(path), "%s/count.flux", dir);
    snprintf(store_dir, sizeof(store_dir), "%s/store", dir);
    FILE *f = fopen(path, "w");
    fputs("intent down(n: Natural) -> Natural:\n    constraints:\n        - down(0) = 0\n"
          "        - down(n) = down(n - 1) + 1\n"
          "intent sq(n: Int) -> Int:\n    constraints:\n        - result = n * n\n", f);
    fclose(f);
    FluxProgram *plain = load(path), *recorded = load(path);
    FluxStore *st;
    if (flux_store_open(store_dir, stderr, &st) != FLUX_OK)
        return 1;
    flux_program_use_store(recorded, st, 0);

    double plain_t[RUNS], rec_t[RUNS], ratio[RUNS], wall_ratio[RUNS];
    for (int i = 0; i < RUNS; i++) {
        Cost p, r;
        if (i % 2) {
            r = one_run(recorded, st, "down(100000)");
            p = one_run(plain, NULL, "down(100000)");
        } else {
            p = one_run(plain, NULL, "down(100000)");
            r = one_run(recorded, st, "down(100000)");
        }
        plain_t[i] = p.cpu;
        rec_t[i] = r.cpu;
        ratio[i] = r.cpu / p.cpu;
        wall_ratio[i] = r.wall / p.wall;
    }
    printf("one run of 10^5 calls (%d pairs, interleaved): %.3f ms unrecorded, %.3f ms recorded "
           "and committed (CPU time, medians): overhead %.1f%% (median of the pairs; %.1f%% in "
           "wall time)\n", RUNS, median(plain_t, RUNS) * 1e3, median(rec_t, RUNS) * 1e3,
           (median(ratio, RUNS) - 1) * 100, (median(wall_ratio, RUNS) - 1) * 100);

    double t0 = now();
    for (int i = 0; i < TINY; i++) {
        FluxResult r;
        flux_run(plain, "sq(7)", NULL, stderr, &r);
        flux_result_free(&r);
    }
    double t1 = now();
    for (int i = 0; i < TINY; i++) {
        FluxResult r;
        flux_run(recorded, "sq(7)", NULL, stderr, &r);
        flux_result_free(&r);
        if (i % 256 == 255 && flux_store_flush(st, stderr) != FLUX_OK)
            return 1;
    }
    if (flux_store_flush(st, stderr) != FLUX_OK)
        return 1;
    double t2 = now();
    printf("%d tiny runs: %.1f us each unrecorded, %.1f us each recorded in batches of 256 "
           "(%.1f us per record)\n", TINY, (t1 - t0) / TINY * 1e6, (t2 - t1) / TINY * 1e6,
           ((t2 - t1) - (t1 - t0)) / TINY * 1e6);
    flux_store_close(st, stderr);
    flux_program_free(plain);
    flux_program_free(recorded);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}
