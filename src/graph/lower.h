/*
 * lower.h: from checked constraints to version v1 of an intent's graph.
 *
 * The v1 graph is the naive reading of the constraints, correct by
 * construction: equations become a dispatch over their patterns and guards
 * (literal tier, guarded tier, otherwise) with recursion as calls; an
 * element-wise definition a map over the result's dimensions; a
 * comprehension a filter over its bounded range or its collection; sorted +
 * permutation a bubble sort; each postcondition a check on the built value.
 */
#ifndef FX_LOWER_H
#define FX_LOWER_H

#include "graph/graph.h"
#include "lang/resolved.h"

/* Returns the v1 graph of an intent that checked without errors; caller
 * frees with fx_graph_free(). */
FxGraph *fx_lower_intent(const FxProgram *prog, const FxIntent *in);

/* A graph of no parameters that computes a checked expression (the
 * command line's EXPR), named `name`. */
FxGraph *fx_lower_expr(const FxProgram *prog, const FxExpr *e, const char *name);

/* A graph computing an expression of an intent's constraints for checking
 * an output (a condition, or a sort key): its parameters are the intent's, then one more,
 * `extra` of type extra_type, which stands for `result` when extra is
 * "result" and for the local variable of that name otherwise (a
 * comprehension's variable); with extra NULL, the intent's parameters
 * alone. Caller frees. */
FxGraph *fx_lower_check(const FxProgram *prog, const FxIntent *in, const FxExpr *cond,
                        const char *extra, const FxType *extra_type);

#endif
