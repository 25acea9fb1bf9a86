/*
 * matmul.c: the matrix-multiply kernels (src/exec/matmul.c) against
 * OpenBLAS's cblas_dgemm, and against each other:
 *
 *   1. 1024 x 1024 doubles: blocked and blocked-exact on 1 and 2 threads,
 *      OpenBLAS on 1 and 2 threads (openblas_set_num_threads); GFLOP/s
 *      and the ratio to OpenBLAS on as many threads. Target: blocked at
 *      least 0.40 of OpenBLAS on one thread, and faster on two. Results are
 *      checked: blocked within max|dC| / max|C| <= 1e-12 K of naive and of
 *      OpenBLAS, blocked-exact bit-identical to naive.
 *   2. The naive double kernel at 256 and 512.
 *   3. int64 at 512 for three ranges of values, one per path of the
 *      blocked kernel (exact in doubles, wrapping int64, checked __int128),
 *      naive against blocked; results must be equal.
 *
 * Best of several runs each. Not part of the Makefile; needs
 * libopenblas-dev. Build and run by hand from the repository root:
 *
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Isrc \
 *      -I/usr/include/x86_64-linux-gnu/openblas-pthread bench/matmul.c \
 *      src/exec/matmul.c src/base/base.c -lopenblas -pthread -lm \
 *      -o /tmp/matmul_bench && /tmp/matmul_bench
 *
 * FX_MATMUL_ISA=portable|avx2 caps the kernels' instruction set.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/matmul.h"

#define RUNS 7

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Uniform in [-1, 1). */
static double random_unit(void)
{
    return (double)(next_random() >> 11) / 4503599627370496.0 - 1.0;
}

static double *random_f64(size_t count)
{
    double *a = malloc(count * sizeof(*a));
    for (size_t i = 0; i < count; i++)
        a[i] = random_unit();
    return a;
}

/* Uniform in [-limit, limit]. */
static int64_t *random_i64(size_t count, int64_t limit)
{
    int64_t *a = malloc(count * sizeof(*a));
    for (size_t i = 0; i < count; i++)
        a[i] = (int64_t)(next_random() % (2 * (uint64_t)limit + 1)) - limit;
    return a;
}

/* max |x - y| / max |y| */
static double rel_error(const double *x, const double *y, size_t count)
{
    double diff = 0, size = 0;
    for (size_t i = 0; i < count; i++) {
        diff = fmax(diff, fabs(x[i] - y[i]));
        size = fmax(size, fabs(y[i]));
    }
    return size > 0 ? diff / size : diff;
}

static double gflops(size_t m, size_t k, size_t n, double seconds)
{
    return 2.0 * (double)m * (double)k * (double)n / seconds / 1e9;
}

/* Seconds of one run of a double kernel (OpenBLAS when kind < 0). */
static double run_f64(int kind, const double *A, const double *B, double *C, size_t m, size_t k,
                      size_t n, unsigned threads)
{
    double t0 = now();
    if (kind < 0) {
        openblas_set_num_threads((int)threads);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, A,
                    (int)k, B, (int)n, 0.0, C, (int)n);
    } else if (!fx_matmul_f64((FxMatmulKind)kind, A, B, C, m, k, n, threads, NULL, NULL)) {
        abort();
    }
    return now() - t0;
}

/* The best of `runs` runs of each of `count` kernels, run in turn so that
 * a busy moment of the machine hurts them alike. */
static void time_f64(const int *kinds, int count, const double *A, const double *B, double **C,
                     size_t N, unsigned threads, int runs, double *best)
{
    for (int i = 0; i < count; i++)
        best[i] = 1e30;
    for (int r = 0; r < runs; r++) {
        for (int i = 0; i < count; i++) {
            double t = run_f64(kinds[i], A, B, C[i], N, N, N, threads);
            best[i] = t < best[i] ? t : best[i];
        }
    }
}

static int failures = 0;

static void expect(bool ok, const char *what)
{
    printf("  check %-52s %s\n", what, ok ? "ok" : "FAILED");
    failures += !ok;
}

static void bench_f64_1024(void)
{
    const size_t N = 1024;
    double *A = random_f64(N * N), *B = random_f64(N * N);
    double *naive = malloc(N * N * sizeof(double)), *blas = malloc(N * N * sizeof(double));
    double *blk = malloc(N * N * sizeof(double)), *exact = malloc(N * N * sizeof(double));

    printf("1. %zu x %zu doubles (GFLOP/s, best of %d; ratio to OpenBLAS on as many threads)\n",
           N, N, RUNS);
    double t_naive = run_f64(FX_MATMUL_NAIVE, A, B, naive, N, N, N, 1);
    printf("  %-22s %2u thread  %7.2f GFLOP/s\n", "naive", 1u, gflops(N, N, N, t_naive));
    for (unsigned threads = 1; threads <= 2; threads++) {
        static const int kinds[3] = {-1, FX_MATMUL_BLOCKED, FX_MATMUL_BLOCKED_EXACT};
        double *out[3] = {blas, blk, exact}, best[3];
        time_f64(kinds, 3, A, B, out, N, threads, RUNS, best);
        double t_blas = best[0], t_blk = best[1], t_exact = best[2];
        printf("  %-22s %2u thread%s %7.2f GFLOP/s\n", "OpenBLAS dgemm", threads,
               threads > 1 ? "s" : " ", gflops(N, N, N, t_blas));
        printf("  %-22s %2u thread%s %7.2f GFLOP/s  %.2f x OpenBLAS\n", "blocked", threads,
               threads > 1 ? "s" : " ", gflops(N, N, N, t_blk), t_blas / t_blk);
        printf("  %-22s %2u thread%s %7.2f GFLOP/s  %.2f x OpenBLAS\n", "blocked-exact", threads,
               threads > 1 ? "s" : " ", gflops(N, N, N, t_exact), t_blas / t_exact);
        double bound = 1e-12 * (double)N;
        expect(rel_error(blk, naive, N * N) <= bound, "blocked ~ naive (1e-12 K)");
        expect(rel_error(blk, blas, N * N) <= bound, "blocked ~ OpenBLAS (1e-12 K)");
        expect(memcmp(exact, naive, N * N * sizeof(double)) == 0,
               "blocked-exact bit-identical to naive");
        if (threads == 1)
            printf("  rel. error blocked vs naive %.2e, vs OpenBLAS %.2e, OpenBLAS vs naive %.2e\n",
                   rel_error(blk, naive, N * N), rel_error(blk, blas, N * N),
                   rel_error(blas, naive, N * N));
    }
    free(A);
    free(B);
    free(naive);
    free(blas);
    free(blk);
    free(exact);
}

static void bench_naive(void)
{
    printf("2. naive doubles\n");
    for (size_t N = 256; N <= 512; N *= 2) {
        double *A = random_f64(N * N), *B = random_f64(N * N), *C = malloc(N * N * sizeof(*C));
        static const int kinds[2] = {-1, FX_MATMUL_NAIVE};
        double *out[2] = {C, C}, best[2];
        time_f64(kinds, 2, A, B, out, N, 1, 3, best);
        double t_blas = best[0], t = best[1];
        printf("  naive %4zu              1 thread  %7.2f GFLOP/s  %.3f x OpenBLAS\n", N,
               gflops(N, N, N, t), t_blas / t);
        free(A);
        free(B);
        free(C);
    }
}

static double time_i64(FxMatmulKind kind, const int64_t *A, const int64_t *B, int64_t *C, size_t N,
                       unsigned threads, int runs)
{
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        if (fx_matmul_i64(kind, A, B, C, N, N, N, threads, NULL, NULL) != FX_MATMUL_OK)
            abort();
        double t = now() - t0;
        best = t < best ? t : best;
    }
    return best;
}

static void bench_i64(void)
{
    const size_t N = 512;
    static const struct {
        const char *path;
        int64_t limit;
    } ranges[] = {
            {"|x| <= 1000 (exact in doubles)", 1000},
            {"|x| <= 2^26 (int64 tiles, 32-bit factors)", INT64_C(1) << 26},
            {"|x| <= 2^28 (checked __int128 rows)", INT64_C(1) << 28},
    };
    printf("3. %zu x %zu int64 (G multiply-adds/s)\n", N, N);
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        int64_t *A = random_i64(N * N, ranges[r].limit), *B = random_i64(N * N, ranges[r].limit);
        int64_t *naive = malloc(N * N * sizeof(int64_t)), *blk = malloc(N * N * sizeof(int64_t));
        double t_naive = time_i64(FX_MATMUL_NAIVE, A, B, naive, N, 1, 1);
        printf("  %s\n    naive     1 thread  %7.2f\n", ranges[r].path,
               gflops(N, N, N, t_naive) / 2);
        for (unsigned threads = 1; threads <= 2; threads++) {
            double t = time_i64(FX_MATMUL_BLOCKED, A, B, blk, N, threads, RUNS);
            printf("    blocked   %u thread%s %7.2f  %.1f x naive\n", threads,
                   threads > 1 ? "s" : " ", gflops(N, N, N, t) / 2, t_naive / t);
            expect(memcmp(naive, blk, N * N * sizeof(int64_t)) == 0, "blocked == naive");
        }
        free(A);
        free(B);
        free(naive);
        free(blk);
    }
}

int main(void)
{
    const char *isa = getenv("FX_MATMUL_ISA");
    FxMatmulIsa cap = FX_MATMUL_ISA_AVX512;
    if (isa && strcmp(isa, "portable") == 0)
        cap = FX_MATMUL_ISA_PORTABLE;
    else if (isa && strcmp(isa, "avx2") == 0)
        cap = FX_MATMUL_ISA_AVX2;
    printf("kernels: %s; %s\n", fx_matmul_isa_name(fx_matmul_limit_isa(cap)),
           openblas_get_config());
    bench_f64_1024();
    bench_naive();
    bench_i64();
    printf(failures ? "%d checks FAILED\n" : "all checks ok\n", failures);
    return failures ? 1 : 0;
}
