/*
 * keep.c: materialised results between processes. The runtime's keeper
 * (exec/interp.h) over the store's learned table: kind "kept_values", key
 * "LINEAGE/VERSION/CALL" (the lineage's hash, the version's label, the
 * call as "query_users(95)"), hardware "" (a result does not depend on the
 * machine). The bytes carry the stamps of the data sources the result was
 * computed from (exec/keep.h): the runtime uses them only while the data
 * is unchanged, and a result computed again replaces the row.
 *
 * The keeper never waits and never fails a run: when another thread holds
 * the program or its store (a round, a record), or the store errs, the
 * call is simply not kept, and the runtime computes.
 */
#include <stdlib.h>

#include "api_int.h"

#define KIND "kept_values"

/* Takes fp->lock and the store's when both are free and there is a store. */
static bool take(FluxProgram *fp)
{
    if (pthread_mutex_trylock(&fp->lock) != 0)
        return false;
    if (fp->store && pthread_mutex_trylock(&fp->store->lock) == 0)
        return true;
    pthread_mutex_unlock(&fp->lock);
    return false;
}

static void give(FluxProgram *fp)
{
    pthread_mutex_unlock(&fp->store->lock);
    pthread_mutex_unlock(&fp->lock);
}

/* The row's key, or NULL for a graph of no intent of the program. */
static char *row_key(const FluxProgram *fp, const FxGraph *g, const char *call)
{
    const FxIntent *in = fx_program_find_intent(fp->prog, g->intent);
    if (!in)
        return NULL;
    char hash[17];
    fx_api_lineage_hash(in, hash);
    return fx_xasprintf("%s/%s/%s", hash, g->version, call);
}

static bool load(void *ctx, const FxGraph *g, const char *call, char **out, size_t *len)
{
    FluxProgram *fp = ctx;
    *out = NULL;
    if (!take(fp))
        return false;
    char *key = row_key(fp, g, call);
    if (key && fx_store_learned(fp->store->store, KIND, key, "", out, len) != FX_OK) {
        free(*out);
        *out = NULL;
    }
    give(fp);
    free(key);
    return *out != NULL;
}

static void save(void *ctx, const FxGraph *g, const char *call, const char *bytes, size_t len)
{
    FluxProgram *fp = ctx;
    if (!take(fp))
        return;
    char *key = row_key(fp, g, call);
    if (key) {
        FxStatus st = fx_store_set_learned(fp->store->store, KIND, key, "", bytes, len);
        (void)st; /* a result not kept: the next process computes it */
    }
    give(fp);
    free(key);
}

void fx_api_keep_give(FluxProgram *fp, FxRuntime *rt)
{
    FxKeeper k = {fp, load, save};
    fx_runtime_set_keeper(rt, &k);
}
