/*
 * linrec.h: exact kernels for linear recurrences with constant integer
 * coefficients, of order k = 1 .. FX_LINREC_MAX_ORDER:
 *
 *     f(n) = c_1 f(n-1) + c_2 f(n-2) + ... + c_k f(n-k)   for n >= k,
 *     f(0) .. f(k-1) given (integers of any size).
 *
 * Two ways to f(n), both exact (nothing wraps):
 *   fx_linrec_loop   steps a window of the last k values, O(n) additions;
 *                    int64 while the values fit, GMP from the first overflow.
 *   fx_linrec_power  Fiduccia's method: x^n modulo the characteristic
 *                    polynomial by square-and-multiply, O(k^2 log n) big
 *                    multiplications. Much faster for large n.
 *
 * A spec is made once by fx_linrec_init and then only read, so one spec
 * may serve several threads at once; the kernels keep no state of their
 * own (reentrant) and leak nothing, also when stopped.
 *
 * Cancellation: the kernels take a poll FxKeepGoing (NULL: never stop).
 * fx_linrec_loop calls it every few thousand steps, and after at most
 * ~1 ms of big-number work; fx_linrec_power before each squaring step.
 * When it returns false the kernel returns false at once and leaves out
 * untouched.
 *
 * The caller bounds n: f(n) has about n * log2(largest root) bits, and
 * GMP aborts on numbers it cannot represent.
 */
#ifndef FX_LINREC_H
#define FX_LINREC_H

#include <gmp.h>
#include <stdbool.h>
#include <stdint.h>

#define FX_LINREC_MAX_ORDER 8

typedef struct FxLinRecSpec {
    uint32_t order;                      /* k */
    int64_t coeffs[FX_LINREC_MAX_ORDER]; /* coeffs[i] = c_{i+1} */
    mpz_t initial[FX_LINREC_MAX_ORDER];  /* f(0) .. f(k-1) */
    /* precomputed by fx_linrec_init, read by the kernels */
    mpz_t ahead[FX_LINREC_MAX_ORDER];   /* f(k) .. f(2k-1) */
    uint32_t small_count;               /* leading initial values that fit int64 */
    int64_t small[FX_LINREC_MAX_ORDER]; /* f(0) .. f(small_count-1) */
} FxLinRecSpec;

/* Fills s for the recurrence of order `order` with coefficients
 * coeffs[0..order-1] = c_1 .. c_k and initial values f(0) .. f(k-1) given
 * as decimal texts (an optional '-' then digits, nothing else). Returns
 * false, with nothing to free, when order is 0 or above
 * FX_LINREC_MAX_ORDER or a text is not a decimal integer; otherwise the
 * caller frees s with fx_linrec_clear. */
bool fx_linrec_init(FxLinRecSpec *s, uint32_t order, const int64_t *coeffs,
                    const char *const *initial_decimal);

/* Frees what fx_linrec_init made. */
void fx_linrec_clear(FxLinRecSpec *s);

/* The poll of a long computation: false asks it to stop. */
typedef bool (*FxKeepGoing)(void *ctx);

/* Sets out (initialised by the caller) to f(n) by stepping the recurrence.
 * Returns false, out untouched, when keep_going (may be NULL) said stop. */
bool fx_linrec_loop(const FxLinRecSpec *s, uint64_t n, mpz_t out, FxKeepGoing keep_going,
                    void *ctx);

/* Sets out (initialised by the caller) to f(n) by powering the companion
 * matrix in the algebra it generates. Returns false, out untouched, when
 * keep_going (may be NULL) said stop. */
bool fx_linrec_power(const FxLinRecSpec *s, uint64_t n, mpz_t out, FxKeepGoing keep_going,
                     void *ctx);

/* The int64 path of fx_linrec_loop alone: true with *out = f(n) when every
 * one of f(0) .. f(n) fits int64, false otherwise (*out untouched). It
 * never polls and takes about a nanosecond a step, so the caller bounds n
 * (fx_linrec_loop polls). */
bool fx_linrec_loop_small(const FxLinRecSpec *s, uint64_t n, int64_t *out);

#endif
