/*
 * api.c: the JSON API of `flux serve` (docs/web.md), on the public API.
 *
 * Every answer is one JSON object: {"programs": [...]}, {"versions": [...]},
 * {"executions": [...], "next_before": ...}, {"execution": {...}},
 * {"graph": {...}}, {"proofs": [...]}, {"proof": [...]}, or, for any
 * failure, {"error": {"status": S, "message": M}}. The rows are the library's
 * own JSON lines (flux traces/history/proofs --json), spliced in as text,
 * never parsed again: an output may hold an integer wider than 64 bits.
 * The caller (serve.c) makes the calls one at a time: a program and its
 * store take one caller.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

#define PAGE_DEFAULT 100
#define PAGE_MAX     1000

/* A text built through a FILE. */
typedef struct Text {
    FILE *f;
    char *data;
    size_t len;
} Text;

static FILE *text_open(Text *t)
{
    t->data = NULL;
    t->len = 0;
    t->f = open_memstream(&t->data, &t->len);
    return t->f;
}

/* Closes the FILE; the text stays, the caller frees it. */
static char *text_close(Text *t)
{
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    return t->data;
}

/* The length of the UTF-8 character at p (1 to 4), or 0 when the bytes
 * there are not one (a stray byte, an overlong form, a surrogate). */
static size_t utf8_char(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
             : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

/* s as a JSON string: a byte that is no UTF-8 character (a query
 * parameter's %FF, echoed in an error) is U+FFFD, so the answer stays JSON. */
static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_char(p);
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else if (n == 0)
            fputs("\\ufffd", out);
        else
            fwrite(p, 1, n, out);
        p += n ? n : 1;
    }
    fputc('"', out);
}

/* The lines of text (JSON values, one a line), as the elements of an
 * array without its brackets; *first tracks the comma. */
static void put_lines(FILE *out, const char *text, bool *first)
{
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0 && *p == '{') {
            fputs(*first ? "" : ", ", out);
            fwrite(p, 1, n, out);
            *first = false;
        }
        p += n + (end != NULL);
    }
}

FxWebAnswer fx_web_error(unsigned status, const char *message)
{
    Text t;
    FILE *f = text_open(&t);
    fprintf(f, "{\"error\": {\"status\": %u, \"message\": ", status);
    /* the library's diagnostics start with "flux: " and end with a newline */
    const char *m = strncmp(message, "flux: ", 6) == 0 ? message + 6 : message;
    char *one = strdup(m);
    size_t n = strlen(one);
    while (n > 0 && one[n - 1] == '\n')
        one[--n] = '\0';
    put_string(f, *one ? one : "failed");
    free(one);
    fputs("}}", f);
    char *body = text_close(&t);
    return (FxWebAnswer){status, body, strlen(body), NULL};
}

static FxWebAnswer answer(char *body)
{
    return (FxWebAnswer){200, body, strlen(body), NULL};
}

/* {"key": V}: V the first line of text, one JSON value. */
static FxWebAnswer wrap(const char *key, const char *text)
{
    Text t;
    FILE *f = text_open(&t);
    fprintf(f, "{\"%s\": ", key);
    fwrite(text, 1, strcspn(text, "\n"), f);
    fputs("}", f);
    return answer(text_close(&t));
}

/* A flux status as an HTTP one. */
static unsigned http_status(int flux_status)
{
    switch (flux_status) {
    case FLUX_ERR_USAGE:
        return 404;
    case FLUX_ERR_REJECTED: /* the program is refused: a source outside its folder */
        return 403;
    case FLUX_ERR_STORE:
        return 503;
    default:
        return 500;
    }
}

/* Whether prog has an intent of that name. */
static bool has_intent(FluxProgram *prog, const char *intent)
{
    for (size_t i = 0; i < flux_program_intent_count(prog); i++)
        if (!strcmp(flux_program_intent_name(prog, i), intent))
            return true;
    return false;
}

/* The program that has intent, or NULL. */
static FluxProgram *program_of(const FxServeConfig *cfg, const char *intent)
{
    for (size_t i = 0; i < cfg->n_programs; i++)
        if (has_intent(cfg->programs[i], intent))
            return cfg->programs[i];
    return NULL;
}

/* A number argument: def when absent; false when not a number in [lo, hi]. */
static bool number_arg(FxWebArg arg, void *ctx, const char *name, long long def, long long lo,
                       long long hi, long long *out)
{
    const char *s = arg(ctx, name);
    *out = def;
    if (!s)
        return true;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static FxWebAnswer programs(const FxServeConfig *cfg)
{
    Text t;
    FILE *f = text_open(&t);
    fputs("{\"programs\": [", f);
    for (size_t i = 0; i < cfg->n_programs; i++) {
        fputs(i ? ", {\"file\": " : "{\"file\": ", f);
        put_string(f, cfg->files[i]);
        fputs(", \"intents\": [", f);
        for (size_t k = 0; k < flux_program_intent_count(cfg->programs[i]); k++) {
            fputs(k ? ", " : "", f);
            put_string(f, flux_program_intent_name(cfg->programs[i], k));
        }
        fputs("]}", f);
    }
    fputs("]}", f);
    return answer(text_close(&t));
}

/* The JSON lines fn writes for each program that has intent (every
 * program when intent is NULL), as {"key": [...]}. */
typedef int (*LinesFn)(const FxServeConfig *cfg, FluxProgram *prog, const char *intent,
                       void *ctx, FILE *out, FILE *diagnostics);

static FxWebAnswer collect(const FxServeConfig *cfg, const char *key, const char *intent,
                           LinesFn fn, void *ctx)
{
    if (intent && !program_of(cfg, intent)) {
        char msg[300];
        snprintf(msg, sizeof(msg), "no intent `%.200s` in the programs served", intent);
        return fx_web_error(404, msg);
    }
    Text t, lines, diag;
    FILE *f = text_open(&t);
    fprintf(f, "{\"%s\": [", key);
    bool first = true;
    int status = FLUX_OK;
    for (size_t i = 0; i < cfg->n_programs && status == FLUX_OK; i++) {
        FluxProgram *prog = cfg->programs[i];
        if (intent && !has_intent(prog, intent))
            continue;
        FILE *out = text_open(&lines), *d = text_open(&diag);
        status = fn(cfg, prog, intent, ctx, out, d);
        char *text = text_close(&lines), *why = text_close(&diag);
        if (status == FLUX_OK)
            put_lines(f, text, &first);
        else {
            text_close(&t);
            free(t.data);
            FxWebAnswer a = fx_web_error(http_status(status), why && *why ? why : "failed");
            free(text);
            free(why);
            return a;
        }
        free(text);
        free(why);
    }
    fputs("]}", f);
    return answer(text_close(&t));
}

static int versions_of(const FxServeConfig *cfg, FluxProgram *prog, const char *intent,
                       void *ctx, FILE *out, FILE *diagnostics)
{
    (void)ctx;
    return flux_history(cfg->store, prog, intent, 1, out, diagnostics);
}

static int proofs_of(const FxServeConfig *cfg, FluxProgram *prog, const char *intent, void *ctx,
                     FILE *out, FILE *diagnostics)
{
    (void)intent;
    (void)ctx;
    return flux_proofs(cfg->store, prog, 0, 0, 0, 1, out, diagnostics);
}

/* One proof: its verdict and obligations as SMT-LIB text, with the Coq
 * lemmas it cites (`flux proofs ID --smt`), as {"proof": {"id", "text"}}. */
static FxWebAnswer proof(const FxServeConfig *cfg, long long id)
{
    Text out, diag;
    FILE *o = text_open(&out), *d = text_open(&diag);
    int status = cfg->n_programs ? flux_proofs(cfg->store, cfg->programs[0], id, 1, 0, 0, o, d)
                                 : FLUX_ERR_USAGE;
    char *text = text_close(&out), *why = text_close(&diag);
    FxWebAnswer a;
    if (status != FLUX_OK) {
        a = fx_web_error(http_status(status), why && *why ? why : "no such proof");
    } else {
        Text t;
        FILE *f = text_open(&t);
        fprintf(f, "{\"proof\": {\"id\": %lld, \"text\": ", id);
        put_string(f, text ? text : "");
        fputs("}}", f);
        a = answer(text_close(&t));
    }
    free(text);
    free(why);
    return a;
}

/* The execution id a traces row names ("execution_id": "exec_N"), or 0. */
static long long row_id(const char *row)
{
    const char *p = strstr(row, "\"execution_id\": \"exec_");
    return p ? strtoll(p + strlen("\"execution_id\": \"exec_"), NULL, 10) : 0;
}

/* Executions of cfg's programs (or of intent's) below `before`, newest
 * first, at most `limit`: the rows, one a line, in *rows (caller frees). */
static int page(const FxServeConfig *cfg, const char *intent, long long before, long limit,
                char **rows, char **why)
{
    /* each program's newest `limit`, merged by id */
    size_t n = 0, cap = 0;
    char **all = NULL;
    int status = FLUX_OK;
    *why = NULL;
    for (size_t i = 0; i < cfg->n_programs && status == FLUX_OK; i++) {
        FluxProgram *prog = cfg->programs[i];
        if (intent && !has_intent(prog, intent))
            continue;
        Text lines, diag;
        FILE *out = text_open(&lines), *d = text_open(&diag);
        status = flux_traces_page(cfg->store, prog, intent, before, limit, out, d);
        char *text = text_close(&lines);
        free(*why);
        *why = text_close(&diag);
        for (char *p = text, *end; p && *p; p = end + 1) {
            end = strchr(p, '\n');
            if (!end)
                break;
            *end = '\0';
            if (n == cap)
                all = realloc(all, (cap = cap ? 2 * cap : 64) * sizeof(*all));
            all[n++] = strdup(p);
        }
        free(text);
    }
    /* newest first across programs: by id, descending */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && row_id(all[j]) > row_id(all[j - 1]); j--) {
            char *x = all[j];
            all[j] = all[j - 1];
            all[j - 1] = x;
        }
    Text t;
    FILE *f = text_open(&t);
    for (size_t i = 0; i < n; i++) {
        if ((long)i < limit)
            fprintf(f, "%s\n", all[i]);
        free(all[i]);
    }
    free(all);
    *rows = text_close(&t);
    return status;
}

/* The text of a row's string field `key` (its first occurrence), copied
 * into buf; "" when absent. */
static const char *row_text(const char *row, const char *key, char *buf, size_t len)
{
    char pattern[48];
    snprintf(pattern, sizeof(pattern), "\"%s\": \"", key);
    const char *p = strstr(row, pattern), *end = p ? strchr(p + strlen(pattern), '"') : NULL;
    size_t n = end ? (size_t)(end - (p + strlen(pattern))) : 0;
    n = n < len - 1 ? n : len - 1;
    memcpy(buf, end ? p + strlen(pattern) : "", n);
    buf[n] = '\0';
    return buf;
}

/* The filters of GET /api/executions besides the intent. */
typedef struct Filter {
    const char *version, *since, *until; /* NULL: any */
} Filter;

static bool row_matches(const char *row, const Filter *f)
{
    char v[32], at[40];
    if (f->version && strcmp(row_text(row, "graph_version", v, sizeof(v)), f->version))
        return false;
    row_text(row, "recorded_at", at, sizeof(at));
    return (!f->since || strcmp(at, f->since) >= 0) && (!f->until || strcmp(at, f->until) < 0);
}

/* A filtered page scans at most this many executions; the answer's
 * next_before then says where to go on. */
#define SCAN_MAX 100000

static FxWebAnswer executions(const FxServeConfig *cfg, FxWebArg arg, void *ctx)
{
    long long before, limit;
    const char *intent = arg(ctx, "intent");
    Filter filter = {arg(ctx, "version"), arg(ctx, "since"), arg(ctx, "until")};
    bool filtered = filter.version || filter.since || filter.until;
    if (!number_arg(arg, ctx, "before", 0, 0, INT64_MAX, &before) ||
        !number_arg(arg, ctx, "limit", PAGE_DEFAULT, 1, PAGE_MAX, &limit))
        return fx_web_error(400, "before is an execution id, limit a number from 1 to 1000");
    if (intent && !program_of(cfg, intent))
        return fx_web_error(404, "no such intent in the programs served");
    Text t;
    FILE *f = text_open(&t);
    fputs("{\"executions\": [", f);
    bool first = true, more = true;
    long long count = 0, scanned = 0, last = 0;
    /* pages of the store, newest first, until `limit` rows match or none is left */
    while (more && count < limit && scanned < SCAN_MAX) {
        char *rows, *why;
        long want = filtered ? PAGE_MAX : (long)(limit - count);
        int status = page(cfg, intent, before, want, &rows, &why);
        if (status != FLUX_OK) {
            free(text_close(&t));
            FxWebAnswer a = fx_web_error(http_status(status), why ? why : "failed");
            free(rows);
            free(why);
            return a;
        }
        free(why);
        long got = 0;
        for (char *p = rows, *end; p && *p && count < limit; p = end + 1) {
            end = strchr(p, '\n');
            if (!end)
                break;
            *end = '\0';
            got++;
            scanned++;
            before = last = row_id(p);
            if (!filtered || row_matches(p, &filter)) {
                fprintf(f, "%s%s", first ? "" : ", ", p);
                first = false;
                count++;
            }
        }
        /* a full answer may have more below it; else a short page was the last */
        more = count >= limit || (got == want && before > 1);
        free(rows);
    }
    /* the last row read pages on, unless the store has no older row */
    if (more && last > 0)
        fprintf(f, "], \"next_before\": %lld}", last);
    else
        fputs("], \"next_before\": null}", f);
    return answer(text_close(&t));
}

static FxWebAnswer execution(const FxServeConfig *cfg, FxWebArg arg, void *ctx)
{
    long long id;
    if (!number_arg(arg, ctx, "id", 0, 1, INT64_MAX - 1, &id) || id == 0)
        return fx_web_error(400, "id is an execution id (a number from 1)");
    char *rows, *why;
    int status = page(cfg, NULL, id + 1, 1, &rows, &why);
    FxWebAnswer a;
    if (status != FLUX_OK)
        a = fx_web_error(http_status(status), why ? why : "failed");
    else if (!rows || row_id(rows) != id)
        a = fx_web_error(404, "no execution of that id among the programs served");
    else
        a = wrap("execution", rows);
    free(rows);
    free(why);
    return a;
}

static FxWebAnswer graph(const FxServeConfig *cfg, FxWebArg arg, void *ctx)
{
    const char *intent = arg(ctx, "intent"), *version = arg(ctx, "version");
    const char *format = arg(ctx, "format");
    if (!intent)
        return fx_web_error(400, "graph needs ?intent=NAME");
    if (format && strcmp(format, "json") && strcmp(format, "svg"))
        return fx_web_error(400, "format is json or svg");
    FluxProgram *prog = program_of(cfg, intent);
    if (!prog)
        return fx_web_error(404, "no such intent in the programs served");
    bool svg = format && !strcmp(format, "svg");
    Text out, diag;
    FILE *o = text_open(&out), *d = text_open(&diag);
    int status = flux_graph(prog, intent, version, svg ? "svg" : "json", o, d);
    char *text = text_close(&out), *why = text_close(&diag);
    FxWebAnswer a;
    if (status != FLUX_OK) {
        a = fx_web_error(http_status(status), why && *why ? why : "failed");
        free(text);
    } else if (svg) {
        a = (FxWebAnswer){200, text, out.len, "image/svg+xml"};
    } else {
        Text t;
        FILE *f = text_open(&t);
        fputs("{\"graph\": ", f);
        size_t n = out.len;
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
            n--;
        fwrite(text, 1, n, f);
        fputs("}", f);
        a = answer(text_close(&t));
        free(text);
    }
    free(why);
    return a;
}

/* The answer of a library call that wrote one JSON value to `out` (an
 * object, or null) and its reasons to `diag`, both closed here: {"key":
 * the value} when ok, else an error with `status`. */
static FxWebAnswer closing(const char *key, bool ok, unsigned status, Text *out, Text *diag)
{
    char *text = text_close(out), *why = text_close(diag);
    FxWebAnswer a = ok && text && (*text == '{' || !strncmp(text, "null", 4))
                            ? wrap(key, text)
                            : fx_web_error(status, why && *why ? why : "failed");
    free(text);
    free(why);
    return a;
}

/* A library call about one version of an intent (flux_node_counts,
 * flux_cost_models): {"key": its JSON}, for ?intent=NAME&version=vN. */
typedef int (*VersionFn)(FluxStore *store, FluxProgram *prog, const char *intent,
                         const char *version, FILE *out, FILE *diagnostics);

static FxWebAnswer of_version(const FxServeConfig *cfg, FxWebArg arg, void *ctx, const char *key,
                              VersionFn fn)
{
    const char *intent = arg(ctx, "intent");
    if (!intent)
        return fx_web_error(400, "this path needs ?intent=NAME");
    FluxProgram *prog = program_of(cfg, intent);
    if (!prog)
        return fx_web_error(404, "no such intent in the programs served");
    Text out, diag;
    FILE *o = text_open(&out), *d = text_open(&diag);
    int status = fn(cfg->store, prog, intent, arg(ctx, "version"), o, d);
    return closing(key, status == FLUX_OK, http_status(status), &out, &diag);
}

/* Time travel: the learning round before execution ID (what each rule
 * said by then): {"round": {...} or null}. */
static FxWebAnswer round_before(const FxServeConfig *cfg, FxWebArg arg, void *ctx)
{
    long long id;
    if (!number_arg(arg, ctx, "id", 0, 1, INT64_MAX, &id) || id == 0)
        return fx_web_error(400, "round needs ?id=N, an execution id");
    Text out, diag;
    FILE *o = text_open(&out), *d = text_open(&diag);
    int status = flux_round_before(cfg->store, id, o, d);
    return closing("round", status == FLUX_OK, http_status(status), &out, &diag);
}

/* Time travel: execution ID run again on its version or on `version`,
 * compared with its record (`flux replay --json`); records nothing. */
FxWebAnswer fx_web_replay(const FxServeConfig *cfg, FxWebArg arg, void *ctx)
{
    long long id;
    if (!number_arg(arg, ctx, "id", 0, 1, INT64_MAX, &id) || id == 0)
        return fx_web_error(400, "replay needs ?id=N, an execution id");
    Text out, diag;
    FILE *o = text_open(&out), *d = text_open(&diag);
    /* a page waits for it: 10 s at most (a naive version can take ages) */
    FluxRunOptions bounded = {.max_seconds = 10};
    int status = flux_replay(cfg->store, id, arg(ctx, "version"), &bounded, 1, o, d);
    return closing("replay", status == FLUX_OK || status == FLUX_DIFFERENT,
                   status == FLUX_OK || status == FLUX_DIFFERENT ? 500 : http_status(status),
                   &out, &diag);
}

FxWebAnswer fx_web_api(const FxServeConfig *cfg, const char *path, FxWebArg arg, void *ctx)
{
    /* versions another process installed since: read before answering */
    if (!strcmp(path, "/api/versions") || !strcmp(path, "/api/graph"))
        for (size_t i = 0; i < cfg->n_programs; i++)
            flux_program_refresh(cfg->programs[i]);
    if (!strcmp(path, "/api/programs"))
        return programs(cfg);
    if (!strcmp(path, "/api/versions"))
        return collect(cfg, "versions", arg(ctx, "intent"), versions_of, NULL);
    if (!strcmp(path, "/api/executions"))
        return executions(cfg, arg, ctx);
    if (!strcmp(path, "/api/execution"))
        return execution(cfg, arg, ctx);
    if (!strcmp(path, "/api/graph"))
        return graph(cfg, arg, ctx);
    if (!strcmp(path, "/api/proofs"))
        return collect(cfg, "proofs", NULL, proofs_of, NULL);
    /* {"node_counts": {"intent", "version", "counts": [{"node", "count", "ms"}]}} */
    if (!strcmp(path, "/api/counts"))
        return of_version(cfg, arg, ctx, "node_counts", flux_node_counts);
    /* {"cost_models": {"intent", "version", "here", "at_install"}} */
    if (!strcmp(path, "/api/models"))
        return of_version(cfg, arg, ctx, "cost_models", flux_cost_models);
    if (!strcmp(path, "/api/round"))
        return round_before(cfg, arg, ctx);
    if (!strcmp(path, "/api/proof")) {
        long long id = 0;
        if (!number_arg(arg, ctx, "id", 0, 1, INT64_MAX, &id) || id == 0)
            return fx_web_error(400, "proof needs ?id=N, a proof id");
        return proof(cfg, id);
    }
    return fx_web_error(404, "no such API path (docs/web.md lists them)");
}

long long fx_web_newest(const FxServeConfig *cfg)
{
    char *rows, *why;
    long long id = 0;
    if (page(cfg, NULL, 0, 1, &rows, &why) == FLUX_OK && rows)
        id = row_id(rows);
    free(rows);
    free(why);
    return id;
}

char *fx_web_since(const FxServeConfig *cfg, long long after, long limit, long long *newest)
{
    char *rows, *why;
    *newest = after;
    int status = page(cfg, NULL, 0, limit, &rows, &why);
    free(why);
    if (status != FLUX_OK || !rows || !*rows) {
        free(rows);
        return NULL;
    }
    /* newest first: keep those above `after`, then reverse */
    size_t n = 0;
    char *lines[PAGE_MAX];
    for (char *p = rows, *end; *p && n < PAGE_MAX; p = end + 1) {
        end = strchr(p, '\n');
        if (!end)
            break;
        *end = '\0';
        if (row_id(p) <= after)
            break;
        lines[n++] = p;
    }
    if (n == 0) {
        free(rows);
        return NULL;
    }
    *newest = row_id(lines[0]);
    Text t;
    FILE *f = text_open(&t);
    for (size_t i = n; i-- > 0;)
        fprintf(f, "%s\n", lines[i]);
    free(rows);
    return text_close(&t);
}
