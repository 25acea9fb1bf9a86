/*
 * validate.c: see validate.h. Each check is small and independent; the
 * first that fails stops the validation with its message.
 */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

#include "graph/lower.h"
#include "lang/types.h"

static char *show(FxValue v)
{
    FxBuf b = {0};
    fx_val_print(v, &b);
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
 * or NULL with the run-time error that stopped a key in *err: the element,
 * one of its fields, or a function or expression of it evaluated. */
static FxValue *order_keys(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                           const FxValue *args, FxValue out, const FxConstraint *k, char **err)
{
    size_t n = fx_val_list_len(out);
    FxValue *keys = fx_xcalloc(n + 1, sizeof(FxValue));
    FxGraph *g = k->u.order.key_form == FX_KEY_EXPR
                         ? fx_lower_check(prog, in, k->u.order.key, k->u.order.key_var,
                                          in->ret->elem)
                         : NULL;
    FxValue *all = fx_xmalloc((in->n_params + 1) * sizeof(FxValue));
    memcpy(all, args, in->n_params * sizeof(FxValue));
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
            ok = fx_runtime_call(rt, k->u.order.key_fn->name, &x, 1, &keys[done]) == FX_OK;
            break;
        case FX_KEY_EXPR:
            all[in->n_params] = x;
            ok = fx_runtime_eval_with(rt, g, all, in->n_params + 1, &keys[done]) == FX_OK;
            break;
        }
        if (!ok) {
            *err = fx_xasprintf("the key of element %zu: %s", done, fx_runtime_error(rt));
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

char *fx_validate_sorted(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                         const FxValue *args, FxValue out, const FxConstraint *k)
{
    char *msg = NULL;
    FxValue *keys = order_keys(rt, prog, in, args, out, k, &msg);
    size_t n = fx_val_list_len(out);
    for (size_t i = 1; keys && i < n && !msg; i++) {
        bool ok;
        int c = fx_val_compare(keys[i - 1], keys[i], &ok);
        if (!ok || (k->u.order.descending ? c < 0 : c > 0)) {
            char *a = show(fx_val_list_at(out, i - 1)), *b = show(fx_val_list_at(out, i));
            msg = fx_xasprintf("elements %zu and %zu are out of order: %s then %s", i - 1, i, a,
                               b);
            free(a);
            free(b);
        }
    }
    for (size_t i = 0; keys && i < n; i++)
        fx_value_release(keys[i]);
    free(keys);
    return msg;
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

/* Evaluates cond with the extra parameter bound to x: true, false, or an error. */
static int holds(FxRuntime *rt, const FxProgram *prog, const FxIntent *in, const FxValue *args,
                 const FxExpr *cond, const char *extra, const FxType *type, FxValue x)
{
    FxGraph *g = fx_lower_check(prog, in, cond, extra, type);
    size_t n = in->n_params;
    FxValue *all = fx_xmalloc((n + 1) * sizeof(FxValue));
    memcpy(all, args, n * sizeof(FxValue));
    all[n] = x;
    FxValue v;
    int r = fx_runtime_eval_with(rt, g, all, n + 1, &v) == FX_OK ? v.u.b : -1;
    free(all);
    fx_graph_free(g);
    return r;
}

static char *check_comprehension(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                                 const FxValue *args, FxValue out, const FxConstraint *k,
                                 size_t samples)
{
    size_t n = fx_val_list_len(out), step = samples && n > samples ? n / samples : 1;
    for (size_t i = 0; i < n; i += step) {
        FxValue x = fx_val_list_at(out, i);
        int ok = holds(rt, prog, in, args, k->u.comp.cond, k->u.comp.var, k->u.comp.var_type, x);
        FxValue kind = {0};
        if (ok == 1 && k->u.comp.kind_pred &&
            fx_runtime_call(rt, k->u.comp.kind_pred->name, &x, 1, &kind) == FX_OK)
            ok = kind.u.b;
        if (ok != 1) {
            char *v = show(x), *c = quote(k->u.comp.cond->span);
            char *msg = fx_xasprintf("element %zu, %s, does not pass `%s`%s%s", i, v, c,
                                     k->u.comp.kind_pred ? " and " : "",
                                     k->u.comp.kind_pred ? k->u.comp.kind_pred->name : "");
            free(v);
            free(c);
            return msg;
        }
    }
    for (size_t i = 1; i < n && !k->u.comp.collection; i++)
        if (fx_val_equal(fx_val_list_at(out, i - 1), fx_val_list_at(out, i))) {
            char *v = show(fx_val_list_at(out, i));
            char *msg = fx_xasprintf("%s is in the output twice", v);
            free(v);
            return msg;
        }
    return NULL;
}

FxValidation fx_validate_output(FxRuntime *rt, const FxProgram *prog, const FxIntent *in,
                                const FxValue *args, FxValue output, size_t samples)
{
    FxValidation v = {true, 0, NULL};
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        char *bad = NULL;
        bool list = output.kind == FX_VAL_LIST;
        if (k->kind == FX_CON_ORDER && list) {
            bad = fx_validate_sorted(rt, prog, in, args, output, k);
        } else if (k->kind == FX_CON_PERMUTATION && list && k->u.perm.of->kind == FX_EXPR_NAME &&
                   k->u.perm.of->ref == FX_REF_PARAM) {
            bad = check_permutation(output, args[k->u.perm.of->ref_index]);
        } else if (k->kind == FX_CON_COMPREHENSION && list) {
            bad = check_comprehension(rt, prog, in, args, output, k, samples);
        } else if (k->kind == FX_CON_POST) {
            int ok = holds(rt, prog, in, args, k->u.post.expr, "result", in->ret, output);
            if (ok != 1)
                bad = fx_xstrdup(ok == 0 ? "it does not hold" : fx_runtime_error(rt));
        } else {
            continue;
        }
        v.checked++;
        if (bad) {
            char *c = quote(k->span), *out = show(output);
            v.ok = false;
            v.violation = fx_xasprintf("`%s` fails on %s: %s", c, out, bad);
            free(c);
            free(out);
            free(bad);
            break;
        }
    }
    return v;
}
