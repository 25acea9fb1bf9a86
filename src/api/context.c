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
#include "graph/lower.h"

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
        fx_graph_free(v->graph);
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

/* Collects the refusals of one intent's versions, in one message. */
typedef struct Refusals {
    const char *intent;
    FxBuf text;
} Refusals;

static void refused_one(void *ctx, const char *label, const char *why)
{
    Refusals *r = ctx;
    fx_buf_printf(&r->text, "%sversion %s of `%s` is refused: %s", r->text.len ? "; " : "",
                  label, r->intent, why);
}

/* Says on stderr what is refused, once a process: a refusal not in `before`
 * (the previous read's). */
static void warn_new(const FluxProgram *fp, char **before, size_t n_before)
{
    fx_vec_foreach(char *, r, &fp->refused)
    {
        bool old = false;
        for (size_t i = 0; i < n_before; i++)
            old |= !strcmp(before[i], *r);
        if (!old)
            fprintf(stderr, "flux: warning: %s\n", *r);
    }
}

bool fx_api_lineage_bound(FxStore *st, const FxProgram *prog, const FxIntent *in,
                          int64_t lineage)
{
    FxTrusted root;
    if (fx_store_trusted_version(st, lineage, "v1", &root, NULL, NULL) != FX_OK)
        return false;
    char bad[256];
    FxGraph *stored = fx_graph_read_json(root.graph_json, bad, sizeof(bad));
    FxGraph *now = fx_lower_intent(prog, in);
    bool same = stored && now && fx_graph_same_graph(stored, now);
    fx_graph_free(stored);
    fx_graph_free(now);
    fx_trusted_free(&root);
    return same;
}

/* Each intent of the file runs the newest version of its lineage that
 * verifies (the seals of its proofs, trace/seal.h); the newer ones are
 * refused, with the reason kept for the run's record and explain. The
 * stored graph is untrusted input besides: read_json validates it (when a
 * runtime is built), and only a graph that reads back is used; otherwise
 * v1 runs. */
void fx_api_read_installed(FluxProgram *fp)
{
    char **before = fp->refused.data;
    size_t n_before = fp->refused.len;
    memset(&fp->refused, 0, sizeof(fp->refused));
    drop_installed(fp);
    fp->generation++;
    fx_api_costs_read(fp);
    if (fp->store) {
        FxStore *st = fp->store->store;
        fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
        {
            char hash[17];
            int64_t lineage;
            FxTrusted t;
            Refusals why = {(*in)->name, {0}};
            fx_api_lineage_hash(*in, hash);
            if (fx_store_find_lineage(st, (*in)->name, hash, &lineage) != FX_OK || !lineage ||
                fx_store_trusted_version(st, lineage, NULL, &t, refused_one, &why) != FX_OK) {
                fx_buf_free(&why.text);
                continue;
            }
            bool naive = !strcmp(t.label, "v1");
            if (!naive && !fx_api_lineage_bound(st, fp->prog, *in, lineage)) {
                /* its versions were proved from another v1: a lineage of
                 * other constraints given this one's name and hash */
                refused_one(&why, t.label, "the lineage's v1 is not the graph of these "
                            "constraints, so its proofs are of another function");
                naive = true;
            }
            if (!naive) {
                char bad[256];
                FxGraph *g = fx_graph_read_json(t.graph_json, bad, sizeof(bad));
                if (!g) { /* untrusted input that does not read back: v1 runs */
                    refused_one(&why, t.label, bad);
                    naive = true;
                } else {
                    FxInstalled v = {g, NULL, t.id};
                    if (g->variants & (g->variants - 1)) /* a choice: its models */
                        v.models_json = fx_api_models_load(fp->store, t.id, g);
                    fx_vec_push(&fp->installed, v);
                }
            }
            if (why.text.len) { /* what runs instead, said once for all */
                fx_buf_printf(&why.text, "; %s, %s, runs instead", naive ? "v1" : t.label,
                              naive ? "the naive graph read from the constraints"
                                    : "the newest version that verifies");
                fx_vec_push(&fp->refused, fx_buf_take(&why.text));
            }
            fx_buf_free(&why.text);
            fx_trusted_free(&t);
        }
    }
    warn_new(fp, before, n_before);
    for (size_t i = 0; i < n_before; i++)
        free(before[i]);
    free(before);
}

/* Gives cx's runtime g (taken over) for its intent, and the models of its
 * store row `version`. */
static void use(FxCallCtx *cx, FxGraph *g, int64_t version, const char *models_json)
{
    if (!fx_runtime_use_graph(cx->rt, g)) /* the intent has its version already */
        fx_graph_free(g);
    else if (g->variants & (g->variants - 1) && models_json) /* a choice */
        fx_api_models_attach(cx, g, version, models_json);
}

/* A fresh runtime for cx with `first` (taken over; NULL: none) and its
 * models, then the installed versions of the other intents. */
static void build_with(FxCallCtx *cx, FxGraph *first, int64_t first_version,
                       const char *first_models)
{
    FluxProgram *fp = cx->fp;
    fx_runtime_free(cx->rt);
    cx->rt = fx_runtime_new(fp->prog);
    fx_api_costs_give(fp, cx->rt);
    fx_api_keep_give(fp, cx->rt);
    if (fp->store) {
        char *columns = fx_xasprintf("%s/columns", fx_store_dir(fp->store->store));
        fx_runtime_set_column_cache(cx->rt, columns);
        free(columns);
        fx_api_native_give(fp, cx->rt);
    }
    cx->models.len = 0;
    cx->generation = fp->generation;
    if (first)
        use(cx, first, first_version, first_models);
    fx_vec_foreach(FxInstalled, v, &fp->installed) /* each runtime its own copy */
        use(cx, fx_graph_copy_as(v->graph, v->graph->intent, v->graph->version), v->version,
            v->models_json);
}

/* A fresh runtime for cx with the installed versions and their models. */
static void build(FxCallCtx *cx)
{
    build_with(cx, NULL, 0, NULL);
}

FxCallCtx *fx_api_context_forced(FluxProgram *fp, FxGraph *g, int64_t version,
                                 const char *models_json)
{
    FxCallCtx *cx = fx_xcalloc(1, sizeof(*cx));
    cx->fp = fp;
    pthread_mutex_lock(&fp->lock);
    fx_vec_push(&fp->all, cx); /* found by its runtime (check_output.c), freed with fp */
    build_with(cx, g, version, models_json);
    pthread_mutex_unlock(&fp->lock);
    return cx;
}

void fx_api_context_drop(FluxProgram *fp, FxCallCtx *cx)
{
    pthread_mutex_lock(&fp->lock);
    for (size_t i = 0; i < fp->all.len; i++)
        if (fp->all.data[i] == cx)
            fp->all.data[i] = fp->all.data[--fp->all.len];
    pthread_mutex_unlock(&fp->lock);
    fx_api_check_free(cx->check);
    fx_runtime_free(cx->rt);
    fx_vec_free(&cx->models);
    free(cx);
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
    cx->explored = cx->explore_read = false;
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
