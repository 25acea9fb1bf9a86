/*
 * evolved.c: what the living loop buys, measured in one process against
 * the best existing implementations (issue 6):
 *
 *   1. convergence: fibonacci run on growing inputs (n = 10, 20, 30, ...),
 *      a learning round after each run as `flux run` does, until the
 *      matrix power is installed: how many runs it took;
 *   2. the evolved fibonacci(n) against GMP's mpz_fib_ui for n = 10^4,
 *      10^5, 10^6 (the engine's time for the evaluation, which includes
 *      the dispatch and the variant choice but not printing the value;
 *      best of several runs each, interleaved);
 *   3. the evolved fibonacci(90) per call against a plain C loop: EXPR
 *      `max(fibonacci(90) for i in 0..K)` over K, the whole interpreted
 *      loop included, against a noinline C function called K times.
 *
 * usage: evolved STORE_DIR EXAMPLES_DIR. Prints the figures and the ratios;
 * exits 1 when a result is wrong or a ratio misses the bound
 * (3x mpz_fib_ui at 10^6, 20x the C loop).
 */
#include <gmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flux.h"

#define REPS 7
#define K 1000000

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long long plain_fib(unsigned n)
{
    unsigned long long a = 0, b = 1;
    for (unsigned i = 0; i < n; i++) {
        unsigned long long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

static int run(FluxProgram *prog, const char *expr, FluxResult *r)
{
    FluxRunOptions opts = {0};
    int rc = flux_run(prog, expr, &opts, stderr, r);
    if (rc != FLUX_OK)
        fprintf(stderr, "evolved: %s failed\n", expr);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: evolved STORE_DIR EXAMPLES_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/fibonacci.flux", argv[2]);
    FluxProgram *prog;
    FluxStore *store;
    if (flux_program_load(path, NULL, stderr, &prog) != FLUX_OK ||
        flux_store_open(argv[1], stderr, &store) != FLUX_OK)
        return 1;
    int bad = 0;

    /* 1. convergence */
    int runs = 0;
    char expr[128], *hist = NULL;
    size_t hist_len = 0;
    for (int i = 1; i <= 200; i++) {
        flux_program_use_store(prog, store, 0);
        FluxResult r;
        snprintf(expr, sizeof(expr), "fibonacci(%d)", 10 * i);
        if (run(prog, expr, &r) != FLUX_OK)
            return 1;
        flux_result_free(&r);
        flux_store_flush(store, stderr);
        flux_learn(prog, store, flux_last_execution(prog), NULL);
        runs = i;
        FILE *mem = open_memstream(&hist, &hist_len);
        flux_history(store, prog, "fibonacci", 0, mem, stderr);
        fclose(mem);
        bool done = strstr(hist, "rewrite matrix power") != NULL;
        free(hist);
        if (done)
            break;
    }
    printf("convergence: the matrix power was installed after %d runs on growing inputs "
           "(n = 10, 20, ..., %d)\n", runs, 10 * runs);
    flux_program_use_store(prog, store, 0);

    /* 2. against mpz_fib_ui */
    static const unsigned long ns[] = {10000, 100000, 1000000};
    for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
        double best_flux = 1e300, best_gmp = 1e300;
        mpz_t z, w;
        mpz_inits(z, w, NULL);
        snprintf(expr, sizeof(expr), "fibonacci(%lu)", ns[k]);
        for (int rep = 0; rep < REPS; rep++) {
            FluxResult r;
            if (run(prog, expr, &r) != FLUX_OK)
                return 1;
            if (r.duration_ms < best_flux)
                best_flux = r.duration_ms;
            if (rep == 0) {
                mpz_set_str(w, r.text, 10);
                mpz_fib_ui(z, ns[k]);
                if (mpz_cmp(z, w) != 0) {
                    printf("fibonacci(%lu): WRONG\n", ns[k]);
                    bad = 1;
                }
            }
            flux_result_free(&r);
            double t0 = now_ms();
            mpz_fib_ui(z, ns[k]);
            double t = now_ms() - t0;
            if (t < best_gmp)
                best_gmp = t;
        }
        double ratio = best_flux / best_gmp;
        printf("fibonacci(%lu): flux %.3f ms, mpz_fib_ui %.3f ms: %.2fx\n", ns[k], best_flux,
               best_gmp, ratio);
        if (ns[k] == 1000000 && ratio > 3)
            bad = 1;
        mpz_clears(z, w, NULL);
    }

    /* 3. fibonacci(90) per call against a plain C loop */
    snprintf(expr, sizeof(expr), "max(fibonacci(90) for i in 0..%d)", K);
    double best_flux = 1e300, best_c = 1e300;
    for (int rep = 0; rep < REPS; rep++) {
        FluxResult r;
        if (run(prog, expr, &r) != FLUX_OK)
            return 1;
        if (strcmp(r.text, "2880067194370816120") != 0) {
            printf("fibonacci(90): WRONG: %s\n", r.text);
            bad = 1;
        }
        if (r.duration_ms < best_flux)
            best_flux = r.duration_ms;
        flux_result_free(&r);
        volatile unsigned long long sink = 0;
        volatile unsigned n90 = 90; /* read each time: no call can be hoisted */
        double t0 = now_ms();
        for (int i = 0; i < K; i++) {
            unsigned long long f = plain_fib(n90);
            sink = sink > f ? sink : f;
        }
        double t = now_ms() - t0;
        if (t < best_c)
            best_c = t;
    }
    double per_flux = best_flux * 1e6 / K, per_c = best_c * 1e6 / K;
    printf("fibonacci(90) per call: flux %.1f ns (dispatch and the interpreted loop included), "
           "C loop %.1f ns: %.2fx\n", per_flux, per_c, per_flux / per_c);
    if (per_flux / per_c > 20)
        bad = 1;
    flux_store_close(store, stderr);
    flux_program_free(prog);
    return bad;
}
