/*
 * ast.c: names of operators, for messages and printing.
 */
#include "ast.h"

#include <stdlib.h>

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
static const char *const agg_names[] = {"sum", "product", "min", "max", "count", "list"};

const char *fx_agg_name(FxAggKind agg)
{
    return (size_t)agg < FX_ARRAY_LEN(agg_names) ? agg_names[agg] : "?";
}

void fx_expr_each_child(FxExpr *e, void (*fn)(FxExpr *child, void *ctx), void *ctx)
{
#define EACH(arr, n)                                                                               \
    for (size_t i_ = 0; i_ < (n); i_++)                                                            \
        if ((arr)[i_])                                                                             \
            fn((arr)[i_], ctx);
#define ONE(x)                                                                                     \
    if (x)                                                                                         \
        fn(x, ctx);
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
    case FX_EXPR_RECORD: EACH(e->u.record.values, e->u.record.n); break;
    case FX_EXPR_RANGE:
        ONE(e->u.range.lo);
        ONE(e->u.range.hi);
        break;
    case FX_EXPR_AGGREGATE:
        ONE(e->u.aggregate.body);
        for (size_t i = 0; i < e->u.aggregate.n_binders; i++)
            ONE(e->u.aggregate.binders[i].domain);
        ONE(e->u.aggregate.filter);
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
