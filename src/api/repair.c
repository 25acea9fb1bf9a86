/*
 * repair.c: `flux store check` and `flux store recover` as the public API
 * shows them (flux.h): the store layer's check and recovery
 * (trace/recover.c), printed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

/* A problem integrity_check lists, each of its lines indented. */
static void print_problem(void *ctx, const char *text)
{
    fputs("  ", ctx);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n')
            fputs(p[1] ? "\n  " : "", ctx);
        else /* SQLite's words may quote damaged bytes (a table's name) */
            fputc(*p < ' ' || *p >= 0x7f ? '?' : *p, ctx);
    }
    fputc('\n', ctx);
}

/* ---- what a run would refuse, found at rest ---- */

typedef struct LineageRow {
    int64_t id;
    char *intent, *hash, *path, *text;
} LineageRow;
typedef FX_VEC(LineageRow) LineageRows;

static void collect(void *ctx, int64_t id, const char *intent, const char *hash, const char *path,
                    const char *text)
{
    LineageRow r = {id, fx_xstrdup(intent), fx_xstrdup(hash), path ? fx_xstrdup(path) : NULL,
                    text ? fx_xstrdup(text) : NULL};
    fx_vec_push((LineageRows *)ctx, r);
}

typedef struct Audit {
    FILE *out;        /* the problems, a line each */
    size_t problems;  /* checks that failed */
    size_t versions;  /* versions judged */
    size_t unchecked; /* lineages whose source does not load here */
} Audit;

/* The versions of one lineage, judged as `flux proofs --verify` judges
 * them, against the source the store keeps for it: its hash, its v1, then
 * each version's seal and proof. */
static void audit_lineage(FluxStore *fs, const LineageRow *l, Audit *a)
{
    FxStore *st = fs->store;
    FluxProgram *fp = NULL;
    if (!l->text || flux_program_load_source(l->path, l->text, NULL, NULL, &fp) != FLUX_OK) {
        a->unchecked++; /* a run of the program checks it then */
        return;
    }
    fp->store = fs;
    const FxIntent *in = fx_program_find_intent(fp->prog, l->intent);
    char hash[17];
    if (!in) {
        a->problems++;
        fprintf(a->out, "  lineage #%" PRId64 " of `%s`: the source kept with it defines no "
                        "such intent\n", l->id, l->intent);
    } else if (fx_api_lineage_hash(in, hash), strcmp(hash, l->hash) != 0) {
        a->problems++;
        fprintf(a->out, "  lineage #%" PRId64 " of `%s`: its hash is not that of the constraints "
                        "kept with it: a lineage grafted or edited; its versions never run\n",
                l->id, l->intent);
    } else if (!fx_api_lineage_bound(st, fp->prog, in, l->id)) {
        a->problems++;
        fprintf(a->out, "  lineage #%" PRId64 " of `%s`: its v1 is not the graph of the "
                        "constraints kept with it; its versions never run\n", l->id, l->intent);
    } else {
        FxRows rows = {0};
        if (fx_store_versions(st, in->name, fx_api_keep_row, &rows) == FX_OK) {
            fx_vec_foreach(char *, r, &rows.json)
            {
                char *h = fx_api_json_text(*r, "hash"), *line = NULL;
                size_t len = 0;
                if (!strcmp(h, l->hash)) {
                    FILE *said = open_memstream(&line, &len);
                    bool ok = said && fx_api_verify_version(fp, st, in, l->id, *r, said);
                    if (said)
                        fclose(said);
                    a->versions++;
                    if (!ok) {
                        a->problems++;
                        fprintf(a->out, "  %s", line ? line : "a version could not be judged\n");
                    }
                }
                free(line);
                free(h);
                free(*r);
            }
            fx_vec_free(&rows.json);
        }
    }
    fp->store = NULL;
    flux_program_free(fp);
}

/* Every check a run makes before it trusts what the store holds, made on
 * all of it: the lineages and their versions, the native objects, the
 * kept results. Problems go to out; false when the store cannot be read. */
static bool audit(const char *dir, Audit *a, FILE *summary, FILE *diagnostics)
{
    FxStore *reader = NULL;
    char why[512];
    if (fx_store_open_reading(dir, &reader, why, sizeof(why)) != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: %s\n", why);
        return false;
    }
    FluxStore *fs = fx_xcalloc(1, sizeof(*fs));
    fs->store = reader;
    pthread_mutex_init(&fs->lock, NULL);
    LineageRows lineages = {0};
    size_t natives = 0, bad_natives = 0, kept = 0, bad_kept = 0;
    char *held = NULL;
    size_t held_len = 0;
    FILE *problems = open_memstream(&held, &held_len);
    Audit tally = {problems ? problems : a->out, 0, 0, 0};
    bool read = fx_store_lineages(fs->store, collect, &lineages) == FX_OK;
    fx_vec_foreach(LineageRow, l, &lineages) {
        if (read)
            audit_lineage(fs, l, &tally);
        free(l->intent);
        free(l->hash);
        free(l->path);
        free(l->text);
    }
    fx_vec_free(&lineages);
    read = read && fx_api_native_audit(fs, tally.out, &natives, &bad_natives) == FX_OK &&
           fx_api_keep_audit(fs->store, tally.out, &kept, &bad_kept) == FX_OK;
    if (!read && diagnostics)
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
    if (problems)
        fclose(problems);
    /* the kept results' and objects' lines, indented as the versions' */
    tally.problems += bad_natives + bad_kept;
    *a = tally;
    a->out = NULL;
    /* each problem a line, indented under the verdict */
    for (char *line = held, *nl; line && *line; line = nl + 1) {
        nl = line + strcspn(line, "\n");
        fprintf(summary, "%s%.*s\n", line[0] == ' ' ? "" : "  ", (int)(nl - line), line);
        if (!*nl)
            break;
    }
    free(held);
    fprintf(summary, "  %zu version%s judged by their seals and proofs%s; %zu native object%s "
                     "and %zu kept result%s checked by their MACs\n",
            tally.versions, tally.versions == 1 ? "" : "s",
            tally.unchecked ? " (the sources of some lineages no longer load here: a run "
                              "checks them)" : "",
            natives, natives == 1 ? "" : "s", kept, kept == 1 ? "" : "s");
    (void)fx_store_close(fs->store);
    pthread_mutex_destroy(&fs->lock);
    free(fs);
    return read;
}

int flux_store_check(const char *dir, FILE *out, FILE *diagnostics)
{
    char why[512];
    bool ok;
    dir = fx_api_store_dir(dir);
    char *text = NULL;
    size_t len = 0;
    FILE *held = open_memstream(&text, &len);
    FxStatus st = fx_store_check(dir, print_problem, held ? held : stderr, &ok, why, sizeof(why));
    if (held)
        fclose(held);
    int status = FLUX_OK;
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: %s\n", why);
        status = FLUX_ERR_STORE;
    } else if (!ok) {
        fprintf(out, "the store at %s is damaged (integrity_check):\n%s", dir, text ? text : "");
        fprintf(out, "`flux store recover --store %s NEWDIR` copies what is readable into a new "
                     "store\n",
                dir);
        status = FLUX_ERR_STORE;
    } else {
        char *said = NULL;
        size_t said_len = 0;
        FILE *s = open_memstream(&said, &said_len);
        Audit a = {0};
        bool read = s && audit(dir, &a, s, diagnostics);
        if (s)
            fclose(s);
        if (!read)
            status = FLUX_ERR_STORE;
        else if (a.problems)
            status = FLUX_ERR_REJECTED;
        if (read && a.problems)
            fprintf(out, "the store at %s fails %zu check%s:\n%s", dir, a.problems,
                    a.problems == 1 ? "" : "s", said ? said : "");
        else if (read)
            fprintf(out, "the store at %s: ok\n%s", dir, said ? said : "");
        free(said);
    }
    free(text);
    return status;
}

typedef struct Report {
    FILE *out;
    int64_t kept, gaps;
} Report;

static void print_table(void *ctx, const char *table, int64_t kept, int64_t gaps)
{
    Report *r = ctx;
    r->kept += kept;
    r->gaps += gaps;
    fprintf(r->out, "  %-12s %" PRId64 " rows", table, kept);
    if (gaps)
        fprintf(r->out, ", %" PRId64 " unreadable stretch%s skipped", gaps, gaps > 1 ? "es" : "");
    fputc('\n', r->out);
}

int flux_store_recover(const char *dir, const char *new_dir, FILE *out, FILE *diagnostics)
{
    char why[512];
    dir = fx_api_store_dir(dir);
    Report r = {.out = out};
    fprintf(out, "recovering the store at %s into %s:\n", dir, new_dir);
    if (fx_store_recover(dir, new_dir, print_table, &r, why, sizeof(why)) != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: %s\n", why);
        return FLUX_ERR_STORE;
    }
    fprintf(out, "kept %" PRId64 " rows; %" PRId64 " unreadable stretch%s skipped\n", r.kept,
            r.gaps, r.gaps == 1 ? "" : "es");
    if (r.kept == 0) { /* a recovery that kept nothing did not recover */
        if (diagnostics)
            fprintf(diagnostics, "flux: nothing of the store at %s could be read; the store at "
                                 "%s is empty\n", dir, new_dir);
        return FLUX_ERR_STORE;
    }
    return FLUX_OK;
}
