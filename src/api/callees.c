/*
 * callees.c: learning over the call tree.
 *
 * A recorded run knows only the intent its EXPR called; the time is often
 * in the intents that one calls. So each recorded run also keeps a call
 * profile (the learned table, kind "call_profile", key the caller's
 * lineage): each intent of the file the run called, its share of the
 * run's time (the VM's sampler: the time the intent was on the stack,
 * callees included) and its time outside its callees, and the first call
 * the run made of it (a recursion's first call is its outermost, so it
 * stands for all the work under it), as an EXPR.
 *
 * When learning follows that run, every callee whose share is significant
 * (at least FX_CALLEE_SHARE of the run, FX_CALLEE_MIN_MS or more) is
 * *considered*: its call is run alone, under a time cap, and recorded as
 * an ordinary execution of the callee. From then on the callee is judged
 * on its own evidence by the same rules, rollback and native promotion as
 * any intent a user calls, and its rounds come before its callers'.
 * A callee's call is taken when its caller's round is due (1, 2, 4, ...
 * runs of the caller's version), or when the callee's own version has no
 * run yet (it was just rewritten). `flux optimize FILE` takes every call
 * not taken yet.
 *
 * Printing a call costs as much as a small run (a list of 20,000 floats,
 * 1.5 ms), so its text is kept apart (kind "callee_call", key the
 * caller's lineage and the callee) and printed again only as often as
 * rounds fall due: at the 1st, 2nd, 4th, 8th ... run of the caller that
 * counted it, or when the arguments have more than doubled in size. The
 * profile, small, is written at every run.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "base/buf.h"
#include "base/index.h"
#include "exec/native.h"

#define KIND "call_profile"
#define CALL_KIND "callee_call" /* a considered callee's first call, as text */
#define FX_CALLEE_SHARE 0.05      /* of the run's sampled time */
#define FX_CALLEE_MIN_MS 0.5      /* below this a callee is not worth a round */
#define FX_CALLEE_CALL_MAX 262144 /* the longest call kept as text, in bytes */
#define FX_CALLEE_CAP_MS 20000.0  /* a taken call's time cap, at most */

/* The time (ns) the sampler found g's function on the stack, and outside
 * its calls of other intents. */
static void sampled_ns(FxRuntime *rt, const FxGraph *g, uint64_t *total, uint64_t *self)
{
    *total = *self = 0;
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        uint64_t t = fx_runtime_node_ns(rt, g, (FxNodeId){i});
        *total += t;
        const FxNode *n = &g->nodes[i - 1];
        if (!(n->op == FX_NODE_CALL && strcmp(n->text, g->intent)))
            *self += t;
    }
}

/* The time sampled at the other intents' calls of each intent, by the
 * intent's name (index `at` into `ns`): a function without loops or calls
 * is never on the stack when the sampler looks (it looks at calls and loop
 * turns), so its time is its callers'. One walk of every graph: a program
 * of 12,000 intents asked each its callers' in turn. */
typedef struct Called {
    FxIndex at;
    uint64_t *ns;
} Called;

static Called called_ns(FluxProgram *fp, FxRuntime *rt)
{
    size_t n = fp->prog->root->intents.len;
    Called c = {.at = {.strings = true}, .ns = fx_xcalloc(n ? n : 1, sizeof(uint64_t))};
    for (size_t k = 0; k < n; k++)
        fx_index_put(&c.at, fp->prog->root->intents.data[k]->name, (uint32_t)k);
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        const FxGraph *g = fx_runtime_graph(rt, (*in)->name);
        for (uint32_t i = 1; g && i <= g->n_nodes; i++) {
            const FxNode *node = &g->nodes[i - 1];
            uint32_t k = node->op == FX_NODE_CALL && strcmp(node->text, g->intent)
                                 ? fx_index_get(&c.at, node->text)
                                 : FX_INDEX_NONE;
            if (k != FX_INDEX_NONE)
                c.ns[k] += fx_runtime_node_ns(rt, g, (FxNodeId){i});
        }
    }
    return c;
}

static void lineage_key(int64_t lineage, char out[24])
{
    snprintf(out, 24, "%lld", (long long)lineage);
}

/* The key of a callee's kept call: the caller's lineage and the callee. */
static char *call_key(const char *lineage, const char *callee)
{
    return fx_xasprintf("%s/%s", lineage, callee);
}

/* The previous profile's entry for `name`, or NULL. */
static json_t *entry_of(json_t *profile, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(profile, "callees"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "intent")) ?: "", name))
            return c;
    }
    return NULL;
}

static bool power_of_two(long long n)
{
    return n > 0 && !(n & (n - 1));
}

/* Is the kept call to be printed again at this run? Yes when none is kept
 * (or the entry is from before calls were kept apart), at the 1st, 2nd,
 * 4th, 8th ... run that counted it, as rounds fall due, or when the
 * arguments more than doubled. *runs is the new entry's count. */
static bool print_again(json_t *before, size_t size, long long *runs)
{
    json_t *kept = before ? json_object_get(before, "call_runs") : NULL;
    double was = json_number_value(json_object_get(before, "call_size"));
    *runs = json_is_integer(kept) ? json_integer_value(kept) + 1 : 1;
    return !json_is_integer(kept) || power_of_two(*runs) || (double)size > 2 * was;
}

/* Does printed text hold an `inf` or a `nan` outside its strings? Those
 * print, but do not read back. */
static bool has_nonfinite(const char *s)
{
    for (; *s; s++) {
        if (*s == '"') {
            for (s++; *s && *s != '"'; s++)
                if (*s == '\\' && s[1])
                    s++;
            if (!*s)
                return false;
        } else if ((!strncmp(s, "inf", 3) || !strncmp(s, "nan", 3)) &&
                   (s[3] == ',' || s[3] == ']' || s[3] == '}' || s[3] == ')' || !s[3])) {
            return true;
        }
    }
    return false;
}

/* The call `name(args)` as EXPR text, or false when an argument has no
 * literal that reads back (inf, nan) or the text passes the limit. */
static bool call_text(const char *name, const FxValue *args, size_t n, FxBuf *out)
{
    fx_buf_printf(out, "%s(", name);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fx_buf_puts(out, ", ");
        if (fx_val_json_at_least(args[i], FX_CALLEE_CALL_MAX, NULL) > FX_CALLEE_CALL_MAX)
            return false;
        fx_val_print(args[i], out);
        if (out->len > FX_CALLEE_CALL_MAX)
            return false;
    }
    fx_buf_putc(out, ')');
    return !has_nonfinite(fx_buf_str(out));
}

void fx_api_note_callees(FluxProgram *fp, FxRuntime *rt, const FxGraph *top, const char *expr,
                         long long execution, double run_ms)
{
    if (!fp->store || execution <= 0 || !top || fp->taking_callees)
        return;
    const FxIntent *caller = fx_program_find_intent(fp->prog, top->intent);
    int64_t lineage, version;
    uint64_t run_ns, self;
    sampled_ns(rt, top, &run_ns, &self);
    if (!caller || !run_ns || run_ms < FX_CALLEE_MIN_MS ||
        fx_api_version_of(fp, caller, top, &lineage, &version) != FX_OK)
        return;
    char key[24];
    lineage_key(lineage, key);
    json_t *before = NULL; /* the previous profile: when each call was printed */
    char *kept = NULL;
    if (fx_store_learned(fp->store->store, KIND, key, "", &kept, NULL) == FX_OK && kept)
        before = json_loads(kept, 0, NULL);
    free(kept);
    json_t *list = json_array();
    Called called = called_ns(fp, rt);
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        const FxGraph *g = fx_runtime_graph(rt, (*in)->name);
        size_t n;
        const FxValue *args = g ? fx_runtime_first_call(rt, g, &n) : NULL;
        if (!args || g == top)
            continue;
        uint32_t at = fx_index_get(&called.at, (*in)->name);
        uint64_t total, own, by_callers = at == FX_INDEX_NONE ? 0 : called.ns[at];
        sampled_ns(rt, g, &total, &own);
        if (by_callers > total) { /* a leaf's time, held by its callers' calls */
            own += by_callers - total;
            total = by_callers;
        }
        double share = (double)total / (double)run_ns;
        if (share > 1)
            share = 1;
        json_t *c = json_object();
        json_object_set_new(c, "intent", json_string((*in)->name));
        json_object_set_new(c, "share", json_real(share));
        json_object_set_new(c, "total_ms", json_real(share * run_ms));
        json_object_set_new(c, "self_ms", json_real((double)own / (double)run_ns * run_ms));
        FxBuf call = {0};
        size_t size = 0;
        for (size_t k = 0; k < n; k++)
            size += fx_val_json_at_least(args[k], FX_CALLEE_CALL_MAX + 1, NULL);
        long long runs = 0;
        json_t *was = entry_of(before, (*in)->name);
        if (share < FX_CALLEE_SHARE || share * run_ms < FX_CALLEE_MIN_MS) {
            json_object_set_new(c, "why_not",
                                json_string(share < FX_CALLEE_SHARE ? "under 5% of the run's time"
                                                                    : "under 0.5 ms of the run"));
        } else if (!print_again(was, size, &runs)) { /* the kept call stands */
            json_object_set_new(c, "call_runs", json_integer(runs));
            json_object_set_new(c, "call_size",
                                json_real(json_number_value(json_object_get(was, "call_size"))));
        } else if (!call_text((*in)->name, args, n, &call)) {
            json_object_set_new(c, "why_not",
                                json_string("its first call's arguments have no literal that "
                                            "reads back (inf or nan), or print past 256 KiB"));
        } else {
            char *ck = call_key(key, (*in)->name);
            if (fx_store_set_learned(fp->store->store, CALL_KIND, ck, "", call.data, call.len) ==
                FX_OK) {
                json_object_set_new(c, "call_runs", json_integer(runs));
                json_object_set_new(c, "call_size", json_real((double)size));
            }
            free(ck);
        }
        fx_buf_free(&call);
        json_array_append_new(list, c);
    }
    fx_index_free(&called.at);
    free(called.ns);
    json_decref(before);
    if (json_array_size(list)) {
        json_t *j = json_object();
        json_object_set_new(j, "caller", json_string(top->intent));
        json_object_set_new(j, "execution", json_integer(execution));
        json_object_set_new(j, "expr", json_string(expr));
        json_object_set_new(j, "run_ms", json_real(run_ms));
        json_object_set_new(j, "taken", json_integer(0));
        json_object_set_new(j, "callees", list);
        char *text = json_dumps(j, JSON_COMPACT);
        if (fx_store_set_learned(fp->store->store, KIND, key, "", text, strlen(text)) != FX_OK) {
            /* a profile is evidence for learning, not the run's record */
        }
        free(text);
        json_decref(j);
    } else {
        json_decref(list);
    }
}

/* The call profile kept for caller's lineage, or NULL. */
static json_t *read_profile(FluxStore *fs, const FxIntent *caller, char key[24])
{
    char hash[17];
    int64_t lineage = 0;
    fx_api_lineage_hash(caller, hash);
    if (fx_store_find_lineage(fs->store, caller->name, hash, &lineage) != FX_OK || !lineage)
        return NULL;
    lineage_key(lineage, key);
    char *text = NULL;
    if (fx_store_learned(fs->store, KIND, key, "", &text, NULL) != FX_OK || !text) {
        free(text);
        return NULL;
    }
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    if (j && (!json_is_array(json_object_get(j, "callees")) ||
              strcmp(json_string_value(json_object_get(j, "caller")) ?: "", caller->name))) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Has the callee's installed version no recorded run yet? */
static bool version_unrun(FluxProgram *fp, FluxStore *fs, const FxIntent *in)
{
    const FxGraph *g = fx_runtime_graph(fx_api_runtime(fp), in->name);
    char hash[17];
    int64_t lineage = 0;
    fx_api_lineage_hash(in, hash);
    if (!g || fx_store_find_lineage(fs->store, in->name, hash, &lineage) != FX_OK)
        return false;
    if (!lineage)
        return true;
    FxTraces tr = {{0}};
    FxAnalysis a = {0};
    if (fx_api_recent_traces(fs, in->name, lineage, 64, &tr) == FX_OK)
        fx_analyze(tr.v.data, tr.v.len, g->version, &a);
    fx_api_traces_free(&tr);
    return a.runs_current == 0;
}

/* Is the profile of this caller's run one whose calls are to be taken:
 * from the run learning follows (any run for `all`), not taken yet, and
 * its caller's round due, or a considered callee's version unrun? */
static bool profile_due(FluxProgram *fp, FluxStore *fs, const FxIntent *caller, json_t *j,
                        long long after, bool all)
{
    long long execution = json_integer_value(json_object_get(j, "execution"));
    if (json_integer_value(json_object_get(j, "taken")) == execution)
        return false;
    if (all)
        return true;
    if (after > 0 && execution != after)
        return false;
    if (fx_api_round_due(fp, fs, caller, after))
        return true;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(j, "callees"), i, c)
    {
        const FxIntent *in =
            fx_program_find_intent(fp->prog, json_string_value(json_object_get(c, "intent")));
        if (in && json_is_integer(json_object_get(c, "call_runs")) && version_unrun(fp, fs, in))
            return true;
    }
    return false;
}

bool fx_api_callees_due(FluxProgram *fp, FluxStore *fs, long long after)
{
    bool due = false;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        char key[24];
        json_t *j = read_profile(fs, *in, key);
        due = j && profile_due(fp, fs, *in, j, after, false);
        json_decref(j);
        if (due)
            break;
    }
    return due;
}

/* The kept call of a considered callee (an entry with "call_runs"), or
 * NULL; caller frees. */
static char *kept_call(FluxStore *fs, const char *key, json_t *c)
{
    const char *name = json_string_value(json_object_get(c, "intent"));
    if (!name || !json_is_integer(json_object_get(c, "call_runs")))
        return NULL;
    char *ck = call_key(key, name), *text = NULL;
    if (fx_store_learned(fs->store, CALL_KIND, ck, "", &text, NULL) != FX_OK) {
        free(text);
        text = NULL;
    }
    free(ck);
    return text;
}

/* Runs one considered callee's call alone, recorded as its execution. */
static void take_call(FluxProgram *fp, const char *caller, json_t *c, const char *call,
                      double run_ms, const char *expr, long long execution, FxCalleeTaken *taken,
                      FILE *out)
{
    const char *name = json_string_value(json_object_get(c, "intent"));
    double share = json_number_value(json_object_get(c, "share"));
    double cap = fmin(FX_CALLEE_CAP_MS, fmax(1000.0, 2.0 * run_ms));
    FluxRunOptions o = {.max_seconds = cap / 1000.0, .expr_name = "<a callee's call>"};
    FluxResult r;
    FILE *sink = fopen("/dev/null", "w");
    fp->taking_callees = true; /* its profile is within the caller's */
    int st = flux_run(fp, call, &o, sink, &r);
    fp->taking_callees = false;
    if (sink)
        fclose(sink);
    long long id = flux_last_execution(fp);
    if (out) {
        char shown[64];
        snprintf(shown, sizeof(shown), "%.*s%s", 48, expr, strlen(expr) > 48 ? "..." : "");
        fprintf(out, "%s: considered, as a callee of %s: %.0f%% of the time of %s (exec %lld); ",
                name, caller, 100 * share, shown, execution);
        if (st == FLUX_OK)
            fprintf(out, "its first call there ran alone in %.3g ms (exec %lld)\n", r.duration_ms,
                    r.execution_id);
        else
            fprintf(out, "its first call there did not finish alone (%s)\n",
                    st == FLUX_ERR_RUNTIME ? "a budget or an error stopped it" : "not runnable");
    }
    if (st == FLUX_OK || st == FLUX_ERR_RUNTIME) {
        FxCalleeTaken t = {fx_program_find_intent(fp->prog, name),
                           json_number_value(json_object_get(c, "total_ms")), id};
        *taken = t;
    }
    if (st == FLUX_OK)
        flux_result_free(&r);
}

size_t fx_api_callees_take(FluxProgram *fp, FluxStore *fs, long long after, bool all,
                           FxCalleeTaken *taken, size_t max, FILE *out)
{
    size_t k = 0;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        char key[24];
        json_t *j = read_profile(fs, *in, key);
        if (!j || !profile_due(fp, fs, *in, j, after, all)) {
            json_decref(j);
            continue;
        }
        long long execution = json_integer_value(json_object_get(j, "execution"));
        const char *expr = json_string_value(json_object_get(j, "expr")) ?: "";
        double run_ms = json_number_value(json_object_get(j, "run_ms"));
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(j, "callees"), i, c)
        {
            const char *name = json_string_value(json_object_get(c, "intent"));
            const char *why = json_string_value(json_object_get(c, "why_not"));
            if (!name || !fx_program_find_intent(fp->prog, name))
                continue;
            char *call = kept_call(fs, key, c);
            if (!call) {
                if (out)
                    fprintf(out, "%s: not considered, as a callee of %s: %s (%.1f%%)\n", name,
                            (*in)->name, why ? why : "no call kept",
                            100 * json_number_value(json_object_get(c, "share")));
                continue;
            }
            if (k < max) {
                taken[k] = (FxCalleeTaken){0};
                take_call(fp, (*in)->name, c, call, run_ms, expr, execution, &taken[k], out);
                if (taken[k].intent)
                    k++;
            }
            free(call);
        }
        json_object_set_new(j, "taken", json_integer(execution));
        if (fx_store_flush(fs->store) != FX_OK) { /* the calls' records, for the rounds */
        }
        char *text = json_dumps(j, JSON_COMPACT);
        if (fx_store_set_learned(fs->store, KIND, key, "", text, strlen(text)) != FX_OK) {
            /* taken again next time: only time lost */
        }
        free(text);
        json_decref(j);
    }
    return k;
}

/* An intent's height in the call graph: 0 when it calls no other intent
 * of the file, else one more than its highest callee's (a recursion is
 * not followed). */
static unsigned height(FluxProgram *fp, const char *name, unsigned depth)
{
    const FxGraph *g = fx_runtime_graph(fx_api_runtime(fp), name);
    unsigned h = 0;
    if (!g || depth > 64)
        return 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        if (n->op == FX_NODE_CALL && strcmp(n->text, name) &&
            fx_program_find_intent(fp->prog, n->text)) {
            unsigned c = height(fp, n->text, depth + 1) + 1;
            if (c > h)
                h = c;
        }
    }
    return h;
}

/* The intents of the file in the order their rounds run: the callees
 * taken first, by their height in the call graph (a callee before its
 * callers), then the others in the file's order. */
size_t fx_api_round_order(FluxProgram *fp, const FxCalleeTaken *taken, size_t n_taken,
                          const FxIntent **order)
{
    size_t k = 0;
    unsigned *h = fx_xcalloc(n_taken + 1, sizeof(*h));
    for (size_t i = 0; i < n_taken; i++) {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = order[j] == taken[i].intent;
        if (seen)
            continue;
        unsigned hi = height(fp, taken[i].intent->name, 0);
        size_t j = k++;
        for (; j > 0 && h[j - 1] > hi; j--) { /* insertion, stable */
            order[j] = order[j - 1];
            h[j] = h[j - 1];
        }
        order[j] = taken[i].intent;
        h[j] = hi;
    }
    free(h);
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        bool seen = false;
        for (size_t j = 0; j < k && !seen; j++)
            seen = order[j] == *in;
        if (!seen)
            order[k++] = *in;
    }
    return k;
}

char *fx_api_callees_told(FluxProgram *fp, const FxIntent *caller, long long execution)
{
    char key[24];
    json_t *j = fp->store && execution > 0 ? read_profile(fp->store, caller, key) : NULL;
    if (!j || json_integer_value(json_object_get(j, "execution")) != execution) {
        json_decref(j);
        return NULL;
    }
    FxBuf b = {0};
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(j, "callees"), i, c)
    {
        const char *name = json_string_value(json_object_get(c, "intent"));
        const char *why = json_string_value(json_object_get(c, "why_not"));
        const FxGraph *g = name ? fx_runtime_graph(fx_api_runtime(fp), name) : NULL;
        if (!g)
            continue;
        bool native = fx_runtime_native_of(fx_api_runtime(fp), name) != NULL;
        fx_buf_printf(&b, "%s%s %.0f%% (%s%s; %s%s)", b.len ? ", " : "", name,
                      100 * json_number_value(json_object_get(c, "share")), g->version,
                      native ? ", native code" : "",
                      why ? "not considered: " : "considered by learning", why ? why : "");
    }
    json_decref(j);
    if (!b.len)
        return NULL;
    char *s = fx_xasprintf("callees, by their share of this run's time: %s", fx_buf_str(&b));
    fx_buf_free(&b);
    return s;
}
