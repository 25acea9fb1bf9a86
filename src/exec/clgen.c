/*
 * clgen.c: an intent's graph as an OpenCL C kernel (clgen.h).
 *
 * Each node becomes a statement that sets a fresh variable, in the order
 * the interpreter evaluates it: the lazy inputs of if, and, or and folds
 * inside their branches and loops. Calls are inlined with the callee's
 * parameters bound to the caller's variables (or, for a list parameter, to
 * the kernel's buffers of the list passed). Anything this file does not
 * translate refuses the plan with a reason, and the call stays on the CPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "clgen.h"
#include "clgrid.h"
#include "graph/typeid.h"
#include "interp_int.h"
#include "lang/resolved.h"
#include "value.h"

#define MAX_INLINE 16 /* nested calls */

/* What a slot or a parameter holds while a graph is emitted. */
typedef enum { B_NONE, B_VAR, B_LIST, B_MATRIX } BindKind;

typedef struct Bind {
    BindKind kind;
    char var[24];   /* B_VAR: the C variable */
    uint32_t param; /* B_LIST, B_MATRIX: the kernel's parameter */
} Bind;

typedef struct Env {
    const FxGraph *g;
    Bind *slots;  /* g->n_slots */
    Bind *params; /* g->n_params */
} Env;

typedef struct Gen {
    FxRuntime *rt;
    FxClPlan *plan;
    FxBuf structs; /* typedefs of the records used */
    const char *records[32];
    uint32_t n_records;
    const FxGraph *stack[MAX_INLINE]; /* the graphs being inlined */
    uint32_t depth;
    uint32_t tmp;
    char *why;
    size_t why_len;
    bool ok;
} Gen;

static bool refuse(Gen *G, const char *fmt, const char *what)
{
    if (G->ok)
        snprintf(G->why, G->why_len, fmt, what);
    G->ok = false;
    return false;
}

static const char *ctype_of(FxClKind k)
{
    return k == FX_CL_K_FLOAT ? "double" : "long"; /* a Bool: 0 or 1, a word like the host's */
}

/* The declared record type `name`, as the device holds it. */
static bool find_record(Gen *G, const char *name, FxClRecord *out)
{
    const FxProgram *prog = fx_runtime_program(G->rt);
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, t, &(*m)->types)
        {
            const FxTypeDecl *d = *t;
            if (strcmp(d->name, name) != 0 || !d->def || d->def->name || !d->field_types)
                continue;
            if (d->def->n_fields > FX_CL_MAX_FIELDS)
                return refuse(G, "the record %s has more than 16 fields", name);
            *out = (FxClRecord){.name = d->name, .n = (uint32_t)d->def->n_fields};
            for (size_t i = 0; i < d->def->n_fields; i++) {
                out->fields[i] = d->def->field_names[i];
                FxTypeKind k = d->field_types[i]->kind;
                if (k == FX_TY_INT || k == FX_TY_NATURAL)
                    out->kinds[i] = FX_CL_K_INT;
                else if (k == FX_TY_FLOAT)
                    out->kinds[i] = FX_CL_K_FLOAT;
                else if (k == FX_TY_BOOL)
                    out->kinds[i] = FX_CL_K_BOOL;
                else
                    return refuse(G, "the record %s has a field that is not a number or a "
                                     "boolean", name);
            }
            return true;
        }
    }
    return refuse(G, "no record type %s", name);
}

/* The device's type of a value of type text (tid): numbers, booleans,
 * records of them, and lists or matrices of those. */
static bool cl_type(Gen *G, FxTypeId tid, const char *text, FxClType *out)
{
    *out = (FxClType){0};
    switch (fx_typeid_kind(tid)) {
    case FX_TK_NATURAL:
    case FX_TK_INT: out->kind = FX_CL_K_INT; return true;
    case FX_TK_FLOAT: out->kind = FX_CL_K_FLOAT; G->plan->uses_float = true; return true;
    case FX_TK_BOOL: out->kind = FX_CL_K_BOOL; return true;
    case FX_TK_RECORD:
        out->kind = FX_CL_K_RECORD;
        if (!find_record(G, text, &out->record))
            return false;
        for (uint32_t i = 0; i < out->record.n; i++)
            G->plan->uses_float |= out->record.kinds[i] == FX_CL_K_FLOAT;
        return true;
    case FX_TK_LIST:
    case FX_TK_MATRIX: {
        FxTypeId e = fx_typeid_elem(tid);
        bool matrix = fx_typeid_kind(tid) == FX_TK_MATRIX;
        out->kind = matrix ? FX_CL_K_MATRIX : FX_CL_K_LIST;
        FxClType et;
        const char *open = strchr(text, '[');
        char name[64] = "";
        if (open) { /* List[P]: P; Matrix[M, N, Int]: the element is the third */
            const char *s = open + 1;
            if (matrix) {
                const char *c2 = strrchr(text, ',');
                s = c2 && c2 > open ? c2 + 1 : "Float]";
                if (!c2 || strchr(open, ',') == c2) /* two arguments: Float */
                    s = "Float]";
            }
            while (*s == ' ')
                s++;
            size_t n = strcspn(s, "]");
            snprintf(name, sizeof(name), "%.*s", (int)(n < 63 ? n : 63), s);
        }
        if (!cl_type(G, e, name, &et))
            return false;
        if (et.kind == FX_CL_K_LIST || et.kind == FX_CL_K_MATRIX || (matrix && et.kind == FX_CL_K_RECORD))
            return refuse(G, "%s nests collections", text);
        out->elem = et.kind;
        out->record = et.record;
        return true;
    }
    default: return refuse(G, "a value of type %s", text);
    }
}

/* A typedef for the record type, once. */
static void use_record(Gen *G, const FxClRecord *r)
{
    for (uint32_t i = 0; i < G->n_records; i++)
        if (!strcmp(G->records[i], r->name))
            return;
    if (G->n_records < 32)
        G->records[G->n_records++] = r->name;
    fx_buf_printf(&G->structs, "typedef struct {");
    for (uint32_t i = 0; i < r->n; i++)
        fx_buf_printf(&G->structs, " %s f_%s;", ctype_of(r->kinds[i]), r->fields[i]);
    fx_buf_printf(&G->structs, " } R_%s;\n", r->name);
}

static void new_var(Gen *G, char out[24])
{
    snprintf(out, 24, "v%u", G->tmp++);
}

static bool expr(Gen *G, Env *E, FxNodeId id, FxBuf *o, char out[24]);

/* What a parameter or a slot node is bound to; NULL for any other node. */
static const Bind *bound(const Env *E, const FxNode *n)
{
    return n->op == FX_NODE_PARAM ? &E->params[n->num]
           : n->op == FX_NODE_VAR ? &E->slots[n->num]
                                  : NULL;
}

/* The C type of a node's value (scalars and records only). */
static bool node_ctype(Gen *G, const FxNode *n, char *buf, size_t len, FxClType *t)
{
    if (!cl_type(G, n->tid, n->type, t))
        return false;
    if (t->kind == FX_CL_K_RECORD) {
        use_record(G, &t->record);
        snprintf(buf, len, "R_%s", t->record.name);
    } else if (t->kind == FX_CL_K_LIST || t->kind == FX_CL_K_MATRIX) {
        return refuse(G, "a %s made inside an element (only parameters may be lists)",
                      n->type);
    } else {
        snprintf(buf, len, "%s", ctype_of(t->kind));
    }
    return true;
}

/* The element `index` of the list bound to b, as a C expression into o's
 * variable out (declared by the caller's type ct). */
static void list_elem(Gen *G, const Bind *b, const char *index, FxBuf *o, const char *out)
{
    const FxClType *t = &G->plan->params[b->param];
    fx_buf_printf(o, "if ((%s) < 0 || (%s) >= n%u) { *err = 1; } else ", index, index,
                  b->param);
    if (t->elem == FX_CL_K_RECORD) {
        fx_buf_printf(o, "{");
        for (uint32_t i = 0; i < t->record.n; i++)
            fx_buf_printf(o, " %s.f_%s = p%u_%u[%s];", out, t->record.fields[i], b->param, i,
                          index);
        fx_buf_printf(o, " }\n");
    } else {
        fx_buf_printf(o, "%s = p%u[%s];\n", out, b->param, index);
    }
}

static bool is_int(const FxNode *n)
{
    return fx_typeid_is_integer(n->tid);
}

static bool is_float(const FxNode *n)
{
    return fx_typeid_kind(n->tid) == FX_TK_FLOAT;
}

/* A number as a double: an integer operand of a float operation. */
static void as_double(FxBuf *o, const FxNode *n, const char *v)
{
    if (is_int(n))
        fx_buf_printf(o, "(double)%s", v);
    else
        fx_buf_puts(o, v);
}

/* Binds slot to the element `index` of the domain, a list parameter or a
 * range's lower bound lo_var plus index. */
static bool bind_elem(Gen *G, Env *E, FxNodeId domain, const char *index, const char *lo_var,
                      uint32_t slot, FxBuf *o)
{
    const FxNode *d = fx_graph_node(E->g, domain);
    Bind *b = &E->slots[slot];
    b->kind = B_VAR;
    new_var(G, b->var);
    if (d->op == FX_NODE_RANGE) {
        fx_buf_printf(o, "long %s = %s + %s;\n", b->var, lo_var, index);
        return true;
    }
    const Bind *lb = bound(E, d);
    if (!lb || lb->kind != B_LIST)
        return refuse(G, "%s", "a fold over a list that is not a parameter");
    const FxClType *t = &G->plan->params[lb->param];
    if (t->elem == FX_CL_K_RECORD) {
        use_record(G, &t->record);
        fx_buf_printf(o, "R_%s %s;\n", t->record.name, b->var);
    } else {
        fx_buf_printf(o, "%s %s;\n", ctype_of(t->elem), b->var);
    }
    list_elem(G, lb, index, o, b->var);
    return true;
}

/* The bounds and length of a fold's domain: a range (lo, hi variables) or
 * a list parameter (0, its length). */
static bool domain(Gen *G, Env *E, FxNodeId dom, FxBuf *o, char lo[24], char len[24])
{
    const FxNode *d = fx_graph_node(E->g, dom);
    new_var(G, len);
    if (d->op == FX_NODE_RANGE) {
        char hi[24];
        if (!expr(G, E, d->inputs[0], o, lo) || !expr(G, E, d->inputs[1], o, hi))
            return false;
        fx_buf_printf(o, "long %s = %s%s > %s ? %s%s - %s : 0;\n", len, hi, d->num ? " + 1" : "",
                      lo, hi, d->num ? " + 1" : "", lo);
        if (d->num)
            fx_buf_printf(o, "if (%s == 0x7fffffffffffffffL) *err = 1;\n", hi);
        return true;
    }
    const Bind *lb = bound(E, d);
    if (!lb || lb->kind != B_LIST)
        return refuse(G, "%s", "a fold over a list built inside the element");
    snprintf(lo, 24, "0L");
    fx_buf_printf(o, "long %s = n%u;\n", len, lb->param);
    return true;
}

/* A float sum over a list parameter of records, with no filter, whose
 * terms are exactly zero far from an element in scope (clgrid.h): it
 * visits neighbour cells. The cells are arguments of the kernel, one set:
 * every such sum is over the same list and fields. FLUX_OPENCL_CELLS=off
 * visits every element. */
static bool grid_sum(Gen *G, Env *E, const FxNode *n, FxFarRegion *far)
{
    const FxNode *d = fx_graph_node(E->g, n->inputs[0]);
    const Bind *lb = bound(E, d);
    const char *env = getenv("FLUX_OPENCL_CELLS");
    if (n->inputs[1].v || !lb || lb->kind != B_LIST ||
        (G->plan->grid && G->plan->grid_list != lb->param) ||
        G->plan->params[lb->param].elem != FX_CL_K_RECORD || (env && !strcmp(env, "off")))
        return false;
    FxFarSym *ps = fx_xcalloc(E->g->n_params + 1, sizeof(FxFarSym));
    FxFarSym *ss = fx_xcalloc(E->g->n_slots + 1, sizeof(FxFarSym));
    for (uint32_t k = 0; k < E->g->n_params; k++)
        if (E->params[k].kind == B_VAR) /* a record, if a field of it is read */
            ps[k] = (FxFarSym){.kind = FX_FAR_P, .safe = true};
    for (uint32_t k = 0; k < E->g->n_params; k++)
        snprintf(ps[k].p, sizeof(ps[k].p), "%s", E->params[k].var);
    for (uint32_t k = 0; k < E->g->n_slots; k++) {
        if (E->slots[k].kind == B_VAR)
            ss[k] = (FxFarSym){.kind = FX_FAR_P, .safe = true};
        snprintf(ss[k].p, sizeof(ss[k].p), "%s", E->slots[k].var);
    }
    ss[n->num2] = (FxFarSym){.kind = FX_FAR_Q, .safe = true};
    const FxClRecord *rec = &G->plan->params[lb->param].record;
    bool ok = fx_clgrid_far(G->rt, E->g, n->inputs[2], ps, ss, rec, far);
    free(ps);
    free(ss);
    FxClPlan *p = G->plan;
    uint32_t dims = 0, field[3] = {0, 0, 0};
    for (uint32_t f = 0; ok && f < rec->n; f++)
        if (far->mask >> f & 1)
            field[dims++] = f;
    /* another sum over the same list shares the cells when it tests the
     * same fields: they are built for the largest distance */
    if (!ok || (p->grid && (p->grid_dims != dims || memcmp(p->grid_field, field, sizeof(field)))))
        return false;
    if (!p->grid || far->k > p->grid_k)
        p->grid_k = far->k;
    p->grid = true;
    p->grid_list = lb->param;
    p->grid_dims = dims;
    memcpy(p->grid_field, field, sizeof(field));
    return true;
}

/* The loop of a grid sum: the elements of the 3^d cells around the
 * element's, in ascending index order (each cell's are ascending: the
 * smallest next one of the cells is taken each time), as index i. */
static void grid_loop(Gen *G, const FxFarRegion *far, const char *i, FxBuf *o)
{
    const FxClPlan *p = G->plan;
    const FxClRecord *rec = &p->params[p->grid_list].record;
    fx_buf_printf(o, "long %s_lo[3] = {0, 0, 0}, %s_hi[3] = {0, 0, 0};\n", i, i);
    for (uint32_t d = 0; d < p->grid_dims; d++) {
        fx_buf_printf(o, "{ double x = %s.f_%s; if (!isfinite(x)) *err = 1;\n"
                         "double a = floor((x - go%u) / gh); a = a < -2.0 ? -2.0 : a > "
                         "(double)gn%u + 1.0 ? (double)gn%u + 1.0 : a;\n"
                         "long c = (long)a; %s_lo[%u] = c - 1 < 0 ? 0 : c - 1; %s_hi[%u] = c + 1 "
                         "> gn%u - 1 ? gn%u - 1 : c + 1; }\n",
                      far->p, rec->fields[p->grid_field[d]], d, d, d, i, d, i, d, d, d);
    }
    fx_buf_printf(o, "long %s_cur[27], %s_end[27]; int %s_nc = 0;\n", i, i, i);
    fx_buf_printf(o, "for (long c0 = %s_lo[0]; c0 <= %s_hi[0]; c0++)\n"
                     "for (long c1 = %s_lo[1]; c1 <= %s_hi[1]; c1++)\n"
                     "for (long c2 = %s_lo[2]; c2 <= %s_hi[2]; c2++) {\n"
                     "long cell = (c0 * gn1 + c1) * gn2 + c2;\n"
                     "if (gstart[cell] < gstart[cell + 1]) { %s_cur[%s_nc] = gstart[cell]; "
                     "%s_end[%s_nc++] = gstart[cell + 1]; }\n}\n",
                  i, i, i, i, i, i, i, i, i, i);
    fx_buf_printf(o, "for (;;) {\nif (*err) break;\nlong %s = -1; int %s_at = -1;\n"
                     "for (int c = 0; c < %s_nc; c++)\n"
                     "if (%s_cur[c] < %s_end[c] && (%s < 0 || gitems[%s_cur[c]] < %s)) "
                     "{ %s = gitems[%s_cur[c]]; %s_at = c; }\n"
                     "if (%s_at < 0) break;\n%s_cur[%s_at]++;\n",
                  i, i, i, i, i, i, i, i, i, i, i, i, i, i);
}

/* A fold inside an element: sequential, in the definition's order. */
static bool fold(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    FxFoldKind k = (FxFoldKind)n->num;
    if (n->kernel)
        return refuse(G, "%s", "a fold that a CPU kernel runs");
    if (k != FX_FOLD_SUM && k != FX_FOLD_PRODUCT && k != FX_FOLD_COUNT && k != FX_FOLD_ALL &&
        k != FX_FOLD_ANY && k != FX_FOLD_MIN && k != FX_FOLD_MAX)
        return refuse(G, "%s", "a list built inside an element");
    const FxNode *body = fx_graph_node(E->g, n->inputs[2]);
    bool fl = is_float(n);
    if (fl && (k == FX_FOLD_MIN || k == FX_FOLD_MAX))
        return refuse(G, "%s", "min or max of floats (its NaN and -0.0 rules)");
    char lo[24], len[24], i[24];
    if (!domain(G, E, n->inputs[0], o, lo, len))
        return false;
    new_var(G, out);
    new_var(G, i);
    const char *ct = fl ? "double" : k == FX_FOLD_ALL || k == FX_FOLD_ANY ? "int" : "long";
    const char *init = k == FX_FOLD_PRODUCT || k == FX_FOLD_ALL ? "1" : "0";
    fx_buf_printf(o, "%s %s = %s; int %s_has = 0;\n", ct, out, init, out);
    FxFarRegion far;
    if (fl && k == FX_FOLD_SUM && grid_sum(G, E, n, &far))
        grid_loop(G, &far, i, o);
    else
        fx_buf_printf(o, "for (long %s = 0; %s < %s && !*err; %s++) {\n", i, i, len, i);
    if (!bind_elem(G, E, n->inputs[0], i, lo, (uint32_t)n->num2, o))
        return false;
    if (n->inputs[1].v) {
        char c[24];
        if (!expr(G, E, n->inputs[1], o, c))
            return false;
        fx_buf_printf(o, "if (!%s) continue;\n", c);
    }
    if (k == FX_FOLD_COUNT) {
        fx_buf_printf(o, "%s++; %s_has = 1;\n}\n", out, out);
        return true;
    }
    char b[24];
    if (!expr(G, E, n->inputs[2], o, b))
        return false;
    switch (k) {
    case FX_FOLD_SUM:
    case FX_FOLD_PRODUCT:
        if (fl) {
            fx_buf_printf(o, "%s = %s %c ", out, out, k == FX_FOLD_SUM ? '+' : '*');
            as_double(o, body, b);
            fx_buf_printf(o, ";\n");
        } else {
            fx_buf_printf(o, "%s = fx_%s(%s, %s, err);\n", out, k == FX_FOLD_SUM ? "add" : "mul",
                          out, b);
        }
        break;
    case FX_FOLD_ALL: fx_buf_printf(o, "if (!%s) { %s = 0; break; }\n", b, out); break;
    case FX_FOLD_ANY: fx_buf_printf(o, "if (%s) { %s = 1; break; }\n", b, out); break;
    case FX_FOLD_MIN:
    case FX_FOLD_MAX:
        fx_buf_printf(o, "if (!%s_has || %s %c %s) %s = %s;\n", out, b,
                      k == FX_FOLD_MIN ? '<' : '>', out, out, b);
        break;
    default: break;
    }
    fx_buf_printf(o, "%s_has = 1;\n}\n", out);
    /* an empty sum of floats is the integer 0 to the interpreter, and an
     * empty min or max its error: the CPU answers those */
    if (fl || k == FX_FOLD_MIN || k == FX_FOLD_MAX)
        fx_buf_printf(o, "if (!%s_has) *err = 1;\n", out);
    return true;
}

/* The builtins with a correctly rounded or exact device equivalent. */
static bool builtin(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    const char *name = n->text;
    char a[24], b[24];
    if ((!strcmp(name, "len") || !strcmp(name, "rows") || !strcmp(name, "cols")) &&
        n->n_inputs == 1) {
        const FxNode *x = fx_graph_node(E->g, n->inputs[0]);
        const Bind *lb = bound(E, x);
        if (!lb || (lb->kind != B_LIST && lb->kind != B_MATRIX))
            return refuse(G, "%s of a value made inside an element", name);
        new_var(G, out);
        const char *v = lb->kind == B_LIST ? "n" : !strcmp(name, "cols") ? "c" : "r";
        fx_buf_printf(o, "long %s = %s%u;\n", out, v, lb->param);
        return true;
    }
    if (n->n_inputs == 1 && !expr(G, E, n->inputs[0], o, a))
        return false;
    const FxNode *x = n->n_inputs ? fx_graph_node(E->g, n->inputs[0]) : NULL;
    static const char *const exact[] = {"sqrt", "floor", "ceil", "round"};
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]) && n->n_inputs == 1; i++) {
        if (strcmp(name, exact[i]) != 0)
            continue;
        new_var(G, out);
        fx_buf_printf(o, "double %s = %s(", out, name);
        as_double(o, x, a);
        fx_buf_printf(o, ");\n");
        return true;
    }
    if (!strcmp(name, "float") && n->n_inputs == 1) {
        new_var(G, out);
        fx_buf_printf(o, "double %s = ", out);
        as_double(o, x, a);
        fx_buf_printf(o, ";\n");
        return true;
    }
    if (!strcmp(name, "abs") && n->n_inputs == 1) {
        new_var(G, out);
        if (is_float(x))
            fx_buf_printf(o, "double %s = fabs(%s);\n", out, a);
        else
            fx_buf_printf(o, "long %s = fx_neg(%s < 0 ? %s : -%s, err); %s = -%s;\n", out, a, a,
                          a, out, out);
        return true;
    }
    if ((!strcmp(name, "min") || !strcmp(name, "max")) && n->n_inputs == 2) {
        const FxNode *y = fx_graph_node(E->g, n->inputs[1]);
        if (!is_int(x) || !is_int(y))
            return refuse(G, "%s of floats (its NaN and -0.0 rules)", name);
        if (!expr(G, E, n->inputs[0], o, a) || !expr(G, E, n->inputs[1], o, b))
            return false;
        new_var(G, out);
        fx_buf_printf(o, "long %s = %s %c %s ? %s : %s;\n", out, a, name[1] == 'i' ? '<' : '>', b,
                      a, b);
        return true;
    }
    return refuse(G, "the builtin `%s` (not translated for OpenCL, or not correctly rounded "
                     "there)", name);
}

static bool call(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24]);

static bool arith(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    char a[24], b[24];
    const FxNode *x = fx_graph_node(E->g, n->inputs[0]), *y = fx_graph_node(E->g, n->inputs[1]);
    if (!expr(G, E, n->inputs[0], o, a) || !expr(G, E, n->inputs[1], o, b))
        return false;
    new_var(G, out);
    if (is_float(n)) {
        if (n->op == FX_NODE_IDIV || n->op == FX_NODE_MOD || n->op == FX_NODE_POW)
            return refuse(G, "%s on floats (not correctly rounded on OpenCL)",
                          n->op == FX_NODE_POW ? "`^`" : "`//` or `%`");
        static const char ops[] = {[FX_NODE_ADD] = '+', [FX_NODE_SUB] = '-',
                                   [FX_NODE_MUL] = '*', [FX_NODE_DIV] = '/'};
        fx_buf_printf(o, "double %s = ", out);
        as_double(o, x, a);
        fx_buf_printf(o, " %c ", ops[n->op]);
        as_double(o, y, b);
        fx_buf_printf(o, ";\n");
        return true;
    }
    if (!is_int(x) || !is_int(y))
        return refuse(G, "%s", "arithmetic on values that are not numbers");
    switch (n->op) {
    case FX_NODE_ADD: fx_buf_printf(o, "long %s = fx_add(%s, %s, err);\n", out, a, b); break;
    case FX_NODE_SUB: fx_buf_printf(o, "long %s = fx_sub(%s, %s, err);\n", out, a, b); break;
    case FX_NODE_MUL: fx_buf_printf(o, "long %s = fx_mul(%s, %s, err);\n", out, a, b); break;
    case FX_NODE_IDIV: fx_buf_printf(o, "long %s = fx_idiv(%s, %s, err);\n", out, a, b); break;
    case FX_NODE_MOD: fx_buf_printf(o, "long %s = fx_mod(%s, %s, err);\n", out, a, b); break;
    case FX_NODE_POW: {
        const FxNode *e = fx_graph_node(E->g, n->inputs[1]);
        if (e->op != FX_NODE_CONST || strcmp(e->text, "2") != 0)
            return refuse(G, "%s", "`^` on integers with an exponent other than 2");
        fx_buf_printf(o, "long %s = fx_mul(%s, %s, err);\n", out, a, a);
        break;
    }
    default: return refuse(G, "%s", "an operation on integers");
    }
    if (fx_typeid_kind(n->tid) == FX_TK_NATURAL)
        fx_buf_printf(o, "if (%s < 0) *err = 1;\n", out);
    return true;
}

static bool compare(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    static const char *const cmp[] = {"==", "!=", "<", "<=", ">", ">="};
    const FxNode *x = fx_graph_node(E->g, n->inputs[0]), *y = fx_graph_node(E->g, n->inputs[1]);
    bool num = (is_int(x) || is_float(x)) && (is_int(y) || is_float(y));
    bool bools = fx_typeid_kind(x->tid) == FX_TK_BOOL && fx_typeid_kind(y->tid) == FX_TK_BOOL;
    if (!num && !(bools && (n->op == FX_NODE_EQ || n->op == FX_NODE_NE)))
        return refuse(G, "%s", "a comparison of values that are not numbers");
    char a[24], b[24];
    if (!expr(G, E, n->inputs[0], o, a) || !expr(G, E, n->inputs[1], o, b))
        return false;
    new_var(G, out);
    if (is_float(x) || is_float(y)) { /* a NaN has no order: the interpreter's error */
        fx_buf_printf(o, "if (isnan((double)%s) || isnan((double)%s)) *err = 1;\n", a, b);
        fx_buf_printf(o, "int %s = ", out);
        as_double(o, x, a);
        fx_buf_printf(o, " %s ", cmp[n->op - FX_NODE_EQ]);
        as_double(o, y, b);
        fx_buf_printf(o, ";\n");
    } else {
        fx_buf_printf(o, "int %s = %s %s %s;\n", out, a, cmp[n->op - FX_NODE_EQ], b);
    }
    return true;
}

/* A lazy choice: if, and, or. */
static bool branch(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    char c[24], t[24], e[24], ct[48];
    FxClType ty;
    if (!node_ctype(G, n, ct, sizeof(ct), &ty) || !expr(G, E, n->inputs[0], o, c))
        return false;
    new_var(G, out);
    fx_buf_printf(o, "%s %s;\n", ct, out);
    if (n->op == FX_NODE_AND || n->op == FX_NODE_OR) {
        fx_buf_printf(o, "if (%s%s) { %s = %d; } else {\n", n->op == FX_NODE_AND ? "!" : "", c,
                      out, n->op == FX_NODE_OR);
        if (!expr(G, E, n->inputs[1], o, t))
            return false;
        fx_buf_printf(o, "%s = %s;\n}\n", out, t);
        return true;
    }
    fx_buf_printf(o, "if (%s) {\n", c);
    if (!expr(G, E, n->inputs[1], o, t))
        return false;
    fx_buf_printf(o, "%s = %s;\n} else {\n", out, t);
    if (!expr(G, E, n->inputs[2], o, e))
        return false;
    fx_buf_printf(o, "%s = %s;\n}\n", out, e);
    return true;
}

static bool record(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    char ct[48];
    FxClType ty;
    if (!node_ctype(G, n, ct, sizeof(ct), &ty))
        return false;
    char vars[FX_CL_MAX_FIELDS][24];
    /* the node's fields, in its text's order, are the inputs' */
    const char *names[FX_CL_MAX_FIELDS];
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", n->text);
    uint32_t k = 0;
    for (char *s = strtok(buf, ","); s && k < FX_CL_MAX_FIELDS; s = strtok(NULL, ","))
        names[k++] = s;
    if (k != n->n_inputs || k != ty.record.n)
        return refuse(G, "%s", "a record literal of other fields than its type's");
    for (uint32_t i = 0; i < k; i++)
        if (!expr(G, E, n->inputs[i], o, vars[i]))
            return false;
    new_var(G, out);
    fx_buf_printf(o, "%s %s;\n", ct, out);
    for (uint32_t i = 0; i < k; i++) {
        const FxNode *x = fx_graph_node(E->g, n->inputs[i]);
        FxClKind fk = FX_CL_K_INT;
        for (uint32_t f = 0; f < ty.record.n; f++)
            if (!strcmp(ty.record.fields[f], names[i]))
                fk = ty.record.kinds[f];
        fx_buf_printf(o, "%s.f_%s = ", out, names[i]);
        if (fk == FX_CL_K_FLOAT)
            as_double(o, x, vars[i]);
        else
            fx_buf_puts(o, vars[i]);
        fx_buf_printf(o, ";\n");
    }
    return true;
}

static bool expr(Gen *G, Env *E, FxNodeId id, FxBuf *o, char out[24])
{
    if (!G->ok)
        return false;
    const FxNode *n = fx_graph_node(E->g, id);
    switch (n->op) {
    case FX_NODE_CONST: {
        new_var(G, out);
        if (is_float(n)) {
            char *end;
            double v = strtod(n->text, &end);
            fx_buf_printf(o, "double %s = %a;\n", out, v);
        } else if (fx_typeid_kind(n->tid) == FX_TK_BOOL) {
            fx_buf_printf(o, "int %s = %d;\n", out, !strcmp(n->text, "true"));
        } else if (is_int(n)) {
            char *end;
            errno = 0;
            long long v = strtoll(n->text, &end, 10);
            if (errno || *end)
                return refuse(G, "the integer %s, beyond 64 bits", n->text);
            fx_buf_printf(o, "long %s = %lldL;\n", out, v);
        } else {
            return refuse(G, "a constant of type %s", n->type);
        }
        return true;
    }
    case FX_NODE_PARAM:
    case FX_NODE_VAR: {
        const Bind *b = n->op == FX_NODE_PARAM ? &E->params[n->num] : &E->slots[n->num];
        if (b->kind != B_VAR)
            return refuse(G, "%s", "a list or matrix used whole inside an element");
        snprintf(out, 24, "%s", b->var);
        return true;
    }
    case FX_NODE_NEG: {
        char a[24];
        if (!expr(G, E, n->inputs[0], o, a))
            return false;
        new_var(G, out);
        if (is_float(n))
            fx_buf_printf(o, "double %s = -%s;\n", out, a);
        else
            fx_buf_printf(o, "long %s = fx_neg(%s, err);\n", out, a);
        return true;
    }
    case FX_NODE_NOT: {
        char a[24];
        if (!expr(G, E, n->inputs[0], o, a))
            return false;
        new_var(G, out);
        fx_buf_printf(o, "int %s = !%s;\n", out, a);
        return true;
    }
    case FX_NODE_ADD: case FX_NODE_SUB: case FX_NODE_MUL: case FX_NODE_DIV:
    case FX_NODE_IDIV: case FX_NODE_MOD: case FX_NODE_POW:
        return arith(G, E, n, o, out);
    case FX_NODE_EQ: case FX_NODE_NE: case FX_NODE_LT: case FX_NODE_LE: case FX_NODE_GT:
    case FX_NODE_GE:
        return compare(G, E, n, o, out);
    case FX_NODE_AND: case FX_NODE_OR: case FX_NODE_IF:
        return branch(G, E, n, o, out);
    case FX_NODE_CALL: return call(G, E, n, o, out);
    case FX_NODE_BUILTIN: return builtin(G, E, n, o, out);
    case FX_NODE_FIELD: {
        char a[24], ct[48];
        FxClType ty;
        if (!node_ctype(G, n, ct, sizeof(ct), &ty) || !expr(G, E, n->inputs[0], o, a))
            return false;
        new_var(G, out);
        fx_buf_printf(o, "%s %s = %s.f_%s;\n", ct, out, a, n->text);
        return true;
    }
    case FX_NODE_RECORD: return record(G, E, n, o, out);
    case FX_NODE_INDEX: {
        const FxNode *base = fx_graph_node(E->g, n->inputs[0]);
        const Bind *lb = bound(E, base);
        if (!lb || (lb->kind != B_LIST && lb->kind != B_MATRIX))
            return refuse(G, "%s", "an index into a value made inside an element");
        char i[24], j[24], ct[48];
        FxClType ty;
        if (!node_ctype(G, n, ct, sizeof(ct), &ty) || !expr(G, E, n->inputs[1], o, i))
            return false;
        new_var(G, out);
        fx_buf_printf(o, "%s %s;\n", ct, out);
        if (lb->kind == B_LIST && n->n_inputs == 2) {
            list_elem(G, lb, i, o, out);
            return true;
        }
        if (lb->kind != B_MATRIX || n->n_inputs != 3 || !expr(G, E, n->inputs[2], o, j))
            return refuse(G, "%s", "an index of another shape");
        fx_buf_printf(o, "if (%s < 0 || %s >= r%u || %s < 0 || %s >= c%u) { *err = 1; %s = 0; }"
                         " else %s = p%u[%s * c%u + %s];\n", i, i, lb->param, j, j, lb->param,
                      out, out, lb->param, i, lb->param, j);
        return true;
    }
    case FX_NODE_FOLD: return fold(G, E, n, o, out);
    case FX_NODE_LET: {
        char v[24];
        if (!expr(G, E, n->inputs[0], o, v))
            return false;
        Bind *b = &E->slots[n->num2];
        b->kind = B_VAR;
        snprintf(b->var, sizeof(b->var), "%s", v);
        return expr(G, E, n->inputs[1], o, out);
    }
    case FX_NODE_FAIL:
        new_var(G, out);
        fx_buf_printf(o, "*err = 1; long %s = 0;\n", out); /* the CPU reports it */
        return refuse(G, "%s", "a case no equation covers inside an element");
    default: {
        static const char *const names[] = {[FX_NODE_LIST] = "a list literal",
            [FX_NODE_RANGE] = "a range used as a list", [FX_NODE_MAP] = "a matrix built inside "
            "an element", [FX_NODE_SORT] = "a sort", [FX_NODE_CONCAT] = "a concatenation",
            [FX_NODE_DATA] = "a data source", [FX_NODE_GROUP] = "a grouping",
            [FX_NODE_CHECK] = "a checked value", [FX_NODE_CHOOSE] = "a choice of "
            "implementations"};
        const char *what = (size_t)n->op < sizeof(names) / sizeof(names[0]) && names[n->op]
                                   ? names[n->op]
                                   : "an operation";
        return refuse(G, "%s (not translated for OpenCL)", what);
    }
    }
}

/* A call, inlined: the callee's parameters bound to the arguments. */
static bool call(Gen *G, Env *E, const FxNode *n, FxBuf *o, char out[24])
{
    FxFunc *f = fx_runtime_func(G->rt, n->text);
    const FxGraph *g = f ? f->g : NULL;
    if (!g)
        return refuse(G, "a call of %s, which has no graph", n->text);
    for (uint32_t i = 0; i < G->depth; i++)
        if (G->stack[i] == g)
            return refuse(G, "%s calls itself (OpenCL has no recursion)", g->intent);
    if (G->depth == MAX_INLINE)
        return refuse(G, "%s: calls nested more than 16 deep", g->intent);
    if (fx_func_answers_calls(f) || g->n_params != n->n_inputs)
        return refuse(G, "%s is answered by a kernel on the CPU", g->intent);
    Bind *slots = fx_xcalloc(g->n_slots + 1, sizeof(Bind));
    Bind *params = fx_xcalloc(g->n_params + 1, sizeof(Bind));
    Env inner = {g, slots, params};
    bool ok = true;
    for (uint32_t i = 0; ok && i < g->n_params; i++) {
        const FxNode *a = fx_graph_node(E->g, n->inputs[i]);
        const Bind *ab = bound(E, a);
        if (ab && (ab->kind == B_LIST || ab->kind == B_MATRIX)) {
            params[i] = *ab; /* the kernel's buffers, passed through */
        } else {
            ok = expr(G, E, n->inputs[i], o, params[i].var);
            params[i].kind = B_VAR;
            if (ok && fx_typeid_kind(g->param_tids[i]) == FX_TK_NATURAL)
                fx_buf_printf(o, "if (%s < 0) *err = 1;\n", params[i].var);
        }
        if (i < g->n_slots)
            slots[i] = params[i];
    }
    G->stack[G->depth++] = g;
    ok = ok && expr(G, &inner, g->root, o, out);
    G->depth--;
    free(slots);
    free(params);
    return ok;
}

static const char prelude[] =
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        "#pragma OPENCL FP_CONTRACT OFF\n"
        "/* checked integer arithmetic: an overflow sets the error word, and the CPU\n"
        " * runs the call (exactly, past 64 bits) */\n"
        "static long fx_add(long a, long b, __global int *err) { long r = (long)((ulong)a +"
        " (ulong)b); if (((a ^ r) & (b ^ r)) < 0) *err = 1; return r; }\n"
        "static long fx_sub(long a, long b, __global int *err) { long r = (long)((ulong)a -"
        " (ulong)b); if (((a ^ b) & (a ^ r)) < 0) *err = 1; return r; }\n"
        "static long fx_mul(long a, long b, __global int *err) { long r = (long)((ulong)a *"
        " (ulong)b); if (mul_hi(a, b) != (r >> 63)) *err = 1; return r; }\n"
        "static long fx_neg(long a, __global int *err) { if (a == (-0x7fffffffffffffffL - 1))"
        " *err = 1; return (long)(0UL - (ulong)a); }\n"
        "static long fx_idiv(long a, long b, __global int *err) { if (b <= 0) { *err = 1;"
        " return 0; } long q = a / b; if (a % b < 0) q--; return q; }\n"
        "static long fx_mod(long a, long b, __global int *err) { if (b <= 0) { *err = 1;"
        " return 0; } long m = a % b; if (m < 0) m += b; return m; }\n";

/* The kernel's arguments for parameter k, and its binding. */
static bool param(Gen *G, const FxGraph *g, uint32_t k, FxBuf *sig, FxBuf *o, Bind *b)
{
    FxClType *t = &G->plan->params[k];
    const char *text = g->param_types ? g->param_types[k] : "";
    if (!cl_type(G, g->param_tids[k], text, t))
        return false;
    b->param = k;
    switch (t->kind) {
    case FX_CL_K_LIST:
        b->kind = B_LIST;
        if (t->elem == FX_CL_K_RECORD)
            for (uint32_t f = 0; f < t->record.n; f++)
                fx_buf_printf(sig, "__global const %s *p%u_%u, ", ctype_of(t->record.kinds[f]), k,
                              f);
        else
            fx_buf_printf(sig, "__global const %s *p%u, ", ctype_of(t->elem), k);
        fx_buf_printf(sig, "long n%u, ", k);
        return true;
    case FX_CL_K_MATRIX:
        b->kind = B_MATRIX;
        fx_buf_printf(sig, "__global const %s *p%u, long r%u, long c%u, ", ctype_of(t->elem), k,
                      k, k);
        return true;
    case FX_CL_K_RECORD:
        b->kind = B_VAR;
        use_record(G, &t->record);
        snprintf(b->var, sizeof(b->var), "p%u", k);
        fx_buf_printf(o, "R_%s p%u;", t->record.name, k);
        for (uint32_t f = 0; f < t->record.n; f++) {
            fx_buf_printf(sig, "%s p%u_%u, ", ctype_of(t->record.kinds[f]), k, f);
            fx_buf_printf(o, " p%u.f_%s = p%u_%u;", k, t->record.fields[f], k, f);
        }
        fx_buf_printf(o, "\n");
        return true;
    default:
        b->kind = B_VAR;
        snprintf(b->var, sizeof(b->var), "p%u", k);
        fx_buf_printf(sig, "%s p%u, ", ctype_of(t->kind), k);
        if (fx_typeid_kind(g->param_tids[k]) == FX_TK_NATURAL)
            fx_buf_printf(o, "if (p%u < 0) *err = 1;\n", k);
        return true;
    }
}

/* The output buffers of an element of type t, and its store at index. */
static void outputs(Gen *G, const FxClType *t, FxBuf *sig)
{
    if (t->kind == FX_CL_K_RECORD) {
        use_record(G, &t->record);
        for (uint32_t f = 0; f < t->record.n; f++)
            fx_buf_printf(sig, ", __global %s *out%u", ctype_of(t->record.kinds[f]), f);
    } else {
        fx_buf_printf(sig, ", __global %s *out0", ctype_of(t->kind));
    }
}

static void store(const FxClType *t, const char *v, const char *index, const FxNode *body,
                  FxBuf *o)
{
    if (t->kind == FX_CL_K_RECORD) {
        for (uint32_t f = 0; f < t->record.n; f++)
            fx_buf_printf(o, "out%u[%s] = %s.f_%s;\n", f, index, v, t->record.fields[f]);
    } else if (t->kind == FX_CL_K_FLOAT) {
        fx_buf_printf(o, "out0[%s] = ", index);
        as_double(o, body, v);
        fx_buf_printf(o, ";\n");
    } else {
        fx_buf_printf(o, "out0[%s] = %s;\n", index, v);
    }
}

/* The element type of a list or matrix node (its result). */
static bool elem_type(Gen *G, const FxNode *n, FxClType *out)
{
    FxClType t;
    if (!cl_type(G, n->tid, n->type, &t))
        return false;
    if (t.kind != FX_CL_K_LIST && t.kind != FX_CL_K_MATRIX)
        return refuse(G, "a result of type %s", n->type);
    *out = (FxClType){.kind = t.elem, .record = t.record};
    return true;
}

/* A size a plan's launch needs: built only of what fx_clgen_size reads. */
static bool size_node(Gen *G, const FxGraph *g, FxNodeId id)
{
    const FxNode *n = fx_graph_node(g, id);
    switch (n->op) {
    case FX_NODE_CONST:
    case FX_NODE_PARAM: return is_int(n) || refuse(G, "%s", "a size that is not an integer");
    case FX_NODE_BUILTIN:
        return (n->n_inputs == 1 && fx_graph_node(g, n->inputs[0])->op == FX_NODE_PARAM &&
                (!strcmp(n->text, "len") || !strcmp(n->text, "rows") ||
                 !strcmp(n->text, "cols"))) ||
               refuse(G, "%s", "a size computed by more than len, rows or cols of a parameter");
    case FX_NODE_ADD:
    case FX_NODE_SUB:
    case FX_NODE_MUL: return size_node(G, g, n->inputs[0]) && size_node(G, g, n->inputs[1]);
    default: return refuse(G, "%s", "a size computed by more than + - * of the parameters");
    }
}

bool fx_clgen_plan(FxRuntime *rt, const FxGraph *g, FxClPlan *out, char *why, size_t why_len)
{
    *out = (FxClPlan){0};
    Gen G = {.rt = rt, .plan = out, .why = why, .why_len = why_len, .ok = true};
    if (g->n_params > 16) {
        snprintf(why, why_len, "more than 16 parameters");
        return false;
    }
    FxNodeId par = g->root, guard = {0};
    const FxNode *r = fx_graph_node(g, par);
    if (r->op == FX_NODE_IF && fx_graph_node(g, r->inputs[2])->op == FX_NODE_FAIL) {
        guard = r->inputs[0]; /* the arguments' check: an error word when it fails */
        par = r->inputs[1];
        r = fx_graph_node(g, par);
    }
    out->par = par;
    FxBuf sig = {0}, o = {0}, src = {0};
    Bind *slots = fx_xcalloc(g->n_slots + 1, sizeof(Bind));
    Bind *params = fx_xcalloc(g->n_params + 1, sizeof(Bind));
    Env E = {g, slots, params};
    out->n_params = g->n_params;
    G.stack[G.depth++] = g;
    for (uint32_t k = 0; G.ok && k < g->n_params; k++)
        if (param(&G, g, k, &sig, &o, &params[k]) && k < g->n_slots)
            slots[k] = params[k];
    FxNodeId body = {0};
    const char *index = "gi";
    if (!G.ok) {
    } else if (r->op == FX_NODE_FOLD && r->num == FX_FOLD_COLLECT && !r->kernel &&
               !r->inputs[1].v) {
        const FxNode *d = fx_graph_node(g, r->inputs[0]);
        out->shape = d->op == FX_NODE_RANGE ? FX_CL_SHAPE_RANGE : FX_CL_SHAPE_LIST;
        body = r->inputs[2];
        if (elem_type(&G, r, &out->out) && out->shape == FX_CL_SHAPE_RANGE) {
            out->lo = d->inputs[0];
            out->hi = d->inputs[1];
            if (d->num)
                refuse(&G, "%s", "an inclusive range (a half-open one is translated)");
            else if (size_node(&G, g, out->lo) && size_node(&G, g, out->hi))
                fx_buf_printf(&o, "long s%u = lo + gi;\n", (unsigned)r->num2);
        } else if (G.ok) {
            if (d->op != FX_NODE_PARAM || params[d->num].kind != B_LIST)
                refuse(&G, "%s", "an element-wise result over a list that is not a parameter");
            else
                out->list = (uint32_t)d->num;
        }
        if (G.ok) {
            slots[r->num2].kind = B_VAR;
            snprintf(slots[r->num2].var, sizeof(slots[r->num2].var), "s%u", (unsigned)r->num2);
            if (out->shape == FX_CL_SHAPE_LIST) {
                const FxClType *lt = &out->params[out->list];
                if (lt->elem == FX_CL_K_RECORD)
                    fx_buf_printf(&o, "R_%s s%u;\n", lt->record.name, (unsigned)r->num2);
                else
                    fx_buf_printf(&o, "%s s%u;\n", ctype_of(lt->elem), (unsigned)r->num2);
                list_elem(&G, &params[out->list], "gi", &o, slots[r->num2].var);
            }
        }
    } else if (r->op == FX_NODE_MAP && r->num2 >= 0 && r->inputs[1].v) {
        out->shape = FX_CL_SHAPE_MATRIX;
        out->rows = r->inputs[0];
        out->cols = r->inputs[1];
        body = r->inputs[2];
        index = "gi * m + gj";
        if (elem_type(&G, r, &out->out) && size_node(&G, g, out->rows) &&
            size_node(&G, g, out->cols)) {
            if (out->out.kind == FX_CL_K_RECORD)
                refuse(&G, "%s", "a matrix of records");
            slots[r->num] = (Bind){B_VAR, "gi", 0};
            slots[r->num2] = (Bind){B_VAR, "gj", 0};
        }
    } else if (r->op == FX_NODE_FOLD && !r->kernel &&
               (r->num == FX_FOLD_SUM || r->num == FX_FOLD_COUNT || r->num == FX_FOLD_MIN ||
                r->num == FX_FOLD_MAX)) {
        out->shape = FX_CL_SHAPE_REDUCE;
        out->fold = (int)r->num;
        const FxNode *d = fx_graph_node(g, r->inputs[0]);
        out->over_range = d->op == FX_NODE_RANGE;
        out->out.kind = is_float(r) ? FX_CL_K_FLOAT : FX_CL_K_INT;
        out->float_sum = is_float(r);
        if (is_float(r) && r->num != FX_FOLD_SUM)
            refuse(&G, "%s", "min or max of floats (its NaN and -0.0 rules)");
        else if (!is_float(r) && !is_int(r))
            refuse(&G, "a %s of values that are not numbers", "fold");
        else if (out->over_range) {
            out->lo = d->inputs[0];
            out->hi = d->inputs[1];
            if (d->num)
                refuse(&G, "%s", "an inclusive range (a half-open one is translated)");
            else if (size_node(&G, g, out->lo))
                size_node(&G, g, out->hi);
        } else if (d->op != FX_NODE_PARAM || params[d->num].kind != B_LIST) {
            refuse(&G, "%s", "a fold over a list that is not a parameter");
        } else {
            out->list = (uint32_t)d->num;
        }
        body = r->inputs[2];
    } else {
        refuse(&G, "%s", "its result is not made of independent parts (an element-wise list or "
                         "matrix, or a sum or count over a range or a list)");
    }
    if (G.ok && guard.v) {
        char c[24];
        if (expr(&G, &E, guard, &o, c))
            fx_buf_printf(&o, "if (!%s) { *err = 1; return; }\n", c);
    }
    if (G.ok && out->shape != FX_CL_SHAPE_REDUCE) {
        char v[24];
        if (expr(&G, &E, body, &o, v))
            store(&out->out, v, index, fx_graph_node(g, body), &o);
    } else if (G.ok) { /* partial results of a chunk of the domain each */
        const FxNode *bn = fx_graph_node(g, body);
        bool fl = out->out.kind == FX_CL_K_FLOAT;
        fx_buf_printf(&o, "%s acc = 0; int has = 0;\n"
                          "for (long k = from; k < to && !*err; k++) {\n",
                      fl ? "double" : "long");
        char lo_var[8] = "lo", v[24];
        if (bind_elem(&G, &E, r->inputs[0], "k", lo_var, (uint32_t)r->num2, &o)) {
            if (r->inputs[1].v && expr(&G, &E, r->inputs[1], &o, v))
                fx_buf_printf(&o, "if (!%s) continue;\n", v);
            if (out->fold == FX_FOLD_COUNT) {
                fx_buf_printf(&o, "acc++;\n");
            } else if (expr(&G, &E, body, &o, v)) {
                if (fl) {
                    fx_buf_printf(&o, "acc = acc + ");
                    as_double(&o, bn, v);
                    fx_buf_printf(&o, ";\n");
                } else if (out->fold == FX_FOLD_SUM) {
                    fx_buf_printf(&o, "acc = fx_add(acc, %s, err);\n", v);
                } else {
                    fx_buf_printf(&o, "if (!has || %s %c acc) acc = %s;\n", v,
                                  out->fold == FX_FOLD_MIN ? '<' : '>', v);
                }
            }
            fx_buf_printf(&o, "has = 1;\n}\nout0[gi] = acc; has_part[gi] = has;\n");
        }
    }
    if (G.ok) {
        fx_buf_printf(&src, "/* generated by flux (src/exec/clgen.c) from %s %s */\n%s%s",
                      g->intent, g->version ? g->version : "", prelude, fx_buf_str(&G.structs));
        fx_buf_printf(&src, "__kernel void flux_parts(%s__global int *err, long lo, long n, long m",
                      fx_buf_str(&sig));
        outputs(&G, &out->out, &src);
        if (out->shape == FX_CL_SHAPE_REDUCE)
            fx_buf_printf(&src, ", __global int *has_part");
        if (out->grid)
            fx_buf_printf(&src, ", __global const long *gstart, __global const long *gitems, "
                                "long gn0, long gn1, long gn2, double go0, double go1, "
                                "double go2, double gh");
        fx_buf_printf(&src, ")\n{\nlong gi = get_global_id(0);\n");
        if (out->shape == FX_CL_SHAPE_MATRIX)
            fx_buf_printf(&src, "long gj = get_global_id(1);\nif (gi >= n || gj >= m) return;\n");
        else if (out->shape == FX_CL_SHAPE_REDUCE)
            fx_buf_printf(&src, "long from = gi * m, to = from + m < n ? from + m : n;\n"
                                "if (from >= n) return;\n");
        else
            fx_buf_printf(&src, "if (gi >= n) return;\n");
        fx_buf_printf(&src, "%s}\n", fx_buf_str(&o));
        out->source = fx_xstrdup(fx_buf_str(&src));
    }
    fx_buf_free(&sig);
    fx_buf_free(&o);
    fx_buf_free(&src);
    fx_buf_free(&G.structs);
    free(slots);
    free(params);
    return G.ok;
}

void fx_clgen_free(FxClPlan *p)
{
    free(p->source);
    p->source = NULL;
}

bool fx_clgen_size(const FxGraph *g, FxNodeId id, const FxValue *args, int64_t *out)
{
    const FxNode *n = fx_graph_node(g, id);
    int64_t a, b;
    switch (n->op) {
    case FX_NODE_CONST: {
        char *end;
        errno = 0;
        long long v = strtoll(n->text, &end, 10);
        *out = v;
        return !errno && !*end;
    }
    case FX_NODE_PARAM: return fx_val_to_int64(args[n->num], out);
    case FX_NODE_BUILTIN: {
        FxValue v = args[fx_graph_node(g, n->inputs[0])->num];
        if (!strcmp(n->text, "len") && v.kind == FX_VAL_LIST)
            *out = (int64_t)fx_val_list_len(v);
        else if (!strcmp(n->text, "rows") && v.kind == FX_VAL_MATRIX)
            *out = (int64_t)fx_val_matrix_rows(v);
        else if (!strcmp(n->text, "cols") && v.kind == FX_VAL_MATRIX)
            *out = (int64_t)fx_val_matrix_cols(v);
        else
            return false;
        return true;
    }
    case FX_NODE_ADD:
    case FX_NODE_SUB:
    case FX_NODE_MUL:
        if (!fx_clgen_size(g, n->inputs[0], args, &a) || !fx_clgen_size(g, n->inputs[1], args, &b))
            return false;
        return !(n->op == FX_NODE_ADD   ? __builtin_add_overflow(a, b, out)
                 : n->op == FX_NODE_SUB ? __builtin_sub_overflow(a, b, out)
                                        : __builtin_mul_overflow(a, b, out));
    default: return false;
    }
}

const char *fx_clgen_proof(const FxClPlan *p)
{
    switch (p->shape) {
    case FX_CL_SHAPE_LIST:
    case FX_CL_SHAPE_RANGE:
        return "each element of the result is the element-wise definition's body at its own "
               "position, which reads the arguments only (never the result nor another "
               "element: the graph has no such edge), and is written by one work-item alone";
    case FX_CL_SHAPE_MATRIX:
        return "each cell [i, j] is the body of the definition `result[i,j] = ...` at (i, j), "
               "which reads the arguments only, and is written by one work-item alone "
               "(parallelizable_over(i, j) holds by construction)";
    case FX_CL_SHAPE_REDUCE:
        return p->float_sum
                       ? "each work-item sums its own chunk of the domain, reading the "
                         "arguments only; the partial sums are added on the host, a reordering "
                         "of a float sum allowed by the intent's tolerance (the bound "
                         "2nu/(1-nu) on any two orders is within it)"
                       : "each work-item folds its own chunk of the domain, reading the "
                         "arguments only; the partial results are combined on the host by an "
                         "operation associative and commutative on the integers (+ with its "
                         "overflow checked, so exact; min; max), so any grouping gives the "
                         "definition's value";
    }
    return "";
}
