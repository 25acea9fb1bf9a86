/*
 * sieve.h: exact prime-sieve kernels over ranges [lo, hi) of uint64, the
 * kernels the optimizer puts in place of comprehensions such as
 *
 *     [p for p in lo..hi if prime(p)]          fx_sieve_list
 *     count(p for p in lo..hi if prime(p))     fx_sieve_count
 *     [p for p in lo..hi if prime(p) and prime(p + 2)]
 *                                              fx_sieve_set, then iterate
 *                                              (see "Filters" below)
 *
 * Three kernels, chosen per call by the cost model (FxSieveKind):
 *   FX_SIEVE_TRIAL         trial division of each candidate by 2 and the
 *                          odd d with d * d <= p. No memory; for a handful
 *                          of candidates or a narrow window of large ones.
 *   FX_SIEVE_ERATOSTHENES  the plain sieve over [0, hi), one bit per odd
 *                          number: hi / 16 bytes, whatever lo is.
 *   FX_SIEVE_SEGMENTED     a segmented sieve of [lo, hi) on the mod-30
 *                          wheel (a byte holds 30 numbers), pre-sieved by
 *                          the primes 7 .. 179, one segment of
 *                          segment_bytes at a time (0: the default, 128
 *                          KiB; pass the L2 data cache size, or the L1's:
 *                          the smallest primes go L1-sized pieces at a
 *                          time anyway), on `threads` tasks of the CPU
 *                          device (hw/device.h: the thread pool) that
 *                          claim blocks of segments in turn. Memory: a
 *                          segment per thread (count), about 4 bytes for
 *                          each prime below sqrt(hi) and a bitmap of the
 *                          odd numbers below sqrt(hi). One thread is best
 *                          below a few million numbers: the caller asks
 *                          fx_device_threads with FX_SIEVE_PARALLEL_FROM
 *                          (a range) or FX_SIEVE_WINDOW_PARALLEL_FROM (a
 *                          window of sieved calls, which come in series).
 * Trial and eratosthenes run on the calling thread alone; they ignore
 * `threads` and `segment_bytes`. `threads` 0 counts as 1.
 *
 * Every kernel is exact for 0 <= lo and hi <= FX_SIEVE_HI_MAX (2^63; a
 * larger hi is a caller bug and aborts through FX_CHECK). lo >= hi is the
 * empty range. The caller bounds the memory: a list takes 8 bytes a prime
 * (about (hi - lo) / ln hi primes; the segmented kernel also holds a
 * bitmap of (hi - lo) / 30 bytes while it works), eratosthenes hi / 16
 * bytes, a set (hi - lo) / 30 bytes; allocation failure aborts, as
 * fx_xmalloc does.
 *
 * Cancellation: each kernel takes a poll FxKeepGoing (NULL: never stop),
 * called about every segment (segmented: before sieving each, and before
 * listing each; every millisecond while the calling thread waits for the
 * others), every ~10^6 crossings (eratosthenes, and the segmented
 * kernel's sieving primes) or every ~10^5 divisions (trial), always from the
 * calling thread, never from a worker thread, and never again once it
 * has returned false. A kernel that was stopped returns false and leaves
 * its result as it was before the call (a list keeps its old length; its
 * storage may have grown).
 *
 * Filters. fx_sieve_list gives the ascending list that the interpreter
 * turns into its own values, and any further condition of the
 * comprehension is then evaluated on those. When the condition asks
 * prime(p + c) for a small c >= 0 (twin primes: c = 2, prime
 * quadruplets ...), sieve once with fx_sieve_set over [lo, hi + c) and
 * walk it:
 *
 *     FxPrimeSet s;
 *     if (!fx_sieve_set(lo, hi + 2, threads, 0, &s, keep_going, ctx))
 *         return stopped;
 *     for (uint64_t p = fx_primeset_next(&s, lo); p < hi; p = fx_primeset_next(&s, p + 1))
 *         if (fx_primeset_has(&s, p + 2))
 *             emit(p);
 *     fx_primeset_free(&s);
 *
 * Each step costs a few nanoseconds. A range too large to hold whole is
 * done in windows by the caller, one call per window (for a set, windows
 * that overlap by c).
 *
 * Threads: the functions keep no state between calls and may be called
 * from several threads at once. The tables they share are built once,
 * under pthread_once.
 */
#ifndef FX_SIEVE_H
#define FX_SIEVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The poll of a long computation: false asks it to stop. The same
 * typedef as linrec.h's (C11 allows repeating it), so that both headers
 * can be included together without pulling <gmp.h> in here. */
typedef bool (*FxKeepGoing)(void *ctx);

/* ORDER FX_SIEVE: keep in sync with kind_names[] in sieve.c */
typedef enum {
    FX_SIEVE_TRIAL,
    FX_SIEVE_ERATOSTHENES,
    FX_SIEVE_SEGMENTED,
    FX_SIEVE__COUNT
} FxSieveKind;

/* The largest hi the kernels accept. */
#define FX_SIEVE_HI_MAX ((uint64_t)1 << 63)
/* The segment size (bytes) when the caller passes 0: an L2 data cache. */
#define FX_SIEVE_SEGMENT_DEFAULT ((size_t)128 * 1024)

/* A growable array of primes in ascending order. Zero-initialised is
 * empty; v is malloc'd storage for cap values, of which len are set. */
typedef struct FxPrimes {
    uint64_t *v;
    size_t len, cap;
} FxPrimes;

/* The primes of a range [lo, hi) as a bitmap on the mod-30 wheel, made by
 * fx_sieve_set. Read it through fx_primeset_has and fx_primeset_next;
 * the last two fields are private. */
typedef struct FxPrimeSet {
    uint64_t lo, hi;
    uint64_t first_byte; /* byte b of the wheel (30b .. 30b + 29) is bits[b - first_byte] */
    uint8_t *bits;
} FxPrimeSet;

/* From this many numbers on, a range is sieved on the device's threads, and
 * a window of the sieved calls (vm.c) from FX_SIEVE_WINDOW_PARALLEL_FROM. */
#define FX_SIEVE_PARALLEL_FROM        1e7
#define FX_SIEVE_WINDOW_PARALLEL_FROM ((double)((uint64_t)1 << 22))

/* Sets *out to the number of primes p with lo <= p < hi. Returns false,
 * *out untouched, when keep_going said stop. */
bool fx_sieve_count(FxSieveKind k, uint64_t lo, uint64_t hi, unsigned threads,
                    size_t segment_bytes, uint64_t *out, FxKeepGoing keep_going, void *ctx);

/* Appends the primes p with lo <= p < hi to out, in ascending order (out
 * zero-initialised, or holding earlier results). The caller frees out with
 * fx_primes_free. Returns false, out->len as before, when keep_going said
 * stop. */
bool fx_sieve_list(FxSieveKind k, uint64_t lo, uint64_t hi, unsigned threads,
                   size_t segment_bytes, FxPrimes *out, FxKeepGoing keep_going, void *ctx);

/* Frees the storage of p and makes it empty. NULL-safe. */
void fx_primes_free(FxPrimes *p);

/* "trial", "eratosthenes", "segmented"; "?" for anything else. */
const char *fx_sieve_name(FxSieveKind k);

/* Fills *out with the primes of [lo, hi) by the segmented kernel (threads
 * and segment_bytes as for FX_SIEVE_SEGMENTED); the caller frees it with
 * fx_primeset_free. Returns false, with nothing to free, when keep_going
 * said stop. */
bool fx_sieve_set(uint64_t lo, uint64_t hi, unsigned threads, size_t segment_bytes,
                  FxPrimeSet *out, FxKeepGoing keep_going, void *ctx);

/* Is x prime? x must lie in [s->lo, s->hi) (FX_CHECK). */
bool fx_primeset_has(const FxPrimeSet *s, uint64_t x);

/* The least prime p >= x of the set (p < s->hi), or s->hi when there is
 * none. x below s->lo counts as s->lo. */
uint64_t fx_primeset_next(const FxPrimeSet *s, uint64_t x);
/* How many p in [lo, hi) are prime with p + c[k] prime for every k (twin
 * primes: c = {2}; quadruplets: {2, 6, 8}), appended to list when it is
 * not NULL. The set must cover [lo, hi + max c). Whole bytes are done 64
 * numbers' bits at a time: each residue's bits ANDed with its offsets'
 * bits moved onto them, then counted (popcount) or listed. */
uint64_t fx_primeset_tuples(const FxPrimeSet *s, uint64_t lo, uint64_t hi, const uint64_t *c,
                            size_t n, FxPrimes *list);

/* Frees the bitmap of s and makes it empty. NULL-safe. */
void fx_primeset_free(FxPrimeSet *s);

#endif
