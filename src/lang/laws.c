/*
 * laws.c: the laws of isqrt and log2 (laws.h), as solver terms.
 */
#include "laws.h"

#include <string.h>

bool fx_laws_known(const char *fn)
{
    return !strcmp(fn, "isqrt") || !strcmp(fn, "log2");
}

FxSmtTerm fx_laws_domain(FxSmt *smt, const char *fn, FxSmtTerm arg)
{
    return fx_smt_binop(smt, FX_SMT_GE, arg, fx_smt_int64(smt, strcmp(fn, "isqrt") ? 1 : 0));
}

static void assume(FxLaws *L, FxSmt *smt, FxSmtTerm law)
{
    L->all = L->all.v ? fx_smt_binop(smt, FX_SMT_AND, L->all, law) : law;
}

FxSmtTerm fx_laws_apply(FxLaws *L, FxSmt *smt, const char *fn, FxSmtTerm arg)
{
    FxSmtSort is = FX_SMT_SORT_INT;
    /* a name no intent can have, so that a program's own `isqrt` is another function */
    const char *name = strcmp(fn, "isqrt") ? "library.log2" : "library.isqrt";
    FxSmtTerm v = fx_smt_apply(smt, name, FX_SMT_SORT_INT, 1, &arg, &is);
    FxSmtTerm zero = fx_smt_int64(smt, 0), one = fx_smt_int64(smt, 1);
    FxSmtTerm holds;
    if (!strcmp(fn, "isqrt")) {
        FxSmtTerm next = fx_smt_binop(smt, FX_SMT_ADD, v, one);
        holds = fx_smt_binop(
            smt, FX_SMT_AND, fx_smt_binop(smt, FX_SMT_GE, v, zero),
            fx_smt_binop(smt, FX_SMT_AND,
                         fx_smt_binop(smt, FX_SMT_LE, fx_smt_binop(smt, FX_SMT_MUL, v, v), arg),
                         fx_smt_binop(smt, FX_SMT_LT, arg, fx_smt_binop(smt, FX_SMT_MUL, next, next))));
    } else {
        holds = fx_smt_binop(smt, FX_SMT_AND, fx_smt_binop(smt, FX_SMT_GE, v, zero),
                             fx_smt_binop(smt, FX_SMT_LT, v, arg));
    }
    assume(L, smt, fx_smt_binop(smt, FX_SMT_IMPLIES, fx_laws_domain(smt, fn, arg), holds));
    for (size_t i = 0; i < L->n_apps; i++) {
        if (strcmp(L->apps[i].fn, fn) != 0)
            continue;
        FxSmtTerm a = L->apps[i].arg, fa = L->apps[i].val;
        /* monotone inside the domain (outside it a call fails: no value to order) */
        FxSmtTerm in = fx_smt_binop(smt, FX_SMT_AND, fx_laws_domain(smt, fn, a),
                                    fx_laws_domain(smt, fn, arg));
        FxSmtTerm up = fx_smt_binop(smt, FX_SMT_IMPLIES, fx_smt_binop(smt, FX_SMT_LE, a, arg),
                                    fx_smt_binop(smt, FX_SMT_LE, fa, v));
        FxSmtTerm down = fx_smt_binop(smt, FX_SMT_IMPLIES, fx_smt_binop(smt, FX_SMT_LE, arg, a),
                                      fx_smt_binop(smt, FX_SMT_LE, v, fa));
        assume(L, smt, fx_smt_binop(smt, FX_SMT_IMPLIES, in,
                                    fx_smt_binop(smt, FX_SMT_AND, up, down)));
    }
    if (L->n_apps < FX_LAWS_MAX_APPS) {
        L->apps[L->n_apps].fn = fn;
        L->apps[L->n_apps].arg = arg;
        L->apps[L->n_apps].val = v;
        L->n_apps++;
    }
    return v;
}
