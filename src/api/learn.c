/*
 * learn.c: when a round is due, and making sure rounds do not overlap.
 *
 * A round is due for an intent when its newest recorded run ran the
 * version installed now and either
 *   - that version has 1, 2, 4, 8, ... recorded runs (evidence grows, and
 *     rounds thin out exponentially while nothing changes), or
 *   - the newest input is more than twice as large as any before it (the
 *     cost model's choice may change with the size).
 * Rounds of one store take an exclusive lock on DIR/learn.lock without
 * waiting: when another process holds it, this one skips (its evidence
 * will be read by the next round anyway).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "api_int.h"

static bool power_of_two(size_t n)
{
    return n && !(n & (n - 1));
}

static bool round_due(FluxProgram *fp, FluxStore *fs, const FxIntent *in)
{
    const FxGraph *g = fx_runtime_graph(fx_api_runtime(fp), in->name);
    char hash[17];
    int64_t lineage = 0;
    fx_api_lineage_hash(in, hash);
    if (!g || fx_store_find_lineage(fs->store, in->name, hash, &lineage) != FX_OK || !lineage)
        return false;
    FxTraces tr = {{0}};
    FxAnalysis a = {0};
    if (fx_api_traces(fs, in->name, lineage, 1000, &tr) == FX_OK)
        fx_analyze(tr.v.data, tr.v.len, g->version, &a);
    fx_api_traces_free(&tr);
    return a.newest_is_current &&
           (power_of_two(a.runs_current) ||
            (a.runs > 1 && a.newest_size > 2 * a.largest_before_newest));
}

int flux_learn(FluxProgram *fp, FluxStore *fs, FILE *out)
{
    if (fx_store_flush(fs->store) != FX_OK) /* the runs just made are evidence too */
        return FLUX_ERR_STORE;
    char *path = fx_xasprintf("%s/learn.lock", fx_store_dir(fs->store));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(path);
    if (fd < 0)
        return FLUX_ERR_STORE;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) { /* a round is running elsewhere */
        close(fd);
        return FLUX_OK;
    }
    FILE *sink = out ? out : fopen("/dev/null", "w");
    int status = FLUX_OK;
    if (!sink) {
        close(fd);
        return FLUX_ERR_STORE;
    }
    fp->store = fs;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        if (round_due(fp, fs, *in) && flux_optimize(fp, fs, (*in)->name, sink, NULL) != FLUX_OK)
            status = FLUX_ERR_STORE;
    }
    if (!out)
        fclose(sink);
    flock(fd, LOCK_UN);
    close(fd);
    return status;
}
