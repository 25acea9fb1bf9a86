/*
 * ast.c: names of operators, for messages and printing.
 */
#include "ast.h"

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
