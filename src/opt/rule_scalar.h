/*
 * rule_scalar.h: records that do not escape kept as scalars
 * (rule_scalar.c), as a pass for the rules that bring records and their
 * readers together (inline expansion).
 */
#ifndef FX_RULE_SCALAR_H
#define FX_RULE_SCALAR_H

#include "graph/graph.h"

/* g with every field read of a record built in g (`{x: a, y: b}.x`,
 * `(r with {x: a}).y`) read as the value given that field, where the other
 * fields' values cannot fail; the records nothing else reads dropped.
 * Labelled `label`, frozen (caller frees), or NULL when there is none. */
FxGraph *fx_rule_project_pass(const FxGraph *g, const char *label);

#endif
