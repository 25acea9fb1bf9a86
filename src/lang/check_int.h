/*
 * check_int.h: what check.c and check_smt.c share. Private to src/lang.
 */
#ifndef FX_CHECK_INT_H
#define FX_CHECK_INT_H

#include "check.h"
#include "types.h"

/* Built-in functions that are not intents: they take any element type. */
bool fx_check_is_builtin(const char *name);

/* Levenshtein distance, capped: for "did you mean" suggestions. */
size_t fx_check_edit_distance(const char *a, const char *b);

/* The defining equations of an intent (FX_CON_EQUATION after the checker
 * classified them), in source order. */
size_t fx_check_equations(const FxIntent *in, FxConstraint ***out);

/* An intent whose whole definition is `result = EXPR` (no guard, no other
 * constructive constraint): its body, or NULL. */
const FxExpr *fx_check_simple_body(const FxIntent *in);

#endif
