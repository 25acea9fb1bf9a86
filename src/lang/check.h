/*
 * check.h: the checker: names, types, constraint forms, contradictions and
 * properties. It reads the AST, fills in types and resolutions, records a
 * verdict on every property, and reports problems; it never runs anything.
 */
#ifndef FX_CHECK_H
#define FX_CHECK_H

#include "program.h"

/* Checks every module of prog. Reports to prog->diag. */
void fx_check_program(FxProgram *prog, const FxCheckOptions *options);

/* Contradictions between equations and the truth of properties, decided with
 * Z3 (check_smt.c). Called by fx_check_program for intents that type-check. */
void fx_check_intent_smt(FxProgram *prog, FxIntent *in, const FxCheckOptions *options);

/* Checks an expression in the scope of prog's root file (no parameters,
 * no `result`): the command line's EXPR. Reports to prog->diag; returns
 * false when it has errors. */
bool fx_check_expression(FxProgram *prog, FxExpr *e);

/* `len(result) = E` among an intent's postconditions: E, or NULL. The
 * length of an element-wise list. */
const FxExpr *fx_check_declared_length(const FxIntent *in);
/* The named constant `name` (pi, e) as a Float literal's text, or NULL. */
const char *fx_check_constant(const char *name);

#endif
