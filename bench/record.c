/*
 * record.c: what recording costs.
 *
 *   1. One run of 10^5 small calls (a recursion 10^5 deep), evaluated and
 *      recorded (queued, then flushed: appended to the record log, or,
 *      for every 16th flush, committed with the log's frames; a store's
 *      first flush commits too, docs/store.md), against the
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
 *   3. A rewritten version (fibonacci's, learned by a round) recorded
 *      and committed after 2000 earlier runs, against the same unrecorded:
 *      what a record of a version that is not v1 adds (its origin was read
 *      with every version's count of executions, 100 us and growing with
 *      the store; one indexed row now).
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

/* One evaluation of p, recorded and flushed into st, or (st NULL) the
 * same evaluation not recorded. */
static Cost one_run(FluxProgram *p, FluxStore *st, const char *expr)
{
    FluxResult r;
    FluxRunOptions unrecorded = {.record_later = 1};
    double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID), wall = now();
    if (flux_run(p, expr, st ? NULL : &unrecorded, stderr, &r) != FLUX_OK)
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

    double plain_t[RUNS], rec_t[RUNS], ratio[RUNS], wall_ratio[RUNS], plain_sum = 0, rec_sum = 0;
    one_run(recorded, NULL, "down(100000)"); /* the first run lowers the graph: on neither side */
    for (int i = 0; i < RUNS; i++) {
        Cost p, r;
        if (i % 2) {
            r = one_run(recorded, st, "down(100000)");
            p = one_run(recorded, NULL, "down(100000)");
        } else {
            p = one_run(recorded, NULL, "down(100000)");
            r = one_run(recorded, st, "down(100000)");
        }
        plain_t[i] = p.cpu;
        rec_t[i] = r.cpu;
        plain_sum += p.cpu;
        rec_sum += r.cpu;
        ratio[i] = r.cpu / p.cpu;
        wall_ratio[i] = r.wall / p.wall;
    }
    printf("one run of 10^5 calls (%d pairs, interleaved): %.3f ms unrecorded, %.3f ms recorded "
           "and flushed (CPU time, medians): overhead %.1f%% (median of the pairs; %.1f%% in "
           "wall time; %.1f%% in total CPU time, every 16th flush's commit included)\n",
           RUNS, median(plain_t, RUNS) * 1e3, median(rec_t, RUNS) * 1e3,
           (median(ratio, RUNS) - 1) * 100, (median(wall_ratio, RUNS) - 1) * 100,
           (rec_sum / plain_sum - 1) * 100);

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
    /* 3: fibonacci learned past v1, then 2000 runs of each kind */
    f = fopen(path, "w");
    fputs("intent fib(n: Natural) -> Natural:\n    constraints:\n        - fib(0) = 0\n"
          "        - fib(1) = 1\n        - fib(n) = fib(n - 1) + fib(n - 2)\n", f);
    fclose(f);
    FluxProgram *fib = load(path), *fib_plain = load(path);
    flux_program_use_store(fib, st, 0);
    for (int n = 10; n <= 30; n += 5) {
        FluxResult r;
        char e[32];
        snprintf(e, sizeof(e), "fib(%d)", n);
        flux_run(fib, e, NULL, stderr, &r);
        flux_result_free(&r);
    }
    flux_store_flush(st, stderr);
    FILE *devnull = fopen("/dev/null", "w");
    flux_optimize(fib, st, NULL, devnull, stderr);
    fclose(devnull);
    flux_program_use_store(fib, st, 0);
    flux_program_use_store(fib_plain, st, 0); /* the same version, its runs not recorded */
    enum { FIB = 2001 };
    static double rec3[FIB], plain3[FIB];
    FluxRunOptions quiet = {.no_learn = 1}, unrecorded = {.no_learn = 1, .record_later = 1};
    char version[16] = "?";
    for (int i = 0; i < FIB; i++) {
        FluxResult r;
        FluxRunOptions want = {.no_learn = 1, .want_json = FLUX_JSON_SUMMARY};
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        flux_run(fib, "fib(90)", i ? &quiet : &want, stderr, &r);
        flux_store_flush(st, stderr);
        double c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (!i && r.version)
            snprintf(version, sizeof(version), "%s", r.version);
        flux_result_free(&r);
        flux_run(fib_plain, "fib(90)", &unrecorded, stderr, &r);
        double c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        flux_result_free(&r);
        rec3[i] = c1 - c0;
        plain3[i] = c2 - c1;
    }
    printf("fib(90) on %s, the 2000th run: %.1f us unrecorded, %.1f us recorded and committed "
           "(CPU time, medians)\n", version, median(plain3, FIB) * 1e6, median(rec3, FIB) * 1e6);
    flux_program_free(fib);
    flux_program_free(fib_plain);
    flux_store_close(st, stderr);
    flux_program_free(plain);
    flux_program_free(recorded);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}
