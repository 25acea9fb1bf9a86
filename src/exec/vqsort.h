/*
 * vqsort.h: Highway's vectorised quicksort (hwy::Sorter, libhwy-contrib)
 * behind C functions, for the FX_SORTK_VQSORT kernel (sortk.h). Highway
 * picks the widest instruction set the CPU has when first called (SSE4,
 * AVX2, AVX-512): nothing here is compiled for one CPU.
 *
 * Highway lives in a plugin, libflux_vqsort.so (vqsort_plugin.cc, the only C++
 * of Flux), opened by vqsort.c at the first sort that asks for it: loading
 * libhwy measures its timer's resolution, half of a `flux run`'s start-up,
 * which a run that never sorts should not pay. Without the plugin both
 * functions return false and the caller sorts another way, as exactly.
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

#define FX_VQSORT_PLUGIN_NAME "libflux_vqsort.so"
#define FX_VQSORT_PLUGIN_SYMBOL "fx_vqsort_plugin"
#define FX_VQSORT_PLUGIN_VERSION 1

/* The plugin's table (vqsort_plugin.cc): the functions below, as Highway runs them. */
typedef struct FxVqsortPlugin {
    int version; /* FX_VQSORT_PLUGIN_VERSION */
    void (*sort_i64)(int64_t *a, size_t n, bool descending);
    bool (*sort_pairs)(FxSortPair *p, size_t n, bool descending);
} FxVqsortPlugin;
typedef const FxVqsortPlugin *(*FxVqsortPluginFn)(void);

/* Sorts a[0..n) ascending or descending; false, a[] untouched, when the
 * plugin is missing. */
bool fx_vqsort_i64(int64_t *a, size_t n, bool descending);

/* Sorts p[0..n) by key, stably (sortk.h: fx_sortk_by_key), when p is
 * 16-byte aligned and the indices rise strictly through p; otherwise
 * (or without the plugin) returns false with p[] untouched, and the
 * caller sorts another way. */
bool fx_vqsort_pairs(FxSortPair *p, size_t n, bool descending);

/* Is the plugin there (opening it when first asked)? */
bool fx_vqsort_available(void);

#ifdef __cplusplus
}
#endif

#endif
