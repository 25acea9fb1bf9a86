/*
 * proposer_store.h: where the learned proposer's state (opt/proposer.h)
 * lives: one row of the store's learned table, kind "proposer", key
 * "linucb-v1", hardware "" (the hardware is in the features, so one state
 * serves every machine a store is used on, and carries across intents and
 * programs). Private to src/api.
 */
#ifndef FX_API_PROPOSER_STORE_H
#define FX_API_PROPOSER_STORE_H

#include "api_int.h"
#include "opt/proposer.h"

#define FX_PROPOSER_KIND "proposer"
#define FX_PROPOSER_KEY "linucb-v1"

/* The state kept in the store, or a fresh one (no evidence: the table's
 * order) when there is none. A row that does not parse, or one of another
 * dimension, is ignored with a warning on stderr. */
void fx_api_proposer_load(FluxStore *fs, FxProposer *out);
/* Keeps p in the store, replacing the row. */
FxStatus fx_api_proposer_save(FluxStore *fs, const FxProposer *p) FX_MUST_CHECK;

/* The hot node ops of version (graph g) over its runs recorded runs: the
 * store's per-node counters by op. */
void fx_api_proposer_hot(FluxStore *fs, int64_t version, const FxGraph *g, size_t runs,
                         FxHotOps *out);

#endif
