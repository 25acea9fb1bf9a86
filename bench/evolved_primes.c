/*
 * evolved_primes.c: comprehensions over primes after training on small
 * inputs, against primesieve, in one process (issue 7):
 *   - find_primes(10^8) and (10^9) (examples/primes.flux, a list) against
 *     primesieve_generate_primes;
 *   - count_primes(10^8) and (10^9) (tests/prove/primes_shapes.flux, a
 *     count) against primesieve_count_primes;
 *   - count_twins(10^8) (the same file: prime(p) and prime(p + 2)) against
 *     primesieve_count_twins;
 * each trained by one run on a small n and a learning round, then timed
 * by the engine (the evaluation: dispatch and kernel, not printing), best
 * of 3, on all cores for both. Exits 1 when an answer is wrong.
 *
 * usage: evolved_primes STORE_DIR ROOT
 */
#include <primesieve.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "flux.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Trains intent on a small call, then times EXPR; returns its best time. */
static double evolved(const char *path, FluxStore *store, const char *small, const char *expr,
                      const char *want)
{
    FluxProgram *prog;
    if (flux_program_load(path, NULL, stderr, &prog) != FLUX_OK)
        return -1;
    flux_program_use_store(prog, store, 0);
    FluxRunOptions opts = {0};
    FluxResult r;
    if (flux_run(prog, small, &opts, stderr, &r) != FLUX_OK)
        return -1;
    flux_result_free(&r);
    flux_store_flush(store, stderr);
    flux_optimize(prog, store, NULL, stdout, stderr);
    flux_program_use_store(prog, store, 0);
    double best = -1;
    for (int i = 0; i < 3; i++) {
        FluxRunOptions o = {.no_learn = 1};
        if (flux_run(prog, expr, &o, stderr, &r) != FLUX_OK)
            return -1;
        if (strcmp(r.text, want) != 0) {
            printf("%s = %s, not %s: WRONG\n", expr, r.text, want);
            best = -1;
            flux_result_free(&r);
            break;
        }
        if (best < 0 || r.duration_ms < best)
            best = r.duration_ms;
        flux_result_free(&r);
    }
    flux_program_free(prog);
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: evolved_primes STORE_DIR ROOT\n");
        return 2;
    }
    char primes[4096], shapes[4096];
    snprintf(primes, sizeof(primes), "%s/examples/primes.flux", argv[2]);
    snprintf(shapes, sizeof(shapes), "%s/tests/prove/primes_shapes.flux", argv[2]);
    FluxStore *store;
    if (flux_store_open(argv[1], stderr, &store) != FLUX_OK)
        return 1;
    double list = evolved(primes, store, "find_primes(5000)[9]",
                          "find_primes(100000000)[5761454]", "99999989");
    double list9 = evolved(primes, store, "find_primes(5000)[9]",
                           "find_primes(1000000000)[50847533]", "999999937");
    double count8 = evolved(shapes, store, "count_primes(5000)", "count_primes(100000000)",
                            "5761455");
    double count = evolved(shapes, store, "count_primes(5000)", "count_primes(1000000000)",
                           "50847534");
    /* twin primes p < 10^8: prime(p + 2) answered from sieve windows */
    double twins = evolved(shapes, store, "count_twins(5000)", "count_twins(100000000)",
                           "440312");
    double ps_list = 1e300, ps_list9 = 1e300, ps_count8 = 1e300, ps_count = 1e300,
           ps_twins = 1e300;
    for (int i = 0; i < 3; i++) {
        size_t n, n9;
        double t0 = now_ms();
        void *p = primesieve_generate_primes(0, 100000000, &n, UINT64_PRIMES);
        double t = now_ms() - t0;
        primesieve_free(p);
        ps_list = t < ps_list ? t : ps_list;
        t0 = now_ms();
        p = primesieve_generate_primes(0, 1000000000, &n9, UINT64_PRIMES);
        t = now_ms() - t0;
        primesieve_free(p);
        ps_list9 = t < ps_list9 ? t : ps_list9;
        t0 = now_ms();
        uint64_t c8 = primesieve_count_primes(0, 100000000);
        t = now_ms() - t0;
        ps_count8 = t < ps_count8 ? t : ps_count8;
        t0 = now_ms();
        uint64_t c = primesieve_count_primes(0, 1000000000);
        t = now_ms() - t0;
        ps_count = t < ps_count ? t : ps_count;
        t0 = now_ms();
        uint64_t tw = primesieve_count_twins(0, 100000001); /* p + 2 <= 10^8 + 1: p < 10^8 */
        t = now_ms() - t0;
        ps_twins = t < ps_twins ? t : ps_twins;
        if (n != 5761455 || n9 != 50847534 || c8 != 5761455 || c != 50847534 || tw != 440312)
            return 1;
    }
    printf("find_primes(10^8): flux %.1f ms, primesieve %.1f ms: %.2fx\n", list, ps_list,
           list / ps_list);
    printf("find_primes(10^9): flux %.1f ms, primesieve %.1f ms: %.2fx\n", list9, ps_list9,
           list9 / ps_list9);
    printf("count_primes(10^8): flux %.1f ms, primesieve %.1f ms: %.2fx\n", count8, ps_count8,
           count8 / ps_count8);
    printf("count_primes(10^9): flux %.1f ms, primesieve %.1f ms: %.2fx\n", count, ps_count,
           count / ps_count);
    printf("count_twins(10^8): flux %.1f ms, primesieve %.1f ms: %.2fx\n", twins, ps_twins,
           twins / ps_twins);
    flux_store_close(store, stderr);
    return list < 0 || list9 < 0 || count8 < 0 || count < 0 || twins < 0;
}
