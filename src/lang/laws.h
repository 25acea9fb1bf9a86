/*
 * laws.h: what the prover may assume about the numeric library's exact
 * integer functions (docs/prover.md, "Library functions"). `isqrt` and
 * `log2` are uninterpreted functions to the solver, never arithmetic it
 * would have to trust an encoding of; each application brings the laws
 * that follow from the function's definition (docs/language.md §5) and
 * that the solver can use without exponentials:
 *
 *   isqrt(n) = r, n >= 0:  r >= 0, r*r <= n < (r+1)*(r+1)
 *   log2(n) = k,  n >= 1:  0 <= k < n
 *   both monotone:         a <= b implies f(a) <= f(b)
 *
 * The Float functions (sqrt, exp, log, floor, ...) have no laws here: the
 * encoding has no Float values at all, so an obligation that reads one is
 * not decided (never proved by omission).
 */
#ifndef FX_LAWS_H
#define FX_LAWS_H

#include "proof/smt.h"

#define FX_LAWS_MAX_APPS 16

/* The applications seen in one encoding, and their laws so far. */
typedef struct FxLaws {
    struct {
        const char *fn;
        FxSmtTerm arg, val;
    } apps[FX_LAWS_MAX_APPS];
    size_t n_apps;
    FxSmtTerm all; /* the conjunction of the laws; {0} while there are none */
} FxLaws;

/* Is fn an integer library function with laws (isqrt, log2)? */
bool fx_laws_known(const char *fn);
/* Where fn(arg) has a value (isqrt: arg >= 0; log2: arg >= 1). */
FxSmtTerm fx_laws_domain(FxSmt *smt, const char *fn, FxSmtTerm arg);
/* fn(arg), an uninterpreted application; its laws (and monotonicity
 * against the earlier applications of fn, the first FX_LAWS_MAX_APPS:
 * fewer laws only proves less) join L->all. */
FxSmtTerm fx_laws_apply(FxLaws *L, FxSmt *smt, const char *fn, FxSmtTerm arg);

#endif
