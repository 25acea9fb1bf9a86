/*
 * check_output.c: run-time validation of what rewritten versions answer
 * (docs/optimizer.md, "Run-time validation").
 *
 * After a run whose own call ran a version other than v1, that call's
 * output is checked against the intent's constraints (opt/validate.h), each
 * check's cost weighed against the call's:
 *   - a pass in C (sortedness, a multiset hash, no repeats) runs on every
 *     call when its estimated time is at most 1/32 of the run's time, or
 *     under 10 us; otherwise on the sampled calls, when it is at most 1/8;
 *   - an evaluated check (a key function, a comprehension's tests on 16
 *     elements, a postcondition, v1 run again and compared) runs on the
 *     sampled calls only, in a runtime of v1, within 1/8 of the steps the
 *     run took (at least 1,000) for all of them together: a bound the
 *     meter enforces as it runs;
 *   - a call is sampled with probability 1/64 (FLUX_VALIDATE_SAMPLE=always
 *     or =never decides for the tests).
 * A failure rolls the version back in the store (the reason, which
 * `history` shows, and an accepted "rollback" proposal, so the rewrite is
 * not proposed again from its parent) and runs EXPR again on the newest
 * version left, itself checked in turn: a wrong answer is never returned.
 * The outcome is the run's last decision ("validation checked", "validation
 * skipped", "validation failed") in its record, and a branch of `explain`.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_int.h"
#include "opt/validate.h"

#define CHEAP_SHARE 32      /* a pass in C on every call up to 1/32 of the call */
#define CHEAP_NS 10000.0    /* or under 10 us, which no call notices */
#define SAMPLED_SHARE 8     /* on a sampled call, checks may take up to 1/8 of it */
#define SAMPLE_ONE_IN 64    /* calls sampled */
#define MIN_STEPS 1000      /* the least an evaluated check is given */
#define MEMBER_SAMPLES 16   /* elements of a comprehension tested again */

struct FxOutputCheck {
    uint64_t rng;   /* the sampling draw's state (splitmix64) */
    const char *result; /* the last run's outcome: "checked", "skipped", "failed", or NULL */
    FxBuf reason;   /* what was checked, skipped or failed, version by version */
    double ms;      /* the checks' time: the record's, apart from the run's */
};

/* A context's validation state, made on its first run (the context is
 * this call's alone). */
static struct FxOutputCheck *state(FxCallCtx *cx)
{
    if (!cx->check) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        cx->check = fx_xcalloc(1, sizeof(*cx->check));
        cx->check->rng = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 20) ^ (uint64_t)getpid() ^
                         (uint64_t)(uintptr_t)cx;
    }
    return cx->check;
}

void fx_api_check_free(struct FxOutputCheck *c)
{
    if (!c)
        return;
    fx_buf_free(&c->reason);
    free(c);
}

static bool sampled(struct FxOutputCheck *c)
{
    /* FLUX_VALIDATE_SAMPLE=always samples every call, =never none: for the
     * tests, as FLUX_EXPLORE is for the variant chooser */
    const char *mode = getenv("FLUX_VALIDATE_SAMPLE");
    if (mode && (!strcmp(mode, "always") || !strcmp(mode, "never")))
        return mode[0] == 'a';
    uint64_t z = (c->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return ((z ^ (z >> 31)) % SAMPLE_ONE_IN) == 0;
}

static void list_item(FxBuf *b, const char *sep, const char *s)
{
    fx_buf_printf(b, "%s%s", b->len ? sep : "", s);
}

/* Why check c does not run on this call, or NULL when it does. The passes
 * in C are weighed together: *spent is what those chosen so far cost. */
static char *why_not(bool measured, bool reads_data, const FxCheck *c, bool draw, double call_ns,
                     double *spent)
{
    if (c->kind == FX_CHECK_NAIVE && measured)
        return fx_xstrdup("a measured intent's choice in v1 is not this run's");
    /* v1 runs in a runtime of its own, which would read the data sources
     * again: many times the call a rewritten version answers from what its
     * runtime keeps (an index, a materialised result) */
    if (c->kind == FX_CHECK_NAIVE && reads_data)
        return fx_xstrdup("v1 would read the data sources again, many times this call");
    if (fx_check_evaluates(c))
        return draw ? NULL : fx_xasprintf("evaluated, it runs on 1 call in %d, not this one",
                                          SAMPLE_ONE_IN);
    double total = *spent + c->cost_ns, share = 100 * total / (call_ns > 0 ? call_ns : 1);
    if (total > CHEAP_NS && total > call_ns / CHEAP_SHARE) {
        if (!draw)
            return fx_xasprintf("about %.0f%% of the call with the checks before it, above "
                                "1/%d: it runs on 1 call in %d, not this one", share,
                                CHEAP_SHARE, SAMPLE_ONE_IN);
        if (total > call_ns / SAMPLED_SHARE)
            return fx_xasprintf("about %.0f%% of the call with the checks before it, above 1/%d",
                                share, SAMPLED_SHARE);
    }
    *spent = total;
    return NULL;
}

/* Checks the output of the run's own call of `top` (a rewritten version);
 * returns the failure, or NULL, and says what ran in c->reason. */
static char *validate(FxCallCtx *cx, struct FxOutputCheck *c, const FxGraph *top,
                      const FxValue *args, FxValue out, double call_ms)
{
    FluxProgram *fp = cx->fp;
    const FxIntent *in = fx_program_find_intent(fp->prog, top->intent);
    if (!in) /* a prelude intent the program shadows: its constraints are not at hand */
        return NULL;
    pthread_mutex_lock(&fp->lock);
    bool measured = fp->measures.len > 0;
    pthread_mutex_unlock(&fp->lock);
    uint64_t call_steps = fx_runtime_stats(cx->rt).steps;
    double call_ns = call_ms * 1e6;
    uint64_t steps = call_steps / SAMPLED_SHARE > MIN_STEPS ? call_steps / SAMPLED_SHARE
                                                            : MIN_STEPS;
    bool draw = sampled(c);
    bool reads_data = fx_runtime_reads_data(cx->rt, top->intent);
    FxCheck *plan;
    size_t n = fx_validate_plan(in, out, &plan);
    FxRuntime *v1 = NULL;
    FxBuf held = {0}, skipped = {0};
    size_t n_held = 0;
    double spent = 0; /* by the passes in C chosen */
    char *failure = NULL;
    for (size_t i = 0; i < n && !failure; i++) {
        char *name = fx_check_name(&plan[i]);
        char *why = why_not(measured, reads_data, &plan[i], draw, call_ns, &spent);
        bool ran = !why, stopped = false;
        if (ran) {
            if (fx_check_evaluates(&plan[i]) && !v1)
                v1 = fx_runtime_new(fp->prog);
            why = fx_validate_check(v1, fp->prog, in, args, out, &plan[i], MEMBER_SAMPLES,
                                    &steps, &stopped);
        }
        if (!why) {
            list_item(&held, ", ", name);
            n_held++;
        } else if (!ran || stopped) {
            char *item = fx_xasprintf("%s (%s%s)", name, stopped ? "did not finish: " : "", why);
            list_item(&skipped, "; ", item);
            free(item);
            free(why);
        } else {
            failure = why;
        }
        free(name);
    }
    fx_runtime_free(v1);
    free(plan);
    if (c->reason.len)
        fx_buf_puts(&c->reason, "; then ");
    fx_buf_printf(&c->reason, "%s: ", top->version);
    if (failure)
        fx_buf_puts(&c->reason, failure);
    if (held.len)
        fx_buf_printf(&c->reason, "%s%s hold%s", failure ? "; " : "", fx_buf_str(&held),
                      n_held > 1 ? "" : "s");
    if (skipped.len)
        fx_buf_printf(&c->reason, "%snot checked: %s", failure || held.len ? "; " : "",
                      fx_buf_str(&skipped));
    if (!n)
        fx_buf_puts(&c->reason, "no check applies: no constraint can be tested on the output, "
                                "and a result holding a Float is not compared with v1's");
    if (!c->result || failure)
        c->result = failure ? "failed" : held.len ? "checked" : "skipped";
    fx_buf_free(&held);
    fx_buf_free(&skipped);
    return failure;
}

/* Rolls the failed version back, with why, as the optimizer's own
 * rollback does (optimize.c), and reads the versions left for the
 * contexts to run. */
static FxStatus roll_back(FluxProgram *fp, const FxGraph *top, const FxExpr *e,
                          const char *failure)
{
    const FxIntent *in = fx_program_find_intent(fp->prog, top->intent);
    int64_t lineage, version, proposal;
    char *why = fx_xasprintf("its output failed run-time validation on `%.*s`: %s",
                             (int)e->span.len, e->span.src->text + e->span.offset, failure);
    pthread_mutex_lock(&fp->lock);
    pthread_mutex_lock(&fp->store->lock);
    FxStatus st = fx_api_version_of(fp, in, top, &lineage, &version);
    if (st == FX_OK)
        st = fx_store_roll_back(fp->store->store, version, why);
    if (st == FX_OK)
        st = fx_store_add_proposal(fp->store->store, lineage, "rollback", "accepted", why, NULL,
                                   0, &proposal);
    if (st == FX_OK)
        fx_api_read_installed(fp);
    pthread_mutex_unlock(&fp->store->lock);
    pthread_mutex_unlock(&fp->lock);
    free(why);
    return st;
}

/* EXPR again in cx, as flux_run prepares it, on the versions installed
 * now; with the store unusable, on v1 (until the versions are read again). */
static FxStatus run_again(FxCallCtx *cx, const FxExpr *e, const FxGraph *g,
                          const FluxRunOptions *o, bool store_ok, FxValue *v, double *ms)
{
    const FxHooks *h = fx_runtime_hooks(cx->rt);
    FxHooks hooks = h ? *h : (FxHooks){0}; /* explain's, which see this run instead */
    if (store_ok) {
        fx_api_call_refresh(cx);
    } else {
        fx_runtime_free(cx->rt);
        cx->rt = fx_runtime_new(cx->fp->prog);
        cx->models.len = 0;
    }
    FxRuntime *rt = cx->rt;
    fx_runtime_set_hooks(rt, &hooks);
    fx_runtime_set_budgets(rt, fx_api_budgets(o));
    pthread_mutex_lock(&cx->fp->lock);
    fx_api_measure(cx->fp, rt, e);
    pthread_mutex_unlock(&cx->fp->lock);
    fx_runtime_set_runaway_protection(rt, !(o && o->no_learn));
    return fx_api_eval_timed(rt, g, v, ms);
}

FxStatus fx_api_check_output(FxCallCtx *cx, const FxExpr *e, const FxGraph *g,
                             const FluxRunOptions *o, FxStatus st, double *ms, FxValue *v)
{
    FluxProgram *fp = cx->fp;
    struct FxOutputCheck *c = state(cx);
    c->result = NULL;
    c->reason.len = 0;
    c->ms = 0;
    const FxValue *args;
    size_t n;
    const FxGraph *top;
    while (st == FX_OK && fp->store && (top = fx_runtime_top_call(cx->rt, &args, &n)) &&
           strcmp(top->version, "v1") != 0) {
        double t0 = fx_api_now_ms();
        char *failure = validate(cx, c, top, args, fx_runtime_top_result(cx->rt), *ms);
        c->ms += fx_api_now_ms() - t0;
        if (!failure)
            break;
        char *label = fx_xstrdup(top->version);
        bool store_ok = roll_back(fp, top, e, failure) == FX_OK;
        fx_buf_printf(&c->reason, "; %s rolled back%s", label,
                      store_ok ? "" : " for this context (the store refused it)");
        free(label);
        free(failure);
        fx_value_release(*v);
        st = run_again(cx, e, g, o, store_ok, v, ms);
    }
    if (c->result && st == FX_OK) {
        const FxGraph *answered = fx_runtime_top_call(cx->rt, &args, &n);
        if (answered && strcmp(c->result, "failed") == 0)
            fx_buf_printf(&c->reason, "; the answer is %s's", answered->version);
    }
    return st;
}

/* The context whose runtime is rt (the caller holds fp->lock). */
static const FxCallCtx *context_of(const FluxProgram *fp, const FxRuntime *rt)
{
    if (fp->main.rt == rt)
        return &fp->main;
    fx_vec_foreach(FxCallCtx *, cx, &fp->all) if ((*cx)->rt == rt) return *cx;
    return NULL;
}

bool fx_api_check_outcome(const FluxProgram *fp, const FxRuntime *rt, const char **result,
                          const char **reason)
{
    const FxCallCtx *cx = context_of(fp, rt);
    if (!cx || !cx->check || !cx->check->result)
        return false;
    *result = cx->check->result;
    *reason = fx_buf_str(&cx->check->reason);
    return true;
}

void fx_api_check_decision(const FluxProgram *fp, const FxRuntime *rt, FxBuf *out)
{
    const char *result, *reason;
    if (!fx_api_check_outcome(fp, rt, &result, &reason))
        return;
    const FxCallCtx *cx = context_of(fp, rt); /* found: there is an outcome */
    fx_buf_printf(out, ", {\"decision\": \"validation %s\", \"reason\": ", result);
    fx_api_json_string(reason, out);
    fx_buf_printf(out, ", \"check_ms\": %.3f, \"proof_id\": null}", cx->check->ms);
}
