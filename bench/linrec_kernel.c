/*
 * linrec_kernel.c: the linear-recurrence kernels (src/exec/linrec.c) on
 * fibonacci, against what they must keep up with:
 *
 *   1. fib(90) by the int64 loop (fx_linrec_loop_small, and fx_linrec_loop
 *      with its mpz_t result) against a plain C loop; target 1-2x.
 *   2. fib(n) by fx_linrec_power against GMP's mpz_fib_ui for n = 10^4 ..
 *      10^7; target 1.5x at 10^6, 3x at most. Best of several runs each.
 *
 * Not part of the Makefile; build and run by hand from the repository root:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc bench/linrec_kernel.c \
 *      src/exec/linrec.c src/base/base.c -lgmp -o /tmp/linrec_kernel && /tmp/linrec_kernel
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "exec/linrec.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The baseline: what a C programmer writes for fib(n). */
__attribute__((noinline)) static int64_t plain_fib(uint64_t n)
{
    int64_t a = 0, b = 1;
    for (uint64_t i = 0; i < n; i++) {
        int64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

static volatile uint64_t n90 = 90; /* not a constant the compiler can fold */
static volatile int64_t sink;

#define CALLS  200000
#define ROUNDS 15

/* Nanoseconds a call of each fib(90), best of ROUNDS rounds of CALLS. */
static void bench_fib90(const FxLinRecSpec *fib)
{
    double best[3] = {1e9, 1e9, 1e9};
    mpz_t out;
    mpz_init(out);
    for (int round = 0; round < ROUNDS; round++) {
        int64_t acc = 0, x = 0;
        double t0 = now();
        for (int i = 0; i < CALLS; i++)
            acc += plain_fib(n90);
        double t1 = now();
        for (int i = 0; i < CALLS; i++) {
            fx_linrec_loop_small(fib, n90, &x);
            acc += x;
        }
        double t2 = now();
        for (int i = 0; i < CALLS; i++) {
            fx_linrec_loop(fib, n90, out, NULL, NULL);
            acc += mpz_get_si(out);
        }
        double t3 = now();
        sink = acc;
        double d[3] = {t1 - t0, t2 - t1, t3 - t2};
        for (int j = 0; j < 3; j++) {
            if (d[j] < best[j])
                best[j] = d[j];
        }
    }
    mpz_clear(out);
    double plain = best[0] / CALLS * 1e9;
    printf("fib(90)  plain C loop %6.1f ns\n", plain);
    printf("         loop_small   %6.1f ns  ratio %.2f\n", best[1] / CALLS * 1e9,
           best[1] / best[0]);
    printf("         loop (mpz)   %6.1f ns  ratio %.2f\n", best[2] / CALLS * 1e9,
           best[2] / best[0]);
}

/* Seconds for fib(n) by the power kernel and by mpz_fib_ui, best of runs,
 * interleaved so that both see the same machine. */
static void bench_power(const FxLinRecSpec *fib, uint64_t n, int runs)
{
    double best_power = 1e9, best_gmp = 1e9;
    mpz_t a, b;
    mpz_init(a);
    mpz_init(b);
    for (int i = 0; i < runs; i++) {
        double t0 = now();
        fx_linrec_power(fib, n, a, NULL, NULL);
        double t1 = now();
        mpz_fib_ui(b, (unsigned long)n);
        double t2 = now();
        if (t1 - t0 < best_power)
            best_power = t1 - t0;
        if (t2 - t1 < best_gmp)
            best_gmp = t2 - t1;
    }
    if (mpz_cmp(a, b) != 0) {
        fprintf(stderr, "fib(%llu) differs from mpz_fib_ui\n", (unsigned long long)n);
        exit(1);
    }
    printf("fib(%-8llu) power %10.1f us  mpz_fib_ui %10.1f us  ratio %.2f\n", (unsigned long long)n,
           best_power * 1e6, best_gmp * 1e6, best_power / best_gmp);
    mpz_clear(a);
    mpz_clear(b);
}

int main(void)
{
    FxLinRecSpec fib;
    const int64_t c[] = {1, 1};
    const char *const f0[] = {"0", "1"};
    if (!fx_linrec_init(&fib, 2, c, f0))
        return 1;
    bench_fib90(&fib);
    bench_power(&fib, 10000, 2001);
    bench_power(&fib, 100000, 201);
    bench_power(&fib, 1000000, 21);
    bench_power(&fib, 10000000, 5);
    fx_linrec_clear(&fib);
    return 0;
}
