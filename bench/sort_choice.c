/*
 * sort_choice.c: how good is the sort cost model's choice (sortcost.h)?
 *
 * For a grid of inputs (sizes 8 to 2^22; random over the whole int64
 * range, random in 0..99, random in 0..n, nearly sorted, sorted,
 * reversed) it times every kernel, best of several runs, and then:
 *   1. fits each kernel's cost per unit of work (the geometric mean of
 *      time / units over the grid): the numbers fx_sortcost_defaults
 *      holds;
 *   2. reports the choice's regret, the chosen kernel's time over the
 *      fastest kernel's, with the default costs: the share of inputs where
 *      the choice is within 10% of the fastest, and the worst case.
 * One process; all kernels see the same input. `sort_choice quick` runs a
 * smaller grid.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/sortcost.h"
#include "hw/pool.h"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

enum { RANDOM, NARROW, MEDIUM, NEARLY, SORTED, REVERSED, SHAPES };
static const char *const shape_names[] = {"random", "0..99", "0..n", "nearly", "sorted",
                                          "reversed"};

static void fill(int64_t *a, size_t n, int shape)
{
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case RANDOM: a[i] = (int64_t)rnd(); break;
        case NARROW: a[i] = (int64_t)(rnd() % 100); break;
        case MEDIUM: a[i] = (int64_t)(rnd() % (n + 1)); break;
        case REVERSED: a[i] = (int64_t)(n - i); break;
        default: a[i] = (int64_t)i * 3; break;
        }
    }
    if (shape == NEARLY) /* 1% of the elements swapped with a random other */
        for (size_t s = 0; s < n / 100 + 1; s++) {
            size_t i = rnd() % n, j = rnd() % n;
            int64_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
}

typedef struct Case {
    size_t n;
    int shape;
    FxSortFeatures f;
    double ns[FX_SORTK__COUNT]; /* best time of each kernel; INFINITY: not run */
} Case;

static void time_case(Case *c, const int64_t *input, int64_t *work, unsigned threads)
{
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        c->ns[k] = INFINITY;
        if (k == FX_SORTK_PARALLEL && (threads < 2 || c->n < FX_SORTK_PARALLEL_MIN))
            continue;
        /* enough runs for 20 ms, at least 3 */
        double spent = 0;
        for (int r = 0; r < 3 || (spent < 2e7 && r < 10000); r++) {
            memcpy(work, input, c->n * sizeof(int64_t));
            double t0 = now_ns();
            fx_sortk((FxSortKind)k, work, c->n, false, threads);
            double t = now_ns() - t0;
            spent += t;
            if (t < c->ns[k])
                c->ns[k] = t;
        }
    }
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && !strcmp(argv[1], "quick");
    unsigned threads = fx_pool_default_size();
    size_t sizes[] = {8,     16,     32,      64,      128,      512,      2048,    4096,
                      8192,  32768,  65536,   131072,  524288,   1u << 20, 3u << 20, 1u << 22,
                      6u << 20, 10000000};
    size_t n_sizes = sizeof(sizes) / sizeof(sizes[0]) - (quick ? 4 : 0);
    size_t max_n = sizes[n_sizes - 1];
    int64_t *input = malloc(max_n * sizeof(int64_t)), *work = malloc(max_n * sizeof(int64_t));
    Case cases[sizeof(sizes) / sizeof(sizes[0]) * SHAPES];
    size_t n_cases = 0;
    for (size_t s = 0; s < n_sizes; s++)
        for (int shape = 0; shape < SHAPES; shape++) {
            Case *c = &cases[n_cases++];
            c->n = sizes[s];
            c->shape = shape;
            fill(input, c->n, shape);
            fx_sortk_features(input, c->n, &c->f);
            time_case(c, input, work, threads);
        }

    if (getenv("SORT_CHOICE_RAW"))
        for (size_t i = 0; i < n_cases; i++) {
            printf("raw %zu %s", cases[i].n, shape_names[cases[i].shape]);
            for (int k = 0; k < FX_SORTK__COUNT; k++)
                printf(" %s %.3f", fx_sortk_name((FxSortKind)k), cases[i].ns[k] / cases[i].n);
            printf(" (ns/elem)\n");
        }
    /* 1. the cost a unit of each kernel at each level: the geometric mean
     * of time / units over the inputs of that level (a level without
     * inputs takes the nearest level's) */
    FxSortCosts fitted;
    fx_sortcost_defaults(&fitted);
    printf("sort cost model (%u threads): ns a unit of work, fitted on %zu inputs\n", threads,
           n_cases);
    printf("  %-10s", "kernel");
    for (unsigned l = 0; l < FX_SORTCOST_LEVELS; l++)
        printf(" %8s", fx_sortcost_level_name(l));
    printf("\n");
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        double sum[FX_SORTCOST_LEVELS] = {0};
        int m[FX_SORTCOST_LEVELS] = {0};
        for (size_t i = 0; i < n_cases; i++) {
            const Case *c = &cases[i];
            double units = fx_sortcost_units((FxSortKind)k, &c->f, threads);
            bool gave_up = k == FX_SORTK_INSERTION && c->n > 32 && c->f.descents + 1 < c->n &&
                           2.0 * (double)c->f.descents > (double)c->n / 8;
            /* pdq and radix on inputs in no order: their presorted paths are
             * a pass or two, far from the choice */
            bool ordered = c->shape == NEARLY || c->shape == SORTED || c->shape == REVERSED;
            if (!isfinite(c->ns[k]) || !isfinite(units) || gave_up ||
                (k != FX_SORTK_INSERTION && ordered))
                continue;
            double ns = k == FX_SORTK_PARALLEL ? fmax(c->ns[k] - 40000.0, c->ns[k] / 4) : c->ns[k];
            unsigned l = fx_sortcost_level(c->n);
            sum[l] += log(ns / units);
            m[l]++;
        }
        printf("  %-10s", fx_sortk_name((FxSortKind)k));
        for (int l = 0; l < FX_SORTCOST_LEVELS; l++) {
            int from = l;
            for (int d = 1; !m[from] && d < FX_SORTCOST_LEVELS; d++)
                from = l - d >= 0 && m[l - d] ? l - d : l + d < FX_SORTCOST_LEVELS ? l + d : from;
            fitted.ns_per_unit[k][l] = m[from] ? exp(sum[from] / m[from]) : 1;
            printf(" %8.3f", fitted.ns_per_unit[k][l]);
        }
        printf("\n");
    }

    /* 2. the choice's regret: with the defaults the build holds, and with
     * the costs just fitted */
    FxSortCosts def;
    fx_sortcost_defaults(&def);
    const FxSortCosts *models[2] = {&def, &fitted};
    const char *model_names[2] = {"the defaults", "the costs fitted here"};
    printf("%-9s %-9s %-10s %-10s %9s %9s %9s\n", "n", "input", "chosen", "fastest", "chosen ms",
           "regret", "(fitted)");
    int within[2] = {0, 0};
    double worst[2] = {1, 1}, total_chosen[2] = {0, 0}, total_best = 0;
    for (size_t i = 0; i < n_cases; i++) {
        Case *c = &cases[i];
        int best = 0;
        for (int j = 1; j < FX_SORTK__COUNT; j++)
            if (c->ns[j] < c->ns[best])
                best = j;
        double regret[2];
        FxSortKind chosen[2];
        for (int m = 0; m < 2; m++) {
            double predicted[FX_SORTK__COUNT];
            chosen[m] = fx_sortcost_choose(models[m], &c->f, threads, predicted);
            regret[m] = c->ns[chosen[m]] / c->ns[best];
            total_chosen[m] += c->ns[chosen[m]];
            within[m] += regret[m] <= 1.1;
            worst[m] = fmax(worst[m], regret[m]);
        }
        total_best += c->ns[best];
        printf("%-9zu %-9s %-10s %-10s %9.4f %8.2fx %8.2fx\n", c->n, shape_names[c->shape],
               fx_sortk_name(chosen[0]), fx_sortk_name((FxSortKind)best),
               c->ns[chosen[0]] / 1e6, regret[0], regret[1]);
    }
    for (int m = 0; m < 2; m++)
        printf("with %s the choice is within 10%% of the fastest kernel on %d of %zu inputs; "
               "worst %.2fx; all inputs together take %.3fx the fastest kernels' time\n",
               model_names[m], within[m], n_cases, worst[m], total_chosen[m] / total_best);
    free(input);
    free(work);
    return 0;
}
