/*
 * clgrid.c: the proof that a sum's far terms are zero, and the host's
 * cells (clgrid.h).
 *
 * The proof is an abstract evaluation of the term's graph, calls inlined
 * as the kernel inlines them: each node gets what it is when p and q are
 * far apart (FxFarKind) and whether its evaluation can raise an error
 * then. Each rule is sound on its own:
 *
 *   q.f, p.f            the coordinates (finite: the host and the kernel
 *                       check them)
 *   p.f - q.f           DIFF: finite or infinite, never NaN
 *   DIFF * DIFF         DIST of one field (the same DIFF): >= fl(c * c)
 *   DIST + DIST         DIST of both: sums of squares only grow
 *   DIST < K, DIST <= K FALSE (K > 0, constant): D > K when far
 *   Z > c, Z >= c'      FALSE for Z zero and c >= 0 (c' > 0); and mirrored
 *   A and B             FALSE when A is, or when A is safe and B FALSE
 *   if C then T else E  ZERO when C is FALSE and E ZERO, or T and E ZERO
 *   0.0, -Z, abs(Z)     ZERO, and Z + Z, Z - Z, Z * Z
 *
 * Anything else is OTHER, and the sum visits every q.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "clgrid.h"
#include "graph/typeid.h"
#include "interp_int.h"

#define MAX_DEPTH 16

typedef struct Walk {
    FxRuntime *rt;
    const FxClRecord *rec;
    FxFarRegion *reg;
    const FxGraph *stack[MAX_DEPTH];
    uint32_t depth;
} Walk;

static bool is_float(const FxNode *n)
{
    return fx_typeid_kind(n->tid) == FX_TK_FLOAT;
}

static bool is_zero(const FxFarSym *s)
{
    return s->kind == FX_FAR_ZERO || (s->kind == FX_FAR_CONST && s->value == 0);
}

/* Never NaN when far: comparing it raises no error. */
static bool ordered(const FxFarSym *s)
{
    switch (s->kind) {
    case FX_FAR_QF: case FX_FAR_PF: case FX_FAR_DIFF: case FX_FAR_DIST: case FX_FAR_ZERO:
        return s->safe;
    case FX_FAR_CONST: return !isnan(s->value);
    default: return false;
    }
}

static FxFarSym sym(FxFarKind k, bool safe)
{
    return (FxFarSym){.kind = k, .safe = safe};
}

static int field_index(const FxClRecord *rec, const char *name)
{
    for (uint32_t i = 0; i < rec->n; i++)
        if (!strcmp(rec->fields[i], name))
            return (int)i;
    return -1;
}

/* The distance test d > k joins the region: one p and one set of fields
 * for all the tests, the largest k. */
static bool region(Walk *W, const FxFarSym *d, double k)
{
    if (!(k > 0) || !isfinite(k))
        return false;
    FxFarRegion *r = W->reg;
    if (!r->found) {
        r->found = true;
        memcpy(r->p, d->p, sizeof(r->p));
        r->mask = d->mask;
        r->k = k;
        return true;
    }
    if (strcmp(r->p, d->p) != 0 || r->mask != d->mask)
        return false;
    if (k > r->k)
        r->k = k;
    return true;
}

static FxFarSym walk(Walk *W, const FxGraph *g, FxNodeId id, const FxFarSym *params,
                     FxFarSym *slots);

/* LT LE GT GE: a distance test, a zero tested, or a comparison that
 * raises no error when far. */
static FxFarSym compare(Walk *W, const FxNode *n, FxFarSym a, FxFarSym b)
{
    FxNodeOp op = n->op;
    if (op == FX_NODE_GT || op == FX_NODE_GE) { /* a > b is b < a */
        FxFarSym t = a;
        a = b;
        b = t;
        op = op == FX_NODE_GT ? FX_NODE_LT : FX_NODE_LE;
    }
    bool both = ordered(&a) && ordered(&b);
    if ((op == FX_NODE_LT || op == FX_NODE_LE) && a.kind == FX_FAR_DIST && a.safe &&
        b.kind == FX_FAR_CONST && region(W, &a, b.value))
        return sym(FX_FAR_FALSE, true); /* D < K */
    if (a.kind == FX_FAR_CONST && is_zero(&b) && b.safe &&
        (op == FX_NODE_LT ? a.value >= 0 : a.value > 0))
        return sym(FX_FAR_FALSE, true); /* c < Z, c' <= Z */
    return sym(FX_FAR_BOOL, both);
}

static FxFarSym call(Walk *W, const FxNode *n, const FxGraph *g, const FxFarSym *params,
                     FxFarSym *slots)
{
    FxFunc *f = fx_runtime_func(W->rt, n->text);
    const FxGraph *cg = f ? f->g : NULL;
    if (!cg || W->depth == MAX_DEPTH || fx_func_answers_calls(f) || cg->n_params != n->n_inputs)
        return sym(FX_FAR_OTHER, false);
    for (uint32_t i = 0; i < W->depth; i++)
        if (W->stack[i] == cg)
            return sym(FX_FAR_OTHER, false);
    FxFarSym *cp = fx_xcalloc(cg->n_params + 1, sizeof(FxFarSym));
    FxFarSym *cs = fx_xcalloc(cg->n_slots + 1, sizeof(FxFarSym));
    for (uint32_t i = 0; i < cg->n_params; i++) {
        cp[i] = walk(W, g, n->inputs[i], params, slots);
        if (i < cg->n_slots) /* as the kernel binds them (clgen.c's call) */
            cs[i] = cp[i];
    }
    W->stack[W->depth++] = cg;
    FxFarSym r = walk(W, cg, cg->root, cp, cs);
    W->depth--;
    free(cp);
    free(cs);
    return r;
}

static FxFarSym walk(Walk *W, const FxGraph *g, FxNodeId id, const FxFarSym *params,
                     FxFarSym *slots)
{
    const FxNode *n = fx_graph_node(g, id);
    FxFarSym a, b, c;
    switch (n->op) {
    case FX_NODE_CONST:
        if (!is_float(n) && !fx_typeid_is_integer(n->tid))
            return sym(FX_FAR_OTHER, true);
        a = sym(FX_FAR_CONST, true);
        a.value = strtod(n->text, NULL);
        return a;
    case FX_NODE_PARAM: return params[n->num];
    case FX_NODE_VAR: return slots[n->num];
    case FX_NODE_LET:
        slots[n->num2] = walk(W, g, n->inputs[0], params, slots);
        return walk(W, g, n->inputs[1], params, slots);
    case FX_NODE_FIELD: {
        a = walk(W, g, n->inputs[0], params, slots);
        int f = field_index(W->rec, n->text);
        if (f < 0 || !is_float(n) || (a.kind != FX_FAR_Q && a.kind != FX_FAR_P))
            return sym(FX_FAR_OTHER, a.safe); /* a field's read raises nothing */
        a.kind = a.kind == FX_FAR_Q ? FX_FAR_QF : FX_FAR_PF;
        a.field = (uint32_t)f;
        return a;
    }
    case FX_NODE_SUB: case FX_NODE_ADD: case FX_NODE_MUL: case FX_NODE_DIV: {
        a = walk(W, g, n->inputs[0], params, slots);
        b = walk(W, g, n->inputs[1], params, slots);
        if (!is_float(n)) /* integer arithmetic may overflow: an error */
            return sym(FX_FAR_OTHER, false);
        bool safe = a.safe && b.safe; /* floats never raise */
        if (n->op == FX_NODE_SUB && a.safe && b.safe &&
            ((a.kind == FX_FAR_PF && b.kind == FX_FAR_QF) ||
             (a.kind == FX_FAR_QF && b.kind == FX_FAR_PF)) && a.field == b.field) {
            FxFarSym d = a.kind == FX_FAR_PF ? a : b;
            d.kind = FX_FAR_DIFF;
            return d;
        }
        if (n->op == FX_NODE_MUL && safe && a.kind == FX_FAR_DIFF && b.kind == FX_FAR_DIFF &&
            a.field == b.field && !strcmp(a.p, b.p)) {
            a.kind = FX_FAR_DIST;
            a.mask = 1u << a.field;
            return a;
        }
        if (n->op == FX_NODE_ADD && safe && a.kind == FX_FAR_DIST && b.kind == FX_FAR_DIST &&
            !strcmp(a.p, b.p)) {
            a.mask |= b.mask;
            return a;
        }
        if (n->op != FX_NODE_DIV && is_zero(&a) && is_zero(&b)) /* +-0 and +-0: +-0 */
            return sym(FX_FAR_ZERO, safe);
        return sym(FX_FAR_OTHER, safe);
    }
    case FX_NODE_NEG:
        a = walk(W, g, n->inputs[0], params, slots);
        if (!is_float(n))
            return sym(FX_FAR_OTHER, false);
        return is_zero(&a) ? sym(FX_FAR_ZERO, a.safe) : sym(FX_FAR_OTHER, a.safe);
    case FX_NODE_BUILTIN:
        if (n->n_inputs == 1 && is_float(n) &&
            (!strcmp(n->text, "abs") || !strcmp(n->text, "sqrt"))) {
            a = walk(W, g, n->inputs[0], params, slots);
            bool zero = is_zero(&a) && fx_typeid_kind(fx_graph_node(g, n->inputs[0])->tid) ==
                                               FX_TK_FLOAT; /* sqrt(-0.0) is -0.0 */
            return sym(zero ? FX_FAR_ZERO : FX_FAR_OTHER, a.safe);
        }
        return sym(FX_FAR_OTHER, false);
    case FX_NODE_LT: case FX_NODE_LE: case FX_NODE_GT: case FX_NODE_GE:
        a = walk(W, g, n->inputs[0], params, slots);
        b = walk(W, g, n->inputs[1], params, slots);
        return compare(W, n, a, b);
    case FX_NODE_EQ: case FX_NODE_NE:
        a = walk(W, g, n->inputs[0], params, slots);
        b = walk(W, g, n->inputs[1], params, slots);
        return sym(FX_FAR_BOOL, ordered(&a) && ordered(&b));
    case FX_NODE_AND:
        a = walk(W, g, n->inputs[0], params, slots);
        if (a.kind == FX_FAR_FALSE && a.safe)
            return a; /* the right side is not evaluated */
        b = walk(W, g, n->inputs[1], params, slots);
        if (a.safe && b.kind == FX_FAR_FALSE && b.safe)
            return b;
        return sym(FX_FAR_BOOL, a.safe && b.safe);
    case FX_NODE_OR:
        a = walk(W, g, n->inputs[0], params, slots);
        b = walk(W, g, n->inputs[1], params, slots);
        if (a.kind == FX_FAR_FALSE && b.kind == FX_FAR_FALSE && a.safe && b.safe)
            return a;
        return sym(FX_FAR_BOOL, a.safe && b.safe);
    case FX_NODE_NOT:
        a = walk(W, g, n->inputs[0], params, slots);
        return sym(FX_FAR_BOOL, a.safe);
    case FX_NODE_IF:
        c = walk(W, g, n->inputs[0], params, slots);
        a = walk(W, g, n->inputs[1], params, slots);
        b = walk(W, g, n->inputs[2], params, slots);
        if (c.safe && is_zero(&b) && b.safe &&
            ((c.kind == FX_FAR_FALSE) || (is_zero(&a) && a.safe)))
            return sym(FX_FAR_ZERO, true);
        return sym(FX_FAR_OTHER, c.safe && a.safe && b.safe);
    case FX_NODE_CALL: return call(W, n, g, params, slots);
    default: return sym(FX_FAR_OTHER, false);
    }
}

bool fx_clgrid_far(FxRuntime *rt, const FxGraph *g, FxNodeId body, const FxFarSym *params,
                   const FxFarSym *slots, const FxClRecord *rec, FxFarRegion *out)
{
    *out = (FxFarRegion){0};
    Walk W = {.rt = rt, .rec = rec, .reg = out};
    W.stack[W.depth++] = g;
    FxFarSym *own = fx_xcalloc(g->n_slots + 1, sizeof(FxFarSym));
    memcpy(own, slots, g->n_slots * sizeof(FxFarSym));
    FxFarSym s = walk(&W, g, body, params, own);
    free(own);
    uint32_t dims = (uint32_t)__builtin_popcount(out->mask);
    return is_zero(&s) && s.safe && out->found && dims >= 1 && dims <= 3;
}

/* ---- the host's cells ---- */

/* The cell coordinate of x along one side, as the kernel computes it. */
static int64_t cell_of(double x, double o, double h, int64_t n)
{
    double a = floor((x - o) / h);
    return a < 0 ? 0 : a > (double)(n - 1) ? n - 1 : (int64_t)a;
}

bool fx_clgrid_cells(const double *const coords[3], uint32_t dims, size_t n, double k,
                     FxClCells *out, char *why, size_t why_len)
{
    *out = (FxClCells){.n = {1, 1, 1}};
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (uint32_t d = 0; d < dims; d++) {
        for (size_t i = 0; i < n; i++) {
            double x = coords[d][i];
            if (!isfinite(x)) {
                snprintf(why, why_len, "a coordinate of the neighbour cells is %g", x);
                return false;
            }
            if (i == 0 || x < lo[d])
                lo[d] = x;
            if (i == 0 || x > hi[d])
                hi[d] = x;
        }
        out->o[d] = lo[d];
    }
    /* c: fl(c * c) > k, so |p.f - q.f| >= c makes D > k; h: c with the
     * margin of a cell coordinate's rounding */
    double c = sqrt(k) * (1 + 0x1p-20);
    while (!(c * c > k))
        c = nextafter(c, INFINITY);
    double h = c * (1 + 0x1p-20), cap = (double)(n < 16 ? 64 : 4 * n);
    for (;;) {
        double total = 1;
        for (uint32_t d = 0; d < dims; d++)
            total *= floor((hi[d] - lo[d]) / h) + 1;
        if (total <= cap)
            break;
        h *= 2; /* larger cells are as exact, only slower */
    }
    out->h = h;
    out->cells = 1;
    for (uint32_t d = 0; d < dims; d++) {
        out->n[d] = (int64_t)floor((hi[d] - lo[d]) / h) + 1;
        out->cells *= (size_t)out->n[d];
    }
    out->start = fx_xcalloc(out->cells + 1, sizeof(int64_t));
    out->items = fx_xmalloc((n ? n : 1) * sizeof(int64_t));
    int64_t *cell = fx_xmalloc((n ? n : 1) * sizeof(int64_t));
    for (size_t i = 0; i < n; i++) {
        int64_t at = 0;
        for (uint32_t d = 0; d < 3; d++)
            at = at * out->n[d] +
                 (d < dims ? cell_of(coords[d][i], out->o[d], h, out->n[d]) : 0);
        cell[i] = at;
        out->start[at + 1]++;
    }
    for (size_t j = 0; j < out->cells; j++)
        out->start[j + 1] += out->start[j];
    int64_t *next = fx_xmalloc((out->cells + 1) * sizeof(int64_t));
    memcpy(next, out->start, (out->cells + 1) * sizeof(int64_t));
    for (size_t i = 0; i < n; i++) /* in index order: each cell's items ascend */
        out->items[next[cell[i]]++] = (int64_t)i;
    free(next);
    free(cell);
    return true;
}

void fx_clgrid_cells_free(FxClCells *c)
{
    free(c->start);
    free(c->items);
    *c = (FxClCells){0};
}
