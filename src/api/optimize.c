/*
 * optimize.c: one round of the living loop: evidence, rules, proof,
 * install, and rollback.
 *
 * For one intent the round reads the lineage's recorded runs (traces.c)
 * and then, in order:
 *   1. rollback: when the running version has been measured slower than
 *      its parent (its times against the parent's fitted cost model, at
 *      the same input sizes), it is rolled back and the round ends;
 *   2. the cost models of a version with variants are refitted on its
 *      recorded runs;
 *   3. the rules, from the smallest departure from the running version to
 *      the largest: simplification (constant folding, common
 *      sub-expressions, dead code: the same computation with fewer
 *      nodes), memoization (the same graph and a table), recursion to
 *      iteration (the recurrence computed by a loop), matrix power (a new
 *      algorithm beside the loop), the data kernels (sort, sieve, matrix
 *      product, query index: a node run by a kernel), materialised results
 *      (a data reader keeping the results of arguments that recur while its
 *      files are unchanged), hot inputs (a table of the results of
 *      arguments that recur, in front of it all). The first rule that applies to the
 *      graph's structure and the evidence, whose candidate the prover
 *      proves and whose predicted gain is at least MIN_GAIN, becomes the
 *      next version, in one transaction per store row, with its parent,
 *      the rule, the proof, the evidence and the predicted gain. One
 *      rewrite a round keeps every step small, proved on its own, and
 *      undoable on its own. A candidate the prover does not prove is
 *      recorded as rejected, with why, and the next rule is tried.
 * Runs never wait for a round: it runs when asked (`flux optimize`), or
 * after a run has printed its answer (learn.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "base/hash.h"
#include "exec/value_gmp.h"
#include "graph/graph.h"
#include "graph/lower.h"
#include "opt/rule_cse.h"
#include "opt/rule_dce.h"
#include "opt/rule_fold.h"
#include "opt/rule_gemm.h"
#include "opt/rule_hot.h"
#include "opt/rule_materialise.h"
#include "opt/rule_index.h"
#include "opt/rule_memo.h"
#include "opt/rule_recurrence.h"
#include "opt/rule_sieve.h"
#include "opt/rule_sort.h"
#include "proof/prove.h"
#include "proof/smt.h"

#define EVIDENCE_STEPS 2000000
#define TRACES 400          /* recorded runs a round reads */
#define MIN_GAIN 1.25       /* predicted speed-up a rewrite must promise */
#define ROLLBACK_RATIO 1.25 /* measured slow-down that rolls a version back */
#define MIN_SAVING_MS 0.05 /* a measured gain saving less is timing noise */
#define MEASURE_SECONDS 2.0 /* a timing run stops there: "slower than 2 s" */
#define ROLLBACK_RUNS 5     /* runs of a version before it can be judged */

typedef struct Round {
    FluxProgram *fp;
    FluxStore *fs;
    const FxIntent *in;
    const FxGraph *current;
    int64_t lineage, version;
    FxTraces tr;
    FxAnalysis an; /* of tr */
    FILE *out;
    FxBuf stays; /* why each rule did not apply */
} Round;

/* EXPR in evidence: whole up to 120 characters, else its start and "...". */
static void expr_json(const char *expr, FxBuf *out)
{
    size_t len = strlen(expr);
    char *cut = len > 120 ? fx_xasprintf("%.100s...", expr) : NULL;
    fx_api_json_string(cut ? cut : expr, out);
    free(cut);
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

static bool gather(FluxProgram *fp, const char *intent, const char *expr, FxCallEvidence *out)
{
    Counter c = {intent, {0, 0}, {0}};
    FxHooks hooks = {&c, on_call, NULL};
    FxRuntime *rt = fx_api_runtime(fp);
    fx_runtime_set_hooks(rt, &hooks);
    FluxRunOptions opts = {.max_steps = EVIDENCE_STEPS, .record_later = 1, .no_learn = 1};
    FluxResult r;
    FluxStore *saved = fp->store;
    fp->store = NULL; /* the evidence run is not an execution of the user's */
    flux_run(fp, expr, &opts, NULL, &r); /* a budget stop still leaves evidence */
    fp->store = saved;
    flux_result_free(&r);
    fx_runtime_set_hooks(rt, NULL);
    *out = c.ev;
    free(c.seen.data);
    return c.ev.calls > 0;
}

/* ---- proving and installing ---- */

static void proof_text(const FxProof *p, const char *effect, const char *solver, FxBuf *smt,
                       double *ms, const char **why_not)
{
    fx_buf_printf(smt, "; flux proof: %s, %s\n", fx_proof_verdict_name(p->verdict), solver);
    *ms = 0;
    *why_not = NULL; /* the first obligation that did not hold, in words */
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        *ms += o->ms;
        const char *r = o->verdict == FX_PROOF_PROVED ? NULL
                        : o->counterexample                ? o->counterexample
                                                           : o->reason;
        if (r && !*why_not)
            *why_not = r;
        fx_buf_printf(smt, "; obligation %s: %s (%s)%s%s\n", o->kind, o->what,
                      fx_proof_verdict_name(o->verdict), r ? ": " : "", r ? r : "");
        if (o->smtlib)
            fx_buf_printf(smt, "(push)\n%s(pop)\n", o->smtlib);
    }
    if (effect)
        fx_buf_printf(smt, "; effect: %s\n", effect);
}

/* The running version's three most run nodes, summed over its recorded
 * runs (the store's per-node counters), as JSON: where its time goes. */
typedef struct Hot {
    const FxGraph *g;
    uint32_t node[3];
    uint64_t count[3];
} Hot;

static void keep_hot(void *ctx, uint32_t node, uint64_t count)
{
    Hot *h = ctx;
    if (node == 0 || node > h->g->n_nodes)
        return;
    FxNodeOp op = h->g->nodes[node - 1].op;
    if (op == FX_NODE_CONST || op == FX_NODE_PARAM || op == FX_NODE_VAR)
        return; /* free to read: not where time goes */
    for (int i = 0; i < 3; i++) {
        if (count > h->count[i]) {
            for (int j = 2; j > i; j--) {
                h->node[j] = h->node[j - 1];
                h->count[j] = h->count[j - 1];
            }
            h->node[i] = node;
            h->count[i] = count;
            return;
        }
    }
}

static void hot_nodes_json(Round *R, FxBuf *out)
{
    Hot h = {R->current, {0}, {0}};
    fx_buf_puts(out, "[");
    if (fx_store_node_counts(R->fs->store, R->version, keep_hot, &h) == FX_OK) {
        for (int i = 0; i < 3 && h.count[i]; i++) {
            const FxNode *n = &R->current->nodes[h.node[i] - 1];
            char *what = fx_xasprintf("%s%s%s", fx_graph_op_name(n->op),
                                      n->op == FX_NODE_CALL ? " " : "",
                                      n->op == FX_NODE_CALL ? n->text : "");
            fx_buf_printf(out, "%s{\"node\": %u, \"op\": ", i ? ", " : "", h.node[i]);
            fx_api_json_string(what, out);
            fx_buf_printf(out, ", \"count\": %llu}", (unsigned long long)h.count[i]);
            free(what);
        }
    }
    fx_buf_puts(out, "]");
}

/* Records the proof, and installs cand as the next version when proved
 * (with its cost model, when it has one), or records it rejected. Sets
 * *installed. */
static int install(Round *R, FxGraph *cand, FxProof *p, const char *rule, const char *effect,
                   const char *evidence, const char *model, bool *installed)
{
    FxStore *st = R->fs->store;
    FxBuf smt = {0};
    double ms;
    const char *why_not;
    bool asked = false; /* did any obligation need the solver? */
    fx_vec_foreach(FxObligation, o, &p->obligations) asked |= o->smtlib != NULL;
    const char *solver = asked ? fx_smt_solver_version() : "flux, no solver query";
    proof_text(p, effect, solver, &smt, &ms, &why_not);
    int64_t proof, proposal, version = 0;
    bool proved = p->verdict == FX_PROOF_PROVED;
    FxStatus s = fx_store_add_proof(st, fx_buf_str(&smt), fx_proof_verdict_name(p->verdict),
                                    solver, ms, &proof);
    FxBuf full = {0}; /* the evidence, with where the running version spends its time */
    size_t len = strlen(evidence);
    fx_buf_printf(&full, "%.*s, \"hot_nodes\": ", (int)(len ? len - 1 : 0), evidence);
    hot_nodes_json(R, &full);
    fx_buf_puts(&full, "}");
    evidence = fx_buf_str(&full);
    if (s == FX_OK && proved) {
        FxBuf json = {0};
        fx_graph_print_json(cand, &json);
        FxVersionInfo vi = {cand->version, fx_buf_str(&json), R->version, rule, proof, evidence};
        s = fx_store_version(st, R->lineage, &vi, &version);
        if (s == FX_OK && model)
            s = fx_store_set_model(st, version, model);
        fx_buf_free(&json);
    }
    if (s == FX_OK)
        s = fx_store_add_proposal(st, R->lineage, rule, proved ? "accepted" : "rejected",
                                  proved ? NULL : why_not ? why_not : "the prover did not prove it",
                                  NULL, proof, &proposal);
    if (s == FX_OK)
        fprintf(R->out, "%s: %s %s: %s (proof #%lld, %.1f ms%s%s); evidence %s\n", R->in->name,
                proved ? "installed" : "rejected", cand->version, rule, (long long)proof, ms,
                proved || !why_not ? "" : ": ", proved || !why_not ? "" : why_not, evidence);
    fx_buf_free(&smt);
    fx_buf_free(&full);
    *installed = s == FX_OK && proved;
    return s == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
}

static char *next_label(Round *R)
{
    char *label = NULL;
    if (fx_store_next_label(R->fs->store, R->lineage, &label) != FX_OK || !label)
        label = fx_xstrdup("v2");
    return label;
}

static void stays(Round *R, const char *rule, const char *why)
{
    fx_buf_printf(&R->stays, "%s%s does not apply (%s)", R->stays.len ? "; " : "", rule, why);
}

/* Was `rule` applied to the running version before, and rolled back? */
static bool rolled_back_before(Round *R, const char *rule)
{
    FxRows rows = {0};
    bool found = false;
    if (fx_store_versions(R->fs->store, R->in->name, fx_api_keep_row, &rows) == FX_OK) {
        fx_vec_foreach(char *, r, &rows.json)
        {
            json_t *j = json_loads(*r, JSON_DECODE_INT_AS_REAL, NULL);
            const char *parent = json_string_value(json_object_get(j, "parent"));
            const char *rewrite = json_string_value(json_object_get(j, "rewrite"));
            if (json_number_value(json_object_get(j, "lineage")) == (double)R->lineage &&
                json_is_string(json_object_get(j, "rolled_back")) && parent && rewrite &&
                !strcmp(parent, R->current->version) && !strcmp(rewrite, rule))
                found = true;
            json_decref(j);
        }
    }
    fx_vec_foreach(char *, r, &rows.json) free(*r);
    fx_vec_free(&rows.json);
    return found;
}

/* ---- rule: simplification ---- */

/* Applies a rule in place of *g when it changes something; frees the
 * graph it replaces unless that is `keep`. */
static bool step(FxGraph *(*rule)(const FxGraph *, const char *), const FxGraph **g,
                 const FxGraph *keep, const char *label)
{
    FxGraph *next = rule(*g, label);
    if (!next)
        return false;
    if (*g != keep)
        fx_graph_free((FxGraph *)*g);
    *g = next;
    return true;
}

/* Runs EXPR with g as its intent's version, in a runtime of its own (no
 * table of an earlier run helps), under the evidence budget unless `full`,
 * recording nothing. Returns the evaluation's time in ms (-1: it failed);
 * *work, when asked, gets how many times g's operations ran (reading a
 * constant, a parameter or a bound slot is free; a run cut by the budget
 * counts what it did). */
static double run_times(FluxProgram *fp, const FxGraph *g, const char *expr, bool full,
                        uint64_t *work, int times);

static double run_alone(FluxProgram *fp, const FxGraph *g, const char *expr, bool full,
                        uint64_t *work)
{
    return run_times(fp, g, expr, full, work, 1);
}

/* Runs EXPR `times` times in one runtime, as a process asking again does
 * (the data sources read once, what the version keeps kept); returns the
 * last run's time, or -1 when a run failed. */
static double run_times(FluxProgram *fp, const FxGraph *g, const char *expr, bool full,
                        uint64_t *work, int times)
{
    FxRuntime *saved = fp->rt, *rt = fx_runtime_new(fp->prog);
    FxGraph *copy = fx_graph_copy_as(g, g->intent, g->version);
    fx_runtime_use_graph(rt, copy);
    fp->rt = rt;
    FluxStore *store = fp->store;
    fp->store = NULL;
    FluxRunOptions opts = {.max_steps = full ? 0 : EVIDENCE_STEPS, .max_seconds = MEASURE_SECONDS,
                           .record_later = 1, .no_learn = 1};
    double ms = 0;
    for (int k = 0; k < times && ms >= 0; k++) {
        FluxResult r;
        ms = flux_run(fp, expr, &opts, NULL, &r) == FLUX_OK ? r.duration_ms : -1;
        flux_result_free(&r);
    }
    for (uint32_t i = 1; work && i <= copy->n_nodes; i++) {
        FxNodeOp op = copy->nodes[i - 1].op;
        if (i == 1)
            *work = 0;
        if (op != FX_NODE_CONST && op != FX_NODE_PARAM && op != FX_NODE_VAR)
            *work += fx_runtime_node_count(rt, copy, (FxNodeId){i});
    }
    fp->store = store;
    fp->rt = saved;
    fx_runtime_free(rt);
    return ms;
}

static uint64_t work_of(FluxProgram *fp, const FxGraph *g, const char *expr)
{
    uint64_t work = 0;
    run_alone(fp, g, expr, false, &work);
    return work;
}

static int try_simplify(Round *R, bool *installed)
{
    char *label = next_label(R);
    const FxGraph *g = R->current;
    FxBuf what = {0};
    bool folded = step(fx_rule_fold, &g, R->current, label);
    bool dropped = step(fx_rule_dce, &g, R->current, label);
    bool merged = step(fx_rule_cse, &g, R->current, label);
    dropped |= step(fx_rule_dce, &g, R->current, label);
    if (folded)
        fx_buf_puts(&what, "constant folding");
    if (merged)
        fx_buf_printf(&what, "%scommon sub-expressions", what.len ? ", " : "");
    if (dropped)
        fx_buf_printf(&what, "%sdead code", what.len ? ", " : "");
    int status = FLUX_OK;
    if (g == R->current) {
        stays(R, "simplification", "no constant to fold, sub-expression to share or dead node");
    } else {
        const char *expr = R->tr.v.data[0].expr;
        uint64_t before = work_of(R->fp, R->current, expr), after = work_of(R->fp, g, expr);
        double gain = after ? (double)before / (double)after : 0;
        char *rule = fx_xasprintf("simplification (%s)", fx_buf_str(&what));
        if (rolled_back_before(R, rule)) {
            stays(R, rule, "it was rolled back from this version before");
        } else if (gain < MIN_GAIN) {
            char *why = before == 0
                    ? fx_xasprintf("no operation of it ran for `%s`", expr)
                    : fx_xasprintf("`%s` would run %llu operations instead of %llu, a gain of "
                                   "%.2gx", expr, (unsigned long long)after,
                                   (unsigned long long)before, gain);
            stays(R, rule, why);
            free(why);
        } else {
            FxBuf evidence = {0};
            fx_buf_puts(&evidence, "{\"expr\": ");
            expr_json(expr, &evidence);
            fx_buf_printf(&evidence, ", \"nodes\": [%u, %u], \"node_evaluations\": [%llu, %llu], "
                          "\"predicted_gain\": %.3g}", R->current->n_nodes, g->n_nodes,
                          (unsigned long long)before, (unsigned long long)after, gain);
            if (!R->fp->proof_cache)
                R->fp->proof_cache = fx_proof_cache_new();
            FxProof *p = fx_prove_same_function(R->current, g, NULL, NULL, R->fp->proof_cache,
                                                5000);
            status = install(R, (FxGraph *)g, p, rule, NULL, fx_buf_str(&evidence), NULL,
                             installed);
            fx_proof_free(p);
            fx_buf_free(&evidence);
        }
        free(rule);
        fx_graph_free((FxGraph *)g);
    }
    fx_buf_free(&what);
    free(label);
    return status;
}

/* ---- rule: memoization ---- */

static int try_memo(Round *R, bool *installed)
{
    FxCallEvidence ev = {0, 0};
    const char *why;
    const char *expr = R->tr.v.data[0].expr;
    if (!gather(R->fp, R->in->name, expr, &ev)) {
        stays(R, "memoization", "the newest run calls no intent");
        return FLUX_OK;
    }
    if (!fx_rule_memo_applies(R->current, &ev, &why)) {
        stays(R, "memoization", why);
        return FLUX_OK;
    }
    if (rolled_back_before(R, "memoization")) {
        stays(R, "memoization", "it was rolled back from this version before");
        return FLUX_OK;
    }
    char *label = next_label(R);
    FxGraph *cand = fx_rule_memo_candidate(R->current, label);
    FxBuf evidence = {0};
    fx_buf_puts(&evidence, "{\"expr\": ");
    expr_json(expr, &evidence); /* EXPR may hold quotes: strings */
    fx_buf_printf(&evidence, ", \"calls\": %llu, \"distinct\": %llu%s, \"predicted_gain\": %.3g}",
                  (unsigned long long)ev.calls, (unsigned long long)ev.distinct,
                  ev.calls >= EVIDENCE_STEPS / 2 ? ", \"cut\": true" : "",
                  (double)ev.calls / (double)(ev.distinct ? ev.distinct : 1));
    if (!R->fp->proof_cache)
        R->fp->proof_cache = fx_proof_cache_new();
    FxProof *p = fx_prove_same_function(R->current, cand, NULL, NULL, R->fp->proof_cache, 5000);
    char *effect = fx_xasprintf("%s is pure by construction (no state, input, output or "
                                "randomness), so a table of its results is its results",
                                R->in->name);
    int status = install(R, cand, p, "memoization", effect, fx_buf_str(&evidence), NULL,
                         installed);
    free(effect);
    fx_proof_free(p);
    fx_buf_free(&evidence);
    fx_graph_free(cand);
    free(label);
    return status;
}

/* ---- rules: recursion to iteration, matrix power ---- */

typedef struct ValueCtx {
    FluxProgram *fp;
    const char *intent;
} ValueCtx;

/* The running version's value at n, under a small budget. */
static bool value_at(void *ctx, uint64_t n, mpz_t out)
{
    ValueCtx *c = ctx;
    FxRuntime *rt = fx_api_runtime(c->fp);
    FxBudgets saved_budgets = fx_budgets_default(), small = saved_budgets;
    small.max_steps = EVIDENCE_STEPS;
    small.max_seconds = 2;
    fx_runtime_set_budgets(rt, small);
    FxValue arg = fx_val_int((int64_t)n), v;
    bool ok = fx_runtime_call(rt, c->intent, &arg, 1, &v) == FX_OK && fx_val_is_integer(v);
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

static void certificate_json(const FxGraph *g, FxBuf *out)
{
    FxBuf line = {0};
    fx_graph_print_recurrence(g, &line);
    char *s = fx_buf_take(&line);
    fx_api_json_string(s + 2, out); /* without the indent */
    free(s);
}

static FxProof *prove_certificate(const FxGraph *current, const FxGraph *cand)
{
    FxLinRec cert = {cand->rec.order, cand->rec.coeffs, cand->rec.initial, cand->variants};
    return fx_prove_linear_recurrence(current, &cert, NULL, NULL, 5000);
}

/* The newest run of the running version: its size and time, or NULL. */
static const FxTrace *newest_of_current(Round *R)
{
    fx_vec_foreach(FxTrace, t, &R->tr.v) if (!strcmp(t->version, R->current->version)) return t;
    return NULL;
}

static int try_iteration(Round *R, bool *installed)
{
    uint32_t offsets;
    const char *why;
    if (!fx_rule_recurrence_shape(R->current, &offsets, &why)) {
        stays(R, "recursion to iteration", why);
        return FLUX_OK;
    }
    if (rolled_back_before(R, "recursion to iteration")) {
        stays(R, "recursion to iteration", "it was rolled back from this version before");
        return FLUX_OK;
    }
    FxRecurrence rec;
    ValueCtx vc = {R->fp, R->in->name};
    if (!fx_rule_recurrence_find(offsets, value_at, &vc, &rec, &why)) {
        stays(R, "recursion to iteration", why);
        return FLUX_OK;
    }
    char *label = next_label(R);
    FxGraph *cand = fx_rule_recurrence_candidate(R->current, &rec, FX_VARIANT_LOOP, label);
    fx_rule_recurrence_clear(&rec);
    const FxTrace *t = newest_of_current(R);
    double n = t ? t->size : R->tr.v.data[0].size;
    double was = t ? t->ms : -1, now = fx_api_time_kernel(cand, FX_VARIANT_LOOP, (uint64_t)n, 100);
    double gain = was > 0 && now > 0 ? was / now : 0;
    int status = FLUX_OK;
    if (t && gain < MIN_GAIN) {
        char *w = fx_xasprintf("the loop is predicted only %.2gx faster at n = %.0f", gain, n);
        stays(R, "recursion to iteration", w);
        free(w);
    } else {
        FxBuf evidence = {0};
        fx_buf_puts(&evidence, "{\"certificate\": ");
        certificate_json(cand, &evidence);
        fx_buf_printf(&evidence, ", \"n\": %.0f, \"loop_ms\": %.4g", n, now);
        if (was > 0)
            fx_buf_printf(&evidence, ", \"measured_ms\": %.4g", was);
        if (gain > 0)
            fx_buf_printf(&evidence, ", \"predicted_gain\": %.3g", gain);
        fx_buf_puts(&evidence, "}");
        FxProof *p = prove_certificate(R->current, cand);
        status = install(R, cand, p, "recursion to iteration",
                         "the loop keeps the last k values of the certified recurrence",
                         fx_buf_str(&evidence), NULL, installed);
        fx_proof_free(p);
        fx_buf_free(&evidence);
    }
    fx_graph_free(cand);
    free(label);
    return status;
}


static int try_power(Round *R, bool *installed)
{
    const FxGraph *g = R->current;
    if (!g->kernel || strcmp(g->kernel, "recurrence")) {
        stays(R, "matrix power", "the version is not a recurrence kernel yet");
        return FLUX_OK;
    }
    if (g->variants & FX_VARIANT_POWER) {
        stays(R, "matrix power", "the version holds the power already");
        return FLUX_OK;
    }
    if (rolled_back_before(R, "matrix power")) {
        stays(R, "matrix power", "it was rolled back from this version before");
        return FLUX_OK;
    }
    double n = R->an.largest_size;
    FxVariantModels vm;
    if (!fx_api_measure_kernels(g, n, &vm)) {
        stays(R, "matrix power", "the variants could not be measured");
        return FLUX_OK;
    }
    double loop = fx_cost_predict(&vm.model[0], n), power = fx_cost_predict(&vm.model[1], n);
    double gain = loop / power;
    if (gain < MIN_GAIN) {
        char *w = fx_xasprintf("at the largest n seen, %.0f, the power is predicted %.2gx the "
                               "loop's speed", n, gain);
        stays(R, "matrix power", w);
        free(w);
        return FLUX_OK;
    }
    char *label = next_label(R);
    FxGraph *cand = fx_rule_recurrence_candidate(g, &g->rec, FX_VARIANT_LOOP | FX_VARIANT_POWER,
                                                 label);
    char *model = fx_api_models_json(&vm);
    FxBuf evidence = {0};
    fx_buf_puts(&evidence, "{\"certificate\": ");
    certificate_json(cand, &evidence);
    fx_buf_printf(&evidence, ", \"largest_n\": %.0f, \"loop_ms\": %.4g, \"power_ms\": %.4g, "
                  "\"predicted_gain\": %.3g, \"models\": %s}", n, loop, power, gain, model);
    FxProof *p = prove_certificate(g, cand);
    int status = install(R, cand, p, "matrix power",
                         "the loop stays as a variant; a cost model picks one per call",
                         fx_buf_str(&evidence), model, installed);
    fx_proof_free(p);
    fx_buf_free(&evidence);
    free(model);
    fx_graph_free(cand);
    free(label);
    return status;
}

/* ---- rule: sort kernels ---- */

static double best_time(FluxProgram *fp, const FxGraph *g, const char *expr);

/* Times the newest EXPR with the running version and with cand. True when
 * cand promises MIN_GAIN and saves MIN_SAVING_MS; then *evidence holds
 * {"expr", "measured_ms", "candidate_ms", "predicted_gain" and `extra`}.
 * Otherwise says why the rule stays. */
static bool measured_gain(Round *R, const char *rule, const FxGraph *cand, const char *extra,
                          FxBuf *evidence)
{
    const char *expr = R->tr.v.data[0].expr;
    double before = best_time(R->fp, R->current, expr), after = best_time(R->fp, cand, expr);
    double gain = before > 0 && after > 0 ? before / after : 0;
    if (gain < MIN_GAIN || before - after < MIN_SAVING_MS) {
        char *w = fx_xasprintf("`%.60s%s` measured %.3g ms with the rewrite against %.3g ms (a "
                               "gain must be %gx and %g ms)", expr,
                               strlen(expr) > 60 ? "..." : "", after, before, MIN_GAIN,
                               MIN_SAVING_MS);
        stays(R, rule, w);
        free(w);
        return false;
    }
    fx_buf_puts(evidence, "{\"expr\": ");
    expr_json(expr, evidence);
    fx_buf_printf(evidence, ", %s\"measured_ms\": %.4g, \"candidate_ms\": %.4g, "
                  "\"predicted_gain\": %.3g}", extra ? extra : "", before, after, gain);
    return true;
}

static int try_sort(Round *R, bool *installed)
{
    const char *why;
    if (!fx_rule_sort_applies(R->current, &why)) {
        stays(R, "sort kernels", why);
        return FLUX_OK;
    }
    if (rolled_back_before(R, "sort kernels")) {
        stays(R, "sort kernels", "it was rolled back from this version before");
        return FLUX_OK;
    }
    char *label = next_label(R);
    FxGraph *cand = fx_rule_sort_candidate(R->current, label);
    FxBuf evidence = {0};
    int status = FLUX_OK;
    if (measured_gain(R, "sort kernels", cand, NULL, &evidence)) {
        FxProof *p = fx_prove_sort_instance(R->current, cand, true);
        status = install(R, cand, p, "sort kernels",
                         "every kernel sorts stably: pdq and insertion sort int64 values, "
                         "for which stability is moot, and keyed pairs by a stable merge or "
                         "radix sort", fx_buf_str(&evidence), NULL, installed);
        fx_proof_free(p);
    }
    fx_buf_free(&evidence);
    fx_graph_free(cand);
    free(label);
    return status;
}

/* ---- rule: sieve ---- */

/* The graphs of the program's intents (the prelude's too) by name, lowered
 * once a round: what the rule and the checker compare a predicate with. */
typedef struct Lowered {
    FluxProgram *fp;
    FX_VEC(FxGraph *) made;
} Lowered;

static const FxGraph *lower_named(void *ctx, const char *intent)
{
    Lowered *L = ctx;
    fx_vec_foreach(FxGraph *, g, &L->made) if (!strcmp((*g)->intent, intent)) return *g;
    const FxIntent *in = fx_program_find_intent(L->fp->prog, intent);
    if (!in)
        return NULL;
    FxGraph *g = fx_lower_intent(L->fp->prog, in);
    if (g)
        fx_vec_push(&L->made, g);
    return g;
}

static int try_sieve(Round *R, bool *installed)
{
    Lowered L = {R->fp, {0}};
    const FxGraph *prime_shape = lower_named(&L, "prime"); /* the prelude's definition */
    FxNodeId fold, conj;
    const char *why = "the prelude has no `prime`";
    int status = FLUX_OK;
    if (!prime_shape ||
        !fx_rule_sieve_find(R->current, prime_shape, lower_named, &L, &fold, &conj, &why)) {
        stays(R, "sieve", why);
    } else if (rolled_back_before(R, "sieve")) {
        stays(R, "sieve", "it was rolled back from this version before");
    } else {
        char *label = next_label(R);
        FxGraph *cand = fx_rule_sieve_candidate(R->current, fold, conj, prime_shape, lower_named, &L,
                                                label);
        FxBuf evidence = {0};
        char *extra = fx_xasprintf("\"fold\": %u, ", fold.v);
        if (measured_gain(R, "sieve", cand, extra, &evidence)) {
            FxProof *p = fx_prove_sieve_rewrite(R->current, cand, fold, prime_shape,
                                                lower_named, &L, 5000);
            status = install(R, cand, p, "sieve",
                             "the sieve kernel lists (or counts) the primes of the range; "
                             "the other conditions run on those", fx_buf_str(&evidence), NULL,
                             installed);
            fx_proof_free(p);
        }
        free(extra);
        fx_buf_free(&evidence);
        fx_graph_free(cand);
        free(label);
    }
    fx_vec_foreach(FxGraph *, g, &L.made) fx_graph_free(*g);
    fx_vec_free(&L.made);
    return status;
}

/* ---- rules that mark one node: matrix kernel, query index ---- */

/* A rule that puts one node of the graph on a kernel: how it finds the
 * node, builds the candidate and has it proved. */
typedef struct MarkRule {
    const char *name, *effect, *node; /* node: "map", "fold" (for the evidence) */
    bool (*find)(const FxGraph *g, FxNodeId *at, const char **why);
    FxGraph *(*candidate)(const FxGraph *g, FxNodeId at, const char *label);
    FxProof *(*prove)(Round *R, const FxGraph *cand, FxNodeId at);
} MarkRule;

static int try_marked(Round *R, bool *installed, const MarkRule *rule)
{
    FxNodeId at;
    const char *why;
    if (!rule->find(R->current, &at, &why)) {
        stays(R, rule->name, why);
        return FLUX_OK;
    }
    if (rolled_back_before(R, rule->name)) {
        stays(R, rule->name, "it was rolled back from this version before");
        return FLUX_OK;
    }
    char *label = next_label(R);
    FxGraph *cand = rule->candidate(R->current, at, label);
    FxBuf evidence = {0};
    char *extra = fx_xasprintf("\"%s\": %u, ", rule->node, at.v);
    int status = FLUX_OK;
    if (measured_gain(R, rule->name, cand, extra, &evidence)) {
        FxProof *p = rule->prove(R, cand, at);
        status = install(R, cand, p, rule->name, rule->effect, fx_buf_str(&evidence), NULL,
                         installed);
        fx_proof_free(p);
    }
    free(extra);
    fx_buf_free(&evidence);
    fx_graph_free(cand);
    free(label);
    return status;
}

static FxProof *prove_gemm(Round *R, const FxGraph *cand, FxNodeId at)
{
    return fx_prove_gemm_rewrite(R->current, cand, at, R->fp->proof_cache, 5000);
}

static FxProof *prove_index(Round *R, const FxGraph *cand, FxNodeId at)
{
    return fx_prove_index_rewrite(R->current, cand, at);
}

static int try_gemm(Round *R, bool *installed)
{
    static const MarkRule gemm = {
        "matrix kernel",
        "every element is computed from the parameters alone: the kernel may compute the "
        "elements in any order and on any thread",
        "map", fx_rule_gemm_find, fx_rule_gemm_candidate, prove_gemm};
    return try_marked(R, installed, &gemm);
}

static int try_index(Round *R, bool *installed)
{
    static const MarkRule index = {
        "query index",
        "a scan compares each row natively; from a collection's second query in a run a "
        "sorted index answers by binary search",
        "fold", fx_rule_index_find, fx_rule_index_candidate, prove_index};
    return try_marked(R, installed, &index);
}

/* ---- rule: hot inputs ---- */

/* A table cell from an input's JSON field: an integer or a boolean. */
static char *cell_of(const char *input, const char *param)
{
    char *raw = fx_api_json_field(input, param);
    if (!raw)
        return NULL;
    if (fx_is_decimal(raw) || !strcmp(raw, "true") || !strcmp(raw, "false"))
        return raw;
    free(raw);
    return NULL;
}

static FxValue value_of(const char *cell)
{
    return !strcmp(cell, "true")    ? fx_val_bool(true)
           : !strcmp(cell, "false") ? fx_val_bool(false)
                                    : fx_val_int_text(cell);
}

/* The value of one call of g, computed in a runtime of its own, or
 * false when a budget stopped it. */
static bool value_alone(FluxProgram *fp, const FxGraph *g, const FxValue *args, FxValue *out)
{
    FxRuntime *rt = fx_runtime_new(fp->prog);
    FxBudgets b = fx_budgets_default();
    b.max_seconds = 10;
    fx_runtime_set_budgets(rt, b);
    fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version));
    bool ok = fx_runtime_call(rt, g->intent, args, g->n_params, out) == FX_OK;
    fx_runtime_free(rt);
    return ok;
}

/* "f(a, b)" of a table row: the call a user makes. Caller frees. */
static char *call_text(const FxGraph *g, char *const *row)
{
    FxBuf b = {0};
    fx_buf_printf(&b, "%s(", g->intent);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(&b, "%s%s", i ? ", " : "", row[i]);
    fx_buf_putc(&b, ')');
    return fx_buf_take(&b);
}

/* The best of up to five timings of EXPR run alone with g (fewer when a
 * run is slow); MEASURE_SECONDS * 1000 when it did not finish in time,
 * -1 when it failed otherwise. */
static double best_time(FluxProgram *fp, const FxGraph *g, const char *expr)
{
    double best = -1, spent = 0;
    for (int i = 0; i < 5 && spent < 300; i++) {
        double t0 = fx_api_now_ms(), t = run_alone(fp, g, expr, true, NULL);
        double wall = fx_api_now_ms() - t0;
        spent += wall;
        if (t < 0 && wall >= MEASURE_SECONDS * 1000 * 0.9)
            return MEASURE_SECONDS * 1000; /* out of time: at least that slow */
        if (t >= 0 && (best < 0 || t < best))
            best = t;
    }
    return best;
}

/* Does g read a data source, itself or by its calls? */
static bool reads_data(FluxProgram *fp, const FxGraph *g)
{
    FxRuntime *rt = fx_runtime_new(fp->prog);
    fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version));
    bool reads = fx_runtime_reads_data(rt, g->intent);
    fx_runtime_free(rt);
    return reads;
}

/* Whether a rule may propose: it applies and was not rolled back from this
 * version before; otherwise the round records why it stays. */
static bool rule_may_propose(Round *R, const char *rule, bool applies, const char *why)
{
    if (applies && rolled_back_before(R, rule)) {
        applies = false;
        why = "it was rolled back from this version before";
    }
    if (!applies)
        stays(R, rule, why);
    return applies;
}

/* The argument texts of recurring input h (n_params cells of row), or
 * false with row cleared when an argument is not an integer or boolean. */
static bool hot_arguments(const Round *R, const FxGraph *g, uint32_t h, char **row)
{
    bool ok = true;
    for (uint32_t i = 0; ok && i < g->n_params; i++)
        ok = (row[i] = cell_of(R->an.hot[h].example->input, g->param_names[i])) != NULL;
    for (uint32_t i = 0; !ok && i < g->n_params; i++) {
        free(row[i]);
        row[i] = NULL;
    }
    return ok;
}

static int try_hot(Round *R, bool *installed)
{
    const FxGraph *g = R->current;
    const char *why;
    bool applies = fx_rule_hot_applies(g, reads_data(R->fp, g), &R->an, &why);
    if (!rule_may_propose(R, "hot inputs", applies, why))
        return FLUX_OK;
    uint32_t np = g->n_params, w = np + 1, n = 0;
    char **cells = fx_xcalloc((size_t)R->an.n_hot * w + 1, sizeof(char *));
    const char **args_only = fx_xcalloc((size_t)R->an.n_hot * np + 1, sizeof(char *));
    FxValue *args = fx_xcalloc(np + 1, sizeof(FxValue));
    double before = 0, after = 0;
    for (uint32_t h = 0; h < R->an.n_hot; h++) {
        char **row = cells + (size_t)n * w;
        bool ok = hot_arguments(R, g, h, row);
        FxValue v = {0};
        for (uint32_t i = 0; i < np; i++)
            args[i] = ok ? value_of(row[i]) : fx_val_int(0);
        /* the result, by the running version (proved equal to v1) */
        bool computed = ok && value_alone(R->fp, g, args, &v);
        ok = computed && (fx_val_is_integer(v) || v.kind == FX_VAL_BOOL);
        if (ok) {
            FxBuf text = {0};
            fx_val_print(v, &text);
            row[np] = fx_buf_take(&text);
            for (uint32_t i = 0; i < np; i++)
                args_only[(size_t)n * np + i] = row[i];
            n++;
        } else {
            for (uint32_t i = 0; i < w; i++) {
                free(row[i]);
                row[i] = NULL;
            }
        }
        if (computed)
            fx_value_release(v);
        for (uint32_t i = 0; i < np; i++)
            fx_value_release(args[i]);
    }
    int status = FLUX_OK;
    if (n == 0) {
        stays(R, "hot inputs", "the recurring inputs' results could not be computed");
    } else if (fx_rule_hot_has_all(g, n, args_only)) {
        stays(R, "hot inputs", "the table holds the recurring inputs already");
    } else {
        char *label = next_label(R);
        FxGraph *cand = fx_rule_hot_candidate(g, n, (const char *const *)cells, label);
        for (uint32_t r = 0; r < n && r < 4; r++) { /* measured on the hottest inputs */
            char *call = call_text(g, cells + (size_t)r * w);
            before += fmax(best_time(R->fp, g, call), 0);
            after += fmax(best_time(R->fp, cand, call), 1e-6);
            free(call);
        }
        double gain = before / after, saved = (before - after) / (n < 4 ? n : 4);
        if (gain < MIN_GAIN || saved < MIN_SAVING_MS) {
            char *w2 = fx_xasprintf("a table lookup is predicted %.2gx faster, saving %.3g ms a "
                                    "call (it must be %gx and %g ms)", gain, saved, MIN_GAIN,
                                    MIN_SAVING_MS);
            stays(R, "hot inputs", w2);
            free(w2);
        } else {
            FxBuf evidence = {0}, table = {0};
            fx_graph_print_table(cand, &table);
            fx_buf_printf(&evidence, "{\"window\": %zu, \"recurring\": %u, \"share\": %.2f, "
                          "\"table\": ", R->an.window, R->an.n_hot, R->an.hot_share);
            fx_api_json_string(fx_buf_str(&table) + 9, &evidence);
            fx_buf_printf(&evidence, ", \"measured_ms\": %.4g, \"table_ms\": %.4g, "
                          "\"predicted_gain\": %.3g}", before, after, gain);
            char *effect = fx_xasprintf("%s is pure, so the result %s computed for each of "
                                        "the table's %u inputs is its result forever",
                                        R->in->name, g->version, n);
            FxProof *p = fx_prove_same_function(g, cand, NULL, NULL, R->fp->proof_cache, 5000);
            status = install(R, cand, p, "hot inputs", effect, fx_buf_str(&evidence), NULL,
                             installed);
            fx_proof_free(p);
            free(effect);
            fx_buf_free(&table);
            fx_buf_free(&evidence);
        }
        fx_graph_free(cand);
        free(label);
    }
    for (size_t i = 0; i < (size_t)R->an.n_hot * w; i++)
        free(cells[i]);
    free(cells);
    free(args_only);
    free(args);
    return status;
}

/* ---- rule: materialised results ---- */

/* The best of three second runs of EXPR, each in a runtime of its own:
 * what a process asking again sees. */
static double best_second_time(FluxProgram *fp, const FxGraph *g, const char *expr)
{
    double best = -1;
    for (int i = 0; i < 3; i++) {
        double t = run_times(fp, g, expr, true, NULL, 2);
        if (t >= 0 && (best < 0 || t < best))
            best = t;
    }
    return best;
}

static int try_materialise(Round *R, bool *installed)
{
    const FxGraph *g = R->current;
    const char *why;
    bool applies = fx_rule_materialise_applies(g, reads_data(R->fp, g), &R->an, &why);
    if (!rule_may_propose(R, "materialised results", applies, why))
        return FLUX_OK;
    uint32_t np = g->n_params, n = 0;
    char **rows = fx_xcalloc((size_t)R->an.n_hot * np + 1, sizeof(char *));
    for (uint32_t h = 0; h < R->an.n_hot; h++)
        n += hot_arguments(R, g, h, rows + (size_t)n * np);
    int status = FLUX_OK;
    if (n == 0) {
        stays(R, "materialised results", "the recurring inputs are not integers or booleans");
    } else if (fx_rule_materialise_has_all(g, n, (const char *const *)rows)) {
        stays(R, "materialised results", "the recurring inputs' results are materialised "
                                         "already");
    } else {
        char *label = next_label(R);
        FxGraph *cand = fx_rule_materialise_candidate(g, n, (const char *const *)rows, label);
        double before = 0, after = 0;
        uint32_t measured = n < 4 ? n : 4; /* on the hottest inputs */
        for (uint32_t r = 0; r < measured; r++) {
            char *call = call_text(g, rows + (size_t)r * np);
            before += fmax(best_second_time(R->fp, g, call), 0);
            after += fmax(best_second_time(R->fp, cand, call), 1e-6);
            free(call);
        }
        double gain = before / after, saved = (before - after) / measured;
        if (gain < MIN_GAIN || saved < MIN_SAVING_MS) {
            char *w2 = fx_xasprintf("a kept result is predicted %.2gx faster on a call asked "
                                    "again, saving %.3g ms (it must be %gx and %g ms)", gain,
                                    saved, MIN_GAIN, MIN_SAVING_MS);
            stays(R, "materialised results", w2);
            free(w2);
        } else {
            FxBuf evidence = {0}, list = {0};
            fx_graph_print_materialised(cand, &list);
            fx_buf_printf(&evidence, "{\"window\": %zu, \"recurring\": %u, \"share\": %.2f, "
                          "\"materialised\": ", R->an.window, R->an.n_hot, R->an.hot_share);
            fx_api_json_string(fx_buf_str(&list) + 16, &evidence);
            fx_buf_printf(&evidence, ", \"asked_again_ms\": %.4g, \"kept_ms\": %.4g, "
                          "\"predicted_gain\": %.3g}", before, after, gain);
            char *effect = fx_xasprintf(
                "the nodes are %s's; a result is kept only with the stamps (size, "
                "modification and change times) of the data files it was computed from, and "
                "a changed file drops it, so a kept result is the nodes' value over the same "
                "data", g->version);
            FxProof *p = fx_prove_same_function(g, cand, NULL, NULL, R->fp->proof_cache, 5000);
            status = install(R, cand, p, "materialised results", effect, fx_buf_str(&evidence),
                             NULL, installed);
            fx_proof_free(p);
            free(effect);
            fx_buf_free(&list);
            fx_buf_free(&evidence);
        }
        fx_graph_free(cand);
        free(label);
    }
    for (size_t i = 0; i < (size_t)R->an.n_hot * np; i++)
        free(rows[i]);
    free(rows);
    return status;
}

/* ---- rollback, and refitting the models ---- */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Points of one version's runs (of one variant, unless 0). */
static size_t points_of(const Round *R, const char *label, uint32_t variant, FxCostPoint *pts,
                        size_t cap)
{
    size_t n = 0;
    fx_vec_foreach(FxTrace, t, &R->tr.v) if (n < cap && !strcmp(t->version, label) &&
                                               (!variant || t->variant == variant))
            pts[n++] = (FxCostPoint){t->size, t->ms};
    return n;
}

/* Rolls the running version back when its runs were slower than its
 * parent's model predicts at the same sizes (sizes the parent was measured
 * near: a model is not trusted far beyond its points). */
static int maybe_roll_back(Round *R, bool *rolled)
{
    *rolled = false;
    FxVersionOrigin o = fx_api_origin(R->fp, R->in, R->current);
    if (!o.parent) {
        fx_api_origin_free(&o);
        return FLUX_OK;
    }
    FxCostPoint mine[TRACES], theirs[TRACES];
    size_t n_mine = points_of(R, R->current->version, 0, mine, TRACES);
    size_t n_theirs = points_of(R, o.parent, 0, theirs, TRACES);
    FxCostModel parent;
    int status = FLUX_OK;
    if (n_mine >= ROLLBACK_RUNS && n_theirs >= 3 && fx_cost_fit(theirs, n_theirs, &parent)) {
        double ratios[TRACES];
        size_t k = 0;
        for (size_t i = 0; i < n_mine; i++)
            if (mine[i].size <= 2 * parent.max_size)
                ratios[k++] = mine[i].ms / fx_cost_predict(&parent, mine[i].size);
        if (k >= ROLLBACK_RUNS) {
            qsort(ratios, k, sizeof(double), compare_double);
            double median = ratios[k / 2];
            if (median > ROLLBACK_RATIO) {
                char *why = fx_xasprintf("measured %.2gx slower than %s (median of %zu runs "
                                         "against %s's fitted %s model over %zu runs)",
                                         median, o.parent, k, o.parent,
                                         fx_cost_class_name(parent.klass), n_theirs);
                int64_t proposal;
                FxStatus s = fx_store_roll_back(R->fs->store, R->version, why);
                if (s == FX_OK)
                    s = fx_store_add_proposal(R->fs->store, R->lineage, "rollback", "accepted",
                                              why, NULL, 0, &proposal);
                if (s == FX_OK)
                    fprintf(R->out, "%s: rolled back %s to %s: %s\n", R->in->name,
                            R->current->version, o.parent, why);
                status = s == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
                *rolled = s == FX_OK;
                free(why);
            }
        }
    }
    fx_api_origin_free(&o);
    return status;
}

/* A version with variants: each variant's model refitted on its recorded
 * runs once it has enough of them. */
static int refit_models(Round *R)
{
    const FxGraph *g = R->current;
    if ((g->variants & (FX_VARIANT_LOOP | FX_VARIANT_POWER)) != (FX_VARIANT_LOOP | FX_VARIANT_POWER))
        return FLUX_OK;
    char *old = NULL;
    FxVariantModels vm;
    if (fx_store_model(R->fs->store, R->version, &old) != FX_OK || !fx_api_models_read(old, &vm)) {
        free(old);
        return FLUX_OK;
    }
    free(old);
    bool changed = false;
    for (int k = 0; k < 2; k++) {
        FxCostPoint pts[TRACES];
        size_t n = points_of(R, g->version, k ? FX_VARIANT_POWER : FX_VARIANT_LOOP, pts, TRACES);
        FxCostModel m;
        if (n >= 4 && fx_cost_fit(pts, n, &m)) {
            vm.model[k] = m;
            vm.has[k] = changed = true;
        }
    }
    if (!changed)
        return FLUX_OK;
    char *json = fx_api_models_json(&vm);
    FxStatus s = fx_store_set_model(R->fs->store, R->version, json);
    if (s == FX_OK)
        fprintf(R->out, "%s: %s's cost models refitted on its runs: %s\n", R->in->name,
                g->version, json);
    free(json);
    return s == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
}

/* ---- the round ---- */

static int optimize_intent(FluxProgram *fp, FluxStore *fs, const FxIntent *in, FILE *out)
{
    Round R = {.fp = fp, .fs = fs, .in = in, .out = out,
               .current = fx_runtime_graph(fx_api_runtime(fp), in->name)};
    int status = FLUX_OK;
    if (fx_api_version_of(fp, in, R.current, &R.lineage, &R.version) != FX_OK ||
        fx_api_traces(fs, in->name, R.lineage, TRACES, &R.tr) != FX_OK)
        return FLUX_ERR_STORE;
    fx_analyze(R.tr.v.data, R.tr.v.len, R.current->version, &R.an);
    if (!fp->proof_cache)
        fp->proof_cache = fx_proof_cache_new();
    if (R.tr.v.len == 0) {
        fprintf(out, "%s: %s stays: no recorded run to learn from\n", in->name,
                R.current->version);
        fx_api_traces_free(&R.tr);
        return FLUX_OK;
    }
    bool done = false;
    status = maybe_roll_back(&R, &done);
    if (!done && status == FLUX_OK)
        status = refit_models(&R);
    int (*rules[])(Round *, bool *) = {try_simplify, try_memo, try_iteration, try_power,
                                       try_sort, try_sieve, try_gemm, try_index, try_materialise,
                                       try_hot};
    for (size_t i = 0; !done && status == FLUX_OK && i < FX_ARRAY_LEN(rules); i++)
        status = rules[i](&R, &done);
    if (!done && status == FLUX_OK)
        fprintf(out, "%s: %s stays: %s\n", in->name, R.current->version, fx_buf_str(&R.stays));
    fx_buf_free(&R.stays);
    fx_api_traces_free(&R.tr);
    return status;
}

int flux_optimize(FluxProgram *fp, FluxStore *fs, const char *intent, FILE *out,
                  FILE *diagnostics)
{
    /* a fresh runtime on the newest versions: a run before may have switched
     * a table on mid-run, which would hide the repeated work it showed */
    flux_program_use_store(fp, fs, fp->keep_values);
    int status = FLUX_OK;
    bool found = false;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        if (intent && strcmp(intent, (*in)->name) != 0)
            continue;
        found = true;
        if (optimize_intent(fp, fs, *in, out) != FLUX_OK)
            status = FLUX_ERR_STORE;
    }
    if (!found && !intent) { /* a file of imports only: its intents learn in their own files */
        if (out)
            fprintf(out, "no intent of its own in this file to optimize; an imported file's "
                         "intents are optimized with that file\n");
        return FLUX_OK;
    }
    if (!found) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent);
        return FLUX_ERR_USAGE;
    }
    if (status != FLUX_OK && diagnostics)
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
    return status;
}
