/*
 * validate.h: run-time validation: the checks an output can be given
 * against its intent's constraints, what each costs, and each check run.
 *
 * An optimized version is installed only with a proof; validation is the
 * second line. The checks, one or two a constraint:
 *   - `result is sorted`: adjacent pairs, by the element or a field (a pass
 *     in C), or by a function or expression (evaluated once per element);
 *   - `result is a permutation of P`: the multiset hash of the output
 *     equals that of the argument P (order-independent, exact counts);
 *   - a comprehension: the output holds no element twice (a pass in C),
 *     and sampled elements pass its condition and its kind predicate,
 *     evaluated again;
 *   - postconditions: evaluated on the output;
 *   - and for any intent whose result holds no Float: the output equals
 *     what the naive v1 computes, run again.
 * A pass in C has an estimated cost in nanoseconds, from the output's size;
 * an evaluated check runs in a runtime under a step budget. Which checks
 * run on a call is the caller's policy (src/api/check_output.c,
 * docs/optimizer.md); a failure names the constraint and the values.
 */
#ifndef FX_VALIDATE_H
#define FX_VALIDATE_H

#include "exec/interp.h"
#include "lang/resolved.h"

typedef enum FxCheckKind {
    FX_CHECK_SORTED,      /* by the element or a field: a pass in C */
    FX_CHECK_SORTED_KEY,  /* by a function or expression: evaluated per element */
    FX_CHECK_PERMUTATION, /* multiset hashes of the output and the argument: a pass in C */
    FX_CHECK_DISTINCT,    /* a comprehension's output holds no element twice: a pass in C */
    FX_CHECK_MEMBERS,     /* sampled elements pass the comprehension's tests, evaluated */
    FX_CHECK_POST,        /* a postcondition, evaluated */
    FX_CHECK_NAIVE,       /* the output equals v1's result, v1 run again */
} FxCheckKind;

typedef struct FxCheck {
    FxCheckKind kind;
    const FxConstraint *k; /* the constraint checked; NULL for NAIVE */
    double cost_ns;        /* a pass in C: estimated on this output; 0 when evaluated */
} FxCheck;

/* Does the check run Flux code (and so need a runtime and a step budget)? */
bool fx_check_evaluates(const FxCheck *c);

/* The checks the constraints of `in` allow on `output`, in the order of
 * the constraints, NAIVE last; returns how many (caller frees *out). */
size_t fx_validate_plan(const FxIntent *in, FxValue output, FxCheck **out);

/* What a check checks, as a person reads it: "`result is sorted
 * ascending`", "no repeats in `result contains ...`", "v1's result". Caller
 * frees. */
char *fx_check_name(const FxCheck *c);

/* Runs check c on `output` of `in` for `args` (borrowed). NULL when it
 * holds; otherwise why not, and *stopped says whether the check could not
 * finish (the step budget, or a run-time error of the check itself) rather
 * than found the output wrong. An evaluated check runs in rt (for NAIVE, a
 * runtime running v1) within *steps_left steps, which it takes off; a pass
 * in C needs neither. samples bounds how many elements MEMBERS tests (0:
 * all). Caller frees. */
char *fx_validate_check(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                        const FxValue *args, FxValue output, const FxCheck *c, size_t samples,
                        uint64_t *steps_left, bool *stopped);

/* Is `out` sorted as the order constraint k of `in` says, by its key? NULL
 * when it is, else what is out of order (or the error that stopped a key);
 * caller frees. explain uses it too, so that both say the same; rt runs a
 * key, unbounded. */
char *fx_validate_sorted(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                         const FxValue *args, FxValue out, const FxConstraint *k);

#endif
