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
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: %s\n", why);
    } else if (ok) {
        fprintf(out, "the store at %s: ok\n", dir);
    } else {
        fprintf(out, "the store at %s is damaged (integrity_check):\n%s", dir, text ? text : "");
        fprintf(out, "`flux store recover --store %s NEWDIR` copies what is readable into a new "
                     "store\n",
                dir);
    }
    free(text);
    return st == FX_OK && ok ? FLUX_OK : FLUX_ERR_STORE;
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
