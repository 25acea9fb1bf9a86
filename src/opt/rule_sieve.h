/*
 * rule_sieve.h: a comprehension over a range filtered by primality becomes
 * a fold over the range's primes, which a sieve kernel lists (or counts)
 * per call; the other conditions of the filter are kept. Matches
 * structure: the predicate is recognised by its graph's shape (the
 * prelude's prime), not by its name.
 */
#ifndef FX_RULE_SIEVE_H
#define FX_RULE_SIEVE_H

#include "graph/graph.h"
#include "proof/prove.h"

/* The first fold of g over a range whose filter is, or has as a conjunct
 * of its top `and`, a call on the fold's variable of a one-parameter
 * predicate with exactly the shape of prime_shape (that call: *conj), and
 * that is not on the primes yet. On false, *why says why (static text). */
bool fx_rule_sieve_find(const FxGraph *g, const FxGraph *prime_shape, FxGraphLookup lookup,
                        void *ctx, FxNodeId *fold, FxNodeId *conj, const char **why);

/* The candidate: g with that fold over the primes of its range
 * (FX_KERNEL_SIEVE), its filter without the conjunct conj and without what the
 * range implies (fx_prove_sieve_rest), and the calls of prime-shaped
 * predicates left in it marked sieved (fx_prove_sieved_call). Caller
 * frees. */
FxGraph *fx_rule_sieve_candidate(const FxGraph *g, FxNodeId fold, FxNodeId conj,
                                 const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx,
                                 const char *label);

#endif
