/*
 * sort.h: the one general stable sort of Flux, a bottom-up merge sort of
 * elements of any size by a comparison that may find two elements without
 * an order. The tuned kernels over 64-bit keys are exec/sortk.h's; this
 * serves what they cannot (strings, big integers, keys of mixed kinds).
 */
#ifndef FX_SORT_H
#define FX_SORT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* What a comparison returns for two elements that have no order. */
#define FX_SORT_UNORDERED INT_MIN

/* < 0, 0 or > 0 as a sorts before, with or after b; or FX_SORT_UNORDERED. */
typedef int (*FxSortCompare)(void *ctx, const void *a, const void *b);

/* Sorts the n elements of `size` bytes at base stably (equal elements keep
 * their order). Returns false, with base still a permutation of what it
 * held, when cmp returned FX_SORT_UNORDERED. */
bool fx_merge_sort(void *base, size_t n, size_t size, FxSortCompare cmp, void *ctx);

#endif
