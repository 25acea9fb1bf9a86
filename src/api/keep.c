/*
 * keep.c: materialised results between processes. The runtime's keeper
 * (exec/interp.h) over the store's learned table: kind "kept_values", key
 * "LINEAGE/VERSION/CALL" (the lineage's hash, the version's label, the
 * call as "query_users(95)"), hardware "" (a result does not depend on the
 * machine). The bytes carry the stamps of the data sources the result was
 * computed from (exec/keep.h): the runtime uses them only while the data
 * is unchanged, and a result computed again replaces the row.
 *
 * A row ends with a MAC (base/mac.h: this user's key, kept outside every
 * store) of its key and bytes, so that no one without the key can write a
 * result flux will serve, nor move one to another call, version or
 * lineage: a row whose MAC does not hold is not read, the call is computed
 * and kept again, and `flux proofs --verify` and `flux store check` name
 * it.
 *
 * The keeper never waits and never fails a run: when another thread holds
 * the program or its store (a round, a record), or the store errs, the
 * call is simply not kept, and the runtime computes.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "base/mac.h"

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

/* The MAC of a row: its key, a NUL, its bytes. */
static void row_mac(const char *key, const char *bytes, size_t len, char mac[FX_MAC_HEX])
{
    size_t k = strlen(key) + 1;
    char *all = fx_xmalloc(k + len + 1);
    memcpy(all, key, k);
    if (len)
        memcpy(all + k, bytes, len);
    fx_mac_hex(all, k + len, mac);
    free(all);
}

/* Do a row's last FX_MAC_HEX - 1 bytes hold as the MAC of its key and the
 * bytes before them? *len becomes the bytes' length. */
static bool row_holds(const char *key, const char *row, size_t *len)
{
    size_t m = FX_MAC_HEX - 1;
    if (*len < m)
        return false;
    char mac[FX_MAC_HEX];
    memcpy(mac, row + *len - m, m);
    mac[m] = '\0';
    size_t k = strlen(key) + 1, n = *len - m;
    char *all = fx_xmalloc(k + n + 1);
    memcpy(all, key, k);
    if (n)
        memcpy(all + k, row, n);
    bool ok = fx_mac_holds(all, k + n, mac);
    free(all);
    if (ok)
        *len = n;
    return ok;
}

static bool load(void *ctx, const FxGraph *g, const char *call, char **out, size_t *len)
{
    FluxProgram *fp = ctx;
    *out = NULL;
    if (!take(fp))
        return false;
    char *key = row_key(fp, g, call);
    if (key && (fx_store_learned(fp->store->store, KIND, key, "", out, len) != FX_OK ||
                (*out && !row_holds(key, *out, len)))) {
        free(*out); /* not kept by this user's flux, or changed since: computed again */
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
        char mac[FX_MAC_HEX];
        row_mac(key, bytes, len, mac);
        char *row = fx_xmalloc(len + FX_MAC_HEX);
        if (len)
            memcpy(row, bytes, len);
        memcpy(row + len, mac, FX_MAC_HEX - 1);
        FxStatus st = fx_store_set_learned(fp->store->store, KIND, key, "", row,
                                           len + FX_MAC_HEX - 1);
        (void)st; /* a result not kept: the next process computes it */
        free(row);
    }
    give(fp);
    free(key);
}

void fx_api_keep_give(FluxProgram *fp, FxRuntime *rt)
{
    FxKeeper k = {fp, load, save};
    fx_runtime_set_keeper(rt, &k);
}

/* Counts the kept rows and those whose MAC does not hold, naming each. */
typedef struct Audit {
    FILE *out;
    size_t rows, bad;
} Audit;

static bool audit_row(void *ctx, const char *key, const char *hardware, const void *value,
                      size_t len)
{
    (void)hardware;
    Audit *a = ctx;
    a->rows++;
    if (!row_holds(key, value, &len)) {
        a->bad++;
        if (a->out)
            fprintf(a->out, "kept result %s: its MAC does not hold: it was not kept by this "
                            "user's flux, or was changed since; it is never served\n", key);
    }
    return true;
}

FxStatus fx_api_keep_audit(FxStore *st, FILE *out, size_t *rows, size_t *bad)
{
    Audit a = {out, 0, 0};
    FxStatus r = fx_store_learned_each(st, KIND, audit_row, &a);
    *rows = a.rows;
    *bad = a.bad;
    return r;
}
