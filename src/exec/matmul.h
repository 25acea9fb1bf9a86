/*
 * matmul.h: dense matrix-multiply kernels, the replacements the optimizer
 * picks, call by call, for the element-wise definition
 *
 *     C[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
 *
 * All matrices are dense and row-major: A is m x k, B is k x n, C is
 * m x n, with no padding between rows. C must not overlap A or B. m, k or
 * n may be 0: an empty C is left alone, and k = 0 fills C with zeros.
 *
 * The kinds (FxMatmulKind), for doubles:
 *
 *   FX_MATMUL_NAIVE          the definition's i-j-k loops: each C[i,j] is
 *                            ((0 + a_0 b_0) + a_1 b_1) + ..., every product
 *                            and every sum rounded, k in order. This is the
 *                            rounding of the naive graph.
 *   FX_MATMUL_BLOCKED_EXACT  cache-blocked and register-tiled like BLOCKED,
 *                            but bit-identical to NAIVE: each element still
 *                            sums k = 0 .. K-1 in order from 0, each product
 *                            rounded before its addition (no FMA). About half
 *                            BLOCKED's speed, and needs no tolerance.
 *   FX_MATMUL_BLOCKED        cache-blocked (panels of A and B packed into
 *                            contiguous buffers), register-tiled with FMA
 *                            (AVX-512 or AVX2 where the CPU has them; the
 *                            portable kernel does not fuse).
 *                            ROUNDS DIFFERENTLY from NAIVE: treat its k-sum
 *                            as reassociated. Using it is the caller's
 *                            decision, allowed only where the program
 *                            declares a tolerance. Each element then obeys
 *                            the usual bound |C - exact| <= K u sum_k
 *                            |A[i,k] B[k,j]| / (1 - K u), u = 2^-53, as NAIVE
 *                            does; the two may differ by twice that.
 *
 * For int64 every kind is exact: integer addition is associative, so
 * blocking and threads change nothing (BLOCKED_EXACT is BLOCKED). The
 * result is FX_MATMUL_OK exactly when every element of the exact product
 * fits int64; otherwise FX_MATMUL_OVERFLOW, C holds no meaningful value,
 * and the caller takes its big-integer path. A wrong value is never
 * reported as OK. BLOCKED picks its way from b = max|A| max|B| K: b <= 2^53
 * runs the double kernel on converted copies (exact; it allocates
 * (mk + kn + mn) doubles), b < 2^63 wrapping int64 tiles (vectorised), and
 * beyond that exact __int128 sums row by row (a few times NAIVE's speed).
 *
 * Threads: `threads` (0 counts as 1) is how many tasks the call is split
 * into on the CPU device (hw/device.h: the thread pool), the calling
 * thread running some; each owns a rectangle of C, so the result does not
 * depend on it. Fewer run when C has fewer tiles than that. The caller
 * chooses, with fx_device_threads and FX_MATMUL_PARALLEL_FROM. The kernels
 * keep no state between calls and may run in several threads at once.
 *
 * Cancellation: keep_going (NULL: never stop) is called ON THE CALLING
 * THREAD ONLY, so it need not be thread-safe: between blocks, once about
 * 10^6 multiply-adds have passed since the last call (a block is a few
 * milliseconds of work at most; NAIVE polls between elements), and about
 * every millisecond while the calling thread waits for the others. Calls
 * under 10^6 multiply-adds may never poll. Once it returns false every
 * thread stops at its next block, and the call returns false /
 * FX_MATMUL_STOPPED with C partly written.
 *
 * Instruction sets are chosen at run time (CPUID via __builtin_cpu_supports):
 * AVX-512F, else AVX2 with FMA, else portable C; fx_matmul_limit_isa caps
 * the choice, for tests and benchmarks.
 */
#ifndef FX_MATMUL_H
#define FX_MATMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/linrec.h" /* FxKeepGoing */

/* From this many multiply-adds (m n k) on, a product is split over the
 * device's threads; below, one thread was measured fastest. */
#define FX_MATMUL_PARALLEL_FROM 1e6

/* ORDER FX_MATMUL: keep in sync with kind_names[] in matmul.c */
typedef enum {
    FX_MATMUL_NAIVE,
    FX_MATMUL_BLOCKED_EXACT,
    FX_MATMUL_BLOCKED,
    FX_MATMUL__COUNT
} FxMatmulKind;

typedef enum {
    FX_MATMUL_OK,
    FX_MATMUL_OVERFLOW, /* an element of the exact product is outside int64 */
    FX_MATMUL_STOPPED,  /* keep_going said stop */
} FxMatmulStatus;

/* ORDER FX_MATMUL_ISA: from the most portable up */
typedef enum {
    FX_MATMUL_ISA_PORTABLE,
    FX_MATMUL_ISA_AVX2,   /* AVX2 and FMA */
    FX_MATMUL_ISA_AVX512, /* AVX-512F (the int64 kernels also want AVX-512DQ) */
} FxMatmulIsa;

/* C = A * B in doubles by the kernel `kind`. Returns true when C is
 * complete, false when keep_going stopped it (C partly written). */
bool fx_matmul_f64(FxMatmulKind kind, const double *A, const double *B, double *C, size_t m,
                   size_t k, size_t n, unsigned threads, FxKeepGoing keep_going, void *ctx);

/* C = A * B exactly in int64 by the kernel `kind`: FX_MATMUL_OK with C
 * complete; FX_MATMUL_OVERFLOW when some element of the exact product does
 * not fit int64 (C meaningless); FX_MATMUL_STOPPED when keep_going said
 * stop (C partly written). When both happen, either may be returned. */
FxMatmulStatus fx_matmul_i64(FxMatmulKind kind, const int64_t *A, const int64_t *B, int64_t *C,
                             size_t m, size_t k, size_t n, unsigned threads,
                             FxKeepGoing keep_going, void *ctx);

/* "naive", "blocked-exact", "blocked"; "?" for anything else. */
const char *fx_matmul_name(FxMatmulKind kind);

/* Caps the instruction set the kernels use at `isa` (FX_MATMUL_ISA_AVX512,
 * the default, lifts the cap) and returns the level now in effect: the
 * lower of the cap and what this CPU runs. For tests and benchmarks; set it
 * while no multiply is running. */
FxMatmulIsa fx_matmul_limit_isa(FxMatmulIsa isa);

/* "portable", "avx2", "avx512". */
const char *fx_matmul_isa_name(FxMatmulIsa isa);

#endif
