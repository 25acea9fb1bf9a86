/*
 * matmul.c: dense matrix-multiply kernels, in doubles and exact int64.
 *
 * DESIGN
 *
 * Blocked kernels follow the BLIS/GotoBLAS scheme. For its rectangle of C,
 * a thread loops
 *
 *   for jc over columns, NC at a time         B's kc x nc block: L3
 *     for pc over k, KC at a time (in order)
 *       pack B[pc.., jc..] into panels of NR columns, kc x NR each
 *       for ic over rows, MC at a time        A's mc x kc block: L2
 *         pack A[ic.., pc..] into panels of MR rows, kc x MR each
 *         for each NR-panel of B              one B panel: L1
 *           for each MR-panel of A
 *             micro-kernel: the MR x NR tile of C, in registers, over kc
 *
 * Packing makes every micro-kernel read sequential and aligned, pads
 * partial panels with zeros (so the micro-kernel never branches on size)
 * and lets one B panel serve every row panel from L1. Tiles that stick out
 * of C go through a small buffer (edge tile). The block sizes adapt to the
 * sizes at hand (balanced) so that no block is a sliver.
 *
 * Rounding. The micro-kernel starts from 0 in the first k-block and from
 * the partial sums stored in C in the later ones, and adds k in order, so
 * each element sums k = 0 .. K-1 in order from 0 exactly as the naive loop
 * does. Only the fusion of each multiply-add (FMA) makes BLOCKED round
 * differently; BLOCKED_EXACT multiplies and adds apart and is therefore
 * bit-identical to NAIVE. An empty asm on the product (KEEP_ROUNDED) stops
 * the compiler from contracting the two into an FMA behind our back (GCC
 * does so under -ffp-contract=fast, its default outside ISO C modes, and
 * clang within an expression by default).
 *
 * Instruction sets. Each micro-kernel exists for AVX-512F (8 x 24: 24 zmm
 * accumulators, 3 loads and 8 broadcasts per 24 FMAs), AVX2 with FMA
 * (6 x 8: 12 of the 16 ymm) and portable C on GCC's generic vectors
 * (4 x 4), the x86 ones compiled with __attribute__((target)) and picked
 * at run time by CPUID (__builtin_cpu_supports, which also checks that the
 * OS saves the registers). Their k loop is unrolled by 4, which the
 * AVX-512 kernel needs to issue its FMAs every cycle (about 85% of peak
 * from L1, against 65% rolled). The driver is shared: it moves 8-byte
 * elements with memcpy, so doubles and int64 use it alike.
 *
 * Exact integers (BLOCKED). With b = max|A| max|B| K, a bound on every
 * partial sum in any order:
 *   b <= 2^53       every product and partial sum is an integer a double
 *                   holds exactly: convert, multiply by the double kernel;
 *   b <= 2^63 - 1   no partial sum leaves int64: a tiled kernel of wrapping
 *                   uint64 arithmetic is exact. When both factors fit int32
 *                   one vpmuldq (32 x 32 -> 64) a lane does ("narrow"),
 *                   else vpmullq with AVX-512DQ or scalar code ("wide");
 *   otherwise       each element is summed in __int128 with a count of its
 *                   wraps past 2^127 (Sum128), so the verdict "fits int64"
 *                   is exact whatever happens on the way.
 * NAIVE always sums the last way, in the definition's order.
 *
 * Threads. The work is split into `parts` tasks launched on the CPU device
 * (hw/device.h: the thread pool). Each owns a contiguous range of row
 * panels of C (or of column panels, when C has too few rows) and runs the
 * whole scheme on it with buffers of its own; nothing is shared but the
 * read-only inputs and a halt word. The calling thread runs tasks too, and
 * it alone calls keep_going (go_on): before a block once POLL_WORK
 * multiply-adds have passed since the last call, and each millisecond while
 * it waits for the others. The first reason to stop (STOPPED, OVERFLOW) is
 * stored in the halt word, and every task leaves at its next block.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define FX_X86 1
#include <immintrin.h>
#else
#define FX_X86 0
#endif

#include "base/base.h"
#include "exec/matmul.h"
#include "hw/device.h"

__extension__ typedef __int128 I128;
__extension__ typedef unsigned __int128 U128;

#define ELEM            8          /* bytes of an element: double or int64 */
#define POLL_WORK       (1u << 20) /* multiply-adds between calls of keep_going */
#define CHECKED_COLS    128        /* columns summed at once by the checked int64 rows */
#define EXACT_IN_DOUBLE (UINT64_C(1) << 53)

/* The product t is rounded to double before it is added (see DESIGN). */
#if FX_X86
#define KEEP_ROUNDED(t)   __asm__("" : "+x"(t))
#define KEEP_ROUNDED_Z(t) __asm__("" : "+v"(t))
#elif defined(__aarch64__)
#define KEEP_ROUNDED(t) __asm__("" : "+w"(t))
#else
#define KEEP_ROUNDED(t) ((void)0) /* no FMA to contract into, or -ffp-contract=off */
#endif

/* ---- instruction sets -------------------------------------------------- */

static atomic_int isa_cap = FX_MATMUL_ISA_AVX512;

static FxMatmulIsa cpu_isa(void)
{
#if FX_X86
    if (__builtin_cpu_supports("avx512f"))
        return FX_MATMUL_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return FX_MATMUL_ISA_AVX2;
#endif
    return FX_MATMUL_ISA_PORTABLE;
}

static FxMatmulIsa isa_now(void)
{
    FxMatmulIsa cpu = cpu_isa();
    FxMatmulIsa cap = (FxMatmulIsa)atomic_load(&isa_cap);
    return cap < cpu ? cap : cpu;
}

FxMatmulIsa fx_matmul_limit_isa(FxMatmulIsa isa)
{
    atomic_store(&isa_cap, (int)isa);
    return isa_now();
}

const char *fx_matmul_isa_name(FxMatmulIsa isa)
{
    switch (isa) {
    case FX_MATMUL_ISA_PORTABLE:
        return "portable";
    case FX_MATMUL_ISA_AVX2:
        return "avx2";
    case FX_MATMUL_ISA_AVX512:
        return "avx512";
    }
    return "?";
}

/* ORDER FX_MATMUL */
static const char *const kind_names[] = {"naive", "blocked-exact", "blocked"};

const char *fx_matmul_name(FxMatmulKind kind)
{
    return (unsigned)kind < FX_MATMUL__COUNT ? kind_names[kind] : "?";
}

/* ---- a team of tasks on the CPU device ------------------------------- */

typedef struct Worker Worker;

typedef struct Team {
    FxKeepGoing keep_going; /* called on the calling thread only */
    void *ctx;
    pthread_t caller;       /* the thread that launched the team */
    atomic_int halt;        /* FX_MATMUL_OK, or the first reason to stop */
    const void *job;
    void (*run)(Worker *w);
    size_t units;   /* rows, or row or column panels */
    unsigned parts; /* the tasks they are split into */
} Team;

struct Worker {
    Team *team;
    const void *job;
    size_t begin, end; /* its units */
    bool on_caller;    /* runs on the calling thread: may call keep_going */
    size_t work;       /* multiply-adds since keep_going was last called */
};

static void halt(Team *t, FxMatmulStatus why)
{
    int expected = FX_MATMUL_OK;
    atomic_compare_exchange_strong(&t->halt, &expected, (int)why);
}

/* Called before each block of `work` multiply-adds: false when the team
 * is to stop. On the calling thread it calls keep_going once the blocks
 * since the last call add up to POLL_WORK (so tiny blocks do not poll
 * each time); elsewhere it only reads the halt word. */
static bool go_on(Worker *w, size_t work)
{
    Team *t = w->team;
    w->work += work;
    if (w->on_caller && t->keep_going && w->work >= POLL_WORK) {
        w->work = 0;
        if (atomic_load(&t->halt) == FX_MATMUL_OK && !t->keep_going(t->ctx))
            halt(t, FX_MATMUL_STOPPED);
    }
    return atomic_load_explicit(&t->halt, memory_order_relaxed) == FX_MATMUL_OK;
}

/* Part p of the team's units, on whichever thread the device runs it. */
static void team_task(void *arg, size_t p)
{
    Team *t = arg;
    Worker w = {.team = t, .job = t->job, .begin = t->units * p / t->parts,
                .end = t->units * (p + 1) / t->parts,
                .on_caller = pthread_equal(pthread_self(), t->caller)};
    t->run(&w);
}

/* While the calling thread waits for the others: keep_going each ms. */
static void team_wait(void *arg)
{
    Team *t = arg;
    if (atomic_load(&t->halt) == FX_MATMUL_OK && !t->keep_going(t->ctx))
        halt(t, FX_MATMUL_STOPPED);
}

/* Runs `run` over units 0 .. units-1 split evenly into `parts` (1 ..
 * units) contiguous ranges, a task each on the CPU device. Returns the
 * halt word. */
static FxMatmulStatus run_team(FxKeepGoing keep_going, void *ctx, const void *job,
                               void (*run)(Worker *w), size_t units, unsigned parts)
{
    Team t = {.keep_going = keep_going, .ctx = ctx, .caller = pthread_self(), .job = job,
              .run = run, .units = units, .parts = parts};
    atomic_init(&t.halt, FX_MATMUL_OK);
    fx_device_launch(fx_device_cpu(), parts, team_task, &t,
                     keep_going ? team_wait : NULL);
    return (FxMatmulStatus)atomic_load(&t.halt);
}

static unsigned clamp_parts(unsigned threads, size_t units)
{
    if (threads == 0)
        threads = 1;
    return units < threads ? (unsigned)units : threads;
}

/* ---- the blocked driver ------------------------------------------------- */

/* C's mr x nr tile (row stride ldc) = its old value (0 when first) plus
 * the kc columns of the packed A panel times the kc rows of the packed B
 * panel, k in order. */
typedef void (*MicroKernel)(size_t kc, const void *a, const void *b, void *c, size_t ldc,
                            bool first);

typedef struct Kernel {
    unsigned mr, nr;   /* the register tile */
    size_t kc, mc, nc; /* the cache blocks (targets; see balanced) */
    MicroKernel micro;
} Kernel;

/* A call's inputs; read only once the team starts. */
typedef struct Job {
    const void *A, *B;
    void *C;
    size_t m, k, n;
    const Kernel *kern; /* blocked kernels only */
    bool by_cols;       /* blocked: the units are column panels, not row panels */
} Job;

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t round_up(size_t x, size_t to)
{
    return (x + to - 1) / to * to;
}

/* A block size for `total`: a multiple of `unit` near `target` that
 * splits total into blocks of about equal size (no sliver at the end). */
static size_t balanced(size_t total, size_t target, size_t unit)
{
    size_t blocks = (total + target - 1) / target;
    return round_up((total + blocks - 1) / blocks, unit);
}

static void *aligned_buffer(size_t bytes)
{
    void *p = NULL;
    FX_CHECK(posix_memalign(&p, 64, bytes ? bytes : 64) == 0, "out of memory (%zu bytes)", bytes);
    return p;
}

/* A's mc x kc block (row stride lda) into panels of mr rows: panel q holds
 * A[q mr + r, p] at [p mr + r], zero past the last row. */
static void pack_a(const char *A, size_t lda, size_t mc, size_t kc, unsigned mr, char *dst)
{
    for (size_t ir = 0; ir < mc; ir += mr) {
        size_t rows = min_size(mr, mc - ir);
        char *panel = dst + ir * kc * ELEM;
        for (size_t r = 0; r < rows; r++) {
            const char *src = A + (ir + r) * lda * ELEM;
            for (size_t p = 0; p < kc; p++)
                memcpy(panel + (p * mr + r) * ELEM, src + p * ELEM, ELEM);
        }
        for (size_t p = 0; rows < mr && p < kc; p++)
            memset(panel + (p * mr + rows) * ELEM, 0, (mr - rows) * ELEM);
    }
}

/* B's kc x nc block (row stride ldb) into panels of nr columns: panel q
 * holds B[p, q nr + c] at [p nr + c], zero past the last column. */
static void pack_b(const char *B, size_t ldb, size_t kc, size_t nc, unsigned nr, char *dst)
{
    for (size_t jr = 0; jr < nc; jr += nr) {
        size_t cols = min_size(nr, nc - jr);
        char *panel = dst + jr * kc * ELEM;
        for (size_t p = 0; p < kc; p++) {
            memcpy(panel + p * nr * ELEM, B + (p * ldb + jr) * ELEM, cols * ELEM);
            memset(panel + (p * nr + cols) * ELEM, 0, (nr - cols) * ELEM);
        }
    }
}

/* The mc x nc block of C at c (row stride ldc) from packed A and B. */
static void macro_kernel(const Kernel *kn, const char *ap, const char *bp, char *c, size_t ldc,
                         size_t mc, size_t nc, size_t kc, bool first, char *edge)
{
    for (size_t jr = 0; jr < nc; jr += kn->nr) {
        size_t cols = min_size(kn->nr, nc - jr);
        for (size_t ir = 0; ir < mc; ir += kn->mr) {
            size_t rows = min_size(kn->mr, mc - ir);
            const char *a = ap + ir * kc * ELEM, *b = bp + jr * kc * ELEM;
            char *tile = c + (ir * ldc + jr) * ELEM;
            if (rows == kn->mr && cols == kn->nr) {
                kn->micro(kc, a, b, tile, ldc, first);
                continue;
            }
            // an edge tile: through a full-size buffer
            for (size_t r = 0; !first && r < rows; r++)
                memcpy(edge + r * kn->nr * ELEM, tile + r * ldc * ELEM, cols * ELEM);
            kn->micro(kc, a, b, edge, kn->nr, first);
            for (size_t r = 0; r < rows; r++)
                memcpy(tile + r * ldc * ELEM, edge + r * kn->nr * ELEM, cols * ELEM);
        }
    }
}

/* One thread's rectangle [i0, i1) x [j0, j1) of C, over the whole k. */
static void blocked_rect(Worker *w, size_t i0, size_t i1, size_t j0, size_t j1)
{
    const Job *g = w->job;
    const Kernel *kn = g->kern;
    size_t mc = balanced(i1 - i0, kn->mc, kn->mr);
    size_t kc = balanced(g->k, kn->kc, 1);
    size_t nc = balanced(j1 - j0, kn->nc, kn->nr);
    size_t a_bytes = round_up(mc * kc * ELEM, 64), b_bytes = round_up(kc * nc * ELEM, 64);
    char *buf = aligned_buffer(a_bytes + b_bytes + (size_t)kn->mr * kn->nr * ELEM);
    char *ap = buf, *bp = buf + a_bytes, *edge = bp + b_bytes;
    const char *A = g->A, *B = g->B;
    char *C = g->C;

    for (size_t jc = j0; jc < j1; jc += nc) {
        size_t ncur = min_size(nc, j1 - jc);
        for (size_t pc = 0; pc < g->k; pc += kc) {
            size_t kcur = min_size(kc, g->k - pc);
            pack_b(B + (pc * g->n + jc) * ELEM, g->n, kcur, ncur, kn->nr, bp);
            for (size_t ic = i0; ic < i1; ic += mc) {
                size_t mcur = min_size(mc, i1 - ic);
                if (!go_on(w, mcur * ncur * kcur))
                    goto out;
                pack_a(A + (ic * g->k + pc) * ELEM, g->k, mcur, kcur, kn->mr, ap);
                macro_kernel(kn, ap, bp, C + (ic * g->n + jc) * ELEM, g->n, mcur, ncur, kcur,
                             pc == 0, edge);
            }
        }
    }
out:
    free(buf);
}

static void blocked_part(Worker *w)
{
    const Job *g = w->job;
    if (g->by_cols)
        blocked_rect(w, 0, g->m, w->begin * g->kern->nr, min_size(w->end * g->kern->nr, g->n));
    else
        blocked_rect(w, w->begin * g->kern->mr, min_size(w->end * g->kern->mr, g->m), 0, g->n);
}

/* Runs the blocked kernel kn on job g (m, n, k > 0). */
static FxMatmulStatus run_blocked(Job *g, const Kernel *kn, unsigned threads,
                                  FxKeepGoing keep_going, void *ctx)
{
    size_t row_panels = (g->m + kn->mr - 1) / kn->mr, col_panels = (g->n + kn->nr - 1) / kn->nr;
    g->kern = kn;
    g->by_cols = row_panels < threads && col_panels > row_panels;
    size_t units = g->by_cols ? col_panels : row_panels;
    return run_team(keep_going, ctx, g, blocked_part, units, clamp_parts(threads, units));
}

/* ---- micro-kernels: doubles --------------------------------------------- */

/* The portable one: GCC's generic vectors of two doubles (SSE2, NEON),
 * 4 rows by 2 vectors. It never fuses, so it serves BLOCKED and
 * BLOCKED_EXACT alike. */
typedef double F64x2 __attribute__((vector_size(16)));
#define P_MR 4
#define P_NV 2

static void micro_f64_portable(size_t kc, const void *ap, const void *bp, void *cp, size_t ldc,
                               bool first)
{
    const double *a = ap, *b = bp;
    double *c = cp;
    F64x2 acc[P_MR][P_NV];
#pragma GCC unroll 4
    for (int r = 0; r < P_MR; r++) {
#pragma GCC unroll 2
        for (int v = 0; v < P_NV; v++) {
            if (first)
                acc[r][v] = (F64x2){0.0, 0.0};
            else
                memcpy(&acc[r][v], c + r * ldc + 2 * v, sizeof(F64x2));
        }
    }
#pragma GCC unroll 4
    for (size_t p = 0; p < kc; p++, a += P_MR, b += 2 * P_NV) {
        F64x2 bv[P_NV];
        memcpy(bv, b, sizeof(bv));
#pragma GCC unroll 4
        for (int r = 0; r < P_MR; r++) {
#pragma GCC unroll 2
            for (int v = 0; v < P_NV; v++) {
                F64x2 t = a[r] * bv[v];
                KEEP_ROUNDED(t);
                acc[r][v] += t;
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < P_MR; r++) {
#pragma GCC unroll 2
        for (int v = 0; v < P_NV; v++)
            memcpy(c + r * ldc + 2 * v, &acc[r][v], sizeof(F64x2));
    }
}

#if FX_X86
/* AVX2 with FMA: 6 rows by 2 vectors of 4; 12 accumulators of 16 ymm. */
#define Y_MR 6
#define Y_NV 2

__attribute__((target("avx2,fma"), always_inline)) static inline void
micro_f64_avx2(size_t kc, const double *a, const double *b, double *c, size_t ldc, bool first,
               bool fused)
{
    __m256d acc[Y_MR][Y_NV];
#pragma GCC unroll 8
    for (int r = 0; r < Y_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Y_NV; v++)
            acc[r][v] = first ? _mm256_setzero_pd() : _mm256_loadu_pd(c + r * ldc + 4 * v);
    }
#pragma GCC unroll 4
    for (size_t p = 0; p < kc; p++, a += Y_MR, b += 4 * Y_NV) {
        __m256d bv[Y_NV];
#pragma GCC unroll 4
        for (int v = 0; v < Y_NV; v++)
            bv[v] = _mm256_load_pd(b + 4 * v);
#pragma GCC unroll 8
        for (int r = 0; r < Y_MR; r++) {
            __m256d x = _mm256_broadcast_sd(a + r);
#pragma GCC unroll 4
            for (int v = 0; v < Y_NV; v++) {
                if (fused) {
                    acc[r][v] = _mm256_fmadd_pd(x, bv[v], acc[r][v]);
                } else {
                    __m256d t = _mm256_mul_pd(x, bv[v]);
                    KEEP_ROUNDED(t);
                    acc[r][v] = _mm256_add_pd(acc[r][v], t);
                }
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Y_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Y_NV; v++)
            _mm256_storeu_pd(c + r * ldc + 4 * v, acc[r][v]);
    }
}

__attribute__((target("avx2,fma"))) static void
micro_f64_avx2_fused(size_t kc, const void *a, const void *b, void *c, size_t ldc, bool first)
{
    micro_f64_avx2(kc, a, b, c, ldc, first, true);
}

__attribute__((target("avx2,fma"))) static void
micro_f64_avx2_exact(size_t kc, const void *a, const void *b, void *c, size_t ldc, bool first)
{
    micro_f64_avx2(kc, a, b, c, ldc, first, false);
}

/* AVX-512F: 12 rows by 2 vectors of 8; 24 accumulators of 32 zmm. */
#define Z_MR 8
#define Z_NV 3

__attribute__((target("avx512f"), always_inline)) static inline void
micro_f64_avx512(size_t kc, const double *a, const double *b, double *c, size_t ldc,
                 bool first, bool fused)
{
    __m512d acc[Z_MR][Z_NV];
#pragma GCC unroll 16
    for (int r = 0; r < Z_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Z_NV; v++)
            acc[r][v] = first ? _mm512_setzero_pd() : _mm512_loadu_pd(c + r * ldc + 8 * v);
    }
#pragma GCC unroll 4
    for (size_t p = 0; p < kc; p++, a += Z_MR, b += 8 * Z_NV) {
        __m512d bv[Z_NV];
#pragma GCC unroll 4
        for (int v = 0; v < Z_NV; v++)
            bv[v] = _mm512_load_pd(b + 8 * v);
#pragma GCC unroll 16
        for (int r = 0; r < Z_MR; r++) {
            __m512d x = _mm512_set1_pd(a[r]);
#pragma GCC unroll 4
            for (int v = 0; v < Z_NV; v++) {
                if (fused) {
                    acc[r][v] = _mm512_fmadd_pd(x, bv[v], acc[r][v]);
                } else {
                    __m512d t = _mm512_mul_pd(x, bv[v]);
                    KEEP_ROUNDED_Z(t);
                    acc[r][v] = _mm512_add_pd(acc[r][v], t);
                }
            }
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < Z_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Z_NV; v++)
            _mm512_storeu_pd(c + r * ldc + 8 * v, acc[r][v]);
    }
}

__attribute__((target("avx512f"))) static void
micro_f64_avx512_fused(size_t kc, const void *a, const void *b, void *c, size_t ldc, bool first)
{
    micro_f64_avx512(kc, a, b, c, ldc, first, true);
}

__attribute__((target("avx512f"))) static void
micro_f64_avx512_exact(size_t kc, const void *a, const void *b, void *c, size_t ldc, bool first)
{
    micro_f64_avx512(kc, a, b, c, ldc, first, false);
}
#endif

/* ORDER FX_MATMUL_ISA. Block sizes: a kc x nr panel of B (16 .. 48 KiB)
 * stays in L1 or close, the mc x kc block of A (up to 480 KiB) in L2; kc
 * = 256 measured best for AVX-512 (against 128 and 192, and mc 96 .. 480
 * mattered little). */
static const Kernel f64_fused[] = {
        {P_MR, 2 * P_NV, 256, 128, 4096, micro_f64_portable},
#if FX_X86
        {Y_MR, 4 * Y_NV, 256, 144, 4096, micro_f64_avx2_fused},
        {Z_MR, 8 * Z_NV, 256, 240, 4096, micro_f64_avx512_fused},
#endif
};

static const Kernel f64_exact[] = {
        {P_MR, 2 * P_NV, 256, 128, 4096, micro_f64_portable},
#if FX_X86
        {Y_MR, 4 * Y_NV, 256, 144, 4096, micro_f64_avx2_exact},
        {Z_MR, 8 * Z_NV, 256, 240, 4096, micro_f64_avx512_exact},
#endif
};

/* ---- micro-kernels: int64 that cannot overflow ------------------------- */

/* Wrapping uint64 arithmetic, exact when the caller has proved that no
 * partial sum leaves int64 (max|A| max|B| K < 2^63). Two families:
 *   narrow  both factors fit int32: one signed 32 x 32 -> 64 multiply
 *           (vpmuldq) a lane, in AVX2 and AVX-512F;
 *   wide    any factors: vpmullq (AVX-512DQ), else scalar.
 * The portable kernel (scalar, 4 x 4) serves both where the CPU lacks the
 * instructions. */
#define S_MR 4
#define S_NR 4

static void micro_i64_scalar(size_t kc, const void *ap, const void *bp, void *cp, size_t ldc,
                             bool first)
{
    const uint64_t *a = ap, *b = bp;
    uint64_t *c = cp;
    uint64_t acc[S_MR][S_NR];
    for (int r = 0; r < S_MR; r++) {
        for (int j = 0; j < S_NR; j++)
            acc[r][j] = first ? 0 : c[r * ldc + j];
    }
    for (size_t p = 0; p < kc; p++, a += S_MR, b += S_NR) {
#pragma GCC unroll 4
        for (int r = 0; r < S_MR; r++) {
#pragma GCC unroll 4
            for (int j = 0; j < S_NR; j++)
                acc[r][j] += a[r] * b[j];
        }
    }
    for (int r = 0; r < S_MR; r++) {
        for (int j = 0; j < S_NR; j++)
            c[r * ldc + j] = acc[r][j];
    }
}

#if FX_X86
/* narrow, AVX2: 6 rows by 2 vectors of 4, as the double kernel */
__attribute__((target("avx2"))) static void
micro_i64_narrow_avx2(size_t kc, const void *ap, const void *bp, void *cp, size_t ldc, bool first)
{
    const int64_t *a = ap;
    const char *b = bp;
    char *c = cp;
    __m256i acc[Y_MR][Y_NV];
#pragma GCC unroll 8
    for (int r = 0; r < Y_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Y_NV; v++)
            acc[r][v] = first ? _mm256_setzero_si256()
                              : _mm256_loadu_si256((const void *)(c + (r * ldc + 4 * v) * ELEM));
    }
#pragma GCC unroll 4
    for (size_t p = 0; p < kc; p++, a += Y_MR, b += 4 * Y_NV * ELEM) {
        __m256i bv[Y_NV];
#pragma GCC unroll 4
        for (int v = 0; v < Y_NV; v++)
            bv[v] = _mm256_loadu_si256((const void *)(b + 4 * v * ELEM));
#pragma GCC unroll 8
        for (int r = 0; r < Y_MR; r++) {
            __m256i x = _mm256_set1_epi64x(a[r]);
#pragma GCC unroll 4
            for (int v = 0; v < Y_NV; v++)
                acc[r][v] = _mm256_add_epi64(acc[r][v], _mm256_mul_epi32(x, bv[v]));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Y_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Y_NV; v++)
            _mm256_storeu_si256((void *)(c + (r * ldc + 4 * v) * ELEM), acc[r][v]);
    }
}

/* AVX-512: 8 rows by 3 vectors of 8, as the double kernel; the multiply
 * is vpmuldq (narrow) or vpmullq (wide, AVX-512DQ). */
__attribute__((target("avx512f,avx512dq"), always_inline)) static inline void
micro_i64_avx512(size_t kc, const int64_t *a, const char *b, char *c, size_t ldc, bool first,
                 bool narrow)
{
    __m512i acc[Z_MR][Z_NV];
#pragma GCC unroll 16
    for (int r = 0; r < Z_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Z_NV; v++)
            acc[r][v] = first ? _mm512_setzero_si512()
                              : _mm512_loadu_si512(c + (r * ldc + 8 * v) * ELEM);
    }
#pragma GCC unroll 4
    for (size_t p = 0; p < kc; p++, a += Z_MR, b += 8 * Z_NV * ELEM) {
        __m512i bv[Z_NV];
#pragma GCC unroll 4
        for (int v = 0; v < Z_NV; v++)
            bv[v] = _mm512_loadu_si512(b + 8 * v * ELEM);
#pragma GCC unroll 16
        for (int r = 0; r < Z_MR; r++) {
            __m512i x = _mm512_set1_epi64(a[r]);
#pragma GCC unroll 4
            for (int v = 0; v < Z_NV; v++) {
                __m512i t = narrow ? _mm512_mul_epi32(x, bv[v]) : _mm512_mullo_epi64(x, bv[v]);
                acc[r][v] = _mm512_add_epi64(acc[r][v], t);
            }
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < Z_MR; r++) {
#pragma GCC unroll 4
        for (int v = 0; v < Z_NV; v++)
            _mm512_storeu_si512(c + (r * ldc + 8 * v) * ELEM, acc[r][v]);
    }
}

__attribute__((target("avx512f,avx512dq"))) static void
micro_i64_wide_avx512(size_t kc, const void *a, const void *b, void *c, size_t ldc, bool first)
{
    micro_i64_avx512(kc, a, b, c, ldc, first, false);
}

__attribute__((target("avx512f,avx512dq"))) static void
micro_i64_narrow_avx512(size_t kc, const void *a, const void *b, void *c, size_t ldc, bool first)
{
    micro_i64_avx512(kc, a, b, c, ldc, first, true);
}
#endif

/* ORDER FX_MATMUL_ISA (AVX2 has no 64-bit multiply: wide runs scalar) */
static const Kernel i64_wide[] = {
        {S_MR, S_NR, 256, 128, 4096, micro_i64_scalar},
#if FX_X86
        {S_MR, S_NR, 256, 128, 4096, micro_i64_scalar},
        {Z_MR, 8 * Z_NV, 256, 240, 4096, micro_i64_wide_avx512},
#endif
};

static const Kernel i64_narrow[] = {
        {S_MR, S_NR, 256, 128, 4096, micro_i64_scalar},
#if FX_X86
        {Y_MR, 4 * Y_NV, 256, 144, 4096, micro_i64_narrow_avx2},
        {Z_MR, 8 * Z_NV, 256, 240, 4096, micro_i64_narrow_avx512},
#endif
};

/* The kernel of `table` for the best instruction set allowed. The int64
 * AVX-512 kernels use AVX-512DQ too; without it they step down to AVX2. */
static const Kernel *pick(const Kernel *table, bool int64)
{
    FxMatmulIsa isa = isa_now();
#if FX_X86
    if (int64 && isa == FX_MATMUL_ISA_AVX512 && !__builtin_cpu_supports("avx512dq"))
        isa = FX_MATMUL_ISA_AVX2;
#else
    (void)int64;
    isa = FX_MATMUL_ISA_PORTABLE;
#endif
    return &table[isa];
}

/* ---- the naive loops ---------------------------------------------------- */

/* How many elements of C make about POLL_WORK multiply-adds, for the
 * loops that go element by element. */
static size_t poll_chunk(size_t k)
{
    return POLL_WORK / k > 0 ? POLL_WORK / k : 1;
}

static void naive_f64_part(Worker *w)
{
    const Job *g = w->job;
    const double *A = g->A, *B = g->B;
    double *C = g->C;
    size_t chunk = poll_chunk(g->k);
    for (size_t i = w->begin; i < w->end; i++) {
        for (size_t j = 0; j < g->n; j++) {
            if (j % chunk == 0 && !go_on(w, min_size(chunk, g->n - j) * g->k))
                return;
            double s = 0.0;
            for (size_t p = 0; p < g->k; p++) {
                double t = A[i * g->k + p] * B[p * g->n + j];
                KEEP_ROUNDED(t);
                s += t;
            }
            C[i * g->n + j] = s;
        }
    }
}

/* An exact sum: s + wraps 2^128. */
typedef struct Sum128 {
    I128 s;
    int64_t wraps;
} Sum128;

static inline void sum_add(Sum128 *x, int64_t a, int64_t b)
{
    I128 t = (I128)a * b; // |t| <= 2^126: never overflows
    if (__builtin_add_overflow(x->s, t, &x->s))
        x->wraps += t < 0 ? -1 : 1;
}

/* Stores x into *out; false when it does not fit int64. */
static inline bool sum_store(const Sum128 *x, int64_t *out)
{
    if (x->wraps != 0 || x->s < INT64_MIN || x->s > INT64_MAX)
        return false;
    *out = (int64_t)x->s;
    return true;
}

static void naive_i64_part(Worker *w)
{
    const Job *g = w->job;
    const int64_t *A = g->A, *B = g->B;
    int64_t *C = g->C;
    size_t chunk = poll_chunk(g->k);
    for (size_t i = w->begin; i < w->end; i++) {
        for (size_t j = 0; j < g->n; j++) {
            if (j % chunk == 0 && !go_on(w, min_size(chunk, g->n - j) * g->k))
                return;
            Sum128 x = {0, 0};
            for (size_t p = 0; p < g->k; p++)
                sum_add(&x, A[i * g->k + p], B[p * g->n + j]);
            if (!sum_store(&x, &C[i * g->n + j])) {
                halt(w->team, FX_MATMUL_OVERFLOW);
                return;
            }
        }
    }
}

/* BLOCKED where overflow is possible: each row of C, CHECKED_COLS columns
 * at a time, summed in row order of B (sequential reads). */
static void checked_i64_part(Worker *w)
{
    const Job *g = w->job;
    const int64_t *A = g->A, *B = g->B;
    int64_t *C = g->C;
    Sum128 x[CHECKED_COLS];
    for (size_t i = w->begin; i < w->end; i++) {
        for (size_t j0 = 0; j0 < g->n; j0 += CHECKED_COLS) {
            size_t cols = min_size(CHECKED_COLS, g->n - j0);
            if (!go_on(w, cols * g->k))
                return;
            memset(x, 0, cols * sizeof(x[0]));
            for (size_t p = 0; p < g->k; p++) {
                int64_t a = A[i * g->k + p];
                const int64_t *b = B + p * g->n + j0;
                for (size_t j = 0; a != 0 && j < cols; j++)
                    sum_add(&x[j], a, b[j]);
            }
            for (size_t j = 0; j < cols; j++) {
                if (!sum_store(&x[j], &C[i * g->n + j0 + j])) {
                    halt(w->team, FX_MATMUL_OVERFLOW);
                    return;
                }
            }
        }
    }
}

/* ---- entry points ------------------------------------------------------- */

bool fx_matmul_f64(FxMatmulKind kind, const double *A, const double *B, double *C, size_t m,
                   size_t k, size_t n, unsigned threads, FxKeepGoing keep_going, void *ctx)
{
    FX_CHECK((unsigned)kind < FX_MATMUL__COUNT, "bad matmul kind %d", (int)kind);
    if (m == 0 || n == 0)
        return true;
    if (k == 0) {
        memset(C, 0, m * n * sizeof(*C)); // all-zero bits: +0.0, as 0 + nothing
        return true;
    }
    Job g = {.A = A, .B = B, .C = C, .m = m, .k = k, .n = n};
    if (kind == FX_MATMUL_NAIVE)
        return run_team(keep_going, ctx, &g, naive_f64_part, m, clamp_parts(threads, m)) ==
               FX_MATMUL_OK;
    const Kernel *kn = pick(kind == FX_MATMUL_BLOCKED ? f64_fused : f64_exact, false);
    return run_blocked(&g, kn, threads, keep_going, ctx) == FX_MATMUL_OK;
}

/* The largest |x| over a[0 .. count-1], as an unsigned (|INT64_MIN| fits). */
static uint64_t max_abs(const int64_t *a, size_t count)
{
    uint64_t most = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t x = a[i] < 0 ? 0 - (uint64_t)a[i] : (uint64_t)a[i];
        most = x > most ? x : most;
    }
    return most;
}

/* Integers whose every partial sum is below 2^53: multiplied as doubles,
 * where every operation is exact. */
static FxMatmulStatus i64_via_f64(const int64_t *A, const int64_t *B, int64_t *C, size_t m,
                                  size_t k, size_t n, unsigned threads, FxKeepGoing keep_going,
                                  void *ctx)
{
    double *a = fx_xmalloc(m * k * sizeof(*a)), *b = fx_xmalloc(k * n * sizeof(*b));
    double *c = fx_xmalloc(m * n * sizeof(*c));
    for (size_t i = 0; i < m * k; i++)
        a[i] = (double)A[i];
    for (size_t i = 0; i < k * n; i++)
        b[i] = (double)B[i];
    Job g = {.A = a, .B = b, .C = c, .m = m, .k = k, .n = n};
    FxMatmulStatus st = run_blocked(&g, pick(f64_fused, false), threads, keep_going, ctx);
    for (size_t i = 0; st == FX_MATMUL_OK && i < m * n; i++)
        C[i] = (int64_t)c[i];
    free(a);
    free(b);
    free(c);
    return st;
}

FxMatmulStatus fx_matmul_i64(FxMatmulKind kind, const int64_t *A, const int64_t *B, int64_t *C,
                             size_t m, size_t k, size_t n, unsigned threads,
                             FxKeepGoing keep_going, void *ctx)
{
    FX_CHECK((unsigned)kind < FX_MATMUL__COUNT, "bad matmul kind %d", (int)kind);
    if (m == 0 || n == 0)
        return FX_MATMUL_OK;
    if (k == 0) {
        memset(C, 0, m * n * sizeof(*C));
        return FX_MATMUL_OK;
    }
    Job g = {.A = A, .B = B, .C = C, .m = m, .k = k, .n = n};
    if (kind == FX_MATMUL_NAIVE)
        return run_team(keep_going, ctx, &g, naive_i64_part, m, clamp_parts(threads, m));

    // the largest partial sum, in any order, is at most max|A| max|B| k
    uint64_t max_a = max_abs(A, m * k), max_b = max_abs(B, k * n);
    U128 bound = (U128)max_a * max_b;
    bool fits = !__builtin_mul_overflow(bound, (U128)k, &bound) && bound <= INT64_MAX;
    if (!fits)
        return run_team(keep_going, ctx, &g, checked_i64_part, m, clamp_parts(threads, m));
    if (bound <= EXACT_IN_DOUBLE)
        return i64_via_f64(A, B, C, m, k, n, threads, keep_going, ctx);
    bool narrow = max_a <= INT32_MAX && max_b <= INT32_MAX;
    return run_blocked(&g, pick(narrow ? i64_narrow : i64_wide, true), threads, keep_going, ctx);
}
