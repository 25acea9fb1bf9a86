/*
 * rule_fuse.h: fold fusion (rule_fuse.c) as a pass, for the rules that
 * expose a fold over a comprehension (inline expansion).
 */
#ifndef FX_RULE_FUSE_H
#define FX_RULE_FUSE_H

#include "graph/graph.h"

/* g with every fold without a filter over a comprehension without one
 * that only it reads fused into one fold; labelled `label`, frozen
 * (caller frees), or NULL when there is none. */
FxGraph *fx_rule_fuse_pass(const FxGraph *g, const char *label);

#endif
