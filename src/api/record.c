/*
 * record.c: the store as the public API shows it: opening it where the
 * command line says, attaching it to a program, and the two listings,
 * `flux traces` and `flux history`.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_int.h"
#include "graph/graph.h"

/* dir, or $FLUX_STORE, or ./.flux */
const char *fx_api_store_dir(const char *dir)
{
    if (!dir || !*dir)
        dir = getenv("FLUX_STORE");
    return dir && *dir ? dir : ".flux";
}

int flux_store_open_existing(const char *dir, FILE *diagnostics, FluxStore **out)
{
    *out = NULL;
    char *db = fx_xasprintf("%s/flux.db", fx_api_store_dir(dir));
    bool exists = access(db, F_OK) == 0;
    free(db);
    return exists ? flux_store_open(dir, diagnostics, out) : FLUX_OK;
}

int flux_store_open(const char *dir, FILE *diagnostics, FluxStore **out)
{
    *out = NULL;
    dir = fx_api_store_dir(dir);
    char why[512];
    FxStore *s;
    if (fx_store_open(dir, &s, why, sizeof(why)) != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: %s\n", why);
        return FLUX_ERR_STORE;
    }
    if (*fx_store_warning(s) && diagnostics)
        fprintf(diagnostics, "flux: warning: %s\n", fx_store_warning(s));
    FluxStore *fs = fx_xcalloc(1, sizeof(*fs));
    fs->store = s;
    pthread_mutex_init(&fs->lock, NULL);
    *out = fs;
    return FLUX_OK;
}

int flux_store_sources(FluxStore *fs, FluxSourceFn fn, void *ctx, FILE *diagnostics)
{
    pthread_mutex_lock(&fs->lock);
    bool ok = fx_store_sources(fs->store, fn, ctx) == FX_OK;
    pthread_mutex_unlock(&fs->lock);
    if (!ok && diagnostics)
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
    return ok ? FLUX_OK : FLUX_ERR_STORE;
}

int flux_store_flush(FluxStore *fs, FILE *diagnostics)
{
    pthread_mutex_lock(&fs->lock);
    bool ok = fx_store_flush(fs->store) == FX_OK;
    pthread_mutex_unlock(&fs->lock);
    if (ok)
        return FLUX_OK;
    if (diagnostics)
        fprintf(diagnostics, "flux: could not record: %s\n", fx_store_error(fs->store));
    return FLUX_ERR_STORE;
}

int flux_store_close(FluxStore *fs, FILE *diagnostics)
{
    if (!fs)
        return FLUX_OK;
    int status = flux_store_flush(fs, diagnostics);
    if (fx_store_close(fs->store) != FX_OK && status == FLUX_OK)
        status = FLUX_ERR_STORE;
    pthread_mutex_destroy(&fs->lock);
    free(fs);
    return status;
}

void flux_program_use_store(FluxProgram *fp, FluxStore *fs, int keep_values)
{
    pthread_mutex_lock(&fp->lock);
    fp->store = fs;
    fp->keep_values = keep_values != 0;
    fx_vec_foreach(FxKnownVersion, k, &fp->versions)
    {
        free(k->intent);
        free(k->label);
    }
    fp->versions.len = 0; /* ids of another store mean nothing here */
    if (fs)
        pthread_mutex_lock(&fs->lock);
    fx_api_verdicts_keep(fp, fs);
    fx_api_hardware_recall(fs);
    fx_api_read_installed(fp); /* compiled versions may be stale: the newest are read afresh */
    if (fs)
        pthread_mutex_unlock(&fs->lock);
    pthread_mutex_unlock(&fp->lock);
}

void flux_program_refresh(FluxProgram *fp)
{
    pthread_mutex_lock(&fp->lock);
    if (fp->store) {
        pthread_mutex_lock(&fp->store->lock);
        fx_api_read_installed(fp);
        pthread_mutex_unlock(&fp->store->lock);
    }
    pthread_mutex_unlock(&fp->lock);
}

/* ---- listings ---- */

void fx_api_keep_row(void *ctx, const char *json)
{
    fx_vec_push(&((FxRows *)ctx)->json, fx_xstrdup(json));
}

int fx_api_print_rows(FxRows *rows, FxStatus st, FluxStore *fs, int json,
                      void (*print_row)(const char *json, FILE *out), const char *empty,
                      FILE *out, FILE *diagnostics)
{
    fx_vec_foreach(char *, r, &rows->json)
    {
        if (json)
            fprintf(out, "%s\n", *r);
        else
            print_row(*r, out);
        free(*r);
    }
    if (!json && rows->json.len == 0 && st == FX_OK)
        fprintf(out, "%s\n", empty);
    fx_vec_free(&rows->json);
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
        return FLUX_ERR_STORE;
    }
    return FLUX_OK;
}

char *fx_api_json_text(const char *json, const char *key)
{
    char *f = fx_api_json_field(json, key);
    if (f && f[0] == '"') { /* a string: its escapes decoded */
        json_t *j = json_loads(f, JSON_DECODE_ANY, NULL);
        if (json_is_string(j)) {
            free(f);
            f = fx_xstrdup(json_string_value(j));
        }
        json_decref(j);
    }
    return f ? f : fx_xstrdup("-");
}

static long long row_id(const char *json)
{
    char *f = fx_api_json_field(json, "execution_id");
    long long id = 0;
    if (f)
        sscanf(f, "\"exec_%lld\"", &id);
    free(f);
    return id;
}

static int newest_first(const void *a, const void *b)
{
    long long x = row_id(*(char *const *)a), y = row_id(*(char *const *)b);
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Rows of the intents of prog's root file (or of one), newest first. */
static FxStatus collect_executions(FluxStore *fs, FluxProgram *fp, const char *intent,
                                   long long before, long last, FxRows *rows)
{
    FxStatus st = FX_OK;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        if (intent && strcmp(intent, (*in)->name) != 0)
            continue;
        st = fx_store_executions(fs->store, (*in)->name, before, last, fx_api_keep_row, rows);
        if (st != FX_OK)
            break;
    }
    if (rows->json.len > 1)
        qsort(rows->json.data, rows->json.len, sizeof(char *), newest_first);
    while (last > 0 && rows->json.len > (size_t)last)
        free(rows->json.data[--rows->json.len]);
    return st;
}

static bool known_intent(FluxProgram *fp, const char *intent, FILE *diagnostics)
{
    if (!intent)
        return true;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents) if (!strcmp((*in)->name, intent)) return true;
    if (diagnostics)
        fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent);
    return false;
}

/* A field for the table, cut to width. Caller frees. */
static char *cell(const char *json, const char *key, size_t width)
{
    char *f = fx_api_json_field(json, key);
    if (!f)
        return fx_xstrdup("-");
    if (strlen(f) > width) {
        f[width - 3] = '\0';
        char *cut = fx_xasprintf("%s...", f);
        free(f);
        return cut;
    }
    return f;
}

static void print_trace_row(const char *json, FILE *out)
{
    const char *keys[] = {"execution_id", "intent", "graph_version", "input", "output",
                          "duration_ms", "recorded_at"};
    const size_t widths[] = {14, 18, 4, 24, 28, 10, 30};
    for (size_t k = 0; k < 7; k++) {
        char *c = cell(json, keys[k], widths[k]);
        if (!strcmp(keys[k], "duration_ms")) {
            char *full = fx_api_json_field(json, "duration_ms");
            free(c);
            c = fx_xasprintf("%.3f", full ? strtod(full, NULL) : 0.0);
            free(full);
        }
        size_t len = strlen(c);
        if (c[0] == '"' && len >= 2) { /* strings without their quotes */
            c[len - 1] = '\0';
            memmove(c, c + 1, len - 1);
        }
        fprintf(out, "%-*s%s", (int)widths[k], c, k + 1 < 7 ? "  " : "\n");
        free(c);
    }
}

int flux_traces(FluxStore *fs, FluxProgram *fp, const char *intent, long last, int json,
                FILE *out, FILE *diagnostics)
{
    if (!known_intent(fp, intent, diagnostics))
        return FLUX_ERR_USAGE;
    FxRows rows = {0};
    FxStatus st = collect_executions(fs, fp, intent, 0, last, &rows);
    if (!json && rows.json.len)
        fprintf(out, "%-14s  %-18s  %-4s  %-24s  %-28s  %-10s  %s\n", "execution", "intent", "ver",
                "input", "output", "ms", "recorded at");
    return fx_api_print_rows(&rows, st, fs, json, print_trace_row, "no recorded executions",
                             out, diagnostics);
}

static void put_count(void *ctx, uint32_t node, uint64_t count, uint64_t ns)
{
    FILE *out = ((FILE **)ctx)[0];
    int *first = ((int **)ctx)[1];
    fprintf(out, "%s{\"node\": %u, \"count\": %llu, \"ms\": %.6g}", *first ? "" : ", ", node,
            (unsigned long long)count, (double)ns / 1e6);
    *first = 0;
}

int fx_api_find_version(FluxStore *fs, FluxProgram *fp, const char *intent, const char *version,
                        FxTrusted *t, FILE *diagnostics)
{
    const FxIntent *in = intent ? fx_program_find_intent(fp->prog, intent) : NULL;
    if (!in) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent ? intent : "");
        return FLUX_ERR_USAGE;
    }
    char hash[17];
    int64_t lineage = 0;
    fx_api_lineage_hash(in, hash);
    *t = (FxTrusted){0};
    FxStatus st = fx_store_find_lineage(fs->store, in->name, hash, &lineage);
    if (st == FX_OK && lineage)
        st = fx_store_trusted_version(fs->store, lineage, version, t, NULL, NULL);
    if (st == FX_ERR_USAGE || (st == FX_OK && !lineage)) {
        if (diagnostics)
            fprintf(diagnostics, "flux: `%s` has no version %s in this store\n", intent,
                    version ? version : "recorded");
        fx_trusted_free(t);
        return FLUX_ERR_USAGE;
    }
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
        fx_trusted_free(t);
        return FLUX_ERR_STORE;
    }
    return FLUX_OK;
}

int flux_node_counts(FluxStore *fs, FluxProgram *fp, const char *intent, const char *version,
                     FILE *out, FILE *diagnostics)
{
    FxTrusted t;
    int status = fx_api_find_version(fs, fp, intent, version, &t, diagnostics);
    if (status != FLUX_OK)
        return status;
    int first = 1;
    void *ctx[2] = {out, &first};
    fprintf(out, "{\"intent\": \"%s\", \"version\": \"%s\", \"counts\": [", intent, t.label);
    FxStatus st = fx_store_node_counts(fs->store, t.id, put_count, ctx);
    fputs("]}\n", out);
    fx_trusted_free(&t);
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
        return FLUX_ERR_STORE;
    }
    return FLUX_OK;
}

int flux_round_before(FluxStore *fs, long long execution, FILE *out, FILE *diagnostics)
{
    char *json = NULL;
    FxStatus st = fx_store_round_before(fs->store, execution, &json);
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
        return FLUX_ERR_STORE;
    }
    fprintf(out, "%s\n", json ? json : "null");
    free(json);
    return FLUX_OK;
}

int flux_traces_page(FluxStore *fs, FluxProgram *fp, const char *intent, long long before,
                     long last, FILE *out, FILE *diagnostics)
{
    if (!known_intent(fp, intent, diagnostics))
        return FLUX_ERR_USAGE;
    FxRows rows = {0};
    FxStatus st = collect_executions(fs, fp, intent, before, last, &rows);
    return fx_api_print_rows(&rows, st, fs, 1, print_trace_row, NULL, out, diagnostics);
}

static char *plain(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') { /* a string cell without its quotes */
        memmove(s, s + 1, n - 2);
        s[n - 2] = '\0';
    }
    return s;
}

static void print_version_row(const char *json, FILE *out)
{
    char *intent = plain(cell(json, "intent", 40)), *version = plain(cell(json, "version", 8));
    char *hash = plain(cell(json, "hash", 20)), *rewrite = plain(cell(json, "rewrite", 60));
    char *proof = cell(json, "proof_id", 12), *evidence = plain(cell(json, "evidence", 60));
    char *when = plain(cell(json, "created_at", 40)), *runs = cell(json, "executions", 12);
    fprintf(out, "%s %s (lineage %s), made %s, %s execution%s\n", intent, version, hash, when,
            runs, strcmp(runs, "1") ? "s" : "");
    if (strcmp(rewrite, "null") == 0)
        fprintf(out, "    the naive graph read from the constraints; correct by construction\n");
    else
        fprintf(out, "    rewrite %s, proof %s, evidence %s\n", rewrite, proof, evidence);
    char *rolled = plain(cell(json, "rolled_back", 320)); /* a rollback says on which sizes */
    if (strcmp(rolled, "null") != 0)
        fprintf(out, "    rolled back: %s\n", rolled);
    free(rolled);
    free(intent);
    free(version);
    free(hash);
    free(rewrite);
    free(proof);
    free(evidence);
    free(when);
    free(runs);
}

int flux_history(FluxStore *fs, FluxProgram *fp, const char *intent, int json, FILE *out,
                 FILE *diagnostics)
{
    if (!known_intent(fp, intent, diagnostics))
        return FLUX_ERR_USAGE;
    FxRows rows = {0};
    FxStatus st = FX_OK;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        if (!intent || strcmp(intent, (*in)->name) == 0)
            if ((st = fx_store_versions(fs->store, (*in)->name, fx_api_keep_row, &rows)) != FX_OK)
                break;
    }
    return fx_api_print_rows(&rows, st, fs, json, print_version_row,
                             "no versions recorded yet: run an intent first", out, diagnostics);
}

FxVersionOrigin fx_api_origin(FluxProgram *fp, const FxIntent *in, const FxGraph *g)
{
    FxVersionOrigin o = {0};
    if (!strcmp(g->version, "v1"))
        return o; /* the naive graph: no rewrite made it, and no store read is needed */
    FxRows rows = {0};
    char hash[17];
    fx_api_lineage_hash(in, hash);
    if (fp->store && fx_store_version_row(fp->store->store, in->name, hash, g->version,
                                          fx_api_keep_row, &rows) == FX_OK) {
        fx_vec_foreach(char *, r, &rows.json)
        {
            char *lineage = fx_api_json_text(*r, "hash");
            char *label = fx_api_json_text(*r, "version");
            char *rewrite = fx_api_json_text(*r, "rewrite");
            if (!strcmp(lineage, hash) && !strcmp(label, g->version) && strcmp(rewrite, "null") != 0) {
                o.parent = fx_api_json_text(*r, "parent");
                o.rewrite = rewrite;
                rewrite = NULL;
                o.proof_id = fx_api_json_field(*r, "proof_id");
                o.evidence = fx_api_json_field(*r, "evidence");
            }
            free(lineage);
            free(label);
            free(rewrite);
        }
    }
    fx_vec_foreach(char *, r, &rows.json) free(*r);
    fx_vec_free(&rows.json);
    return o;
}

void fx_api_origin_free(FxVersionOrigin *o)
{
    free(o->parent);
    free(o->rewrite);
    free(o->proof_id);
    free(o->evidence);
}
