/*
 * unfold.h: the proof of a rewrite that moves computation around without
 * changing it: two versions of an intent are the same function when, once
 * unfolded into terms, they are the same term, node for node, up to the
 * names of bound variables, by three laws:
 *
 *   - inline expansion (beta): a call of a pure intent that does not
 *     recurse is its body with the parameters read as the arguments. Every
 *     intent is pure, so the call and the body have the same value. The
 *     call evaluates each argument before the body, which may read one
 *     only in a branch, so an argument that may fail is bound by a let
 *     first (`let p = a in body`, evaluated where the call was), and only
 *     an argument that cannot fail is read in place of its parameter;
 *   - fold fusion: a fold over the list a comprehension builds,
 *     `F(g(x) for x in [f(y) for y in D])`, is the fold over D of
 *     `let x = f(y) in g(x)` (Coq: Fusion.fold_map_fusion, proofs/Fusion.v);
 *     the let computes f(y) at each step as the list did, so a failure of f
 *     fails both; not for `all`/`any`, which stop early;
 *   - a let whose value cannot fail is its body with the variable read as
 *     the value (loop-invariant code motion hoists such lets);
 *   - a field of a record built in place (`{x: a, y: b}.x`, `(r with
 *     {x: a}).y`) is the value given it, when the other fields' values
 *     cannot fail (the record evaluated them all): a record that does not
 *     escape is never built.
 *
 * Floats, lists, records and strings take part as they are: no arithmetic
 * is reordered, so the values are bit for bit the same, which no solver
 * query is needed for. The comparison has a budget of steps (a graph whose
 * shared nodes unfold to an exponential tree is not proved this way).
 */
#ifndef FX_UNFOLD_H
#define FX_UNFOLD_H

#include "base/buf.h"
#include "graph/graph.h"
#include "proof/prove.h"

/* Do cur and cand (two versions of one intent, the same parameters)
 * unfold to the same term by the laws above, intents other than their own
 * looked up by name? On true, laws gets the laws used, in words (the
 * intents inlined, the folds fused); on false, why says why not. */
bool fx_unfold_same(const FxGraph *cur, const FxGraph *cand, FxGraphLookup lookup, void *ctx,
                    FxBuf *laws, FxBuf *why);

/* May the call node `call` of g be expanded in place by the law of inline
 * expansion: its callee another intent, its constraints alone (no kernel,
 * data or choice), not recursive, of the parameter types the arguments
 * have? The callee's graph, or NULL with why. The rule
 * (opt/rule_inline.c) and the proof use it; an argument is bound by a let
 * when fx_unfold_total says it may fail. */
const FxGraph *fx_unfold_inlinable(const FxGraph *g, FxNodeId call, FxGraphLookup lookup,
                                   void *ctx, FxBuf *why);

/* Can evaluating the subgraph at id of g not fail (constants, variables,
 * arithmetic that cannot fail, comparisons, records, fields, `len`)? */
bool fx_unfold_total(const FxGraph *g, FxNodeId id);

/* Is the fold at id the unfused shape, a fold (not all/any) with no
 * filter over a comprehension with no filter, both without kernels, read
 * in g at `inner`? */
bool fx_unfold_fusable(const FxGraph *g, FxNodeId id, FxNodeId *inner);

/* The index of `field` among the inputs of the record node at `record`
 * when the law of projection applies there (the other fields' values
 * cannot fail), else -1. */
int fx_unfold_projection(const FxGraph *g, FxNodeId record, const char *field);

#endif
