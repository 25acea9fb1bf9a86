/*
 * matmul_test.c: the matrix-multiply kernels against reference loops
 * written here, under every instruction set this CPU runs (portable, AVX2,
 * AVX-512, through fx_matmul_limit_isa):
 *
 *   - doubles: NAIVE and BLOCKED_EXACT bit-identical to the i-j-k loop,
 *     BLOCKED within the rounding bound; sizes 0 .. 40 sampled in each
 *     dimension, plus sizes that cross every block (k > 256, m > 240,
 *     n > 4096) and split by columns; threads 1, 2, 3;
 *   - int64: both kinds equal to an exact __int128 reference on each path
 *     of BLOCKED (exact in doubles, narrow, wide, checked), and overflow
 *     reported exactly when an element leaves int64, including partial
 *     sums that overflow int64 or even __int128 and come back;
 *   - cancellation: keep_going stops every kernel, is called on the
 *     calling thread only, and a kernel that is let run is complete.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "exec/matmul.h"
#include "fx_test.h"

__extension__ typedef __int128 I128;

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t random_below(size_t n)
{
    return (size_t)(next_random() % n);
}

/* Doubles of mixed sign and magnitude (2^-8 .. 2^8), so that the order of
 * the sum shows in its rounding. */
static double *random_f64(size_t count)
{
    double *a = malloc((count ? count : 1) * sizeof(*a));
    for (size_t i = 0; i < count; i++) {
        double unit = (double)(next_random() >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        a[i] = ldexp(unit, (int)random_below(17) - 8);
    }
    return a;
}

/* int64 uniform in [-limit, limit]. */
static int64_t *random_i64(size_t count, uint64_t limit)
{
    int64_t *a = malloc((count ? count : 1) * sizeof(*a));
    for (size_t i = 0; i < count; i++) {
        uint64_t r = limit == UINT64_MAX ? next_random() : next_random() % (2 * limit + 1);
        a[i] = limit == UINT64_MAX ? (int64_t)r : (int64_t)(r - limit);
    }
    return a;
}

/* The definition, in its order: C[i,j] = ((0 + a_0 b_0) + a_1 b_1) + ...
 * Each product is rounded on its own (volatile: never fused into an FMA,
 * whatever -ffp-contract says). */
static void reference_f64(const double *A, const double *B, double *C, size_t m, size_t k,
                          size_t n)
{
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double s = 0.0;
            for (size_t p = 0; p < k; p++) {
                volatile double t = A[i * k + p] * B[p * n + j];
                s += t;
            }
            C[i * n + j] = s;
        }
    }
}

/* How many elements of C break |C - R| <= 2 (k + 2) 2^-53 sum |a||b|, the
 * bound both in-order sums obey (with room for the rounding of the bound). */
static size_t outside_bound(const double *A, const double *B, const double *C, const double *R,
                            size_t m, size_t k, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            double size = 0;
            for (size_t p = 0; p < k; p++)
                size += fabs(A[i * k + p] * B[p * n + j]);
            double bound = 2.0 * (double)(k + 2) * ldexp(size, -53) * 1.01;
            bad += !(fabs(C[i * n + j] - R[i * n + j]) <= bound);
        }
    }
    return bad;
}

/* Runs one kind on fresh random matrices and checks it against the
 * definition. */
static void check_f64(FxMatmulKind kind, size_t m, size_t k, size_t n, unsigned threads)
{
    double *A = random_f64(m * k), *B = random_f64(k * n);
    double *C = random_f64(m * n), *R = random_f64(m * n); // garbage to overwrite
    reference_f64(A, B, R, m, k, n);
    bool done = fx_matmul_f64(kind, A, B, C, m, k, n, threads, NULL, NULL);
    EXPECT(done);
    if (kind == FX_MATMUL_BLOCKED) {
        size_t bad = outside_bound(A, B, C, R, m, k, n);
        if (bad)
            fprintf(stderr, "  blocked %zu x %zu x %zu, %u threads: %zu outside\n", m, k, n,
                    threads, bad);
        EXPECT_EQ(bad, 0);
    } else {
        bool same = m * n == 0 || memcmp(C, R, m * n * sizeof(*C)) == 0;
        if (!same)
            fprintf(stderr, "  %s %zu x %zu x %zu, %u threads: not bit-identical\n",
                    fx_matmul_name(kind), m, k, n, threads);
        EXPECT(same);
    }
    free(A);
    free(B);
    free(C);
    free(R);
}

/* The instruction sets this CPU runs, capped one after the other; fn runs
 * under each. */
static void for_each_isa(void (*fn)(FxMatmulIsa isa))
{
    static const FxMatmulIsa all[] = {FX_MATMUL_ISA_PORTABLE, FX_MATMUL_ISA_AVX2,
                                      FX_MATMUL_ISA_AVX512};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        if (fx_matmul_limit_isa(all[i]) == all[i])
            fn(all[i]);
    }
    fx_matmul_limit_isa(FX_MATMUL_ISA_AVX512);
}

/* Sizes that cross every block and tile edge, and split by columns. */
static const size_t big_sizes[][3] = {
        {1, 1, 1},    {67, 129, 33}, {8, 256, 24}, {17, 300, 49}, {9, 513, 25},
        {250, 7, 30}, {3, 5, 4100},  {5, 40, 100}, {2, 3, 300},   {13, 1, 1},
};

static void f64_sizes(FxMatmulIsa isa)
{
    (void)isa;
    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        for (int t = 0; t < 120; t++)
            check_f64((FxMatmulKind)kind, random_below(41), random_below(41), random_below(41),
                      1 + (unsigned)t % 3);
        for (size_t s = 0; s < sizeof(big_sizes) / sizeof(big_sizes[0]); s++) {
            for (unsigned threads = 1; threads <= 3; threads++)
                check_f64((FxMatmulKind)kind, big_sizes[s][0], big_sizes[s][1], big_sizes[s][2],
                          threads);
        }
    }
}

FX_TEST(f64_against_the_definition)
{
    for_each_isa(f64_sizes);
}

FX_TEST(f64_every_small_shape)
{
    // each m, k, n in 1 .. 24 once (m and n cycle through the tile edges)
    for (size_t m = 1; m <= 24; m++)
        check_f64(FX_MATMUL_BLOCKED_EXACT, m, 25 - m, (m * 7) % 24 + 1, 1 + (unsigned)m % 3);
}

/* BLOCKED gives the same bits on any number of threads; and k = 0 and
 * empty shapes. */
static void threads_and_edges(FxMatmulIsa isa)
{
    (void)isa;
    size_t m = 45, k = 300, n = 70;
    double *A = random_f64(m * k), *B = random_f64(k * n);
    double *C1 = random_f64(m * n), *C3 = random_f64(m * n);
    EXPECT(fx_matmul_f64(FX_MATMUL_BLOCKED, A, B, C1, m, k, n, 1, NULL, NULL));
    EXPECT(fx_matmul_f64(FX_MATMUL_BLOCKED, A, B, C3, m, k, n, 3, NULL, NULL));
    EXPECT(memcmp(C1, C3, m * n * sizeof(double)) == 0);

    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        double C[6] = {7, 7, 7, 7, 7, 7};
        EXPECT(fx_matmul_f64((FxMatmulKind)kind, A, B, C, 2, 0, 3, 2, NULL, NULL));
        size_t zeros = 0;
        for (int i = 0; i < 6; i++)
            zeros += C[i] == 0.0 && !signbit(C[i]);
        EXPECT_EQ(zeros, 6);
        C[0] = 7;
        EXPECT(fx_matmul_f64((FxMatmulKind)kind, A, B, C, 0, 5, 3, 2, NULL, NULL));
        EXPECT(fx_matmul_f64((FxMatmulKind)kind, A, B, C, 4, 5, 0, 2, NULL, NULL));
        EXPECT(C[0] == 7);
        // -0 products sum to +0, as 0.0 + -0.0 does
        double nz[8] = {-0.0, -0.0, -0.0, -0.0, 1, 1, 1, 1}, out[4] = {1, 1, 1, 1};
        EXPECT(fx_matmul_f64((FxMatmulKind)kind, nz, nz + 4, out, 2, 2, 2, 1, NULL, NULL));
        EXPECT(out[0] == 0.0 && !signbit(out[0]) && !signbit(out[3]));
    }
    free(A);
    free(B);
    free(C1);
    free(C3);
}

FX_TEST(f64_threads_and_edges)
{
    for_each_isa(threads_and_edges);
}

FX_TEST(blocked_rounds_differently)
{
    // the FMA kernel is not the naive one in disguise (where the CPU has FMA)
    if (fx_matmul_limit_isa(FX_MATMUL_ISA_AVX512) == FX_MATMUL_ISA_PORTABLE)
        return;
    size_t m = 32, k = 200, n = 32;
    double *A = random_f64(m * k), *B = random_f64(k * n);
    double *C = random_f64(m * n), *R = random_f64(m * n);
    EXPECT(fx_matmul_f64(FX_MATMUL_BLOCKED, A, B, C, m, k, n, 1, NULL, NULL));
    reference_f64(A, B, R, m, k, n);
    EXPECT(memcmp(C, R, m * n * sizeof(double)) != 0);
    free(A);
    free(B);
    free(C);
    free(R);
}

/* ---- int64 ---- */

/* The exact product in __int128 (the callers keep it from overflowing);
 * returns whether every element fits int64, and fills R where it does. */
static bool reference_i64(const int64_t *A, const int64_t *B, int64_t *R, size_t m, size_t k,
                          size_t n)
{
    bool fits = true;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            I128 s = 0;
            for (size_t p = 0; p < k; p++)
                s += (I128)A[i * k + p] * B[p * n + j];
            if (s < INT64_MIN || s > INT64_MAX)
                fits = false;
            else
                R[i * n + j] = (int64_t)s;
        }
    }
    return fits;
}

static void check_i64(size_t m, size_t k, size_t n, uint64_t limit_a, uint64_t limit_b,
                      unsigned threads)
{
    int64_t *A = random_i64(m * k, limit_a), *B = random_i64(k * n, limit_b);
    int64_t *R = random_i64(m * n, 1000), *C = random_i64(m * n, 1000);
    bool fits = reference_i64(A, B, R, m, k, n);
    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        FxMatmulStatus st = fx_matmul_i64((FxMatmulKind)kind, A, B, C, m, k, n, threads, NULL,
                                          NULL);
        EXPECT_EQ(st, fits ? FX_MATMUL_OK : FX_MATMUL_OVERFLOW);
        bool same = !fits || m * n == 0 || memcmp(C, R, m * n * sizeof(*C)) == 0;
        if (!same)
            fprintf(stderr, "  int64 %s %zu x %zu x %zu, limits %llu %llu: wrong\n",
                    fx_matmul_name((FxMatmulKind)kind), m, k, n, (unsigned long long)limit_a,
                    (unsigned long long)limit_b);
        EXPECT(same);
    }
    free(A);
    free(B);
    free(C);
    free(R);
}

static void i64_sizes(FxMatmulIsa isa)
{
    (void)isa;
    // one range of values per path of BLOCKED for k = 9 .. 40 (the big sizes
    // may take another path; the reference is exact all the same)
    static const uint64_t limits[][2] = {
            {1000, 1000},                           // max|A| max|B| k <= 2^53: in doubles
            {1u << 26, 1u << 26},                   // <= 2^63, both int32: narrow
            {UINT64_C(1) << 40, 1u << 15},          // <= 2^63, A beyond int32: wide
            {UINT32_MAX, 1u << 20},                 // wide, A just beyond int32
            {1u << 30, 1u << 30},                   // beyond 2^63: checked, fits mostly
            {UINT64_C(1) << 33, UINT64_C(1) << 33}, // checked, overflows mostly
    };
    for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
        for (int t = 0; t < 40; t++) {
            // k >= 9 keeps each range on its path (k = 0 .. 8 with the first)
            size_t k = l == 0 ? random_below(41) : 9 + random_below(32);
            check_i64(random_below(41), k, random_below(41), limits[l][0], limits[l][1],
                      1 + (unsigned)t % 3);
        }
        for (size_t s = 0; s < sizeof(big_sizes) / sizeof(big_sizes[0]); s++)
            check_i64(big_sizes[s][0], big_sizes[s][1], big_sizes[s][2], limits[l][0],
                      limits[l][1], 1 + (unsigned)s % 3);
    }
}

FX_TEST(i64_against_the_definition)
{
    for_each_isa(i64_sizes);
}

/* 1 x k times k x 1. */
static FxMatmulStatus dot(FxMatmulKind kind, const int64_t *a, const int64_t *b, size_t k,
                          int64_t *out)
{
    return fx_matmul_i64(kind, a, b, out, 1, k, 1, 1, NULL, NULL);
}

FX_TEST(i64_overflow_is_exact)
{
    const int64_t MIN = INT64_MIN, MAX = INT64_MAX, P62 = INT64_C(1) << 62;
    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        FxMatmulKind kd = (FxMatmulKind)kind;
        int64_t out = 0;
        const int64_t ones[6] = {1, 1, 1, 1, 1, 1};
        // 2^62 + 2^62 = 2^63: one past INT64_MAX
        const int64_t over[2] = {P62, P62};
        EXPECT_EQ(dot(kd, over, ones, 2, &out), FX_MATMUL_OVERFLOW);
        // 2^62 + 2^62 - 1 = INT64_MAX, and -2^63 = INT64_MIN: both fit
        const int64_t top[2] = {P62, P62 - 1}, bottom[2] = {-P62, -P62};
        EXPECT_EQ(dot(kd, top, ones, 2, &out), FX_MATMUL_OK);
        EXPECT(out == MAX);
        EXPECT_EQ(dot(kd, bottom, ones, 2, &out), FX_MATMUL_OK);
        EXPECT(out == MIN);
        // partial sums past int64 that come back
        const int64_t back[3] = {MAX, MAX, -MAX};
        EXPECT_EQ(dot(kd, back, ones, 3, &out), FX_MATMUL_OK);
        EXPECT(out == MAX);
        // partial sums past __int128: 2^127, then 2^64, then 0
        const int64_t a[6] = {MIN, MIN, MIN, MIN, 1, 1}, b[6] = {MIN, MIN, MAX, MAX, MIN, MIN};
        out = 5;
        EXPECT_EQ(dot(kd, a, b, 6, &out), FX_MATMUL_OK);
        EXPECT_EQ(out, 0);
        // ... and the same stopped at 2^64
        EXPECT_EQ(dot(kd, a, b, 4, &out), FX_MATMUL_OVERFLOW);
        // MIN * MIN alone is 2^126
        EXPECT_EQ(dot(kd, a, b, 1, &out), FX_MATMUL_OVERFLOW);
        // four of them, 2^128, are 0 modulo 2^128: the wraps must count
        const int64_t mins[4] = {MIN, MIN, MIN, MIN};
        EXPECT_EQ(dot(kd, mins, mins, 4, &out), FX_MATMUL_OVERFLOW);
        // 4 MIN MIN + 4 MIN MAX + 4 MIN + 7 = 2^128 + (-2^128 + 2^65) - 2^65 + 7
        const int64_t c[13] = {MIN, MIN, MIN, MIN, MIN, MIN, MIN, MIN, MIN, MIN, MIN, MIN, 7};
        const int64_t d[13] = {MIN, MIN, MIN, MIN, MAX, MAX, MAX, MAX, 1, 1, 1, 1, 1};
        EXPECT_EQ(dot(kd, c, d, 13, &out), FX_MATMUL_OK);
        EXPECT_EQ(out, 7);
        EXPECT_EQ(dot(kd, c, d, 12, &out), FX_MATMUL_OK);
        EXPECT_EQ(out, 0);
        EXPECT_EQ(dot(kd, c, d, 8, &out), FX_MATMUL_OVERFLOW); // 2^65
    }
}

/* The edges between the paths of BLOCKED: just past what doubles hold
 * exactly, and factors just past int32. */
FX_TEST(i64_path_edges)
{
    const int64_t big = (INT64_C(1) << 26) + 1; // 3 big^2 = 3 2^52 + 3 2^27 + 3: odd, > 2^53
    const int64_t a[3] = {big, big, big};
    const int64_t wide = (INT64_C(1) << 31) + 3; // int32 takes it for -2^31 + 3
    const int64_t w[3] = {wide, -wide, wide}, ones[3] = {1 << 22, 1 << 22, 1 << 22};
    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        int64_t out = 0;
        EXPECT_EQ(dot((FxMatmulKind)kind, a, a, 3, &out), FX_MATMUL_OK);
        EXPECT(out == 3 * big * big);
        EXPECT_EQ(dot((FxMatmulKind)kind, w, ones, 3, &out), FX_MATMUL_OK);
        EXPECT(out == wide << 22);
    }
}

/* One element out of range in a larger product, anywhere, any threads. */
FX_TEST(i64_overflow_anywhere)
{
    size_t m = 37, k = 20, n = 29;
    for (int trial = 0; trial < 12; trial++) {
        int64_t *A = random_i64(m * k, 1000), *B = random_i64(k * n, 1000);
        int64_t *C = random_i64(m * n, 1000);
        size_t i = random_below(m), j = random_below(n);
        for (size_t p = 0; p < k; p++) {
            A[i * k + p] = INT64_C(1) << 58;
            B[p * n + j] = 1;
        }
        for (int kind = 0; kind < FX_MATMUL__COUNT; kind++)
            EXPECT_EQ(fx_matmul_i64((FxMatmulKind)kind, A, B, C, m, k, n, 1 + trial % 3, NULL,
                                    NULL),
                      FX_MATMUL_OVERFLOW);
        free(A);
        free(B);
        free(C);
    }
}

FX_TEST(i64_edges)
{
    const int64_t A[4] = {1, 2, 3, 4};
    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        int64_t C[4] = {7, 7, 7, 7};
        EXPECT_EQ(fx_matmul_i64((FxMatmulKind)kind, A, A, C, 2, 0, 2, 3, NULL, NULL),
                  FX_MATMUL_OK);
        EXPECT(C[0] == 0 && C[1] == 0 && C[2] == 0 && C[3] == 0);
        C[0] = 7;
        EXPECT_EQ(fx_matmul_i64((FxMatmulKind)kind, A, A, C, 0, 2, 2, 3, NULL, NULL),
                  FX_MATMUL_OK);
        EXPECT_EQ(C[0], 7);
        EXPECT_EQ(fx_matmul_i64((FxMatmulKind)kind, A, A, C, 2, 2, 2, 3, NULL, NULL),
                  FX_MATMUL_OK);
        EXPECT(C[0] == 7 && C[1] == 10 && C[2] == 15 && C[3] == 22);
    }
}

/* ---- cancellation ---- */

typedef struct Poll {
    int calls;
    int stop_at;         /* the call that says stop; 0: never */
    pthread_t caller;
    int foreign;         /* calls from another thread */
} Poll;

static bool poll_keep_going(void *ctx)
{
    Poll *p = ctx;
    if (!pthread_equal(pthread_self(), p->caller))
        p->foreign++;
    return ++p->calls != p->stop_at;
}

FX_TEST(keep_going_stops_every_kernel)
{
    // k x n large enough that even the naive loops poll on their first row
    size_t m = 300, k = 1024, n = 1024;
    double *A = random_f64(m * k), *B = random_f64(k * n), *C = random_f64(m * n);
    int64_t *IA = random_i64(m * k, 1000), *IB = random_i64(k * n, 1000);
    int64_t *IC = random_i64(m * n, 1);
    for (int kind = 0; kind < FX_MATMUL__COUNT; kind++) {
        for (unsigned threads = 1; threads <= 2; threads++) {
            for (int stop_at = 1; stop_at <= 2; stop_at++) {
                Poll p = {.stop_at = stop_at, .caller = pthread_self()};
                EXPECT(!fx_matmul_f64((FxMatmulKind)kind, A, B, C, m, k, n, threads,
                                      poll_keep_going, &p));
                EXPECT_EQ(p.calls, stop_at);
                EXPECT_EQ(p.foreign, 0);
                p.calls = 0;
                EXPECT_EQ(fx_matmul_i64((FxMatmulKind)kind, IA, IB, IC, m, k, n, threads,
                                        poll_keep_going, &p),
                          FX_MATMUL_STOPPED);
                EXPECT_EQ(p.calls, stop_at);
                EXPECT_EQ(p.foreign, 0);
            }
        }
    }
    free(A);
    free(B);
    free(C);
    free(IA);
    free(IB);
    free(IC);
}

FX_TEST(keep_going_stops_the_int64_paths)
{
    // narrow, wide and checked paths of BLOCKED (doubles are above); the
    // checked one with values that overflow nowhere, lest OVERFLOW come first
    static const uint64_t limits[][2] = {
            {1u << 26, 1u << 26}, {UINT64_C(1) << 40, 1u << 10}, {1u << 28, 1u << 28}};
    size_t m = 40, k = 1100, n = 1000;
    for (size_t l = 0; l < 3; l++) {
        int64_t *A = random_i64(m * k, limits[l][0]), *B = random_i64(k * n, limits[l][1]);
        int64_t *C = random_i64(m * n, 1);
        Poll p = {.stop_at = 1, .caller = pthread_self()};
        EXPECT_EQ(fx_matmul_i64(FX_MATMUL_BLOCKED, A, B, C, m, k, n, 2, poll_keep_going, &p),
                  FX_MATMUL_STOPPED);
        EXPECT_EQ(p.calls, 1);
        free(A);
        free(B);
        free(C);
    }
}

FX_TEST(keep_going_that_says_go_changes_nothing)
{
    size_t m = 200, k = 600, n = 90;
    double *A = random_f64(m * k), *B = random_f64(k * n);
    double *C = random_f64(m * n), *R = random_f64(m * n);
    reference_f64(A, B, R, m, k, n);
    Poll p = {.caller = pthread_self()};
    EXPECT(fx_matmul_f64(FX_MATMUL_BLOCKED_EXACT, A, B, C, m, k, n, 2, poll_keep_going, &p));
    EXPECT(p.calls >= 2); // before each block of the calling thread at least
    EXPECT_EQ(p.foreign, 0);
    EXPECT(memcmp(C, R, m * n * sizeof(double)) == 0);
    free(A);
    free(B);
    free(C);
    free(R);
}

FX_TEST(names)
{
    EXPECT_STR_EQ(fx_matmul_name(FX_MATMUL_NAIVE), "naive");
    EXPECT_STR_EQ(fx_matmul_name(FX_MATMUL_BLOCKED_EXACT), "blocked-exact");
    EXPECT_STR_EQ(fx_matmul_name(FX_MATMUL_BLOCKED), "blocked");
    EXPECT_STR_EQ(fx_matmul_name(FX_MATMUL__COUNT), "?");
    EXPECT_STR_EQ(fx_matmul_isa_name(FX_MATMUL_ISA_AVX2), "avx2");
    EXPECT_EQ(fx_matmul_limit_isa(FX_MATMUL_ISA_PORTABLE), FX_MATMUL_ISA_PORTABLE);
    EXPECT(fx_matmul_limit_isa(FX_MATMUL_ISA_AVX512) >= FX_MATMUL_ISA_PORTABLE);
}

int main(void)
{
    return fx_test_run();
}
