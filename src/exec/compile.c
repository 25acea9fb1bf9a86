/*
 * compile.c: graphs to register bytecode.
 *
 * A walk from the root that emits code for each node the first time it is
 * needed and remembers the register that holds it. Lazy inputs (the
 * branches of `if`, the right side of `and`/`or`, loop bodies) open a scope:
 * what is computed inside is forgotten on the way out, because it may not
 * have run. Parameters and binders are their slots, so reading one costs no
 * instruction. Registers are never reused: a frame is as large as the
 * nodes it computes, which keeps the compiler simple and the VM's returns
 * cheap for the small functions recursion produces.
 */
#include <stdlib.h>
#include <string.h>

#include "clgen.h"
#include "cluster.h"
#include "interp_int.h"
#include "linrec.h"

typedef struct Compiler {
    FxRuntime *rt;
    const FxGraph *g;
    FxFunc *f;
    FX_VEC(FxInstr) code;
    FX_VEC(FxValue) consts;
    FX_VEC(FxFunc *) callees;
    FX_VEC(const char *const *) records;
    uint32_t next_reg;
    uint32_t *reg_of;       /* by node id: its register, or FX_NO_REG */
    uint32_t *uses;         /* by node id: the nodes that take it as an input */
    uint32_t *seen, stamp;  /* by node id: the walk (shared_inside) that saw it last */
    FX_VEC(uint32_t) trail; /* nodes given a register, for leaving scopes */
} Compiler;

static uint32_t compile(Compiler *C, FxNodeId id);

static uint32_t new_reg(Compiler *C)
{
    return C->next_reg++;
}

static uint32_t emit(Compiler *C, FxOpcode op, uint32_t d, uint32_t a, uint32_t b, uint32_t c,
                     FxNodeId node)
{
    FxInstr in = {(uint8_t)op, d, a, b, c, node.v, 0, 0, 0};
    fx_vec_push(&C->code, in);
    return (uint32_t)C->code.len - 1;
}

static uint32_t here(const Compiler *C)
{
    return (uint32_t)C->code.len;
}

static void patch(Compiler *C, uint32_t at, uint32_t target)
{
    C->code.data[at].a = target;
}

static uint32_t add_const(Compiler *C, FxValue v)
{
    fx_vec_push(&C->consts, v);
    return (uint32_t)C->consts.len - 1;
}

static uint32_t string_const(Compiler *C, const char *s)
{
    return add_const(C, fx_val_string(s, strlen(s)));
}

static size_t scope_enter(Compiler *C)
{
    return C->trail.len;
}

static void scope_leave(Compiler *C, size_t mark)
{
    while (C->trail.len > mark)
        C->reg_of[C->trail.data[--C->trail.len]] = FX_NO_REG;
}

/* Writes node id's value into register dst. When the node was computed by
 * the instruction just emitted, into a register nothing else has seen,
 * that instruction is pointed at dst instead of adding a move. */
static uint32_t compile_if(Compiler *C, FxNodeId id, const FxNode *n, uint32_t r);

static void compile_to(Compiler *C, FxNodeId id, uint32_t dst, FxNodeId at)
{
    bool fresh = C->reg_of[id.v] == FX_NO_REG;
    const FxNode *n = fx_graph_node(C->g, id);
    if (fresh && n->op == FX_NODE_IF && dst >= C->g->n_slots) {
        /* both branches write dst: no move after the join */
        C->reg_of[id.v] = compile_if(C, id, n, dst);
        fx_vec_push(&C->trail, id.v);
        return;
    }
    uint32_t before = here(C);
    uint32_t r = compile(C, id);
    if (r == dst)
        return;
    FxInstr *last = C->code.len ? &C->code.data[C->code.len - 1] : NULL;
    static const bool single[OP__COUNT] = {
        [OP_CONST] = 1, [OP_ADD] = 1, [OP_SUB] = 1, [OP_MUL] = 1, [OP_DIV] = 1, [OP_IDIV] = 1,
        [OP_MOD] = 1, [OP_POW] = 1, [OP_CONCAT] = 1, [OP_EQ] = 1, [OP_NE] = 1, [OP_LT] = 1,
        [OP_LE] = 1, [OP_GT] = 1, [OP_GE] = 1, [OP_NEG] = 1, [OP_NOT] = 1, [OP_ADDK] = 1,
        [OP_SUBK] = 1, [OP_CMPK] = 1, [OP_CALL] = 1, [OP_CALLP] = 1, [OP_BUILTIN] = 1, [OP_BUILTINR] = 1,
        [OP_INDEX] = 1,
        [OP_INDEX2] = 1, [OP_FIELD] = 1, [OP_INDEXF] = 1, [OP_LEN] = 1,
    };
    if (fresh && last && here(C) > before && last->node == id.v && last->d == r &&
        single[last->op] && r >= C->g->n_slots) {
        last->d = dst;
        C->reg_of[id.v] = dst;
        return;
    }
    emit(C, OP_MOVE, dst, r, 0, 0, at);
}

/* A constant integer small enough to travel as an immediate. */
static bool small_const(Compiler *C, FxNodeId id, int32_t *out)
{
    const FxNode *n = fx_graph_node(C->g, id);
    if (n->op != FX_NODE_CONST || !fx_typeid_is_integer(n->tid))
        return false;
    char *end;
    long long v = strtoll(n->text, &end, 10);
    if (*end || v < INT32_MIN || v > INT32_MAX || strlen(n->text) > 10)
        return false;
    *out = (int32_t)v;
    return true;
}

static bool is_comparison(FxNodeOp op)
{
    return op >= FX_NODE_EQ && op <= FX_NODE_GE;
}

/* The comparison as the VM's mask: bit 0 true when less, bit 1 when equal,
 * bit 2 when greater. */
static uint32_t cmp_mask(FxNodeOp op)
{
    switch (op) {
    case FX_NODE_EQ: return 2;
    case FX_NODE_NE: return 5;
    case FX_NODE_LT: return 1;
    case FX_NODE_LE: return 3;
    case FX_NODE_GT: return 4;
    default: return 6;
    }
}

/* Registers base .. base+n holding the values of the inputs from `first`. */
static uint32_t consecutive(Compiler *C, const FxNode *n, uint32_t first, uint32_t count)
{
    uint32_t base = C->next_reg;
    C->next_reg += count;
    for (uint32_t i = 0; i < count; i++)
        compile_to(C, n->inputs[first + i], base + i, n->inputs[first + i]);
    return base;
}

static FxValue const_value(const FxNode *n)
{
    switch (fx_typeid_kind(n->tid)) {
    case FX_TK_BOOL: return fx_val_bool(strcmp(n->text, "true") == 0);
    case FX_TK_FLOAT: return fx_val_float(strtod(n->text, NULL));
    case FX_TK_STRING: return fx_val_string(n->text, strlen(n->text));
    default: return fx_val_int_text(n->text);
    }
}

static uint32_t callee_index(Compiler *C, const char *name)
{
    FxFunc *f = fx_runtime_func(C->rt, name);
    for (size_t i = 0; i < C->callees.len; i++)
        if (C->callees.data[i] == f)
            return (uint32_t)i;
    fx_vec_push(&C->callees, f);
    return (uint32_t)C->callees.len - 1;
}

/* The program's field names of the record type a RECORD node builds: they
 * outlive every value, as fx_val_record requires. */
static uint32_t record_names(Compiler *C, const FxNode *n)
{
    const FxProgram *prog = fx_runtime_program(C->rt);
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, td, &(*m)->types)
        {
            if (strcmp((*td)->name, n->type) == 0) {
                fx_vec_push(&C->records, (const char *const *)(*td)->def->field_names);
                return (uint32_t)C->records.len - 1;
            }
        }
    }
    FX_CHECK(false, "no record type `%s`", n->type);
    FX_UNREACHABLE();
}

/* Does the strict part of id's value compute a node, not yet compiled,
 * that another node reads too? Computed among a call's arguments it would
 * sit in the callee's frame, be forgotten (forget_from) and be computed
 * again where it is read next: the shared `iterate(ones(n), 9)` of
 * spectral-norm ran three times. */
static bool shared_inside(Compiler *C, FxNodeId id)
{
    if (!id.v) /* an input left out (a fold's missing filter) */
        return false;
    if (C->seen[id.v] == C->stamp || C->reg_of[id.v] != FX_NO_REG)
        return false;
    C->seen[id.v] = C->stamp;
    const FxNode *n = fx_graph_node(C->g, id);
    if (n->op == FX_NODE_CONST || n->op == FX_NODE_PARAM || n->op == FX_NODE_VAR)
        return false;
    if (C->uses[id.v] > 1)
        return true;
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (!fx_graph_input_is_lazy(n->op, k) && shared_inside(C, n->inputs[k]))
            return true;
    return false;
}

/* A call's arguments in consecutive registers, the callee's frame: each
 * computed in place, or, when one computes a node read elsewhere too,
 * each into a register of its own below the frame, then moved there, in
 * the same order. */
static uint32_t call_arguments(Compiler *C, const FxNode *n)
{
    C->stamp++;
    bool shared = false;
    for (uint32_t i = 0; i < n->n_inputs && !shared; i++)
        shared = shared_inside(C, n->inputs[i]);
    uint32_t own[32];
    if (!shared || n->n_inputs > FX_ARRAY_LEN(own))
        return consecutive(C, n, 0, n->n_inputs);
    for (uint32_t i = 0; i < n->n_inputs; i++)
        own[i] = compile(C, n->inputs[i]);
    uint32_t base = C->next_reg;
    C->next_reg += n->n_inputs;
    for (uint32_t i = 0; i < n->n_inputs; i++)
        emit(C, OP_MOVE, base + i, own[i], 0, 0, n->inputs[i]);
    return base;
}

/* A callee's frame starts at its arguments, the highest registers in use
 * when it is called (registers are handed out in increasing order), so the
 * call clobbers every register from there up: forget the nodes kept there. */
static void forget_from(Compiler *C, uint32_t base)
{
    fx_vec_foreach(uint32_t, id, &C->trail)
    {
        if (C->reg_of[*id] != FX_NO_REG && C->reg_of[*id] >= base)
            C->reg_of[*id] = FX_NO_REG;
    }
}

/* A lazy input: compiled into its own scope. */
static uint32_t compile_lazy(Compiler *C, FxNodeId id)
{
    size_t mark = scope_enter(C);
    uint32_t r = compile(C, id);
    scope_leave(C, mark);
    return r;
}

static void compile_lazy_to(Compiler *C, FxNodeId id, uint32_t dst, FxNodeId at)
{
    size_t mark = scope_enter(C);
    compile_to(C, id, dst, at);
    scope_leave(C, mark);
}

/* The test of an `if`: a comparison not computed yet becomes a fused
 * compare-and-branch; anything else a boolean and a jump. */
static uint32_t branch_unless(Compiler *C, FxNodeId cond, FxNodeId at)
{
    const FxNode *c = fx_graph_node(C->g, cond);
    int32_t k;
    if (is_comparison(c->op) && C->reg_of[cond.v] == FX_NO_REG) {
        uint32_t a = compile(C, c->inputs[0]);
        if (small_const(C, c->inputs[1], &k))
            return emit(C, OP_BRK, a, 0, (uint32_t)k, cmp_mask(c->op), at);
        return emit(C, OP_BR, a, 0, compile(C, c->inputs[1]), cmp_mask(c->op), at);
    }
    return emit(C, OP_JMPF, compile(C, cond), 0, 0, 1, at);
}

static uint32_t compile_if(Compiler *C, FxNodeId id, const FxNode *n, uint32_t r)
{
    uint32_t jf = branch_unless(C, n->inputs[0], id);
    compile_lazy_to(C, n->inputs[1], r, id);
    uint32_t jend = emit(C, OP_JMP, 0, 0, 0, 0, id);
    patch(C, jf, here(C));
    compile_lazy_to(C, n->inputs[2], r, id);
    patch(C, jend, here(C));
    return r;
}

static uint32_t compile_andor(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t r = new_reg(C);
    emit(C, OP_MOVE, r, compile(C, n->inputs[0]), 0, 0, id);
    uint32_t j = emit(C, n->op == FX_NODE_AND ? OP_JMPF : OP_JMPT, r, 0, 0, 0, id);
    emit(C, OP_MOVE, r, compile_lazy(C, n->inputs[1]), 0, 0, id);
    patch(C, j, here(C));
    return r;
}

/* The head of a loop over a domain: a range is walked without being built.
 * Leaves the element in `slot`; returns the FORI to patch and the counter. */
typedef struct Loop {
    uint32_t top, fori, counter;
} Loop;

#define TUPLE_MAX        8    /* sieved calls a fused filter may hold */
#define TUPLE_OFFSET_MAX 4096 /* the largest c of prime(p + c) fused */

/* The offsets c of a filter made of sieved calls prime(v + c) of the fold's
 * variable v (slot), joined by `and`: {2} for twin primes. False for any
 * other filter. */
static bool tuple_offsets(const FxGraph *g, FxNodeId f, int64_t slot, int64_t *offs,
                          uint32_t *n)
{
    const FxNode *x = fx_graph_node(g, f);
    if (x->op == FX_NODE_AND)
        return tuple_offsets(g, x->inputs[0], slot, offs, n) &&
               tuple_offsets(g, x->inputs[1], slot, offs, n);
    if (x->op != FX_NODE_CALL || x->num != 1 || x->n_inputs != 1 || *n == TUPLE_MAX)
        return false;
    const FxNode *a = fx_graph_node(g, x->inputs[0]);
    if (a->op != FX_NODE_ADD)
        return false;
    const FxNode *v = fx_graph_node(g, a->inputs[0]), *c = fx_graph_node(g, a->inputs[1]);
    if (v->op == FX_NODE_CONST) {
        const FxNode *t = v;
        v = c;
        c = t;
    }
    if (v->op != FX_NODE_VAR || v->num != slot || c->op != FX_NODE_CONST ||
        !fx_typeid_is_integer(c->tid))
        return false;
    char *end;
    long long k = strtoll(c->text, &end, 10);
    if (*end || k < 0 || k > TUPLE_OFFSET_MAX)
        return false;
    offs[(*n)++] = k;
    return true;
}

/* The primes of a range domain [lo, hi) (hi + 1 when inclusive): the list
 * (count = false) or how many there are; with `tuple` (a consts index + 1,
 * or 0), only the p for which every p + c of that list of offsets is
 * prime too. */
static uint32_t compile_primes_tuple(Compiler *C, const FxNode *d, bool count, uint32_t tuple,
                                     FxNodeId at)
{
    uint32_t lo = compile(C, d->inputs[0]), hi = compile(C, d->inputs[1]);
    uint32_t end = new_reg(C), r = new_reg(C);
    emit(C, OP_MOVE, end, hi, 0, 0, at);
    if (d->num)
        emit(C, OP_INC, end, 0, 0, 0, at);
    emit(C, OP_PRIMES, r, lo, end, (count ? 1 : 0) | tuple << 1, at);
    return r;
}

static uint32_t compile_primes(Compiler *C, const FxNode *d, bool count, FxNodeId at)
{
    return compile_primes_tuple(C, d, count, 0, at);
}


/* primes: iterate over the primes of the range domain (a fold on the
 * sieve kernel). */
static Loop loop_begin(Compiler *C, FxNodeId domain, uint32_t slot, FxNodeId at, bool primes)
{
    const FxNode *d = fx_graph_node(C->g, domain);
    Loop L;
    L.counter = new_reg(C);
    if (primes) {
        uint32_t list = compile_primes(C, d, false, at), len = new_reg(C);
        emit(C, OP_CONST, L.counter, add_const(C, fx_val_int(0)), 0, 0, at);
        emit(C, OP_LEN, len, list, 0, 0, at);
        L.top = here(C);
        L.fori = emit(C, OP_FORI, L.counter, 0, len, 0, at);
        emit(C, OP_INDEX, slot, list, L.counter, 0, at);
        return L;
    }
    if (d->op == FX_NODE_RANGE && C->reg_of[domain.v] == FX_NO_REG) {
        /* the binder's slot is the counter: the body only reads it */
        uint32_t lo = compile(C, d->inputs[0]), hi = compile(C, d->inputs[1]);
        uint32_t end = new_reg(C);
        L.counter = slot;
        emit(C, OP_MOVE, L.counter, lo, 0, 0, at);
        emit(C, OP_MOVE, end, hi, 0, 0, at);
        if (d->num)
            emit(C, OP_INC, end, 0, 0, 0, at);
        L.top = here(C);
        L.fori = emit(C, OP_FORI, L.counter, 0, end, 0, at);
        return L;
    }
    uint32_t list = compile(C, domain), len = new_reg(C);
    emit(C, OP_CONST, L.counter, add_const(C, fx_val_int(0)), 0, 0, at);
    emit(C, OP_LEN, len, list, 0, 0, at);
    L.top = here(C);
    L.fori = emit(C, OP_FORI, L.counter, 0, len, 0, at);
    emit(C, OP_INDEX, slot, list, L.counter, 0, at);
    return L;
}

/* The counter's step and the test for the next round in one instruction,
 * back to the body (the header's OP_FORI runs once, on the way in). */
static void loop_end(Compiler *C, Loop L, FxNodeId at)
{
    emit(C, OP_FORL, L.counter, L.fori + 1, C->code.data[L.fori].b, L.top, at);
    patch(C, L.fori, here(C));
}

/* The list of key(x) for each x of list: a loop binding x to slot. */
static uint32_t compile_keys(Compiler *C, FxNodeId id, uint32_t list, uint32_t slot, FxNodeId key)
{
    uint32_t keys = new_reg(C);
    emit(C, OP_BEGIN, 0, 0, 0, 0, id);
    uint32_t len = new_reg(C);
    Loop L;
    L.counter = new_reg(C);
    emit(C, OP_CONST, L.counter, add_const(C, fx_val_int(0)), 0, 0, id);
    emit(C, OP_LEN, len, list, 0, 0, id);
    L.top = here(C);
    L.fori = emit(C, OP_FORI, L.counter, 0, len, 0, id);
    emit(C, OP_INDEX, slot, list, L.counter, 0, id);
    emit(C, OP_PUSH, 0, compile_lazy(C, key), 0, 0, id);
    loop_end(C, L, id);
    emit(C, OP_END, keys, 0, 0, 0, id);
    return keys;
}

/* An equi-join: `[B for x in XS for y in YS if f(x) = g(y) [and R]]`, a
 * concat over XS whose body collects over YS (which does not read x) with
 * a first conjunct that compares an expression of x with one of y. Sets
 * *outer_key to f(x), *inner_key to g(y), *rest to R (or {0}). */
static bool join_shape(const FxGraph *g, const FxNode *n, FxNodeId *outer_key,
                       FxNodeId *inner_key, FxNodeId *rest)
{
    const FxNode *in = fx_graph_node(g, n->inputs[2]);
    if (n->num != FX_FOLD_CONCAT || in->op != FX_NODE_FOLD || in->num != FX_FOLD_COLLECT ||
        in->text || !in->inputs[1].v || fx_graph_reads_slot(g, in->inputs[0], n->num2))
        return false;
    const FxNode *f = fx_graph_node(g, in->inputs[1]), *eq = f;
    *rest = (FxNodeId){0};
    if (f->op == FX_NODE_AND) {
        eq = fx_graph_node(g, f->inputs[0]);
        *rest = f->inputs[1];
    }
    if (eq->op != FX_NODE_EQ)
        return false;
    for (int side = 0; side < 2; side++) {
        FxNodeId a = eq->inputs[side], b = eq->inputs[1 - side];
        if (!fx_graph_reads_slot(g, a, in->num2) && fx_graph_reads_slot(g, b, in->num2) &&
            !fx_graph_reads_slot(g, b, n->num2)) {
            *outer_key = a;
            *inner_key = b;
            return true;
        }
    }
    return false;
}

/* The join by a hash index: YS and the key of each of its elements once
 * (at the first element of XS, so that an empty XS evaluates neither, as
 * the nested loops would not), then for each x only the y whose key equals
 * f(x), in YS's order: the nested loops' result, without their n * m
 * comparisons. */
static uint32_t compile_join(Compiler *C, FxNodeId id, const FxNode *n, FxNodeId outer_key,
                             FxNodeId inner_key, FxNodeId rest)
{
    const FxNode *in = fx_graph_node(C->g, n->inputs[2]);
    uint32_t acc = new_reg(C), built = new_reg(C), ys = new_reg(C), keys = new_reg(C);
    uint32_t inner_slot = (uint32_t)in->num2;
    emit(C, OP_CONST, built, add_const(C, fx_val_bool(false)), 0, 0, id);
    emit(C, OP_BEGIN, 0, 0, 0, 0, id);
    Loop L = loop_begin(C, n->inputs[0], (uint32_t)n->num2, id, false);
    size_t mark = scope_enter(C);
    uint32_t ready = emit(C, OP_JMPT, built, 0, 0, 0, id);
    {
        size_t m2 = scope_enter(C);
        emit(C, OP_MOVE, ys, compile(C, in->inputs[0]), 0, 0, id);
        scope_leave(C, m2);
        emit(C, OP_MOVE, keys, compile_keys(C, id, ys, inner_slot, inner_key), 0, 0, id);
        emit(C, OP_CONST, built, add_const(C, fx_val_bool(true)), 0, 0, id);
    }
    patch(C, ready, here(C));
    uint32_t matches = new_reg(C);
    emit(C, OP_JOIN, matches, keys, compile(C, outer_key), 0, id);
    Loop M;
    M.counter = new_reg(C);
    uint32_t mlen = new_reg(C), pos = new_reg(C);
    emit(C, OP_CONST, M.counter, add_const(C, fx_val_int(0)), 0, 0, id);
    emit(C, OP_LEN, mlen, matches, 0, 0, id);
    M.top = here(C);
    M.fori = emit(C, OP_FORI, M.counter, 0, mlen, 0, id);
    emit(C, OP_INDEX, pos, matches, M.counter, 0, id);
    emit(C, OP_INDEX, inner_slot, ys, pos, 0, id);
    size_t m3 = scope_enter(C);
    uint32_t skip = UINT32_MAX;
    if (rest.v)
        skip = emit(C, OP_JMPF, compile(C, rest), 0, 0, 0, id);
    emit(C, OP_PUSH, 0, compile(C, in->inputs[2]), 0, 0, id);
    scope_leave(C, m3);
    if (skip != UINT32_MAX)
        patch(C, skip, here(C));
    loop_end(C, M, id);
    scope_leave(C, mark);
    loop_end(C, L, id);
    emit(C, OP_END, acc, 0, 0, 0, id);
    return acc;
}

/* sum(e(i) for i in lo..hi), e affine in i (FX_KERNEL_AFFINE_SUM): with
 * n terms, v0 = e(lo) and v1 = e(lo + 1), n v0 + (v1 - v0) n (n - 1) / 2.
 * e runs only where the loop would: not at all when n = 0, at lo alone
 * when n = 1. */
static uint32_t compile_affine_sum(Compiler *C, FxNodeId id, const FxNode *n)
{
    const FxNode *d = fx_graph_node(C->g, n->kargs[0]);
    uint32_t slot = (uint32_t)n->num2, acc = new_reg(C), count = new_reg(C), t = new_reg(C);
    uint32_t lo = compile(C, d->inputs[0]), hi = compile(C, d->inputs[1]);
    emit(C, OP_SUB, count, hi, lo, 0, id);
    if (d->num)
        emit(C, OP_INC, count, 0, 0, 0, id);
    emit(C, OP_CONST, acc, add_const(C, fx_val_int(0)), 0, 0, id);
    emit(C, OP_CMPK, t, count, 0, cmp_mask(FX_NODE_GT), id);
    uint32_t none = emit(C, OP_JMPF, t, 0, 0, 0, id);
    emit(C, OP_MOVE, slot, lo, 0, 0, id);
    size_t mark = scope_enter(C);
    emit(C, OP_MOVE, acc, compile(C, n->inputs[2]), 0, 0, id); /* v0 */
    scope_leave(C, mark);
    emit(C, OP_CMPK, t, count, 1, cmp_mask(FX_NODE_GT), id);
    uint32_t one = emit(C, OP_JMPF, t, 0, 0, 0, id);
    emit(C, OP_ADDK, slot, slot, 1, 0, id);
    mark = scope_enter(C);
    uint32_t step = new_reg(C), pairs = new_reg(C);
    emit(C, OP_SUB, step, compile(C, n->inputs[2]), acc, 0, id); /* v1 - v0 */
    scope_leave(C, mark);
    emit(C, OP_SUBK, pairs, count, 1, 0, id);
    emit(C, OP_MUL, pairs, pairs, count, 0, id);
    emit(C, OP_CONST, t, add_const(C, fx_val_int(2)), 0, 0, id);
    emit(C, OP_IDIV, pairs, pairs, t, 0, id); /* n (n - 1) is even */
    emit(C, OP_MUL, step, step, pairs, 0, id);
    emit(C, OP_MUL, acc, acc, count, 0, id);
    emit(C, OP_ADD, acc, acc, step, 0, id);
    patch(C, one, here(C));
    patch(C, none, here(C));
    return acc;
}

/* One field of every element of a list (fx_graph_column_shape): a table's
 * column, copied whole, or each element's field. False for another shape. */
static bool compile_column(Compiler *C, FxNodeId id, uint32_t *r)
{
    FxNodeId list;
    const char *field;
    if (!fx_graph_column_shape(C->g, id, &list, &field))
        return false;
    uint32_t from = compile(C, list);
    *r = new_reg(C);
    emit(C, OP_COLUMN, *r, from, string_const(C, field), 0, id);
    return true;
}

/* `for each x in XS: E` that the cluster may split across ranks
 * (exec/cluster.h; only while one runs, so that a process outside mpirun
 * runs the code it always did): compile_fold's collecting loop, with an
 * OP_SPLIT before it, which may send the other ranks their slices and
 * lower the loop's end to this rank's, and one after it, which appends
 * their parts in order. */
static uint32_t compile_split_map(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t acc = new_reg(C), token = new_reg(C);
    emit(C, OP_UNIT, acc, 0, 0, 0, id);
    emit(C, OP_BEGIN, 0, 0, 0, 0, id);
    Loop L;
    L.counter = new_reg(C);
    uint32_t list = compile(C, n->inputs[0]), len = new_reg(C);
    emit(C, OP_CONST, L.counter, add_const(C, fx_val_int(0)), 0, 0, id);
    emit(C, OP_LEN, len, list, 0, 0, id);
    emit(C, OP_SPLIT, token, list, len, 0, id);
    L.top = here(C);
    L.fori = emit(C, OP_FORI, L.counter, 0, len, 0, id);
    emit(C, OP_INDEX, (uint32_t)n->num2, list, L.counter, 0, id);
    size_t mark = scope_enter(C);
    emit(C, OP_PUSH, 0, compile(C, n->inputs[2]), 0, 0, id);
    scope_leave(C, mark);
    loop_end(C, L, id);
    emit(C, OP_END, acc, 0, 0, 0, id);
    emit(C, OP_SPLIT, acc, token, 0, 1, id);
    return acc;
}

static uint32_t compile_fold(Compiler *C, FxNodeId id, const FxNode *n)
{
    if (n->kernel == FX_KERNEL_AFFINE_SUM)
        return compile_affine_sum(C, id, n);
    FxNodeId outer_key, inner_key, rest;
    if (!n->kernel && join_shape(C->g, n, &outer_key, &inner_key, &rest))
        return compile_join(C, id, n, outer_key, inner_key, rest);
    uint32_t column, list_param;
    if (compile_column(C, id, &column))
        return column;
    if (id.v == C->g->root.v && fx_cluster_map_shape(C->g, &list_param))
        return compile_split_map(C, id, n);
    FxFoldKind kind = (FxFoldKind)n->num;
    uint32_t acc = new_reg(C), slot = (uint32_t)n->num2;
    static const int64_t init[] = {[FX_FOLD_SUM] = 0, [FX_FOLD_PRODUCT] = 1,
                                   [FX_FOLD_COUNT] = 0};
    if ((kind == FX_FOLD_SUM || kind == FX_FOLD_PRODUCT) && fx_typeid_kind(n->tid) == FX_TK_FLOAT)
        /* a Float fold starts as a Float: an empty sum is 0.0, as its type says, not
         * the Int 0 (and 0.0 + x is x for every float but -0.0, as 0 + x was) */
        emit(C, OP_CONST, acc, add_const(C, fx_val_float((double)init[kind])), 0, 0, id);
    else if (kind == FX_FOLD_SUM || kind == FX_FOLD_PRODUCT || kind == FX_FOLD_COUNT)
        emit(C, OP_CONST, acc, add_const(C, fx_val_int(init[kind])), 0, 0, id);
    else if (kind == FX_FOLD_ALL || kind == FX_FOLD_ANY)
        emit(C, OP_CONST, acc, add_const(C, fx_val_bool(kind == FX_FOLD_ALL)), 0, 0, id);
    else
        emit(C, OP_UNIT, acc, 0, 0, 0, id);
    bool builds = kind == FX_FOLD_COLLECT || kind == FX_FOLD_CONCAT;
    if (builds)
        emit(C, OP_BEGIN, 0, 0, 0, 0, id);
    bool primes = n->kernel == FX_KERNEL_SIEVE;
    const FxNode *body = fx_graph_node(C->g, n->inputs[2]);
    bool itself = body->op == FX_NODE_VAR && body->num == n->num2;
    if (primes && !n->inputs[1].v && (kind == FX_FOLD_COUNT || (kind == FX_FOLD_COLLECT && itself))) {
        /* fused: the kernel counts, or its list is the result */
        uint32_t r = compile_primes(C, fx_graph_node(C->g, n->kargs[0]), kind == FX_FOLD_COUNT,
                                    id);
        emit(C, OP_MOVE, acc, r, 0, 0, id);
        return acc;
    }
    int64_t offs[TUPLE_MAX];
    uint32_t n_offs = 0;
    if (primes && n->inputs[1].v && (kind == FX_FOLD_COUNT || (kind == FX_FOLD_COLLECT && itself)) &&
        tuple_offsets(C->g, n->inputs[1], n->num2, offs, &n_offs)) {
        /* fused: twin primes and their kind, from one sieve */
        FxValue *cs = fx_xmalloc(n_offs * sizeof(FxValue));
        for (uint32_t i = 0; i < n_offs; i++)
            cs[i] = fx_val_int(offs[i]);
        FxValue list = fx_val_list_take(cs, n_offs);
        free(cs);
        uint32_t k = add_const(C, list);
        uint32_t r = compile_primes_tuple(C, fx_graph_node(C->g, n->kargs[0]),
                                          kind == FX_FOLD_COUNT, k + 1, id);
        emit(C, OP_MOVE, acc, r, 0, 0, id);
        return acc;
    }
    if (n->kernel == FX_KERNEL_INDEX) {
        /* the query kernel selects; the loop runs the body on what it kept */
        FxNodeId cmp = n->kargs[0], value = n->kargs[1];
        const FxNode *c = fx_graph_node(C->g, cmp), *field = fx_graph_node(C->g, c->inputs[0]);
        uint32_t list = compile(C, n->inputs[0]), v = compile(C, value), kept = new_reg(C);
        emit(C, OP_SELECT, kept, list, v, (uint32_t)c->op | string_const(C, field->text) << 8,
             id);
        Loop L;
        L.counter = new_reg(C);
        uint32_t len = new_reg(C);
        emit(C, OP_CONST, L.counter, add_const(C, fx_val_int(0)), 0, 0, id);
        emit(C, OP_LEN, len, kept, 0, 0, id);
        L.top = here(C);
        L.fori = emit(C, OP_FORI, L.counter, 0, len, 0, id);
        emit(C, OP_INDEX, slot, kept, L.counter, 0, id);
        size_t mark = scope_enter(C);
        emit(C, OP_PUSH, 0, compile(C, n->inputs[2]), 0, 0, id);
        scope_leave(C, mark);
        loop_end(C, L, id);
        emit(C, OP_END, acc, 0, 0, 0, id);
        return acc;
    }
    Loop L = loop_begin(C, n->inputs[0], slot, id, primes);
    size_t mark = scope_enter(C);
    uint32_t skip = UINT32_MAX, early = UINT32_MAX;
    if (n->inputs[1].v)
        skip = emit(C, OP_JMPF, compile(C, n->inputs[1]), 0, 0, 0, id);
    uint32_t b = compile(C, n->inputs[2]);
    switch (kind) {
    case FX_FOLD_SUM: emit(C, OP_ADD, acc, acc, b, 0, id); break;
    case FX_FOLD_PRODUCT: emit(C, OP_MUL, acc, acc, b, 0, id); break;
    case FX_FOLD_COUNT: emit(C, OP_INC, acc, 0, 0, 0, id); break;
    case FX_FOLD_MIN:
    case FX_FOLD_MIN_PART: emit(C, OP_MINMAX, acc, b, 0, 0, id); break;
    case FX_FOLD_MAX:
    case FX_FOLD_MAX_PART: emit(C, OP_MINMAX, acc, b, 0, 1, id); break;
    case FX_FOLD_COLLECT: emit(C, OP_PUSH, 0, b, 0, 0, id); break;
    case FX_FOLD_CONCAT: emit(C, OP_EXTEND, 0, b, 0, 0, id); break;
    case FX_FOLD_ALL:
    case FX_FOLD_ANY: {
        uint32_t j = emit(C, kind == FX_FOLD_ALL ? OP_JMPT : OP_JMPF, b, 0, 0, 0, id);
        emit(C, OP_CONST, acc, add_const(C, fx_val_bool(kind != FX_FOLD_ALL)), 0, 0, id);
        early = emit(C, OP_JMP, 0, 0, 0, 0, id);
        patch(C, j, here(C));
        break;
    }
    }
    scope_leave(C, mark);
    if (skip != UINT32_MAX)
        patch(C, skip, here(C));
    loop_end(C, L, id);
    if (early != UINT32_MAX)
        patch(C, early, here(C));
    if (builds)
        emit(C, OP_END, acc, 0, 0, 0, id);
    if (kind == FX_FOLD_MIN || kind == FX_FOLD_MAX)
        emit(C, OP_NONEMPTY, acc, 0, 0, 0, id);
    return acc;
}

static uint32_t compile_map(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t r = new_reg(C);
    if (n->kernel == FX_KERNEL_GEMM) { /* its shape bound the two matrices */
        emit(C, OP_GEMM, r, compile(C, n->kargs[0]), compile(C, n->kargs[1]), 0, id);
        return r;
    }
    if (compile_column(C, id, &r))
        return r;
    uint32_t rows = compile(C, n->inputs[0]);
    uint32_t cols = n->inputs[1].v ? compile(C, n->inputs[1]) : FX_NO_REG;
    emit(C, OP_BEGIN, 0, 0, 0, 0, id);
    Loop Li = {0}, Lj = {0};
    Li.counter = new_reg(C);
    emit(C, OP_CONST, Li.counter, add_const(C, fx_val_int(0)), 0, 0, id);
    Li.top = here(C);
    Li.fori = emit(C, OP_FORI, Li.counter, 0, rows, 0, id);
    emit(C, OP_MOVE, (uint32_t)n->num, Li.counter, 0, 0, id);
    if (cols != FX_NO_REG) {
        Lj.counter = new_reg(C);
        emit(C, OP_CONST, Lj.counter, add_const(C, fx_val_int(0)), 0, 0, id);
        Lj.top = here(C);
        Lj.fori = emit(C, OP_FORI, Lj.counter, 0, cols, 0, id);
        emit(C, OP_MOVE, (uint32_t)n->num2, Lj.counter, 0, 0, id);
    }
    emit(C, OP_PUSH, 0, compile_lazy(C, n->inputs[2]), 0, 0, id);
    if (cols != FX_NO_REG)
        loop_end(C, Lj, id);
    loop_end(C, Li, id);
    if (cols != FX_NO_REG)
        emit(C, OP_ENDM, r, rows, cols, 0, id);
    else
        emit(C, OP_END, r, 0, 0, 0, id);
    return r;
}

static uint32_t compile_group(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t list = compile(C, n->inputs[0]);
    uint32_t keys = compile_keys(C, id, list, (uint32_t)n->num2, n->inputs[1]), r = new_reg(C);
    emit(C, OP_GROUP, r, list, keys, 0, id);
    return r;
}

/* choose: the implementation the runtime chose for the function (OP_CHOICE
 * reads its index), each candidate in its own branch */
static uint32_t compile_choose(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t r = new_reg(C), k = new_reg(C);
    emit(C, OP_CHOICE, k, 0, 0, 0, id);
    FX_VEC(uint32_t) ends = {0};
    for (uint32_t i = 0; i + 1 < n->n_inputs; i++) {
        uint32_t skip = emit(C, OP_BRK, k, 0, i, cmp_mask(FX_NODE_EQ), id);
        compile_lazy_to(C, n->inputs[i], r, id);
        fx_vec_push(&ends, emit(C, OP_JMP, 0, 0, 0, 0, id));
        patch(C, skip, here(C));
    }
    compile_lazy_to(C, n->inputs[n->n_inputs - 1], r, id);
    fx_vec_foreach(uint32_t, e, &ends) patch(C, *e, here(C));
    fx_vec_free(&ends);
    return r;
}

/* let: the slot gets the value, then the body runs with it */
static uint32_t compile_let(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t v = compile(C, n->inputs[0]);
    emit(C, OP_MOVE, (uint32_t)n->num2, v, 0, 0, id);
    return compile_lazy(C, n->inputs[1]);
}

static uint32_t compile_sort(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t r = new_reg(C), list = compile(C, n->inputs[0]), keys = FX_NO_REG;
    if (n->inputs[1].v)
        keys = compile_keys(C, id, list, (uint32_t)n->num2, n->inputs[1]);
    /* c: bit 0 descending, bit 1 the kernels (the evolved sort) */
    bool kernels = n->kernel == FX_KERNEL_SORT;
    emit(C, OP_SORT, r, list, keys, (uint32_t)n->num | (kernels ? 2u : 0u), id);
    return r;
}

static uint32_t compile_check(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t r = new_reg(C), slot = (uint32_t)n->num2;
    emit(C, OP_MOVE, slot, compile(C, n->inputs[0]), 0, 0, id);
    uint32_t ok = emit(C, OP_JMPT, compile_lazy(C, n->inputs[1]), 0, 0, 0, id);
    emit(C, OP_CHECKF, 0, 0, 0, 0, id);
    patch(C, ok, here(C));
    emit(C, OP_MOVE, r, slot, 0, 0, id);
    return r;
}

static FxOpcode arith_op(FxNodeOp op)
{
    switch (op) {
    case FX_NODE_ADD: return OP_ADD;
    case FX_NODE_SUB: return OP_SUB;
    case FX_NODE_MUL: return OP_MUL;
    case FX_NODE_DIV: return OP_DIV;
    case FX_NODE_IDIV: return OP_IDIV;
    case FX_NODE_MOD: return OP_MOD;
    case FX_NODE_POW: return OP_POW;
    case FX_NODE_CONCAT: return OP_CONCAT;
    case FX_NODE_EQ: return OP_EQ;
    case FX_NODE_NE: return OP_NE;
    case FX_NODE_LT: return OP_LT;
    case FX_NODE_LE: return OP_LE;
    case FX_NODE_GT: return OP_GT;
    default: return OP_GE;
    }
}

static uint32_t compile_node(Compiler *C, FxNodeId id, const FxNode *n)
{
    uint32_t r, base;
    switch (n->op) {
    case FX_NODE_PARAM:
    case FX_NODE_VAR:
        return (uint32_t)n->num;
    case FX_NODE_CONST:
        r = new_reg(C);
        emit(C, OP_CONST, r, add_const(C, const_value(n)), 0, 0, id);
        return r;
    case FX_NODE_NEG:
    case FX_NODE_NOT: {
        uint32_t a = compile(C, n->inputs[0]);
        r = new_reg(C);
        emit(C, n->op == FX_NODE_NEG ? OP_NEG : OP_NOT, r, a, 0, 0, id);
        return r;
    }
    case FX_NODE_AND:
    case FX_NODE_OR:
        return compile_andor(C, id, n);
    case FX_NODE_IF:
        return compile_if(C, id, n, new_reg(C));
    case FX_NODE_CALL:
        base = call_arguments(C, n);
        r = new_reg(C);
        emit(C, n->num == 1 && n->n_inputs == 1 ? OP_CALLP : OP_CALL, r,
             callee_index(C, n->text), base, n->n_inputs, id);
        forget_from(C, base);
        return r;
    case FX_NODE_BUILTIN: {
        FxBuiltin b;
        FX_CHECK(fx_builtin_lookup(n->text, &b), "unknown builtin %s", n->text);
        if (n->n_inputs >= 1 && n->n_inputs <= 3) {
            /* its operands read where they are: a builtin borrows them */
            uint32_t ops[3] = {0, 0, 0};
            for (uint32_t k = 0; k < n->n_inputs; k++) {
                const FxNode *in = fx_graph_node(C->g, n->inputs[k]);
                ops[k] = in->op == FX_NODE_CONST && C->reg_of[n->inputs[k].v] == FX_NO_REG
                                 ? FX_CONST_OPERAND | add_const(C, const_value(in))
                                 : compile(C, n->inputs[k]);
            }
            r = new_reg(C);
            uint32_t at = emit(C, OP_BUILTINR, r, b, ops[0], ops[1], id);
            C->code.data[at].fb = ops[2];
            C->code.data[at].tb = n->n_inputs;
            return r;
        }
        base = consecutive(C, n, 0, n->n_inputs);
        r = new_reg(C);
        emit(C, OP_BUILTIN, r, b, base, n->n_inputs, id);
        return r;
    }
    case FX_NODE_INDEX: {
        if (fx_typeid_kind(fx_graph_node(C->g, n->inputs[0])->tid) == FX_TK_STRING) { /* s[i]: a code point */
            base = consecutive(C, n, 0, 2);
            r = new_reg(C);
            emit(C, OP_BUILTIN, r, FX_BUILTIN_CHAR_AT, base, 2, id);
            return r;
        }
        uint32_t a = compile(C, n->inputs[0]), i = compile(C, n->inputs[1]);
        uint32_t j = n->n_inputs > 2 ? compile(C, n->inputs[2]) : 0;
        r = new_reg(C);
        emit(C, n->n_inputs > 2 ? OP_INDEX2 : OP_INDEX, r, a, i, j, id);
        return r;
    }
    case FX_NODE_FIELD: {
        const FxNode *in = fx_graph_node(C->g, n->inputs[0]);
        if (in->op == FX_NODE_INDEX && in->n_inputs == 2 && C->uses[n->inputs[0].v] == 1 &&
            C->reg_of[n->inputs[0].v] == FX_NO_REG &&
            fx_typeid_kind(fx_graph_node(C->g, in->inputs[0])->tid) != FX_TK_STRING) {
            /* xs[i].f, xs[i] used nowhere else: one instruction, which
             * reads the field without keeping the element */
            uint32_t a = compile(C, in->inputs[0]), i = compile(C, in->inputs[1]);
            r = new_reg(C);
            uint32_t at = emit(C, OP_INDEXF, r, a, i, 0, id);
            C->code.data[at].fb = string_const(C, n->text);
            C->code.data[at].tb = n->inputs[0].v;
            return r;
        }
        uint32_t a = compile(C, n->inputs[0]);
        r = new_reg(C);
        emit(C, OP_FIELD, r, a, string_const(C, n->text), 0, id);
        return r;
    }
    case FX_NODE_LIST:
    case FX_NODE_RECORD:
        base = consecutive(C, n, 0, n->n_inputs);
        r = new_reg(C);
        if (n->op == FX_NODE_LIST)
            emit(C, OP_LIST, r, base, n->n_inputs, 0, id);
        else
            emit(C, OP_RECORD, r, base, n->n_inputs, record_names(C, n), id);
        return r;
    case FX_NODE_RANGE: {
        uint32_t lo = compile(C, n->inputs[0]), hi = compile(C, n->inputs[1]);
        r = new_reg(C);
        emit(C, OP_RANGE, r, lo, hi, (uint32_t)n->num, id);
        return r;
    }
    case FX_NODE_FOLD:
        return compile_fold(C, id, n);
    case FX_NODE_MAP:
        return compile_map(C, id, n);
    case FX_NODE_SORT:
        return compile_sort(C, id, n);
    case FX_NODE_GROUP:
        return compile_group(C, id, n);
    case FX_NODE_LET:
        return compile_let(C, id, n);
    case FX_NODE_CHOOSE:
        return compile_choose(C, id, n);
    case FX_NODE_CHECK:
        return compile_check(C, id, n);
    case FX_NODE_FAIL:
        base = consecutive(C, n, 0, n->n_inputs);
        emit(C, OP_FAIL, 0, base, n->n_inputs, (uint32_t)n->num, id);
        return new_reg(C);
    case FX_NODE_DATA:
        r = new_reg(C);
        emit(C, OP_DATA, r, string_const(C, n->text), 0, 0, id);
        return r;
    default: {
        uint32_t a = compile(C, n->inputs[0]);
        int32_t k;
        bool imm = small_const(C, n->inputs[1], &k);
        if (imm && (n->op == FX_NODE_ADD || n->op == FX_NODE_SUB)) {
            r = new_reg(C);
            emit(C, n->op == FX_NODE_ADD ? OP_ADDK : OP_SUBK, r, a, (uint32_t)k, 0, id);
            return r;
        }
        if (imm && is_comparison(n->op)) {
            r = new_reg(C);
            emit(C, OP_CMPK, r, a, (uint32_t)k, cmp_mask(n->op), id);
            return r;
        }
        uint32_t b = compile(C, n->inputs[1]);
        r = new_reg(C);
        emit(C, arith_op(n->op), r, a, b, 0, id);
        return r;
    }
    }
}

static uint32_t compile(Compiler *C, FxNodeId id)
{
    if (C->reg_of[id.v] != FX_NO_REG)
        return C->reg_of[id.v];
    uint32_t r = compile_node(C, id, fx_graph_node(C->g, id));
    C->reg_of[id.v] = r;
    fx_vec_push(&C->trail, id.v);
    return r;
}

static bool is_jump(uint8_t op)
{
    return op == OP_JMP || op == OP_JMPF || op == OP_JMPT || op == OP_FORI || op == OP_FORL ||
           op == OP_BR ||
           op == OP_BRK;
}

/* Splits the code into basic blocks: leaders are the entry, jump targets
 * and whatever follows a jump or an instruction that does not fall through. */
static uint32_t assign_blocks(FxInstr *code, uint32_t n)
{
    bool *leader = fx_xcalloc(n + 1, sizeof(bool));
    leader[0] = true;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t op = code[i].op;
        if (is_jump(op))
            leader[code[i].a] = true;
        if (is_jump(op) || op == OP_RET || op == OP_CHECKF || op == OP_FAIL)
            leader[i + 1] = true;
    }
    uint32_t block = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (leader[i] && i > 0)
            block++;
        code[i].block = block;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!is_jump(code[i].op))
            continue;
        code[i].tb = code[i].a < n ? code[code[i].a].block : block;
        code[i].fb = i + 1 < n ? code[i + 1].block : block;
    }
    free(leader);
    return block + 1;
}

/* The registers a return must let go of: a slot may hold anything (a loop's
 * binder is written by its loop's instructions), a register written only by
 * instructions of Float or Boolean nodes never holds a heap value. One that
 * is missed would only be let go later (a register's next write, or the
 * run's end), never leak. */
static void heap_registers(FxFunc *f, uint32_t n_regs)
{
    bool *heap = fx_xcalloc(n_regs ? n_regs : 1, sizeof(bool));
    for (uint32_t r = 0; r < f->g->n_slots && r < n_regs; r++)
        heap[r] = true;
    for (uint32_t i = 0; i < f->n_code; i++) {
        const FxInstr *I = &f->code[i];
        FxTypeIdKind k = I->node ? fx_typeid_kind(f->g->nodes[I->node - 1].tid) : FX_TK_UNKNOWN;
        if (I->d < n_regs && k != FX_TK_FLOAT && k != FX_TK_BOOL)
            heap[I->d] = true;
    }
    f->heap_regs = fx_xmalloc((n_regs ? n_regs : 1) * sizeof(uint32_t));
    f->n_heap_regs = 0;
    for (uint32_t r = 0; r < n_regs; r++)
        if (heap[r])
            f->heap_regs[f->n_heap_regs++] = r;
    free(heap);
}

/* FLUX_DUMP_BYTECODE=1 prints each compiled function to stderr (for
 * developers of the compiler). */
static void dump(const FxFunc *f)
{
    fprintf(stderr, "bytecode of %s %s: %u registers\n", f->g->intent, f->g->version, f->n_regs);
    for (uint32_t i = 0; i < f->n_code; i++) {
        const FxInstr *I = &f->code[i];
        fprintf(stderr, "  %3u  op %-2u d=%u a=%u b=%d c=%u  (node %u, block %u)\n", i, I->op,
                I->d, I->a, (int32_t)I->b, I->c, I->node, I->block);
    }
}

void fx_compile(FxRuntime *rt, const FxGraph *g, FxFunc *f)
{
    Compiler C = {.rt = rt, .g = g, .f = f, .next_reg = g->n_slots};
    C.reg_of = fx_xmalloc((g->n_nodes + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i <= g->n_nodes; i++)
        C.reg_of[i] = FX_NO_REG;
    C.uses = fx_xcalloc(g->n_nodes + 1, sizeof(uint32_t));
    C.seen = fx_xcalloc(g->n_nodes + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < g->n_nodes; i++)
    {
        for (uint32_t k = 0; k < g->nodes[i].n_inputs; k++)
            C.uses[g->nodes[i].inputs[k].v]++;
        for (uint32_t k = 0; k < FX_KERNEL_MAX_ARGS; k++) /* a kernel's operands count */
            C.uses[g->nodes[i].kargs[k].v] += g->nodes[i].kargs[k].v != 0;
    }
    f->g = g;
    f->memo = g->kernel == FX_KERNEL_MEMO;
    for (uint32_t r = 0; r < g->n_table; r++) { /* read.c checked every cell */
        uint32_t w = g->n_params + 1;
        FxValue *row = fx_xmalloc(w * sizeof(FxValue));
        for (uint32_t i = 0; i < w; i++) {
            const char *cell = g->table[r * w + i];
            row[i] = !strcmp(cell, "true")    ? fx_val_bool(true)
                     : !strcmp(cell, "false") ? fx_val_bool(false)
                                              : fx_val_int_text(cell);
        }
        /* compiled before a run starts: the meter refuses nothing then */
        bool added = fx_memo_insert(&f->hot, row, g->n_params, row[g->n_params]);
        FX_ASSERT(added);
        (void)added;
        for (uint32_t i = 0; i < w; i++)
            fx_value_release(row[i]);
        free(row);
    }
    f->n_kept = g->n_materialised;
    f->kept = g->n_materialised ? fx_xcalloc(g->n_materialised, sizeof(FxKept)) : NULL;
    for (uint32_t r = 0; r < g->n_materialised; r++) {
        f->kept[r].args = fx_xcalloc(g->n_params + 1, sizeof(FxValue));
        for (uint32_t i = 0; i < g->n_params; i++) {
            const char *cell = g->materialised[r * g->n_params + i];
            f->kept[r].args[i] = !strcmp(cell, "true")    ? fx_val_bool(true)
                                 : !strcmp(cell, "false") ? fx_val_bool(false)
                                                          : fx_val_int_text(cell);
        }
    }
    if (g->kernel == FX_KERNEL_RECURRENCE) {
        f->rec = fx_xcalloc(1, sizeof(*f->rec));
        if (!fx_linrec_init(f->rec, g->rec.order, g->rec.coeffs, g->rec.initial)) {
            free(f->rec); /* read.c checked it: cannot happen; the nodes still define f */
            f->rec = NULL;
        }
    }
    f->memo_able = fx_graph_calls_itself(g) && fx_graph_args_key_a_table(g);
    f->natural_param = fx_xcalloc(g->n_params + 1, sizeof(bool));
    for (uint32_t i = 0; i < g->n_params; i++)
        if ((f->natural_param[i] = fx_typeid_kind(g->param_tids[i]) == FX_TK_NATURAL) && i < 64)
            f->natural_mask |= 1ULL << i;
    uint32_t root = compile(&C, g->root);
    emit(&C, OP_RET, 0, root, 0, 0, g->root);
    f->code = C.code.data;
    f->n_code = (uint32_t)C.code.len;
    /* a jump to a return is that return */
    for (uint32_t i = 0; i < f->n_code; i++) {
        FxInstr *j = &f->code[i];
        if (j->op == OP_JMP && j->a < f->n_code && f->code[j->a].op == OP_RET)
            *j = f->code[j->a];
    }
    f->n_blocks = assign_blocks(f->code, f->n_code);
    for (uint32_t i = 0; i < f->n_code; i++) /* a loop's header: its instruction, then its block */
        if (f->code[i].op == OP_FORL)
            f->code[i].c = f->code[f->code[i].c].block;
    f->field_seen = fx_xcalloc(f->n_code, sizeof(*f->field_seen));
    heap_registers(f, C.next_reg);
    f->block_counts = fx_xcalloc(f->n_blocks, sizeof(uint64_t));
    f->consts = C.consts.data;
    f->n_consts = (uint32_t)C.consts.len;
    f->callees = C.callees.data;
    f->n_callees = (uint32_t)C.callees.len;
    f->records = C.records.data;
    f->n_records = (uint32_t)C.records.len;
    f->n_regs = C.next_reg;
    free(C.reg_of);
    free(C.uses);
    free(C.seen);
    if (getenv("FLUX_DUMP_BYTECODE"))
        dump(f);
    fx_vec_free(&C.trail);
}

void fx_func_free(FxFunc *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->n_consts; i++)
        fx_value_release(f->consts[i]);
    free(f->consts);
    free(f->code);
    free(f->callees);
    free(f->native_mod);
    free(f->native_kernels);
    free((char *)f->native_tier);
    if (f->cl)
        fx_clgen_free(f->cl);
    free(f->cl);
    free(f->cl_why);
    free(f->natural_param);
    free((void *)f->records);
    free(f->field_seen);
    free(f->heap_regs);
    free(f->block_counts);
    free(f->node_ns);
    if (f->memo) /* only then is f->g sure to be alive: an EXPR's graph is freed first */
        fx_memo_free(&f->table, f->g->n_params);
    if (f->hot.len) /* likewise: only an intent's graph has a table */
        fx_memo_free(&f->hot, f->g->n_params);
    for (uint32_t r = 0; r < f->n_kept; r++) {
        for (uint32_t i = 0; i < f->g->n_params; i++)
            fx_value_release(f->kept[r].args[i]);
        free(f->kept[r].args);
        if (f->kept[r].has)
            fx_value_release(f->kept[r].value);
    }
    free(f->kept);
    free(f->sources);
    free(f->sample);
    if (f->rec) {
        fx_linrec_clear(f->rec);
        free(f->rec);
    }
    if (f->owns_graph)
        fx_graph_free((FxGraph *)f->g);
    free(f);
}
