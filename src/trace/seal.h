/*
 * seal.h: what binds a proof to the version it proved, so that a store
 * edited behind flux's back is caught when its versions are read.
 *
 * When a version is installed on a proof, the proof row keeps its seal:
 * four hashes of 16 hex digits (base/hash.h's FNV-1a step, over words
 * of eight bytes): the graph it was
 * proved from (the parent version's graph JSON), the graph it proved (the
 * version's: a recurrence's coefficients and a hot-input table are in it),
 * the certificate (the version's rewrite and evidence with the proof's
 * obligation text and result), and the chain: the parent's chain, the
 * version's label and the three others, so that each seal covers every
 * version before it in the lineage. The root, v1, the naive graph read
 * from the source, needs no proof; its chain is its label and graph's.
 *
 * A version verifies when it is the root, or when its parent verifies, it
 * has a proof, the proof's result is "proved", and the seal computed from
 * the rows as they are now is the one its proof keeps. The hashes are not
 * keyed: they catch an edit made without flux (sqlite3, another tool, a
 * botched copy), not a forger who recomputes them; re-checking the proof
 * (`flux proofs --verify`) is for that.
 */
#ifndef FX_SEAL_H
#define FX_SEAL_H

#include "base/base.h"

/* One version of a lineage, with the columns of its proof row. */
typedef struct FxSealRow {
    int64_t id, parent, proof_id; /* 0: none */
    const char *label, *graph_json, *rewrite, *evidence;
    bool rolled_back;
    bool proof_found; /* proof_id names a row of proofs */
    const char *obligation, *result;                  /* the proof's */
    const char *before, *after, *certificate, *chain; /* its seal as kept (NULL: none) */
} FxSealRow;

typedef struct FxSeal {
    char before[17], after[17], certificate[17], chain[17];
} FxSeal;

/* The seals of rows[0..n) (oldest first, a parent before its children) as
 * the rows are now, into seals[0..n). Only a row with a proof has one to
 * keep; the root's chain is its label and graph's, and a row whose parent
 * is not among the rows chains from nothing. */
void fx_seal_lineage(const FxSealRow *rows, size_t n, FxSeal *seals);

/* Judges rows[0..n): why[i] NULL when row i verifies, else the reason in
 * words ("its graph does not match proof #3"), malloc'd. */
void fx_seal_judge(const FxSealRow *rows, size_t n, char **why);

#endif
