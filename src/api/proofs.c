/*
 * proofs.c: rewrites checked by the prover, recorded, and shown.
 *
 * flux_prove_rewrite is the path every installed rewrite will take: the
 * candidate graph (here written by hand as another intent of the file;
 * later made by the optimizer's rules) is checked against the current
 * version by src/proof/prove.c, whose obligations are derived from the two
 * graphs alone. The check is stored as a proof (the obligations' SMT-LIB
 * text, the verdict, the solver and its version, the time) and a proposal
 * (accepted or rejected, the reason, the counterexample). Nothing is
 * installed here: installing is the optimizer's (issue 6).
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/lower.h"
#include "proof/prove.h"
#include "proof/smt.h"

static const FxGraph *lookup(void *ctx, const char *intent)
{
    FluxProgram *fp = ctx;
    return fx_program_find_intent(fp->prog, intent) ? fx_runtime_graph(fx_api_runtime(fp), intent)
                                                    : NULL;
}

/* Every obligation with a query, each in its own push/pop, so that
 * `z3 -in` answers one `unsat` per proved obligation. */
static char *smtlib_of(const FxProof *p)
{
    FxBuf b = {0};
    fx_buf_printf(&b, "; flux proof: %s, %s\n", fx_proof_verdict_name(p->verdict),
                  fx_smt_solver_version());
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        if (!o->smtlib)
            continue;
        fx_buf_printf(&b, "; obligation %s: %s (%s)\n(push)\n%s(pop)\n", o->kind, o->what,
                      fx_proof_verdict_name(o->verdict), o->smtlib);
    }
    return fx_buf_take(&b);
}

static void print_proof(const FxProof *p, const char *intent, const char *candidate,
                        long long id, double ms, FILE *out)
{
    fprintf(out, "%s as a rewrite of %s: %s", candidate, intent,
            p->verdict == FX_PROOF_PROVED ? "proved" : "rejected");
    if (id > 0)
        fprintf(out, " (proof #%lld, %.1f ms)", id, ms);
    fputc('\n', out);
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        fprintf(out, "  %-11s %-8s %s%s\n", o->kind, fx_proof_verdict_name(o->verdict), o->what,
                o->cached ? " (cached)" : "");
        if (o->counterexample)
            fprintf(out, "              counterexample: %s\n", o->counterexample);
        if (o->reason)
            fprintf(out, "              %s\n", o->reason);
    }
}

static const char *why_rejected(const FxProof *p, const char **out_cex)
{
    *out_cex = NULL;
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        if (o->verdict == FX_PROOF_PROVED)
            continue;
        *out_cex = o->counterexample;
        return o->reason ? o->reason : o->kind;
    }
    return NULL;
}

int flux_prove_rewrite(FluxProgram *fp, FluxStore *fs, const char *intent, const char *candidate,
                       FILE *out, FILE *diagnostics)
{
    const FxIntent *in = fx_program_find_intent(fp->prog, intent);
    const FxIntent *cand = fx_program_find_intent(fp->prog, candidate);
    if (!in || !cand) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", in ? candidate : intent);
        return FLUX_ERR_USAGE;
    }
    if (!fp->proof_cache)
        fp->proof_cache = fx_proof_cache_new();
    const FxGraph *current = fx_runtime_graph(fx_api_runtime(fp), in->name);
    FxGraph *lowered = fx_lower_intent(fp->prog, cand);
    FxGraph *g = fx_graph_copy_as(lowered, in->name, "candidate");
    fx_graph_free(lowered);
    FxProof *p = fx_prove_same_function(current, g, lookup, fp, fp->proof_cache, 5000);
    fx_api_reproduce(fp, current, g, p);
    double ms = 0;
    fx_vec_foreach(FxObligation, o, &p->obligations) ms += o->ms;
    long long id = 0;
    int status = p->verdict == FX_PROOF_PROVED ? FLUX_OK : FLUX_ERR_REJECTED;
    if (fs) {
        fp->store = fs;
        int64_t lineage, version, proof, proposal;
        char *smt = smtlib_of(p);
        const char *cex, *reason = why_rejected(p, &cex);
        char *rule = fx_xasprintf("rewrite by hand: %s", candidate);
        if (fx_api_version_of(fp, in, current, &lineage, &version) != FX_OK ||
            fx_store_add_proof(fs->store, smt, fx_proof_verdict_name(p->verdict),
                               fx_smt_solver_version(), ms, &proof) != FX_OK ||
            fx_store_add_proposal(fs->store, lineage, rule,
                                  status == FLUX_OK ? "accepted" : "rejected", reason, cex, proof,
                                  &proposal) != FX_OK) {
            if (diagnostics)
                fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
            status = FLUX_ERR_STORE;
        } else {
            id = proof;
        }
        free(rule);
        free(smt);
    }
    print_proof(p, intent, candidate, id, ms, out);
    fx_proof_free(p);
    fx_graph_free(g);
    return status;
}

/* ---- showing proofs ---- */

static char *field(const char *json, const char *key)
{
    return fx_api_json_text(json, key);
}

static void print_row(const char *json, FILE *out)
{
    char *id = field(json, "proof_id"), *intent = field(json, "intent"), *rule = field(json, "rule");
    char *status = field(json, "status"), *reason = field(json, "reason");
    char *cex = field(json, "counterexample"), *solver = field(json, "solver");
    fprintf(out, "proof #%s: %s for `%s`: %s (%s)\n", id, rule, intent, status, solver);
    if (strcmp(cex, "null") && strcmp(cex, "-"))
        fprintf(out, "    counterexample: %s\n", cex);
    else if (strcmp(reason, "null") && strcmp(reason, "-"))
        fprintf(out, "    %s\n", reason);
    free(id);
    free(intent);
    free(rule);
    free(status);
    free(reason);
    free(cex);
    free(solver);
}

/* The library lemmas the checker may cite, by rule family (proofs/). */
static void print_coq(FILE *out)
{
    fprintf(out, "This proof was discharged by Z3 alone: it cites no Coq lemma.\n"
                 "The library lemmas (proofs/, checked by `make proofs`) cited by other rules:\n"
                 "  LinRec.v      companion_step, companion_power, fastpow_correct\n"
                 "                (a linear recurrence as a matrix power)\n"
                 "  Sieve.v       sieve_correct, composite_has_small_factor,\n"
                 "                crossing_starts_at_square (the sieve of Eratosthenes)\n"
                 "  SortUnique.v  sorted_permutation_unique, sort_correct_any\n"
                 "                (any sort is every other sort)\n");
}

int flux_proofs(FluxStore *fs, FluxProgram *fp, long long id, int smt, int coq, int json,
                FILE *out, FILE *diagnostics)
{
    if (id > 0) {
        char *text, *result, *solver;
        if (fx_store_proof(fs->store, id, &text, &result, &solver) != FX_OK) {
            if (diagnostics)
                fprintf(diagnostics, "flux: no proof #%lld in this store\n", id);
            return FLUX_ERR_USAGE;
        }
        if (smt)
            fputs(text, out);
        else if (coq)
            print_coq(out);
        else
            fprintf(out, "proof #%lld: %s by %s\n%s", id, result, solver, text);
        free(text);
        free(result);
        free(solver);
        return FLUX_OK;
    }
    FxRows rows = {0};
    FxStatus st = FX_OK;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        if ((st = fx_store_proposals(fs->store, (*in)->name, fx_api_keep_row, &rows)) != FX_OK)
            break;
    }
    return fx_api_print_rows(&rows, st, fs, json, print_row,
                             "no proofs or proposals recorded for these intents yet", out,
                             diagnostics);
}
