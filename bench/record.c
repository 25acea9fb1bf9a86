/*
 * record.c: what recording costs.
 *
 *   1. One run of 10^5 small calls (a recursion 10^5 deep), evaluated and
 *      recorded (queued, then flushed, as `flux run` does), against the same
 *      run without a store: the median of RUNS each, interleaved.
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

#define RUNS 41
#define TINY 20000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

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

/* Seconds for one evaluation (and its recording, when the program has a store). */
static double one_run(FluxProgram *p, FluxStore *st, const char *expr)
{
    FluxResult r;
    double t = now();
    if (flux_run(p, expr, NULL, stderr, &r) != FLUX_OK)
        exit(1);
    if (st && flux_store_flush(st, stderr) != FLUX_OK)
        exit(1);
    t = now() - t;
    flux_result_free(&r);
    return t;
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

    double plain_t[RUNS], rec_t[RUNS];
    for (int i = 0; i < RUNS; i++) {
        plain_t[i] = one_run(plain, NULL, "down(100000)");
        rec_t[i] = one_run(recorded, st, "down(100000)");
    }
    double mp = median(plain_t, RUNS), mr = median(rec_t, RUNS);
    printf("one run of 10^5 calls (median of %d, interleaved): %.3f ms unrecorded, %.3f ms "
           "recorded and committed: overhead %.1f%%\n", RUNS, mp * 1e3, mr * 1e3,
           (mr / mp - 1) * 100);

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
