/*
 * context.c: the contexts calls run in, and the versions they run.
 *
 * A loaded program (FxProgram) is not changed by a run; what a run changes
 * is its runtime (compiled intents, memo tables, counters, the last call).
 * So each flux_run takes a context of its own: the main one (the runtime
 * the single-threaded API and the optimizer use) when it is free, else an
 * idle one, else a new one. Contexts are kept for the next calls.
 *
 * The versions the store installed are read once per refresh as JSON
 * (fx_api_read_installed), with a generation number; a context whose
 * runtime is older than the generation is rebuilt when next taken, so a
 * refresh never touches a runtime in use.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/graph.h"

FluxProgram *fx_api_program_new(void)
{
    FluxProgram *fp = fx_xcalloc(1, sizeof(*fp));
    pthread_mutex_init(&fp->lock, NULL);
    fp->main.fp = fp;
    return fp;
}

static void drop_installed(FluxProgram *fp)
{
    fx_vec_foreach(FxInstalled, v, &fp->installed)
    {
        free(v->graph_json);
        free(v->models_json);
    }
    fp->installed.len = 0;
    fx_vec_foreach(char *, r, &fp->refused) free(*r);
    fp->refused.len = 0;
}

const char *fx_api_refused(const FluxProgram *fp, const char *intent)
{
    if (!fp->refused.len) /* the common case, on every recorded run of a v1 */
        return NULL;
    char *prefix = fx_xasprintf(" of `%s` is refused: ", intent);
    const char *found = NULL;
    fx_vec_foreach(char *, r, &fp->refused) if (strstr(*r, prefix)) found = *r;
    free(prefix);
    return found;
}

/* Each intent of the file runs the newest version of its lineage. The
 * stored graph is untrusted input: read_json validates it (when a runtime
 * is built), and only a graph that reads back is used; otherwise v1 stays. */
void fx_api_read_installed(FluxProgram *fp)
{
    drop_installed(fp);
    fp->generation++;
    fx_api_costs_read(fp);
    if (!fp->store)
        return;
    FxStore *st = fp->store->store;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        char hash[17], *label = NULL, *json = NULL;
        int64_t lineage, version;
        fx_api_lineage_hash(*in, hash);
        if (fx_store_find_lineage(st, (*in)->name, hash, &lineage) == FX_OK && lineage &&
            fx_store_latest_version(st, lineage, &version, &label, &json) == FX_OK &&
            strcmp(label, "v1") != 0) {
            char why[256];
            FxGraph *g = fx_graph_read_json(json, why, sizeof(why));
            if (!g) { /* untrusted input that does not read back: v1 runs */
                fx_vec_push(&fp->refused, fx_xasprintf("version %s of `%s` is refused: %s", label,
                                                       (*in)->name, why));
                free(label);
                free(json);
                continue;
            }
            FxInstalled v = {json, NULL, version};
            json = NULL;
            if (g->variants & (g->variants - 1)) /* a choice: its models */
                v.models_json = fx_api_models_load(fp->store, version);
            fx_graph_free(g);
            fx_vec_push(&fp->installed, v);
        }
        free(label);
        free(json);
    }
}

/* A fresh runtime for cx with the installed versions and their models. */
static void build(FxCallCtx *cx)
{
    FluxProgram *fp = cx->fp;
    fx_runtime_free(cx->rt);
    cx->rt = fx_runtime_new(fp->prog);
    fx_api_costs_give(fp, cx->rt);
    fx_api_keep_give(fp, cx->rt);
    cx->models.len = 0;
    cx->generation = fp->generation;
    fx_vec_foreach(FxInstalled, v, &fp->installed)
    {
        char why[256];
        FxGraph *g = fx_graph_read_json(v->graph_json, why, sizeof(why));
        if (g && !fx_runtime_use_graph(cx->rt, g))
            fx_graph_free(g);
        else if (g && g->variants & (g->variants - 1) && v->models_json) /* a choice */
            fx_api_models_attach(cx, g, v->version, v->models_json);
    }
}

FxRuntime *fx_api_runtime(FluxProgram *fp)
{
    if (!fp->main.rt || fp->main.generation != fp->generation)
        build(&fp->main);
    return fp->main.rt;
}

FxCallCtx *fx_api_call_begin(FluxProgram *fp)
{
    pthread_mutex_lock(&fp->lock);
    FxCallCtx *cx;
    if (!fp->main_busy) {
        fp->main_busy = true;
        fx_api_runtime(fp);
        cx = &fp->main;
    } else if (fp->idle.len) {
        cx = fp->idle.data[--fp->idle.len];
        if (cx->generation != fp->generation)
            build(cx);
    } else {
        cx = fx_xcalloc(1, sizeof(*cx));
        cx->fp = fp;
        fx_vec_push(&fp->all, cx);
        build(cx);
    }
    cx->explored = false;
    pthread_mutex_unlock(&fp->lock);
    return cx;
}

void fx_api_call_end(FluxProgram *fp, FxCallCtx *cx)
{
    pthread_mutex_lock(&fp->lock);
    if (cx == &fp->main)
        fp->main_busy = false;
    else
        fx_vec_push(&fp->idle, cx);
    pthread_mutex_unlock(&fp->lock);
}

void fx_api_call_refresh(FxCallCtx *cx)
{
    pthread_mutex_lock(&cx->fp->lock);
    if (cx->generation != cx->fp->generation)
        build(cx);
    pthread_mutex_unlock(&cx->fp->lock);
}

void fx_api_contexts_free(FluxProgram *fp)
{
    fx_vec_foreach(FxCallCtx *, cx, &fp->all)
    {
        fx_api_check_free((*cx)->check);
        fx_runtime_free((*cx)->rt);
        fx_vec_free(&(*cx)->models);
        free(*cx);
    }
    fx_vec_free(&fp->all);
    fx_vec_free(&fp->idle);
    fx_api_check_free(fp->main.check);
    fp->main.check = NULL;
    fx_runtime_free(fp->main.rt);
    fp->main.rt = NULL;
    fx_vec_free(&fp->main.models);
    drop_installed(fp);
    fx_vec_free(&fp->installed);
    fx_vec_free(&fp->refused);
}
