/*
 * rule_memo.h: the memoization rule: a pure function that recomputes the
 * same sub-results keeps them instead.
 */
#ifndef FX_RULE_MEMO_H
#define FX_RULE_MEMO_H

#include "graph/graph.h"

/* What a recorded run showed about an intent's calls of itself. */
typedef struct FxCallEvidence {
    uint64_t calls;    /* calls of the intent, at any depth */
    uint64_t distinct; /* distinct argument tuples among them */
} FxCallEvidence;

/* Does the rule apply to g, given the evidence? It matches structure only:
 * g calls itself, has no kernel yet, and takes values that can key a table;
 * every intent is pure, so no purity test is needed beyond that. The
 * evidence must show repeated work: at least twice as many calls as
 * distinct arguments, and at least 64 calls. On false, *why says which
 * condition failed (static text). */
bool fx_rule_memo_applies(const FxGraph *g, const FxCallEvidence *ev, const char **why);

/* The candidate: g under the memo kernel, labelled `label`. Caller frees. */
FxGraph *fx_rule_memo_candidate(const FxGraph *g, const char *label);

#endif
