/*
 * unfold.c: see unfold.h.
 *
 * DESIGN. A term is a node of a graph read in a frame: the top frame of
 * each version, or the frame of one expanded call, which holds the terms
 * of the call's arguments. A frame also binds each slot of its graph: to
 * a binder (a number both sides share while they compare the lazy inputs
 * of two binders, so bound variables match by position, not by slot), or
 * to a value (a let whose value cannot fail, read as that value). Before
 * two terms are compared both are resolved: variables bound to values and
 * parameters of expanded calls are followed, and calls that may be
 * expanded are. Then the two nodes must be the same operation on the same
 * type with the same attributes, their inputs compared in turn, unless
 * one side is a fold over a comprehension and the other its fused form.
 */
#include "unfold.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 1000000 /* node comparisons before giving up */
#define MAX_TOTAL 256     /* nodes a totality check looks at */
#define MAX_REACH 256     /* callees a recursion check looks at */

typedef struct Frame Frame;
typedef struct Term {
    const FxGraph *g;
    FxNodeId id;
    Frame *f;
} Term;

enum { UNBOUND, BINDER, VALUE };
typedef struct Bind {
    int kind;
    uint32_t binder;
    Term value;
} Bind;

struct Frame {
    const FxGraph *g;
    bool top;
    Term *args;  /* an expanded call's arguments, by parameter */
    Bind *slots; /* by slot */
    Frame *made; /* the frame made before it, for freeing */
};

typedef struct U {
    FxGraphLookup lookup;
    void *ctx;
    const char *intent; /* the two versions' */
    uint64_t steps;
    uint32_t binders;
    Frame *frames;
    FxBuf inlined; /* the intents expanded, comma separated */
    bool fused, let, projected;
    const char *stop; /* why the comparison gave up, or NULL */
} U;

static const FxNode *node(Term t)
{
    return fx_graph_node(t.g, t.id);
}

static Term term(const FxGraph *g, FxNodeId id, Frame *f)
{
    return (Term){g, id, f};
}

static Frame *new_frame(U *u, const FxGraph *g, bool top)
{
    Frame *f = fx_xcalloc(1, sizeof(*f));
    f->g = g;
    f->top = top;
    f->args = fx_xcalloc(g->n_params + 1, sizeof(Term));
    f->slots = fx_xcalloc(g->n_slots + 1, sizeof(Bind));
    f->made = u->frames;
    u->frames = f;
    return f;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* ---- the conditions of the laws ---- */

static bool total_within(const FxGraph *g, FxNodeId id, unsigned *budget);

static bool all_total(const FxGraph *g, const FxNode *n, unsigned *budget)
{
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (n->inputs[k].v && !total_within(g, n->inputs[k], budget))
            return false;
    return true;
}

static bool total_within(const FxGraph *g, FxNodeId id, unsigned *budget)
{
    if (!*budget)
        return false;
    --*budget;
    const FxNode *n = fx_graph_node(g, id);
    switch (n->op) {
    case FX_NODE_CONST: case FX_NODE_PARAM: case FX_NODE_VAR:
        return true;
    case FX_NODE_NEG: case FX_NODE_SUB: /* a Natural's sign would be checked */
        return fx_typeid_kind(n->tid) != FX_TK_NATURAL && all_total(g, n, budget);
    case FX_NODE_ADD: case FX_NODE_MUL: case FX_NODE_NOT: case FX_NODE_AND: case FX_NODE_OR:
    case FX_NODE_EQ: case FX_NODE_NE: case FX_NODE_LT: case FX_NODE_LE: case FX_NODE_GT:
    case FX_NODE_GE: case FX_NODE_IF: case FX_NODE_FIELD: case FX_NODE_RECORD: case FX_NODE_LIST:
        return all_total(g, n, budget);
    case FX_NODE_BUILTIN: {
        /* libm's functions give a float for every float (nan or inf at worst);
         * `float` fails only on a string */
        static const char *const never_fail[] = {"len", "abs", "sqrt", "exp", "log", "sin",
                                                 "cos", "tan", "atan2"};
        bool ok = false;
        for (size_t i = 0; i < sizeof(never_fail) / sizeof(never_fail[0]) && n->text; i++)
            ok |= !strcmp(n->text, never_fail[i]);
        if (n->text && !strcmp(n->text, "float") && n->n_inputs == 1) {
            FxTypeId t = fx_graph_node(g, n->inputs[0])->tid;
            ok = fx_typeid_is_integer(t) || fx_typeid_kind(t) == FX_TK_FLOAT;
        }
        return ok && all_total(g, n, budget);
    }
    default: /* a division, an index, a call, a loop: each may fail */
        return false;
    }
}

bool fx_unfold_total(const FxGraph *g, FxNodeId id)
{
    unsigned budget = MAX_TOTAL;
    return total_within(g, id, &budget);
}

/* Does h call `name`, itself or through the intents it calls? Unsure
 * (past MAX_REACH callees) counts as yes. */
static bool reaches(const FxGraph *h, const char *name, FxGraphLookup lookup, void *ctx,
                    unsigned *budget)
{
    for (uint32_t i = 0; i < h->n_nodes; i++) {
        const FxNode *n = &h->nodes[i];
        if (n->op != FX_NODE_CALL)
            continue;
        if (!strcmp(n->text, name) || !*budget)
            return true;
        --*budget;
        const FxGraph *c = strcmp(n->text, h->intent) ? lookup(ctx, n->text) : NULL;
        if (c && reaches(c, name, lookup, ctx, budget))
            return true;
    }
    return false;
}

/* Does a parameter of type `param` take an argument of type `arg` as it
 * is (an Int takes a Natural; a Natural only a Natural: the call would
 * otherwise check the sign)? */
static bool takes(const FxNode *arg, FxTypeId param, const char *param_type)
{
    FxTypeIdKind a = fx_typeid_kind(arg->tid), p = fx_typeid_kind(param);
    if (p == FX_TK_INT && a == FX_TK_NATURAL)
        return true;
    if (a != p || a == FX_TK_UNKNOWN)
        return false;
    return fx_typeid_is_integer(param) || p == FX_TK_BOOL || p == FX_TK_FLOAT ||
           p == FX_TK_STRING || same_text(arg->type, param_type);
}

static const FxGraph *refuse(FxBuf *why, const char *what)
{
    if (why)
        fx_buf_puts(why, what);
    return NULL;
}

const FxGraph *fx_unfold_inlinable(const FxGraph *g, FxNodeId call, FxGraphLookup lookup,
                                   void *ctx, FxBuf *why)
{
    const FxNode *n = fx_graph_node(g, call);
    if (n->op != FX_NODE_CALL || !lookup || !strcmp(n->text, g->intent))
        return refuse(why, "not a call of another intent");
    const FxGraph *h = lookup(ctx, n->text);
    if (!h || h->n_params != n->n_inputs || h->kernel || h->n_table || h->n_materialised)
        return refuse(why, "a callee whose graph is not its constraints alone");
    for (uint32_t i = 0; i < h->n_nodes; i++)
        if (h->nodes[i].op == FX_NODE_CHOOSE || h->nodes[i].op == FX_NODE_DATA)
            return refuse(why, "a callee that reads data or chooses among implementations");
    unsigned budget = MAX_REACH;
    if (reaches(h, h->intent, lookup, ctx, &budget))
        return refuse(why, "a callee that recurses");
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (!takes(fx_graph_node(g, n->inputs[k]), h->param_tids[k], h->param_types[k]))
            return refuse(why, "an argument of another type than its parameter");
    const FxNode *root = fx_graph_node(h, h->root);
    FxTypeId t = root->tid;
    if (!(fx_typeid_kind(h->ret_tid) == FX_TK_INT && fx_typeid_kind(t) == FX_TK_NATURAL) &&
        !(fx_typeid_kind(t) == fx_typeid_kind(h->ret_tid) && same_text(root->type, h->ret_type)))
        return refuse(why, "a callee whose body is of another type than its result");
    return h;
}

static bool fusable_kind(int64_t k)
{
    return k == FX_FOLD_SUM || k == FX_FOLD_PRODUCT || k == FX_FOLD_MIN || k == FX_FOLD_MAX ||
           k == FX_FOLD_COUNT || k == FX_FOLD_COLLECT;
}

static bool plain_fold(const FxNode *n)
{
    return n->op == FX_NODE_FOLD && n->n_inputs == 3 && !n->inputs[1].v &&
           n->kernel == FX_KERNEL_NONE;
}

bool fx_unfold_fusable(const FxGraph *g, FxNodeId id, FxNodeId *inner)
{
    const FxNode *n = fx_graph_node(g, id);
    if (!plain_fold(n) || !fusable_kind(n->num))
        return false;
    const FxNode *d = fx_graph_node(g, n->inputs[0]);
    if (!plain_fold(d) || d->num != FX_FOLD_COLLECT)
        return false;
    *inner = n->inputs[0];
    return true;
}

int fx_unfold_projection(const FxGraph *g, FxNodeId record, const char *field)
{
    const FxNode *r = fx_graph_node(g, record);
    if (r->op != FX_NODE_RECORD || !r->text || !field)
        return -1;
    int found = -1, k = 0;
    size_t len = strlen(field);
    for (const char *p = r->text; *p; k++) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, field, len))
            found = k;
        p += n + (end != NULL);
    }
    if (found < 0 || (uint32_t)k != r->n_inputs)
        return -1;
    for (uint32_t i = 0; i < r->n_inputs; i++)
        if ((int)i != found && !fx_unfold_total(g, r->inputs[i]))
            return -1;
    return found;
}

/* ---- terms ---- */

/* How many of a call's arguments may fail (each bound by a let when the
 * call is expanded)? */
static uint32_t strict_args(const FxGraph *g, const FxNode *call)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < call->n_inputs; i++)
        k += !fx_unfold_total(g, call->inputs[i]);
    return k;
}

/* The frame of callee h expanded at call term t, its arguments read in
 * place of the parameters (those bound by lets get binders). */
static Frame *call_frame(U *u, const FxGraph *h, Term t)
{
    const FxNode *n = node(t);
    Frame *f = new_frame(u, h, false);
    for (uint32_t k = 0; k < h->n_params; k++)
        f->args[k] = term(t.g, n->inputs[k], t.f);
    char *list = fx_xasprintf(", %s,", fx_buf_str(&u->inlined));
    char *item = fx_xasprintf(" %s,", h->intent);
    if (!strstr(list, item))
        fx_buf_printf(&u->inlined, "%s%s", u->inlined.len ? ", " : "", h->intent);
    free(item);
    free(list);
    return f;
}

/* t with variables bound to values, expanded calls' parameters and calls
 * that may be expanded followed. */
static Term resolve(U *u, Term t)
{
    for (;;) {
        const FxNode *n = node(t);
        if (n->op == FX_NODE_VAR || n->op == FX_NODE_PARAM) {
            uint32_t s = (uint32_t)n->num;
            if (s < t.g->n_params) {
                if (t.f->top || t.f->slots[s].kind == BINDER) /* bound by a let */
                    return t;
                t = t.f->args[s];
                continue;
            }
            if (s < t.g->n_slots && t.f->slots[s].kind == VALUE) {
                t = t.f->slots[s].value;
                continue;
            }
            return t;
        }
        if (n->op == FX_NODE_FIELD) { /* of a record built here: the field's value */
            Term r = resolve(u, term(t.g, n->inputs[0], t.f));
            int k = fx_unfold_projection(r.g, r.id, n->text);
            if (k < 0)
                return t;
            u->projected = true;
            t = term(r.g, fx_graph_node(r.g, r.id)->inputs[k], r.f);
            continue;
        }
        const FxGraph *h = n->op == FX_NODE_CALL && strcmp(n->text, u->intent)
                                 ? fx_unfold_inlinable(t.g, t.id, u->lookup, u->ctx, NULL)
                                 : NULL;
        if (!h || strict_args(t.g, n)) /* those are matched against lets (compare) */
            return t;
        t = term(h, h->root, call_frame(u, h, t));
    }
}

static Bind bind(Frame *f, int64_t slot, Bind b)
{
    Bind old = {UNBOUND, 0, {0}};
    if (slot < 0 || (uint64_t)slot >= f->g->n_slots)
        return old;
    old = f->slots[slot];
    f->slots[slot] = b;
    return old;
}

static void unbind(Frame *f, int64_t slot, Bind old)
{
    if (slot >= 0 && (uint64_t)slot < f->g->n_slots)
        f->slots[slot] = old;
}

static Bind binder(uint32_t id)
{
    return (Bind){BINDER, id, {0}};
}

static bool compare(U *u, Term a, Term b);

/* a, a let whose value cannot fail, against b: its body with the
 * variable read as the value. */
static bool let_value(U *u, Term a, Term b)
{
    const FxNode *x = node(a);
    Bind old = bind(a.f, x->num2, (Bind){VALUE, 0, term(a.g, x->inputs[0], a.f)});
    u->let = true;
    bool same = compare(u, term(a.g, x->inputs[1], a.f), b);
    unbind(a.f, x->num2, old);
    return same;
}

/* Is a (resolved) a fold over a comprehension, both plain? *inner: the
 * comprehension, resolved. */
static bool unfused(U *u, Term a, Term *inner)
{
    const FxNode *x = node(a);
    if (!plain_fold(x) || !fusable_kind(x->num))
        return false;
    *inner = resolve(u, term(a.g, x->inputs[0], a.f));
    const FxNode *d = node(*inner);
    return plain_fold(d) && d->num == FX_FOLD_COLLECT;
}

/* a, F(g(x) for x in [f(y) for y in D]), against b, F(let x = f(y) in
 * g(x) for y in D): the fusion law. */
static bool fusion(U *u, Term a, Term in, Term b)
{
    const FxNode *x = node(a), *c = node(in), *y = node(b);
    if (!plain_fold(y) || y->num != x->num || !fx_graph_same_type(x, y))
        return false;
    Term let = resolve(u, term(b.g, y->inputs[2], b.f));
    const FxNode *l = node(let);
    if (l->op != FX_NODE_LET ||
        !compare(u, term(in.g, c->inputs[0], in.f), term(b.g, y->inputs[0], b.f)))
        return false;
    uint32_t k1 = ++u->binders, k2 = ++u->binders;
    Bind o1 = bind(in.f, c->num2, binder(k1)), o2 = bind(b.f, y->num2, binder(k1));
    bool same = compare(u, term(in.g, c->inputs[2], in.f), term(let.g, l->inputs[0], let.f));
    if (same) {
        Bind o3 = bind(a.f, x->num2, binder(k2)), o4 = bind(let.f, l->num2, binder(k2));
        same = compare(u, term(a.g, x->inputs[2], a.f), term(let.g, l->inputs[1], let.f));
        unbind(let.f, l->num2, o4);
        unbind(a.f, x->num2, o3);
    }
    unbind(b.f, y->num2, o2);
    unbind(in.f, c->num2, o1);
    u->fused |= same;
    return same;
}

/* Two variables (resolved): the same parameter of the versions, or bound
 * by binders compared together. */
static bool same_variable(Term a, Term b)
{
    const FxNode *x = node(a), *y = node(b);
    bool pa = (uint64_t)x->num < a.g->n_params && a.f->top;
    bool pb = (uint64_t)y->num < b.g->n_params && b.f->top;
    if (pa || pb)
        return pa && pb && x->num == y->num;
    if ((uint64_t)x->num >= a.g->n_slots || (uint64_t)y->num >= b.g->n_slots)
        return false;
    Bind s = a.f->slots[x->num], t = b.f->slots[y->num];
    return s.kind == BINDER && t.kind == BINDER && s.binder == t.binder;
}

/* a, a call to expand whose arguments may fail, against b: a let for
 * each such argument, in order, then the callee's body. */
static bool expanded_against(U *u, Term a, const FxGraph *h, Term b)
{
    const FxNode *n = node(a);
    Frame *f = call_frame(u, h, a);
    struct {
        Frame *f;
        int64_t slot;
        Bind old;
    } lets[16];
    uint32_t n_lets = 0;
    bool same = n->n_inputs <= 16;
    for (uint32_t k = 0; same && k < n->n_inputs; k++) {
        if (fx_unfold_total(a.g, n->inputs[k]))
            continue;
        b = resolve(u, b);
        const FxNode *l = node(b);
        same = l->op == FX_NODE_LET && compare(u, f->args[k], term(b.g, l->inputs[0], b.f));
        if (!same)
            break;
        uint32_t id = ++u->binders;
        f->slots[k] = binder(id);
        lets[n_lets].f = b.f;
        lets[n_lets].slot = l->num2;
        lets[n_lets++].old = bind(b.f, l->num2, binder(id));
        b = term(b.g, l->inputs[1], b.f);
    }
    if (same)
        same = compare(u, term(h, h->root, f), b);
    while (n_lets--)
        unbind(lets[n_lets].f, lets[n_lets].slot, lets[n_lets].old);
    return same;
}

/* A call of a can be expanded with lets for arguments that may fail. */
static const FxGraph *strict_call(U *u, Term a)
{
    const FxNode *n = node(a);
    if (n->op != FX_NODE_CALL || !strcmp(n->text, u->intent) || !strict_args(a.g, n))
        return NULL;
    return fx_unfold_inlinable(a.g, a.id, u->lookup, u->ctx, NULL);
}

static bool compare(U *u, Term a, Term b)
{
    if (u->stop)
        return false;
    if (++u->steps > MAX_STEPS) {
        u->stop = "the unfolded terms are too large to compare";
        return false;
    }
    a = resolve(u, a);
    b = resolve(u, b);
    const FxNode *x = node(a), *y = node(b);
    if (x->op == FX_NODE_LET && y->op != FX_NODE_LET && fx_unfold_total(a.g, x->inputs[0]))
        return let_value(u, a, b);
    if (y->op == FX_NODE_LET && x->op != FX_NODE_LET && fx_unfold_total(b.g, y->inputs[0]))
        return let_value(u, b, a);
    const FxGraph *h;
    if (y->op == FX_NODE_LET && (h = strict_call(u, a)))
        return expanded_against(u, a, h, b);
    if (x->op == FX_NODE_LET && (h = strict_call(u, b)))
        return expanded_against(u, b, h, a);
    Term ia, ib;
    bool ua = unfused(u, a, &ia), ub = unfused(u, b, &ib);
    if (ua && !ub)
        return fusion(u, a, ia, b);
    if (ub && !ua)
        return fusion(u, b, ib, a);
    bool var_x = x->op == FX_NODE_VAR || x->op == FX_NODE_PARAM;
    bool var_y = y->op == FX_NODE_VAR || y->op == FX_NODE_PARAM;
    if (var_x || var_y)
        return var_x && var_y && fx_graph_same_type(x, y) && same_variable(a, b);
    if (x->op != y->op || x->n_inputs != y->n_inputs || x->kernel != y->kernel ||
        !fx_graph_same_type(x, y) || !same_text(x->text, y->text))
        return false;
    int64_t sx[2], sy[2];
    fx_graph_bound_slots(x, sx);
    fx_graph_bound_slots(y, sy);
    /* a slot is a name, not an attribute: the others must be equal */
    if ((x->op != FX_NODE_MAP && x->num != y->num) ||
        (sx[0] < 0 && sx[1] < 0 && x->num2 != y->num2) || (sx[1] < 0) != (sy[1] < 0))
        return false;
    for (uint32_t k = 0; k < x->n_inputs; k++) {
        if (!x->inputs[k].v || !y->inputs[k].v) {
            if (x->inputs[k].v != y->inputs[k].v)
                return false;
            continue;
        }
        bool lazy = fx_graph_input_is_lazy(x->op, k) && sx[0] >= 0;
        Bind o[4];
        if (lazy) { /* the binder's slots, bound to the same numbers on both sides */
            for (int s = 0; s < 2; s++) {
                uint32_t id = ++u->binders;
                o[2 * s] = bind(a.f, sx[s], binder(id));
                o[2 * s + 1] = bind(b.f, sy[s], binder(id));
            }
        }
        bool same = compare(u, term(a.g, x->inputs[k], a.f), term(b.g, y->inputs[k], b.f));
        if (lazy)
            for (int s = 1; s >= 0; s--) {
                unbind(b.f, sy[s], o[2 * s + 1]);
                unbind(a.f, sx[s], o[2 * s]);
            }
        if (!same)
            return false;
    }
    return true;
}

bool fx_unfold_same(const FxGraph *cur, const FxGraph *cand, FxGraphLookup lookup, void *ctx,
                    FxBuf *laws, FxBuf *why)
{
    U u = {.lookup = lookup, .ctx = ctx, .intent = cur->intent};
    bool same = cur->n_params == cand->n_params &&
                compare(&u, term(cur, cur->root, new_frame(&u, cur, true)),
                        term(cand, cand->root, new_frame(&u, cand, true)));
    if (same) {
        const char *sep = "";
        if (u.inlined.len) {
            fx_buf_printf(laws, "calls of %s expanded in place (inline expansion: every intent "
                          "is pure)", fx_buf_str(&u.inlined));
            sep = "; ";
        }
        if (u.fused) {
            fx_buf_printf(laws, "%sfolds over comprehensions fused (Fusion.fold_map_fusion)", sep);
            sep = "; ";
        }
        if (u.let) {
            fx_buf_printf(laws, "%slets whose values cannot fail read as their values", sep);
            sep = "; ";
        }
        if (u.projected)
            fx_buf_printf(laws, "%sfields of records built in place read as the values given "
                          "them", sep);
        if (!laws->len)
            fx_buf_puts(laws, "the same nodes, bound variables renamed");
    } else {
        fx_buf_puts(why, u.stop ? u.stop : "the unfolded terms differ");
    }
    fx_buf_free(&u.inlined);
    while (u.frames) {
        Frame *f = u.frames;
        u.frames = f->made;
        free(f->args);
        free(f->slots);
        free(f);
    }
    return same;
}
