/*
 * api.c: the public API of include/flux.h on top of the internal layers.
 *
 * src/api/ is the only place under src/ that includes flux.h: it is the
 * boundary where internal statuses become the public exit-code-like ones.
 */
#include "flux.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_int.h"
#include "proof/prove.h"
#include "graph/lower.h"
#include "hw/hw.h"
#include "exec/meter.h"
#include "hw/pool.h"
#include "lang/check.h"
#include "lang/parse.h"
#include "lang/types.h"

/* path (a file) or name and text (a source in memory); store: where the
 * checker's verdicts are recalled from, or NULL. */
static int load(const char *path, const char *name, const char *text,
                const FluxLoadOptions *options, FluxStore *store, FILE *diagnostics,
                FluxProgram **out)
{
    FluxProgram *fp = fx_api_program_new();
    FxCheckOptions opts = {0};
    fx_api_verdicts_options(store, &opts);
    if (options) {
        opts.smt_timeout_ms = options->smt_timeout_ms;
        opts.skip_smt = options->types_only != 0;
        fp->load_options = *options;
    }
    if (text) {
        fp->path = fx_xstrdup(name);
        fp->source = fx_xstrdup(text);
        fp->prog = fx_program_load_text(&fp->diag, name, text, strlen(text), &opts);
    } else {
        fp->path = fx_xstrdup(path);
        fp->prog = fx_program_load(&fp->diag, path, &opts);
    }
    if (options && options->sources_inside && fp->prog->root && !fx_diag_errors(&fp->diag))
        fx_api_confine_sources(fp);
    bool quiet = options && options->quiet_warnings && fx_diag_errors(&fp->diag) == 0;
    if (diagnostics && !quiet)
        fx_diag_render(&fp->diag, diagnostics);
    int status = FLUX_OK;
    if (!fp->prog->root)
        status = FLUX_ERR_USAGE;
    else if (fx_diag_errors(&fp->diag) > 0)
        status = FLUX_ERR_REJECTED;
    if (status != FLUX_OK) {
        flux_program_free(fp);
        fp = NULL;
    }
    *out = fp;
    return status;
}

int flux_program_load(const char *path, const FluxLoadOptions *options, FILE *diagnostics,
                      FluxProgram **out)
{
    return load(path, NULL, NULL, options, NULL, diagnostics, out);
}

int flux_program_load_remembered(const char *path, const FluxLoadOptions *options,
                                 FluxStore *store, FILE *diagnostics, FluxProgram **out)
{
    return load(path, NULL, NULL, options, store, diagnostics, out);
}

int flux_program_load_source(const char *name, const char *text, const FluxLoadOptions *options,
                             FILE *diagnostics, FluxProgram **out)
{
    return load(NULL, name ? name : "<source>", text, options, NULL, diagnostics, out);
}

size_t flux_program_intent_count(const FluxProgram *fp)
{
    return fp->prog->root->intents.len;
}

const char *flux_program_intent_name(const FluxProgram *fp, size_t i)
{
    return i < fp->prog->root->intents.len ? fp->prog->root->intents.data[i]->name : NULL;
}

size_t flux_program_warnings(const FluxProgram *fp)
{
    return fx_diag_warnings(&fp->diag);
}

static void describe_signature(const FxIntent *in, FILE *out)
{
    fprintf(out, "intent %s(", in->name);
    for (size_t i = 0; i < in->n_params; i++) {
        char *t = fx_type_name(in->params[i].type);
        fprintf(out, "%s%s: %s", i ? ", " : "", in->params[i].name, t);
        free(t);
    }
    char *r = fx_type_name(in->ret);
    fprintf(out, ") -> %s\n", r);
    free(r);
}

static void describe_equations(const FxIntent *in, FILE *out)
{
    size_t tiers[4] = {0}, total = 0;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        if ((*kp)->kind == FX_CON_EQUATION) {
            tiers[(*kp)->u.eq.tier]++;
            total++;
        }
    }
    if (!total)
        return;
    fprintf(out, "    built from %zu defining equation%s", total, total == 1 ? "" : "s");
    if (in->alias)
        fprintf(out, " of `%s`", in->alias);
    fprintf(out, ": %zu for literal arguments, %zu guarded, %zu otherwise%s\n",
            tiers[FX_TIER_LITERAL], tiers[FX_TIER_GUARDED], tiers[FX_TIER_OTHERWISE],
            in->recursive ? "; recursive" : "");
}

static void describe_constraint(const FxConstraint *k, FILE *out)
{
    switch (k->kind) {
    case FX_CON_ELEMENTWISE:
        fprintf(out, "    built element by element over result[");
        for (size_t i = 0; i < k->u.elem.n_indices; i++)
            fprintf(out, "%s%s", i ? ", " : "", k->u.elem.indices[i]);
        fprintf(out, "]\n");
        break;
    case FX_CON_COMPREHENSION:
        if (k->u.comp.collection)
            fprintf(out, "    built by selecting the elements `%s` of `%s` that meet a condition\n",
                    k->u.comp.var, k->u.comp.first);
        else
            fprintf(out, "    built from every `%s` in a bounded range%s%s%s that meets a condition\n",
                    k->u.comp.var, k->u.comp.kind_pred ? " that is `" : "",
                    k->u.comp.kind_pred ? k->u.comp.kind_pred->name : "",
                    k->u.comp.kind_pred ? "`" : "");
        break;
    case FX_CON_PERMUTATION:
        fprintf(out, "    built as a permutation of its input\n");
        break;
    case FX_CON_ORDER:
        fprintf(out, "    kept sorted %s%s\n", k->u.order.descending ? "descending" : "ascending",
                k->u.order.key ? " by a key" : "");
        break;
    case FX_CON_POST:
        fprintf(out, "    checked after it is built: a postcondition\n");
        break;
    case FX_CON_CHOICE:
        fprintf(out, "    built by one of %zu implementations, chosen by measurement\n",
                k->u.choice.n);
        break;
    case FX_CON_ACCURACY:
        fprintf(out, "    measured: accuracy %s %s on `%s`\n", fx_op_name(k->u.measure.op),
                k->u.measure.bound_text, k->u.measure.on ? k->u.measure.on : "?");
        break;
    case FX_CON_LATENCY:
        fprintf(out, "    measured: latency %s %s a call%s%s\n", fx_op_name(k->u.measure.op),
                k->u.measure.bound_text, k->u.measure.on ? " on " : "",
                k->u.measure.on ? k->u.measure.on : "");
        break;
    case FX_CON_EQUATION:
        break;
    }
}

static const char *verdict_name(FxVerdict v)
{
    switch (v) {
    case FX_VERDICT_HOLDS: return "holds";
    case FX_VERDICT_ASSUMED: return "assumed";
    case FX_VERDICT_FALSE: return "false";
    default: return "unchecked";
    }
}

void flux_program_describe(const FluxProgram *fp, FILE *out)
{
    fx_vec_foreach(FxIntent *, inp, &fp->prog->root->intents)
    {
        const FxIntent *in = *inp;
        describe_signature(in, out);
        describe_equations(in, out);
        fx_vec_foreach(FxConstraint *, kp, &in->constraints) describe_constraint(*kp, out);
        fx_vec_foreach(FxProperty *, pp, &in->properties)
        {
            const FxProperty *pr = *pp;
            fprintf(out, "    property %s: %s", pr->name, verdict_name(pr->verdict));
            if (pr->reason)
                fprintf(out, ", %s", pr->reason);
            fputc('\n', out);
        }
        fx_vec_foreach(FxHint *, hp, &in->hints)
        {
            if ((*hp)->condition)
                fprintf(out, "    hint %s, when %s\n", (*hp)->name, (*hp)->condition);
            else
                fprintf(out, "    hint %s\n", (*hp)->name);
        }
    }
}

void flux_program_free(FluxProgram *fp)
{
    if (!fp)
        return;
    fx_api_contexts_free(fp);
    fx_vec_foreach(FxMeasure *, m, &fp->measures) fx_measure_free(*m);
    fx_vec_free(&fp->measures);
    fx_vec_foreach(FxKnownVersion, k, &fp->versions)
    {
        free(k->intent);
        free(k->label);
    }
    fx_vec_free(&fp->versions);
    free(fp->path);
    free(fp->source);
    pthread_mutex_destroy(&fp->lock);
    free(fp->last_expr);
    fx_value_release(fp->last_value);
    fx_proof_cache_free(fp->proof_cache);
    free(fp->dev_costs);
    fx_program_free(fp->prog);
    fx_diag_free(&fp->diag);
    free(fp);
}

void flux_hw_report(int json, FILE *out)
{
    FxHardware hw = fx_hw_detect();
    FxBuf b = {0};
    fx_hw_report(&hw, fx_pool_default_size(), json != 0, &b);
    fputs(fx_buf_str(&b), out);
    fx_buf_free(&b);
}

void flux_interrupt(void)
{
    fx_meter_interrupt();
}

const char *flux_version(void)
{
    return "0.1.0";
}

static FxRuntime *runtime(FluxProgram *fp)
{
    return fx_api_runtime(fp);
}

/* Version `label` of the intent's lineage as the store keeps it, or NULL:
 * *why is empty when the store has no such version, and says why when the
 * stored graph is refused (damaged, or a kernel that no longer matches). */
static FxGraph *stored_version(FluxProgram *fp, const FxIntent *in, const char *label,
                               char *why, size_t why_len)
{
    char hash[17], *json = NULL;
    int64_t lineage = 0;
    FxGraph *g = NULL;
    why[0] = '\0';
    fx_api_lineage_hash(in, hash);
    if (fp->store && fx_store_find_lineage(fp->store->store, in->name, hash, &lineage) == FX_OK &&
        lineage && fx_store_graph(fp->store->store, lineage, label, &json) == FX_OK && json)
        g = fx_graph_read_json(json, why, why_len);
    free(json);
    return g;
}

int flux_graph(FluxProgram *fp, const char *intent, const char *version, const char *format,
               FILE *out, FILE *diagnostics)
{
    const FxIntent *in = fx_program_find_intent(fp->prog, intent);
    if (!in) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent);
        return FLUX_ERR_USAGE;
    }
    const FxGraph *g = fx_runtime_graph(runtime(fp), in->name);
    FxGraph *stored = NULL;
    if (version && strcmp(version, g->version) != 0) {
        char why[256];
        if (!(stored = stored_version(fp, in, version, why, sizeof(why))) && why[0]) {
            if (diagnostics)
                fprintf(diagnostics, "flux: version %s of `%s` is refused: %s\n", version,
                        intent, why);
            return FLUX_ERR_USAGE;
        }
        if (!stored) {
            if (diagnostics)
                fprintf(diagnostics, "flux: `%s` has no version %s; `flux history FILE %s` lists "
                                     "the versions it has\n", intent, version, intent);
            return FLUX_ERR_USAGE;
        }
        g = stored;
    }
    FxBuf b = {0};
    if (!format || strcmp(format, "text") == 0) {
        fx_graph_print_text(g, &b);
    } else if (strcmp(format, "dot") == 0) {
        fx_graph_print_dot(g, &b);
    } else if (strcmp(format, "json") == 0) {
        fx_graph_print_json(g, &b);
    } else if (strcmp(format, "svg") == 0) {
        char why[256];
        if (!fx_graph_print_svg(g, &b, why, sizeof(why))) {
            if (diagnostics)
                fprintf(diagnostics, "flux: %s\n", why);
            fx_buf_free(&b);
            fx_graph_free(stored);
            return FLUX_ERR_RUNTIME;
        }
    } else {
        if (diagnostics)
            fprintf(diagnostics, "flux: unknown graph format `%s`; use text, dot, svg or json\n",
                    format);
        fx_graph_free(stored);
        return FLUX_ERR_USAGE;
    }
    fputs(fx_buf_str(&b), out);
    fx_buf_free(&b);
    fx_graph_free(stored);
    return FLUX_OK;
}
