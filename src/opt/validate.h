/*
 * validate.h: runtime validation: the constraints that are cheap to check
 * on an output, checked on it.
 *
 * An optimized version is installed only with a proof; validation is the
 * second line: on a sample of calls the output is checked against the
 * intent's constraints that cost little to test on a value:
 *   - `result is sorted`: adjacent pairs, by the key (a field, or a
 *     function or expression evaluated once per element);
 *   - `result is a permutation of P`: the multiset hash of the output
 *     equals that of the argument P (order-independent, exact counts);
 *   - a comprehension: sampled elements pass its condition and its kind
 *     predicate, evaluated again; and the output holds no element twice;
 *   - postconditions: evaluated on the output.
 * A failure names the constraint and the values; the optimizer rolls the
 * version back and records it.
 */
#ifndef FX_VALIDATE_H
#define FX_VALIDATE_H

#include "exec/interp.h"
#include "lang/resolved.h"

typedef struct FxValidation {
    bool ok;
    size_t checked;  /* constraints checked */
    char *violation; /* which one failed and how, or NULL; caller frees */
} FxValidation;

/* Checks `output` of intent `in` for `args` (borrowed). samples bounds how
 * many elements of a comprehension's output are checked (0: all). */
FxValidation fx_validate_output(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                                const FxValue *args, FxValue output, size_t samples);

/* Is `out` sorted as the order constraint k of `in` says, by its key? NULL
 * when it is, else what is out of order (or the error that stopped a key);
 * caller frees. explain uses it too, so that both say the same. */
char *fx_validate_sorted(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                         const FxValue *args, FxValue out, const FxConstraint *k);

#endif
