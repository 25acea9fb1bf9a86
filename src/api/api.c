/*
 * api.c: the public API of include/flux.h on top of the internal layers.
 *
 * This is the only file under src/ that includes flux.h: it is the boundary
 * where internal statuses become the public exit-code-like ones.
 */
#include "flux.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/interp.h"
#include "graph/lower.h"
#include "hw/hw.h"
#include "lang/check.h"
#include "lang/parse.h"
#include "lang/program.h"
#include "lang/types.h"

struct FluxProgram {
    FxDiag diag;
    FxProgram *prog;
    FxRuntime *rt; /* made on the first run; keeps compiled intents */
};

int flux_program_load(const char *path, const FluxLoadOptions *options, FILE *diagnostics,
                      FluxProgram **out)
{
    FluxProgram *fp = fx_xcalloc(1, sizeof(*fp));
    FxCheckOptions opts = {0};
    if (options) {
        opts.smt_timeout_ms = options->smt_timeout_ms;
        opts.skip_smt = options->types_only != 0;
    }
    fp->prog = fx_program_load(&fp->diag, path, &opts);
    if (diagnostics)
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
    fx_runtime_free(fp->rt);
    fx_program_free(fp->prog);
    fx_diag_free(&fp->diag);
    free(fp);
}

const char *flux_version(void)
{
    return "0.1.0";
}

/* ---- running ---- */

static FxRuntime *runtime(FluxProgram *fp)
{
    if (!fp->rt)
        fp->rt = fx_runtime_new(fp->prog);
    return fp->rt;
}

static FxBudgets budgets_from(const FluxRunOptions *o)
{
    FxBudgets b = fx_budgets_default();
    if (o && o->max_steps)
        b.max_steps = o->max_steps;
    if (o && o->max_depth)
        b.max_depth = o->max_depth;
    if (o && o->max_memory_mb)
        b.max_memory_mb = o->max_memory_mb;
    if (o && o->max_seconds > 0)
        b.max_seconds = o->max_seconds;
    return b;
}

static void json_string(const char *s, FxBuf *out)
{
    FxValue v = fx_val_string(s, strlen(s));
    fx_val_print_json(v, out);
    fx_value_release(v);
}

/* The outermost call of EXPR under any indexing: what the run is "of". */
static const FxExpr *outer_call(const FxExpr *e)
{
    while (e->kind == FX_EXPR_INDEX)
        e = e->u.index.base;
    return e->kind == FX_EXPR_CALL && e->ref == FX_REF_INTENT ? e : NULL;
}

/* {"n": 100}: the outermost call's arguments, evaluated on their own. */
static void json_input(FluxProgram *fp, const FxExpr *call, FxBuf *out)
{
    fx_buf_putc(out, '{');
    for (size_t i = 0; call && i < call->u.call.n_args; i++) {
        FxGraph *g = fx_lower_expr(fp->prog, call->u.call.args[i], "<argument>");
        FxValue v;
        if (i)
            fx_buf_puts(out, ", ");
        json_string(call->ref_intent->params[i].name, out);
        fx_buf_puts(out, ": ");
        if (fx_runtime_eval(runtime(fp), g, &v) == FX_OK) {
            fx_val_print_json(v, out);
            fx_value_release(v);
        } else {
            fx_buf_puts(out, "null");
        }
        fx_graph_free(g);
    }
    fx_buf_putc(out, '}');
}

static void json_record(FluxProgram *fp, const FxExpr *e, const FxGraph *g, FxValue v,
                        double ms, FxBuf *out)
{
    const FxExpr *call = outer_call(e);
    FxHardware hw = fx_hw_detect();
    FxBuf hwtext = {0};
    fx_hw_describe(&hw, &hwtext);
    bool checked = false;
    const FxGraph *ig = call ? fx_runtime_graph(runtime(fp), call->ref_intent->name) : g;
    for (uint32_t i = 0; i < ig->n_nodes; i++)
        checked |= ig->nodes[i].op == FX_NODE_CHECK;
    fx_buf_puts(out, "{\"execution_id\": null, \"intent\": ");
    if (call)
        json_string(call->ref_intent->name, out);
    else
        fx_buf_puts(out, "null");
    fx_buf_puts(out, ", \"graph_version\": \"v1\", \"input\": ");
    json_input(fp, call, out);
    fx_buf_puts(out, ", \"output\": ");
    fx_val_print_json(v, out);
    fx_buf_puts(out, ", \"decision_tree\": [], \"hardware\": ");
    json_string(fx_buf_str(&hwtext), out);
    fx_buf_printf(out, ", \"duration_ms\": %.3f, \"optimizations_applied\": [], "
                       "\"proof_ids\": [], \"verified\": ", ms);
    json_string(checked ? "by construction: version v1 is the naive reading of the "
                          "constraints, postconditions checked on the result"
                        : "by construction: version v1 is the naive reading of the constraints",
                out);
    fx_buf_puts(out, "}");
    fx_buf_free(&hwtext);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int flux_run(FluxProgram *fp, const char *expr, const FluxRunOptions *options, FILE *diagnostics,
             FluxResult *out)
{
    memset(out, 0, sizeof(*out));
    FxDiag d = {0};
    FxArena arena = {0};
    FxSource *src = fx_diag_add_source(&d, "<expr>", expr, strlen(expr));
    FxExpr *e = fx_parse_expression(&d, src, &arena);
    FxDiag *saved = fp->prog->diag;
    fp->prog->diag = &d;
    bool ok = e && fx_check_expression(fp->prog, e);
    fp->prog->diag = saved;
    int status = FLUX_OK;
    if (!ok) {
        if (diagnostics)
            fx_diag_render(&d, diagnostics);
        status = FLUX_ERR_USAGE;
        goto out;
    }
    FxRuntime *rt = runtime(fp);
    fx_runtime_set_budgets(rt, budgets_from(options));
    FxGraph *g = fx_lower_expr(fp->prog, e, "<expr>");
    FxValue v;
    double start = now_ms();
    FxStatus st = fx_runtime_eval(rt, g, &v);
    out->duration_ms = now_ms() - start;
    if (st != FX_OK) {
        if (diagnostics)
            fprintf(diagnostics, "%s\n", fx_runtime_error(rt));
        status = FLUX_ERR_RUNTIME;
    } else {
        FxBuf text = {0}, json = {0};
        fx_val_print(v, &text);
        out->text = fx_buf_take(&text);
        if (options && options->want_json) {
            json_record(fp, e, g, v, out->duration_ms, &json);
            out->json = fx_buf_take(&json);
        }
        fx_value_release(v);
    }
    fx_graph_free(g);
out:
    fx_arena_free(&arena);
    fx_diag_free(&d);
    return status;
}

void flux_result_free(FluxResult *r)
{
    free(r->text);
    free(r->json);
    r->text = r->json = NULL;
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
    if (version && strcmp(version, "v1") != 0) {
        if (diagnostics)
            fprintf(diagnostics, "flux: `%s` has no version %s; this build keeps only v1, the "
                                 "graph read from the constraints\n", intent, version);
        return FLUX_ERR_USAGE;
    }
    const FxGraph *g = fx_runtime_graph(runtime(fp), in->name);
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
            return FLUX_ERR_RUNTIME;
        }
    } else {
        if (diagnostics)
            fprintf(diagnostics, "flux: unknown graph format `%s`; use text, dot, svg or json\n",
                    format);
        return FLUX_ERR_USAGE;
    }
    fputs(fx_buf_str(&b), out);
    fx_buf_free(&b);
    return FLUX_OK;
}
