/*
 * vqsort.h: Highway's vectorised quicksort (hwy::Sorter, libhwy-contrib)
 * behind C functions, for the FX_SORTK_VQSORT kernel (sortk.h). Highway
 * picks the widest instruction set the CPU has when first called (SSE4,
 * AVX2, AVX-512): nothing here is compiled for one CPU.
 *
 * vqsort is not stable; the functions below are exact all the same:
 * int64 keys carry nothing that equal keys could swap, and pairs are
 * sorted as 128-bit (key, index) numbers, whose order is the stable one
 * when the indices rise through the input.
 */
#ifndef FX_VQSORT_H
#define FX_VQSORT_H

#include "exec/sortk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts a[0..n) ascending or descending. */
void fx_vqsort_i64(int64_t *a, size_t n, bool descending);

/* Sorts p[0..n) by key, stably (sortk.h: fx_sortk_by_key), when p is
 * 16-byte aligned and the indices rise strictly through p; otherwise
 * returns false with p[] untouched, and the caller sorts another way. */
bool fx_vqsort_pairs(FxSortPair *p, size_t n, bool descending);

#ifdef __cplusplus
}
#endif

#endif
