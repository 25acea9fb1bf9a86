/*
 * run.c: evaluating an EXPR, recording the run, and the execution record
 * of `flux run --json`.
 *
 * The record's input is the expression's own last call to an intent (for
 * `f(x)[2]`, f and x's value), which the runtime keeps as it runs, so the
 * arguments are never evaluated twice. Recording queues the execution in
 * the store; the caller flushes (the CLI after printing the value, or
 * before printing it when --json needs the id).
 *
 * A value recorded is written whole up to SUMMARY_BYTES of JSON, and past
 * that summarised. A value holding big integers of more digits than that
 * is summarised without ever being turned into decimal, which for 10^8
 * digits costs ten times the evaluation: its bits, an estimate of its
 * digits, its last digits and fx_val_hash (summarise_integers). The value
 * printed on stdout stays exact: the user asked for it.
 *
 * A run stopped by a budget is recorded too (record_stop), with no output,
 * a decision naming the budget, and its message as the reason; the
 * analyzer leaves such runs out (traces.c).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_int.h"
#include "graph/lower.h"
#include "hw/hw.h"
#include "exec/meter.h"
#include "exec/native.h"
#include "hw/ktrace.h"
#include "hw/setup.h"
#include "lang/check.h"
#include "lang/parse.h"

#define SUMMARY_BYTES (64 * 1024)

/* Writing the result (its text, printed and recorded, hashed when it is
 * summarised) is part of the run's time: a result the time left cannot
 * write is refused before any of it is, as the budget would have stopped
 * the evaluation. The estimate: 8 ns a byte of its text (a String of 128
 * MiB took 0.9 s to hash, record and print, 6.7 ns a byte, on a Zen 1 core
 * of the 2-core test machine: a little over, so that the budget holds),
 * and its big integers' digits as str() counts them. */
static bool result_fits(FxBudgets b, double ms, FxValue v, FILE *diagnostics)
{
    if (b.max_seconds <= 0)
        return true;
    size_t bytes = fx_val_json_at_least(v, SIZE_MAX, NULL);
    double need = (double)bytes * 8e-9 + (double)fx_val_decimal_work(v) * 1e-9;
    double left = b.max_seconds - ms / 1e3;
    if (need <= left)
        return true;
    if (diagnostics)
        fprintf(diagnostics, "the time budget of %g s is exhausted: writing the result (%zu "
                "bytes of text) would take about %.2g s, more than the %.2g s left; raise it "
                "with --max-seconds\n", b.max_seconds, bytes, need, left > 0 ? left : 0.0);
    return false;
}

FxBudgets fx_api_budgets(const FluxRunOptions *o)
{
    FxBudgets b = fx_budgets_default();
    if (o && o->max_steps)
        b.max_steps = o->max_steps;
    if (o && o->max_depth)
        b.max_depth = o->max_depth;
    if (o && o->max_memory_mb)
        b.max_memory_mb = o->max_memory_mb;
    if (o && o->max_seconds > 0)
        b.max_seconds = o->max_seconds;
    return b;
}

void fx_api_json_string(const char *s, FxBuf *out)
{
    fx_val_print_json_text(s, strlen(s), out);
}

static char hardware_line[128], fingerprint[512];
static pthread_once_t hardware_once = PTHREAD_ONCE_INIT;

/* The machine, described once a process (detection reads files). */
static void describe_hardware(void)
{
    FxHardware hw = fx_hw_detect();
    FxBuf b = {0};
    fx_hw_describe(&hw, &b);
    snprintf(hardware_line, sizeof(hardware_line), "%s", fx_buf_str(&b));
    b.len = 0;
    fx_hw_fingerprint(&hw, &b);
    snprintf(fingerprint, sizeof(fingerprint), "%s", fx_buf_str(&b));
    fx_buf_free(&b);
}

const char *fx_api_hardware(void)
{
    pthread_once(&hardware_once, describe_hardware);
    return hardware_line;
}

const char *fx_api_fingerprint(void)
{
    pthread_once(&hardware_once, describe_hardware);
    return fingerprint;
}

/* The end of the JSON value that starts at p (a string, number, literal,
 * array or object); NULL when malformed. */
static const char *json_value_end(const char *p)
{
    int depth = 0;
    bool in_string = false;
    for (; *p; p++) {
        char c = *p;
        if (in_string) {
            if (c == '\\' && p[1])
                p++;
            else if (c == '"' && (in_string = false, depth == 0))
                return p + 1;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{')
            depth++;
        else if ((c == ']' || c == '}') && --depth <= 0)
            return depth == 0 ? p + 1 : p;
        else if (depth == 0 && (c == ',' || c == '}'))
            return p;
    }
    return depth == 0 ? p : NULL;
}

char *fx_api_json_field(const char *json, const char *key)
{
    char *needle = fx_xasprintf("\"%s\": ", key);
    const char *at = strstr(json, needle);
    size_t skip = strlen(needle);
    free(needle);
    if (!at)
        return NULL;
    const char *start = at + skip, *end = json_value_end(start);
    return end ? fx_xstrndup(start, (size_t)(end - start)) : NULL;
}

FxExpr *fx_api_parse_expr(FluxProgram *fp, const char *expr, const char *name, FxArena *arena,
                          FILE *diagnostics)
{
    FxDiag d = {0};
    /* the source lives with the program: graph nodes keep pointers into it */
    pthread_mutex_lock(&fp->lock);
    FxSource *src = fx_diag_add_source(&fp->diag, name ? name : "<expr>", expr, strlen(expr));
    FxExpr *e = fx_parse_expression(&d, src, arena);
    FxDiag *saved = fp->prog->diag;
    fp->prog->diag = &d;
    bool ok = e && fx_check_expression(fp->prog, e);
    fp->prog->diag = saved;
    pthread_mutex_unlock(&fp->lock);
    if (!ok && diagnostics)
        fx_diag_render(&d, diagnostics);
    fx_diag_free(&d);
    return ok ? e : NULL;
}

/* The decimal digits of the big integers v holds, at most (sizeinbase may
 * count one more), stopping once past `cap`. */
static size_t big_digits(FxValue v, size_t cap)
{
    size_t n = 0;
    switch (v.kind) {
    case FX_VAL_BIG: return fx_val_int_digits(v);
    case FX_VAL_LIST:
        for (size_t i = 0; i < fx_val_list_len(v) && n <= cap; i++)
            n += big_digits(fx_val_list_at(v, i), cap);
        return n;
    case FX_VAL_MATRIX:
        for (size_t i = 0; i < fx_val_matrix_rows(v) && n <= cap; i++)
            for (size_t j = 0; j < fx_val_matrix_cols(v) && n <= cap; j++)
                n += big_digits(fx_val_matrix_at(v, i, j), cap);
        return n;
    case FX_VAL_RECORD:
        for (size_t i = 0; i < fx_val_record_size(v) && n <= cap; i++)
            n += big_digits(fx_val_record_at(v, i), cap);
        return n;
    default: return 0;
    }
}

/* How many elements a value holds: a list's or a string's length, a
 * matrix's cells, a record's fields; 1 for a scalar. */
static size_t elements(FxValue v)
{
    switch (v.kind) {
    case FX_VAL_LIST: return fx_val_list_len(v);
    case FX_VAL_MATRIX: return fx_val_matrix_rows(v) * fx_val_matrix_cols(v);
    case FX_VAL_RECORD: return fx_val_record_size(v);
    case FX_VAL_STRING: {
        size_t len;
        fx_val_string_data(v, &len);
        return len;
    }
    default: return 1;
    }
}

/* The summary of a value whose big integers have more than SUMMARY_BYTES
 * digits, made without converting them to decimal: for an integer its bits,
 * its digits (sizeinbase's, which may be one too many), its last 20 digits
 * and sign; for anything else its elements; and fx_val_hash. *out_bytes
 * gets the size its JSON text would have, at most. */
static void summarise_integers(FxValue v, FxBuf *out, char hash[17], int64_t *out_bytes)
{
    snprintf(hash, 17, "%016llx", (unsigned long long)fx_val_hash(v));
    if (v.kind == FX_VAL_BIG) {
        char last[24];
        fx_val_int_last_digits(v, last, sizeof(last));
        size_t digits = fx_val_int_digits(v);
        unsigned long long bits = fx_val_int_bits(v);
        *out_bytes = (int64_t)digits + (fx_val_int_sign(v) < 0);
        fx_buf_printf(out, "{\"summary\": \"an integer of %llu bits (about %zu decimal digits), "
                      "not written out\", \"hash\": \"%s\", \"bits\": %llu, \"sign\": %d, "
                      "\"last_digits\": \"%s\"}", bits, digits, hash, bits,
                      fx_val_int_sign(v), last);
        return;
    }
    size_t digits = big_digits(v, SIZE_MAX);
    *out_bytes = (int64_t)digits;
    fx_buf_printf(out, "{\"summary\": \"a value holding integers of about %zu decimal digits "
                  "in all, not written out\", \"hash\": \"%s\", \"elements\": %zu}",
                  digits, hash, elements(v));
}

/* A value as the store keeps it: its JSON text, whole (keep, or up to
 * SUMMARY_BYTES), or summarised: when it holds big integers of more digits
 * than SUMMARY_BYTES, by summarise_integers; when its text would surely
 * be longer than SUMMARY_BYTES, as that length and fx_val_hash, without
 * writing it (printing 5.8 million primes to hash them took three times
 * the sieve's time); else as its size and the hash of its text. hash and
 * *bytes (when asked) get the hash and the size of the whole text (at
 * least, for a value not written out). */
static void value_json(FxValue v, bool keep, FxBuf *out, char *hash, int64_t *bytes)
{
    char h[17];
    int64_t size;
    size_t bigs = 0, at_least = keep ? 0 : fx_val_json_at_least(v, SIZE_MAX, &bigs);
    if (!keep && bigs > SUMMARY_BYTES) {
        summarise_integers(v, out, h, &size);
    } else if (!keep && at_least > SUMMARY_BYTES) {
        snprintf(h, sizeof(h), "%016llx", (unsigned long long)fx_val_hash(v));
        size = (int64_t)at_least;
        fx_buf_printf(out, "{\"summary\": \"a value of at least %lld bytes as JSON, not written "
                      "out\", \"hash\": \"%s\", \"elements\": %zu}", (long long)size, h,
                      elements(v));
    } else {
        size_t at = out->len;
        fx_val_print_json(v, out);
        size = (int64_t)(out->len - at);
        fx_store_hash(out->data + at, out->len - at, h);
        if (!keep && size > SUMMARY_BYTES) {
            out->len = at;
            fx_buf_printf(out, "{\"summary\": \"a value of %lld bytes as JSON\", \"hash\": "
                          "\"%s\", \"elements\": %zu}", (long long)size, h, elements(v));
        }
    }
    if (hash)
        memcpy(hash, h, 17);
    if (bytes)
        *bytes = size;
}

void fx_api_value_json(FxValue v, bool keep, FxBuf *out)
{
    value_json(v, keep, out, NULL, NULL);
}

/* {"n": 100}: the arguments of the expression's call of an intent. With
 * `summarise`, an argument over SUMMARY_BYTES as JSON is written as a
 * summary, as a recorded output is (docs/store.md). */
static void input_json(const FxGraph *callee, const FxValue *args, size_t n, bool summarise,
                       FxBuf *out)
{
    fx_buf_putc(out, '{');
    for (size_t i = 0; callee && i < n && i < callee->n_params; i++) {
        if (i)
            fx_buf_puts(out, ", ");
        fx_api_json_string(callee->param_names[i], out);
        fx_buf_puts(out, ": ");
        value_json(args[i], !summarise, out, NULL, NULL);
    }
    fx_buf_putc(out, '}');
}

static bool has_checks(const FxGraph *g)
{
    for (uint32_t i = 0; g && i < g->n_nodes; i++)
        if (g->nodes[i].op == FX_NODE_CHECK)
            return true;
    return false;
}

/* What the record says of the version that ran: why it was chosen, what
 * rewrites and proofs it rests on, and how its output is known correct. */
typedef struct VersionStory {
    char *reason, *verified, *optimizations, *proof_ids, *proof_id;
    const char *switches; /* decided while running (runaway protection), or NULL */
    const FxVariantChoice *choice; /* the kernel variant the call ran, or NULL */
    bool from_table;               /* the call was answered by the hot-input table */
    char *data_choice;             /* a data kernel's choice, "DECISION: REASON", or NULL */
    char *data_choice_proof;       /* its proof when another intent's version made it */
} VersionStory;

char *fx_api_data_choice(FluxProgram *fp, FxRuntime *rt, const FxGraph *g, char **proof_id)
{
    const FxGraph *by;
    const char *c = fx_runtime_data_choice(rt, &by), *colon = c ? strchr(c, ':') : NULL;
    *proof_id = NULL;
    if (!c || !colon || !by || !g || !strcmp(by->intent, g->intent))
        return c ? fx_xstrdup(c) : NULL;
    const FxIntent *in = fx_program_find_intent(fp->prog, by->intent);
    FxVersionOrigin o = in ? fx_api_origin(fp, in, by) : (FxVersionOrigin){0};
    char *s = fx_xasprintf("%.*s: in `%s` %s%s%s: %s", (int)(colon - c), c, by->intent,
                           by->version, o.proof_id ? ", proved by proof #" : "",
                           o.proof_id ? o.proof_id : "", colon + 2);
    *proof_id = fx_xstrdup(o.proof_id ? o.proof_id : "null");
    fx_api_origin_free(&o);
    return s;
}

/* forced: the caller forced the version (FluxRunOptions.version) */
static VersionStory version_story(FluxProgram *fp, FxRuntime *rt, const FxGraph *g, bool forced)
{
    VersionStory vs = {0};
    const FxIntent *in = g ? fx_program_find_intent(fp->prog, g->intent) : NULL;
    FxVersionOrigin o = in ? fx_api_origin(fp, in, g) : (FxVersionOrigin){0};
    const char *checks = has_checks(g) ? ", postconditions checked on the result" : "";
    const char *refused = g && !forced ? fx_api_refused(fp, g->intent) : NULL;
    if (o.rewrite) {
        vs.reason = fx_xasprintf("%s: made from %s by the %s rewrite",
                                 forced    ? "forced by the caller"
                                 : refused ? refused
                                           : "the newest proved version of this lineage",
                                 o.parent, o.rewrite);
        bool from_v1 = !strcmp(o.parent, "v1");
        vs.verified = fx_xasprintf("by proof #%s: %s computes what %s computes%s the naive "
                                   "reading of the constraints%s", o.proof_id, g->version,
                                   o.parent, from_v1 ? ", and v1 is" : ", and so, by the proofs "
                                   "before it, what v1 computes; v1 is", checks);
        FxBuf name = {0};
        fx_api_json_string(o.rewrite, &name);
        vs.optimizations = fx_xasprintf("[%s]", fx_buf_str(&name));
        fx_buf_free(&name);
        vs.proof_ids = fx_xasprintf("[%s]", o.proof_id);
        vs.proof_id = fx_xstrdup(o.proof_id);
    } else {
        vs.reason = forced ? fx_xstrdup("forced by the caller: the naive graph read from the "
                                        "constraints")
                    : refused ? fx_xstrdup(refused)
                              : fx_xstrdup("the only version of this lineage: the naive graph "
                                           "read from the constraints");
        vs.verified = fx_xasprintf("by construction: version v1 is the naive reading of the "
                                   "constraints%s", checks);
        vs.optimizations = fx_xstrdup("[]");
        vs.proof_ids = fx_xstrdup("[]");
        vs.proof_id = fx_xstrdup("null");
    }
    fx_api_origin_free(&o);
    vs.from_table = g && g->n_table && fx_runtime_top_from_table(rt);
    vs.data_choice = fx_api_data_choice(fp, rt, g, &vs.data_choice_proof);
    vs.choice = g && g->kernel && !vs.from_table ? fx_runtime_top_choice(rt) : NULL;
    if ((vs.switches = fx_runtime_switches(rt))) {
        char *v = fx_xasprintf("%s; results answered from a table switched on mid-run, sound as "
                               "the intent is pure", vs.verified);
        free(vs.verified);
        vs.verified = v;
        char *with = fx_xasprintf("%.*s%s\"memoization, switched on mid-run\"]",
                                  (int)strlen(vs.optimizations) - 1, vs.optimizations,
                                  strcmp(vs.optimizations, "[]") ? ", " : "");
        free(vs.optimizations);
        vs.optimizations = with;
    }
    return vs;
}

static void version_story_free(VersionStory *vs)
{
    free(vs->reason);
    free(vs->verified);
    free(vs->optimizations);
    free(vs->proof_ids);
    free(vs->proof_id);
    free(vs->data_choice);
    free(vs->data_choice_proof);
}

/* [{"decision": "version v1 of `f`", "reason": ..., "proof_id": null}] */
static void decisions_json(FluxProgram *fp, const FxRuntime *rt, const FxGraph *g,
                           const VersionStory *vs, FxBuf *out)
{
    char *what = fx_xasprintf("version %s of `%s`", g->version, g->intent);
    fx_buf_puts(out, "[{\"decision\": ");
    fx_api_json_string(what, out);
    fx_buf_puts(out, ", \"reason\": ");
    fx_api_json_string(vs->reason, out);
    fx_buf_printf(out, ", \"proof_id\": %s}", vs->proof_id);
    if (vs->switches) {
        fx_buf_puts(out, ", {\"decision\": \"runaway protection\", \"reason\": ");
        fx_api_json_string(vs->switches, out);
        fx_buf_puts(out, ", \"proof_id\": null}");
    }
    if (vs->from_table) {
        char *why = fx_xasprintf("the arguments recur: their result, computed by %s's parent, "
                                 "is one of the %u kept in %s's table", g->version, g->n_table,
                                 g->version);
        fx_buf_puts(out, ", {\"decision\": \"hot-input table\", \"reason\": ");
        fx_api_json_string(why, out);
        fx_buf_printf(out, ", \"proof_id\": %s}", vs->proof_id);
        free(why);
    }
    if (vs->data_choice) {
        const char *colon = strchr(vs->data_choice, ':');
        char *name = fx_xstrndup(vs->data_choice, colon ? (size_t)(colon - vs->data_choice) : 0);
        fx_buf_puts(out, ", {\"decision\": ");
        fx_api_json_string(name, out);
        fx_buf_puts(out, ", \"reason\": ");
        fx_api_json_string(colon ? colon + 2 : vs->data_choice, out);
        fx_buf_printf(out, ", \"proof_id\": %s}",
                      vs->data_choice_proof ? vs->data_choice_proof : vs->proof_id);
        free(name);
    }
    if (vs->choice) {
        fx_buf_printf(out, ", {\"decision\": \"variant %s\", \"reason\": ",
                      fx_graph_variant_name(vs->choice->variant));
        fx_api_json_string(vs->choice->why, out);
        if (vs->choice->predicted_gain > 0)
            fx_buf_printf(out, ", \"predicted_gain\": %.3g", vs->choice->predicted_gain);
        fx_buf_printf(out, ", \"kernel_ms\": %.6g", vs->choice->ms);
        fx_buf_printf(out, ", \"proof_id\": %s}", vs->proof_id);
    }
    const char *device = fx_runtime_device_choice(rt);
    if (device) {
        const char *colon = strchr(device, ':');
        fx_buf_printf(out, ", {\"decision\": \"device %.*s\", \"reason\": ",
                      (int)(colon ? colon - device : 0), device);
        fx_api_json_string(colon ? colon + 2 : device, out);
        fx_buf_printf(out, ", \"proof_id\": %s}", vs->proof_id);
    }
    if (fx_runtime_native_tier(rt)) {
        fx_buf_puts(out, ", {\"decision\": \"native code\", \"reason\": ");
        fx_api_json_string(fx_runtime_native_tier(rt), out);
        fx_buf_printf(out, ", \"proof_id\": %s}", vs->proof_id);
    }
    fx_api_check_decision(fp, rt, out);
    fx_buf_puts(out, "]");
    free(what);
}

/* The record's own fields in res: the rewrites from their JSON list. */
static void record_fields(const FxGraph *callee, const VersionStory *vs, FluxResult *res)
{
    res->intent = fx_xstrdup(callee->intent);
    res->version = fx_xstrdup(callee->version);
    FxBuf b = {0};
    json_t *list = json_loads(vs->optimizations, 0, NULL), *r;
    size_t i;
    json_array_foreach(list, i, r) fx_buf_printf(&b, "%s%s", i ? ", " : "", json_string_value(r));
    json_decref(list);
    res->rewrites = fx_xstrdup(fx_buf_str(&b));
    fx_buf_free(&b);
}

/* The execution record of docs/cli.md, and its fields in res. */
static void record_json(FluxProgram *fp, FxRuntime *rt, const FxGraph *callee,
                        const FxValue *args, size_t n, FxValue v, double ms, long long id,
                        bool summarise, bool forced_version, FxBuf *out, FluxResult *res)
{
    VersionStory vs = version_story(fp, rt, callee, forced_version);
    if (callee)
        record_fields(callee, &vs, res);
    if (id > 0)
        fx_buf_printf(out, "{\"execution_id\": \"exec_%lld\", \"intent\": ", id);
    else
        fx_buf_puts(out, "{\"execution_id\": null, \"intent\": ");
    if (callee)
        fx_api_json_string(callee->intent, out);
    else
        fx_buf_puts(out, "null");
    fx_buf_printf(out, ", \"graph_version\": ");
    if (callee)
        fx_api_json_string(callee->version, out);
    else
        fx_buf_puts(out, "null");
    fx_buf_puts(out, ", \"input\": ");
    input_json(callee, args, n, false, out);
    fx_buf_puts(out, ", \"output\": ");
    size_t at = out->len;
    value_json(v, !summarise, out, NULL, NULL);
    if (!summarise) /* the value whole: the caller's JSON of it too */
        res->value_json = fx_xstrndup(out->data + at, out->len - at);
    fx_buf_puts(out, ", \"decision_tree\": ");
    if (callee)
        decisions_json(fp, rt, callee, &vs, out);
    else
        fx_buf_puts(out, "[]");
    fx_buf_puts(out, ", \"hardware\": ");
    fx_api_json_string(fx_api_hardware(), out);
    fx_buf_printf(out, ", \"duration_ms\": %.3f, \"optimizations_applied\": %s, "
                       "\"proof_ids\": %s, \"verified\": ", ms, vs.optimizations, vs.proof_ids);
    fx_api_json_string(vs.verified, out);
    fx_buf_puts(out, "}");
    version_story_free(&vs);
}

/* The intent's text with comments dropped and white space collapsed: the
 * lineage key, so that re-indenting or re-commenting keeps the lineage. */
static char *normalised_text(const FxIntent *in)
{
    const char *p = in->span.src->text + in->span.offset, *end = p + in->span.len;
    FxBuf b = {0};
    bool in_string = false, space = false;
    for (; p < end; p++) {
        char c = *p;
        if (!in_string && (c == '#' || (c == '/' && p + 1 < end && p[1] == '/'))) {
            while (p < end && *p != '\n')
                p++;
            space = true;
            continue;
        }
        if (c == '"' && (p == in->span.src->text || p[-1] != '\\'))
            in_string = !in_string;
        if (!in_string && (c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
            space = true;
            continue;
        }
        if (space && b.len)
            fx_buf_putc(&b, ' ');
        space = false;
        fx_buf_putc(&b, c);
    }
    return fx_buf_take(&b);
}

static FxStatus version_of(FluxProgram *fp, const FxIntent *in, const FxGraph *g,
                           int64_t *out_version)
{
    int64_t lineage;
    return fx_api_version_of(fp, in, g, &lineage, out_version);
}

/* The lineage key of an intent: the hash of its normalised text. */
void fx_api_lineage_hash(const FxIntent *in, char out[17])
{
    char *text = normalised_text(in);
    fx_store_hash(text, strlen(text), out);
    free(text);
}

/* The lineage and version v1 of the intent, made on first use. */
FxStatus fx_api_version_of(FluxProgram *fp, const FxIntent *in, const FxGraph *g,
                           int64_t *out_lineage, int64_t *out_version)
{
    for (size_t i = 0; i < fp->versions.len; i++) {
        if (!strcmp(fp->versions.data[i].intent, g->intent) &&
            !strcmp(fp->versions.data[i].label, g->version)) {
            *out_version = fp->versions.data[i].version;
            *out_lineage = fp->versions.data[i].lineage;
            return FX_OK;
        }
    }
    char *text = normalised_text(in), hash[17];
    fx_store_hash(text, strlen(text), hash);
    free(text);
    char *path = realpath(in->span.src->path, NULL);
    int64_t lineage;
    FxStatus st = fx_store_lineage(fp->store->store, in->name, hash,
                                   path ? path : in->span.src->path, in->span.src->text,
                                   &lineage);
    free(path);
    if (st != FX_OK)
        return st;
    FxBuf json = {0};
    fx_graph_print_json(g, &json);
    FxVersionInfo vi = {g->version, fx_buf_str(&json), 0, NULL, 0, NULL};
    st = fx_store_version(fp->store->store, lineage, &vi, out_version);
    fx_buf_free(&json);
    if (st == FX_OK) {
        FxKnownVersion known = {fx_xstrdup(g->intent), fx_xstrdup(g->version), lineage,
                                *out_version};
        *out_lineage = lineage;
        fx_vec_push(&fp->versions, known);
    }
    return st;
}

/* The per-node counters of the run, for nodes that ran: their counts
 * and the time sampled at them. */
static size_t node_counts(FxRuntime *rt, const FxGraph *g, uint32_t **nodes, uint64_t **counts,
                          uint64_t **ns)
{
    *nodes = fx_xmalloc((g->n_nodes + 1) * sizeof(uint32_t));
    *counts = fx_xmalloc((g->n_nodes + 1) * sizeof(uint64_t));
    *ns = fx_xmalloc((g->n_nodes + 1) * sizeof(uint64_t));
    size_t n = 0;
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        FxNodeId id = {i};
        uint64_t c = fx_runtime_node_count(rt, g, id), t = fx_runtime_node_ns(rt, g, id);
        if (c || t) {
            (*nodes)[n] = i;
            (*ns)[n] = t;
            (*counts)[n++] = c;
        }
    }
    return n;
}

static void kernel_where(const char *kernel, const char *intent, uint32_t node, FxBuf *out)
{
    fx_buf_puts(out, "{\"kernel\": ");
    fx_api_json_string(kernel, out);
    fx_buf_puts(out, ", \"intent\": ");
    if (intent[0])
        fx_api_json_string(intent, out);
    else
        fx_buf_puts(out, "null");
    fx_buf_printf(out, ", \"node\": %u", node);
}

/* The run's kernel calls (hw/ktrace.h) as the record's "kernels" (the
 * schema is docs/store.md's), or nothing when it called none. */
static void kernels_json(const FxKTrace *t, FxBuf *out)
{
    if (!t->n_totals && !t->other_calls)
        return;
    fx_buf_printf(out, "{\"thread\": %u, \"calls\": [", t->thread);
    for (uint32_t i = 0; i < t->n_calls; i++) {
        const FxKCall *k = &t->calls[i];
        fx_buf_puts(out, i ? ", " : "");
        kernel_where(k->kernel, k->intent, k->node, out);
        fx_buf_printf(out, ", \"start_ms\": %.6f, \"ms\": %.6f, \"tasks\": [",
                      (double)k->start_ns / 1e6, (double)k->ns / 1e6);
        for (uint32_t j = 0; j < k->n_tasks; j++) {
            const FxTaskSpan *s = &t->tasks[k->first_task + j];
            fx_buf_printf(out, "%s{\"thread\": %u, \"task\": %u, \"start_ms\": %.6f, \"ms\": %.6f}",
                          j ? ", " : "", s->thread, s->task, (double)s->start_ns / 1e6,
                          (double)s->ns / 1e6);
        }
        fx_buf_puts(out, "]}");
    }
    fx_buf_puts(out, "], \"totals\": [");
    for (uint32_t i = 0; i < t->n_totals; i++) {
        const FxKTotal *k = &t->totals[i];
        fx_buf_puts(out, i ? ", " : "");
        kernel_where(k->kernel, k->intent, k->node, out);
        fx_buf_printf(out, ", \"calls\": %llu, \"ms\": %.6f}", (unsigned long long)k->calls,
                      (double)k->ns / 1e6);
    }
    fx_buf_printf(out, "], \"other_calls\": %llu, \"other_ms\": %.6f}",
                  (unsigned long long)t->other_calls, (double)t->other_ns / 1e6);
}

/* Queues an execution of the intent EXPR called last, with its arguments,
 * its output (JSON, already summarised) and what the record says of how it
 * was verified; `stop` (when a budget stopped the run) is one more
 * decision. Returns the id, 0 when nothing is recorded, -1 on a store
 * error. */
static long long record(FluxProgram *fp, FxRuntime *rt, const char *expr, const char *output,
                        const char *hash, int64_t bytes, double ms, const char *stop,
                        FILE *diagnostics)
{
    const FxValue *args;
    size_t n_args;
    const FxGraph *g = fx_runtime_top_call(rt, &args, &n_args);
    if (!fp->store || !g)
        return 0;
    const FxIntent *in = fx_program_find_intent(fp->prog, g->intent);
    int64_t version, id = 0;
    if (version_of(fp, in, g, &version) != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fp->store->store));
        return -1;
    }
    FxBuf input = {0}, decisions = {0};
    input_json(g, args, n_args, !fp->keep_values, &input);
    VersionStory vs = version_story(fp, rt, g, false); /* a forced run is not recorded */
    decisions_json(fp, rt, g, &vs, &decisions);
    char *verified = NULL;
    if (stop) { /* the budget's decision ends the tree; nothing was verified */
        const char *budget = fx_runtime_stopped_by(rt);
        decisions.len--; /* the closing ] */
        fx_buf_printf(&decisions, ", {\"decision\": \"stopped by the %s budget\", \"reason\": ",
                      budget);
        fx_api_json_string(stop, &decisions);
        fx_buf_puts(&decisions, ", \"proof_id\": null}]");
        verified = fx_xasprintf("not verified: the %s budget stopped the run before a result",
                                budget);
    }
    uint32_t *nodes;
    uint64_t *counts, *ns;
    size_t n_counts = node_counts(rt, g, &nodes, &counts, &ns);
    FxBuf kernels = {0};
    kernels_json(fx_runtime_ktrace(rt), &kernels);
    FxExecution e = {version, g->intent, expr, fx_buf_str(&input), output, hash, bytes,
                     fx_buf_str(&decisions), fx_api_hardware(), ms, vs.optimizations,
                     vs.proof_ids, verified ? verified : vs.verified, n_counts, nodes, counts,
                     ns, kernels.len ? fx_buf_str(&kernels) : NULL};
    FxStatus st = fx_store_add_execution(fp->store->store, &e, &id);
    if (st != FX_OK && diagnostics)
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fp->store->store));
    if (st == FX_OK)
        fx_api_note_callees(fp, rt, g, expr, id, ms);
    free(nodes);
    free(counts);
    free(ns);
    fx_buf_free(&kernels);
    free(verified);
    fx_buf_free(&input);
    fx_buf_free(&decisions);
    version_story_free(&vs);
    return st == FX_OK ? id : -1;
}

/* An execution of the intent EXPR called last: its arguments and its own
 * result (for `len(f(x))` that is f(x), not the length). */
long long fx_api_record(FluxProgram *fp, FxRuntime *rt, const char *expr, double ms,
                        FILE *diagnostics)
{
    const FxValue *args;
    size_t n_args;
    if (!fp->store || !fx_runtime_top_call(rt, &args, &n_args))
        return 0;
    FxBuf output = {0};
    char hash[17];
    int64_t bytes;
    value_json(fx_runtime_top_result(rt), fp->keep_values, &output, hash, &bytes);
    long long id = record(fp, rt, expr, fx_buf_str(&output), hash, bytes, ms, NULL, diagnostics);
    fx_buf_free(&output);
    return id;
}

/* A run a budget stopped, when it had called an intent: recorded with no
 * output, and the budget's message as the reason of its last decision. */
static long long record_stop(FluxProgram *fp, FxRuntime *rt, const char *expr, double ms,
                             FILE *diagnostics)
{
    return record(fp, rt, expr, "null", NULL, 0, ms, fx_runtime_error(rt), diagnostics);
}

double fx_api_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

FxStatus fx_api_eval_timed(FxRuntime *rt, const FxGraph *g, FxValue *v, double *ms)
{
    double setup = fx_setup_total_ms(), start = fx_api_now_ms();
    FxStatus st = fx_runtime_eval(rt, g, v);
    *ms = fx_api_now_ms() - start - (fx_setup_total_ms() - setup);
    if (*ms < 0) /* another thread's setup, counted in the same moments */
        *ms = 0;
    return st;
}

/* What a run leaves behind, under fp->lock (and the store's): the last run
 * for flux_record_last, its record, its JSON. */
static int finish_run(FluxProgram *fp, FxRuntime *rt, const char *expr,
                      const FluxRunOptions *options, FxValue v, FILE *diagnostics,
                      FluxResult *out)
{
    if (rt == fp->main.rt) { /* a value belongs to its context's thread: main's only */
        free(fp->last_expr);
        fp->last_expr = fx_xstrdup(expr);
        fx_value_release(fp->last_value);
        fx_value_retain(v);
        fp->last_value = v;
        fp->last_ms = out->duration_ms;
    }
    bool forced = options && (options->version || options->variant); /* force.c */
    long long id = options && (options->record_later || forced)
                           ? 0
                           : fx_api_record(fp, rt, expr, out->duration_ms, diagnostics);
    out->execution_id = id > 0 ? id : 0;
    if (id > 0)
        fp->last_id = id;
    if (options && options->want_json) {
        const FxValue *args;
        size_t n;
        const FxGraph *callee = fx_runtime_top_call(rt, &args, &n);
        FxBuf json = {0};
        record_json(fp, rt, callee, args, n, v, out->duration_ms, out->execution_id,
                    options->want_json == FLUX_JSON_SUMMARY, options->version != NULL, &json, out);
        out->json = fx_buf_take(&json);
        FxBuf names = {0};
        fx_variant_names(fx_runtime_choice_kernels(rt), &names);
        out->variants = fx_xstrdup(fx_buf_str(&names));
        fx_buf_free(&names);
        const char *taken = fx_runtime_variant_taken(rt);
        out->variant = fx_xstrdup(taken ? taken : "");
    }
    return id < 0 ? FLUX_ERR_STORE : FLUX_OK;
}

static void lock_all(FluxProgram *fp)
{
    pthread_mutex_lock(&fp->lock);
    if (fp->store)
        pthread_mutex_lock(&fp->store->lock);
}

static void unlock_all(FluxProgram *fp)
{
    if (fp->store)
        pthread_mutex_unlock(&fp->store->lock);
    pthread_mutex_unlock(&fp->lock);
}

int flux_run(FluxProgram *fp, const char *expr, const FluxRunOptions *options, FILE *diagnostics,
             FluxResult *out)
{
    memset(out, 0, sizeof(*out));
    FxArena arena = {0};
    FxExpr *e = fx_api_parse_expr(fp, expr, options ? options->expr_name : NULL, &arena,
                                  diagnostics);
    if (!e) {
        fx_arena_free(&arena);
        return FLUX_ERR_USAGE;
    }
    FxCallCtx *cx;
    int status = fx_api_forced_begin(fp, e, options, diagnostics, &cx);
    if (status != FLUX_OK) {
        fx_arena_free(&arena);
        return status;
    }
    bool forced = cx != NULL; /* a context of its own, recorded nowhere */
    if (!forced)
        cx = fx_api_call_begin(fp);
    FxRuntime *rt = cx->rt;
    fx_runtime_set_budgets(rt, fx_api_budgets(options));
    pthread_mutex_lock(&fp->lock);
    fx_api_measure(fp, rt, e);
    pthread_mutex_unlock(&fp->lock);
    fx_runtime_set_runaway_protection(rt, !(options && options->no_learn));
    fx_runtime_profile_calls(rt, fp->store && !forced && !(options && options->no_learn));
    fx_runtime_reset_counts(rt);
    FxGraph *g = fx_lower_expr(fp->prog, e, "<expr>");
    for (uint32_t i = 0; i < g->n_nodes; i++) /* native code loads, as a library would, */
        if (g->nodes[i].op == FX_NODE_CALL)  /* before the evaluation's clock starts */
            fx_runtime_prepare_native(rt, g->nodes[i].text);
    FxValue v;
    fx_meter_interruptible(true); /* flux_interrupt stops this run, not a learner's */
    FxStatus st = fx_api_eval_timed(rt, g, &v, &out->duration_ms);
    fx_meter_interruptible(false);
    /* the checks are outside the time: v1 has none, and versions are
     * compared by their recorded times */
    st = fx_api_check_output(cx, e, g, options, st, &out->duration_ms, &v);
    rt = cx->rt; /* a new one when validation rolled a version back */
    if (st == FX_OK)
        fx_runtime_device_observe(rt, out->duration_ms);
    if (!forced) { /* a forced run teaches nothing: no model demoted, no cost kept */
        fx_api_models_observe(cx);
        fx_api_costs_save(fp, rt);
    }
    if (st == FX_OK && forced && !fx_api_forced_honoured(rt, options, diagnostics)) {
        fx_value_release(v);
        status = FLUX_ERR_USAGE;
    } else if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "%s\n", fx_runtime_error(rt));
        status = FLUX_ERR_RUNTIME;
        /* a budget's stop is recorded at once: there is no answer to print
         * first. A store error is told, but the run's failure is the status. */
        if (fx_runtime_stopped_by(rt) && !forced) {
            lock_all(fp);
            long long id = record_stop(fp, rt, expr, out->duration_ms, diagnostics);
            if (id > 0) /* learning may follow it (cmd_run.c) */
                fp->last_id = id;
            unlock_all(fp);
        }
    } else if (!result_fits(fx_api_budgets(options), out->duration_ms, v, diagnostics)) {
        fx_value_release(v);
        status = FLUX_ERR_RUNTIME;
    } else {
        lock_all(fp);
        status = finish_run(fp, rt, expr, options, v, diagnostics, out);
        unlock_all(fp);
        FxBuf text = {.spill = options ? options->print_to : NULL};
        fx_val_print(v, &text);
        if (text.spill) {
            fwrite(fx_buf_str(&text), 1, text.len, text.spill);
            fputc('\n', text.spill);
            fx_buf_free(&text);
        } else {
            out->text = fx_buf_take(&text);
        }
        fx_value_release(v);
    }
    if (forced)
        fx_api_context_drop(fp, cx);
    else
        fx_api_call_end(fp, cx);
    fx_graph_free(g);
    fx_arena_free(&arena);
    return status;
}

void flux_result_free(FluxResult *r)
{
    free(r->text);
    free(r->json);
    free(r->value_json);
    free(r->intent);
    free(r->version);
    free(r->rewrites);
    free(r->variants);
    free(r->variant);
    r->text = r->json = r->value_json = r->intent = r->version = r->rewrites = NULL;
    r->variants = r->variant = NULL;
}

int flux_record_last(FluxProgram *fp, FILE *diagnostics)
{
    if (!fp->last_expr || !fp->store)
        return FLUX_OK;
    lock_all(fp);
    long long id = fx_api_record(fp, fx_api_runtime(fp), fp->last_expr, fp->last_ms, diagnostics);
    if (id > 0)
        fp->last_id = id;
    unlock_all(fp);
    return id < 0 ? FLUX_ERR_STORE : FLUX_OK;
}

long long flux_last_execution(const FluxProgram *fp)
{
    return fp->last_id;
}
