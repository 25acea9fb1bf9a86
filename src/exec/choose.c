/*
 * choose.c: which variant of a node kernel runs a call (choose.h): the
 * policy, kept out of the interpreter loop (vm.c), which runs the choice.
 */
#include "choose.h"

#include <math.h>
#include <stdio.h>

#include "base/buf.h"

/* ---- the sort kernels (FX_KERNEL_SORT) ---- */

/* Above 32 elements the insertion kernel is batch insertion: it lifts out
 * what breaks the order, sorts that, and merges it back. */
const char *fx_sort_kernel_name(FxSortKind k, size_t n)
{
    return k == FX_SORTK_INSERTION && n > 32 ? "batch insertion" : fx_sortk_name(k);
}

static void print_ns(FxBuf *b, double ns)
{
    if (ns < 1e3)
        fx_buf_printf(b, "%.0f ns", ns);
    else if (ns < 1e6)
        fx_buf_printf(b, "%.3g µs", ns / 1e3);
    else
        fx_buf_printf(b, "%.3g ms", ns / 1e6);
}

/* The kernel the cost model predicts fastest for an input with these
 * features (sortcost.h), and why: its prediction against the others'. */
FxSortKind fx_choose_sort(const FxSortCosts *costs, const FxSortFeatures *f, unsigned threads,
                          char *why, size_t len)
{
    double predicted[FX_SORTK__COUNT];
    FxSortKind kind = fx_sortcost_choose(costs, f, threads, predicted);
    uint64_t range = (uint64_t)f->max - (uint64_t)f->min;
    FxBuf b = {0};
    fx_buf_printf(&b, "%s: n = %zu, %zu descents, key range %llu%s; predicted ",
                  fx_sort_kernel_name(kind, f->n), f->n, f->descents, (unsigned long long)range,
                  f->sampled ? " (sampled)" : "");
    print_ns(&b, predicted[kind]);
    const char *sep = ", against ";
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        /* a kernel predicted the same runs the same code at this size */
        if (k == (int)kind || !isfinite(predicted[k]) || predicted[k] == predicted[kind])
            continue;
        fx_buf_printf(&b, "%s%s ", sep, fx_sort_kernel_name((FxSortKind)k, f->n));
        print_ns(&b, predicted[k]);
        sep = ", ";
    }
    fx_buf_printf(&b, " (the array in %s)", fx_sortcost_level_name(fx_sortcost_level(f->n)));
    snprintf(why, len, "%s", fx_buf_str(&b));
    fx_buf_free(&b);
    return kind;
}

/* ---- the sieve (FX_KERNEL_SIEVE) ---- */

/* The kernel for [lo, hi): trial division for a few candidates, the plain
 * sieve up to 2^10, the segmented sieve on every core beyond. The segmented
 * kernel (pre-sieved mod-30 wheel, counted by popcount) overtook the plain
 * one long before its bitmap leaves the cache: counts below 10^3, 10^4,
 * 10^5, 10^6 took 0.45, 4.6, 51, 572 us plain and 0.43, 0.55, 2.3, 32 us
 * segmented on one core (lists cross near 700); the rule said 2^20, and
 * bench/regret caught a learned count of 10^6 running 12x slower. */
FxSieveKind fx_choose_sieve(uint64_t lo, uint64_t hi, unsigned threads, char *why, size_t len)
{
    uint64_t n = hi > lo ? hi - lo : 0;
    if (n <= 64) {
        snprintf(why, len, "%llu candidates: trial division", (unsigned long long)n);
        return FX_SIEVE_TRIAL;
    }
    if (hi <= ((uint64_t)1 << 10)) {
        snprintf(why, len, "hi = %llu <= 2^10: the plain sieve has the least to set up",
                 (unsigned long long)hi);
        return FX_SIEVE_ERATOSTHENES;
    }
    snprintf(why, len, "hi = %llu: segmented, cache-sized segments, on %u thread%s",
             (unsigned long long)hi, threads, threads == 1 ? "" : "s");
    return FX_SIEVE_SEGMENTED;
}

/* ---- the matrix product (FX_KERNEL_GEMM) ---- */

/* May a product of doubles reorder its sums under the intent's tolerance
 * (docs/language.md §6)? A K-term sum in any order is within gamma_K =
 * K u / (1 - K u) (u = 2^-53) times the sum of its terms' magnitudes of the
 * exact sum when nothing overflows or underflows (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2002, §3.1; a fused multiply-add
 * rounds less), so two orders are within 2 gamma_K of each other. Yes when
 * that is within the tolerance, every entry is finite, and every nonzero
 * entry lies in [2^-500, 2^500] with K < 2^20: no product or partial sum
 * can then overflow, and no product underflow (a sum of normal numbers
 * that lands below them is exact). *bound gets 2 gamma_K. */
bool fx_may_reassociate(double tolerance, const double *a, size_t na, const double *b, size_t nb,
                        size_t k, double *bound)
{
    double ku = (double)k * 0x1p-53;
    *bound = 2 * ku / (1 - ku);
    if (!(tolerance > 0) || k >= ((size_t)1 << 20) || *bound > tolerance)
        return false;
    for (size_t i = 0; i < na + nb; i++) {
        double x = fabs(i < na ? a[i] : b[i - na]);
        if (x != 0 && !(x >= 0x1p-500 && x <= 0x1p500)) /* NaN fails too */
            return false;
    }
    return true;
}

/* Why a declared tolerance did not allow reordering. */
const char *fx_tolerance_miss(double tolerance, double bound)
{
    return bound > tolerance ? " (the tolerance is below the reordering's bound at this K)"
                             : " (an entry is infinite, NaN, or too large or small to bound)";
}
