/*
 * validate.c: see validate.h. Each check is small and independent; an
 * evaluated one runs through run_call/run_graph, which hold it to the steps
 * left.
 */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

#include "graph/lower.h"
#include "lang/types.h"

/* Estimated costs of the passes in C, in ns an element, measured on 10^7
 * int64 (docs/optimizer.md, "Run-time validation"), and what any check
 * costs to set up. */
#define NS_SORTED 8.0       /* compare adjacent elements */
#define NS_SORTED_FIELD 20  /* take each element's field, then compare */
#define NS_HASHED 9.0       /* hash an element into a multiset digest */
#define NS_DISTINCT 8.0     /* compare adjacent elements for equality */
#define NS_FIXED 200

/* What a check runs with. */
typedef struct Ctx {
    FxRuntime *rt;
    const FxProgram *prog;
    const FxIntent *in;
    const FxValue *args;
    uint64_t *left; /* steps left for evaluations; NULL: unbounded */
    bool stopped;   /* an evaluation could not finish */
} Ctx;

/* An evaluation gets the steps left, and uses them up. */
static bool begin(Ctx *c)
{
    if (!c->left)
        return true;
    if (*c->left == 0) { /* max_steps 0 would mean no bound */
        c->stopped = true;
        return false;
    }
    FxBudgets b = fx_budgets_default();
    b.max_steps = *c->left;
    fx_runtime_set_budgets(c->rt, b);
    return true;
}

static bool end(Ctx *c, FxStatus st)
{
    if (c->left) {
        uint64_t used = fx_runtime_stats(c->rt).steps;
        *c->left = used < *c->left ? *c->left - used : 0;
    }
    c->stopped |= st != FX_OK;
    return st == FX_OK;
}

static bool run_call(Ctx *c, const char *intent, const FxValue *args, size_t n, FxValue *out)
{
    return begin(c) && end(c, fx_runtime_call(c->rt, intent, args, n, out));
}

static bool run_graph(Ctx *c, const FxGraph *g, const FxValue *args, size_t n, FxValue *out)
{
    return begin(c) && end(c, fx_runtime_eval_with(c->rt, g, args, n, out));
}

/* Why an evaluation could not finish. */
static char *not_finished(Ctx *c)
{
    if (c->left && *c->left == 0)
        return fx_xstrdup("the steps allowed ran out");
    return fx_xstrdup(fx_runtime_error(c->rt));
}

/* A value for a message: at most 80 characters, and of a long list only
 * the first elements are printed, never the whole list. */
static char *show(FxValue v)
{
    FxBuf b = {0};
    size_t n = v.kind == FX_VAL_LIST ? fx_val_list_len(v) : 0;
    if (n > 16) {
        FxValue items[16];
        for (size_t i = 0; i < 16; i++)
            items[i] = fx_val_list_at(v, i);
        FxValue head = fx_val_list(items, 16);
        fx_val_print(head, &b);
        fx_value_release(head);
        b.len--; /* the closing ] */
        fx_buf_printf(&b, ", ... (%zu elements)]", n);
    } else {
        fx_val_print(v, &b);
    }
    if (b.len > 80) {
        b.data[77] = '\0';
        char *cut = fx_xasprintf("%s...", b.data);
        fx_buf_free(&b);
        return cut;
    }
    return fx_buf_take(&b);
}

static char *quote(FxSpan sp)
{
    return fx_xasprintf("%.*s", (int)sp.len, sp.src->text + sp.offset);
}

/* The keys an order compares by, one per element of out (new references),
 * or NULL with what stopped a key in *err: one of its fields, or a function
 * or expression of it evaluated. */
static FxValue *order_keys(Ctx *c, FxValue out, const FxConstraint *k, char **err)
{
    const FxIntent *in = c->in;
    size_t n = fx_val_list_len(out);
    FxValue *keys = fx_xcalloc(n + 1, sizeof(FxValue));
    FxGraph *g = k->u.order.key_form == FX_KEY_EXPR
                         ? fx_lower_check(c->prog, in, k->u.order.key, k->u.order.key_var,
                                          in->ret->elem)
                         : NULL;
    FxValue *all = fx_xmalloc((in->n_params + 1) * sizeof(FxValue));
    if (in->n_params)
        memcpy(all, c->args, in->n_params * sizeof(FxValue));
    size_t done = 0;
    for (; done < n; done++) {
        FxValue x = fx_val_list_at(out, done);
        bool ok = true;
        switch (k->u.order.key_form) {
        case FX_KEY_NONE: keys[done] = x; fx_value_retain(x); break;
        case FX_KEY_FIELD:
            keys[done] = fx_val_record_field(x, k->u.order.key->u.text);
            fx_value_retain(keys[done]);
            break;
        case FX_KEY_FUNCTION:
            ok = run_call(c, k->u.order.key_fn->name, &x, 1, &keys[done]);
            break;
        case FX_KEY_EXPR:
            all[in->n_params] = x;
            ok = run_graph(c, g, all, in->n_params + 1, &keys[done]);
            break;
        }
        if (!ok) {
            char *why = not_finished(c);
            *err = fx_xasprintf("the key of element %zu: %s", done, why);
            free(why);
            break;
        }
    }
    free(all);
    fx_graph_free(g);
    if (done == n)
        return keys;
    for (size_t i = 0; i < done; i++)
        fx_value_release(keys[i]);
    free(keys);
    return NULL;
}

static char *out_of_order(FxValue out, size_t i)
{
    char *a = show(fx_val_list_at(out, i - 1)), *b = show(fx_val_list_at(out, i));
    char *msg = fx_xasprintf("elements %zu and %zu are out of order: %s then %s", i - 1, i, a, b);
    free(a);
    free(b);
    return msg;
}

/* Is a then b out of the order (or not comparable)? */
static bool misordered(FxValue a, FxValue b, bool descending)
{
    bool ok = true;
    int c = a.kind == FX_VAL_INT && b.kind == FX_VAL_INT ? (a.u.i > b.u.i) - (a.u.i < b.u.i)
                                                         : fx_val_compare(a, b, &ok);
    return !ok || (descending ? c < 0 : c > 0);
}

static char *check_sorted(Ctx *c, FxValue out, const FxConstraint *k)
{
    size_t n = fx_val_list_len(out);
    bool desc = k->u.order.descending;
    if (k->u.order.key_form == FX_KEY_NONE) { /* the elements are the keys: no copy */
        for (size_t i = 1; i < n; i++)
            if (misordered(fx_val_list_at(out, i - 1), fx_val_list_at(out, i), desc))
                return out_of_order(out, i);
        return NULL;
    }
    char *msg = NULL;
    FxValue *keys = order_keys(c, out, k, &msg);
    for (size_t i = 1; keys && i < n && !msg; i++)
        if (misordered(keys[i - 1], keys[i], desc))
            msg = out_of_order(out, i);
    for (size_t i = 0; keys && i < n; i++)
        fx_value_release(keys[i]);
    free(keys);
    return msg;
}

char *fx_validate_sorted(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                         const FxValue *args, FxValue out, const FxConstraint *k)
{
    Ctx c = {rt, prog, in, args, NULL, false};
    return check_sorted(&c, out, k);
}

/* An order-independent digest of a list as a multiset: the sum and the xor
 * of a mix of every element's hash, and the count. */
static void multiset_hash(FxValue list, uint64_t out[3])
{
    out[0] = out[1] = 0;
    out[2] = fx_val_list_len(list);
    for (size_t i = 0; i < out[2]; i++) {
        uint64_t h = fx_val_hash(fx_val_list_at(list, i));
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        out[0] += h;
        out[1] ^= h * 0x9e3779b97f4a7c15ULL;
    }
}

static char *check_permutation(FxValue out, FxValue of)
{
    uint64_t a[3], b[3];
    multiset_hash(out, a);
    multiset_hash(of, b);
    if (a[2] != b[2])
        return fx_xasprintf("the output has %llu elements, the input %llu",
                            (unsigned long long)a[2], (unsigned long long)b[2]);
    if (a[0] != b[0] || a[1] != b[1])
        return fx_xstrdup("the output's elements are not the input's (multiset hashes differ)");
    return NULL;
}

/* Evaluates cond with the extra parameter bound to x: true, false, or -1
 * when it could not finish. */
static int holds(Ctx *c, const FxExpr *cond, const char *extra, const FxType *type, FxValue x)
{
    FxGraph *g = fx_lower_check(c->prog, c->in, cond, extra, type);
    size_t n = c->in->n_params;
    FxValue *all = fx_xmalloc((n + 1) * sizeof(FxValue));
    if (n) /* a call without arguments has none to copy (args may be NULL) */
        memcpy(all, c->args, n * sizeof(FxValue));
    all[n] = x;
    FxValue v;
    int r = run_graph(c, g, all, n + 1, &v) ? v.u.b : -1;
    free(all);
    fx_graph_free(g);
    return r;
}

static char *check_members(Ctx *c, FxValue out, const FxConstraint *k, size_t samples)
{
    size_t n = fx_val_list_len(out), step = samples && n > samples ? n / samples : 1;
    for (size_t i = 0; i < n; i += step) {
        FxValue x = fx_val_list_at(out, i);
        int ok = holds(c, k->u.comp.cond, k->u.comp.var, k->u.comp.var_type, x);
        FxValue kind = {0};
        if (ok == 1 && k->u.comp.kind_pred)
            ok = run_call(c, k->u.comp.kind_pred->name, &x, 1, &kind) ? kind.u.b : -1;
        if (ok == -1)
            return not_finished(c);
        if (ok != 1) {
            char *v = show(x), *cond = quote(k->u.comp.cond->span);
            char *msg = fx_xasprintf("element %zu, %s, does not pass `%s`%s%s", i, v, cond,
                                     k->u.comp.kind_pred ? " and " : "",
                                     k->u.comp.kind_pred ? k->u.comp.kind_pred->name : "");
            free(v);
            free(cond);
            return msg;
        }
    }
    return NULL;
}

static char *check_distinct(FxValue out)
{
    for (size_t i = 1; i < fx_val_list_len(out); i++)
        if (fx_val_equal(fx_val_list_at(out, i - 1), fx_val_list_at(out, i))) {
            char *v = show(fx_val_list_at(out, i));
            char *msg = fx_xasprintf("%s is in the output twice", v);
            free(v);
            return msg;
        }
    return NULL;
}

static char *check_naive(Ctx *c, FxValue out)
{
    FxValue v1;
    if (!run_call(c, c->in->name, c->args, c->in->n_params, &v1))
        return not_finished(c);
    char *msg = NULL;
    if (!fx_val_equal(v1, out)) {
        char *a = show(v1);
        msg = fx_xasprintf("v1 computes %s", a);
        free(a);
    }
    fx_value_release(v1);
    return msg;
}

bool fx_check_evaluates(const FxCheck *c)
{
    return c->kind == FX_CHECK_SORTED_KEY || c->kind == FX_CHECK_MEMBERS ||
           c->kind == FX_CHECK_POST || c->kind == FX_CHECK_NAIVE;
}

/* Does a value of type t hold a Float? Then v1's result is not compared:
 * under a declared tolerance the matrix kernel reorders sums (vm.c,
 * may_reassociate), and a NaN never equals itself. */
static bool holds_float(const FxType *t)
{
    switch (t->kind) {
    case FX_TY_FLOAT: return true;
    case FX_TY_LIST:
    case FX_TY_STREAM:
    case FX_TY_MATRIX: return holds_float(t->elem);
    case FX_TY_RECORD:
        for (size_t i = 0; t->record->field_types && i < t->record->def->n_fields; i++)
            if (holds_float(t->record->field_types[i]))
                return true;
        return false;
    default: return false;
    }
}

size_t fx_validate_plan(const FxIntent *in, FxValue output, FxCheck **out)
{
    FX_VEC(FxCheck) v = {0};
    bool list = output.kind == FX_VAL_LIST;
    double n = list ? (double)fx_val_list_len(output) : 0;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        if (k->kind == FX_CON_ORDER && list) {
            bool plain = k->u.order.key_form == FX_KEY_NONE;
            if (plain || k->u.order.key_form == FX_KEY_FIELD)
                fx_vec_push(&v, ((FxCheck){FX_CHECK_SORTED, k,
                                           NS_FIXED + n * (plain ? NS_SORTED : NS_SORTED_FIELD)}));
            else
                fx_vec_push(&v, ((FxCheck){FX_CHECK_SORTED_KEY, k, 0}));
        } else if (k->kind == FX_CON_PERMUTATION && list && k->u.perm.of->kind == FX_EXPR_NAME &&
                   k->u.perm.of->ref == FX_REF_PARAM) {
            fx_vec_push(&v, ((FxCheck){FX_CHECK_PERMUTATION, k, NS_FIXED + 2 * n * NS_HASHED}));
        } else if (k->kind == FX_CON_COMPREHENSION && list) {
            /* each value once only when v ranges over numbers; walking a list
             * (`x in xs`, or the collection form) keeps its repeats
             * (docs/language.md §4) */
            if (!k->u.comp.collection && !k->u.comp.domain)
                fx_vec_push(&v, ((FxCheck){FX_CHECK_DISTINCT, k, NS_FIXED + n * NS_DISTINCT}));
            fx_vec_push(&v, ((FxCheck){FX_CHECK_MEMBERS, k, 0}));
        } else if (k->kind == FX_CON_POST) {
            fx_vec_push(&v, ((FxCheck){FX_CHECK_POST, k, 0}));
        }
    }
    if (!holds_float(in->ret))
        fx_vec_push(&v, ((FxCheck){FX_CHECK_NAIVE, NULL, 0}));
    *out = v.data;
    return v.len;
}

char *fx_check_name(const FxCheck *c)
{
    char *k = c->k ? quote(c->k->span) : NULL, *name;
    switch (c->kind) {
    case FX_CHECK_DISTINCT: name = fx_xasprintf("no repeats in `%s`", k); break;
    case FX_CHECK_MEMBERS: name = fx_xasprintf("sampled members pass `%s`", k); break;
    case FX_CHECK_NAIVE: name = fx_xstrdup("the same result as v1"); break;
    default: name = fx_xasprintf("`%s`", k); break;
    }
    free(k);
    return name;
}

char *fx_validate_check(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                        const FxValue *args, FxValue output, const FxCheck *c, size_t samples,
                        uint64_t *steps_left, bool *stopped)
{
    Ctx x = {rt, prog, in, args, steps_left, false};
    const FxConstraint *k = c->k;
    char *bad = NULL;
    switch (c->kind) {
    case FX_CHECK_SORTED:
    case FX_CHECK_SORTED_KEY: bad = check_sorted(&x, output, k); break;
    case FX_CHECK_PERMUTATION:
        bad = check_permutation(output, args[k->u.perm.of->ref_index]);
        break;
    case FX_CHECK_DISTINCT: bad = check_distinct(output); break;
    case FX_CHECK_MEMBERS: bad = check_members(&x, output, k, samples); break;
    case FX_CHECK_POST: {
        int ok = holds(&x, k->u.post.expr, "result", in->ret, output);
        bad = ok == 1 ? NULL : ok == 0 ? fx_xstrdup("it does not hold") : not_finished(&x);
        break;
    }
    case FX_CHECK_NAIVE: bad = check_naive(&x, output); break;
    }
    *stopped = x.stopped;
    if (!bad || x.stopped)
        return bad;
    char *name = fx_check_name(c), *out = show(output);
    char *msg = fx_xasprintf("%s fails on %s: %s", name, out, bad);
    free(name);
    free(out);
    free(bad);
    return msg;
}
