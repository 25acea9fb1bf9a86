/*
 * rule_fold.c: see rule_fold.h.
 *
 * DESIGN. One walk in id order builds the new version. Inputs come first,
 * so when the walk reaches a node its inputs are already folded as far as
 * they go, and `x * (60 * 60)` becomes `x * 3600` in one pass. Each node is
 * either copied (its inputs renamed) or replaced: by a new constant (origin
 * "constant folding"), or by one of its own inputs (`x + 0` is x, an `if`
 * on a constant is its branch). Replaced nodes and whatever only they read
 * stay in the result unread; fx_rule_dce drops them.
 *
 * What is folded, and why it is exact:
 *   - integers (Natural, Int) through the interpreter's own operations
 *     (exec/value.h), so the constant is the value the VM would compute,
 *     however large: + - * div mod ^ and unary -, and the comparisons;
 *   - booleans: not, = and != of two constants;
 *   - `if` on a constant condition is the branch it takes; `and`/`or` with
 *     a constant left side is that side or the right one (the right side
 *     runs exactly when the `and`/`or` would have run it), and `a and true`,
 *     `a or false` are a (a runs in both);
 *   - identities that hold for every integer: x + 0, 0 + x, x - 0, x * 1,
 *     1 * x, x div 1, x ^ 1 are x, and x * 0, 0 * x are 0 when x is a
 *     parameter or a bound variable (reading one cannot fail).
 * What is not, deliberately:
 *   - an operation that raises an error (`1 div 0`, `2 ^ -1`): the node stays
 *     and raises it at run time, if it ever runs (it may sit in a branch
 *     that never does);
 *   - an integer whose text would exceed MAX_DIGITS digits, and a power
 *     whose result could (`2 ^ 4000000000` is left to the run, which may
 *     never need it);
 *   - x * 0 for any other x: x may fail or not terminate, and the product
 *     must fail with it;
 *   - floats, strings, lists and records: no float arithmetic is folded at
 *     all (a folded double would have to round-trip through the constant's
 *     text exactly, NaN and -0.0 included, and x + 0.0 is not x for
 *     x = -0.0), and the others gain nothing from it;
 *   - calls, even of intents whose arguments are all constants: a call may
 *     not terminate, and running it belongs to the run.
 * Nothing is evaluated earlier than before: a new constant costs nothing
 * and cannot fail, and every input that replaces its node ran whenever the
 * node ran.
 */
#include "rule_fold.h"

#include <stdlib.h>
#include <string.h>

#include "exec/value.h"
#include "rule_dce.h"

#define REWRITE "constant folding"
#define MAX_DIGITS 1000
#define MAX_POW_BITS 3300 /* 2^3300 has 994 digits */

/* The value of an integer constant (a new reference), or false. */
static bool int_value(const FxGraph *c, FxNodeId id, FxValue *out)
{
    const FxNode *n = fx_graph_node(c, id);
    if (n->op != FX_NODE_CONST || !fx_typeid_is_integer(n->tid) || !n->text || !fx_is_decimal(n->text))
        return false;
    *out = fx_val_int_text(n->text);
    return true;
}

static bool bool_value(const FxGraph *c, FxNodeId id, bool *out)
{
    const FxNode *n = fx_graph_node(c, id);
    if (n->op != FX_NODE_CONST || fx_typeid_kind(n->tid) != FX_TK_BOOL || !n->text)
        return false;
    *out = !strcmp(n->text, "true");
    return *out || !strcmp(n->text, "false");
}

/* Is id the integer constant k? */
static bool int_is(const FxGraph *c, FxNodeId id, int64_t k)
{
    FxValue v;
    if (!int_value(c, id, &v))
        return false;
    int64_t i;
    bool is = fx_val_to_int64(v, &i) && i == k;
    fx_value_release(v);
    return is;
}

static FxNodeId add_const(FxGraph *c, const char *type, const char *text)
{
    FxOrigin o = {.rewrite = REWRITE};
    FxNodeId id = fx_graph_add(c, FX_NODE_CONST, type, NULL, 0, o);
    fx_graph_node(c, id)->text = fx_graph_intern(c, text);
    return id;
}

/* v as a constant of the node's type; {0} when its text would be too long,
 * or v is negative where the type says Natural (then the types are wrong,
 * and the run should meet it as it always did). */
static FxNodeId int_const(FxGraph *c, const char *type, FxTypeId tid, FxValue v)
{
    FxNodeId id = {0};
    FxBuf text = {0};
    fx_val_print(v, &text);
    if (text.len <= MAX_DIGITS + 1 && !(fx_typeid_kind(tid) == FX_TK_NATURAL && fx_val_int_sign(v) < 0))
        id = add_const(c, type, fx_buf_str(&text));
    fx_buf_free(&text);
    return id;
}

/* Is a ^ e small enough to hold as a constant (or an error to leave)? */
static bool pow_small(FxValue a, FxValue e)
{
    int64_t base, k;
    if (!fx_val_to_int64(a, &base) || !fx_val_to_int64(e, &k) || k < 0)
        return false;
    uint64_t mag = base < 0 ? 0 - (uint64_t)base : (uint64_t)base;
    if (mag <= 1)
        return true;
    uint64_t bits = 64 - (uint64_t)__builtin_clzll(mag);
    return (uint64_t)k <= MAX_POW_BITS / bits;
}

/* The value of an arithmetic operation or comparison n on integer
 * constants a and b; false when it raises an error or is not one of those. */
static bool int_binary(const FxNode *n, FxValue a, FxValue b, FxValue *out, bool *out_is_bool)
{
    FxError err;
    bool ok = true;
    *out_is_bool = false;
    switch (n->op) {
    case FX_NODE_ADD: return fx_val_add(a, b, out, &err);
    case FX_NODE_SUB: return fx_val_sub(a, b, out, &err);
    case FX_NODE_MUL: return fx_val_mul(a, b, out, &err);
    case FX_NODE_IDIV: return fx_val_idiv(a, b, out, &err);
    case FX_NODE_MOD: return fx_val_mod(a, b, out, &err);
    case FX_NODE_POW: return pow_small(a, b) && fx_val_pow(a, b, out, &err);
    default: break;
    }
    int c = fx_val_compare(a, b, &ok);
    if (!ok)
        return false;
    *out_is_bool = true;
    switch (n->op) {
    case FX_NODE_EQ: *out = fx_val_bool(c == 0); return true;
    case FX_NODE_NE: *out = fx_val_bool(c != 0); return true;
    case FX_NODE_LT: *out = fx_val_bool(c < 0); return true;
    case FX_NODE_LE: *out = fx_val_bool(c <= 0); return true;
    case FX_NODE_GT: *out = fx_val_bool(c > 0); return true;
    case FX_NODE_GE: *out = fx_val_bool(c >= 0); return true;
    default: return false;
    }
}

static FxNodeId fold_int_binary(FxGraph *c, const FxNode *n, const FxNodeId *in)
{
    FxNodeId none = {0}, id = none;
    FxValue a, b, r;
    bool is_bool;
    if (!int_value(c, in[0], &a))
        return none;
    if (!int_value(c, in[1], &b)) {
        fx_value_release(a);
        return none;
    }
    if (int_binary(n, a, b, &r, &is_bool)) {
        if (is_bool)
            id = fx_typeid_kind(n->tid) != FX_TK_BOOL ? none : add_const(c, "Bool", r.u.b ? "true" : "false");
        else
            id = fx_typeid_is_integer(n->tid) ? int_const(c, n->type, n->tid, r) : none;
        fx_value_release(r);
    }
    fx_value_release(a);
    fx_value_release(b);
    return id;
}

static FxNodeId fold_unary(FxGraph *c, const FxNode *n, FxNodeId x)
{
    FxNodeId none = {0};
    bool v;
    if (n->op == FX_NODE_NOT)
        return bool_value(c, x, &v) ? add_const(c, "Bool", v ? "false" : "true") : none;
    FxValue a, r;
    FxError err;
    if (!fx_typeid_is_integer(n->tid) || !int_value(c, x, &a))
        return none;
    FxNodeId id = none;
    if (fx_val_neg(a, &r, &err)) {
        id = int_const(c, n->type, n->tid, r);
        fx_value_release(r);
    }
    fx_value_release(a);
    return id;
}

/* Reading a parameter or a bound variable: it cannot fail. */
static bool total(const FxGraph *c, FxNodeId id)
{
    FxNodeOp op = fx_graph_node(c, id)->op;
    return op == FX_NODE_PARAM || op == FX_NODE_VAR;
}

/* x + 0 and the like: the input the node equals, or {0}. */
static FxNodeId fold_identity(const FxGraph *c, const FxNode *n, const FxNodeId *in)
{
    FxNodeId none = {0}, a = in[0], b = in[1];
    if (!fx_typeid_is_integer(n->tid) || !fx_typeid_is_integer(fx_graph_node(c, a)->tid) ||
        !fx_typeid_is_integer(fx_graph_node(c, b)->tid))
        return none;
    switch (n->op) {
    case FX_NODE_ADD:
        return int_is(c, b, 0) ? a : int_is(c, a, 0) ? b : none;
    case FX_NODE_SUB:
        return int_is(c, b, 0) ? a : none;
    case FX_NODE_MUL:
        if (int_is(c, b, 1))
            return a;
        if (int_is(c, a, 1))
            return b;
        if (int_is(c, b, 0) && total(c, a))
            return b;
        return int_is(c, a, 0) && total(c, b) ? a : none;
    case FX_NODE_IDIV:
    case FX_NODE_POW:
        return int_is(c, b, 1) ? a : none;
    default:
        return none;
    }
}

/* `if`, `and`, `or` decided by a constant: the input they reduce to. */
static FxNodeId fold_choice(const FxGraph *c, const FxNode *n, const FxNodeId *in)
{
    FxNodeId none = {0};
    bool v;
    switch (n->op) {
    case FX_NODE_IF:
        return bool_value(c, in[0], &v) ? (v ? in[1] : in[2]) : none;
    case FX_NODE_AND:
        if (bool_value(c, in[0], &v))
            return v ? in[1] : in[0];
        return bool_value(c, in[1], &v) && v ? in[0] : none;
    case FX_NODE_OR:
        if (bool_value(c, in[0], &v))
            return v ? in[0] : in[1];
        return bool_value(c, in[1], &v) && !v ? in[0] : none;
    default:
        return none;
    }
}

/* What node n (of the old graph), its inputs renamed to `in` (ids in c),
 * folds to in c: a new constant, one of its inputs, or {0}: no folding. */
static FxNodeId fold_node(FxGraph *c, const FxNode *n, const FxNodeId *in)
{
    FxNodeId none = {0}, id;
    uint32_t arity = n->op == FX_NODE_NEG || n->op == FX_NODE_NOT ? 1
                     : n->op == FX_NODE_IF                         ? 3
                                                                   : 2;
    if (n->n_inputs != arity) /* not these ops' shape (a stored graph is read as it is): copy */
        return none;
    switch (n->op) {
    case FX_NODE_NEG:
    case FX_NODE_NOT:
        return fold_unary(c, n, in[0]);
    case FX_NODE_IF:
    case FX_NODE_AND:
    case FX_NODE_OR:
        return fold_choice(c, n, in);
    case FX_NODE_EQ:
    case FX_NODE_NE: {
        bool a, b;
        if (bool_value(c, in[0], &a) && bool_value(c, in[1], &b))
            return add_const(c, "Bool", (a == b) == (n->op == FX_NODE_EQ) ? "true" : "false");
        return fold_int_binary(c, n, in);
    }
    case FX_NODE_LT:
    case FX_NODE_LE:
    case FX_NODE_GT:
    case FX_NODE_GE:
        return fold_int_binary(c, n, in);
    case FX_NODE_ADD:
    case FX_NODE_SUB:
    case FX_NODE_MUL:
    case FX_NODE_IDIV:
    case FX_NODE_MOD:
    case FX_NODE_POW:
        id = fold_int_binary(c, n, in);
        return id.v ? id : fold_identity(c, n, in);
    default:
        return none;
    }
}

FxGraph *fx_rule_fold(const FxGraph *g, const char *label)
{
    FxGraph *c = fx_rule_new_version(g, label);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId)); /* map[0] = {0}: none */
    bool changed = false;
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        FxNodeId in[3], r = {0};
        bool whole = n->n_inputs <= 3; /* every op folded here has at most three inputs */
        for (uint32_t k = 0; whole && k < n->n_inputs; k++)
            whole = (in[k] = map[n->inputs[k].v]).v != 0;
        if (whole && n->n_inputs > 0)
            r = fold_node(c, n, in);
        changed |= r.v != 0;
        map[i] = r.v ? r : fx_rule_copy_node(c, n, map);
    }
    if (!changed) {
        fx_graph_free(c);
        free(map);
        return NULL;
    }
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    return c;
}
