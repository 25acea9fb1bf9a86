/*
 * traces.c: the analyzer's input: a lineage's recorded runs, newest first,
 * reduced to what the rules and the cost model use: the version that ran,
 * the input's size, the time, the kernel variant, and a hash of the input
 * (to find inputs that recur).
 *
 * Size of an input: the sum over its arguments of |x| for an integer, the
 * length of a list or a string, the cells of a matrix; what "n" means in a
 * cost model's class.
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
    if (json_is_object(v)) { /* a matrix {"rows":..,"cols":..} or a record: its fields */
        double s = 0;
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) s += size_of(x);
        return s;
    }
    return 0;
}

typedef struct Reader {
    int64_t lineage;
    FxTraces *out;
} Reader;

static void keep(void *ctx, const char *text)
{
    Reader *r = ctx;
    json_error_t err;
    json_t *j = json_loads(text, JSON_DECODE_INT_AS_REAL, &err);
    if (!j)
        return;
    json_t *lin = json_object_get(j, "lineage"), *input = json_object_get(j, "input");
    const char *label = json_string_value(json_object_get(j, "graph_version"));
    if (json_number_value(lin) == (double)r->lineage && label && json_is_object(input)) {
        FxTrace t = {0};
        snprintf(t.version, sizeof(t.version), "%s", label);
        const char *k;
        json_t *x;
        json_object_foreach(input, k, x) t.size += size_of(x);
        t.ms = json_number_value(json_object_get(j, "duration_ms"));
        char *in = json_dumps(input, JSON_COMPACT | JSON_SORT_KEYS);
        t.input_hash = 0;
        if (in) {
            char h[17];
            fx_store_hash(in, strlen(in), h);
            t.input_hash = strtoull(h, NULL, 16);
            t.input = in;
        }
        const char *expr = json_string_value(json_object_get(j, "expr"));
        t.expr = fx_xstrdup(expr ? expr : "-");
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(j, "decision_tree"), i, d)
        {
            const char *what = json_string_value(json_object_get(d, "decision"));
            if (what && !strncmp(what, "variant ", 8))
                t.variant = !strcmp(what + 8, "power") ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
        }
        fx_vec_push(&r->out->v, t);
    }
    json_decref(j);
}

FxStatus fx_api_traces(FluxStore *fs, const char *intent, int64_t lineage, size_t limit,
                       FxTraces *out)
{
    Reader r = {lineage, out};
    return fx_store_executions(fs->store, intent, (int64_t)limit, keep, &r);
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
