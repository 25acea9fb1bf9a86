/*
 * gen_expr.c: random expressions of a given type (docs/language.md §5).
 *
 * gen_expr(g, T, depth) returns an expression whose checked type is
 * assignable to T, built from the names in scope (g->vars: data sources,
 * size variables, parameters, pattern variables, binders, and `result` in
 * a postcondition), the intents that may be called (g->callable, and the
 * intent itself where recursion is allowed), literals and every operator.
 * Each type has its own list of productions; a production that cannot
 * apply (no variable of the type, no intent returning it) has weight 0.
 * The first production of each list is a leaf, so a depth of 0, an empty
 * budget or exhausted fuzz bytes end the recursion.
 *
 * Precedence: every production states its level (P_*) and wraps its
 * operands to the level the grammar requires, so `-2 ^ 2`, `a - -b`,
 * `not a = b` and `if` inside an operand come out as the parser reads them.
 * `if` and quantifiers run to the end of the expression, so they are
 * wrapped wherever anything could follow them.
 *
 * The checked type of each result (GExp.t) is tracked, because some rules
 * look at the operand actually produced: `/` needs one Float operand, and
 * `x in xs` needs x assignable to xs's element, which `[1, 2]` asked for
 * as a List[Float] makes Natural.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_int.h"

static GExp gen_int(Gen *g, const GType *t, int depth);
static GExp gen_float(Gen *g, int depth);
static GExp gen_bool(Gen *g, int depth);
static GExp gen_string(Gen *g, int depth);
static GExp gen_list(Gen *g, const GType *t, int depth);
static GExp gen_matrix(Gen *g, const GType *t, int depth);
static GExp gen_rec(Gen *g, const GType *t, int depth);
static GExp strict_float(Gen *g, int depth);

/* ---- text ---- */

static GExp ex(Gen *g, int prec, const GType *t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static GExp ex(Gen *g, int prec, const GType *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = ga_alloc(&g->arena, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return (GExp){s, prec, t};
}

const char *gen_wrap(Gen *g, GExp e, int need)
{
    if (e.prec >= need)
        return e.s;
    return ga_printf(&g->arena, "(%s)", e.s);
}

#define W(e, need) gen_wrap(g, (e), (need))

/* An operator, now and then in its Unicode spelling (docs/language.md §1). */
static const char *op(Gen *g, const char *ascii)
{
    static const char *const alias[][2] = {
        {"<=", "\xe2\x89\xa4"}, {">=", "\xe2\x89\xa5"}, {"!=", "\xe2\x89\xa0"},
        {"*", "\xc3\x97"},      {"and", "\xe2\x88\xa7"}, {"or", "\xe2\x88\xa8"},
        {"not", "\xc2\xac"},    {"in", "\xe2\x88\x88"},  {"forall", "\xe2\x88\x80"},
        {"exists", "\xe2\x88\x83"}, {"=", "=="},
    };
    if (!gchance(g, 10))
        return ascii;
    for (size_t i = 0; i < GEN_LEN(alias); i++)
        if (strcmp(alias[i][0], ascii) == 0)
            return alias[i][1];
    return ascii;
}

/* The separator between items inside brackets: a line break now and then
 * (implicit line joining), deeper than any item line. */
static const char *sep(Gen *g)
{
    if (g->newlines && !g->in_expr && gx(g, 25) == 1)
        return gchance(g, 3) ? ", // more\n                " : ",\n                ";
    return ", ";
}

/* ---- scope ---- */

void gen_push(Gen *g, const char *name, const GType *t)
{
    if (g->n_vars < GEN_MAX_VARS)
        g->vars[g->n_vars++] = (GVar){name, t};
}

void gen_pop(Gen *g, size_t mark)
{
    g->n_vars = mark;
}

/* Is vars[i] hidden by a later variable of the same name? */
static bool shadowed(const Gen *g, size_t i)
{
    for (size_t j = i + 1; j < g->n_vars; j++)
        if (strcmp(g->vars[j].name, g->vars[i].name) == 0)
            return true;
    return false;
}

const GType *gen_lookup(Gen *g, const char *name)
{
    for (size_t i = g->n_vars; i-- > 0;)
        if (strcmp(g->vars[i].name, name) == 0)
            return g->vars[i].t;
    return NULL;
}

bool gen_name_taken(Gen *g, const char *name)
{
    if (gen_lookup(g, name))
        return true;
    for (size_t i = 0; i < g->n_intents; i++)
        if (strcmp(g->intents[i].name, name) == 0)
            return true;
    return g->self_name && strcmp(g->self_name, name) == 0;
}

/* A visible variable whose type goes where t is wanted, or NULL. */
static const GVar *pick_var(Gen *g, const GType *t)
{
    const GVar *c[GEN_MAX_VARS];
    size_t n = 0;
    for (size_t i = 0; i < g->n_vars; i++)
        if (!shadowed(g, i) && gt_assignable(g->vars[i].t, t) && g->vars[i].t->k != GT_ANY)
            c[n++] = &g->vars[i];
    return n ? c[gx(g, (uint32_t)n)] : NULL;
}

/* A visible variable for which ok() holds, or NULL. */
static const GVar *pick_var_if(Gen *g, bool (*ok)(const GType *))
{
    const GVar *c[GEN_MAX_VARS];
    size_t n = 0;
    for (size_t i = 0; i < g->n_vars; i++)
        if (!shadowed(g, i) && ok(g->vars[i].t))
            c[n++] = &g->vars[i];
    return n ? c[gx(g, (uint32_t)n)] : NULL;
}

static bool is_list_type(const GType *t)
{
    return t->k == GT_LIST || t->k == GT_STREAM;
}

/* A binder's name: fresh, or now and then one that hides a name in scope
 * (the checker and the lowering must agree on which one is meant). */
static const char *binder_name(Gen *g, const char *stem)
{
    if (g->n_vars && gx(g, 30) == 1) {
        const GVar *v = &g->vars[gx(g, (uint32_t)g->n_vars)];
        if (strcmp(v->name, "result") != 0)
            return v->name;
    }
    return gfresh(g, stem);
}

/* ---- leaves ---- */

static GExp int_lit(Gen *g, const GType *t, bool small)
{
    const char *s = gen_int_literal(g, t->k == GT_NAT, small);
    if (t->k == GT_INT && gchance(g, 4))
        return ex(g, P_UNARY, &gt_int, "-%s", s);
    return ex(g, P_POST, &gt_nat, "%s", s);
}

static GExp leaf(Gen *g, const GType *t, int depth)
{
    switch (t->k) {
    case GT_NAT:
    case GT_INT: return int_lit(g, t, true);
    case GT_FLOAT: return ex(g, P_POST, &gt_float, "%s", gen_float_literal(g));
    case GT_BOOL: return ex(g, P_POST, &gt_bool, "%s", gchance(g, 2) ? "true" : "false");
    case GT_STRING: return ex(g, P_POST, &gt_string, "%s", gen_string_literal(g));
    case GT_LIST:
    case GT_STREAM:
        if (depth > 0 && gchance(g, 2)) {
            GExp e = leaf(g, t->elem, depth - 1);
            return ex(g, P_POST, gt_list(g, e.t), "[%s]", e.s);
        }
        return ex(g, P_POST, gt_list(g, &gt_any), "[]");
    case GT_MATRIX: {
        GExp e = leaf(g, t->elem, 0);
        return ex(g, P_POST, gt_list(g, gt_list(g, e.t)), "[[%s]]", e.s);
    }
    case GT_RECORD: {
        const GRecord *r = &g->recs[t->rec];
        GenBuf b = {0};
        gb_puts(&b, "{");
        size_t start = gx(g, r->n ? (uint32_t)r->n : 1);
        for (size_t i = 0; i < r->n; i++) {
            size_t f = (start + i) % r->n;
            gb_printf(&b, "%s%s: %s", i ? ", " : "", r->fields[f],
                      leaf(g, r->types[f], depth - 1).s);
        }
        gb_puts(&b, "}");
        char *s = gb_take(&b);
        GExp e = ex(g, P_POST, t, "%s", s);
        free(s);
        return e;
    }
    default: return ex(g, P_POST, &gt_nat, "0");
    }
}

/* ---- productions shared by every type ---- */

/* A product, a power or a join of two results of the recursion doubles
 * their size at each level, and the budgets, read every 2^16 steps, come
 * far too late (tests/fuzz/found/009-*): while that stands, the second
 * operand of such an operator makes no call of the intent itself: between
 * tame_on() and `g->no_self -= on`. */
static int tame_on(Gen *g)
{
    int on = (g->opt->avoid & GEN_KNOWN_BUDGET_POLL) != 0;
    g->no_self += on;
    return on;
}

/* t with the element of `[]` inside it made Int: something to generate
 * for (nothing is generated *for* the element of `[]`). */
static const GType *without_any(Gen *g, const GType *t)
{
    switch (t->k) {
    case GT_ANY: return &gt_int;
    case GT_LIST:
    case GT_STREAM: return gt_list(g, without_any(g, t->elem));
    default: return t;
    }
}

/* The element type of a list expression as the checker sees it (the
 * element of `[]` included), or fallback when l is no list. */
static const GType *elem_of(const GExp *l, const GType *fallback)
{
    if (l->t->k == GT_LIST || l->t->k == GT_STREAM)
        return l->t->elem;
    if (l->t->k == GT_ANY)
        return &gt_any;
    return fallback;
}

static GExp var_ref(Gen *g, const GVar *v)
{
    return ex(g, P_POST, v->t, "%s", v->name);
}

/* May the intent recurse here on its decreasing parameter? Not where a
 * binder hides its name. */
static bool dec_visible(Gen *g)
{
    const GType *t = g->recurse && g->dec_name ? gen_lookup(g, g->dec_name) : NULL;
    return t && t->k == GT_NAT;
}

/* Intents whose result goes where t is wanted: the callable ones and, where
 * recursion is allowed, the intent itself. Returns how many, in out. */
static size_t callees(Gen *g, const GType *t, const GIntent **out)
{
    size_t n = 0;
    for (size_t i = 0; i < g->callable && i < g->n_intents; i++)
        if (!g->intents[i].hidden && gt_assignable(g->intents[i].ret, t) &&
            g->intents[i].ret->k != GT_ANY)
            out[n++] = &g->intents[i];
    if (g->cur && !g->no_self && (dec_visible(g) || g->wild_recursion) &&
        gt_assignable(g->cur->ret, t))
        out[n++] = g->cur;
    return n;
}

/* The argument for a self-call's decreasing parameter. */
static GExp decreasing_arg(Gen *g, int depth)
{
    if (!dec_visible(g) || (g->wild_recursion && gchance(g, 2))) {
        // need not decrease: a budget stops it, unless the argument grows
        // fast (`n + n`): then the budgets, read every 2^16 steps, come too
        // late (tests/fuzz/found/009-*)
        if ((g->opt->avoid & GEN_KNOWN_BUDGET_POLL) && dec_visible(g))
            return ex(g, P_ADD, &gt_nat, "%s + %u", g->dec_name, gx(g, 2));
        if (g->opt->avoid & GEN_KNOWN_BUDGET_POLL)
            return ex(g, P_POST, &gt_nat, "%u", gx(g, 5));
        return gen_expr(g, &gt_nat, depth);
    }
    switch (gx(g, 4)) {
    case 1: return ex(g, P_MUL, &gt_nat, "%s div 2", g->dec_name);
    case 2: return ex(g, P_ADD, &gt_int, "%s - 1", g->dec_name);
    case 3:
        return ex(g, P_POST, &gt_int, "max(0, %s - %u)", g->dec_name, 1 + gx(g, 3));
    default: return ex(g, P_ADD, &gt_int, "%s - 1", g->dec_name);
    }
}

static GExp call(Gen *g, const GIntent *in, int depth)
{
    bool self = in == g->cur;
    // arguments that grow at each recursive call outrun the budgets
    // (tests/fuzz/found/009-*): pass the others on as they came
    bool pass_on = self && (g->opt->avoid & GEN_KNOWN_BUDGET_POLL);
    GenBuf b = {0};
    gb_printf(&b, "%s(", self ? g->self_name : in->name);
    for (size_t i = 0; i < in->n; i++) {
        GExp a = self && (int)i == g->dec_param ? decreasing_arg(g, depth)
                 : pass_on && g->eq_names[i] && gen_lookup(g, g->eq_names[i]) &&
                           gt_same(gen_lookup(g, g->eq_names[i]), in->params[i].t)
                     ? ex(g, P_POST, in->params[i].t, "%s", g->eq_names[i])
                 : pass_on                   ? leaf(g, in->params[i].t, 1)
                                             : gen_expr(g, in->params[i].t, depth);
        gb_printf(&b, "%s%s", i ? sep(g) : "", a.s);
    }
    gb_puts(&b, ")");
    char *s = gb_take(&b);
    GExp e = ex(g, P_POST, in->ret, "%s", s);
    free(s);
    return e;
}

static GExp call_of(Gen *g, const GType *t, int depth)
{
    const GIntent *c[GEN_MAX_GINTENTS + 1];
    size_t n = callees(g, t, c);
    if (!n)
        return leaf(g, t, depth);
    return call(g, c[gx(g, (uint32_t)n)], depth - 1);
}

static GExp if_of(Gen *g, const GType *t, int depth)
{
    GExp c = gen_bool(g, depth - 1);
    GExp a = gen_expr(g, t, depth - 1), b = gen_expr(g, t, depth - 1);
    const GType *j = gt_join(g, a.t, b.t);
    if (!j) { // an Int matrix and a list of Float rows both go where a Float matrix does
        b = a;
        j = a.t;
    }
    return ex(g, P_IF, j, "if %s then %s else %s", c.s, a.s, b.s);
}

/* Small integers, for range bounds, exponents and indices, so that loops
 * stay short where the program means them to. */
static GExp small_int(Gen *g, int depth)
{
    switch (gx(g, 6)) {
    case 1: {
        const GVar *v = pick_var(g, &gt_nat);
        // an argument may be huge, and a range of it is built whole
        // (tests/fuzz/found/011-*)
        bool bare = !(g->opt->avoid & GEN_KNOWN_RANGE_BUDGET) && gchance(g, 2);
        if (v && v->t->k == GT_NAT)
            return bare ? var_ref(g, v)
                        : ex(g, P_POST, &gt_nat, "min(%s, %u)", v->name, 3 + gx(g, 12));
        break;
    }
    case 2: {
        const GVar *v = pick_var_if(g, is_list_type);
        if (v)
            return ex(g, P_POST, &gt_nat, "len(%s)", v->name);
        break;
    }
    case 3:
        if (depth > 0) {
            GExp e = gen_int(g, &gt_nat, depth - 1);
            return ex(g, P_MUL, &gt_nat, "%s mod %u", W(e, P_MUL), 2 + gx(g, 9));
        }
        break;
    default: break;
    }
    return ex(g, P_POST, &gt_nat, "%u", gx(g, gchance(g, 4) ? 30 : 8));
}

/* Indexing into a list of t: a variable and an index kept in range, or a
 * literal list, or anything (an index error is a fine run-time error). */
static GExp index_of(Gen *g, const GType *t, int depth)
{
    const GType *lt = gt_list(g, t);
    const GVar *v = pick_var(g, lt);
    if (v && v->t->k != GT_MATRIX && gchance(g, 2)) {
        GExp i = small_int(g, depth - 1);
        if (gchance(g, 2))
            return ex(g, P_POST, v->t->elem, "%s[%s mod max(1, len(%s))]", v->name,
                      W(i, P_MUL), v->name);
        return ex(g, P_POST, v->t->elem, "%s[%s]", v->name, i.s);
    }
    // a matrix of numbers indexed by a row and a column
    if (gt_is_num(t)) {
        for (size_t k = 0; k < g->n_vars; k++) {
            const GVar *m = &g->vars[k];
            if (m->t->k == GT_MATRIX && !shadowed(g, k) && gt_assignable(m->t->elem, t) &&
                gchance(g, 2)) {
                GExp i = small_int(g, depth - 1), j = small_int(g, depth - 1);
                return ex(g, P_POST, m->t->elem, "%s[%s, %s]", m->name, i.s, j.s);
            }
        }
    }
    GExp base = gen_list(g, lt, depth - 1);
    GExp i = small_int(g, depth - 1);
    const GType *et = elem_of(&base, t);
    return ex(g, P_POST, et, "%s[%s]", W(base, P_POST), i.s);
}

/* A field of a record, of a type that goes where t is wanted. */
static GExp field_of(Gen *g, const GType *t, int depth)
{
    int rc[GEN_MAX_RECS * GEN_MAX_FIELDS], fc[GEN_MAX_RECS * GEN_MAX_FIELDS];
    size_t n = 0;
    for (size_t r = 0; r < g->n_recs; r++)
        for (size_t f = 0; f < g->recs[r].n; f++)
            if (gt_assignable(g->recs[r].types[f], t)) {
                rc[n] = (int)r;
                fc[n++] = (int)f;
            }
    if (!n)
        return leaf(g, t, depth);
    size_t k = gx(g, (uint32_t)n);
    const GRecord *r = &g->recs[rc[k]];
    GExp base = gen_rec(g, gt_record(g, rc[k]), depth - 1);
    return ex(g, P_POST, base.t->k == GT_ANY ? &gt_any : r->types[fc[k]], "%s.%s",
              W(base, P_POST), r->fields[fc[k]]);
}

/* ---- records in scope: fields, folds, updates ---- */

/* A field of a record in scope: the variable, the field, and a field of
 * that field (-1: none) when the field is itself a record. */
typedef struct FieldRef {
    const GVar *v;
    int f, h;
    bool list; /* v is a list of records: `v[i].f` */
} FieldRef;

#define MAX_FIELD_REFS 64

static const GRecord *rec_of(Gen *g, const GType *t)
{
    return t && t->k == GT_RECORD ? &g->recs[t->rec] : NULL;
}

/* The fields of record r (and of its record fields) whose type goes where
 * t is wanted, appended to out for variable v. */
static size_t fields_for(Gen *g, const GVar *v, bool list, const GRecord *r, const GType *t,
                         FieldRef *out, size_t n)
{
    for (size_t f = 0; f < r->n && n < MAX_FIELD_REFS; f++) {
        const GType *ft = r->types[f];
        if (gt_assignable(ft, t) && ft->k != GT_ANY)
            out[n++] = (FieldRef){v, (int)f, -1, list};
        const GRecord *sub = rec_of(g, ft);
        for (size_t h = 0; sub && h < sub->n && n < MAX_FIELD_REFS; h++)
            if (gt_assignable(sub->types[h], t) && sub->types[h]->k != GT_ANY)
                out[n++] = (FieldRef){v, (int)f, (int)h, list};
    }
    return n;
}

/* Every field read of a variable in scope (a record, or a list of them)
 * whose type goes where t is wanted. */
static size_t field_refs(Gen *g, const GType *t, FieldRef *out)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n_vars; i++) {
        const GVar *v = &g->vars[i];
        if (shadowed(g, i))
            continue;
        if (v->t->k == GT_RECORD)
            n = fields_for(g, v, false, &g->recs[v->t->rec], t, out, n);
        else if (is_list_type(v->t) && v->t->elem->k == GT_RECORD)
            n = fields_for(g, v, true, &g->recs[v->t->elem->rec], t, out, n);
    }
    return n;
}

/* The text of a field read on base (a record expression at P_POST). */
static GExp field_text(Gen *g, const char *base, const GRecord *r, int f, int h)
{
    const GType *ft = r->types[f];
    if (h < 0)
        return ex(g, P_POST, ft, "%s.%s", base, r->fields[f]);
    const GRecord *sub = &g->recs[ft->rec];
    return ex(g, P_POST, sub->types[h], "%s.%s.%s", base, r->fields[f], sub->fields[h]);
}

/* `r.f`, `r.p.f` or `rs[i].f` of a variable in scope, of a type that goes
 * where t is wanted; a leaf when there is none. */
static GExp field_var(Gen *g, const GType *t, int depth)
{
    FieldRef c[MAX_FIELD_REFS];
    size_t n = field_refs(g, t, c);
    if (!n)
        return leaf(g, t, depth);
    const FieldRef *k = &c[gx(g, (uint32_t)n)];
    const GRecord *r;
    const char *base = k->v->name;
    if (k->list) {
        r = &g->recs[k->v->t->elem->rec];
        GExp i = small_int(g, depth - 1);
        base = ga_printf(&g->arena, "%s[%s mod max(1, len(%s))]", k->v->name, W(i, P_MUL),
                         k->v->name);
    } else {
        r = &g->recs[k->v->t->rec];
    }
    return field_text(g, base, r, k->f, k->h);
}

/* Is there a field read of the type in scope (of a list of records: list)? */
static bool have_field(Gen *g, const GType *t, bool list)
{
    FieldRef c[MAX_FIELD_REFS];
    size_t n = field_refs(g, t, c);
    for (size_t i = 0; i < n; i++)
        if (c[i].list || !list)
            return true;
    return false;
}

/* A list of records in scope with a field (or a field of a field) that
 * goes where t is wanted: fills *ref; false when there is none. */
static bool pick_rec_list(Gen *g, const GType *t, FieldRef *ref)
{
    FieldRef c[MAX_FIELD_REFS];
    size_t n = field_refs(g, t, c), m = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].list)
            c[m++] = c[i];
    if (!m)
        return false;
    *ref = c[gx(g, (uint32_t)m)];
    return true;
}

/* A fold over a list of records in scope, reading a field of each:
 * `sum(b.x for b in rs)`, `max(b.p.y * 2 for b in rs if b.ok)`,
 * `count(b for b in rs if b.name < "m")`. A leaf when there is no list of
 * records of the kind. */
static GExp rec_fold(Gen *g, const GType *t, int depth)
{
    bool nat = t->k == GT_NAT;
    FieldRef ref;
    const GType *want = t->k == GT_STRING ? &gt_string : gt_is_int(t) ? t : &gt_float;
    if (!pick_rec_list(g, want, &ref))
        return leaf(g, t, depth);
    const GType *et = ref.v->t->elem;
    const GRecord *r = &g->recs[et->rec];
    const char *b = gfresh(g, "b");
    size_t mark = g->n_vars;
    gen_push(g, b, et);
    const char *filter = "";
    if (gchance(g, 2))
        filter = ga_printf(&g->arena, " if %s", gen_bool_about(g, b, et, depth - 1).s);
    GExp x = field_text(g, b, r, ref.f, ref.h);
    if (nat && gchance(g, 3)) { // a count is a Natural whatever the fields
        gen_pop(g, mark);
        return ex(g, P_POST, &gt_nat, "count(%s for %s in %s%s)", b, b, ref.v->name, filter);
    }
    if (t->k != GT_STRING && gchance(g, 2)) { // the field in arithmetic
        GExp e = gen_expr(g, x.t, depth - 1);
        const GType *j = gt_join(g, x.t, e.t);
        x = gchance(g, 2) ? ex(g, P_ADD, j ? j : x.t, "%s + %s", W(x, P_ADD), W(e, P_MUL))
                          : ex(g, P_MUL, j ? j : x.t, "%s * %s", W(x, P_MUL), W(e, P_UNARY));
    }
    gen_pop(g, mark);
    static const char *const aggs[] = {"sum", "min", "max", "sum", "product"};
    const char *agg = t->k == GT_STRING ? (gchance(g, 2) ? "min" : "max") : aggs[gx(g, 5)];
    if (nat && (x.t->k != GT_NAT)) // a sum of Int fields is no Natural
        return ex(g, P_POST, &gt_nat, "count(%s for %s in %s%s)", b, b, ref.v->name, filter);
    return ex(g, P_POST, x.t, "%s(%s for %s in %s%s)", agg, x.s, b, ref.v->name, filter);
}

/* `base with {f: v, ...}`: the record base with one or two fields
 * replaced. */
static GExp with_update(Gen *g, GExp base, int depth)
{
    const GRecord *r = rec_of(g, base.t);
    if (!r || r->n == 0)
        return base;
    size_t n = r->n > 1 && gchance(g, 3) ? 2 : 1, start = gx(g, (uint32_t)r->n);
    GenBuf b = {0};
    gb_printf(&b, "%s with {", W(base, P_POST));
    for (size_t i = 0; i < n; i++) {
        size_t f = (start + i) % r->n;
        GExp v;
        // now and then the field itself, changed: `p with {x: p.x + 1}`
        if (gt_is_num(r->types[f]) && base.prec == P_POST && strchr(base.s, '(') == NULL &&
            gchance(g, 2)) {
            GExp old = ex(g, P_POST, r->types[f], "%s.%s", base.s, r->fields[f]);
            GExp e = gen_expr(g, r->types[f], depth - 1);
            v = ex(g, P_ADD, r->types[f], "%s + %s", W(old, P_ADD), W(e, P_MUL));
        } else if (rec_of(g, r->types[f]) && gchance(g, 2)) { // a nested update
            GExp inner = ex(g, P_POST, r->types[f], "%s.%s", W(base, P_POST), r->fields[f]);
            v = with_update(g, inner, depth - 1);
        } else {
            v = gen_expr(g, r->types[f], depth - 1);
        }
        gb_printf(&b, "%s%s: %s", i ? ", " : "", r->fields[f], v.s);
    }
    gb_puts(&b, "}");
    char *s = gb_take(&b);
    GExp e = ex(g, P_POST, base.t, "%s", s);
    free(s);
    return e;
}

GExp gen_with(Gen *g, GExp base, int depth)
{
    return with_update(g, base, depth);
}

/* ---- the string built-ins (docs/language.md §5) ---- */

/* A separator or a text to search for: mostly one that is not empty. */
static GExp needle(Gen *g, int depth)
{
    static const char *const ns[] = {"\"a\"", "\"l\"", "\" \"", "\", \"", "\"\xc3\xa9\"",
                                     "\"-\"", "\"zz\"", "\"\\n\""};
    if (gx(g, 8) == 1)
        return gen_string(g, depth - 1); // maybe empty: a run-time error for some
    return ex(g, P_POST, &gt_string, "%s", ns[gx(g, GEN_LEN(ns))]);
}

/* A built-in whose result is a String. */
static GExp string_fn(Gen *g, int depth)
{
    switch (gx(g, 6)) {
    case 1: {
        GExp s = gen_string(g, depth - 1), o = needle(g, depth), n = gen_string(g, depth - 1);
        return ex(g, P_POST, &gt_string, "replace(%s, %s, %s)", s.s, o.s, n.s);
    }
    case 2: {
        GExp l = gen_list(g, gt_list(g, &gt_string), depth - 1);
        if (l.t->k == GT_ANY || (l.t->elem && l.t->elem->k != GT_STRING && l.t->elem->k != GT_ANY))
            l = ex(g, P_POST, gt_list(g, &gt_string), "[\"a\"]");
        return ex(g, P_POST, &gt_string, "join(%s, %s)", l.s, needle(g, depth).s);
    }
    case 3: {
        GExp x = gen_expr(g, gt_random(g, 1), depth - 1);
        return ex(g, P_POST, &gt_string, "str(%s)", x.s);
    }
    default: {
        static const char *const fs[] = {"upper", "lower", "trim", "reverse"};
        GExp s = gen_string(g, depth - 1);
        if (s.t->k == GT_ANY) // `reverse(max([]))` is no String to the checker
            s = leaf(g, &gt_string, 0);
        return ex(g, P_POST, &gt_string, "%s(%s)", fs[gx(g, 4)], s.s);
    }
    }
}

/* A built-in on strings whose result is an integer: `find(s, sub)` (Int),
 * `int(str(n))`, `len(split(s))`. */
static GExp string_int(Gen *g, const GType *t, int depth)
{
    bool nat = t->k == GT_NAT;
    switch (nat ? 2 + gx(g, 2) : gx(g, 4)) {
    case 0: {
        GExp s = gen_string(g, depth - 1);
        return ex(g, P_POST, &gt_int, "find(%s, %s)", s.s, needle(g, depth).s);
    }
    case 1: {
        // a number's text read back, or a float truncated (inf and nan: errors)
        if (gchance(g, 2))
            return ex(g, P_POST, &gt_int, "int(str(%s))", gen_int(g, &gt_int, depth - 1).s);
        return ex(g, P_POST, &gt_int, "int(%s)", strict_float(g, depth - 1).s);
    }
    case 2: {
        GExp s = gen_string(g, depth - 1);
        if (gchance(g, 2))
            return ex(g, P_POST, &gt_nat, "len(split(%s, %s))", s.s, needle(g, depth).s);
        return ex(g, P_POST, &gt_nat, "len(split(%s))", s.s);
    }
    default:
        return ex(g, P_POST, &gt_nat, "len(chars(%s))", gen_string(g, depth - 1).s);
    }
}

/* `starts_with(s, p)`, `ends_with(s, p)`, `sub in s`. */
static GExp string_bool(Gen *g, int depth)
{
    GExp s = gen_string(g, depth - 1), p = gchance(g, 2) ? needle(g, depth)
                                                         : gen_string(g, depth - 1);
    switch (gx(g, 3)) {
    case 1: return ex(g, P_POST, &gt_bool, "starts_with(%s, %s)", s.s, p.s);
    case 2: return ex(g, P_POST, &gt_bool, "ends_with(%s, %s)", s.s, p.s);
    default:
        if (s.t->k == GT_ANY || p.t->k == GT_ANY) // `x in max([])`: a list to the checker?
            return ex(g, P_POST, &gt_bool, "starts_with(%s, %s)", s.s, p.s);
        return ex(g, P_CMP, &gt_bool, "%s %s %s", W(p, P_RANGE), op(g, "in"), W(s, P_RANGE));
    }
}

/* A List[String] from a string: `split(s)`, `split(s, sep)`, `chars(s)`. */
static GExp string_list(Gen *g, int depth)
{
    GExp s = gen_string(g, depth - 1);
    switch (gx(g, 3)) {
    case 1: return ex(g, P_POST, gt_list(g, &gt_string), "split(%s, %s)", s.s, needle(g, depth).s);
    case 2: return ex(g, P_POST, gt_list(g, &gt_string), "chars(%s)", s.s);
    default: return ex(g, P_POST, gt_list(g, &gt_string), "split(%s)", s.s);
    }
}

/* A generator's domain: a range or a list. *elem gets its element type. */
static GExp domain(Gen *g, const GType **elem, int depth)
{
    const GVar *v = pick_var_if(g, is_list_type);
    if (v && gchance(g, 2)) {
        *elem = v->t->elem;
        return var_ref(g, v);
    }
    if (gchance(g, 3) && !g->numeric) {
        const GType *et = gt_random(g, 1);
        GExp l = gen_list(g, gt_list(g, et), depth - 1);
        *elem = elem_of(&l, et);
        return ex(g, P_POST, l.t, "%s", W(l, P_RANGE));
    }
    GExp lo = gchance(g, 3) ? small_int(g, depth - 1) : ex(g, P_POST, &gt_nat, "%u", gx(g, 3));
    if (gx(g, 8) == 1) // a negative start: the range is of Int
        lo = ex(g, P_UNARY, &gt_int, "-%u", 1 + gx(g, 4));
    GExp hi = small_int(g, depth - 1);
    *elem = lo.t->k == GT_NAT ? &gt_nat : &gt_int;
    return ex(g, P_RANGE, gt_list(g, *elem), "%s%s%s", W(lo, P_ADD), gchance(g, 3) ? "..=" : "..",
              W(hi, P_ADD));
}

/* `for x in D [for y in E]` (or `, y in E`), binding each name; returns
 * the text and leaves the binders in scope (the caller pops them). */
static const char *binders(Gen *g, int depth, bool several)
{
    GenBuf b = {0};
    size_t n = several ? 1 + gx(g, 3) : 1;
    for (size_t i = 0; i < n; i++) {
        const GType *et = NULL;
        GExp d = domain(g, &et, depth);
        const char *name = binder_name(g, i ? "j" : "k");
        gb_printf(&b, "%s%s %s %s", i == 0 ? "for " : gchance(g, 2) ? " for " : ", ", name,
                  op(g, "in"), W(d, P_RANGE));
        gen_push(g, name, et); // later domains may use it: `for j in 0..=k`
    }
    char *s = gb_take(&b);
    const char *r = ga_strdup(&g->arena, s);
    free(s);
    return r;
}

/* sum/product/min/max/count (BODY for ... [if F]) */
static GExp aggregate(Gen *g, const char *agg, const GType *body_t, const GType *ret, int depth)
{
    size_t mark = g->n_vars;
    bool several = !(g->opt->avoid & GEN_KNOWN_MINMAX_EMPTY) || agg[1] != 'i' || agg[0] == 's';
    const char *bs = binders(g, depth, several && gchance(g, 3));
    const char *filter = "";
    if (gchance(g, 3))
        filter = ga_printf(&g->arena, " if %s", gen_bool(g, depth - 1).s);
    int on = agg[0] == 'p' ? tame_on(g) : 0; // a product
    GExp body = gen_expr(g, body_t, depth - 1);
    g->no_self -= on;
    gen_pop(g, mark);
    const GType *t = ret ? ret : body.t;
    return ex(g, P_POST, t, "%s(%s %s%s)", agg, body.s, bs, filter);
}

/* ---- integers ---- */

static GExp gen_int(Gen *g, const GType *t, int depth)
{
    enum { LEAF, VAR, ADD, SUB, MUL, DIVMOD, POW, NEG, IF, CALL, LEN, COUNT, SUMLIST, MINMAX2,
           AGG, INDEX, FIELD, ABSDIFF, FIELDVAR, RECFOLD, STRFN, N };
    bool nat = t->k == GT_NAT;
    const GVar *v = pick_var(g, t);
    unsigned w[N] = {
        [LEAF] = 3, [VAR] = v ? 6 : 0, [ADD] = 3, [SUB] = nat ? 0 : 2, [MUL] = 2, [DIVMOD] = 2,
        [POW] = 1, [NEG] = nat ? 0 : 1, [IF] = 1, [CALL] = 2, [LEN] = 2, [COUNT] = 1,
        [SUMLIST] = 1, [MINMAX2] = 1, [AGG] = 2, [INDEX] = 1, [FIELD] = g->n_recs ? 1 : 0,
        [ABSDIFF] = nat ? 1 : 0, [FIELDVAR] = have_field(g, t, false) ? 4 : 0,
        [RECFOLD] = have_field(g, t, true) ? 3 : 0, [STRFN] = g->numeric ? 0 : 1,
    };
    if (g->numeric) // min, max and ^ stay interpreted: now and then only
        w[POW] = w[MINMAX2] = w[SUMLIST] = 0;
    if (depth <= 0 || g->budget-- <= 0)
        return v && gchance(g, 2) ? var_ref(g, v) : int_lit(g, t, !gchance(g, 6));
    const GType *rt = nat ? &gt_nat : &gt_int;
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case ADD:
    case MUL: {
        GExp a = gen_int(g, t, depth - 1);
        int on = tame_on(g);
        GExp b = gen_int(g, t, depth - 1);
        g->no_self -= on;
        bool add = a.s[0] && gchance(g, 2);
        const GType *j = gt_join(g, a.t, b.t);
        if (add || gx(g, 2))
            return ex(g, P_ADD, j, "%s + %s", W(a, P_ADD), W(b, P_MUL));
        return ex(g, P_MUL, j, "%s %s %s", W(a, P_MUL), op(g, "*"), W(b, P_UNARY));
    }
    case SUB: {
        GExp a = gen_int(g, t, depth - 1), b = gen_int(g, t, depth - 1);
        return ex(g, P_ADD, &gt_int, "%s - %s", W(a, P_ADD), W(b, P_MUL));
    }
    case DIVMOD: {
        static const char *const ops[] = {"div", "mod", "%"};
        GExp a = gen_int(g, t, depth - 1);
        GExp b = gchance(g, 3) ? gen_int(g, t, depth - 1)
                               : ex(g, P_POST, &gt_nat, "%u", 1 + gx(g, 9)); // mostly nonzero
        return ex(g, P_MUL, gt_join(g, a.t, b.t), "%s %s %s", W(a, P_MUL), ops[gx(g, 3)],
                  W(b, P_UNARY));
    }
    case POW: {
        int on = tame_on(g);
        GExp a = gen_int(g, t, depth - 1);
        g->no_self -= on;
        // a power of an argument may be huge (tests/fuzz/found/010-*)
        bool tame = g->opt->avoid & GEN_KNOWN_BIG_POWER;
        GExp e = gchance(g, 6) && !tame
                         ? small_int(g, depth - 1)
                         : ex(g, P_POST, &gt_nat, "%u", gx(g, gchance(g, 5) && !tame ? 130 : 6));
        return ex(g, P_POW, a.t, "%s ^ %s", W(a, P_POST), W(e, P_UNARY));
    }
    case NEG: {
        GExp a = gen_int(g, t, depth - 1);
        return ex(g, P_UNARY, &gt_int, "-%s%s", a.s[0] == '-' ? " " : "", W(a, P_UNARY));
    }
    case IF: return if_of(g, t, depth);
    case CALL: return call_of(g, t, depth);
    case LEN:
        if (gchance(g, 3) && !g->numeric)
            return ex(g, P_POST, &gt_nat, "len(%s)", gen_string(g, depth - 1).s);
        return ex(g, P_POST, &gt_nat, "len(%s)",
                  gen_list(g, gt_list(g, gt_random(g, 1)), depth - 1).s);
    case COUNT:
        return ex(g, P_POST, &gt_nat, "count(%s)",
                  gen_list(g, gt_list(g, gt_random(g, 1)), depth - 1).s);
    case SUMLIST: {
        static const char *const fns[] = {"sum", "product", "min", "max"};
        GExp l = gen_list(g, gt_list(g, rt), depth - 1);
        const GType *et = elem_of(&l, rt);
        return ex(g, P_POST, et, "%s(%s)", fns[gx(g, 4)], l.s);
    }
    case MINMAX2: {
        GExp a = gen_int(g, t, depth - 1), b = gen_int(g, t, depth - 1);
        return ex(g, P_POST, gt_join(g, a.t, b.t), "%s(%s, %s)", gchance(g, 2) ? "min" : "max",
                  a.s, b.s);
    }
    case AGG: {
        static const char *const aggs[] = {"sum", "product", "min", "max", "count"};
        const char *agg = aggs[gx(g, 5)];
        if (agg[0] == 'c')
            return aggregate(g, agg, gt_random(g, 1), &gt_nat, depth);
        return aggregate(g, agg, rt, NULL, depth);
    }
    case INDEX: return index_of(g, t, depth);
    case FIELD: return field_of(g, t, depth);
    case ABSDIFF: {
        GExp a = gen_int(g, &gt_int, depth - 1), b = gen_int(g, &gt_int, depth - 1);
        if (!gen_prelude_visible(g, "abs"))
            return ex(g, P_ADD, &gt_int, "%s - %s", W(a, P_ADD), W(b, P_MUL));
        return ex(g, P_POST, &gt_nat, "abs(%s - %s)", W(a, P_ADD), W(b, P_MUL));
    }
    case FIELDVAR: return field_var(g, t, depth);
    case RECFOLD: return rec_fold(g, t, depth);
    case STRFN: return string_int(g, t, depth);
    default: return int_lit(g, t, !gchance(g, 4));
    }
}

/* ---- floats ---- */

/* An expression whose checked type is Float itself, not an integer. */
static GExp strict_float(Gen *g, int depth)
{
    for (int tries = 0; tries < 3; tries++) {
        GExp e = gen_float(g, depth);
        if (e.t->k == GT_FLOAT)
            return e;
    }
    return ex(g, P_POST, &gt_float, "%s", gen_float_literal(g));
}

static GExp gen_float(Gen *g, int depth)
{
    enum { LEAF, VAR, INT, ARITH, DIV, POW, NEG, IF, CALL, SUMLIST, AGG, INDEX, FIELD, MINMAX2,
           FIELDVAR, RECFOLD, STRFN, N };
    const GVar *v = pick_var(g, &gt_float);
    unsigned w[N] = {
        [LEAF] = 3, [VAR] = v ? 5 : 0, [INT] = 2, [ARITH] = 3, [DIV] = 2, [POW] = 1, [NEG] = 1,
        [IF] = 1, [CALL] = 1, [SUMLIST] = 1, [AGG] = 1, [INDEX] = 1, [FIELD] = g->n_recs ? 1 : 0,
        [MINMAX2] = 1, [FIELDVAR] = have_field(g, &gt_float, false) ? 4 : 0,
        [RECFOLD] = have_field(g, &gt_float, true) ? 3 : 0, [STRFN] = g->numeric ? 0 : 1,
    };
    if (depth <= 0 || g->budget-- <= 0)
        return v && gchance(g, 2) ? var_ref(g, v) : leaf(g, &gt_float, 0);
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case INT: return gen_int(g, gchance(g, 2) ? &gt_nat : &gt_int, depth - 1);
    case ARITH: {
        static const char *const ops[] = {"+", "-", "*"};
        int k = (int)gx(g, 3);
        GExp a = gen_float(g, depth - 1);
        int on = tame_on(g);
        GExp b = gen_float(g, depth - 1);
        g->no_self -= on;
        const GType *j = gt_join(g, a.t, b.t);
        if (k == 1 && gt_is_int(j))
            j = &gt_int;
        if (k == 2)
            return ex(g, P_MUL, j, "%s %s %s", W(a, P_MUL), op(g, "*"), W(b, P_UNARY));
        return ex(g, P_ADD, j, "%s %s %s", W(a, P_ADD), ops[k], W(b, P_MUL));
    }
    case DIV: {
        // `/` needs a Float operand: one side is made strictly Float
        GExp a = gen_float(g, depth - 1), b = gen_float(g, depth - 1);
        if (a.t->k != GT_FLOAT && b.t->k != GT_FLOAT && a.t->k != GT_ANY && b.t->k != GT_ANY) {
            if (gchance(g, 2))
                a = strict_float(g, depth - 1);
            else
                b = strict_float(g, depth - 1);
        }
        return ex(g, P_MUL, &gt_float, "%s / %s", W(a, P_MUL), W(b, P_UNARY));
    }
    case POW: {
        int on = tame_on(g);
        GExp a = strict_float(g, depth - 1);
        g->no_self -= on;
        GExp e = gchance(g, 3) ? strict_float(g, depth - 1)
                               : ex(g, P_POST, &gt_nat, "%u", gx(g, 5));
        return ex(g, P_POW, &gt_float, "%s ^ %s", W(a, P_POST), W(e, P_UNARY));
    }
    case NEG: {
        GExp a = gen_float(g, depth - 1);
        return ex(g, P_UNARY, a.t->k == GT_FLOAT ? &gt_float : &gt_int, "-%s%s",
                  a.s[0] == '-' ? " " : "", W(a, P_UNARY));
    }
    case IF: return if_of(g, &gt_float, depth);
    case CALL: return call_of(g, &gt_float, depth);
    case SUMLIST: {
        static const char *const fns[] = {"sum", "product", "min", "max"};
        GExp l = gen_list(g, gt_list(g, &gt_float), depth - 1);
        const GType *et = elem_of(&l, &gt_float);
        return ex(g, P_POST, et, "%s(%s)", fns[gx(g, 4)], l.s);
    }
    case AGG: {
        static const char *const aggs[] = {"sum", "product", "min", "max"};
        return aggregate(g, aggs[gx(g, 4)], &gt_float, NULL, depth);
    }
    case INDEX: return index_of(g, &gt_float, depth);
    case FIELD: return field_of(g, &gt_float, depth);
    case MINMAX2: {
        GExp a = gen_float(g, depth - 1), b = gen_float(g, depth - 1);
        return ex(g, P_POST, gt_join(g, a.t, b.t), "%s(%s, %s)", gchance(g, 2) ? "min" : "max",
                  a.s, b.s);
    }
    case FIELDVAR: return field_var(g, &gt_float, depth);
    case RECFOLD: return rec_fold(g, &gt_float, depth);
    case STRFN: {
        // a number's text read back (a string's: an error unless it is one)
        if (gchance(g, 3))
            return ex(g, P_POST, &gt_float, "float(%s)", gen_string(g, depth - 1).s);
        return ex(g, P_POST, &gt_float, "float(str(%s))", gen_float(g, depth - 1).s);
    }
    default: return leaf(g, &gt_float, 0);
    }
}

/* ---- booleans ---- */

static const char *const cmp_ops[] = {"<", "<=", ">", ">=", "=", "!="};

/* Does text s name `name` as an identifier (outside strings)? */
static bool mentions_name(const char *s, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = s; *p;) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
            continue;
        }
        bool start =
                (p == s || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                             (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9')));
        char after = p[n];
        if (start && strncmp(p, name, n) == 0 &&
            !(after == '_' || (after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') ||
              (after >= '0' && after <= '9')))
            return true;
        p++;
    }
    return false;
}

/* Avoiding GEN_KNOWN_COMP_EQ_VAR: in a comprehension's condition, an
 * operand of `=` or `in` that is the bare variable, next to one that
 * mentions it, becomes a literal. */
static void steer_clear(Gen *g, const char **s, size_t n, const GType *t)
{
    if (!g->comp_var)
        return;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(s[i], g->comp_var) != 0)
            continue;
        for (size_t j = 0; j < n; j++)
            if (j != i && mentions_name(s[j], g->comp_var))
                s[i] = W(leaf(g, t, 0), P_RANGE);
    }
}

/* A chain of comparisons of numbers or strings: `a < b <= c`. */
static GExp comparison(Gen *g, int depth)
{
    static const unsigned w[] = {4, 3, 1, 2};
    static const GType *const ts[] = {&gt_int, &gt_nat, &gt_string, &gt_float};
    const GType *t = ts[gpickw(g, w, 4)];
    size_t n = gchance(g, 5) ? 3 + gx(g, 2) : 2;
    const char *s[4];
    for (size_t i = 0; i < n; i++)
        s[i] = W(gen_expr(g, t, depth - 1), P_RANGE);
    steer_clear(g, s, n, t);
    GenBuf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            gb_printf(&b, " %s ", op(g, cmp_ops[gx(g, 6)]));
        gb_puts(&b, s[i]);
    }
    char *text = gb_take(&b);
    GExp e = ex(g, P_CMP, &gt_bool, "%s", text);
    free(text);
    return e;
}

/* `a = b` or `a != b` of any one type. */
static GExp equality(Gen *g, int depth)
{
    const GType *t = gt_random(g, 1);
    const char *s[2] = {W(gen_expr(g, t, depth - 1), P_RANGE),
                        W(gen_expr(g, t, depth - 1), P_RANGE)};
    steer_clear(g, s, 2, t);
    return ex(g, P_CMP, &gt_bool, "%s %s %s", s[0], op(g, gchance(g, 2) ? "=" : "!="), s[1]);
}

/* `x in xs` or `x in a..b` */
static GExp membership(Gen *g, int depth)
{
    if (gchance(g, 2) || g->numeric) {
        GExp x = gen_int(g, &gt_int, depth - 1);
        GExp lo = small_int(g, depth - 1), hi = small_int(g, depth - 1);
        const char *r = ga_printf(&g->arena, "%s%s%s", W(lo, P_ADD), gchance(g, 2) ? ".." : "..=",
                                  W(hi, P_ADD));
        const char *s[2] = {W(x, P_RANGE), r};
        steer_clear(g, s, 2, &gt_int);
        return ex(g, P_CMP, &gt_bool, "%s %s %s", s[0], op(g, "in"), s[1]);
    }
    const GType *et = gt_random(g, 1);
    GExp l = gen_list(g, gt_list(g, et), depth - 1);
    const GType *lt = elem_of(&l, et);
    lt = lt->k == GT_ANY ? et : without_any(g, lt);
    GExp x = gen_expr(g, lt, depth - 1);
    // `v in xs` bounds a comprehension's v by xs, and v takes xs's element
    // type: over integers, keep xs a list of integers
    if (g->comp_int && strcmp(x.s, g->comp_int) == 0 && !gt_is_int(elem_of(&l, &gt_int)))
        l = ex(g, P_POST, gt_list(g, &gt_int), "[%u, %u]", gx(g, 5), gx(g, 5));
    const char *s[2] = {W(x, P_RANGE), W(l, P_RANGE)};
    steer_clear(g, s, 2, lt);
    return ex(g, P_CMP, &gt_bool, "%s %s %s", s[0], op(g, "in"), s[1]);
}

static GExp quantifier(Gen *g, int depth)
{
    size_t mark = g->n_vars;
    size_t n = gchance(g, 4) ? 2 : 1;
    GenBuf b = {0};
    gb_printf(&b, "%s ", op(g, gchance(g, 2) ? "forall" : "exists"));
    for (size_t i = 0; i < n; i++) {
        const GType *et = NULL;
        GExp d = domain(g, &et, depth);
        const char *name = binder_name(g, "q");
        gb_printf(&b, "%s%s %s %s", i ? ", " : "", name, op(g, "in"), W(d, P_RANGE));
        gen_push(g, name, et);
    }
    GExp body = gen_bool(g, depth - 1);
    gen_pop(g, mark);
    gb_printf(&b, ": %s", body.s);
    char *s = gb_take(&b);
    GExp e = ex(g, P_IF, &gt_bool, "%s", s);
    free(s);
    return e;
}

static GExp gen_bool(Gen *g, int depth)
{
    enum { LEAF, VAR, CMP, EQ, AND, OR, NOT, IN, QUANT, CALL, IF, INDEX, FIELD, FIELDVAR, STRFN,
           N };
    const GVar *v = pick_var(g, &gt_bool);
    unsigned w[N] = {
        [LEAF] = 1, [VAR] = v ? 4 : 0, [CMP] = 6, [EQ] = 2, [AND] = 2, [OR] = 2, [NOT] = 1,
        [IN] = 2, [QUANT] = 2, [CALL] = 3, [IF] = 1, [INDEX] = 1, [FIELD] = g->n_recs ? 1 : 0,
        [FIELDVAR] = have_field(g, &gt_bool, false) ? 2 : 0, [STRFN] = g->numeric ? 0 : 1,
    };
    if (depth <= 0 || g->budget-- <= 0)
        return v && gchance(g, 2) ? var_ref(g, v) : leaf(g, &gt_bool, 0);
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case CMP: return comparison(g, depth);
    case EQ: return equality(g, depth);
    case AND: {
        GExp a = gen_bool(g, depth - 1), b = gen_bool(g, depth - 1);
        return ex(g, P_AND, &gt_bool, "%s %s %s", W(a, P_AND), op(g, "and"), W(b, P_NOT));
    }
    case OR: {
        GExp a = gen_bool(g, depth - 1), b = gen_bool(g, depth - 1);
        return ex(g, P_OR, &gt_bool, "%s %s %s", W(a, P_OR), op(g, "or"), W(b, P_AND));
    }
    case NOT: {
        GExp a = gen_bool(g, depth - 1);
        const char *o = op(g, "not");
        return ex(g, P_NOT, &gt_bool, "%s%s%s", o, o[0] == 'n' ? " " : "", W(a, P_NOT));
    }
    case IN: return membership(g, depth);
    case QUANT: return quantifier(g, depth);
    case CALL: return call_of(g, &gt_bool, depth);
    case IF: return if_of(g, &gt_bool, depth);
    case INDEX: return index_of(g, &gt_bool, depth);
    case FIELD: return field_of(g, &gt_bool, depth);
    case FIELDVAR: return field_var(g, &gt_bool, depth);
    case STRFN: return string_bool(g, depth);
    default: return leaf(g, &gt_bool, 0);
    }
}

/* ---- strings ---- */

static GExp gen_string(Gen *g, int depth)
{
    enum { LEAF, VAR, CONCAT, IF, CALL, INDEX, FIELD, MINMAX2, MINLIST, AGG, STRFN, FIELDVAR,
           RECFOLD, N };
    const GVar *v = pick_var(g, &gt_string);
    unsigned w[N] = {
        [LEAF] = 3, [VAR] = v ? 5 : 0, [CONCAT] = 3, [IF] = 1, [CALL] = 1, [INDEX] = 1,
        [FIELD] = g->n_recs ? 1 : 0, [MINMAX2] = 1, [MINLIST] = 1, [AGG] = 1, [STRFN] = 3,
        [FIELDVAR] = have_field(g, &gt_string, false) ? 3 : 0,
        [RECFOLD] = have_field(g, &gt_string, true) ? 1 : 0,
    };
    if (depth <= 0 || g->budget-- <= 0)
        return v && gchance(g, 2) ? var_ref(g, v) : leaf(g, &gt_string, 0);
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case CONCAT: {
        GExp a = gen_string(g, depth - 1);
        int on = tame_on(g);
        GExp b = gen_string(g, depth - 1);
        g->no_self -= on;
        // the element of `[]` next to a string (tests/fuzz/found/006-*)
        if ((g->opt->avoid & GEN_KNOWN_ANY_CONCAT) && a.t->k == GT_ANY)
            a = leaf(g, &gt_string, 0);
        if ((g->opt->avoid & GEN_KNOWN_ANY_CONCAT) && b.t->k == GT_ANY)
            b = leaf(g, &gt_string, 0);
        return ex(g, P_ADD, &gt_string, "%s ++ %s", W(a, P_ADD), W(b, P_MUL));
    }
    case IF: return if_of(g, &gt_string, depth);
    case CALL: return call_of(g, &gt_string, depth);
    case INDEX: return index_of(g, &gt_string, depth);
    case FIELD: return field_of(g, &gt_string, depth);
    case MINMAX2: {
        GExp a = gen_string(g, depth - 1), b = gen_string(g, depth - 1);
        const GType *j = gt_join(g, a.t, b.t);
        return ex(g, P_POST, j ? j : &gt_string, "%s(%s, %s)", gchance(g, 2) ? "min" : "max", a.s,
                  b.s);
    }
    case MINLIST: {
        GExp l = gen_list(g, gt_list(g, &gt_string), depth - 1);
        return ex(g, P_POST, elem_of(&l, &gt_string), "%s(%s)", gchance(g, 2) ? "min" : "max",
                  l.s);
    }
    case AGG: return aggregate(g, gchance(g, 2) ? "min" : "max", &gt_string, NULL, depth);
    case STRFN: return string_fn(g, depth);
    case FIELDVAR: return field_var(g, &gt_string, depth);
    case RECFOLD: return rec_fold(g, &gt_string, depth);
    default: return leaf(g, &gt_string, 0);
    }
}

/* ---- lists ---- */

static GExp list_literal(Gen *g, const GType *t, int depth)
{
    size_t n = gchance(g, 5) ? 0 : 1 + gx(g, gchance(g, 6) ? 8 : 3);
    GenBuf b = {0};
    const GType *et = &gt_any;
    gb_puts(&b, "[");
    for (size_t i = 0; i < n; i++) {
        GExp e = gen_expr(g, t->elem, depth - 1);
        const GType *j = gt_join(g, et, e.t);
        et = j ? j : t->elem;
        gb_printf(&b, "%s%s", i ? sep(g) : "", e.s);
    }
    if (n && gx(g, 20) == 1)
        gb_puts(&b, ","); // a trailing comma
    gb_puts(&b, "]");
    char *s = gb_take(&b);
    GExp e = ex(g, P_POST, gt_list(g, et), "%s", s);
    free(s);
    return e;
}

/* `[AGG(x...) for x in XS group by K]`, a list of integers: a count per
 * group, or a sum, min or max of a field of the group's records (or of the
 * integers themselves); K is a field, `x mod k`, or the element itself. */
static GExp group_by(Gen *g, const GType *t, int depth)
{
    const GVar *v = pick_var_if(g, is_list_type);
    const GType *et = v->t->elem;
    const char *x = gfresh(g, "x");
    const char *key = x, *body = ga_printf(&g->arena, "count(%s)", x);
    const GType *bt = &gt_nat;
    const GRecord *r = rec_of(g, et);
    if (r && r->n) {
        size_t k = gx(g, (uint32_t)r->n);
        key = ga_printf(&g->arena, "%s.%s", x, r->fields[k]);
        for (size_t f = 0; f < r->n; f++) {
            const GType *ft = r->types[f];
            if (gt_is_int(ft) && ft->k != GT_ANY && gt_assignable(ft, t->elem) &&
                gchance(g, 2)) {
                static const char *const aggs[] = {"sum", "min", "max"};
                body = ga_printf(&g->arena, "%s(%s.%s)", aggs[gx(g, 3)], x, r->fields[f]);
                bt = ft;
                break;
            }
        }
    } else if (gt_is_int(et) && et->k != GT_ANY) {
        if (gchance(g, 2))
            key = ga_printf(&g->arena, "%s mod %u", x, 2 + gx(g, 4));
        if (gt_assignable(et, t->elem) && gchance(g, 2)) {
            body = ga_printf(&g->arena, "sum(%s)", x);
            bt = et;
        }
    }
    const char *filter = "";
    size_t mark = g->n_vars;
    gen_push(g, x, et);
    if (gchance(g, 3))
        filter = ga_printf(&g->arena, " if %s", gen_bool_about(g, x, et, depth - 1).s);
    gen_pop(g, mark);
    return ex(g, P_POST, gt_list(g, bt), "[%s for %s in %s%s group by %s]", body, x, v->name,
              filter, key);
}

static GExp gen_list(Gen *g, const GType *t, int depth)
{
    enum { LEAF, VAR, LIT, CONCAT, RANGE, IF, CALL, INDEX, FIELD, MAPCOMP, SPLIT, REVERSE,
           RECMAP, FIELDVAR, GROUP, N };
    const GVar *v = pick_var(g, t);
    bool ints = gt_is_num(t->elem) && t->elem->k != GT_ANY;
    bool strs = t->elem->k == GT_STRING || t->elem->k == GT_ANY;
    const GVar *rl = t->elem->k == GT_RECORD ? pick_var(g, t) : NULL; // records to update
    unsigned w[N] = {
        [LEAF] = 2, [VAR] = v ? 6 : 0, [LIT] = 4, [CONCAT] = 2, [RANGE] = ints ? 2 : 0, [IF] = 1,
        [CALL] = 1, [INDEX] = 1, [FIELD] = g->n_recs ? 1 : 0, [MAPCOMP] = 2,
        [SPLIT] = strs ? 2 : 0, [REVERSE] = 1, [RECMAP] = rl ? 4 : 0,
        [FIELDVAR] = have_field(g, t, false) ? 2 : 0,
        [GROUP] = gt_is_int(t->elem) && pick_var_if(g, is_list_type) ? 1 : 0,
    };
    if (g->numeric) { // what native code builds: comprehensions, not literals
        w[LIT] = 1;
        w[LEAF] = w[CONCAT] = 0;
        w[MAPCOMP] = 5;
    }
    if (depth <= 0 || g->budget-- <= 0)
        return v && gchance(g, 2) ? var_ref(g, v) : leaf(g, t, 1);
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case LIT: return list_literal(g, t, depth);
    case CONCAT: {
        GExp a = gen_list(g, t, depth - 1);
        int on = tame_on(g);
        GExp b = gen_list(g, t, depth - 1);
        g->no_self -= on;
        const GType *j = gt_join(g, a.t, b.t);
        return ex(g, P_ADD, j ? j : t, "%s ++ %s", W(a, P_ADD), W(b, P_MUL));
    }
    case RANGE: {
        GExp lo = small_int(g, depth - 1), hi = small_int(g, depth - 1);
        if (t->elem->k != GT_NAT && gchance(g, 4))
            lo = ex(g, P_UNARY, &gt_int, "-%u", gx(g, 5));
        return ex(g, P_RANGE, gt_list(g, lo.t->k == GT_NAT ? &gt_nat : &gt_int), "%s%s%s",
                  W(lo, P_ADD), gchance(g, 2) ? ".." : "..=", W(hi, P_ADD));
    }
    case IF: return if_of(g, t, depth);
    case CALL: return call_of(g, t, depth);
    case INDEX: return index_of(g, t, depth);
    case FIELD: return field_of(g, t, depth);
    case MAPCOMP: {
        // [E for x in XS ... if C] (or `where C`)
        size_t mark = g->n_vars;
        const char *bs = binders(g, depth, gchance(g, 3));
        const char *filter = "";
        if (gchance(g, 3))
            filter = ga_printf(&g->arena, " %s %s", gchance(g, 2) ? "if" : "where",
                               gen_bool(g, depth - 1).s);
        GExp body = gen_expr(g, t->elem, depth - 1);
        gen_pop(g, mark);
        return ex(g, P_POST, gt_list(g, body.t), "[%s %s%s]", body.s, bs, filter);
    }
    case SPLIT: return string_list(g, depth);
    case REVERSE: {
        GExp l = gen_list(g, t, depth - 1);
        if (l.t->k == GT_ANY)
            l = leaf(g, t, 0);
        return ex(g, P_POST, l.t, "reverse(%s)", l.s);
    }
    case RECMAP: {
        // [b with {f: ...} for b in rs if C]: each record of a list updated
        const char *b = gfresh(g, "b");
        size_t mark = g->n_vars;
        gen_push(g, b, rl->t->elem);
        const char *filter = "";
        if (gchance(g, 3))
            filter = ga_printf(&g->arena, " if %s",
                               gen_bool_about(g, b, rl->t->elem, depth - 1).s);
        GExp body = with_update(g, ex(g, P_POST, rl->t->elem, "%s", b), depth - 1);
        gen_pop(g, mark);
        return ex(g, P_POST, gt_list(g, rl->t->elem), "[%s for %s in %s%s]", body.s, b, rl->name,
                  filter);
    }
    case FIELDVAR: return field_var(g, t, depth);
    case GROUP: return group_by(g, t, depth);
    default: return leaf(g, t, 1);
    }
}

/* ---- matrices and records ---- */

static GExp gen_matrix(Gen *g, const GType *t, int depth)
{
    enum { LEAF, VAR, LIT, IF, CALL, N };
    const GVar *v = pick_var(g, t);
    // rows written as a list are converted to a matrix only as an argument
    // itself, not inside an `if` (tests/fuzz/found/008-*)
    bool lists_stay = g->opt->avoid & GEN_KNOWN_MATRIX_FROM_LIST;
    unsigned w[N] = {[LEAF] = 1, [VAR] = v ? 8 : 0, [LIT] = 2, [IF] = lists_stay ? 0 : 1,
                     [CALL] = 1};
    if (depth <= 0 || g->budget-- <= 0)
        return v ? var_ref(g, v) : leaf(g, t, 0);
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case LIT: {
        // rows of one length; a ragged or empty one is a run-time error
        size_t rows = 1 + gx(g, 3), cols = 1 + gx(g, 3);
        GenBuf b = {0};
        gb_puts(&b, "[");
        for (size_t r = 0; r < rows; r++) {
            gb_puts(&b, r ? ", [" : "[");
            for (size_t c = 0; c < cols; c++)
                gb_printf(&b, "%s%s", c ? ", " : "", gen_expr(g, t->elem, depth - 1).s);
            gb_puts(&b, "]");
        }
        gb_puts(&b, "]");
        char *s = gb_take(&b);
        GExp e = ex(g, P_POST, gt_list(g, gt_list(g, t->elem)), "%s", s);
        free(s);
        return e;
    }
    case IF: return if_of(g, t, depth);
    case CALL: return call_of(g, t, depth);
    default: return leaf(g, t, 0);
    }
}

static GExp gen_rec(Gen *g, const GType *t, int depth)
{
    enum { LEAF, VAR, LIT, IF, CALL, INDEX, FIELD, WITH, FIELDVAR, N };
    const GVar *v = pick_var(g, t);
    unsigned w[N] = {[LEAF] = 2, [VAR] = v ? 6 : 0, [LIT] = 3, [IF] = 1, [CALL] = 1, [INDEX] = 1,
                     [FIELD] = 1, [WITH] = g->recs[t->rec].n ? 3 : 0,
                     [FIELDVAR] = have_field(g, t, false) ? 2 : 0};
    if (depth <= 0 || g->budget-- <= 0)
        return v && gchance(g, 2) ? var_ref(g, v) : leaf(g, t, 1);
    switch (gpickw(g, w, N)) {
    case VAR: return var_ref(g, v);
    case LIT: {
        const GRecord *r = &g->recs[t->rec];
        GenBuf b = {0};
        gb_puts(&b, "{");
        size_t start = gx(g, r->n ? (uint32_t)r->n : 1);
        for (size_t i = 0; i < r->n; i++) {
            size_t f = (start + i) % r->n;
            gb_printf(&b, "%s%s: %s", i ? sep(g) : "", r->fields[f],
                      gen_expr(g, r->types[f], depth - 1).s);
        }
        gb_puts(&b, "}");
        char *s = gb_take(&b);
        GExp e = ex(g, P_POST, t, "%s", s);
        free(s);
        return e;
    }
    case IF: return if_of(g, t, depth);
    case CALL: return call_of(g, t, depth);
    case INDEX: return index_of(g, t, depth);
    case FIELD: return field_of(g, t, depth);
    case WITH: {
        GExp base = v && gchance(g, 2) ? var_ref(g, v) : gen_rec(g, t, depth - 1);
        if (base.t->k != GT_RECORD)
            base = leaf(g, t, 1);
        return with_update(g, base, depth);
    }
    case FIELDVAR: return field_var(g, t, depth);
    default: return leaf(g, t, 1);
    }
}

/* ---- conditions about one variable ---- */

static bool takes_one(const GIntent *in, const GType *t)
{
    return in->n == 1 && in->ret->k == GT_BOOL && gt_assignable(t, in->params[0].t);
}

/* A condition that certainly mentions x (a variable or a field of one, as
 * text): a comprehension's condition must name its element, and a filter
 * about the element is what makes one interesting. */
static GExp about(Gen *g, GExp x, int depth)
{
    enum { CMP, EQ, FIELD, LEN, IN_IT, PRED, MODK, BOOLV, NOT, AND, OR, N };
    const GType *t = x.t;
    const GIntent *preds[GEN_MAX_GINTENTS];
    size_t np = 0;
    for (size_t i = 0; i < g->callable && i < g->n_intents; i++)
        if (!g->intents[i].hidden && takes_one(&g->intents[i], t))
            preds[np++] = &g->intents[i];
    bool fields = t->k == GT_RECORD && g->recs[t->rec].n > 0;
    unsigned w[N] = {
        [CMP] = gt_is_ordered(t) ? 6 : 0, [EQ] = g->comp_var ? 0 : 2, [FIELD] = fields ? 8 : 0,
        [LEN] = gt_is_coll(t) || t->k == GT_STRING ? 3 : 0, [IN_IT] = gt_is_coll(t) ? 2 : 0,
        [PRED] = np ? 3 : 0, [MODK] = gt_is_int(t) ? 3 : 0, [BOOLV] = t->k == GT_BOOL ? 4 : 0,
        [NOT] = depth > 0 ? 1 : 0, [AND] = depth > 0 ? 2 : 0, [OR] = depth > 0 ? 1 : 0,
    };
    unsigned total = 0;
    for (size_t i = 0; i < N; i++)
        total += w[i];
    if (total == 0)
        return ex(g, P_CMP, &gt_bool, "%s = %s", W(x, P_RANGE), W(x, P_RANGE));
    switch (gpickw(g, w, N)) {
    case CMP: {
        static const char *const ops[] = {"<", "<=", ">", ">=", "!="};
        const GType *ot = t->k == GT_STRING ? &gt_string : gt_is_int(t) ? &gt_int : &gt_float;
        const char *o = g->comp_var ? ops[gx(g, 5)] : cmp_ops[gx(g, 6)];
        GExp e = gen_expr(g, ot, depth - 1);
        if (g->comp_var && mentions_name(e.s, g->comp_var))
            e = leaf(g, ot, 0);
        if (gchance(g, 2))
            return ex(g, P_CMP, &gt_bool, "%s %s %s", W(x, P_RANGE), op(g, o), W(e, P_RANGE));
        return ex(g, P_CMP, &gt_bool, "%s %s %s", W(e, P_RANGE), op(g, o), W(x, P_RANGE));
    }
    case EQ: {
        GExp e = gen_expr(g, t, depth - 1);
        if (!gt_join(g, x.t, e.t)) // a matrix and rows of another element type
            e = x;
        return ex(g, P_CMP, &gt_bool, "%s %s %s", W(x, P_RANGE), op(g, gchance(g, 2) ? "=" : "!="),
                  W(e, P_RANGE));
    }
    case FIELD: {
        const GRecord *r = &g->recs[t->rec];
        size_t f = gx(g, (uint32_t)r->n);
        GExp fx = ex(g, P_POST, r->types[f], "%s.%s", W(x, P_POST), r->fields[f]);
        return about(g, fx, depth);
    }
    case LEN: {
        GExp n = small_int(g, depth - 1);
        return ex(g, P_CMP, &gt_bool, "%s(%s) %s %s",
                  gt_is_coll(t) && gchance(g, 3) ? "count" : "len", x.s, op(g, cmp_ops[gx(g, 6)]),
                  W(n, P_RANGE));
    }
    case IN_IT: {
        // the element of `[]` (GT_ANY) has none of its own
        GExp e = gen_expr(g, t->elem ? without_any(g, t->elem) : &gt_int, depth - 1);
        return ex(g, P_CMP, &gt_bool, "%s %s %s", W(e, P_RANGE), op(g, "in"), W(x, P_RANGE));
    }
    case PRED: {
        const GIntent *in = preds[gx(g, (uint32_t)np)];
        return ex(g, P_POST, &gt_bool, "%s(%s)", in->name, x.s);
    }
    case MODK:
        return ex(g, P_CMP, &gt_bool, "%s mod %u %s %u", W(x, P_MUL), 2 + gx(g, 5),
                  gchance(g, 3) ? "!=" : "=", gx(g, 3));
    case BOOLV:
        if (gchance(g, 2))
            return ex(g, P_NOT, &gt_bool, "not %s", W(x, P_NOT));
        return x;
    case NOT: {
        GExp a = about(g, x, depth - 1);
        return ex(g, P_NOT, &gt_bool, "not %s", W(a, P_NOT));
    }
    case AND: {
        GExp a = about(g, x, depth - 1), b = gen_bool(g, depth - 1);
        if (gchance(g, 2))
            return ex(g, P_AND, &gt_bool, "%s and %s", W(a, P_AND), W(b, P_NOT));
        return ex(g, P_AND, &gt_bool, "%s and %s", W(b, P_AND), W(a, P_NOT));
    }
    case OR: {
        GExp a = about(g, x, depth - 1), b = gen_bool(g, depth - 1);
        return ex(g, P_OR, &gt_bool, "%s or %s", W(a, P_OR), W(b, P_AND));
    }
    default: {
        GExp e = gen_expr(g, t, depth - 1);
        return ex(g, P_CMP, &gt_bool, "%s != %s", W(x, P_RANGE), W(e, P_RANGE));
    }
    }
}

GExp gen_bool_about(Gen *g, const char *var, const GType *vt, int depth)
{
    return about(g, (GExp){var, P_POST, vt}, depth);
}

/* An ordered key of an element named var of type et, that mentions var:
 * `p.x * p.x + p.y`, `abs(p)`, `p ++ "a"`. */
GExp gen_key_about(Gen *g, const char *var, const GType *et, int depth)
{
    GExp x = {var, P_POST, et};
    if (et->k == GT_RECORD) {
        const GRecord *r = &g->recs[et->rec];
        size_t fs[GEN_MAX_FIELDS], n = 0;
        for (size_t f = 0; f < r->n; f++)
            if (gt_is_ordered(r->types[f]))
                fs[n++] = f;
        if (!n)
            return ex(g, P_POST, &gt_nat, "count([%s])", var);
        size_t f = fs[gx(g, (uint32_t)n)];
        x = ex(g, P_POST, r->types[f], "%s.%s", var, r->fields[f]);
    }
    if (x.t->k == GT_STRING) {
        if (gchance(g, 2))
            return x;
        GExp e = gen_string(g, depth - 1);
        if ((g->opt->avoid & GEN_KNOWN_ANY_CONCAT) && e.t->k == GT_ANY)
            e = leaf(g, &gt_string, 0);
        return ex(g, P_ADD, &gt_string, "%s ++ %s", W(x, P_ADD), W(e, P_MUL));
    }
    if (gt_is_coll(x.t))
        return ex(g, P_POST, &gt_nat, "len(%s)", x.s);
    if (!gt_is_num(x.t))
        return ex(g, P_IF, &gt_nat, "if %s then 1 else 0", x.t->k == GT_BOOL ? x.s
                  : ga_printf(&g->arena, "%s = %s", x.s, x.s));
    switch (gx(g, 5)) {
    case 1: return ex(g, P_UNARY, x.t->k == GT_FLOAT ? &gt_float : &gt_int, "-%s", W(x, P_UNARY));
    case 2: return ex(g, P_MUL, x.t, "%s * %s", W(x, P_MUL), W(x, P_UNARY));
    case 3:
        if (gt_is_int(x.t) && gen_prelude_visible(g, "abs"))
            return ex(g, P_POST, &gt_nat, "abs(%s)", x.s);
        return x;
    case 4: {
        GExp e = gen_expr(g, x.t->k == GT_FLOAT ? &gt_float : &gt_int, depth - 1);
        return ex(g, P_ADD, gt_join(g, x.t, e.t), "%s + %s", W(x, P_ADD), W(e, P_MUL));
    }
    default: return x;
    }
}

GExp gen_expr(Gen *g, const GType *t, int depth)
{
    switch (t->k) {
    case GT_NAT:
    case GT_INT: return gen_int(g, t, depth);
    case GT_FLOAT: return gen_float(g, depth);
    case GT_BOOL: return gen_bool(g, depth);
    case GT_STRING: return gen_string(g, depth);
    case GT_LIST:
    case GT_STREAM: return gen_list(g, t, depth);
    case GT_MATRIX: return gen_matrix(g, t, depth);
    case GT_RECORD: return gen_rec(g, t, depth);
    default: return leaf(g, &gt_nat, 0);
    }
}
