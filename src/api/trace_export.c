/*
 * trace_export.c: `flux traces --format chrome`: the recorded executions as
 * the Chrome trace event format, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.
 *
 * Each execution is a complete event ("ph": "X") named by its EXPR, from
 * its start (recorded_at, the end of the run, less its duration) for its
 * duration, on the thread of its graph version (tid N for vN, so a
 * version's runs share a track) of the intent's process (pid: the intent's
 * place in the file, named by metadata events); args hold the execution id,
 * the version, the input and output, the decisions. Each kernel call the
 * execution recorded (its "kernels": hw/ktrace.h) is an event inside it on
 * the same track, and each of its tasks an event on the track of the
 * thread that ran it ("thread T", T the Linux thread id). A run's
 * duration leaves out the process's one-time setup (hw/setup.h: the thread
 * pool's start, tables built once), which a kernel's own time includes, so
 * a kernel's events are clipped to its execution's. Times are
 * microseconds since the Unix epoch, as the format wants.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

/* Microseconds since the epoch of "2026-12-02T06:37:00.447Z"; -1 if not one. */
static double iso_us(const char *s)
{
    int y, mo, d, h, mi;
    double sec;
    if (!s || sscanf(s, "%d-%d-%dT%d:%d:%lfZ", &y, &mo, &d, &h, &mi, &sec) != 6)
        return -1;
    /* days from civil (H. Hinnant's algorithm) */
    y -= mo <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400, mp = (mo + 9) % 12;
    long doy = (153 * mp + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long days = era * 146097 + doe - 719468;
    return ((double)days * 86400 + h * 3600 + mi * 60 + sec) * 1e6;
}

static void put_raw_or_null(FILE *out, const char *key, const char *json)
{
    char *f = fx_api_json_field(json, key);
    fprintf(out, "\"%s\": %s", key, f ? f : "null");
    free(f);
}

/* One complete event. */
static void put_event(FILE *out, const char *name, const char *cat, double ts, double dur, int pid,
                      long tid, bool *first)
{
    json_t *n = json_string(name ? name : "?");
    char *label = n ? json_dumps(n, JSON_ENCODE_ANY) : NULL;
    fprintf(out, "%s\n{\"name\": %s, \"cat\": \"%s\", \"ph\": \"X\", \"ts\": %.3f, "
                 "\"dur\": %.3f, \"pid\": %d, \"tid\": %ld",
            *first ? "" : ",", label ? label : "\"?\"", cat, ts, dur, pid, tid);
    *first = false;
    free(label);
    json_decref(n);
}

static double number(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* An event of a kernel inside the execution [start, end): clipped to it. */
static void put_inside(FILE *out, const char *name, const char *cat, double ts, double dur,
                       double start, double end, int pid, long tid, bool *first)
{
    ts = ts < start ? start : ts > end ? end : ts;
    dur = ts + dur > end ? end - ts : dur;
    put_event(out, name, cat, ts, dur, pid, tid, first);
}

/* The execution's kernel calls (the execution from `start` to `end`, in
 * microseconds) on its track `tid`, and their tasks on their threads'
 * tracks. */
static void put_kernels(FILE *out, const char *row, double start, double end, int pid, long tid,
                        bool *first)
{
    char *text = fx_api_json_field(row, "kernels");
    json_t *k = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
    free(text);
    size_t i, j;
    json_t *call, *task;
    json_array_foreach(json_object_get(k, "calls"), i, call)
    {
        const char *kernel = json_string_value(json_object_get(call, "kernel"));
        put_inside(out, kernel, "kernel", start + number(call, "start_ms") * 1e3,
                   number(call, "ms") * 1e3, start, end, pid, tid, first);
        fprintf(out, ", \"args\": {\"node\": %lld}}",
                (long long)json_integer_value(json_object_get(call, "node")));
        json_array_foreach(json_object_get(call, "tasks"), j, task)
        {
            char name[96];
            snprintf(name, sizeof(name), "%s task %lld", kernel ? kernel : "kernel",
                     (long long)json_integer_value(json_object_get(task, "task")));
            put_inside(out, name, "task", start + number(task, "start_ms") * 1e3,
                       number(task, "ms") * 1e3, start, end, pid,
                       (long)json_integer_value(json_object_get(task, "thread")), first);
            fputs("}", out);
        }
    }
    json_decref(k);
}

static void put_execution(FILE *out, const char *row, int pid, bool *first)
{
    char *at = fx_api_json_text(row, "recorded_at"), *ms = fx_api_json_field(row, "duration_ms");
    char *version = fx_api_json_text(row, "graph_version");
    double end = iso_us(at), dur = ms ? strtod(ms, NULL) * 1e3 : 0;
    if (end >= 0) {
        char *expr = fx_api_json_text(row, "expr");
        long tid = version[0] == 'v' ? strtol(version + 1, NULL, 10) : 0;
        put_event(out, expr, "execution", end - dur, dur, pid, tid, first);
        free(expr);
        fputs(", \"args\": {", out);
        put_raw_or_null(out, "execution_id", row);
        fputs(", ", out);
        put_raw_or_null(out, "graph_version", row);
        fputs(", ", out);
        put_raw_or_null(out, "input", row);
        fputs(", ", out);
        put_raw_or_null(out, "output", row);
        fputs(", ", out);
        put_raw_or_null(out, "decision_tree", row);
        fputs("}}", out);
        put_kernels(out, row, end - dur, end, pid, tid, first);
    }
    free(at);
    free(ms);
    free(version);
}

/* A metadata event naming a process (tid < 0) or a thread. */
static void put_name(FILE *out, int pid, long tid, const char *name, bool *first)
{
    json_t *n = json_string(name);
    char *text = n ? json_dumps(n, JSON_ENCODE_ANY) : NULL;
    fputs(*first ? "\n" : ",\n", out);
    if (tid < 0)
        fprintf(out, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d", pid);
    else
        fprintf(out, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %d, \"tid\": %ld",
                pid, tid);
    fprintf(out, ", \"args\": {\"name\": %s}}", text ? text : "\"?\"");
    *first = false;
    free(text);
    json_decref(n);
}

int flux_traces_chrome(FluxStore *fs, FluxProgram *fp, const char *intent, long last, FILE *out,
                       FILE *diagnostics)
{
    FxStatus st = FX_OK;
    bool first = true, found = !intent;
    fputs("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", out);
    int pid = 0;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        pid++;
        if (intent && strcmp(intent, (*in)->name) != 0)
            continue;
        found = true;
        FxRows rows = {0};
        st = fx_store_executions(fs->store, (*in)->name, 0, last, fx_api_keep_row, &rows);
        if (rows.json.len)
            put_name(out, pid, -1, (*in)->name, &first);
        long named[64] = {0};
        size_t n_named = 0;
        for (size_t i = rows.json.len; i-- > 0;) { /* oldest first */
            char *version = fx_api_json_text(rows.json.data[i], "graph_version");
            long tid = version[0] == 'v' ? strtol(version + 1, NULL, 10) : 0;
            bool seen = false;
            for (size_t k = 0; k < n_named; k++)
                seen |= named[k] == tid;
            if (!seen && n_named < 64) {
                named[n_named++] = tid;
                put_name(out, pid, tid, version, &first);
            }
            free(version);
            put_execution(out, rows.json.data[i], pid, &first);
        }
        fx_vec_foreach(char *, r, &rows.json) free(*r);
        fx_vec_free(&rows.json);
        if (st != FX_OK)
            break;
    }
    fputs("\n]}\n", out);
    if (!found) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent);
        return FLUX_ERR_USAGE;
    }
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
        return FLUX_ERR_STORE;
    }
    return FLUX_OK;
}
