/*
 * lower.c: the lowering of checked constraints into v1 graphs.
 *
 * One walk over the AST per intent. Names resolve through a small scope of
 * locals (pattern variables stand for parameters; binders get fresh
 * slots). Each node keeps the span of the AST node it came from, which is
 * what `explain` and `flux graph` show. Only the constructive forms build
 * the value; postconditions wrap it in CHECK nodes, outermost last, so a
 * result that violates one never leaves the graph.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

#include "lang/check.h"
#include "lang/types.h"

typedef struct Local {
    const char *name;
    bool is_param;
    uint32_t index; /* parameter index or slot */
} Local;

/* A grouped comprehension being lowered: its body reads the group (the
 * list in `slot`) and the key (`key` with var bound to the group's first
 * element). */
typedef struct GroupLower {
    uint32_t slot;
    const char *var;
    const FxExpr *key;
    const char *elem_type;
} GroupLower;

typedef struct Lower {
    const FxProgram *prog;
    FX_VEC(GroupLower) groups; /* by depth: ref_index 1 is groups.data[0] */
    const FxIntent *in; /* NULL for an expression */
    FxGraph *g;
    FX_VEC(Local) locals;
    int64_t result_slot; /* inside a CHECK: the slot holding result; else -1 */
} Lower;

static FxNodeId lower(Lower *L, const FxExpr *e);

static FxOrigin origin_of(FxSpan sp)
{
    FxOrigin o = {0};
    if (!sp.src)
        return o;
    size_t line, col;
    fx_diag_position(sp.src, sp.offset, &line, &col);
    o.file = sp.src->path;
    o.line = (uint32_t)line;
    o.col = (uint32_t)col;
    o.len = sp.len;
    return o;
}

static FxNodeId add(Lower *L, FxNodeOp op, const FxType *type, const FxNodeId *in, uint32_t n,
                    FxSpan sp)
{
    char *t = fx_type_name(type);
    FxNodeId id = fx_graph_add(L->g, op, t, in, n, origin_of(sp));
    free(t);
    return id;
}

static FxNodeId add_named(Lower *L, FxNodeOp op, const char *type, const FxNodeId *in, uint32_t n,
                          FxSpan sp)
{
    return fx_graph_add(L->g, op, type, in, n, origin_of(sp));
}

static FxNode *node(Lower *L, FxNodeId id)
{
    return fx_graph_node(L->g, id);
}

static FxNodeId constant(Lower *L, const char *text, const char *type, FxSpan sp)
{
    FxNodeId id = add_named(L, FX_NODE_CONST, type, NULL, 0, sp);
    node(L, id)->text = fx_graph_intern(L->g, text);
    return id;
}

static FxNodeId param(Lower *L, uint32_t index, FxSpan sp)
{
    FxNodeId id = add_named(L, FX_NODE_PARAM, L->g->param_types[index], NULL, 0, sp);
    node(L, id)->num = index;
    return id;
}

static FxNodeId var(Lower *L, uint32_t slot, const char *type, FxSpan sp)
{
    FxNodeId id = add_named(L, FX_NODE_VAR, type, NULL, 0, sp);
    node(L, id)->num = slot;
    return id;
}

static FxNodeId binary(Lower *L, FxNodeOp op, const char *type, FxNodeId a, FxNodeId b,
                       FxSpan sp)
{
    FxNodeId in[2] = {a, b};
    return add_named(L, op, type, in, 2, sp);
}

static FxNodeId builtin(Lower *L, const char *name, const char *type, const FxNodeId *in,
                        uint32_t n, FxSpan sp)
{
    FxNodeId id = add_named(L, FX_NODE_BUILTIN, type, in, n, sp);
    node(L, id)->text = fx_graph_intern(L->g, name);
    return id;
}

static void push_local(Lower *L, const char *name, bool is_param, uint32_t index)
{
    Local l = {name, is_param, index};
    fx_vec_push(&L->locals, l);
}

/* ---- names ---- */

/* A matrix size variable: the rows or columns of the first parameter that
 * names it. */
/* A size that names a Natural parameter (`Matrix[n, n]`): its value. */
static FxNodeId natural_size(Lower *L, const char *size, FxSpan sp)
{
    for (uint32_t i = 0; L->in && i < L->in->n_params; i++)
        if (L->in->params[i].type->kind == FX_TY_NATURAL &&
            strcmp(L->in->params[i].name, size) == 0)
            return param(L, i, sp);
    return (FxNodeId){0};
}

static FxNodeId size_var(Lower *L, const FxExpr *e)
{
    FxNodeId value = natural_size(L, e->u.text, e->span);
    if (value.v)
        return value;
    for (uint32_t i = 0; L->in && i < L->in->n_params; i++) {
        const FxType *t = L->in->params[i].type;
        if (t->kind != FX_TY_MATRIX)
            continue;
        bool rows = strcmp(t->rows, e->u.text) == 0, cols = strcmp(t->cols, e->u.text) == 0;
        if (rows || cols) {
            FxNodeId p = param(L, i, e->span);
            return builtin(L, rows ? "rows" : "cols", "Natural", &p, 1, e->span);
        }
    }
    FX_CHECK(false, "size `%s` bound by no parameter", e->u.text);
    FX_UNREACHABLE();
}

static FxNodeId lower_name(Lower *L, const FxExpr *e)
{
    if (e->ref == FX_REF_GROUP) {
        char *t = fx_type_name(e->type);
        FxNodeId id = var(L, L->groups.data[e->ref_index - 1].slot, t, e->span);
        free(t);
        return id;
    }
    for (size_t i = L->locals.len; i-- > 0;) {
        const Local *l = &L->locals.data[i];
        if (strcmp(l->name, e->u.text) != 0)
            continue;
        if (l->is_param)
            return param(L, l->index, e->span);
        char *t = fx_type_name(e->type);
        FxNodeId id = var(L, l->index, t, e->span);
        free(t);
        return id;
    }
    switch (e->ref) {
    case FX_REF_PARAM:
        return param(L, (uint32_t)e->ref_index, e->span);
    case FX_REF_SIZE:
        return size_var(L, e);
    case FX_REF_CONST:
        return constant(L, fx_check_constant(e->u.text), "Float", e->span);
    case FX_REF_DATA: {
        FxNodeId id = add(L, FX_NODE_DATA, e->type, NULL, 0, e->span);
        node(L, id)->text = fx_graph_intern(L->g, e->ref_data->name);
        return id;
    }
    default:
        FX_CHECK(false, "unresolved name `%s` reached lowering", e->u.text);
        FX_UNREACHABLE();
    }
}

/* ---- operators ---- */

static FxNodeOp binary_op(FxOp op)
{
    switch (op) {
    case FX_OP_ADD: return FX_NODE_ADD;
    case FX_OP_SUB: return FX_NODE_SUB;
    case FX_OP_MUL: return FX_NODE_MUL;
    case FX_OP_DIV: return FX_NODE_DIV;
    case FX_OP_IDIV: return FX_NODE_IDIV;
    case FX_OP_MOD: return FX_NODE_MOD;
    case FX_OP_POW: return FX_NODE_POW;
    case FX_OP_CONCAT: return FX_NODE_CONCAT;
    case FX_OP_AND: return FX_NODE_AND;
    case FX_OP_OR: return FX_NODE_OR;
    case FX_OP_EQ: return FX_NODE_EQ;
    case FX_OP_NE: return FX_NODE_NE;
    case FX_OP_LT: return FX_NODE_LT;
    case FX_OP_LE: return FX_NODE_LE;
    case FX_OP_GT: return FX_NODE_GT;
    default: return FX_NODE_GE;
    }
}

/* x in R: a range test, or membership in a list. */
static FxNodeId lower_in(Lower *L, FxNodeId x, const FxExpr *coll, FxSpan sp)
{
    if (coll->kind == FX_EXPR_RANGE) {
        FxNodeId lo = lower(L, coll->u.range.lo), hi = lower(L, coll->u.range.hi);
        FxNodeId a = binary(L, FX_NODE_LE, "Bool", lo, x, sp);
        FxNodeId b = binary(L, coll->u.range.inclusive ? FX_NODE_LE : FX_NODE_LT, "Bool", x, hi, sp);
        return binary(L, FX_NODE_AND, "Bool", a, b, sp);
    }
    FxNodeId in[2] = {lower(L, coll), x};
    return builtin(L, "contains", "Bool", in, 2, sp);
}

/* a < b <= c: each operand once, the tests joined by a lazy `and`. */
static FxNodeId lower_compare(Lower *L, const FxExpr *e)
{
    FxNodeId acc = {0};
    FxNodeId left = lower(L, e->u.compare.operands[0]);
    for (size_t i = 0; i + 1 < e->u.compare.n; i++) {
        const FxExpr *r = e->u.compare.operands[i + 1];
        FxOp op = e->u.compare.ops[i];
        FxNodeId test, right = {0};
        if (op == FX_OP_IN) {
            test = lower_in(L, left, r, e->span);
        } else {
            right = lower(L, r);
            test = binary(L, binary_op(op), "Bool", left, right, e->span);
        }
        acc = acc.v ? binary(L, FX_NODE_AND, "Bool", acc, test, e->span) : test;
        left = right;
    }
    return acc;
}

/* A list of rows given where a matrix is expected (the checker accepts
 * one, docs/language.md §10) becomes the matrix: as an argument, a field,
 * or an intent's result. */
static FxNodeId as_matrix(Lower *L, FxNodeId v, const FxType *want, FxSpan sp)
{
    if (want->kind != FX_TY_MATRIX || fx_typeid_kind(node(L, v)->tid) == FX_TK_MATRIX)
        return v;
    char *t = fx_type_name(want);
    const char *conv = want->elem->kind == FX_TY_FLOAT ? "to_float_matrix" : "to_matrix";
    FxNodeId id = builtin(L, conv, t, &v, 1, sp);
    free(t);
    return id;
}

static FxNodeId lower_call(Lower *L, const FxExpr *e)
{
    FxNodeId args[64];
    size_t n = e->u.call.n_args;
    FX_CHECK(n <= 64, "too many arguments");
    for (size_t i = 0; i < n; i++)
        args[i] = lower(L, e->u.call.args[i]);
    if (e->ref == FX_REF_BUILTIN) {
        char *t = fx_type_name(e->type);
        FxNodeId id = builtin(L, e->u.call.name, t, args, (uint32_t)n, e->span);
        free(t);
        return id;
    }
    for (size_t i = 0; i < n; i++)
        args[i] = as_matrix(L, args[i], e->ref_intent->params[i].type, e->u.call.args[i]->span);
    FxNodeId id = add(L, FX_NODE_CALL, e->type, args, (uint32_t)n, e->span);
    node(L, id)->text = fx_graph_intern(L->g, e->ref_intent->key);
    return id;
}

/* A record literal's fields, in the order of the record's declaration; for
 * `base with {...}`, the fields not given are base's. */
static FxNodeId lower_record(Lower *L, const FxExpr *e)
{
    const FxTypeDecl *td = e->type->record;
    size_t n = td->def->n_fields;
    FxNodeId *fields = fx_xcalloc(n + 1, sizeof(FxNodeId));
    FxNodeId base = e->u.record.base ? lower(L, e->u.record.base) : (FxNodeId){0};
    FxBuf names = {0};
    for (size_t i = 0; i < n; i++) {
        fx_buf_printf(&names, "%s%s", i ? "," : "", td->def->field_names[i]);
        if (base.v) {
            fields[i] = add(L, FX_NODE_FIELD, td->field_types[i], &base, 1, e->span);
            node(L, fields[i])->text = fx_graph_intern(L->g, td->def->field_names[i]);
        }
        for (size_t j = 0; j < e->u.record.n; j++)
            if (strcmp(e->u.record.names[j], td->def->field_names[i]) == 0)
                fields[i] = as_matrix(L, lower(L, e->u.record.values[j]), td->field_types[i],
                                      e->u.record.values[j]->span);
    }
    FxNodeId id = add(L, FX_NODE_RECORD, e->type, fields, (uint32_t)n, e->span);
    node(L, id)->text = fx_graph_intern(L->g, fx_buf_str(&names));
    fx_buf_free(&names);
    free(fields);
    return id;
}

/* fold KIND over binders[i..] of body (filtered): nested folds, the outer
 * ones combining the inner results. */
static FxNodeId lower_fold(Lower *L, FxFoldKind kind, const FxBinder *bs, size_t n,
                           const FxExpr *filter, const FxExpr *body, const FxType *type,
                           FxSpan sp)
{
    FxNodeId dom = lower(L, bs[0].domain);
    uint32_t slot = fx_graph_new_slot(L->g);
    push_local(L, bs[0].name, false, slot);
    FxNodeId f = {0}, b;
    if (n > 1) {
        /* the inner fold yields a partial result: count's partials are summed,
         * collected lists concatenated, and an empty slice of min or max is
         * nothing, not an error (only the whole may not be empty) */
        FxFoldKind inner = kind == FX_FOLD_MIN   ? FX_FOLD_MIN_PART
                           : kind == FX_FOLD_MAX ? FX_FOLD_MAX_PART
                                                 : kind;
        b = lower_fold(L, inner, bs + 1, n - 1, filter, body, type, sp);
        if (kind == FX_FOLD_COUNT)
            kind = FX_FOLD_SUM;
        if (kind == FX_FOLD_COLLECT)
            kind = FX_FOLD_CONCAT;
    } else {
        if (filter)
            f = lower(L, filter);
        b = lower(L, body);
    }
    L->locals.len--;
    FxNodeId in[3] = {dom, f, b};
    FxNodeId id = add(L, FX_NODE_FOLD, type, in, 3, sp);
    node(L, id)->num = kind;
    node(L, id)->num2 = slot;
    return id;
}

/* The key of the group being built: the key expression with the group's
 * variable bound to the group's first element. */
static FxNodeId lower_group_key(Lower *L, const FxExpr *e)
{
    const GroupLower *g = &L->groups.data[e->ref_index - 1];
    char *lt = fx_xasprintf("List[%s]", g->elem_type);
    FxNodeId items = var(L, g->slot, lt, e->span);
    free(lt);
    FxNodeId in[2] = {items, constant(L, "0", "Natural", e->span)};
    FxNodeId first = add_named(L, FX_NODE_INDEX, g->elem_type, in, 2, e->span);
    uint32_t slot = fx_graph_new_slot(L->g);
    push_local(L, g->var, false, slot);
    FxNodeId key = lower(L, g->key);
    L->locals.len--;
    FxNodeId let_in[2] = {first, key};
    FxNodeId id = add(L, FX_NODE_LET, e->type, let_in, 2, e->span);
    node(L, id)->num2 = slot;
    return id;
}

/* [BODY for v in XS [if C] group by KEY]: XS's elements that pass C,
 * grouped by KEY; BODY once per group. */
static FxNodeId lower_grouped(Lower *L, const FxExpr *e)
{
    const FxBinder *b = &e->u.aggregate.binders[0];
    char *et = fx_type_name(b->type), *lt = fx_xasprintf("List[%s]", et);
    FxNodeId list = lower(L, b->domain);
    if (e->u.aggregate.filter) {
        uint32_t s = fx_graph_new_slot(L->g);
        push_local(L, b->name, false, s);
        FxNodeId in[3] = {list, lower(L, e->u.aggregate.filter), var(L, s, et, b->span)};
        L->locals.len--;
        list = add_named(L, FX_NODE_FOLD, lt, in, 3, e->span);
        node(L, list)->num = FX_FOLD_COLLECT;
        node(L, list)->num2 = s;
    }
    uint32_t ks = fx_graph_new_slot(L->g);
    push_local(L, b->name, false, ks);
    FxNodeId key_in[2] = {list, lower(L, e->u.aggregate.group_key)};
    L->locals.len--;
    char *gt = fx_xasprintf("List[%s]", lt);
    FxNodeId groups = add_named(L, FX_NODE_GROUP, gt, key_in, 2, e->span);
    node(L, groups)->num2 = ks;
    uint32_t gs = fx_graph_new_slot(L->g);
    GroupLower g = {gs, b->name, e->u.aggregate.group_key, fx_graph_intern(L->g, et)};
    fx_vec_push(&L->groups, g);
    FxNodeId body = lower(L, e->u.aggregate.body);
    L->groups.len--;
    FxNodeId in[3] = {groups, {0}, body};
    FxNodeId id = add(L, FX_NODE_FOLD, e->type, in, 3, e->span);
    node(L, id)->num = FX_FOLD_COLLECT;
    node(L, id)->num2 = gs;
    free(et);
    free(lt);
    free(gt);
    return id;
}

static FxNodeId lower_aggregate(Lower *L, const FxExpr *e)
{
    static const FxFoldKind kinds[] = {FX_FOLD_SUM, FX_FOLD_PRODUCT, FX_FOLD_MIN, FX_FOLD_MAX,
                                       FX_FOLD_COUNT, FX_FOLD_COLLECT};
    if (e->u.aggregate.group_key)
        return lower_grouped(L, e);
    if (e->u.aggregate.agg == FX_AGG_MEAN) { /* the builtin mean of the values collected */
        FxType list = {.kind = FX_TY_LIST, .elem = e->u.aggregate.body->type};
        FxNodeId values = lower_fold(L, FX_FOLD_COLLECT, e->u.aggregate.binders,
                                     e->u.aggregate.n_binders, e->u.aggregate.filter,
                                     e->u.aggregate.body, &list, e->span);
        return builtin(L, "mean", "Float", &values, 1, e->span);
    }
    return lower_fold(L, kinds[e->u.aggregate.agg], e->u.aggregate.binders,
                      e->u.aggregate.n_binders, e->u.aggregate.filter, e->u.aggregate.body,
                      e->type, e->span);
}

static FxNodeId lower(Lower *L, const FxExpr *e)
{
    if (e->ref == FX_REF_GROUP_KEY)
        return lower_group_key(L, e);
    switch (e->kind) {
    case FX_EXPR_INT: {
        char *t = fx_type_name(e->type);
        FxNodeId id = constant(L, e->u.text, t, e->span);
        free(t);
        return id;
    }
    case FX_EXPR_FLOAT: return constant(L, e->u.text, "Float", e->span);
    case FX_EXPR_STRING: return constant(L, e->u.text, "String", e->span);
    case FX_EXPR_BOOL: return constant(L, e->u.boolean ? "true" : "false", "Bool", e->span);
    case FX_EXPR_NAME: return lower_name(L, e);
    case FX_EXPR_RESULT: {
        FX_CHECK(L->result_slot >= 0, "`result` outside a postcondition reached lowering");
        char *t = fx_type_name(e->type);
        FxNodeId id = var(L, (uint32_t)L->result_slot, t, e->span);
        free(t);
        return id;
    }
    case FX_EXPR_UNARY: {
        FxNodeId a = lower(L, e->u.unary.operand);
        return add(L, e->u.unary.op == FX_OP_NOT ? FX_NODE_NOT : FX_NODE_NEG, e->type, &a, 1,
                   e->span);
    }
    case FX_EXPR_BINARY: {
        FxNodeId in[2] = {lower(L, e->u.binary.lhs), lower(L, e->u.binary.rhs)};
        return add(L, binary_op(e->u.binary.op), e->type, in, 2, e->span);
    }
    case FX_EXPR_COMPARE: return lower_compare(L, e);
    case FX_EXPR_IF: {
        FxNodeId in[3] = {lower(L, e->u.if_.cond),
                          as_matrix(L, lower(L, e->u.if_.then_e), e->type, e->u.if_.then_e->span),
                          as_matrix(L, lower(L, e->u.if_.else_e), e->type, e->u.if_.else_e->span)};
        return add(L, FX_NODE_IF, e->type, in, 3, e->span);
    }
    case FX_EXPR_CALL: return lower_call(L, e);
    case FX_EXPR_INDEX: {
        FxNodeId in[3];
        in[0] = lower(L, e->u.index.base);
        const FxExpr *r = e->u.index.indices[0];
        if (r->kind == FX_EXPR_RANGE) { /* xs[a..b]: a slice, of the base's type */
            in[1] = lower(L, r->u.range.lo);
            in[2] = lower(L, r->u.range.hi);
            char *t = fx_type_name(e->type);
            FxNodeId id = builtin(L, r->u.range.inclusive ? "slice_closed" : "slice", t, in, 3,
                                  e->span);
            free(t);
            return id;
        }
        for (size_t i = 0; i < e->u.index.n && i < 2; i++)
            in[i + 1] = lower(L, e->u.index.indices[i]);
        return add(L, FX_NODE_INDEX, e->type, in, (uint32_t)e->u.index.n + 1, e->span);
    }
    case FX_EXPR_FIELD: {
        FxNodeId b = lower(L, e->u.field.base);
        FxNodeId id = add(L, FX_NODE_FIELD, e->type, &b, 1, e->span);
        node(L, id)->text = fx_graph_intern(L->g, e->u.field.name);
        return id;
    }
    case FX_EXPR_LIST: {
        FX_VEC(FxNodeId) items = {0};
        for (size_t i = 0; i < e->u.list.n; i++)
            fx_vec_push(&items, as_matrix(L, lower(L, e->u.list.items[i]), e->type->elem,
                                          e->u.list.items[i]->span));
        FxNodeId id = add(L, FX_NODE_LIST, e->type, items.data, (uint32_t)items.len, e->span);
        fx_vec_free(&items);
        return id;
    }
    case FX_EXPR_RECORD: return lower_record(L, e);
    case FX_EXPR_RANGE: {
        FxNodeId in[2] = {lower(L, e->u.range.lo), lower(L, e->u.range.hi)};
        FxNodeId id = add(L, FX_NODE_RANGE, e->type, in, 2, e->span);
        node(L, id)->num = e->u.range.inclusive;
        return id;
    }
    case FX_EXPR_AGGREGATE: return lower_aggregate(L, e);
    case FX_EXPR_QUANT:
        return lower_fold(L, e->u.quant.is_forall ? FX_FOLD_ALL : FX_FOLD_ANY,
                          e->u.quant.binders, e->u.quant.n_binders, NULL, e->u.quant.body,
                          e->type, e->span);
    }
    FX_UNREACHABLE();
}


/* ---- the constructive forms ---- */

/* `len(p)`: the length of parameter p; {0} for any other size. */
static FxNodeId length_size(Lower *L, const char *size, FxSpan sp)
{
    size_t n = strlen(size);
    if (strncmp(size, "len(", 4) != 0 || n < 6 || size[n - 1] != ')')
        return (FxNodeId){0};
    for (uint32_t i = 0; i < L->in->n_params; i++) {
        if (strlen(L->in->params[i].name) == n - 5 &&
            !strncmp(L->in->params[i].name, size + 4, n - 5)) {
            FxNodeId p = param(L, i, sp);
            return builtin(L, "len", "Natural", &p, 1, sp);
        }
    }
    FX_CHECK(false, "size `%s` names no parameter", size);
    FX_UNREACHABLE();
}

static FxNodeId size_of(Lower *L, const char *size, FxSpan sp)
{
    if (size[0] >= '0' && size[0] <= '9')
        return constant(L, size, "Natural", sp);
    FxNodeId len = length_size(L, size, sp);
    if (len.v)
        return len;
    FxExpr e = {.kind = FX_EXPR_NAME, .span = sp};
    e.u.text = size;
    return size_var(L, &e);
}

static FxNodeId literal_pattern(Lower *L, const FxExpr *p, const char *type)
{
    if (p->kind == FX_EXPR_UNARY) {
        char *neg = fx_xasprintf("-%s", p->u.unary.operand->u.text);
        FxNodeId id = constant(L, neg, p->u.unary.operand->kind == FX_EXPR_FLOAT ? "Float" : "Int",
                               p->span);
        free(neg);
        return id;
    }
    if (p->kind == FX_EXPR_BOOL)
        return constant(L, p->u.boolean ? "true" : "false", "Bool", p->span);
    return constant(L, p->u.text, p->kind == FX_EXPR_INT ? type : p->kind == FX_EXPR_FLOAT
                                                                          ? "Float" : "String",
                    p->span);
}

/* The condition under which an equation applies: its literal patterns and
 * its guard (lazily, after the patterns). {0} when it always applies. */
static FxNodeId equation_condition(Lower *L, const FxConstraint *k)
{
    FxNodeId cond = {0};
    for (size_t i = 0; k->u.eq.head && i < k->u.eq.n_patterns; i++) {
        const FxExpr *p = k->u.eq.patterns[i];
        if (p->kind == FX_EXPR_NAME) {
            push_local(L, p->u.text, true, (uint32_t)i);
            continue;
        }
        FxNodeId test = binary(L, FX_NODE_EQ, "Bool", param(L, (uint32_t)i, p->span),
                               literal_pattern(L, p, L->g->param_types[i]), p->span);
        cond = cond.v ? binary(L, FX_NODE_AND, "Bool", cond, test, p->span) : test;
    }
    if (k->u.eq.guard) {
        FxNodeId g = lower(L, k->u.eq.guard);
        cond = cond.v ? binary(L, FX_NODE_AND, "Bool", cond, g, k->u.eq.guard->span) : g;
    }
    return cond;
}

static FxNodeId uncovered(Lower *L)
{
    FxNodeId args[64];
    for (uint32_t i = 0; i < L->g->n_params && i < 64; i++)
        args[i] = param(L, i, L->in->name_span);
    FxNodeId id = add_named(L, FX_NODE_FAIL, L->g->ret_type, args, L->g->n_params,
                            L->in->name_span);
    node(L, id)->text = fx_graph_intern(L->g, L->in->name);
    return id;
}

/* Tiers: literal patterns first, then guarded, then the first unguarded
 * equation; a call none covers fails. Built inside out. */
static FxNodeId lower_equations(Lower *L)
{
    FX_VEC(const FxConstraint *) all = {0};
    fx_vec_foreach(FxConstraint *, kp, &L->in->constraints)
    {
        if ((*kp)->kind == FX_CON_EQUATION)
            fx_vec_push(&all, *kp);
    }
    const FxConstraint **eqs = all.data;
    size_t n = all.len;
    FxNodeId acc = {0};
    for (size_t i = 0; i < n && !acc.v; i++) {
        if (eqs[i]->u.eq.tier != FX_TIER_OTHERWISE)
            continue;
        size_t mark = L->locals.len;
        equation_condition(L, eqs[i]);
        acc = as_matrix(L, lower(L, eqs[i]->u.eq.rhs), L->in->ret, eqs[i]->span);
        L->locals.len = mark;
    }
    if (!acc.v)
        acc = uncovered(L);
    for (int tier = FX_TIER_GUARDED; tier >= FX_TIER_LITERAL; tier--) {
        for (size_t i = n; i-- > 0;) {
            if ((int)eqs[i]->u.eq.tier != tier)
                continue;
            size_t mark = L->locals.len;
            FxNodeId cond = equation_condition(L, eqs[i]);
            FxNodeId val = as_matrix(L, lower(L, eqs[i]->u.eq.rhs), L->in->ret, eqs[i]->span);
            L->locals.len = mark;
            FxNodeId in[3] = {cond, val, acc};
            acc = add_named(L, FX_NODE_IF, L->g->ret_type, in, 3, eqs[i]->span);
        }
    }
    fx_vec_free(&all);
    return acc;
}

static FxNodeId lower_elementwise(Lower *L, const FxConstraint *k)
{
    const FxType *ret = L->in->ret;
    FxNodeId rows, cols = {0};
    if (ret->kind == FX_TY_MATRIX) {
        rows = size_of(L, ret->rows, k->span);
        cols = size_of(L, ret->cols, k->span);
    } else {
        const FxExpr *len = fx_check_declared_length(L->in);
        FX_CHECK(len, "an element-wise list without `len(result) = ...` reached lowering");
        rows = lower(L, len);
    }
    uint32_t si = fx_graph_new_slot(L->g), sj = 0;
    push_local(L, k->u.elem.indices[0], false, si);
    if (k->u.elem.n_indices == 2) {
        sj = fx_graph_new_slot(L->g);
        push_local(L, k->u.elem.indices[1], false, sj);
    }
    FxNodeId body = lower(L, k->u.elem.rhs);
    L->locals.len -= k->u.elem.n_indices;
    FxNodeId in[3] = {rows, cols, body};
    FxNodeId id = add_named(L, FX_NODE_MAP, L->g->ret_type, in, 3, k->span);
    node(L, id)->num = si;
    node(L, id)->num2 = k->u.elem.n_indices == 2 ? (int64_t)sj : -1;
    return id;
}

/* The range a comprehension variable is bounded to: the largest lower
 * bound and the smallest upper bound among the conjuncts of COND. The
 * filter still tests the whole condition, so the range may be generous. */
typedef struct Bounds {
    FxNodeId lo, hi;
} Bounds;

static void merge_bound(Lower *L, FxNodeId *acc, FxNodeId b, const char *pick, FxSpan sp)
{
    if (!acc->v) {
        *acc = b;
        return;
    }
    FxNodeId in[2] = {*acc, b};
    *acc = builtin(L, pick, "Int", in, 2, sp);
}

static FxNodeId plus_one(Lower *L, FxNodeId x, FxSpan sp)
{
    return binary(L, FX_NODE_ADD, "Int", x, constant(L, "1", "Natural", sp), sp);
}

/* The range of a comprehension variable from the bounds the checker found
 * (ast.h: FxBound): the largest lower and the smallest upper bound. */
static void range_bounds(Lower *L, const FxConstraint *k, Bounds *out)
{
    for (size_t i = 0; i < k->u.comp.n_bounds; i++) {
        const FxBound *bd = &k->u.comp.bounds[i];
        FxSpan sp = bd->e->span;
        if (bd->op == FX_OP_IN) {
            const FxExpr *r = bd->e;
            merge_bound(L, &out->lo, lower(L, r->u.range.lo), "max", sp);
            FxNodeId hi = lower(L, r->u.range.hi);
            merge_bound(L, &out->hi, r->u.range.inclusive ? plus_one(L, hi, sp) : hi, "min", sp);
            continue;
        }
        FxNodeId e = lower(L, bd->e);
        if (bd->op == FX_OP_GE || bd->op == FX_OP_EQ)
            merge_bound(L, &out->lo, e, "max", sp);
        if (bd->op == FX_OP_GT)
            merge_bound(L, &out->lo, plus_one(L, e, sp), "max", sp);
        if (bd->op == FX_OP_LT)
            merge_bound(L, &out->hi, e, "min", sp);
        if (bd->op == FX_OP_LE || bd->op == FX_OP_EQ)
            merge_bound(L, &out->hi, plus_one(L, e, sp), "min", sp);
    }
}

static FxNodeId lower_comprehension(Lower *L, const FxConstraint *k)
{
    FxSpan sp = k->span;
    char *vt = fx_type_name(k->u.comp.var_type);
    FxNodeId domain;
    const FxExpr *walked = k->u.comp.collection ? k->u.comp.collection : k->u.comp.domain;
    if (walked) {
        domain = lower(L, walked);
    } else {
        Bounds b = {{0}, {0}};
        if (k->u.comp.var_type->kind == FX_TY_NATURAL)
            b.lo = constant(L, "0", "Natural", sp);
        range_bounds(L, k, &b);
        FX_CHECK(b.lo.v && b.hi.v, "a comprehension without bounds reached lowering");
        FxNodeId in[2] = {b.lo, b.hi};
        domain = add_named(L, FX_NODE_RANGE, "List[Int]", in, 2, sp);
    }
    uint32_t slot = fx_graph_new_slot(L->g);
    push_local(L, k->u.comp.var, false, slot);
    FxNodeId filter = lower(L, k->u.comp.cond);
    if (k->u.comp.kind_pred) {
        FxNodeId v = var(L, slot, vt, k->u.comp.var_span);
        FxNodeId call = add_named(L, FX_NODE_CALL, "Bool", &v, 1, k->u.comp.first_span);
        node(L, call)->text = fx_graph_intern(L->g, k->u.comp.kind_pred->key);
        /* a collection's element outside the kind's type is not of that kind */
        const FxType *elem = walked && walked->type->elem ? walked->type->elem : NULL;
        if (elem && k->u.comp.kind_pred->params[0].type->kind == FX_TY_NATURAL &&
            elem->kind != FX_TY_NATURAL) {
            FxNodeId w = var(L, slot, vt, k->u.comp.var_span);
            FxNodeId nat = binary(L, FX_NODE_GE, "Bool", w, constant(L, "0", "Natural", sp), sp);
            call = binary(L, FX_NODE_AND, "Bool", nat, call, sp);
        }
        filter = binary(L, FX_NODE_AND, "Bool", filter, call, sp);
    }
    FxNodeId body = var(L, slot, vt, k->u.comp.var_span);
    L->locals.len--;
    free(vt);
    FxNodeId in[3] = {domain, filter, body};
    FxNodeId id = add_named(L, FX_NODE_FOLD, L->g->ret_type, in, 3, sp);
    node(L, id)->num = FX_FOLD_COLLECT;
    node(L, id)->num2 = slot;
    return id;
}

static const FxConstraint *find_form(const FxIntent *in, FxConstraintKind kind)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == kind) return *kp;
    return NULL;
}

/* A bubble sort of list by the order constraint's key. */
static FxNodeId lower_sort(Lower *L, FxNodeId list, const FxConstraint *order)
{
    FxNodeId key = {0};
    int64_t slot = -1;
    if (order->u.order.key_form != FX_KEY_NONE) {
        const FxType *elem = L->in->ret->elem;
        char *et = fx_type_name(elem);
        slot = fx_graph_new_slot(L->g);
        FxNodeId v = var(L, (uint32_t)slot, et, order->span);
        const FxExpr *k = order->u.order.key;
        if (order->u.order.key_form == FX_KEY_FIELD) {
            key = add(L, FX_NODE_FIELD, k->type, &v, 1, k->span);
            node(L, key)->text = fx_graph_intern(L->g, k->u.text);
        } else if (order->u.order.key_form == FX_KEY_FUNCTION) {
            key = add(L, FX_NODE_CALL, order->u.order.key_fn->ret, &v, 1, k->span);
            node(L, key)->text = fx_graph_intern(L->g, order->u.order.key_fn->key);
        } else {
            push_local(L, order->u.order.key_var, false, (uint32_t)slot);
            key = lower(L, k);
            L->locals.len--;
        }
        free(et);
    }
    FxNodeId in[2] = {list, key};
    FxNodeId id = add_named(L, FX_NODE_SORT, L->g->ret_type, in, 2, order->span);
    node(L, id)->num = order->u.order.descending;
    node(L, id)->num2 = slot;
    return id;
}

/* The value before postconditions: exactly one constructive form. */
static FxNodeId construct(Lower *L, bool *out_sorted)
{
    const FxConstraint *order = find_form(L->in, FX_CON_ORDER);
    const FxConstraint *k;
    *out_sorted = false;
    if ((k = find_form(L->in, FX_CON_ELEMENTWISE)))
        return lower_elementwise(L, k);
    if ((k = find_form(L->in, FX_CON_COMPREHENSION))) {
        FxNodeId v = lower_comprehension(L, k);
        *out_sorted = order != NULL;
        /* a range is walked upwards: ascending without a key holds already */
        if (order && (k->u.comp.collection || k->u.comp.domain || order->u.order.descending ||
                      order->u.order.key_form != FX_KEY_NONE))
            v = lower_sort(L, v, order);
        return v;
    }
    if ((k = find_form(L->in, FX_CON_CHOICE))) {
        FX_VEC(FxNodeId) cands = {0};
        for (size_t i = 0; i < k->u.choice.n; i++)
            fx_vec_push(&cands, as_matrix(L, lower(L, k->u.choice.candidates[i]), L->in->ret,
                                          k->u.choice.candidates[i]->span));
        FxNodeId id = add_named(L, FX_NODE_CHOOSE, L->g->ret_type, cands.data,
                                (uint32_t)cands.len, k->span);
        fx_vec_free(&cands);
        return id;
    }
    if ((k = find_form(L->in, FX_CON_PERMUTATION))) {
        FxNodeId v = lower(L, k->u.perm.of);
        *out_sorted = order != NULL;
        return order ? lower_sort(L, v, order) : v;
    }
    return lower_equations(L);
}

static const char *source_text(Lower *L, FxSpan sp)
{
    char *s = fx_xasprintf("`%.*s` (line %u)", (int)sp.len, sp.src->text + sp.offset,
                           origin_of(sp).line);
    const char *t = fx_graph_intern(L->g, s);
    free(s);
    return t;
}

/* CHECK value against cond, where `result` is the value. */
static FxNodeId check(Lower *L, FxNodeId value, const FxConstraint *k)
{
    uint32_t slot = fx_graph_new_slot(L->g);
    FxNodeId cond;
    L->result_slot = slot;
    if (k->kind == FX_CON_POST) {
        cond = lower(L, k->u.post.expr);
    } else { /* an order that builds nothing: sorted means unchanged by sorting */
        FxNodeId r = var(L, slot, L->g->ret_type, k->span);
        FxNodeId sorted = lower_sort(L, var(L, slot, L->g->ret_type, k->span), k);
        cond = binary(L, FX_NODE_EQ, "Bool", r, sorted, k->span);
    }
    L->result_slot = -1;
    FxNodeId in[2] = {value, cond};
    FxNodeId id = add_named(L, FX_NODE_CHECK, L->g->ret_type, in, 2, k->span);
    node(L, id)->num2 = slot;
    node(L, id)->text = source_text(L, k->span);
    return id;
}

/* A result declared Natural but computed as an Int (`n - 1`) is checked to
 * be one, as arguments are. */
static FxNodeId check_natural(Lower *L, FxNodeId value)
{
    FxSpan sp = L->in->ret_expr->span;
    uint32_t slot = fx_graph_new_slot(L->g);
    FxNodeId r = var(L, slot, L->g->ret_type, sp);
    FxNodeId cond = binary(L, FX_NODE_GE, "Bool", r, constant(L, "0", "Natural", sp), sp);
    FxNodeId in[2] = {value, cond};
    FxNodeId id = add_named(L, FX_NODE_CHECK, L->g->ret_type, in, 2, sp);
    node(L, id)->num2 = slot;
    node(L, id)->text = fx_graph_intern(L->g, "`result >= 0` (the declared return type is Natural)");
    return id;
}

/* The sizes the parameters' types declare must hold: a size variable named
 * twice, in one parameter (`Matrix[N, N]`) or in several (`Matrix[M, K]`
 * and `Matrix[K, N]`), has one value, and a literal size (`Matrix[3, 3]`)
 * is that number. Wraps body in that test. */
static FxNodeId check_sizes(Lower *L, FxNodeId body)
{
    const FxIntent *in = L->in;
    FxNodeId cond = {0};
    FxBuf what = {0};
    static const char *const dim_names[] = {"rows", "columns"};
    static const char *const dim_fns[] = {"rows", "cols"};
    for (uint32_t i = 0; i < in->n_params; i++) {
        const FxType *t = in->params[i].type;
        for (int d = 0; t->kind == FX_TY_MATRIX && d < 2; d++) {
            const char *name = d ? t->cols : t->rows;
            FxNodeId pi = param(L, i, in->name_span), other = {0};
            if (name[0] >= '0' && name[0] <= '9') {
                other = constant(L, name, "Natural", in->name_span);
                fx_buf_printf(&what, "%s`%s` must have %s %s", what.len ? "; " : "", in->params[i].name,
                              name, dim_names[d]);
            } else if ((other = length_size(L, name, in->name_span)).v ||
                       (other = natural_size(L, name, in->name_span)).v) {
                fx_buf_printf(&what, "%s`%s` must have %s %s", what.len ? "; " : "",
                              in->params[i].name, name, dim_names[d]);
            }
            /* the first earlier dimension that names it: it binds the size */
            for (uint32_t j = 0; j <= i && !other.v; j++) {
                const FxType *u = in->params[j].type;
                for (int e = 0; u->kind == FX_TY_MATRIX && e < 2 && !other.v; e++) {
                    if ((j == i && e >= d) || strcmp(e ? u->cols : u->rows, name) != 0)
                        continue;
                    FxNodeId pj = param(L, j, in->name_span);
                    other = builtin(L, dim_fns[e], "Natural", &pj, 1, in->name_span);
                    fx_buf_printf(&what, "%s`%s` is both the %s of `%s` and the %s of `%s`",
                                  what.len ? "; " : "", name, dim_names[e], in->params[j].name,
                                  dim_names[d], in->params[i].name);
                }
            }
            if (!other.v)
                continue;
            FxNodeId mine = builtin(L, dim_fns[d], "Natural", &pi, 1, in->name_span);
            FxNodeId eq = binary(L, FX_NODE_EQ, "Bool", mine, other, in->name_span);
            cond = cond.v ? binary(L, FX_NODE_AND, "Bool", cond, eq, in->name_span) : eq;
        }
    }
    if (!cond.v) {
        fx_buf_free(&what);
        return body;
    }
    FxNodeId args[64];
    for (uint32_t i = 0; i < in->n_params && i < 64; i++)
        args[i] = param(L, i, in->name_span);
    FxNodeId fail = add_named(L, FX_NODE_FAIL, L->g->ret_type, args, in->n_params, in->name_span);
    node(L, fail)->num = 1;
    char *msg = fx_xasprintf("the sizes of the arguments disagree with their types (%s)",
                             fx_buf_str(&what));
    node(L, fail)->text = fx_graph_intern(L->g, msg);
    free(msg);
    fx_buf_free(&what);
    FxNodeId in3[3] = {cond, body, fail};
    return add_named(L, FX_NODE_IF, L->g->ret_type, in3, 3, in->name_span);
}

/* Can the value at id be other than a Natural: is it, or a branch of the
 * equations' `if` chain that leads to it, typed otherwise (`f(n-1) - 1`)? */
static bool maybe_not_natural(Lower *L, FxNodeId id)
{
    const FxNode *n = node(L, id);
    if (n->op == FX_NODE_IF)
        return maybe_not_natural(L, n->inputs[1]) || maybe_not_natural(L, n->inputs[2]);
    return fx_typeid_kind(n->tid) != FX_TK_NATURAL && n->op != FX_NODE_FAIL;
}

static FxNodeId lower_intent_body(Lower *L)
{
    bool sorted;
    FxNodeId value = as_matrix(L, construct(L, &sorted), L->in->ret, L->in->name_span);
    /* a measured intent runs only once its measure holds: its one
     * implementation is a choice of one */
    if (find_form(L->in, FX_CON_ACCURACY) && !find_form(L->in, FX_CON_CHOICE))
        value = add_named(L, FX_NODE_CHOOSE, L->g->ret_type, &value, 1,
                          find_form(L->in, FX_CON_ACCURACY)->span);
    fx_vec_foreach(FxConstraint *, kp, &L->in->constraints)
    {
        if ((*kp)->kind == FX_CON_POST || ((*kp)->kind == FX_CON_ORDER && !sorted))
            value = check(L, value, *kp);
    }
    if (fx_typeid_kind(L->g->ret_tid) == FX_TK_NATURAL && maybe_not_natural(L, value))
        value = check_natural(L, value);
    return check_sizes(L, value);
}

FxGraph *fx_lower_intent(const FxProgram *prog, const FxIntent *in)
{
    Lower L = {.prog = prog, .in = in, .result_slot = -1};
    L.g = fx_graph_new(in->key, "v1");
    for (size_t i = 0; i < in->n_params; i++) {
        char *t = fx_type_name(in->params[i].type);
        fx_graph_add_param(L.g, in->params[i].name, t);
        free(t);
    }
    char *rt = fx_type_name(in->ret);
    fx_graph_set_ret_type(L.g, rt);
    free(rt);
    fx_vec_foreach(FxProperty *, pp, &in->properties) /* the checker vetted it */
    {
        if (!strcmp((*pp)->name, "tolerance") && (*pp)->n_args == 1 &&
            (*pp)->verdict != FX_VERDICT_FALSE)
            L.g->tolerance = strtod((*pp)->args[0], NULL);
    }
    L.g->root = lower_intent_body(&L);
    fx_vec_free(&L.locals);
    fx_vec_free(&L.groups);
    char why[256];
    FX_CHECK(fx_graph_verify(L.g, why, sizeof(why)), "lowering made a bad graph: %s", why);
    fx_graph_freeze(L.g);
    return L.g;
}

FxGraph *fx_lower_expr(const FxProgram *prog, const FxExpr *e, const char *name)
{
    Lower L = {.prog = prog, .result_slot = -1};
    L.g = fx_graph_new(name, "v1");
    char *rt = fx_type_name(e->type);
    fx_graph_set_ret_type(L.g, rt);
    free(rt);
    L.g->root = lower(&L, e);
    fx_vec_free(&L.locals);
    fx_vec_free(&L.groups);
    char why[256];
    FX_CHECK(fx_graph_verify(L.g, why, sizeof(why)), "lowering made a bad graph: %s", why);
    fx_graph_freeze(L.g);
    return L.g;
}

FxGraph *fx_lower_check(const FxProgram *prog, const FxIntent *in, const FxExpr *cond,
                        const char *extra, const FxType *extra_type)
{
    Lower L = {.prog = prog, .in = in, .result_slot = -1};
    L.g = fx_graph_new("<check>", "v1");
    for (size_t i = 0; i < in->n_params; i++) {
        char *t = fx_type_name(in->params[i].type);
        fx_graph_add_param(L.g, in->params[i].name, t);
        free(t);
    }
    if (extra) {
        char *et = fx_type_name(extra_type);
        fx_graph_add_param(L.g, extra, et);
        free(et);
        uint32_t slot = (uint32_t)in->n_params;
        if (!strcmp(extra, "result"))
            L.result_slot = slot;
        else
            push_local(&L, extra, true, slot);
    }
    char *ct = fx_type_name(cond->type);
    fx_graph_set_ret_type(L.g, ct);
    free(ct);
    L.g->root = lower(&L, cond);
    fx_vec_free(&L.locals);
    fx_vec_free(&L.groups);
    char why[256];
    FX_CHECK(fx_graph_verify(L.g, why, sizeof(why)), "lowering made a bad graph: %s", why);
    fx_graph_freeze(L.g);
    return L.g;
}
