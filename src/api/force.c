/*
 * force.c: runs forced onto a stored version or a kernel variant
 * (FluxRunOptions.version and .variant), for benchmarks (bench/regret's
 * oracle times every version and variant of a call) and tests.
 *
 * A forced run takes a context of its own, made for it as a new process
 * would make its runtime, and dropped after it: nothing it measures (the
 * sort kernels' refitted costs, a memo table) reaches the program's
 * contexts, and run.c records nothing of it.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/lower.h"

/* The intents EXPR itself calls: a version is forced onto the one. */
typedef struct Called {
    const FxIntent *one;
    bool several;
} Called;

static void called(FxExpr *e, void *ctx)
{
    Called *c = ctx;
    if (e->kind == FX_EXPR_CALL && e->ref == FX_REF_INTENT && e->ref_intent) {
        c->several |= c->one && c->one != e->ref_intent;
        c->one = e->ref_intent;
    }
    fx_expr_each_child(e, called, c);
}

/* Is name a variant of some kernel with a choice? *all gets them all. */
static bool known_variant(const char *name, FxBuf *all)
{
    fx_variant_names(FX_CHOICE_ALL, all);
    char *word = fx_xasprintf(", %s, ", name), *list = fx_xasprintf(", %s, ", fx_buf_str(all));
    bool known = strstr(list, word) != NULL;
    free(word);
    free(list);
    return known;
}

/* The graph of version `label` of in's lineage (taken by the caller), and
 * its models (*models, or NULL); v1 is the naive graph, stored or not.
 * NULL with the reason written when the store holds no usable one. */
static FxGraph *stored_version(FluxProgram *fp, const FxIntent *in, const char *label,
                               int64_t *id, char **models, FILE *diagnostics)
{
    *models = NULL;
    *id = 0;
    if (!strcmp(label, "v1"))
        return fx_lower_intent(fp->prog, in);
    FxStore *st = fp->store ? fp->store->store : NULL;
    int64_t lineage = 0;
    char hash[17], why[256] = "";
    FxGraph *g = NULL;
    fx_api_lineage_hash(in, hash);
    if (st) {
        pthread_mutex_lock(&fp->store->lock);
        FxTrusted t = {0};
        if (fx_store_find_lineage(st, in->name, hash, &lineage) == FX_OK && lineage &&
            fx_store_trusted_version(st, lineage, label, &t, NULL, NULL) == FX_OK) {
            if (t.why) /* its proof does not verify: forcing it does not make it safe */
                snprintf(why, sizeof(why), "%s", t.why);
            else if (!fx_api_lineage_bound(st, fp->prog, in, lineage))
                snprintf(why, sizeof(why), "the lineage's v1 is not the graph of these "
                         "constraints, so its proofs are of another function");
            else if ((g = fx_graph_read_json(t.graph_json, why, sizeof(why)))) {
                *id = t.id;
                if (g->variants & (g->variants - 1))
                    *models = fx_api_models_load(fp->store, *id, g);
            }
        }
        fx_trusted_free(&t);
        pthread_mutex_unlock(&fp->store->lock);
    }
    if (!g && diagnostics)
        fprintf(diagnostics, "flux: the store has no usable version %s of `%s`%s%s\n", label,
                in->name, why[0] ? ": " : "", why);
    return g;
}

int fx_api_forced_begin(FluxProgram *fp, FxExpr *e, const FluxRunOptions *o,
                        FILE *diagnostics, FxCallCtx **out)
{
    *out = NULL;
    if (!o || (!o->version && !o->variant))
        return FLUX_OK;
    FxBuf all = {0};
    bool known = !o->variant || known_variant(o->variant, &all);
    if (!known && diagnostics)
        fprintf(diagnostics, "flux: no kernel has a variant `%s`; the variants are %s\n",
                o->variant, fx_buf_str(&all));
    fx_buf_free(&all);
    if (!known)
        return FLUX_ERR_USAGE;
    FxGraph *g = NULL;
    char *models = NULL;
    int64_t id = 0;
    if (o->version) {
        Called c = {NULL, false};
        called(e, &c);
        if (!c.one || c.several) {
            if (diagnostics)
                fprintf(diagnostics, "flux: a version is forced onto the intent EXPR calls; this "
                                     "EXPR calls %s\n", c.one ? "several" : "none");
            return FLUX_ERR_USAGE;
        }
        if (!(g = stored_version(fp, c.one, o->version, &id, &models, diagnostics)))
            return FLUX_ERR_USAGE;
    }
    *out = fx_api_context_forced(fp, g, id, models);
    free(models);
    fx_runtime_force_variant((*out)->rt, o->variant);
    return FLUX_OK;
}

bool fx_api_forced_honoured(const FxRuntime *rt, const FluxRunOptions *o, FILE *diagnostics)
{
    if (!o || !o->variant || fx_runtime_forced_used(rt))
        return true;
    FxBuf reached = {0};
    fx_variant_names(fx_runtime_choice_kernels(rt), &reached);
    if (diagnostics)
        fprintf(diagnostics, "flux: no kernel this run reached has the variant `%s` (%s%s)\n",
                o->variant, reached.len ? "the variants of those it reached: "
                                        : "it reached no kernel with a choice of variants",
                fx_buf_str(&reached));
    fx_buf_free(&reached);
    return false;
}
