/*
 * learn.c: when a round is due, and making sure rounds do not overlap.
 *
 * A round is due for an intent when the run it follows (its execution id,
 * or the newest) ran that intent's version installed now and, counting
 * the records up to that run, either
 *   - that version has 1, 2, 4, 8, ... recorded runs (evidence grows, and
 *     rounds thin out exponentially while nothing changes), or
 *   - the newest input is more than twice as large as any before it (the
 *     cost model's choice may change with the size).
 * Rounds of one store, a run's and `flux optimize`'s alike, take an
 * exclusive lock on DIR/learn.lock, waiting for the round in progress:
 * runs made at once then each have their own count (the 1st, 2nd, 4th ...
 * of a burst still learn), and a round that waited finds the version the
 * one before it installed (and its cost models and proposer state, which it
 * would otherwise overwrite).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "api_int.h"

#define LOCK_QUIET_MS 2000 /* a wait for the lock longer than this is said */

static bool power_of_two(size_t n)
{
    return n && !(n & (n - 1));
}

bool fx_api_round_due(FluxProgram *fp, FluxStore *fs, const FxIntent *in, long long after)
{
    const FxGraph *g = fx_runtime_graph(fx_api_runtime(fp), in->name);
    char hash[17];
    int64_t lineage = 0;
    fx_api_lineage_hash(in, hash);
    if (!g || fx_store_find_lineage(fs->store, in->name, hash, &lineage) != FX_OK || !lineage)
        return false;
    FxTraces tr = {{0}};
    FxAnalysis a = {0};
    if (fx_api_recent_traces(fs, in->name, lineage, 1000, &tr) == FX_OK) {
        size_t from = 0; /* the records as they stood at that run: it is the newest */
        while (after > 0 && from < tr.v.len && tr.v.data[from].id > after)
            from++;
        bool ran = after <= 0 || (from < tr.v.len && tr.v.data[from].id == after);
        if (ran)
            fx_analyze(tr.v.data + from, tr.v.len - from, g->version, &a);
    }
    fx_api_traces_free(&tr);
    return a.newest_is_current &&
           (power_of_two(a.runs_current) ||
            (a.runs > 1 && a.newest_size > 2 * a.largest_before_newest));
}

int flux_learn_due(FluxProgram *fp, FluxStore *fs, long long after)
{
    if (fx_store_flush(fs->store) != FX_OK) /* the runs just made are evidence too */
        return 0;
    if (fx_api_native_rebuild_due()) /* an object to build again */
        return 1;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        if (fx_api_round_due(fp, fs, *in, after))
            return 1;
    }
    return fx_api_callees_due(fp, fs, after);
}

int fx_api_learn_lock(FluxStore *fs, FILE *diagnostics)
{
    char *path = fx_xasprintf("%s/learn.lock", fx_store_dir(fs->store));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (diagnostics)
            fprintf(diagnostics, "flux: cannot open %s: %s\n", path, strerror(errno));
        free(path);
        return -1;
    }
    /* a short wait is a round finishing; a long one is said, once */
    int rc;
    for (int i = 0; (rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EWOULDBLOCK &&
                    i < LOCK_QUIET_MS / 10;
         i++)
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    if (rc != 0 && errno == EWOULDBLOCK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: waiting for the learning round in progress on this "
                                 "store (%s)\n", path);
        while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
            ;
    }
    if (rc != 0) {
        if (diagnostics)
            fprintf(diagnostics, "flux: cannot lock %s: %s\n", path, strerror(errno));
        close(fd);
        fd = -1;
    }
    free(path);
    return fd;
}

void fx_api_learn_unlock(int fd)
{
    flock(fd, LOCK_UN);
    close(fd);
}

int flux_learn(FluxProgram *fp, FluxStore *fs, long long after, FILE *out)
{
    if (fx_store_flush(fs->store) != FX_OK) /* the runs just made are evidence too */
        return FLUX_ERR_STORE;
    FILE *sink = out ? out : fopen("/dev/null", "w");
    if (!sink)
        return FLUX_ERR_STORE;
    int fd = fx_api_learn_lock(fs, NULL), status = FLUX_OK;
    if (fd < 0) {
        if (!out)
            fclose(sink);
        return FLUX_ERR_STORE;
    }
    /* a round that waited reads the versions the rounds before it installed */
    flux_program_use_store(fp, fs, fp->keep_values);
    fp->store = fs;
    /* the callees that took the time first, each on a run of its own */
    size_t n = fp->prog->root->intents.len, k;
    FxCalleeTaken *taken = fx_xcalloc(n + 1, sizeof(*taken));
    const FxIntent **order = fx_xcalloc(n + 1, sizeof(*order));
    k = fx_api_callees_take(fp, fs, after, after == FLUX_LEARN_NOW, taken, n, sink);
    n = fx_api_round_order(fp, taken, k, order);
    for (size_t i = 0; i < n; i++) {
        const FxIntent *in = order[i];
        long long its = after; /* a callee's round follows its own run */
        for (size_t t = 0; t < k; t++)
            if (taken[t].intent == in && taken[t].execution > 0)
                its = taken[t].execution;
        if (after == FLUX_LEARN_NOW || fx_api_round_due(fp, fs, in, its)) {
            if (fx_api_optimize(fp, fs, in->name, NULL, sink, NULL) != FLUX_OK)
                status = FLUX_ERR_STORE;
        } else if (fx_api_native_repair(fp, fs, in, sink) != FLUX_OK) {
            /* no round: still the native code a run found missing, or now hot */
            status = FLUX_ERR_STORE;
        }
    }
    free(taken);
    free(order);
    if (!out)
        fclose(sink);
    fx_api_learn_unlock(fd);
    return status;
}
