/*
 * primes.c: the prime-sieve kernels (src/exec/sieve.c) against the
 * primesieve library, on the same number of threads (1, then 2):
 *
 *   1. count the primes below 10^8 and 10^9, and list those below 10^8,
 *      by the segmented kernel; target within 3x of primesieve, goal 1.5x.
 *      The results must equal primesieve's (5761455 and 50847534 primes).
 *   2. trial division and the plain sieve at 10^6 and 10^7, for the curve.
 *
 * Best of several runs each; the ratio is ours / primesieve's time.
 * `make bench` builds and runs it (libprimesieve-dev comes with
 * scripts/install-deps); by hand from the repository root:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -pthread -Isrc bench/primes.c \
 *      src/exec/sieve.c src/base/base.c -lprimesieve -lm -o /tmp/primes && /tmp/primes
 *
 * An optional argument sets the segment size in bytes (default: the
 * kernel's, FX_SIEVE_SEGMENT_DEFAULT).
 */
#include <primesieve.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/sieve.h"

#define RUNS 5

static size_t segment; /* 0: the kernel's default */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Best time of RUNS counts below n, ours or primesieve's; *out the count. */
static double time_count(bool ours, FxSieveKind k, uint64_t n, unsigned threads, int runs,
                         uint64_t *out)
{
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        if (ours) {
            if (!fx_sieve_count(k, 0, n, threads, segment, out, NULL, NULL))
                abort();
        } else {
            primesieve_set_num_threads((int)threads);
            *out = primesieve_count_primes(0, n - 1);
        }
        double t = now() - t0;
        best = t < best ? t : best;
    }
    return best;
}

/* Best time of RUNS lists of the primes below n; checks ours against
 * primesieve's each time. */
static double time_list(bool ours, uint64_t n, unsigned threads, size_t *out_len)
{
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        FxPrimes mine = {0};
        size_t len = 0;
        double t0 = now();
        if (ours) {
            if (!fx_sieve_list(FX_SIEVE_SEGMENTED, 0, n, threads, segment, &mine, NULL, NULL))
                abort();
            len = mine.len;
        } else {
            primesieve_set_num_threads((int)threads);
            uint64_t *v = primesieve_generate_primes(0, n - 1, &len, UINT64_PRIMES);
            primesieve_free(v);
        }
        double t = now() - t0;
        best = t < best ? t : best;
        fx_primes_free(&mine);
        *out_len = len;
    }
    return best;
}

/* The lists below n must be equal, value for value. */
static bool lists_equal(uint64_t n, unsigned threads)
{
    FxPrimes mine = {0};
    size_t len = 0;
    if (!fx_sieve_list(FX_SIEVE_SEGMENTED, 0, n, threads, segment, &mine, NULL, NULL))
        abort();
    uint64_t *v = primesieve_generate_primes(0, n - 1, &len, UINT64_PRIMES);
    bool eq = len == mine.len && memcmp(v, mine.v, len * sizeof(*v)) == 0;
    primesieve_free(v);
    fx_primes_free(&mine);
    return eq;
}

static void compare_count(uint64_t n, unsigned threads, int runs, uint64_t expect)
{
    uint64_t a = 0, b = 0;
    double ta = time_count(true, FX_SIEVE_SEGMENTED, n, threads, runs, &a);
    double tb = time_count(false, FX_SIEVE_SEGMENTED, n, threads, runs, &b);
    printf("count  < %-6.0e %u thr  ours %8.4f s  primesieve %8.4f s  ratio %5.2f  %s\n",
           (double)n, threads, ta, tb, ta / tb, a == b && a == expect ? "ok" : "MISMATCH");
}

static void compare_list(uint64_t n, unsigned threads)
{
    size_t a = 0, b = 0;
    double ta = time_list(true, n, threads, &a);
    double tb = time_list(false, n, threads, &b);
    printf("list   < %-6.0e %u thr  ours %8.4f s  primesieve %8.4f s  ratio %5.2f  %s\n",
           (double)n, threads, ta, tb, ta / tb,
           a == b && lists_equal(n, threads) ? "ok" : "MISMATCH");
}

int main(int argc, char **argv)
{
    if (argc > 1)
        segment = (size_t)strtoull(argv[1], NULL, 10);
    printf("segment %zu bytes (0: default %zu)\n", segment, FX_SIEVE_SEGMENT_DEFAULT);
    for (unsigned threads = 1; threads <= 2; threads++) {
        compare_count(100000000, threads, RUNS, 5761455);
        compare_count(1000000000, threads, 3, 50847534);
        compare_list(100000000, threads);
    }
    static const struct {
        FxSieveKind k;
        uint64_t n, expect;
        int runs;
    } curve[] = {
            {FX_SIEVE_TRIAL, 1000000, 78498, 1},
            {FX_SIEVE_TRIAL, 10000000, 664579, 1},
            {FX_SIEVE_ERATOSTHENES, 1000000, 78498, RUNS},
            {FX_SIEVE_ERATOSTHENES, 10000000, 664579, RUNS},
            {FX_SIEVE_SEGMENTED, 1000000, 78498, RUNS},
            {FX_SIEVE_SEGMENTED, 10000000, 664579, RUNS},
    };
    for (size_t i = 0; i < sizeof(curve) / sizeof(curve[0]); i++) {
        uint64_t c = 0, p = 0;
        double t = time_count(true, curve[i].k, curve[i].n, 1, curve[i].runs, &c);
        double tp = time_count(false, curve[i].k, curve[i].n, 1, RUNS, &p);
        printf("count  < %-6.0e 1 thr  %-12s %10.6f s  (primesieve %8.6f s, ratio %7.1f)  %s\n",
               (double)curve[i].n, fx_sieve_name(curve[i].k), t, tp, t / tp,
               c == curve[i].expect && p == c ? "ok" : "MISMATCH");
    }
    return 0;
}
