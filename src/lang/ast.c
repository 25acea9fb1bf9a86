/*
 * ast.c: names of operators, for messages and printing.
 */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

/* ORDER FX_OP */
static const char *const op_names[] = {
    "+", "-", "*", "/", "div", "mod", "^", "++", "and", "or", "-", "not",
    "=", "!=", "<", "<=", ">", ">=", "in",
};

const char *fx_op_name(FxOp op)
{
    return (size_t)op < FX_ARRAY_LEN(op_names) ? op_names[op] : "?";
}

/* ORDER FX_AGG */
static const char *const agg_names[] = {"sum", "product", "min", "max", "count", "list", "mean"};

const char *fx_agg_name(FxAggKind agg)
{
    return (size_t)agg < FX_ARRAY_LEN(agg_names) ? agg_names[agg] : "?";
}

void fx_expr_each_slot(FxExpr *e, void (*fn)(FxExpr **slot, void *ctx), void *ctx)
{
#define EACH(arr, n)                                                                               \
    for (size_t i_ = 0; i_ < (n); i_++)                                                            \
        if ((arr)[i_])                                                                             \
            fn(&(arr)[i_], ctx);
#define ONE(x)                                                                                     \
    if (x)                                                                                         \
        fn(&(x), ctx);
    switch (e->kind) {
    case FX_EXPR_UNARY: ONE(e->u.unary.operand); break;
    case FX_EXPR_BINARY:
        ONE(e->u.binary.lhs);
        ONE(e->u.binary.rhs);
        break;
    case FX_EXPR_COMPARE: EACH(e->u.compare.operands, e->u.compare.n); break;
    case FX_EXPR_IF:
        ONE(e->u.if_.cond);
        ONE(e->u.if_.then_e);
        ONE(e->u.if_.else_e);
        break;
    case FX_EXPR_CALL: EACH(e->u.call.args, e->u.call.n_args); break;
    case FX_EXPR_INDEX:
        ONE(e->u.index.base);
        EACH(e->u.index.indices, e->u.index.n);
        break;
    case FX_EXPR_FIELD: ONE(e->u.field.base); break;
    case FX_EXPR_LIST: EACH(e->u.list.items, e->u.list.n); break;
    case FX_EXPR_RECORD:
        ONE(e->u.record.base);
        EACH(e->u.record.values, e->u.record.n);
        break;
    case FX_EXPR_RANGE:
        ONE(e->u.range.lo);
        ONE(e->u.range.hi);
        break;
    case FX_EXPR_AGGREGATE:
        ONE(e->u.aggregate.body);
        for (size_t i = 0; i < e->u.aggregate.n_binders; i++)
            ONE(e->u.aggregate.binders[i].domain);
        ONE(e->u.aggregate.filter);
        ONE(e->u.aggregate.group_key);
        break;
    case FX_EXPR_QUANT:
        for (size_t i = 0; i < e->u.quant.n_binders; i++)
            ONE(e->u.quant.binders[i].domain);
        ONE(e->u.quant.body);
        break;
    default:
        break;
    }
#undef EACH
#undef ONE
}

typedef struct ChildVisit {
    void (*fn)(FxExpr *child, void *ctx);
    void *ctx;
} ChildVisit;

static void visit_child(FxExpr **slot, void *ctx)
{
    ChildVisit *v = ctx;
    v->fn(*slot, v->ctx);
}

void fx_expr_each_child(FxExpr *e, void (*fn)(FxExpr *child, void *ctx), void *ctx)
{
    ChildVisit v = {fn, ctx};
    fx_expr_each_slot(e, visit_child, &v);
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

typedef struct Kids {
    FX_VEC(const FxExpr *) v;
} Kids;

static void collect_kid(FxExpr *child, void *ctx)
{
    fx_vec_push(&((Kids *)ctx)->v, child);
}

bool fx_expr_same(const FxExpr *a, const FxExpr *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FX_EXPR_INT:
    case FX_EXPR_FLOAT:
    case FX_EXPR_STRING:
    case FX_EXPR_NAME: return same_text(a->u.text, b->u.text);
    case FX_EXPR_BOOL: return a->u.boolean == b->u.boolean;
    case FX_EXPR_UNARY:
        if (a->u.unary.op != b->u.unary.op)
            return false;
        break;
    case FX_EXPR_BINARY:
        if (a->u.binary.op != b->u.binary.op)
            return false;
        break;
    case FX_EXPR_COMPARE:
        if (a->u.compare.n != b->u.compare.n)
            return false;
        for (size_t i = 0; i + 1 < a->u.compare.n; i++)
            if (a->u.compare.ops[i] != b->u.compare.ops[i])
                return false;
        break;
    case FX_EXPR_CALL:
        if (!same_text(a->u.call.name, b->u.call.name) || a->u.call.n_args != b->u.call.n_args)
            return false;
        break;
    case FX_EXPR_INDEX:
        if (a->u.index.n != b->u.index.n)
            return false;
        break;
    case FX_EXPR_FIELD:
        if (!same_text(a->u.field.name, b->u.field.name))
            return false;
        break;
    case FX_EXPR_LIST:
        if (a->u.list.n != b->u.list.n)
            return false;
        break;
    case FX_EXPR_RECORD:
        if (a->u.record.n != b->u.record.n || !a->u.record.base != !b->u.record.base)
            return false;
        for (size_t i = 0; i < a->u.record.n; i++)
            if (!same_text(a->u.record.names[i], b->u.record.names[i]))
                return false;
        break;
    case FX_EXPR_RANGE:
        if (a->u.range.inclusive != b->u.range.inclusive)
            return false;
        break;
    case FX_EXPR_AGGREGATE:
        if (a->u.aggregate.agg != b->u.aggregate.agg ||
            a->u.aggregate.n_binders != b->u.aggregate.n_binders ||
            !a->u.aggregate.filter != !b->u.aggregate.filter ||
            !a->u.aggregate.group_key != !b->u.aggregate.group_key)
            return false;
        for (size_t i = 0; i < a->u.aggregate.n_binders; i++)
            if (!same_text(a->u.aggregate.binders[i].name, b->u.aggregate.binders[i].name))
                return false;
        break;
    case FX_EXPR_QUANT:
        if (a->u.quant.is_forall != b->u.quant.is_forall ||
            a->u.quant.n_binders != b->u.quant.n_binders || !a->u.quant.body != !b->u.quant.body)
            return false;
        for (size_t i = 0; i < a->u.quant.n_binders; i++)
            if (!same_text(a->u.quant.binders[i].name, b->u.quant.binders[i].name))
                return false;
        break;
    default:
        break;
    }
    Kids ka = {0}, kb = {0};
    fx_expr_each_child((FxExpr *)a, collect_kid, &ka);
    fx_expr_each_child((FxExpr *)b, collect_kid, &kb);
    bool same = ka.v.len == kb.v.len;
    for (size_t i = 0; same && i < ka.v.len; i++)
        same = fx_expr_same(ka.v.data[i], kb.v.data[i]);
    fx_vec_free(&ka.v);
    fx_vec_free(&kb.v);
    return same;
}

typedef struct DepthItem {
    FxExpr *e;
    size_t depth;
} DepthItem;

typedef struct DepthWalk {
    FX_VEC(DepthItem) stack;
    size_t depth; /* of the node whose children are being pushed */
} DepthWalk;

static void push_child(FxExpr *child, void *ctx)
{
    DepthWalk *w = ctx;
    DepthItem it = {child, w->depth + 1};
    fx_vec_push(&w->stack, it);
}

const FxExpr *fx_expr_too_deep(FxExpr *e)
{
    DepthWalk w = {0};
    DepthItem root = {e, 1};
    fx_vec_push(&w.stack, root);
    const FxExpr *deep = NULL;
    while (w.stack.len && !deep) {
        DepthItem it = w.stack.data[--w.stack.len];
        if (it.depth > FX_MAX_EXPR_DEPTH) {
            deep = it.e;
            break;
        }
        w.depth = it.depth;
        fx_expr_each_child(it.e, push_child, &w);
    }
    fx_vec_free(&w.stack);
    return deep;
}
