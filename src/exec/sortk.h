/*
 * sortk.h: exact sorting kernels for arrays of int64, between which the
 * optimizer chooses per call from the input's features (fx_sortk_features).
 *
 * The kernels, and what each costs on n elements:
 *
 *   FX_SORTK_INSERTION  up to 32 elements, straight insertion sort. Above
 *                       that, batch insertion: one pass lifts out the
 *                       elements that break the order (two per descent),
 *                       sorts them apart and merges them back in:
 *                       O(n + d log d) for d descents. When more than n/8
 *                       are lifted it puts them back and runs PDQ, so it
 *                       is never worse than O(n log n). For small or nearly
 *                       sorted input.
 *   FX_SORTK_PDQ        pattern-defeating quicksort, in place: O(n log n)
 *                       worst case, O(n) on sorted, reversed and
 *                       all-equal input. The general-purpose kernel.
 *   FX_SORTK_RADIX      radix sort on the keys minus their minimum, 8 bits
 *                       a digit, digits that every key shares skipped:
 *                       O(n) a digit, at most 8, one when max - min < 256.
 *                       Up to 512 KiB of data it is LSD; a larger array is
 *                       first split on its top digit in one streamed pass,
 *                       then each bucket sorted in cache. A counting sort
 *                       when the range is small beside n. Needs an
 *                       n-element scratch buffer. For large input, above
 *                       all when the key range is narrow.
 *   FX_SORTK_PARALLEL   RADIX on `threads` tasks of the CPU device
 *                       (hw/device.h: the thread pool) when n >=
 *                       FX_SORTK_PARALLEL_MIN: the threads split their
 *                       shares of the array on the top digit, then sort
 *                       runs of buckets each (one bucket holding most keys
 *                       is sorted by one thread). Below that, RADIX on the
 *                       calling thread.
 *   FX_SORTK_VQSORT     Highway's vectorised quicksort (vqsort.h), in
 *                       place: O(n log n), a pass or two of vector
 *                       sorting networks and partitions; the instruction
 *                       set (SSE4, AVX2, AVX-512) chosen at run time.
 *                       Not stable, which int64 keys cannot show; pairs
 *                       are sorted as 128-bit (key, index) numbers.
 *
 * Descending order sorts ascending on ~x, which reverses the order of
 * int64 exactly; INSERTION and PDQ pay two linear passes for it, RADIX and
 * PARALLEL nothing; VQSORT sorts descending itself. INSERTION and PDQ
 * first reverse an input that is sorted the other way (for pairs, with
 * strictly falling keys), in O(n).
 *
 * The kernels keep no state (reentrant) and sort in the caller's array;
 * VQSORT holds a buffer of a few KiB a thread (its hwy::Sorter), made on
 * its first call on that thread.
 * Memory comes from malloc, never fx_xmalloc: a kernel that cannot get its
 * scratch returns false and leaves the array as it was.
 */
#ifndef FX_SORTK_H
#define FX_SORTK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ORDER FX_SORTK: keep in sync with kind_names[] in sortk.c */
typedef enum {
    FX_SORTK_INSERTION,
    FX_SORTK_PDQ,
    FX_SORTK_RADIX,
    FX_SORTK_PARALLEL,
    FX_SORTK_VQSORT,
    FX_SORTK__COUNT
} FxSortKind;

/* FX_SORTK_PARALLEL sorts on one thread below this many elements. */
#define FX_SORTK_PARALLEL_MIN ((size_t)1 << 20)

/* fx_sortk_features is exact up to this many elements and samples above. */
#define FX_SORTK_FEATURES_EXACT_MAX ((size_t)1 << 20)

/* What the cost model sees of an input. */
typedef struct FxSortFeatures {
    size_t n;
    size_t descents;  /* pairs a[i] > a[i+1]: 0 when sorted, n-1 when strictly decreasing */
    int64_t min, max; /* the key range; both 0 when n = 0 */
    bool sampled;     /* descents, min and max estimated from a sample */
} FxSortFeatures;

/* A key and its payload, for sorting by key: the interpreter computes the
 * keys of a list's values and reads the permutation back from `index`. */
typedef struct FxSortPair {
    int64_t key;
    uint64_t index;
} FxSortPair;

/* Sorts a[0..n) ascending, or descending, with the kernel k; `threads`
 * (0 counts as 1) is read by FX_SORTK_PARALLEL only. Returns false only
 * when scratch memory could not be had (RADIX and PARALLEL), with a[]
 * untouched. */
bool fx_sortk(FxSortKind k, int64_t *a, size_t n, bool descending, unsigned threads);

/* Sorts p[0..n) by key, stably: pairs with equal keys keep their input
 * order, in both directions (a descending sort is not a reversed ascending
 * one). What each kind does with pairs:
 *   INSERTION  insertion sort up to 32 pairs, a merge sort above;
 *   PDQ        the merge sort (pdq is not stable): runs of 32 sorted by
 *              insertion, then merged bottom-up, skipping merges of runs
 *              already in order, so sorted input costs O(n);
 *   RADIX      LSD radix sort on the key, as for int64;
 *   PARALLEL   the parallel LSD radix sort, as for int64;
 *   VQSORT     vqsort on (key, index) as 128-bit numbers, which is the
 *              stable order when the indices rise through p[] (as the
 *              interpreter's, 0..n-1, do) and p is 16-byte aligned (as
 *              malloc's is); otherwise PDQ's merge sort.
 * Each but VQSORT's 128-bit path needs an n-pair scratch buffer above 32
 * pairs; returns false, p[] untouched, when it cannot be had. */
bool fx_sortk_by_key(FxSortKind k, FxSortPair *p, size_t n, bool descending, unsigned threads);

/* FX_SORTK_PARALLEL with the cutoff given: on one thread when n < min_n.
 * Tests pass min_n = 0 to force the threaded path on small inputs. */
bool fx_sortk_parallel(int64_t *a, size_t n, bool descending, unsigned threads, size_t min_n);
bool fx_sortk_parallel_by_key(FxSortPair *p, size_t n, bool descending, unsigned threads,
                              size_t min_n);

/* PDQ allowed `bad_allowed` unbalanced partitions on any path before it
 * falls back to heapsort (fx_sortk gives it log2 n). For tests: 0 sends
 * every call of at least 24 elements straight to heapsort. */
void fx_sortk_pdq_budget(int64_t *a, size_t n, unsigned bad_allowed);

/* Fills out from one pass over a[0..n) when n <= FX_SORTK_FEATURES_EXACT_MAX,
 * from 64 evenly spaced runs of 1024 elements otherwise (out->sampled):
 * descents then scaled to n - 1 pairs, min and max those of the sample,
 * which includes a[0] and a[n-1]. */
void fx_sortk_features(const int64_t *a, size_t n, FxSortFeatures *out);

/* "insertion", "pdq", "radix", "parallel", "vqsort"; "?" for anything else. */
const char *fx_sortk_name(FxSortKind k);

#endif
