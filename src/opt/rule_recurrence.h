/*
 * rule_recurrence.h: recursion to iteration. An intent of one Natural
 * parameter whose every call of itself takes n - d (d a constant) and that
 * is a linear recurrence with constant coefficients becomes the
 * recurrence kernel: a loop over the last k values, and later the
 * companion matrix's power (graph.h: FX_VARIANT_*).
 *
 * The rule matches structure, then finds the certificate (order,
 * coefficients, initial values) from the function's own first values by
 * exact linear algebra; it claims nothing: the prover checks the
 * certificate against the equations for every n
 * (fx_prove_linear_recurrence), and a wrong guess is refuted there.
 */
#ifndef FX_RULE_RECURRENCE_H
#define FX_RULE_RECURRENCE_H

#include <gmp.h>

#include "graph/graph.h"

/* Does g have the shape: one Natural parameter, an integer result, no
 * recurrence kernel yet, and calls of itself, each with the argument
 * n - d for a constant d in 1..FX_RECURRENCE_MAX_ORDER? *offsets gets bit
 * d-1 for each d. On false, *why says which condition failed. */
bool fx_rule_recurrence_shape(const FxGraph *g, uint32_t *offsets, const char **why);

/* The function's value at n, computed by its current version; false when
 * it could not be computed (a budget). */
typedef bool (*FxValueAt)(void *ctx, uint64_t n, mpz_t out);

/* Finds the smallest order k (from the largest offset up to the maximum)
 * and integer coefficients, nonzero only at the offsets, such that the
 * first values satisfy f(n) = c_1 f(n-1) + ... + c_k f(n-k) for n >= k.
 * out->initial[i] are new strings (fx_rule_recurrence_clear frees them).
 * On false, *why says why (static text). */
bool fx_rule_recurrence_find(uint32_t offsets, FxValueAt at, void *ctx, FxRecurrence *out,
                             const char **why);
void fx_rule_recurrence_clear(FxRecurrence *r);

/* The candidate: g's nodes (kept as the definition) under the recurrence
 * kernel with certificate r and the given variants, labelled `label`.
 * Caller frees. */
FxGraph *fx_rule_recurrence_candidate(const FxGraph *g, const FxRecurrence *r, uint32_t variants,
                                      const char *label);

#endif
