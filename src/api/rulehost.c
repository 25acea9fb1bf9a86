/*
 * rulehost.c: see rulehost.h. The runs are the ones `flux run` makes (the
 * expression parsed and checked, measured intents chosen, lowered and
 * evaluated) without the record: each names its runtime, so the round
 * never swaps the program's runtime or store.
 */
#include "rulehost.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "exec/native.h"
#include "exec/value_gmp.h"
#include "graph/lower.h"

#define MEASURE_SECONDS 2.0 /* a timing run stops there: "slower than 2 s" */

/* Evaluates EXPR in rt under budgets b. *ms gets the evaluation's time;
 * false when it failed (a budget stop included: what it did still shows in
 * rt's counts). */
static bool eval_in(FluxProgram *fp, FxRuntime *rt, const char *expr, FxBudgets b, double *ms)
{
    FxArena arena = {0};
    FxExpr *e = fx_api_parse_expr(fp, expr, NULL, &arena, NULL);
    bool ok = false;
    if (e) {
        fp->main.explored = false; /* a run explores a variant once at most */
        fx_runtime_set_budgets(rt, b);
        fx_api_measure(fp, rt, e);
        fx_runtime_set_runaway_protection(rt, false); /* the versions exactly */
        fx_runtime_reset_counts(rt);
        FxGraph *g = fx_lower_expr(fp->prog, e, "<expr>");
        FxValue v;
        ok = fx_api_eval_timed(rt, g, &v, ms) == FX_OK;
        if (ok)
            fx_value_release(v);
        fx_graph_free(g);
    }
    fx_arena_free(&arena);
    return ok;
}

static FxBudgets budgets(unsigned long long max_steps, double max_seconds)
{
    FxBudgets b = fx_budgets_default();
    if (max_steps)
        b.max_steps = max_steps;
    if (max_seconds > 0)
        b.max_seconds = max_seconds;
    return b;
}

/* Runs EXPR `times` times with g as its intent's version in one runtime of
 * its own, as a process asking again does (the data sources read once,
 * what the version keeps kept), under the evidence budget unless `full`.
 * Returns the last run's time in ms (-1: a run failed); *work, when asked,
 * gets how many times g's operations ran (a run cut by the budget counts
 * what it did). */
static double run_times(FluxProgram *fp, const FxGraph *g, const char *expr, bool full,
                        uint64_t *work, int times)
{
    FxRuntime *rt = fx_runtime_new(fp->prog);
    FxGraph *copy = fx_graph_copy_as(g, g->intent, g->version);
    fx_runtime_use_graph(rt, copy);
    FxBudgets b = budgets(full ? 0 : FX_RULE_EVIDENCE_STEPS, MEASURE_SECONDS);
    double ms = 0;
    for (int k = 0; k < times && ms >= 0; k++)
        if (!eval_in(fp, rt, expr, b, &ms))
            ms = -1;
    /* the callees' instructions count too: sharing two calls of an intent
     * saves the callee's work, not one node */
    if (work)
        *work = fx_runtime_instructions(rt);
    fx_runtime_free(rt);
    return ms;
}

static uint64_t work(void *ctx, const FxGraph *g, const char *expr)
{
    FxApiRuleHost *h = ctx;
    uint64_t ops = 0;
    run_times(h->fp, g, expr, false, &ops, 1);
    return ops;
}

static double best_time(void *ctx, const FxGraph *g, const char *expr)
{
    FxApiRuleHost *h = ctx;
    double best = -1, spent = 0;
    for (int i = 0; i < 5 && spent < 300; i++) {
        double t0 = fx_api_now_ms(), t = run_times(h->fp, g, expr, true, NULL, 1);
        double wall = fx_api_now_ms() - t0;
        spent += wall;
        if (t < 0 && wall >= MEASURE_SECONDS * 1000 * 0.9)
            return MEASURE_SECONDS * 1000; /* out of time: at least that slow */
        if (t >= 0 && (best < 0 || t < best))
            best = t;
    }
    return best;
}

static double second_time(void *ctx, const FxGraph *g, const char *expr)
{
    FxApiRuleHost *h = ctx;
    return run_times(h->fp, g, expr, true, NULL, 2);
}

/* ---- evidence of repeated work: the newest EXPR run again, counted ---- */

typedef struct Counter {
    const char *intent;
    FxCallEvidence ev;
    FX_VEC(uint64_t) seen; /* argument hashes, open addressing */
} Counter;

static uint64_t hash_args(const FxValue *a, size_t n)
{
    uint64_t h = FX_FNV_BASIS;
    for (size_t i = 0; i < n; i++)
        h = fx_fnv_step(h, fx_val_hash(a[i]));
    return h | 1; /* 0 marks an empty slot */
}

static void note(Counter *c, uint64_t h)
{
    if ((c->ev.distinct + 1) * 2 > c->seen.len) {
        size_t cap = c->seen.len ? 2 * c->seen.len : 1024;
        uint64_t *slots = fx_xcalloc(cap, sizeof(uint64_t));
        for (size_t i = 0; i < c->seen.len; i++) {
            uint64_t x = c->seen.data[i];
            size_t j = x & (cap - 1);
            while (x && slots[j])
                j = (j + 1) & (cap - 1);
            if (x)
                slots[j] = x;
        }
        free(c->seen.data);
        c->seen.data = slots;
        c->seen.len = c->seen.cap = cap;
    }
    size_t j = h & (c->seen.len - 1);
    while (c->seen.data[j] && c->seen.data[j] != h)
        j = (j + 1) & (c->seen.len - 1);
    if (!c->seen.data[j]) {
        c->seen.data[j] = h;
        c->ev.distinct++;
    }
}

static void on_call(void *ctx, const FxGraph *callee, const FxValue *args, size_t n, size_t depth)
{
    Counter *c = ctx;
    (void)depth;
    if (strcmp(callee->intent, c->intent) != 0)
        return;
    c->ev.calls++;
    note(c, hash_args(args, n));
}

/* In the program's own runtime, on the versions running now; a budget's
 * stop still leaves evidence. */
static bool calls(void *ctx, const char *expr, FxCallEvidence *out)
{
    FxApiRuleHost *h = ctx;
    Counter c = {h->intent, {0, 0}, {0}};
    FxHooks hooks = {&c, on_call, NULL};
    FxRuntime *rt = fx_api_runtime(h->fp);
    fx_runtime_set_hooks(rt, &hooks);
    double ms;
    eval_in(h->fp, rt, expr, budgets(FX_RULE_EVIDENCE_STEPS, 0), &ms);
    fx_runtime_set_hooks(rt, NULL);
    *out = c.ev;
    free(c.seen.data);
    return c.ev.calls > 0;
}

/* ---- values ---- */

/* The running version's value at n, under a small budget. */
static bool value_at(void *ctx, uint64_t n, mpz_t out)
{
    FxApiRuleHost *h = ctx;
    FxRuntime *rt = fx_api_runtime(h->fp);
    FxBudgets saved_budgets = fx_budgets_default(), small = saved_budgets;
    small.max_steps = FX_RULE_EVIDENCE_STEPS;
    small.max_seconds = 2;
    fx_runtime_set_budgets(rt, small);
    /* a value, not a timing: runaway protection on, whatever a timing run
     * before (eval_in) left */
    fx_runtime_set_runaway_protection(rt, true);
    FxValue arg = fx_val_int((int64_t)n), v;
    bool ok = fx_runtime_call(rt, h->intent, &arg, 1, &v) == FX_OK && fx_val_is_integer(v);
    if (ok) {
        mpz_t z;
        fx_val_mpz_init_from(z, v);
        mpz_set(out, z);
        mpz_clear(z);
        fx_value_release(v);
    }
    fx_runtime_set_budgets(rt, saved_budgets);
    return ok;
}

static bool value(void *ctx, const FxGraph *g, const FxValue *args, FxValue *out)
{
    FxApiRuleHost *h = ctx;
    FxRuntime *rt = fx_runtime_new(h->fp->prog);
    FxBudgets b = fx_budgets_default();
    b.max_seconds = 10;
    fx_runtime_set_budgets(rt, b);
    fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version));
    bool ok = fx_runtime_call(rt, g->intent, args, g->n_params, out) == FX_OK;
    fx_runtime_free(rt);
    return ok;
}

static bool reads_data(void *ctx, const FxGraph *g)
{
    FxApiRuleHost *h = ctx;
    FxRuntime *rt = fx_runtime_new(h->fp->prog);
    fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version));
    bool reads = fx_runtime_reads_data(rt, g->intent);
    fx_runtime_free(rt);
    return reads;
}

static const FxGraph *lower(void *ctx, const char *intent)
{
    FxApiRuleHost *h = ctx;
    fx_vec_foreach(FxGraph *, g, &h->lowered) if (!strcmp((*g)->intent, intent)) return *g;
    const FxIntent *in = fx_program_find_intent(h->fp->prog, intent);
    if (!in)
        return NULL;
    FxGraph *g = fx_lower_intent(h->fp->prog, in);
    if (g)
        fx_vec_push(&h->lowered, g);
    return g;
}

static bool native_signature(void *ctx, const FxGraph *g)
{
    return fx_native_signature(((FxApiRuleHost *)ctx)->fp->prog, g);
}

/* ---- the recurrence kernel's variants ---- */

static bool variant_times(const FxGraph *g, double n, double *loop, double *power, char **models)
{
    FxVariantModels vm;
    if (!fx_api_measure_kernels(g, n, &vm))
        return false;
    *loop = fx_api_models_predict(&vm, 0, n);
    *power = fx_api_models_predict(&vm, 1, n);
    *models = fx_api_models_json(&vm);
    return true;
}

void fx_api_rule_host_init(FxApiRuleHost *h, FluxProgram *fp, const char *intent)
{
    *h = (FxApiRuleHost){.fp = fp, .intent = intent};
    if (!fp->proof_cache)
        fp->proof_cache = fx_proof_cache_new();
    h->host = (FxRuleHost){h,          best_time, second_time,         work,
                           calls,      value_at,  value,               reads_data,
                           lower,      fx_api_json_field, fx_api_time_kernel, variant_times,
                           fp->proof_cache, native_signature};
}

void fx_api_rule_host_free(FxApiRuleHost *h)
{
    fx_vec_foreach(FxGraph *, g, &h->lowered) fx_graph_free(*g);
    fx_vec_free(&h->lowered);
}
