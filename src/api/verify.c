/*
 * verify.c: `flux proofs FILE --verify`: every version of FILE's intents
 * judged by the seals of its proofs (trace/seal.h), as a run judges the
 * newest, and each sealed proof checked again by the prover from the two
 * graphs it binds, the parent's and the version's, since a seal is not
 * keyed and a forger can recompute it: by the proof the rewrite's rule
 * asks for, found from what the version adds to its parent (a recurrence's
 * certificate, a node put on a kernel), else as the same function.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "proof/prove.h"
#include "rulehost.h"

/* The node of cand a kernel's rule put on its kernel (*k): the first whose
 * kernel is not cur's; {0} when none. */
static FxNodeId kernel_site(const FxGraph *cur, const FxGraph *cand, FxKernelId *k)
{
    for (uint32_t i = 0; i < cand->n_nodes; i++) {
        FxKernelId was = i < cur->n_nodes ? cur->nodes[i].kernel : FX_KERNEL_NONE;
        if (cand->nodes[i].kernel != FX_KERNEL_NONE && cand->nodes[i].kernel != was) {
            *k = cand->nodes[i].kernel;
            return (FxNodeId){i + 1};
        }
    }
    return (FxNodeId){0};
}

/* The prover's verdict on cand as a rewrite of cur, checked again by the
 * proof its rule asks for (opt/rule_*.c), found from what cand adds. */
static FxProof *check_again(FxApiRuleHost *h, const FxGraph *cur, const FxGraph *cand)
{
    const FxRuleHost *rh = &h->host;
    if (cand->kernel == FX_KERNEL_RECURRENCE) {
        FxLinRec cert = {cand->rec.order, cand->rec.coeffs, cand->rec.initial, cand->variants};
        return fx_prove_linear_recurrence(cur, &cert, NULL, NULL, 5000);
    }
    FxKernelId k = FX_KERNEL_NONE;
    FxNodeId at = kernel_site(cur, cand, &k);
    if (at.v && k == FX_KERNEL_SORT)
        return fx_prove_sort_instance(cur, cand, true);
    if (at.v && k == FX_KERNEL_SIEVE)
        return fx_prove_sieve_rewrite(cur, cand, at, rh->lower(rh->ctx, "prime"), rh->lower,
                                      rh->ctx, 5000);
    if (at.v)
        return fx_prove_kernel_rewrite(cur, cand, at, k, rh->proof_cache, 5000);
    return fx_prove_same_function(cur, cand, rh->lower, rh->ctx, rh->proof_cache, 5000);
}

/* The graph of version label of lineage, when it verifies; else NULL with
 * why (caller frees). */
static FxGraph *verified_graph(FxStore *st, int64_t lineage, const char *label, char **why)
{
    FxTrusted t;
    FxGraph *g = NULL;
    char bad[256];
    *why = NULL;
    if (fx_store_trusted_version(st, lineage, label, &t, NULL, NULL) != FX_OK)
        *why = fx_xstrdup(fx_store_error(st));
    else if (t.why)
        *why = fx_xstrdup(t.why);
    else if (!(g = fx_graph_read_json(t.graph_json, bad, sizeof(bad))))
        *why = fx_xstrdup(bad);
    fx_trusted_free(&t);
    return g;
}

char *fx_api_proof_again(FluxProgram *fp, FxStore *st, const char *intent, int64_t lineage,
                         const FxGraph *g, const char *parent)
{
    char *why = NULL;
    FxGraph *cur = verified_graph(st, lineage, parent, &why);
    if (!cur) {
        char *w = fx_xasprintf("its parent %s is refused: %s", parent, why);
        free(why);
        return w;
    }
    if (!fp->proof_cache)
        fp->proof_cache = fx_proof_cache_new();
    FxApiRuleHost host;
    fx_api_rule_host_init(&host, fp, intent);
    FxProof *p = check_again(&host, cur, g);
    fx_api_reproduce(fp, cur, g, p); /* "refuted" only when running shows it */
    if (p->verdict != FX_PROOF_PROVED)
        why = fx_xasprintf("the prover, checking it again from %s's graph and %s's, finds it %s",
                           parent, g->version, fx_proof_verdict_name(p->verdict));
    fx_proof_free(p);
    fx_api_rule_host_free(&host);
    fx_graph_free(cur);
    return why;
}

bool fx_api_verify_version(FluxProgram *fp, FxStore *st, const FxIntent *in, int64_t lineage,
                           const char *row, FILE *out)
{
    char *label = fx_api_json_text(row, "version"), *parent = fx_api_json_text(row, "parent");
    char *proof_id = fx_api_json_field(row, "proof_id"), *why = NULL;
    FxGraph *g = verified_graph(st, lineage, label, &why);
    bool ok = g && !strcmp(label, "v1");
    if (!g)
        fprintf(out, "%s %s: refused: %s\n", in->name, label, why);
    else if (ok)
        fprintf(out, "%s v1: the naive graph read from the constraints: nothing to prove\n",
                in->name);
    else if (!(why = fx_api_proof_again(fp, st, in->name, lineage, g, parent)))
        fprintf(out, "%s %s: proof #%s holds: its seal matches, and the prover, checking it "
                     "again from %s's graph and %s's, finds it proved\n",
                in->name, label, proof_id, parent, label);
    else
        fprintf(out, "%s %s: proof #%s does not hold: its seal matches, but %s\n", in->name,
                label, proof_id, why);
    ok |= g && !why;
    fx_graph_free(g);
    free(label);
    free(parent);
    free(proof_id);
    free(why);
    return ok;
}

int flux_proofs_verify(FluxStore *fs, FluxProgram *fp, FILE *out, FILE *diagnostics)
{
    FxStore *st = fs->store;
    fp->store = fs;
    bool all = true, any = false;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        char hash[17];
        int64_t lineage = 0;
        FxRows rows = {0};
        fx_api_lineage_hash(*in, hash);
        if (fx_store_find_lineage(st, (*in)->name, hash, &lineage) != FX_OK ||
            fx_store_versions(st, (*in)->name, fx_api_keep_row, &rows) != FX_OK) {
            if (diagnostics)
                fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(st));
            return FLUX_ERR_STORE;
        }
        bool bound = !lineage || fx_api_lineage_bound(st, fp->prog, *in, lineage);
        if (!bound) {
            fprintf(out, "%s: every version but v1 is refused: the lineage's v1 is not the "
                         "graph of these constraints, so its proofs are of another function\n",
                    (*in)->name);
            any = true;
            all = false;
        }
        fx_vec_foreach(char *, r, &rows.json)
        {
            char *h = fx_api_json_text(*r, "hash");
            if (lineage && bound && !strcmp(h, hash)) {
                any = true;
                all &= fx_api_verify_version(fp, st, *in, lineage, *r, out);
            }
            free(h);
            free(*r);
        }
        fx_vec_free(&rows.json);
    }
    size_t kept = 0, forged = 0, objects = 0, planted = 0;
    if (fx_api_keep_audit(st, out, &kept, &forged) != FX_OK ||
        fx_api_native_audit(fs, out, &objects, &planted) != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(st));
        return FLUX_ERR_STORE;
    }
    if (kept)
        fprintf(out, "kept results: %zu of %zu hold (their MACs, made with this user's key)\n",
                kept - forged, kept);
    if (objects)
        fprintf(out, "native objects: %zu of %zu hold (their MACs, made with this user's key)\n",
                objects - planted, objects);
    if (!any && !kept && !objects)
        fprintf(out, "no versions recorded for these intents yet\n");
    return all && !forged && !planted ? FLUX_OK : FLUX_ERR_REJECTED;
}
