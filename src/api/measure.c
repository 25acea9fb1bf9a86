/*
 * measure.c: the measured constraints, `accuracy > 95% on EXAMPLES` and
 * `latency < 100ms [on DEVICE]`, and the choice among the implementations
 * of `result is one of` that they drive (docs/language.md §4).
 *
 * An accuracy cannot be built from; it is measured. Before a run, every
 * measured intent that EXPR may call is measured once in the program's
 * life: each implementation runs on every labelled example (a row of the
 * data source: the inputs by name, and `label`, the result expected), and
 * the share of examples it gets right, and its time a call on this
 * device, are kept. The runtime is then told which implementation runs:
 * the fastest of those that meet the accuracy (and the latency, when one
 * meets it); when none meets the accuracy, none runs, and a call stops
 * with the figures. `explain` prints the report.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/lower.h"
#include "lang/types.h"

typedef struct Candidate {
    char *text;     /* the implementation as written */
    size_t right, total;
    double ms;      /* a call, on average over the examples */
    char *error;    /* the run-time error that stopped it on an example, or NULL */
} Candidate;

/* A latency bound, from a `latency` constraint or performance hint. */
typedef struct Latency {
    bool has;
    FxOp op;
    double seconds;
    char text[64]; /* "latency < 100ms" */
} Latency;

struct FxMeasure {
    const FxIntent *in;
    const FxConstraint *accuracy;
    Latency latency;
    FX_VEC(Candidate) cands;
    uint32_t chosen; /* FX_CHOICE_NONE: none meets the accuracy */
    char *why;       /* the decision in a sentence */
};

static const FxConstraint *form(const FxIntent *in, FxConstraintKind kind)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == kind) return *kp;
    return NULL;
}

/* ---- which measured intents EXPR may call ---- */

typedef struct Reach {
    const FxProgram *prog;
    FX_VEC(const FxIntent *) seen;
} Reach;

static void reach_expr(FxExpr *e, void *ctx);

static void reach_intent(Reach *r, const FxIntent *in)
{
    fx_vec_foreach(const FxIntent *, s, &r->seen) if (*s == in) return;
    fx_vec_push(&r->seen, in);
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        switch (k->kind) {
        case FX_CON_EQUATION:
            reach_expr(k->u.eq.rhs, r);
            if (k->u.eq.guard)
                reach_expr(k->u.eq.guard, r);
            break;
        case FX_CON_ELEMENTWISE: reach_expr(k->u.elem.rhs, r); break;
        case FX_CON_COMPREHENSION:
            reach_expr(k->u.comp.cond, r);
            if (k->u.comp.kind_pred)
                reach_intent(r, k->u.comp.kind_pred);
            break;
        case FX_CON_ORDER:
            if (k->u.order.key)
                reach_expr(k->u.order.key, r);
            if (k->u.order.key_fn)
                reach_intent(r, k->u.order.key_fn);
            break;
        case FX_CON_PERMUTATION: reach_expr(k->u.perm.of, r); break;
        case FX_CON_POST: reach_expr(k->u.post.expr, r); break;
        case FX_CON_CHOICE:
            for (size_t i = 0; i < k->u.choice.n; i++)
                reach_expr(k->u.choice.candidates[i], r);
            break;
        case FX_CON_ACCURACY:
        case FX_CON_LATENCY: break;
        }
    }
}

static void reach_expr(FxExpr *e, void *ctx)
{
    Reach *r = ctx;
    if (e->kind == FX_EXPR_CALL && e->ref == FX_REF_INTENT && e->ref_intent)
        reach_intent(r, e->ref_intent);
    fx_expr_each_child(e, reach_expr, r);
}

/* ---- measuring one intent ---- */

/* The arguments of the intent for one labelled example: its one record
 * parameter built from the row's fields, or a field per parameter. */
static FxValue *example_args(const FxIntent *in, FxValue row)
{
    FxValue *args = fx_xcalloc(in->n_params + 1, sizeof(FxValue));
    if (in->n_params == 1 && in->params[0].type->kind == FX_TY_RECORD) {
        const FxTypeDecl *td = in->params[0].type->record;
        size_t n = td->def->n_fields;
        FxValue *fields = fx_xmalloc((n + 1) * sizeof(FxValue));
        for (size_t i = 0; i < n; i++)
            fields[i] = fx_val_record_field(row, td->def->field_names[i]);
        args[0] = fx_val_record(n, td->def->field_names, fields);
        free(fields);
    } else {
        for (size_t i = 0; i < in->n_params; i++) {
            args[i] = fx_val_record_field(row, in->params[i].name);
            fx_value_retain(args[i]);
        }
    }
    return args;
}

static void free_args(FxValue *args, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fx_value_release(args[i]);
    free(args);
}

/* Runs implementation g (the intent's parameters) on every example. */
static void measure_candidate(FxRuntime *rt, const FxIntent *in, const FxGraph *g, FxValue rows,
                              Candidate *c)
{
    size_t n = fx_val_list_len(rows);
    double start = fx_api_now_ms();
    for (size_t i = 0; i < n && !c->error; i++) {
        FxValue row = fx_val_list_at(rows, i);
        FxValue *args = example_args(in, row), got;
        if (fx_runtime_eval_with(rt, g, args, in->n_params, &got) == FX_OK) {
            c->right += fx_val_equal(got, fx_val_record_field(row, "label"));
            fx_value_release(got);
        } else {
            c->error = fx_xasprintf("example %zu: %s", i + 1, fx_runtime_error(rt));
        }
        c->total++;
        free_args(args, in->n_params);
    }
    c->ms = c->total ? (fx_api_now_ms() - start) / (double)c->total : 0;
}

static double share(const Candidate *c)
{
    return c->total ? (double)c->right / (double)c->total : 0;
}

static bool meets(FxOp op, double bound, double v)
{
    switch (op) {
    case FX_OP_GT: return v > bound;
    case FX_OP_GE: return v >= bound;
    case FX_OP_LT: return v < bound;
    default: return v <= bound;
    }
}

static bool accurate(const FxMeasure *m, const Candidate *c)
{
    return !c->error && c->total &&
           meets(m->accuracy->u.measure.op, m->accuracy->u.measure.bound, share(c));
}

static bool fast_enough(const FxMeasure *m, const Candidate *c)
{
    return !m->latency.has || meets(m->latency.op, m->latency.seconds, c->ms / 1000);
}

/* The latency bound: a `latency` constraint, else a `latency` performance
 * hint (both drive the choice the same way). */
static Latency latency_of(const FxIntent *in)
{
    Latency l = {0};
    const FxConstraint *k = form(in, FX_CON_LATENCY);
    if (k && (k->u.measure.op == FX_OP_LT || k->u.measure.op == FX_OP_LE)) {
        l.has = true;
        l.op = k->u.measure.op;
        l.seconds = k->u.measure.bound;
        snprintf(l.text, sizeof(l.text), "latency %s %s", fx_op_name(l.op),
                 k->u.measure.bound_text);
        return l;
    }
    static const char *const units[] = {"ns", "us", "ms", "s"};
    static const double scale[] = {1e-9, 1e-6, 1e-3, 1};
    fx_vec_foreach(FxHint *, hp, &in->hints)
    {
        const FxHint *h = *hp;
        if (h->condition || strcmp(h->name, "latency") || !h->has_bound || !h->bound_unit ||
            (h->bound_op != FX_OP_LT && h->bound_op != FX_OP_LE))
            continue;
        for (size_t i = 0; i < FX_ARRAY_LEN(units); i++) {
            if (strcmp(h->bound_unit, units[i]))
                continue;
            l.has = true;
            l.op = h->bound_op;
            l.seconds = strtod(h->bound_value, NULL) * scale[i];
            snprintf(l.text, sizeof(l.text), "latency %s %s%s", fx_op_name(l.op), h->bound_value,
                     h->bound_unit);
        }
    }
    return l;
}

/* The data source's rows, read through the runtime. */
static bool read_examples(FxRuntime *rt, const FxProgram *prog, const FxDataDecl *dd,
                          FxValue *out)
{
    FxExpr name = {.kind = FX_EXPR_NAME, .type = dd->type, .ref = FX_REF_DATA, .ref_data = dd,
                   .span = dd->name_span};
    name.u.text = dd->name;
    FxGraph *g = fx_lower_expr(prog, &name, "<examples>");
    bool ok = fx_runtime_eval(rt, g, out) == FX_OK;
    fx_graph_free(g);
    return ok;
}

static void decide(FxMeasure *m)
{
    m->chosen = FX_CHOICE_NONE;
    bool any_fast = false; /* some accurate one meets a latency bound */
    fx_vec_foreach(Candidate, c, &m->cands) any_fast |= m->latency.has && accurate(m, c) &&
                                                         fast_enough(m, c);
    /* within a latency that some meet, the most accurate (then the
     * fastest); else the fastest that meets the accuracy */
    for (uint32_t i = 0; i < m->cands.len; i++) {
        const Candidate *c = &m->cands.data[i];
        if (!accurate(m, c) || (any_fast && !fast_enough(m, c)))
            continue;
        const Candidate *best = m->chosen == FX_CHOICE_NONE ? NULL : &m->cands.data[m->chosen];
        bool better = !best || (any_fast && share(c) > share(best)) ||
                      ((!any_fast || share(c) == share(best)) && c->ms < best->ms);
        if (better)
            m->chosen = i;
    }
    const FxConstraint *a = m->accuracy;
    if (m->chosen == FX_CHOICE_NONE) {
        FxBuf b = {0};
        fx_buf_printf(&b, "no implementation of `%s` meets `accuracy %s %s` on `%s`:",
                      m->in->name, fx_op_name(a->u.measure.op), a->u.measure.bound_text,
                      a->u.measure.on);
        fx_vec_foreach(Candidate, c, &m->cands)
        {
            if (c->error)
                fx_buf_printf(&b, " `%s` fails on %s;", c->text, c->error);
            else
                fx_buf_printf(&b, " `%s` gets %.1f%% (%zu of %zu);", c->text, 100 * share(c),
                              c->right, c->total);
        }
        b.data[b.len - 1] = '\0';
        m->why = fx_buf_take(&b);
        return;
    }
    const Candidate *c = &m->cands.data[m->chosen];
    const char *why = m->cands.len == 1 ? (any_fast || !m->latency.has
                                                ? "it meets its constraints"
                                                : "it meets the accuracy, not the latency")
                      : any_fast ? "the most accurate implementation within the latency"
                      : m->latency.has ? "the fastest implementation that meets the accuracy "
                                         "(none meets the latency)"
                                       : "the fastest implementation that meets the accuracy";
    m->why = fx_xasprintf("`%s` runs on target_device (the CPU): %s", c->text, why);
}

static FxMeasure *measure_intent(FluxProgram *fp, FxRuntime *rt, const FxIntent *in)
{
    FxMeasure *m = fx_xcalloc(1, sizeof(*m));
    m->in = in;
    m->accuracy = form(in, FX_CON_ACCURACY);
    m->latency = latency_of(in);
    const FxConstraint *choice = form(in, FX_CON_CHOICE);
    FxValue rows = {0};
    bool have_rows = read_examples(rt, fp->prog, m->accuracy->u.measure.data, &rows);
    size_t n = choice ? choice->u.choice.n : 1;
    for (size_t i = 0; i < n; i++) {
        Candidate c = {0};
        FxSpan sp = choice ? choice->u.choice.candidates[i]->span : in->name_span;
        c.text = choice ? fx_xasprintf("%.*s", (int)sp.len, sp.src->text + sp.offset)
                        : fx_xstrdup(in->name);
        if (!have_rows) {
            c.error = fx_xasprintf("the examples: %s", fx_runtime_error(rt));
        } else if (choice) {
            FxGraph *g = fx_lower_check(fp->prog, in, choice->u.choice.candidates[i], NULL, NULL);
            measure_candidate(rt, in, g, rows, &c);
            fx_graph_free(g);
        } else { /* the intent's own construction: its choice of one */
            fx_runtime_set_choice(rt, in->name, 0, NULL);
            const FxGraph *g = fx_runtime_graph(rt, in->name);
            measure_candidate(rt, in, g, rows, &c);
        }
        fx_vec_push(&m->cands, c);
    }
    if (have_rows)
        fx_value_release(rows);
    decide(m);
    fx_runtime_set_choice(rt, in->name, m->chosen, m->why);
    return m;
}

void fx_api_measure(FluxProgram *fp, FxRuntime *rt, const FxExpr *expr)
{
    Reach r = {fp->prog, {0}};
    reach_expr((FxExpr *)expr, &r);
    fx_vec_foreach(const FxIntent *, inp, &r.seen)
    {
        const FxIntent *in = *inp;
        if (!form(in, FX_CON_ACCURACY))
            continue;
        const FxMeasure *m = fx_api_measured(fp, in->name);
        if (m) /* measured before: the runtime may be a new one */
            fx_runtime_set_choice(rt, in->name, m->chosen, m->why);
        else
            fx_vec_push(&fp->measures, measure_intent(fp, rt, in));
    }
    fx_vec_free(&r.seen);
}

const FxMeasure *fx_api_measured(const FluxProgram *fp, const char *intent)
{
    fx_vec_foreach(FxMeasure *, m, &fp->measures) if (!strcmp((*m)->in->name, intent)) return *m;
    return NULL;
}

char *fx_measure_report(const FxMeasure *m)
{
    FxBuf b = {0};
    const FxConstraint *a = m->accuracy;
    fx_buf_printf(&b, "%s\n", m->why);
    fx_vec_foreach(Candidate, c, &m->cands)
    {
        if (c->error) {
            fx_buf_printf(&b, "`%s`: stopped on %s\n", c->text, c->error);
            continue;
        }
        fx_buf_printf(&b, "`%s`: accuracy %.1f%% (%zu of %zu examples of `%s`): %s `accuracy %s %s`", c->text,
                      100 * share(c), c->right, c->total, a->u.measure.on,
                      accurate(m, c) ? "meets" : "fails", fx_op_name(a->u.measure.op),
                      a->u.measure.bound_text);
        fx_buf_printf(&b, "; %.4g ms a call", c->ms);
        if (m->latency.has)
            fx_buf_printf(&b, ": %s `%s`", fast_enough(m, c) ? "meets" : "fails",
                          m->latency.text);
        fx_buf_puts(&b, "\n");
    }
    return fx_buf_take(&b);
}

void fx_measure_free(FxMeasure *m)
{
    fx_vec_foreach(Candidate, c, &m->cands)
    {
        free(c->text);
        free(c->error);
    }
    fx_vec_free(&m->cands);
    free(m->why);
    free(m);
}
