/*
 * choose.h: which variant of a node kernel (graph/kernel.h) runs a call,
 * from the call's input: the policy the interpreter (vm.c) asks, each
 * choice with the words that say why (the record's data choice, explain).
 */
#ifndef FX_CHOOSE_H
#define FX_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sieve.h"
#include "sortcost.h"
#include "sortk.h"

/* The sort kernel the cost model predicts fastest for an input with these
 * features, on `threads` threads, and why: its prediction against the
 * others'. */
FxSortKind fx_choose_sort(const FxSortCosts *costs, const FxSortFeatures *f, unsigned threads,
                          char *why, size_t len);
/* A sort kernel's name as a person reads it: above 32 elements the
 * insertion kernel is batch insertion. */
const char *fx_sort_kernel_name(FxSortKind k, size_t n);

/* The sieve for [lo, hi) on `threads` threads (the device decides how
 * many: fx_device_threads), and why. */
FxSieveKind fx_choose_sieve(uint64_t lo, uint64_t hi, unsigned threads, char *why, size_t len);

/* May a product of doubles (entries a[0..na), b[0..nb), K = k) reorder its
 * sums under the intent's tolerance? *bound gets the reordering's rounding
 * bound, 2 gamma_K. */
bool fx_may_reassociate(double tolerance, const double *a, size_t na, const double *b, size_t nb,
                        size_t k, double *bound);
/* Why a declared tolerance did not allow reordering. */
const char *fx_tolerance_miss(double tolerance, double bound);

#endif
