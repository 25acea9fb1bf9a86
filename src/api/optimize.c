/*
 * optimize.c: one round of the living loop: evidence, rule, proof, install.
 *
 * For each intent of the file: the newest recorded run's EXPR is run again
 * with a hook that counts the intent's calls and their distinct argument
 * tuples (under a step budget, so a round stays short); each rule that
 * matches the graph's structure and the evidence proposes a candidate; the
 * prover checks it against the current version; a proved candidate becomes
 * the lineage's next version in one store transaction per row, with its
 * parent, the rule, the proof and the evidence. A rejected one is recorded
 * as a rejected proposal. Runs never wait for this: `flux optimize` is
 * asked for, or runs after a run has printed its answer.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/graph.h"
#include "opt/rule_memo.h"
#include "proof/prove.h"
#include "proof/smt.h"

#define EVIDENCE_STEPS 2000000

typedef struct Counter {
    const char *intent;
    FxCallEvidence ev;
    FX_VEC(uint64_t) seen; /* argument hashes, open addressing */
} Counter;

static uint64_t hash_args(const FxValue *a, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ fx_val_hash(a[i])) * 1099511628211ULL;
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

/* The newest recorded EXPR of the intent, or NULL. Caller frees. */
static char *newest_expr(FluxStore *fs, const char *intent)
{
    FxRows rows = {0};
    char *expr = NULL;
    if (fx_store_executions(fs->store, intent, 1, fx_api_keep_row, &rows) == FX_OK &&
        rows.json.len)
        expr = fx_api_json_text(rows.json.data[0], "expr");
    fx_vec_foreach(char *, r, &rows.json) free(*r);
    fx_vec_free(&rows.json);
    if (expr && !strcmp(expr, "-")) {
        free(expr);
        expr = NULL;
    }
    return expr;
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

static char *next_label(const char *label)
{
    long n = label && label[0] == 'v' ? strtol(label + 1, NULL, 10) : 1;
    return fx_xasprintf("v%ld", n + 1);
}

/* Proves the candidate and installs it, or records it rejected. */
static int install(FluxProgram *fp, FluxStore *fs, const FxIntent *in, const FxGraph *current,
                   FxGraph *cand, const char *rule, const char *evidence, FILE *out)
{
    if (!fp->proof_cache)
        fp->proof_cache = fx_proof_cache_new();
    FxProof *p = fx_prove_same_function(current, cand, NULL, NULL, fp->proof_cache, 5000);
    double ms = 0;
    FxBuf smt = {0};
    fx_buf_printf(&smt, "; flux proof: %s, %s\n", fx_proof_verdict_name(p->verdict),
                  fx_smt_solver_version());
    const char *why_not = NULL; /* the first obligation that did not hold, in words */
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        ms += o->ms;
        const char *r = o->verdict == FX_PROOF_PROVED ? NULL
                        : o->counterexample                ? o->counterexample
                                                           : o->reason;
        if (r && !why_not)
            why_not = r;
        fx_buf_printf(&smt, "; obligation %s: %s (%s)%s%s\n", o->kind, o->what,
                      fx_proof_verdict_name(o->verdict), r ? ": " : "", r ? r : "");
        if (o->smtlib)
            fx_buf_printf(&smt, "(push)\n%s(pop)\n", o->smtlib);
    }
    fx_buf_printf(&smt, "; effect: %s is pure by construction (no state, input, output or "
                        "randomness), so a table of its results is its results\n", in->name);
    int64_t lineage, cur_version, proof, proposal, version = 0;
    bool proved = p->verdict == FX_PROOF_PROVED;
    FxStatus st = fx_api_version_of(fp, in, current, &lineage, &cur_version);
    if (st == FX_OK)
        st = fx_store_add_proof(fs->store, fx_buf_str(&smt), fx_proof_verdict_name(p->verdict),
                                fx_smt_solver_version(), ms, &proof);
    if (st == FX_OK && proved) {
        FxBuf json = {0};
        fx_graph_print_json(cand, &json);
        FxVersionInfo vi = {cand->version, fx_buf_str(&json), cur_version, rule, proof, evidence};
        st = fx_store_version(fs->store, lineage, &vi, &version);
        fx_buf_free(&json);
    }
    if (st == FX_OK)
        st = fx_store_add_proposal(fs->store, lineage, rule, proved ? "accepted" : "rejected",
                                   proved ? NULL : why_not ? why_not : "the prover did not prove it", NULL, proof,
                                   &proposal);
    if (st == FX_OK)
        fprintf(out, "%s: %s %s: %s (proof #%lld, %.1f ms%s%s); evidence %s\n", in->name,
                proved ? "installed" : "rejected", cand->version, rule, (long long)proof, ms,
                proved || !why_not ? "" : ": ", proved || !why_not ? "" : why_not, evidence);
    fx_proof_free(p);
    fx_buf_free(&smt);
    return st == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
}

static int optimize_intent(FluxProgram *fp, FluxStore *fs, const FxIntent *in, FILE *out)
{
    const FxGraph *current = fx_runtime_graph(fx_api_runtime(fp), in->name);
    char *expr = newest_expr(fs, in->name);
    FxCallEvidence ev = {0, 0};
    if (!expr || !gather(fp, in->name, expr, &ev)) {
        fprintf(out, "%s: %s stays: no recorded run to learn from\n", in->name, current->version);
        free(expr);
        return FLUX_OK;
    }
    const char *why;
    int status = FLUX_OK;
    if (!fx_rule_memo_applies(current, &ev, &why)) {
        fprintf(out, "%s: %s stays: memoization does not apply (%s)\n", in->name,
                current->version, why);
    } else {
        char *label = next_label(current->version);
        FxGraph *cand = fx_rule_memo_candidate(current, label);
        FxBuf evidence = {0};
        fx_buf_puts(&evidence, "{\"expr\": ");
        fx_api_json_string(expr, &evidence); /* EXPR may hold quotes: strings */
        fx_buf_printf(&evidence, ", \"calls\": %llu, \"distinct\": %llu%s}",
                      (unsigned long long)ev.calls, (unsigned long long)ev.distinct,
                      ev.calls >= EVIDENCE_STEPS / 2 ? ", \"cut\": true" : "");
        status = install(fp, fs, in, current, cand, "memoization", fx_buf_str(&evidence), out);
        fx_buf_free(&evidence);
        fx_graph_free(cand);
        free(label);
    }
    free(expr);
    return status;
}

int flux_optimize(FluxProgram *fp, FluxStore *fs, const char *intent, FILE *out,
                  FILE *diagnostics)
{
    fp->store = fs;
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
    if (!found) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent);
        return FLUX_ERR_USAGE;
    }
    if (status != FLUX_OK && diagnostics)
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
    return status;
}
