/*
 * graph.c: building graphs and checking their invariants.
 *
 * Nodes live in one growable array owned by the graph, strings in its
 * arena; ids are indices + 1, so they stay valid as the array grows (unlike
 * pointers). The op table says how many inputs each op takes and which are
 * lazy; the interpreter and the printers read it rather than knowing each
 * op by heart.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

/* ORDER FX_NODE. lazy: bit k set when input k is evaluated lazily. */
static const struct {
    const char *name;
    unsigned lazy;
} op_info[FX_NODE__COUNT] = {
    {"const", 0},   {"param", 0}, {"var", 0},     {"neg", 0},     {"not", 0},
    {"add", 0},     {"sub", 0},   {"mul", 0},     {"div", 0},     {"idiv", 0},
    {"mod", 0},     {"pow", 0},   {"concat", 0},  {"eq", 0},      {"ne", 0},
    {"lt", 0},      {"le", 0},    {"gt", 0},      {"ge", 0},      {"and", 2},
    {"or", 2},      {"if", 6},    {"call", 0},    {"builtin", 0}, {"index", 0},
    {"field", 0},   {"list", 0},  {"record", 0},  {"range", 0},   {"fold", 6},
    {"map", 4},     {"sort", 2},  {"check", 2},   {"fail", 0},    {"data", 0},
    {"group", 2},   {"let", 2},   {"choose", ~0u},
};

/* ORDER FX_FOLD */
static const char *const fold_names[] = {"sum", "product", "min", "max",
                                         "count", "all", "any", "collect",
                                         "min_part", "max_part", "concat"};

const char *fx_graph_op_name(FxNodeOp op)
{
    return op < FX_NODE__COUNT ? op_info[op].name : "?";
}

const char *fx_graph_fold_name(FxFoldKind k)
{
    return (size_t)k < FX_ARRAY_LEN(fold_names) ? fold_names[k] : "?";
}

bool fx_graph_input_is_lazy(FxNodeOp op, uint32_t k)
{
    return op < FX_NODE__COUNT && k < 32 && (op_info[op].lazy >> k & 1u);
}

FxGraph *fx_graph_new(const char *intent, const char *version)
{
    FxGraph *g = fx_xcalloc(1, sizeof(*g));
    g->intent = fx_arena_strdup(&g->arena, intent);
    g->version = fx_arena_strdup(&g->arena, version);
    g->ret_type = "?";
    return g;
}

void fx_graph_free(FxGraph *g)
{
    if (!g)
        return;
    free(g->nodes);
    free(g->param_names);
    free(g->param_types);
    free(g->param_tids);
    fx_arena_free(&g->arena);
    free(g);
}

void fx_graph_set_ret_type(FxGraph *g, const char *type)
{
    g->ret_type = fx_graph_intern(g, type);
    g->ret_tid = fx_typeid_parse(type);
}

bool fx_graph_same_type(const FxNode *a, const FxNode *b)
{
    return a->tid == b->tid && !strcmp(a->type, b->type);
}

const char *fx_graph_intern(FxGraph *g, const char *s)
{
    return s ? fx_arena_strdup(&g->arena, s) : NULL;
}

void fx_graph_add_param(FxGraph *g, const char *name, const char *type)
{
    FX_CHECK(!g->frozen && g->n_slots == g->n_params, "parameters come before binders");
    g->param_names = fx_xrealloc(g->param_names, (g->n_params + 1) * sizeof(char *));
    g->param_types = fx_xrealloc(g->param_types, (g->n_params + 1) * sizeof(char *));
    g->param_names[g->n_params] = fx_graph_intern(g, name);
    g->param_tids = fx_xrealloc(g->param_tids, (g->n_params + 1) * sizeof(FxTypeId));
    g->param_types[g->n_params] = fx_graph_intern(g, type);
    g->param_tids[g->n_params] = fx_typeid_parse(type);
    g->n_params++;
    g->n_slots++;
}

uint32_t fx_graph_new_slot(FxGraph *g)
{
    return g->n_slots++;
}

FxNodeId fx_graph_add(FxGraph *g, FxNodeOp op, const char *type, const FxNodeId *inputs,
                      uint32_t n_inputs, FxOrigin origin)
{
    FX_CHECK(!g->frozen, "graph %s %s is frozen", g->intent, g->version);
    if (g->n_nodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 32;
        g->nodes = fx_xrealloc(g->nodes, g->cap_nodes * sizeof(FxNode));
    }
    FxNode *n = &g->nodes[g->n_nodes++];
    memset(n, 0, sizeof(*n));
    n->op = op;
    n->type = fx_graph_intern(g, type ? type : "?");
    n->tid = fx_typeid_parse(n->type);
    n->n_inputs = n_inputs;
    if (n_inputs) {
        n->inputs = fx_arena_alloc(&g->arena, n_inputs * sizeof(FxNodeId));
        memcpy(n->inputs, inputs, n_inputs * sizeof(FxNodeId));
    }
    n->origin = origin;
    n->origin.file = fx_graph_intern(g, origin.file);
    n->origin.rewrite = fx_graph_intern(g, origin.rewrite);
    FxNodeId id = {g->n_nodes};
    return id;
}

void fx_graph_freeze(FxGraph *g)
{
    g->frozen = true;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

bool fx_graph_same_shape(const FxGraph *ga, FxNodeId a, const FxGraph *gb, FxNodeId b)
{
    if (!a.v || !b.v)
        return a.v == b.v;
    const FxNode *x = fx_graph_node(ga, a), *y = fx_graph_node(gb, b);
    if (x->op != y->op || !fx_graph_same_type(x, y) || x->n_inputs != y->n_inputs ||
        x->num != y->num || x->num2 != y->num2 || x->kernel != y->kernel)
        return false;
    /* a call of the graph itself is the same call in both, whatever its name */
    bool self_x = x->op == FX_NODE_CALL && same_text(x->text, ga->intent);
    bool self_y = y->op == FX_NODE_CALL && same_text(y->text, gb->intent);
    if (self_x != self_y || (!self_x && !same_text(x->text, y->text)))
        return false;
    for (uint32_t k = 0; k < x->n_inputs; k++)
        if (!fx_graph_same_shape(ga, x->inputs[k], gb, y->inputs[k]))
            return false;
    return true;
}

bool fx_graph_same_graph(const FxGraph *a, const FxGraph *b)
{
    if (!same_text(a->intent, b->intent) || a->n_params != b->n_params ||
        !same_text(a->ret_type, b->ret_type) || a->n_nodes != b->n_nodes ||
        a->root.v != b->root.v || a->kernel != b->kernel || a->n_slots != b->n_slots ||
        a->tolerance != b->tolerance)
        return false;
    for (uint32_t i = 0; i < a->n_params; i++)
        if (!same_text(a->param_names[i], b->param_names[i]) ||
            !same_text(a->param_types[i], b->param_types[i]))
            return false;
    for (uint32_t i = 0; i < a->n_nodes; i++) {
        const FxNode *x = &a->nodes[i], *y = &b->nodes[i];
        if (x->op != y->op || !fx_graph_same_type(x, y) || x->n_inputs != y->n_inputs ||
            x->num != y->num || x->num2 != y->num2 || x->kernel != y->kernel ||
            !same_text(x->text, y->text))
            return false;
        for (uint32_t k = 0; k < x->n_inputs; k++)
            if (x->inputs[k].v != y->inputs[k].v)
                return false;
    }
    return true;
}

static bool is_builtin_of(const FxGraph *g, FxNodeId id, const char *name, FxNodeId *of)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_BUILTIN || n->n_inputs != 1 || !n->text || strcmp(n->text, name))
        return false;
    *of = n->inputs[0];
    return true;
}

static bool is_var(const FxGraph *g, FxNodeId id, int64_t slot)
{
    const FxNode *n = fx_graph_node(g, id);
    return n->op == FX_NODE_VAR && n->num == slot;
}

/* X[u, v] with X shaped like `m` and u, v the variables su, sv. */
static bool is_index(const FxGraph *g, FxNodeId id, FxNodeId m, int64_t su, int64_t sv)
{
    const FxNode *n = fx_graph_node(g, id);
    return n->op == FX_NODE_INDEX && n->n_inputs == 3 &&
           fx_graph_same_shape(g, n->inputs[0], g, m) && is_var(g, n->inputs[1], su) &&
           is_var(g, n->inputs[2], sv);
}

bool fx_graph_matmul_shape(const FxGraph *g, FxNodeId map, FxNodeId *a, FxNodeId *b,
                           FxNodeId *fold)
{
    const FxNode *m = fx_graph_node(g, map);
    if (m->op != FX_NODE_MAP || m->n_inputs != 3 || m->num2 < 0 || !m->inputs[1].v ||
        !is_builtin_of(g, m->inputs[0], "rows", a) || !is_builtin_of(g, m->inputs[1], "cols", b))
        return false;
    *fold = m->inputs[2];
    const FxNode *f = fx_graph_node(g, *fold);
    if (f->op != FX_NODE_FOLD || f->num != FX_FOLD_SUM || f->inputs[1].v)
        return false;
    const FxNode *r = fx_graph_node(g, f->inputs[0]), *body = fx_graph_node(g, f->inputs[2]);
    FxNodeId of;
    if (r->op != FX_NODE_RANGE || r->num != 0 ||
        fx_graph_node(g, r->inputs[0])->op != FX_NODE_CONST ||
        strcmp(fx_graph_node(g, r->inputs[0])->text, "0") ||
        !is_builtin_of(g, r->inputs[1], "cols", &of) || !fx_graph_same_shape(g, of, g, *a))
        return false;
    return body->op == FX_NODE_MUL && body->n_inputs == 2 &&
           is_index(g, body->inputs[0], *a, m->num, f->num2) &&
           is_index(g, body->inputs[1], *b, f->num2, m->num2);
}

bool fx_graph_reads_slot(const FxGraph *g, FxNodeId id, int64_t slot)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op == FX_NODE_VAR)
        return n->num == slot;
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (n->inputs[k].v && fx_graph_reads_slot(g, n->inputs[k], slot))
            return true;
    return false;
}

bool fx_graph_column_shape(const FxGraph *g, FxNodeId id, FxNodeId *list, const char **field)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->n_inputs != 3 || n->inputs[1].v || n->kernel)
        return false;
    const FxNode *body = fx_graph_node(g, n->inputs[2]);
    if (body->op != FX_NODE_FIELD || !body->text)
        return false;
    *field = body->text;
    if (n->op == FX_NODE_FOLD) { /* [x.FIELD for x in L] */
        *list = n->inputs[0];
        return n->num == FX_FOLD_COLLECT && is_var(g, body->inputs[0], n->num2) &&
               fx_graph_node(g, *list)->op != FX_NODE_RANGE &&
               !strncmp(fx_graph_node(g, *list)->type, "List[", 5);
    }
    if (n->op != FX_NODE_MAP || n->num2 >= 0 || !is_builtin_of(g, n->inputs[0], "len", list))
        return false;
    const FxNode *ix = fx_graph_node(g, body->inputs[0]);
    return ix->op == FX_NODE_INDEX && ix->n_inputs == 2 && is_var(g, ix->inputs[1], n->num) &&
           fx_graph_same_shape(g, ix->inputs[0], g, *list) &&
           !fx_graph_reads_slot(g, ix->inputs[0], n->num) &&
           !strncmp(fx_graph_node(g, *list)->type, "List[", 5);
}

bool fx_graph_selection_shape(const FxGraph *g, FxNodeId fold, FxNodeId *cmp, FxNodeId *value)
{
    const FxNode *f = fx_graph_node(g, fold);
    if (f->op != FX_NODE_FOLD || f->num != FX_FOLD_COLLECT || !f->inputs[1].v)
        return false;
    const FxNode *c = fx_graph_node(g, f->inputs[1]);
    if ((c->op != FX_NODE_GE && c->op != FX_NODE_GT && c->op != FX_NODE_LE &&
         c->op != FX_NODE_LT && c->op != FX_NODE_EQ) || c->n_inputs != 2)
        return false;
    const FxNode *field = fx_graph_node(g, c->inputs[0]);
    if (field->op != FX_NODE_FIELD || !is_var(g, field->inputs[0], f->num2) ||
        !(fx_typeid_is_integer(field->tid) || fx_typeid_kind(field->tid) == FX_TK_STRING) ||
        fx_graph_reads_slot(g, c->inputs[1], f->num2))
        return false;
    *cmp = f->inputs[1];
    *value = c->inputs[1];
    return true;
}

/* Is conj one of the conjuncts of the chain of `and`s at filter? */
static bool conjunct_within(const FxGraph *g, FxNodeId filter, FxNodeId conj)
{
    if (filter.v == conj.v)
        return true;
    const FxNode *f = fx_graph_node(g, filter);
    return f->op == FX_NODE_AND && f->n_inputs == 2 &&
           (conjunct_within(g, f->inputs[0], conj) || conjunct_within(g, f->inputs[1], conj));
}

bool fx_graph_conjunct_rest(const FxGraph *g, FxNodeId filter, FxNodeId conj, FxNodeId *rest)
{
    if (filter.v == conj.v) {
        rest->v = 0;
        return true;
    }
    const FxNode *f = fx_graph_node(g, filter);
    if (f->op != FX_NODE_AND || f->n_inputs != 2)
        return false;
    if (f->inputs[1].v == conj.v)
        *rest = f->inputs[0];
    else if (f->inputs[0].v == conj.v)
        *rest = f->inputs[1];
    else if (conjunct_within(g, filter, conj))
        *rest = filter; /* deeper in the chain: it stays, and is asked again */
    else
        return false;
    return true;
}

FxGraph *fx_graph_copy_as(const FxGraph *g, const char *intent, const char *version)
{
    FxGraph *c = fx_graph_new(intent, version);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_graph_add_param(c, g->param_names[i], g->param_types[i]);
    c->n_slots = g->n_slots;
    fx_graph_set_ret_type(c, g->ret_type);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        FxNodeId id = fx_graph_add(c, n->op, n->type, n->inputs, n->n_inputs, n->origin);
        FxNode *m = fx_graph_node(c, id);
        bool self = n->op == FX_NODE_CALL && n->text && !strcmp(n->text, g->intent);
        m->text = fx_graph_intern(c, self ? intent : n->text);
        m->num = n->num;
        m->num2 = n->num2;
        m->kernel = n->kernel; /* node for node: what the shape bound is the same */
        memcpy(m->kargs, n->kargs, sizeof(m->kargs));
    }
    c->root = g->root;
    c->tolerance = g->tolerance;
    fx_graph_copy_kernel(c, g);
    fx_graph_freeze(c);
    return c;
}

bool fx_graph_mark_kernel(FxGraph *g, FxNodeId at, FxKernelId k)
{
    const FxKernel *K = fx_kernel(k);
    FxNode *n = fx_graph_node(g, at);
    uint32_t args[FX_KERNEL_MAX_ARGS] = {0};
    if (!K->shape || K->marks != (int)n->op || !K->shape(g, at.v, args))
        return false;
    n->kernel = k;
    for (int i = 0; i < FX_KERNEL_MAX_ARGS; i++)
        n->kargs[i].v = args[i];
    return true;
}

void fx_graph_copy_kernel(FxGraph *into, const FxGraph *from)
{
    if (from->kernel == FX_KERNEL_RECURRENCE)
        fx_graph_set_recurrence(into, &from->rec, from->variants);
    else
        into->kernel = from->kernel;
    fx_graph_set_table(into, from->n_table, from->table);
    fx_graph_set_materialised(into, from->n_materialised, from->materialised);
}

void fx_graph_set_materialised(FxGraph *g, uint32_t n, const char *const *cells)
{
    size_t k = (size_t)n * g->n_params;
    g->n_materialised = n;
    g->materialised = n ? fx_arena_alloc(&g->arena, k * sizeof(char *)) : NULL;
    for (size_t i = 0; i < k; i++)
        g->materialised[i] = fx_graph_intern(g, cells[i]);
}

void fx_graph_set_table(FxGraph *g, uint32_t n, const char *const *cells)
{
    size_t k = (size_t)n * (g->n_params + 1);
    g->n_table = n;
    g->table = n ? fx_arena_alloc(&g->arena, k * sizeof(char *)) : NULL;
    for (size_t i = 0; i < k; i++)
        g->table[i] = fx_graph_intern(g, cells[i]);
}

/* The recurrence kernel's variants, in bit order (FX_VARIANT_*), are its
 * descriptor's. */
const char *fx_graph_variant_name(uint32_t variant)
{
    const FxKernel *K = fx_kernel(FX_KERNEL_RECURRENCE);
    for (uint32_t i = 0; i < K->n_variants; i++)
        if (variant == 1u << i)
            return K->variants[i].name;
    return "?";
}

uint32_t fx_graph_variant_by_name(const char *name)
{
    const FxKernel *K = fx_kernel(FX_KERNEL_RECURRENCE);
    for (uint32_t i = 0; name && i < K->n_variants; i++)
        if (!strcmp(K->variants[i].name, name))
            return 1u << i;
    return 0;
}

void fx_graph_set_recurrence(FxGraph *g, const FxRecurrence *rec, uint32_t variants)
{
    g->kernel = FX_KERNEL_RECURRENCE;
    g->rec.order = rec->order;
    for (uint32_t i = 0; i < rec->order; i++) {
        g->rec.coeffs[i] = rec->coeffs[i];
        g->rec.initial[i] = fx_graph_intern(g, rec->initial[i]);
    }
    g->variants = variants;
}

void fx_graph_bound_slots(const FxNode *n, int64_t out[2])
{
    out[0] = out[1] = -1;
    if (n->op == FX_NODE_FOLD || n->op == FX_NODE_CHECK || n->op == FX_NODE_SORT ||
        n->op == FX_NODE_GROUP || n->op == FX_NODE_LET) {
        out[0] = n->num2;
    } else if (n->op == FX_NODE_MAP) {
        out[0] = n->num;
        out[1] = n->num2;
    }
}

bool fx_graph_verify(const FxGraph *g, char *why, size_t why_len)
{
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        if (n->op >= FX_NODE__COUNT) {
            snprintf(why, why_len, "node %u has an unknown op", i + 1);
            return false;
        }
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            if (n->inputs[k].v > i) {
                snprintf(why, why_len, "node %u reads node %u, which comes after it", i + 1,
                         n->inputs[k].v);
                return false;
            }
        }
        if (n->kernel && ((unsigned)n->kernel >= FX_KERNEL__COUNT ||
                          fx_kernel(n->kernel)->marks != (int)n->op)) {
            snprintf(why, why_len, "node %u is on a kernel that does not run a %s", i + 1,
                     fx_graph_op_name(n->op));
            return false;
        }
        for (int k = 0; k < FX_KERNEL_MAX_ARGS; k++) {
            if (n->kargs[k].v > i || (n->kargs[k].v && !n->kernel)) {
                snprintf(why, why_len, "node %u's kernel reads node %u, which it cannot",
                         i + 1, n->kargs[k].v);
                return false;
            }
        }
        if (n->op == FX_NODE_FOLD && (n->num < 0 || n->num > FX_FOLD_CONCAT)) {
            snprintf(why, why_len, "node %u is a fold of unknown kind %lld", i + 1,
                     (long long)n->num);
            return false;
        }
        if (n->op == FX_NODE_VAR && (n->num < 0 || n->num >= (int64_t)g->n_slots)) {
            snprintf(why, why_len, "node %u reads slot %lld of %u", i + 1, (long long)n->num,
                     g->n_slots);
            return false;
        }
        if (n->op == FX_NODE_PARAM && (n->num < 0 || n->num >= (int64_t)g->n_params)) {
            snprintf(why, why_len, "node %u reads parameter %lld of %u", i + 1,
                     (long long)n->num, g->n_params);
            return false;
        }
        int64_t slots[2];
        fx_graph_bound_slots(n, slots);
        for (int s = 0; s < 2; s++) {
            if (slots[s] >= 0 && (slots[s] < g->n_params || slots[s] >= (int64_t)g->n_slots)) {
                snprintf(why, why_len, "node %u binds slot %lld, not a binder slot", i + 1,
                         (long long)slots[s]);
                return false;
            }
        }
    }
    if (g->root.v == 0 || g->root.v > g->n_nodes) {
        snprintf(why, why_len, "the graph has no root");
        return false;
    }
    return true;
}

bool fx_graph_calls_itself(const FxGraph *g)
{
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == FX_NODE_CALL && !strcmp(g->nodes[i].text, g->intent))
            return true;
    return false;
}

bool fx_graph_args_key_a_table_by_value(const FxGraph *g, bool *lists)
{
    *lists = false;
    for (uint32_t i = 0; i < g->n_params; i++) {
        FxTypeId t = g->param_tids[i];
        bool list = fx_typeid_kind(t) == FX_TK_LIST && fx_typeid_is_exact_key(fx_typeid_elem(t));
        if (!fx_typeid_is_exact_key(t) && !list)
            return false;
        *lists |= list;
    }
    return true;
}

bool fx_graph_args_key_a_table(const FxGraph *g)
{
    for (uint32_t i = 0; i < g->n_params; i++) {
        if (!fx_typeid_is_exact_key(g->param_tids[i]))
            return false;
    }
    return true;
}
