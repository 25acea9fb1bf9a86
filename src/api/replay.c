/*
 * replay.c: `flux replay EXEC_ID [--version vN]`: time travel.
 *
 * The store keeps, for every execution, its EXPR, its result, the version
 * it ran on, and the full text of the file that defined the intent (by
 * hash, as it was when its lineage began: the lineage key is the intent's
 * own text, so an edit of another intent it calls keeps the lineage, and
 * imported files are read from disk). Replay rebuilds the program from that text, runs
 * the stored graph of the chosen version (not a fresh lowering: an old
 * version is replayed as it was installed), and compares result, path and
 * time with the record. A result that differs (a data file changed since
 * the run, or another version computes another value) is its own exit
 * code, FLUX_DIFFERENT, so that a script need not read the text.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/graph.h"

/* The text of a JSON string field (escapes decoded: an EXPR may hold
 * quotes, tabs, line breaks); s itself when it is not a string. Takes s. */
static char *unquote(char *s)
{
    json_t *j = s && s[0] == '"' ? json_loads(s, JSON_DECODE_ANY, NULL) : NULL;
    if (!json_is_string(j)) {
        json_decref(j);
        return s;
    }
    char *text = fx_xstrdup(json_string_value(j));
    json_decref(j);
    free(s);
    return text;
}

/* The program as it was when the execution ran. */
static FluxProgram *program_of(FluxStore *fs, long long id, FILE *diagnostics, int *status)
{
    char *path = NULL, *source = NULL;
    if (fx_store_execution_source(fs->store, id, &path, &source) != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
        *status = FLUX_ERR_STORE;
        return NULL;
    }
    *status = FLUX_ERR_REJECTED; /* unless it loads */
    FluxProgram *fp = fx_api_program_new();
    fp->prog = fx_program_load_text(&fp->diag, path, source, strlen(source), NULL);
    free(path);
    free(source);
    /* confined as a loaded FILE is (--sources-inside; `flux serve` by default) */
    const char *inside = getenv("FLUX_SOURCES_INSIDE");
    if (!fx_diag_errors(&fp->diag) && inside && *inside && strcmp(inside, "0") != 0)
        fx_api_confine_sources(fp);
    if (fx_diag_errors(&fp->diag)) {
        if (diagnostics)
            fx_diag_render(&fp->diag, diagnostics);
        flux_program_free(fp);
        return NULL;
    }
    return fp;
}

/* Installs the stored graph of `label` for the intent. */
static bool use_version(FluxStore *fs, FluxProgram *fp, const char *row, const char *label,
                        FILE *diagnostics)
{
    char *lineage = fx_api_json_field(row, "lineage");
    long long lid = lineage ? strtoll(lineage, NULL, 10) : 0;
    free(lineage);
    char why[256] = "";
    FxGraph *g = NULL;
    FxTrusted t = {0};
    if (fx_store_trusted_version(fs->store, lid, label, &t, NULL, NULL) == FX_OK) {
        if (t.why) /* a version whose proof does not verify is not run */
            snprintf(why, sizeof(why), "%s", t.why);
        else
            g = fx_graph_read_json(t.graph_json, why, sizeof(why));
    }
    fx_trusted_free(&t);
    char *intent = unquote(fx_api_json_field(row, "intent"));
    const FxIntent *in = intent ? fx_program_find_intent(fp->prog, intent) : NULL;
    free(intent);
    if (g && strcmp(label, "v1") != 0 && (!in || !fx_api_lineage_bound(fs->store, fp->prog, in, lid))) {
        snprintf(why, sizeof(why), "the lineage's v1 is not the graph of the recorded "
                 "constraints, so its proofs are of another function");
        fx_graph_free(g);
        g = NULL;
    }
    if (!g || !fx_runtime_use_graph(fx_api_runtime(fp), g)) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store has no usable version %s of this intent%s%s\n",
                    label, why[0] ? ": " : "", why);
        fx_graph_free(g);
        return false;
    }
    return true;
}

/* Writes the comparison; returns whether the result is the recorded one. */
static bool report(const char *row, long long id, const char *expr, const char *label,
                   const FluxResult *r, FxValue value, int json, FILE *out)
{
    char *was = fx_api_json_field(row, "output"), *ver = unquote(fx_api_json_field(row, "graph_version"));
    char *ms_then = fx_api_json_field(row, "duration_ms");
    char *now = fx_api_json_field(r->json, "output");
    bool same = was && now && strcmp(was, now) == 0;
    char *summary_hash = was && !strncmp(was, "{\"summary\"", 10) ? fx_api_json_field(was, "hash")
                                                                  : NULL;
    if (summary_hash && now && strstr(was, "not written out\"")) {
        /* big integers kept without their digits: summarised again the same way */
        FxBuf b = {0};
        fx_api_value_json(value, false, &b);
        same = strcmp(fx_buf_str(&b), was) == 0;
        fx_buf_free(&b);
    } else if (summary_hash && now) { /* a large value was kept as the hash of its text */
        char h[17], quoted[20];
        fx_store_hash(now, strlen(now), h);
        snprintf(quoted, sizeof(quoted), "\"%s\"", h);
        same = strcmp(quoted, summary_hash) == 0;
    }
    free(summary_hash);
    double then = ms_then ? strtod(ms_then, NULL) : 0;
    bool same_version = ver && strcmp(ver, label) == 0;
    const char *path = same_version ? "the same version and decisions as recorded"
                                    : "another version: its graph differs from the recorded one";
    if (json) {
        fprintf(out, "{\"execution_id\": \"exec_%lld\", \"expr\": ", id);
        FxBuf b = {0};
        fx_api_json_string(expr, &b);
        fprintf(out, "%s, \"recorded_version\": \"%s\", \"replayed_version\": \"%s\", "
                     "\"same_result\": %s, \"recorded_output\": %s, \"output\": %s, \"path\": ",
                fx_buf_str(&b), ver ? ver : "?", label, same ? "true" : "false",
                was ? was : "null", now ? now : "null");
        fx_buf_free(&b);
        fx_api_json_string(path, &b);
        fprintf(out, "%s, \"recorded_ms\": %.3f, \"ms\": %.3f}\n", fx_buf_str(&b), then,
                r->duration_ms);
        fx_buf_free(&b);
    } else {
        fprintf(out, "replay of exec_%lld: %s on %s (recorded on %s)\n", id, expr, label,
                ver ? ver : "?");
        fprintf(out, "  result: %s, %s\n", r->text,
                same ? "the same as recorded" : "DIFFERENT from the recorded");
        if (!same)
            fprintf(out, "          recorded: %s\n", was ? was : "?");
        fprintf(out, "  path:   %s\n", path);
        fprintf(out, "  time:   %.3f ms recorded, %.3f ms now (%.2fx)\n", then, r->duration_ms,
                then > 0 ? r->duration_ms / then : 0.0);
    }
    free(was);
    free(ver);
    free(ms_then);
    free(now);
    return same;
}

static int replay_from(FluxStore *fs, long long id, const char *version,
                       const FluxRunOptions *options, int json, FILE *out, FILE *diagnostics);

int flux_replay(FluxStore *shared, long long id, const char *version,
                const FluxRunOptions *options, int json, FILE *out, FILE *diagnostics)
{
    /* read through a connection of its own that writes nothing: a replay
     * records nothing, and runs beside the store's other users (a server
     * answers them meanwhile) without sharing their connection */
    char why[512];
    FxStore *reader = NULL;
    pthread_mutex_lock(&shared->lock);
    char *dir = fx_xstrdup(fx_store_dir(shared->store));
    pthread_mutex_unlock(&shared->lock);
    FxStatus opened = fx_store_open_reading(dir, &reader, why, sizeof(why));
    free(dir);
    if (opened != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: %s\n", why);
        return FLUX_ERR_STORE;
    }
    FluxStore own = {.store = reader}, *fs = &own;
    pthread_mutex_init(&own.lock, NULL);
    int status = replay_from(fs, id, version, options, json, out, diagnostics);
    (void)fx_store_close(reader);
    pthread_mutex_destroy(&own.lock);
    return status;
}

static int replay_from(FluxStore *fs, long long id, const char *version,
                       const FluxRunOptions *options, int json, FILE *out, FILE *diagnostics)
{
    char *row = NULL;
    if (fx_store_execution(fs->store, id, &row) != FX_OK || !row) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no execution exec_%lld in this store\n", id);
        return FLUX_ERR_USAGE;
    }
    char *expr = unquote(fx_api_json_field(row, "expr"));
    char *recorded = unquote(fx_api_json_field(row, "graph_version"));
    const char *label = version ? version : recorded ? recorded : "v1";
    int status = FLUX_ERR_USAGE;
    FluxProgram *fp = expr ? program_of(fs, id, diagnostics, &status) : NULL;
    if (fp)
        status = FLUX_ERR_USAGE;
    if (fp && use_version(fs, fp, row, label, diagnostics)) {
        FluxRunOptions opts = options ? *options : (FluxRunOptions){0};
        opts.want_json = 1;
        FluxResult r;
        status = flux_run(fp, expr, &opts, diagnostics, &r);
        if (status == FLUX_OK && !report(row, id, expr, label, &r, fp->last_value, json, out))
            status = FLUX_DIFFERENT;
        flux_result_free(&r);
    }
    flux_program_free(fp);
    free(expr);
    free(recorded);
    free(row);
    return status;
}
