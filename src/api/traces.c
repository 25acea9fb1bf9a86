/*
 * traces.c: the analyzer's input: a lineage's recorded runs, newest first,
 * reduced to what the rules and the cost model use: the version that ran,
 * the input's size, the time, the kernel variant, and a hash of the input
 * (to find inputs that recur).
 *
 * Size of an input: the sum over its arguments of |x| for an integer, the
 * length of a list or a string, the cells of a matrix; what "n" means in a
 * cost model's class.
 *
 * A run stopped by a budget (its decision tree ends in "stopped by the ...
 * budget") is left out: it has no result, and its time is the budget's.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

static double size_of(json_t *v)
{
    if (json_is_number(v))
        return fabs(json_number_value(v));
    if (json_is_string(v))
        return (double)json_string_length(v);
    if (json_is_array(v))
        return (double)json_array_size(v);
    json_t *summary = json_object_get(v, "elements"), *bits = json_object_get(v, "bits");
    if (json_is_object(v) && summary && json_object_get(v, "summary")) /* a value kept as its size */
        return json_number_value(summary);
    if (json_is_object(v) && bits && json_object_get(v, "summary")) /* an integer kept as its bits */
        return ldexp(1.0, (int)fmin(json_number_value(bits), 1000));
    if (json_is_object(v)) { /* a matrix {"rows":..,"cols":..} or a record: its fields */
        double s = 0;
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) s += size_of(x);
        return s;
    }
    return 0;
}

static double input_size(json_t *input)
{
    if (!json_is_object(input))
        return 1e300; /* an argument beyond any double: as large as sizes go */
    double size = 0;
    const char *k;
    json_t *x;
    json_object_foreach(input, k, x) size += size_of(x);
    return size;
}

typedef struct Reader {
    int64_t lineage;
    FxTraces *out;
    FX_VEC(FxTrace) stopped; /* the runs a budget stopped: used when none finished */
} Reader;

/* Without a finished run, the stopped ones are the evidence: a sort of a
 * data source too large for v1's bubble sort is stopped by the time
 * budget every run, and learning must still see it to give it a kernel. */
static void stopped_if_none(Reader *r)
{
    if (r->out->v.len == 0 && r->stopped.len) {
        fx_vec_free(&r->out->v);
        r->out->v.data = r->stopped.data;
        r->out->v.len = r->stopped.len;
        r->out->v.cap = r->stopped.cap;
        r->out->stopped_only = true;
        return;
    }
    fx_vec_foreach(FxTrace, t, &r->stopped)
    {
        free(t->input);
        free(t->expr);
    }
    fx_vec_free(&r->stopped);
}

/* A field of the row parsed alone: the row's output may hold an integer
 * too large for any JSON number type, and must not spoil the rest. */
static json_t *field(const char *row, const char *key)
{
    char *raw = fx_api_json_field(row, key);
    json_t *j = raw ? json_loads(raw, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL) : NULL;
    free(raw);
    return j;
}

static void keep(void *ctx, const char *text)
{
    Reader *r = ctx;
    json_t *lin = field(text, "lineage"), *version = field(text, "graph_version");
    json_t *input = field(text, "input"), *ms = field(text, "duration_ms");
    json_t *expr = field(text, "expr"), *decisions = field(text, "decision_tree");
    const char *label = json_string_value(version);
    if (json_number_value(lin) == (double)r->lineage && label) {
        FxTrace t = {.kernel_ms = -1};
        snprintf(t.version, sizeof(t.version), "%s", label);
        char *raw = fx_api_json_field(text, "input");
        t.size = input_size(input);
        t.ms = json_number_value(ms);
        char *eid = fx_api_json_text(text, "execution_id"); /* "exec_12" */
        t.id = eid && !strncmp(eid, "exec_", 5) ? strtoll(eid + 5, NULL, 10) : 0;
        free(eid);
        char h[17];
        fx_store_hash(raw ? raw : "", raw ? strlen(raw) : 0, h);
        t.input_hash = strtoull(h, NULL, 16);
        t.input = raw ? raw : fx_xstrdup("null");
        t.expr = fx_xstrdup(json_string_value(expr) ? json_string_value(expr) : "-");
        size_t i;
        json_t *d;
        bool stopped = false;
        json_array_foreach(decisions, i, d)
        {
            const char *what = json_string_value(json_object_get(d, "decision"));
            if (what && !strncmp(what, "variant ", 8)) {
                t.variant = fx_graph_variant_by_name(what + 8) == FX_VARIANT_POWER
                                ? FX_VARIANT_POWER
                                : FX_VARIANT_LOOP;
                json_t *k = json_object_get(d, "kernel_ms");
                t.kernel_ms = json_is_number(k) ? json_number_value(k) : -1;
            }
            stopped |= what && !strncmp(what, "stopped by the ", 15);
        }
        if (stopped)
            fx_vec_push(&r->stopped, t);
        else
            fx_vec_push(&r->out->v, t);
    }
    json_t *all[] = {lin, version, input, ms, expr, decisions};
    for (size_t i = 0; i < FX_ARRAY_LEN(all); i++)
        json_decref(all[i]);
}

FxStatus fx_api_traces(FluxStore *fs, const char *intent, int64_t lineage, size_t limit,
                       FxTraces *out)
{
    Reader r = {lineage, out, {0}};
    FxStatus st = fx_store_executions(fs->store, intent, 0, (int64_t)limit, keep, &r);
    stopped_if_none(&r);
    return st;
}

/* fx_store_recent_runs's rows as traces without time, variant or EXPR */
static void keep_recent(void *ctx, const FxRecentRun *run)
{
    Reader *r = ctx;
    if (run->lineage != r->lineage || !run->label)
        return;
    FxTrace t = {0};
    t.id = run->id;
    snprintf(t.version, sizeof(t.version), "%s", run->label);
    const char *raw = run->input ? run->input : "";
    json_t *input = json_loads(raw, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);
    t.size = input_size(input);
    json_decref(input);
    char h[17];
    fx_store_hash(raw, strlen(raw), h);
    t.input_hash = strtoull(h, NULL, 16);
    t.input = fx_xstrdup(run->input ? run->input : "null");
    t.expr = fx_xstrdup("-");
    if (run->stopped)
        fx_vec_push(&r->stopped, t);
    else
        fx_vec_push(&r->out->v, t);
}

FxStatus fx_api_recent_traces(FluxStore *fs, const char *intent, int64_t lineage, size_t limit,
                              FxTraces *out)
{
    Reader r = {lineage, out, {0}};
    FxStatus st = fx_store_recent_runs(fs->store, intent, (int64_t)limit, keep_recent, &r);
    stopped_if_none(&r);
    return st;
}

void fx_api_traces_free(FxTraces *t)
{
    fx_vec_foreach(FxTrace, x, &t->v)
    {
        free(x->input);
        free(x->expr);
    }
    fx_vec_free(&t->v);
}

FxNodeOp fx_api_counted_work(const FxGraph *g, uint32_t node)
{
    if (node == 0 || node > g->n_nodes)
        return FX_NODE_CONST;
    FxNodeOp op = g->nodes[node - 1].op;
    return op == FX_NODE_PARAM || op == FX_NODE_VAR ? FX_NODE_CONST : op;
}
