/*
 * prove.h: the trusted checker: is a candidate graph the same function as
 * the version it would replace?
 *
 * The checker derives its obligations itself from the two graphs, never
 * from a rewriter's claims, and discharges each with Z3 (smt.h):
 *   - validity: for all arguments (Natural ones >= 0) where both give a
 *     value, old(x) = new(x) (both failing is agreement: a division by
 *     zero has no value to compare);
 *   - definedness: new fails exactly where old fails.
 *     In both, recursive calls of the intent itself are one uninterpreted
 *     function in both graphs (the regression-verification rule of
 *     Alive2's and Strichman's tools): the bodies must agree whatever the
 *     recursion returns, which, with the next obligation, proves the
 *     functions equal by induction on the call tree;
 *   - termination: every recursive call of the new graph decreases one
 *     parameter towards a bound (a Natural, or the absolute value of an
 *     Int), so the induction is well founded.
 * A candidate whose nodes are the current version's, node for node (a
 * kernel or a table wrapped around them), is the same function by
 * identity: one obligation, no solver.
 * Each obligation is kept as SMT-LIB text (the query whose unsatisfiability
 * proves it), hashed, and its verdict cached by that hash.
 *
 * Verdicts: PROVED when every obligation is; REFUTED when one is false with
 * a counterexample in the arguments that involves no uninterpreted call;
 * UNKNOWN otherwise (timeout, values the solver does not take). Only
 * PROVED may install a rewrite.
 *
 * Each obligation of fx_prove_same_function runs in a thread of its own,
 * on copies of the graphs it reads, with a hard limit of twice the timeout
 * plus a second: past it the caller stops waiting for a solver that ignores
 * its interrupt (the thread ends on its own and frees its copies), and the
 * verdict is UNKNOWN. Nothing forks: the caller may run threads or hold
 * SQLite. Thread-safe: each obligation has its own Z3 context.
 */
#ifndef FX_PROVE_H
#define FX_PROVE_H

#include "graph/graph.h"

typedef enum { FX_PROOF_PROVED, FX_PROOF_REFUTED, FX_PROOF_UNKNOWN } FxProofVerdict;

typedef struct FxObligation {
    char *kind;           /* "validity", "termination" */
    char *what;           /* in words */
    char *smtlib;         /* the query: unsat proves the obligation */
    char hash[17];
    FxProofVerdict verdict;
    char *counterexample; /* "n = 3: v1 gives 2, the candidate 5", or NULL */
    /* A same-function counterexample's arguments, in the parameters'
     * order, as decimal text or true/false (NULL otherwise): the caller runs
     * both versions on them before showing it (src/api/reproduce.c), since
     * the solver's model is a claim about the encoding, not about runs. */
    char **witness;
    uint32_t n_witness;
    char *reason;         /* why unknown, or NULL */
    double ms;
    bool cached;
} FxObligation;

typedef struct FxProof {
    FxProofVerdict verdict;
    FX_VEC(FxObligation) obligations;
} FxProof;

/* Where verdicts are remembered, by the hash of the obligation's text. */
typedef struct FxProofCache FxProofCache;
FxProofCache *fx_proof_cache_new(void);
void fx_proof_cache_free(FxProofCache *c);

/* The graph of another intent a graph calls, or NULL. */
typedef const FxGraph *(*FxGraphLookup)(void *ctx, const char *intent);

/* Checks that `candidate` computes the same function as `current` (same
 * intent, same parameters). cache may be NULL. Returns a new proof; caller
 * frees with fx_proof_free(). */
FxProof *fx_prove_same_function(const FxGraph *current, const FxGraph *candidate,
                                FxGraphLookup lookup, void *ctx, FxProofCache *cache,
                                unsigned timeout_ms);
void fx_proof_free(FxProof *p);
/* Frees o's witness, leaving none. */
void fx_obligation_drop_witness(FxObligation *o);
/* Sets p's verdict from its obligations' (after a caller changed one):
 * refuted when one is, else unknown when one is, else proved. */
void fx_proof_tally(FxProof *p);

/* A lemma instance: the certificate says g (one Natural parameter) is the
 * linear recurrence f(n) = c_1 f(n-1) + ... + c_k f(n-k) for n >= k, with
 * f(i) = initial[i] for i < k. The checker proves the two side conditions
 * from g itself (the base cases, and the recurrence for every n >= k
 * whatever the recursive calls return) and then cites the Coq lemmas
 * LinRec.companion_power (proofs/LinRec.v), which makes a loop over the
 * state vector compute f, and, for the power variant,
 * LinRecPoly.fiduccia_correct (proofs/LinRecPoly.v), which makes the
 * companion matrix's power, computed in the algebra it generates, compute
 * f. A wrong coefficient or base case is refuted. */
typedef struct FxLinRec {
    uint32_t order;
    const int64_t *coeffs;       /* c_1 .. c_k */
    const char *const *initial;  /* f(0) .. f(k-1), decimal */
    uint32_t variants;           /* FX_VARIANT_* the kernel runs (0: the loop) */
} FxLinRec;
FxProof *fx_prove_linear_recurrence(const FxGraph *g, const FxLinRec *cert, FxGraphLookup lookup,
                                    void *ctx, unsigned timeout_ms);

/* A lemma instance: the sieve. The certificate says the result of g is
 * the comprehension of the primes of a range and that the sieve replacing
 * it crosses out the multiples of every d with d*d <= x (strict: d*d < x).
 * Obligations: the template (g builds its result as a fold collecting the
 * elements of a range whose filter calls a predicate with exactly the
 * shape of `prime_shape`, the prelude's prime); the crossing rule covers
 * the smallest factor of every composite (refuted for the strict rule:
 * 4 = 2 * 2 is never crossed out); and the citation of Sieve.sieve_correct,
 * composite_has_small_factor and crossing_starts_at_square. */
typedef struct FxSieveCert {
    bool strict_bound;
} FxSieveCert;
FxProof *fx_prove_sieve_instance(const FxGraph *g, const FxGraph *prime_shape,
                                 const FxSieveCert *cert, FxGraphLookup lookup, void *ctx,
                                 unsigned timeout_ms);

/* The sieve rewrite of the fold at node `fold` of cur: cand must be cur
 * node for node except that fold, which iterates over the primes of its
 * range (FX_KERNEL_SIEVE) and keeps only the conditions other than the
 * predicate (the checker derives that candidate itself). Obligations: the
 * template (a fold over a range whose filter calls, on the fold's
 * variable, a predicate with exactly the shape of prime_shape, as a
 * conjunct); the candidate is that rewrite; the other conditions never
 * fail (so skipping them on non-primes changes nothing); the crossing
 * rule; and the citation of the Sieve lemmas. */
/* Does a sieve rewrite mark node id of g "sieved" (num = 1): is it a
 * one-argument call of a predicate with the shape of prime_shape, inside
 * the kept conditions `rest` (prime(p + 2) of twin primes)? The runtime
 * answers such a call from a sieve of a window around its argument. */
bool fx_prove_sieved_call(const FxGraph *g, FxNodeId rest, FxNodeId id,
                          const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx);

/* The conditions a sieve rewrite keeps: the filter of the fold at `fold`
 * without the primality conjunct `conj`, and without the conjuncts that
 * hold (and cannot fail) for every element of the fold's range, each such
 * implication proved by Z3 (`2 <= p and p <= n` over 2..n+1 goes). {0}
 * when nothing remains. Deterministic: the rule builds its candidate with
 * it and the checker derives the expected candidate with it. */
FxNodeId fx_prove_sieve_rest(const FxGraph *g, FxNodeId fold, FxNodeId conj,
                             FxGraphLookup lookup, void *ctx, unsigned timeout_ms);

FxProof *fx_prove_sieve_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId fold,
                                const FxGraph *prime_shape, FxGraphLookup lookup, void *ctx,
                                unsigned timeout_ms);

/* The matrix-kernel rewrite of the map at `map` of cur: cand must be cur
 * node for node except that map, on the kernel (FX_KERNEL_GEMM). Obligations:
 * the template (fx_graph_matmul_shape); the candidate; the order of the
 * sums: for Int elements the sum's reassociation (any grouping, any order:
 * fx_prove_fold_reassociation), for Float ones the kernel's contract to
 * add k = 0 .. K-1 in order from 0, each product rounded, as the
 * definition does (src/exec/matmul.h, FX_MATMUL_BLOCKED_EXACT, tested
 * bit-identical). */
FxProof *fx_prove_gemm_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId map,
                               FxProofCache *cache, unsigned timeout_ms);

/* The query-kernel rewrite of the fold at `fold` of cur: cand must be cur
 * node for node except that fold, on the kernel (FX_KERNEL_INDEX).
 * Obligations: the template (fx_graph_selection_shape: the filter compares
 * a field of the element with a value that does not depend on it); the
 * candidate; the order (Int, Natural and String are totally ordered, so a
 * sorted index and a binary search keep exactly the elements the
 * comparison keeps, and the kernel returns them in the collection's
 * order). */
FxProof *fx_prove_index_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId fold);

/* The rewrite of a kernel's rule (kernel.h: FxKernel.rule) at node `at`:
 * the kernel's own proof where it has one (gemm, index); otherwise the
 * template (the node has the kernel's shape), the candidate (cur with that
 * node on the kernel, on what its shape binds, nothing else changed) and
 * the kernel's contract, cited. */
FxProof *fx_prove_kernel_rewrite(const FxGraph *cur, const FxGraph *cand, FxNodeId at,
                                 FxKernelId k, FxProofCache *cache, unsigned timeout_ms);

/* A lemma instance: another sort. The candidate must sort the same list
 * the same way (the same list, key and direction); the elements must have
 * a total order (Float has NaN: refuted); a sort by key must be stable.
 * Then SortUnique.sort_correct_any makes any two such sorts equal. */
FxProof *fx_prove_sort_instance(const FxGraph *current, const FxGraph *candidate, bool stable);

/* An effect fact: may a reduction combine partial results with the
 * two-parameter intent `op` (a user's operator) in any grouping and order?
 * Obligations: op(op(a, b), c) = op(a, op(b, c)) and op(a, b) = op(b, a),
 * each refuted with the values that break it. */
FxProof *fx_prove_operator_laws(const FxGraph *op, FxGraphLookup lookup, void *ctx,
                                unsigned timeout_ms);

/* An effect fact: may the fold at node `fold` of g be split into chunks
 * combined in any grouping (a parallel reduction)? Its operator must be
 * associative on the fold's type, and commutative when chunks may finish in
 * any order. Decided by Z3 on integers and booleans; on Float a sum or a
 * product is refuted by a concrete triple (floating-point addition is not
 * associative), so a float reassociation is never presented as exact. */
FxProof *fx_prove_fold_reassociation(const FxGraph *g, FxNodeId fold, FxProofCache *cache,
                                     unsigned timeout_ms);

const char *fx_proof_verdict_name(FxProofVerdict v);

#endif
