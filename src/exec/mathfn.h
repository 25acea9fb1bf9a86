/*
 * mathfn.h: the numeric library of the language (docs/language.md §5,
 * "Numeric functions"): the functions of C's libm on Floats, called as
 * they are so that results are bit-identical to C's, and the exact ones
 * on integers (isqrt, log2; GMP for big integers).
 *
 * An integer given where a Float is taken is first converted as `float(n)`
 * converts it (the nearest double, ties to even). A Float result is
 * whatever libm returns, NaN and infinities included (a Float holds them);
 * a function whose result is an integer refuses an argument it has no
 * integer for, with a message (the VM adds the position).
 */
#ifndef FX_MATHFN_H
#define FX_MATHFN_H

#include "interp_int.h"

/* Is b one of the functions below? */
bool fx_math_is(FxBuiltin b);
/* Runs b (fx_math_is(b)) on its n arguments; false with a message. */
bool fx_math_call(FxBuiltin b, const FxValue *args, size_t n, FxValue *out, FxError *err);
/* min or max of two values: a Float if either is one (fmin/fmax, so a NaN
 * loses to a number), else the smaller (larger) of two integers or strings;
 * false when they have no order. */
bool fx_math_pick(FxValue a, FxValue b, bool larger, FxValue *out, FxError *err);

#endif
