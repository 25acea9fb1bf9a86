/*
 * gen_prog.c: intents (docs/language.md §2, §4, §6, §7): signatures, the
 * constructive forms, postconditions, properties and hints.
 *
 * Every signature is planned before any body is written, so that a body
 * may call an intent declared after it (mutual recursion, which a budget
 * stops) as well as the ones before (the usual case: calls form a DAG).
 *
 * Each intent constructs its result one way (IPlan.form): `result = E`;
 * equations in the three tiers (literal patterns, `when` guards, the
 * otherwise case) with an alias now and then; recursion on a Natural
 * parameter that decreases (and, rarely, recursion that does not);
 * element-wise definitions of a list (with `len(result) = ...`) or of a
 * matrix; comprehensions over a bounded variable, with or without a kind,
 * or over a collection (a list parameter or a data source); permutations,
 * sorted or not, by a field, a function or an expression.
 *
 * The checker compares equations of one tier with Z3 and rejects two that
 * give different values for one argument, so the generator never writes
 * two equations of one tier that may apply to the same argument: literal
 * equations differ at one position, guards form a decision list
 * (`C1`, `not (C1) and C2`, ...), and there is at most one otherwise
 * equation (or two with the same body, which must agree).
 */
#include <stdlib.h>
#include <string.h>

#include "gen_int.h"

enum {
    F_RESULT,
    F_EQS,
    F_REC,
    F_ELEM_LIST,
    F_ELEM_MATRIX,
    F_COMP_VAR,
    F_COMP_COLL,
    F_PERM,
    F_FOREACH,
    F_N,
};

typedef struct IPlan {
    int form;
    size_t file;         /* the GenFile it is written in */
    int dec;             /* F_REC: the parameter that decreases */
    const char *coll;    /* F_COMP_COLL: the collection's name */
    const GType *coll_t; /* and its type */
    const char *sizes[GEN_MAX_SIZES];
    size_t n_sizes;
    bool wild; /* may call any intent, and recurse without decreasing */
} IPlan;

#define MAX_LINES 24
typedef struct Lines {
    const char *s[MAX_LINES];
    size_t n;
} Lines;

static void add_line(Lines *l, const char *s)
{
    if (l->n < MAX_LINES)
        l->s[l->n++] = s;
}

/* ---- the prelude (lib/prelude.flux) ---- */

void gen_add_prelude(Gen *g)
{
    static const struct {
        const char *name;
        size_t n;
        GTKind p[2];
        GTKind ret;
    } prelude[] = {
        {"prime", 1, {GT_NAT}, GT_BOOL},          {"divides", 2, {GT_INT, GT_INT}, GT_BOOL},
        {"abs", 1, {GT_INT}, GT_NAT},             {"even", 1, {GT_INT}, GT_BOOL},
        {"odd", 1, {GT_INT}, GT_BOOL},            {"gcd", 2, {GT_INT, GT_INT}, GT_NAT},
        {"lcm", 2, {GT_INT, GT_INT}, GT_NAT},     {"sign", 1, {GT_INT}, GT_INT},
        {"is_sorted", 1, {GT_LIST}, GT_BOOL},
    };
    static const GType *const kinds[] = {
        [GT_NAT] = &gt_nat, [GT_INT] = &gt_int, [GT_BOOL] = &gt_bool,
    };
    static const char *const pnames[] = {"a", "b"};
    for (size_t i = 0; i < GEN_LEN(prelude); i++) {
        GIntent *in = &g->intents[g->n_intents++];
        memset(in, 0, sizeof(*in));
        in->name = prelude[i].name;
        in->n = prelude[i].n;
        in->prelude = true;
        for (size_t k = 0; k < in->n; k++) {
            in->params[k].name = pnames[k];
            in->params[k].t = prelude[i].p[k] == GT_LIST ? gt_list(g, &gt_int)
                                                         : kinds[prelude[i].p[k]];
        }
        in->ret = kinds[prelude[i].ret];
    }
    g->n_prelude = g->n_intents;
}

bool gen_prelude_visible(const Gen *g, const char *name)
{
    for (size_t i = 0; i < g->n_prelude; i++)
        if (strcmp(g->intents[i].name, name) == 0)
            return !g->intents[i].hidden;
    return false;
}

/* ---- signatures ---- */

static const char *const size_pool[] = {"M", "N", "K", "R", "C", "P", "Q", "m"};

/* A matrix size: a literal, a size variable already bound, or (where a
 * parameter binds it) a new one. */
static const char *size_of(Gen *g, IPlan *pl, bool bind)
{
    if (gx(g, 5) == 1 || (!bind && pl->n_sizes == 0))
        return ga_printf(&g->arena, "%u", 1 + gx(g, 3));
    if (pl->n_sizes && (!bind || gchance(g, 2)))
        return pl->sizes[gx(g, (uint32_t)pl->n_sizes)];
    for (size_t tries = 0; tries < 8 && pl->n_sizes < GEN_MAX_SIZES; tries++) {
        const char *s = size_pool[gx(g, GEN_LEN(size_pool))];
        bool used = false;
        for (size_t i = 0; i < pl->n_sizes; i++)
            used |= strcmp(pl->sizes[i], s) == 0;
        if (!used) {
            pl->sizes[pl->n_sizes++] = s;
            return s;
        }
    }
    return pl->n_sizes ? pl->sizes[0] : "2";
}

static const GType *matrix_type(Gen *g, IPlan *pl, bool bind)
{
    static const unsigned w[] = {2, 1, 1};
    static const GType *const es[] = {&gt_float, &gt_int, &gt_nat};
    const char *r = size_of(g, pl, bind), *c = size_of(g, pl, bind);
    return gt_matrix(g, r, c, es[gpickw(g, w, 3)]);
}

/* Parameter names: fresh, and now and then a word that is a keyword only
 * in some places (docs/language.md §1: `explain` is not reserved). */
static const char *param_name(Gen *g, const GIntent *in, const GType *t)
{
    static const char *const soft[] = {"explain", "by", "of", "sorted", "is", "a", "an",
                                       "contains", "permutation", "ascending", "descending"};
    if (gx(g, 25) == 1) {
        const char *s = soft[gx(g, GEN_LEN(soft))];
        bool taken = false;
        for (size_t i = 0; i < in->n; i++)
            taken |= strcmp(in->params[i].name, s) == 0;
        if (!taken)
            return s;
    }
    const char *stem = t->k == GT_MATRIX ? "A" : gt_is_coll(t) ? "xs" : t->k == GT_STRING ? "s"
                       : t->k == GT_RECORD ? "r" : t->k == GT_BOOL ? "flag" : "n";
    return gfresh(g, stem);
}

/* Inserts a parameter at position at (or last); returns its position. */
static int add_param(Gen *g, GIntent *in, const GType *t, int at)
{
    if (in->n >= GEN_MAX_PARAMS)
        abort(); // plan_intent leaves room
    if (at < 0 || (size_t)at > in->n)
        at = (int)in->n;
    const char *name = param_name(g, in, t); // before the others move
    memmove(&in->params[at + 1], &in->params[at], (in->n - (size_t)at) * sizeof(GParam));
    in->params[at].t = t;
    in->params[at].name = name;
    in->params[at].text = gt_text(g, t);
    in->n++;
    return at;
}

static int find_list_param(const GIntent *in)
{
    for (size_t i = 0; i < in->n; i++)
        if (gt_is_coll(in->params[i].t))
            return (int)i;
    return -1;
}

static void plan_intent(Gen *g, GIntent *in, IPlan *pl)
{
    static const unsigned fw[F_N] = {
        [F_RESULT] = 5, [F_EQS] = 4, [F_REC] = 3, [F_ELEM_LIST] = 2, [F_ELEM_MATRIX] = 1,
        [F_COMP_VAR] = 3, [F_COMP_COLL] = 2, [F_PERM] = 2, [F_FOREACH] = 2,
    };
    static const char *const stems[] = {"f", "calc", "pick", "build", "find", "score", "walk",
                                        "total_", "best"};
    memset(pl, 0, sizeof(*pl));
    pl->form = (int)gpickw(g, fw, F_N);
    if (g->numeric && pl->form == F_ELEM_MATRIX)
        pl->form = F_ELEM_LIST;
    pl->dec = -1;
    pl->wild = gx(g, 15) == 1;
    in->name = gfresh(g, stems[gx(g, GEN_LEN(stems))]);
    // now and then the name of a prelude intent, which it then shadows for
    // the whole program (docs/language.md §2), whatever its signature
    if (gx(g, 30) == 1) {
        GIntent *pre = &g->intents[gx(g, (uint32_t)g->n_prelude)];
        // the prelude's gcd and lcm call the user's abs and gcd
        // (tests/fuzz/found/012-*): shadow only the others then
        bool used = !strcmp(pre->name, "abs") || !strcmp(pre->name, "gcd");
        if (!pre->hidden && !(used && (g->opt->avoid & GEN_KNOWN_PRELUDE_SEES_USER))) {
            pre->hidden = true;
            in->name = pre->name;
        }
    }
    size_t n = gx(g, GEN_MAX_PARAMS + 1);
    if (n == GEN_MAX_PARAMS &&
        (pl->form == F_REC || pl->form == F_COMP_COLL || pl->form == F_FOREACH))
        n--; // room for the parameter the form adds
    for (size_t i = 0; i < n; i++) {
        // a list of records, often: the data the native tier is growing into
        const GType *t = g->n_recs && gchance(g, 4)
                                 ? gt_list(g, gt_record(g, (int)gx(g, (uint32_t)g->n_recs)))
                         : gx(g, 8) == 1 && !g->numeric ? matrix_type(g, pl, true)
                                         : gt_random(g, 2);
        add_param(g, in, t, -1);
    }
    switch (pl->form) {
    case F_REC:
        pl->dec = add_param(g, in, &gt_nat, (int)gx(g, (uint32_t)in->n + 1));
        in->ret = gt_random(g, 1);
        break;
    case F_ELEM_LIST: in->ret = gt_list(g, gt_random(g, 1)); break;
    case F_ELEM_MATRIX:
        in->ret = matrix_type(g, pl, false);
        // a size from a list's length, `Matrix[len(u), len(v)]`: being added
        // in parallel (GEN_FEAT_MATRIX_LEN)
        int u = find_list_param(in);
        // not of a list spelt as an alias (tests/fuzz/found/013-*)
        if (u >= 0 && (g->opt->avoid & GEN_KNOWN_LEN_SIZE_ALIAS) &&
            strncmp(in->params[u].text, "List[", 5) != 0 &&
            strncmp(in->params[u].text, "Stream[", 7) != 0)
            u = -1;
        if ((g->opt->features & GEN_FEAT_MATRIX_LEN) && u >= 0 && gchance(g, 2)) {
            const char *len = ga_printf(&g->arena, "len(%s)", in->params[u].name);
            in->ret = gt_matrix(g, gchance(g, 2) ? len : in->ret->rows,
                                gchance(g, 2) ? len : in->ret->cols, in->ret->elem);
        }
        break;
    case F_COMP_VAR: {
        static const GType *const es[] = {&gt_nat, &gt_int, &gt_float};
        in->ret = gt_list(g, es[gx(g, 3)]);
        break;
    }
    case F_COMP_COLL: {
        if (g->n_data && gchance(g, 2)) {
            const GData *d = &g->data[gx(g, (uint32_t)g->n_data)];
            pl->coll = d->name;
            pl->coll_t = gt_list(g, gt_record(g, d->rec));
        } else {
            int i = find_list_param(in);
            if (i < 0) {
                add_param(g, in, gt_list(g, gt_random(g, 1)), -1);
                i = find_list_param(in);
            }
            pl->coll = in->params[i].name;
            pl->coll_t = in->params[i].t;
        }
        const GType *e = pl->coll_t->elem;
        in->ret = gt_is_int(e) && gchance(g, 4) ? gt_list(g, &gt_float) : gt_list(g, e);
        break;
    }
    case F_PERM: in->ret = gt_list(g, gt_random(g, 1)); break;
    case F_FOREACH: {
        // over a list of records where there is one (or can be), else any list
        int i = -1;
        for (size_t k = 0; k < in->n && i < 0; k++)
            if (gt_is_coll(in->params[k].t) && in->params[k].t->elem->k == GT_RECORD)
                i = (int)k;
        if (i < 0 && g->n_recs)
            i = add_param(g, in, gt_list(g, gt_record(g, (int)gx(g, (uint32_t)g->n_recs))), -1);
        if (i < 0)
            i = find_list_param(in);
        if (i < 0)
            i = add_param(g, in, gt_list(g, gt_random(g, 1)), -1);
        pl->coll = in->params[i].name;
        pl->coll_t = in->params[i].t;
        const GType *e = pl->coll_t->elem;
        in->ret = e->k == GT_RECORD && !gchance(g, 3) ? gt_list(g, e) : gt_list(g, gt_random(g, 1));
        break;
    }
    default:
        // a Matrix result built from a list stays a list (tests/fuzz/found/008-*)
        in->ret = gx(g, 10) == 1 && !(g->opt->avoid & GEN_KNOWN_MATRIX_FROM_LIST) && !g->numeric
                          ? matrix_type(g, pl, false)
                          : gt_random(g, 2);
        break;
    }
}

/* ---- scope ---- */

/* Data sources, size variables and parameters, innermost last. */
static void open_scope(Gen *g, const GIntent *in, const IPlan *pl)
{
    g->n_vars = 0;
    for (size_t i = 0; i < g->n_data; i++)
        gen_push(g, g->data[i].name, gt_list(g, gt_record(g, g->data[i].rec)));
    for (size_t i = 0; i < pl->n_sizes; i++)
        gen_push(g, pl->sizes[i], &gt_nat);
    for (size_t i = 0; i < in->n; i++)
        gen_push(g, in->params[i].name, in->params[i].t);
    g->cur = in;
    g->self_name = in->name;
    g->dec_param = -1;
    g->dec_name = NULL;
    g->recurse = false;
    g->wild_recursion = false;
    g->result_ok = false;
    g->comp_var = g->comp_int = NULL;
    memset(g->eq_names, 0, sizeof(g->eq_names));
}

/* An expression for a constraint: a depth of 1 to 4 mostly, now and then
 * deeper, within a budget of nodes. */
static GExp top(Gen *g, const GType *t)
{
    int depth = 1 + (int)gx(g, 4) + (gchance(g, 10) ? 3 + (int)gx(g, 4) : 0);
    g->budget = 20 + (int)gx(g, 60);
    return gen_expr(g, t, depth);
}

static GExp top_bool(Gen *g)
{
    return top(g, &gt_bool);
}

/* ---- equations ---- */

enum { PAT_PARAM, PAT_FRESH, PAT_SWAP, PAT_LIT };

typedef struct Pats {
    int kind[GEN_MAX_PARAMS];
    const char *text[GEN_MAX_PARAMS];
} Pats;

/* The k-th of a list of distinct literals that match type t. */
static const char *pattern_literal(const GType *t, size_t k)
{
    static const char *const nats[] = {"0", "1", "2", "3", "5", "10", "100"};
    static const char *const ints[] = {"0", "-1", "1", "-2", "7", "-100"};
    static const char *const floats[] = {"0.5", "1.5", "-2.25", "0.0", "3.0"};
    static const char *const strs[] = {"\"\"", "\"a\"", "\"Ann\"", "\"h\xc3\xa9\"", "\"x y\""};
    switch (t->k) {
    case GT_NAT: return nats[k % GEN_LEN(nats)];
    case GT_INT: return ints[k % GEN_LEN(ints)];
    case GT_FLOAT: return floats[k % GEN_LEN(floats)];
    case GT_STRING: return strs[k % GEN_LEN(strs)];
    case GT_BOOL: return k % 2 ? "false" : "true";
    default: return NULL;
    }
}

static size_t literal_count(const GType *t)
{
    switch (t->k) {
    case GT_NAT: return 7;
    case GT_INT: return 6;
    case GT_FLOAT:
    case GT_STRING: return 5;
    case GT_BOOL: return 2;
    default: return 0;
    }
}

/* Variable patterns for every position: the parameter's own name mostly,
 * a fresh one, or (rarely) another parameter's name, which then stands for
 * this position's argument. */
static void var_patterns(Gen *g, const GIntent *in, Pats *p)
{
    bool swap = in->n >= 2 && gx(g, 12) == 1;
    for (size_t i = 0; i < in->n; i++) {
        p->kind[i] = PAT_PARAM;
        p->text[i] = in->params[i].name;
        if (gx(g, 5) == 1) {
            p->kind[i] = PAT_FRESH;
            p->text[i] = gfresh(g, "v");
        }
    }
    if (swap) {
        size_t a = gx(g, (uint32_t)in->n), b = (a + 1) % in->n;
        p->kind[a] = p->kind[b] = PAT_SWAP;
        p->text[a] = in->params[b].name;
        p->text[b] = in->params[a].name;
    }
}

/* Writes one equation. head NULL writes `result = ...` (only with the
 * parameters' own names). Guard conditions come from conds (a decision
 * list, already in this equation's scope: the pattern names must be the
 * parameters' names there) or are NULL. rec: recursion is allowed. */
static const char *equation(Gen *g, const GIntent *in, const IPlan *pl, const char *head,
                            const Pats *p, const char *guard, bool rec)
{
    size_t mark = g->n_vars;
    GenBuf b = {0};
    if (head) {
        gb_printf(&b, "%s(", head);
        for (size_t i = 0; i < in->n; i++) {
            gb_printf(&b, "%s%s", i ? ", " : "", p->text[i]);
            if (p->kind[i] != PAT_LIT)
                gen_push(g, p->text[i], in->params[i].t);
        }
        gb_puts(&b, ")");
    } else {
        gb_puts(&b, "result");
    }
    g->dec_name = NULL;
    if (pl->form == F_REC && p->kind[pl->dec] != PAT_LIT)
        g->dec_name = p->text[pl->dec];
    for (size_t i = 0; i < in->n; i++)
        g->eq_names[i] = !head ? in->params[i].name : p->kind[i] != PAT_LIT ? p->text[i] : NULL;
    g->dec_param = pl->dec;
    g->recurse = rec && g->dec_name;
    // a recursive call by the intent's name or by the alias its equations use
    g->self_name = head && gchance(g, 2) ? head : in->name;
    g->wild_recursion = pl->wild && pl->form == F_REC;
    GExp rhs = top(g, in->ret);
    g->recurse = g->wild_recursion = false;
    gb_printf(&b, " = %s", rhs.s);
    if (guard)
        gb_printf(&b, " when %s", guard);
    gen_pop(g, mark);
    char *s = gb_take(&b);
    const char *r = ga_strdup(&g->arena, s);
    free(s);
    return r;
}

/* Guards that never overlap: C1, not (C1) and C2, ..., and the rest.
 * Each is written in terms of the parameters' own names. */
static size_t decision_list(Gen *g, const char *base, size_t n, bool rest, const char **out)
{
    const char *neg = NULL; // `not (C1) and not (C2)` so far
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        GExp c = top_bool(g);
        const char *cw = gen_wrap(g, c, P_NOT);
        const char *guard = neg ? ga_printf(&g->arena, "%s and %s", neg, cw) : cw;
        if (base)
            guard = ga_printf(&g->arena, "%s and %s", base, guard);
        out[k++] = guard;
        const char *nc = ga_printf(&g->arena, "not %s", gen_wrap(g, c, P_NOT));
        neg = neg ? ga_printf(&g->arena, "%s and %s", neg, nc) : nc;
    }
    if (rest && neg)
        out[k++] = base ? ga_printf(&g->arena, "%s and %s", base, neg) : neg;
    return k;
}

static void param_patterns(const GIntent *in, Pats *p)
{
    for (size_t i = 0; i < in->n; i++) {
        p->kind[i] = PAT_PARAM;
        p->text[i] = in->params[i].name;
    }
}

/* F_EQS and F_REC: the three tiers. */
static void equations(Gen *g, const GIntent *in, const IPlan *pl, Lines *out)
{
    const char *alias = gchance(g, 4) ? gfresh(g, "fk") : NULL;
    const char *names[2] = {in->name, alias ? alias : in->name};
    Lines eqs = {0};
    bool rec = pl->form == F_REC;

    // the literal tier: one position whose literals differ
    int lp = rec ? pl->dec : -1;
    for (size_t tries = 0; lp < 0 && tries < 3 && in->n; tries++) {
        size_t i = gx(g, (uint32_t)in->n);
        if (literal_count(in->params[i].t))
            lp = (int)i;
    }
    size_t nlit = lp < 0 ? 0 : rec ? 1 + gx(g, 2) : gx(g, 4);
    if (lp >= 0 && nlit > literal_count(in->params[lp].t))
        nlit = literal_count(in->params[lp].t);
    size_t start = rec ? 0 : gx(g, 5);
    for (size_t k = 0; k < nlit; k++) {
        Pats p;
        memset(&p, 0, sizeof(p));
        var_patterns(g, in, &p);
        p.kind[lp] = PAT_LIT;
        p.text[lp] = pattern_literal(in->params[lp].t, start + k);
        // a second literal position, or a guard, only where the base case need not cover
        if (!rec && in->n > 1 && gx(g, 5) == 1) {
            size_t q = gx(g, (uint32_t)in->n);
            if ((int)q != lp && literal_count(in->params[q].t) && p.kind[q] != PAT_SWAP) {
                p.kind[q] = PAT_LIT;
                p.text[q] = pattern_literal(in->params[q].t, gx(g, 3));
            }
        }
        const char *guard = NULL;
        if (!rec && gx(g, 4) == 1) {
            // a guard reads the parameters, whatever the patterns name them
            bool plain = true;
            for (size_t i = 0; i < in->n; i++)
                plain &= p.kind[i] != PAT_SWAP;
            if (plain)
                guard = top_bool(g).s;
        }
        add_line(&eqs, equation(g, in, pl, names[gx(g, 2)], &p, guard, false));
    }

    // the guarded tier: a decision list (under `d > 0` when recursing)
    size_t nguard = gx(g, rec ? 3 : 4);
    const char *guards[8];
    const char *base = NULL;
    if (rec) {
        const char *d = in->params[pl->dec].name;
        static const char *const pos[] = {"%s > 0", "%s >= 1", "not (%s = 0)", "0 < %s"};
        base = ga_printf(&g->arena, pos[gx(g, 4)], d);
    }
    bool otherwise = gx(g, 5) != 1 || (nlit == 0 && nguard == 0);
    size_t ng = nguard ? decision_list(g, base, nguard, !otherwise && gchance(g, 2), guards) : 0;
    for (size_t k = 0; k < ng; k++) {
        Pats p;
        memset(&p, 0, sizeof(p));
        param_patterns(in, &p);
        bool result_form = gx(g, 3) == 1;
        add_line(&eqs, equation(g, in, pl, result_form ? NULL : names[gx(g, 2)], &p, guards[k],
                                rec));
    }

    // the otherwise tier: one equation, or two that must agree
    if (otherwise) {
        Pats p;
        memset(&p, 0, sizeof(p));
        bool both = gx(g, 8) == 1;
        if (both)
            param_patterns(in, &p);
        else
            var_patterns(g, in, &p);
        bool result_form = both || gx(g, 4) == 1;
        if (result_form)
            param_patterns(in, &p);
        // recursion here is safe only where the literal tier caught 0
        const char *e = equation(g, in, pl, result_form ? NULL : names[gx(g, 2)], &p, NULL,
                                 rec && nlit > 0);
        add_line(&eqs, e);
        if (both) {
            // the same body under the intent's own name
            const char *body = strstr(e, " = ") + 3;
            GenBuf b = {0};
            gb_printf(&b, "%s(", names[gx(g, 2)]);
            for (size_t i = 0; i < in->n; i++)
                gb_printf(&b, "%s%s", i ? ", " : "", in->params[i].name);
            gb_printf(&b, ") = %s", body);
            char *s = gb_take(&b);
            add_line(&eqs, ga_strdup(&g->arena, s));
            free(s);
        }
    }
    // any order: tiers are by form, not by place
    for (size_t i = eqs.n; i > 1; i--) {
        size_t j = gx(g, (uint32_t)i);
        const char *t = eqs.s[i - 1];
        eqs.s[i - 1] = eqs.s[j];
        eqs.s[j] = t;
    }
    for (size_t i = 0; i < eqs.n; i++)
        add_line(out, eqs.s[i]);
}

/* ---- element-wise definitions ---- */

static void elementwise(Gen *g, GIntent *in, const IPlan *pl, Lines *out)
{
    (void)pl;
    size_t mark = g->n_vars;
    bool matrix = in->ret->k == GT_MATRIX;
    const char *i = gfresh(g, "i"), *j = matrix ? gfresh(g, "j") : NULL;
    in->elementwise = true;
    in->eindex[0] = i;
    in->eindex[1] = j;
    if (!matrix) {
        // the length first: it reads the parameters only
        GExp len = top(g, &gt_nat);
        if (gchance(g, 2) || (g->opt->avoid & GEN_KNOWN_RANGE_BUDGET))
            len = (GExp){ga_printf(&g->arena, "min(%s, %u)", len.s, 5 + gx(g, 20)), P_POST,
                         &gt_nat};
        add_line(out, ga_printf(&g->arena, "len(result) = %s", len.s));
    }
    gen_push(g, i, &gt_nat);
    if (j)
        gen_push(g, j, &gt_nat);
    GExp e = top(g, in->ret->elem);
    gen_pop(g, mark);
    const char *def = matrix ? ga_printf(&g->arena, "result[%s,%s%s] = %s", i,
                                         gchance(g, 2) ? " " : "", j, e.s)
                             : ga_printf(&g->arena, "result[%s] = %s", i, e.s);
    if (gchance(g, 2) || out->n == 0)
        add_line(out, def);
    else {
        add_line(out, out->s[out->n - 1]);
        out->s[out->n - 2] = def;
    }
}

/* ---- comprehensions ---- */

/* A kind for a comprehension variable: a one-parameter predicate on
 * integers, spelt as written or as a plural. *vt gets the variable's type. */
static const char *kind_word(Gen *g, const GType **vt)
{
    const GIntent *c[GEN_MAX_GINTENTS];
    size_t n = 0;
    for (size_t i = 0; i < g->callable && i < g->n_intents; i++) {
        const GIntent *in = &g->intents[i];
        if (!in->hidden && in->n == 1 && in->ret->k == GT_BOOL && gt_is_int(in->params[0].t))
            c[n++] = in;
    }
    if (!n)
        return NULL;
    const GIntent *k = c[gx(g, (uint32_t)n)];
    *vt = k->params[0].t;
    size_t len = strlen(k->name);
    // `primes`, `evens`: the plural rule; `boxes` when the word ends in x
    if (gchance(g, 2))
        return k->name;
    if (k->name[len - 1] == 'x' || k->name[len - 1] == 's')
        return ga_printf(&g->arena, "%ses", k->name);
    return ga_printf(&g->arena, "%ss", k->name);
}

/* The bounds of v, as conjuncts (docs/language.md §4). */
static size_t bounds(Gen *g, const char *v, bool need_lower, const char **out)
{
    const char *le = gchance(g, 2) ? "<=" : "\xe2\x89\xa4";
    GExp lo = gx(g, 3) ? (GExp){ga_printf(&g->arena, "%u", gx(g, 4)), P_POST, &gt_nat}
                       : top(g, &gt_int);
    GExp hi = top(g, &gt_nat);
    // the candidates are a range, built whole (tests/fuzz/found/011-*)
    bool tame = g->opt->avoid & GEN_KNOWN_RANGE_BUDGET;
    if (gchance(g, 2) || tame)
        hi = (GExp){ga_printf(&g->arena, "min(%s, %u)", hi.s, 10 + gx(g, 40)), P_POST, &gt_nat};
    if (tame && lo.t->k != GT_NAT)
        lo = (GExp){ga_printf(&g->arena, "max(%s, -%u)", lo.s, gx(g, 40)), P_POST, &gt_int};
    const char *los = gen_wrap(g, lo, P_RANGE), *his = gen_wrap(g, hi, P_RANGE);
    size_t n = 0;
    switch (gx(g, 7)) {
    case 1: // a chain
        out[n++] = ga_printf(&g->arena, "%s %s %s %s %s", los, gchance(g, 2) ? "<" : le, v,
                             gchance(g, 2) ? "<" : le, his);
        return n;
    case 2: // a range
        out[n++] = ga_printf(&g->arena, "%s in %s%s%s", v, gen_wrap(g, lo, P_ADD),
                             gchance(g, 2) ? ".." : "..=", gen_wrap(g, hi, P_ADD));
        return n;
    case 3: // one value
        if (gchance(g, 3)) {
            out[n++] = ga_printf(&g->arena, "%s = %s", v, his);
            return n;
        }
        break;
    default: break;
    }
    if (need_lower || gchance(g, 3)) {
        static const char *const lf[] = {"%2$s >= %1$s", "%1$s <= %2$s", "%2$s > %1$s",
                                         "%1$s < %2$s"};
        out[n++] = ga_printf(&g->arena, lf[gx(g, 4)], los, v);
    }
    static const char *const uf[] = {"%2$s < %1$s", "%2$s <= %1$s", "%1$s > %2$s",
                                     "%1$s >= %2$s"};
    out[n++] = ga_printf(&g->arena, uf[gx(g, 4)], his, v);
    return n;
}

/* Joins conjuncts in a random order, with filters about v among them. */
static const char *conjunction(Gen *g, const char **cs, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = gx(g, (uint32_t)i);
        const char *t = cs[i - 1];
        cs[i - 1] = cs[j];
        cs[j] = t;
    }
    GenBuf b = {0};
    for (size_t i = 0; i < n; i++)
        gb_printf(&b, "%s%s", i ? (gchance(g, 8) ? " \xe2\x88\xa7 " : " and ") : "", cs[i]);
    char *s = gb_take(&b);
    const char *r = ga_strdup(&g->arena, s);
    free(s);
    return r;
}

static const char *order_constraint(Gen *g, const GIntent *in);

static void comprehension_var(Gen *g, const GIntent *in, const IPlan *pl, Lines *out)
{
    (void)pl;
    const GType *vt = NULL;
    const char *kind = gchance(g, 2) ? kind_word(g, &vt) : NULL;
    if (!kind)
        vt = gt_is_int(in->ret->elem) ? in->ret->elem : &gt_int;
    const char *v = gfresh(g, "p");
    const char *cs[8];
    size_t n = bounds(g, v, vt->k != GT_NAT, cs);
    // `v in xs` bounds it too (a known crash, GEN_KNOWN_COMP_IN_LIST)
    const GType *lt = gt_list(g, &gt_int);
    if (!(g->opt->avoid & GEN_KNOWN_COMP_IN_LIST) && gx(g, 5) == 1) {
        GExp l = top(g, lt);
        if (l.t->k == GT_ANY) // `[][4]`: no list the checker can see
            l = (GExp){"[3, 1, 4, 1, 5]", P_POST, lt};
        n = 0;
        cs[n++] = ga_printf(&g->arena, "%s in %s", v, gen_wrap(g, l, P_RANGE));
    }
    size_t mark = g->n_vars;
    gen_push(g, v, vt);
    if (g->opt->avoid & GEN_KNOWN_COMP_EQ_VAR)
        g->comp_var = v;
    g->comp_int = v;
    size_t nf = gx(g, 3);
    for (size_t i = 0; i < nf; i++) {
        GExp f = gchance(g, 2) ? gen_bool_about(g, v, vt, 2) : top_bool(g);
        cs[n++] = gen_wrap(g, f, P_NOT);
    }
    g->comp_var = g->comp_int = NULL;
    gen_pop(g, mark);
    const char *cond = conjunction(g, cs, n);
    add_line(out, ga_printf(&g->arena, "result contains all %s%s%s where %s", kind ? kind : "",
                            kind ? " " : "", v, cond));
    if (gchance(g, 2))
        add_line(out, order_constraint(g, in));
}

static void comprehension_coll(Gen *g, const GIntent *in, const IPlan *pl, Lines *out)
{
    const GType *et = pl->coll_t->elem;
    const char *e = gfresh(g, "e");
    size_t mark = g->n_vars;
    gen_push(g, e, et);
    const char *cs[4];
    size_t n = 0;
    cs[n++] = gen_wrap(g, gen_bool_about(g, e, et, 2), P_NOT);
    if (gchance(g, 3))
        cs[n++] = gen_wrap(g, top_bool(g), P_NOT);
    gen_pop(g, mark);
    add_line(out, ga_printf(&g->arena, "result contains all %s where %s", pl->coll,
                            conjunction(g, cs, n)));
    if (gchance(g, 2))
        add_line(out, order_constraint(g, in));
}

/* `for each x in XS: E` (docs/language.md §4): a record of XS updated
 * (`x with {f: x.f + 1}`) where the result is a list of XS's records,
 * else any expression (of x, mostly). */
static void for_each(Gen *g, const GIntent *in, const IPlan *pl, Lines *out)
{
    const GType *et = pl->coll_t->elem;
    const char *x = gfresh(g, "p");
    size_t mark = g->n_vars;
    gen_push(g, x, et);
    GExp body;
    if (et->k == GT_RECORD && gt_same(in->ret->elem, et) && !gchance(g, 4))
        body = gen_with(g, (GExp){x, P_POST, et}, 3);
    else
        body = top(g, in->ret->elem);
    gen_pop(g, mark);
    add_line(out, ga_printf(&g->arena, "for each %s in %s: %s", x, pl->coll, body.s));
}

/* ---- order and permutation ---- */

/* `result is sorted [ascending|descending] [by KEY]`: it constructs next to
 * a comprehension or a permutation, and is a postcondition (still checked)
 * next to equations. */
static const char *order_constraint(Gen *g, const GIntent *in)
{
    const GType *et = in->ret->elem;
    static const char *const dirs[] = {"", " ascending", " descending"};
    const char *dir = dirs[gx(g, 3)];
    const char *key = NULL;
    // a bare order needs ordered elements
    int form = gt_is_ordered(et) ? (int)gx(g, 4) : 1 + (int)gx(g, 3);
    if (form == 1 && et->k == GT_RECORD) {
        const GRecord *r = &g->recs[et->rec];
        for (size_t f = 0; f < r->n && !key; f++)
            if (gt_is_ordered(r->types[f]) && gchance(g, 2))
                key = r->fields[f];
    }
    if (form == 2 && !key) {
        const GIntent *c[GEN_MAX_GINTENTS];
        size_t n = 0;
        for (size_t i = 0; i < g->callable && i < g->n_intents; i++)
            if (!g->intents[i].hidden && g->intents[i].n == 1 &&
                gt_assignable(et, g->intents[i].params[0].t) &&
                gt_is_ordered(g->intents[i].ret))
                c[n++] = &g->intents[i];
        if (n)
            key = c[gx(g, (uint32_t)n)]->name;
    }
    if (!key && (form != 0 || !gt_is_ordered(et))) {
        const char *p = gfresh(g, "el");
        size_t mark = g->n_vars;
        g->budget = 10;
        GExp k = gen_key_about(g, p, et, 2);
        gen_pop(g, mark);
        // a lone element name after `by` is an error (it reads as a typo);
        // sorting by the element itself is the bare order
        key = strcmp(k.s, p) == 0 ? NULL : k.s;
    }
    return key ? ga_printf(&g->arena, "result is sorted%s by %s", dir, key)
               : ga_printf(&g->arena, "result is sorted%s", dir);
}

static void permutation(Gen *g, const GIntent *in, const IPlan *pl, Lines *out)
{
    (void)pl;
    GExp of = top(g, in->ret);
    static const char *const arts[] = {"a", "an"};
    add_line(out, ga_printf(&g->arena, "result is %s permutation of %s", arts[gx(g, 8) == 1],
                            of.s));
    if (gx(g, 4) != 1) {
        const char *o = order_constraint(g, in);
        if (gchance(g, 2))
            add_line(out, o);
        else {
            add_line(out, out->s[out->n - 1]);
            out->s[out->n - 2] = o;
        }
    }
}

/* ---- postconditions ---- */

static bool starts_with_call(const char *s)
{
    const char *p = s;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
           *p == '_')
        p++;
    return p > s && *p == '(';
}

static const char *postcondition(Gen *g, const GIntent *in)
{
    size_t mark = g->n_vars;
    gen_push(g, "result", in->ret);
    g->result_ok = true;
    g->budget = 20 + (int)gx(g, 30);
    GExp e = gchance(g, 2) ? gen_bool_about(g, "result", in->ret, 2) : top_bool(g);
    g->result_ok = false;
    gen_pop(g, mark);
    // `result = E` or `result[i] = E` at the start of a line would define
    if (strncmp(e.s, "result", 6) == 0)
        return ga_printf(&g->arena, "(%s)", e.s);
    // `f(x) = E or b` is read as an equation whose right side is `E or b`
    // (tests/fuzz/found/005-*)
    if ((g->opt->avoid & GEN_KNOWN_POST_CALL_EQ) && starts_with_call(e.s))
        return ga_printf(&g->arena, "(%s)", e.s);
    // `g(xs ++ [1]) = E` in intent g is a defining equation by the language
    // (docs/language.md §4), and its pattern an error: a postcondition that
    // calls its own intent first is an equality only in parentheses
    size_t n = strlen(in->name);
    if (strncmp(e.s, in->name, n) == 0 && e.s[n] == '(')
        return ga_printf(&g->arena, "(%s)", e.s);
    return e.s;
}

/* ---- properties and hints ---- */

static bool mutual(const GType *a, const GType *b)
{
    return gt_assignable(a, b) && gt_assignable(b, a);
}

static void properties(Gen *g, const GIntent *in, GenProgram *p, Lines *out)
{
    static const char *const safe[] = {"pure", "deterministic", "stateless", "parallelizable",
                                       "order_independent", "total"};
    static const char *const comments[] = {"", " (no side effects)", " (a (b) c)", " (why)"};
    size_t n = 1 + gx(g, 3);
    for (size_t k = 0; k < n; k++) {
        const char *c = comments[gx(g, 4)];
        switch (gx(g, 8)) {
        case 1:
            if (in->elementwise) {
                add_line(out, in->eindex[1] && gchance(g, 2)
                                      ? ga_printf(&g->arena, "parallelizable_over(%s, %s)%s",
                                                  in->eindex[1], in->eindex[0], c)
                                      : ga_printf(&g->arena, "parallelizable_over(%s)%s",
                                                  in->eindex[0], c));
                continue;
            }
            break;
        case 2: {
            bool floats = in->ret->k == GT_FLOAT ||
                          ((gt_is_coll(in->ret) || in->ret->k == GT_MATRIX) &&
                           in->ret->elem->k == GT_FLOAT);
            if (floats) {
                static const char *const eps[] = {"1e-12", "0.5", "1e-6", "0.001"};
                add_line(out, ga_printf(&g->arena, "tolerance(%s)%s", eps[gx(g, 4)], c));
                continue;
            }
            break;
        }
        case 3: // laws: Z3 may refute them, which rejects the program
            if (in->n >= 2 && mutual(in->params[0].t, in->params[1].t)) {
                add_line(out, ga_printf(&g->arena, "commutative%s", c));
                p->may_refute = true;
                continue;
            }
            break;
        case 4:
            if (in->n == 2 && mutual(in->params[0].t, in->params[1].t)) {
                bool num = gt_is_num(in->ret) && gt_is_num(in->params[0].t);
                if (gt_assignable(in->ret, in->params[0].t) && gchance(g, 2)) {
                    add_line(out, ga_printf(&g->arena, "associative%s", c));
                    p->may_refute = true;
                    continue;
                }
                if (num) {
                    add_line(out, ga_printf(&g->arena, "distributive%s", c));
                    p->may_refute = true;
                    continue;
                }
            }
            break;
        case 5: {
            bool num = in->n > 0 && gt_is_num(in->ret);
            for (size_t i = 0; i < in->n; i++)
                num &= gt_is_num(in->params[i].t);
            if (num) {
                add_line(out, ga_printf(&g->arena, "monotone%s", c));
                p->may_refute = true;
                continue;
            }
            break;
        }
        default: break;
        }
        add_line(out, ga_printf(&g->arena, "%s%s", safe[gx(g, GEN_LEN(safe))], c));
    }
}

/* Hints never change meaning: wrong ones are warnings (docs/language.md §7). */
static void hints(Gen *g, Lines *out)
{
    static const char *const hs[] = {
        "prefer_blocked_computation (cache_locality)",
        "prefer_parallel",
        "prefer_sequential",
        "prefer_gpu",
        "latency < 100ms",
        "latency <= 2.5 ms",
        "memory < 512MB",
        "memory >= 1GB",
        "optimize_for energy",
        "optimize_for throughput",
        "if GPU_available then prefer_parallel",
        "if multicore then prefer_parallel(3)",
        "if quantum then prefer_gpu",
        "prefer_magic",
        "memory < 5ms",
        "latency < -3ms",
        "42",
        "optimize_for speed",
        "prefer_parallel extra words",
    };
    size_t n = 1 + gx(g, 3);
    for (size_t i = 0; i < n; i++)
        add_line(out, hs[gx(g, GEN_LEN(hs))]);
}

/* ---- one intent ---- */

typedef struct Style {
    const char *ind1, *ind2; /* section and item indentation */
    const char *arrow;
} Style;

static void section(GenBuf *out, const Style *st, const char *name, const Lines *l, Gen *g)
{
    gb_printf(out, "%s%s:\n", st->ind1, name);
    for (size_t i = 0; i < l->n; i++) {
        if (gx(g, 20) == 1)
            gb_printf(out, "%s// a comment line\n", st->ind2);
        if (gx(g, 30) == 1)
            gb_puts(out, "\n");
        gb_printf(out, "%s- %s%s\n", st->ind2, l->s[i], gx(g, 25) == 1 ? "  # trailing" : "");
    }
}

static void write_intent(Gen *g, const GIntent *in, const Lines *cons, const Lines *props,
                         const Lines *hl, GenBuf *out)
{
    static const Style styles[] = {
        {"    ", "        ", "->"},
        {"  ", "    ", "->"},
        {"    ", "      ", "\xe2\x86\x92"},
    };
    const Style *st = &styles[gx(g, 6) == 1 ? 1 + gx(g, 2) : 0];
    gb_printf(out, "intent %s(", in->name);
    for (size_t i = 0; i < in->n; i++)
        gb_printf(out, "%s%s: %s", i ? ", " : "", in->params[i].name, in->params[i].text);
    gb_printf(out, ") %s %s:\n", st->arrow, gt_text(g, in->ret));
    // the sections in any order, once each
    int order[3] = {0, 1, 2};
    if (gx(g, 6) == 1) {
        size_t a = gx(g, 3), b = gx(g, 3);
        int t = order[a];
        order[a] = order[b];
        order[b] = t;
    }
    for (size_t k = 0; k < 3; k++) {
        if (order[k] == 0)
            section(out, st, "constraints", cons, g);
        else if (order[k] == 1 && props->n)
            section(out, st, "properties", props, g);
        else if (order[k] == 2 && hl->n)
            section(out, st, "performance_hints", hl, g);
    }
    if (gchance(g, 3))
        gb_puts(out, "\n");
}

/* Plans the signatures of n user intents (after the prelude). */
size_t gen_plan_intents(Gen *g, size_t n, void *plans_out)
{
    IPlan *plans = plans_out;
    size_t k = 0;
    for (; k < n && g->n_intents < GEN_MAX_GINTENTS; k++) {
        GIntent *in = &g->intents[g->n_intents];
        memset(in, 0, sizeof(*in));
        plan_intent(g, in, &plans[k]);
        g->n_intents++;
    }
    return k;
}

size_t gen_plan_size(void)
{
    return sizeof(IPlan);
}

size_t gen_plan_file(const void *plans, size_t k)
{
    return ((const IPlan *)plans)[k].file;
}

void gen_plan_set_file(void *plans, size_t k, size_t file)
{
    ((IPlan *)plans)[k].file = file;
}

/* The sizes a call must choose values for. */
size_t gen_plan_sizes(const void *plans, size_t k, const char *const **out)
{
    const IPlan *pl = &((const IPlan *)plans)[k];
    *out = pl->sizes;
    return pl->n_sizes;
}

/* Writes the body of user intent k (g->intents[g->n_prelude + k]). */
void gen_write_intent(Gen *g, size_t k, const void *plans, GenProgram *p, GenBuf *out)
{
    const IPlan *pl = &((const IPlan *)plans)[k];
    GIntent *in = &g->intents[g->n_prelude + k];
    // calls in a cycle may pass growing arguments round (tests/fuzz/found/009-*)
    bool cycles = pl->wild && !(g->opt->avoid & GEN_KNOWN_BUDGET_POLL);
    g->callable = cycles ? g->n_intents : g->n_prelude + k;
    open_scope(g, in, pl);
    Lines cons = {0}, props = {0}, hl = {0};
    switch (pl->form) {
    case F_EQS:
    case F_REC: equations(g, in, pl, &cons); break;
    case F_ELEM_LIST:
    case F_ELEM_MATRIX: elementwise(g, in, pl, &cons); break;
    case F_COMP_VAR: comprehension_var(g, in, pl, &cons); break;
    case F_COMP_COLL: comprehension_coll(g, in, pl, &cons); break;
    case F_PERM: permutation(g, in, pl, &cons); break;
    case F_FOREACH: for_each(g, in, pl, &cons); break;
    default: add_line(&cons, ga_printf(&g->arena, "result = %s", top(g, in->ret).s)); break;
    }
    // an order next to equations is a postcondition
    if (gt_is_coll(in->ret) && (pl->form == F_RESULT || pl->form == F_EQS) && gx(g, 6) == 1)
        add_line(&cons, order_constraint(g, in));
    size_t npost = gx(g, 3) == 1 ? 1 + gx(g, 2) : 0;
    for (size_t i = 0; i < npost; i++)
        add_line(&cons, postcondition(g, in));
    if (gchance(g, 2))
        properties(g, in, p, &props);
    if (gx(g, 4) == 1)
        hints(g, &hl);
    write_intent(g, in, &cons, &props, &hl, out);
    g->cur = NULL;
}
