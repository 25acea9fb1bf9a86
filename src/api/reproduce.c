/*
 * reproduce.c: a counterexample is shown only once both versions, run on
 * its arguments, differ there.
 *
 * The prover's counterexample is read from the solver's model of an
 * encoding, a claim about terms in which a division by zero or a made-up
 * recursive call has some value. So each refuted obligation that carries
 * its arguments (FxObligation.witness) is run here by the interpreter:
 * the current version and the candidate, each in a runtime of its own
 * under a small budget. When the runs differ (one fails and the other
 * does not, or the values differ), the counterexample is written from the
 * runs, so what is shown is what running gives; otherwise the obligation
 * is unknown ("unproved: the solver's model did not reproduce") and the
 * rewrite is not installed.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "proof/prove.h"

#define RUN_STEPS 10000000ULL /* small arguments, small runs: more is a runaway */
#define RUN_SECONDS 2.0

typedef struct Outcome {
    bool finished; /* false: a budget stopped it, so it says nothing */
    bool ok;       /* a value, not a failure */
    char *text;    /* the value, or the failure's message */
} Outcome;

static Outcome run(FluxProgram *fp, const FxGraph *g, char *const *witness, uint32_t n)
{
    FxValue args[64], v;
    Outcome o = {0};
    if (n != g->n_params || n > 64)
        return o;
    for (uint32_t i = 0; i < n; i++)
        args[i] = fx_typeid_kind(g->param_tids[i]) == FX_TK_BOOL
                          ? fx_val_bool(!strcmp(witness[i], "true"))
                          : fx_val_int_text(witness[i]);
    FxRuntime *rt = fx_runtime_new(fp->prog);
    FxBudgets b = fx_budgets_default();
    b.max_steps = RUN_STEPS;
    b.max_seconds = RUN_SECONDS;
    fx_runtime_set_budgets(rt, b);
    FxGraph *copy = fx_graph_copy_as(g, g->intent, g->version);
    bool used = fx_runtime_use_graph(rt, copy); /* the runtime's from here */
    if (!used)
        fx_graph_free(copy);
    o.ok = used && fx_runtime_call(rt, g->intent, args, n, &v) == FX_OK;
    o.finished = used && (o.ok || !fx_runtime_stopped_by(rt));
    if (o.ok) {
        FxBuf t = {0};
        fx_val_print(v, &t);
        o.text = fx_buf_take(&t);
        fx_value_release(v);
    } else { /* the message names its source by the file's name alone */
        const FxError *e = fx_runtime_last_error(rt);
        size_t len = e->file ? strlen(e->file) : 0;
        const char *base = e->file ? strrchr(e->file, '/') : NULL;
        o.text = base && !strncmp(e->message, e->file, len)
                         ? fx_xasprintf("%s%s", base + 1, e->message + len)
                         : fx_xstrdup(e->message);
    }
    for (uint32_t i = 0; i < n; i++)
        fx_value_release(args[i]);
    fx_runtime_free(rt);
    return o;
}

/* "a = 0, b = 1: the current version gives -1, the candidate 1", or with
 * "fails (in `f`: division by zero)" for a side that failed. */
static char *describe(const FxGraph *g, char *const *witness, const Outcome *a, const Outcome *b)
{
    FxBuf w = {0};
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(&w, "%s%s = %s", i ? ", " : "", g->param_names[i], witness[i]);
    fx_buf_printf(&w, a->ok ? ": the current version gives %s" : ": the current version fails (%s)",
                  a->text);
    fx_buf_printf(&w, !b->ok ? ", the candidate fails (%s)" : a->ok ? ", the candidate %s"
                                                                    : ", the candidate gives %s",
                  b->text);
    return fx_buf_take(&w);
}

static void reproduce(FluxProgram *fp, const FxGraph *cur, const FxGraph *cand, FxObligation *o)
{
    Outcome a = run(fp, cur, o->witness, o->n_witness);
    Outcome b = a.finished ? run(fp, cand, o->witness, o->n_witness) : (Outcome){0};
    bool differ = a.finished && b.finished &&
                  (a.ok != b.ok || (a.ok && strcmp(a.text, b.text) != 0));
    char *runs = a.finished && b.finished ? describe(cur, o->witness, &a, &b) : NULL;
    if (differ) {
        free(o->counterexample);
        o->counterexample = runs;
    } else {
        o->verdict = FX_PROOF_UNKNOWN;
        free(o->reason);
        o->reason = fx_xasprintf("unproved: the solver's model did not reproduce (%s; run: %s)",
                                 o->counterexample ? o->counterexample : "no counterexample",
                                 runs ? runs : "a run did not finish within its budget");
        free(o->counterexample);
        o->counterexample = NULL;
        free(runs);
    }
    free(a.text);
    free(b.text);
}

void fx_api_reproduce(FluxProgram *fp, const FxGraph *cur, const FxGraph *cand, FxProof *p)
{
    bool changed = false;
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        if (o->verdict != FX_PROOF_REFUTED || !o->witness)
            continue;
        reproduce(fp, cur, cand, o);
        changed = true;
    }
    if (changed)
        fx_proof_tally(p);
}
