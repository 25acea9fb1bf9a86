/*
 * cgen.c: bytecode to C, instruction for instruction (native.h).
 *
 * A module is the function asked for and every function it calls, each a
 * static C function with typed registers: what the VM does to an FxValue
 * of a kind, the C does to a variable of the matching type. The types come
 * from the graph (parameters, results, a call's result) and from the
 * constants, and are checked for every instruction: a register written
 * with two types, or an instruction the translation does not know, and
 * the module is not made (the reason says which). Every instruction keeps
 * the VM's counting (a block's count where control moves) and its steps
 * (a call, a loop iteration), so that the learner sees the same evidence
 * and the budgets stop the same runs.
 *
 * Records are values (C structs, natrec.h), so reading or writing one
 * allocates nothing; lists are views of blocks a frame owns or borrows
 * (see emit_release), and the blocks are the only memory native code
 * takes, through FxNatCtx.grow, which charges the meter.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgen_int.h"
#include "interp_int.h"
#include "meter.h"
#include "natrec.h"
#include "native.h"

#define FX_STR2(...) #__VA_ARGS__
#define FX_STR(...) FX_STR2(__VA_ARGS__)



typedef struct Gen {
    Func funcs[FX_NATIVE_MAX_FUNCS];
    uint32_t n;
    FxFunc *kernels[FX_NATIVE_MAX_FUNCS]; /* callees a kernel answers: called through the VM */
    uint32_t n_kernels;
    const FxProgram *prog;
    FxNatRec recs[MAX_RECS]; /* the record types the module holds, as C structs FxR<k> */
    uint32_t n_recs;
    FxBuf *c, *why;
    bool plant;
} Gen;



static bool scalar(CType t)
{
    return t == T_INT || t == T_FLOAT || t == T_BOOL;
}



/* The C type of a register, of a function's result (its value and the
 * fuel left, negative: it stopped, c->status says how), of an element. */
static void put_ctype(FxBuf *c, CType t)
{
    static const char *const name[] = {"long long", "long long", "double", "int",
                                       "FxNatList", "FxNatList", "?"};
    if (is_rec(t))
        fx_buf_printf(c, "FxR%d", t - T_REC);
    else
        fx_buf_puts(c, is_list(t) ? "FxNatList" : t < T_REC ? name[t] : "?");
}

static void put_ret(FxBuf *c, CType t)
{
    static const char *const name[] = {"FxRi", "FxRi", "FxRf", "FxRi", "FxRl", "FxRl", "?"};
    if (is_rec(t))
        fx_buf_printf(c, "FxRr%d", t - T_REC);
    else
        fx_buf_puts(c, is_list(t) ? "FxRl" : t < T_REC ? name[t] : "?");
}

/* The bytes of a list's element: 8, or a record's slots. */
static uint32_t elem_size(const Gen *G, CType list)
{
    CType e = elem_of(list);
    return is_rec(e) ? 8 * G->recs[e - T_REC].n : 8;
}

/* The record type a type's text names (itself or a list's element), added
 * to the module's table; T_BAD when native code does not hold it. */
static CType rec_type(Gen *G, const char *text)
{
    FxNatRec r;
    if (!fx_natrec_find(G->prog, text, &r))
        return T_BAD;
    for (uint32_t k = 0; k < G->n_recs; k++)
        if (G->recs[k].names == r.names)
            return T_REC + (CType)k;
    if (G->n_recs == MAX_RECS)
        return T_BAD;
    G->recs[G->n_recs] = r;
    return T_REC + (CType)G->n_recs++;
}

static CType of_type(Gen *G, FxTypeId t, const char *text)
{
    switch (fx_typeid_kind(t)) {
    case FX_TK_NATURAL:
    case FX_TK_INT: return T_INT;
    case FX_TK_FLOAT: return T_FLOAT;
    case FX_TK_BOOL: return T_BOOL;
    case FX_TK_RECORD: return rec_type(G, text);
    case FX_TK_LIST: {
        if (fx_typeid_kind(fx_typeid_elem(t)) == FX_TK_RECORD) {
            CType e = rec_type(G, text);
            return e == T_BAD ? T_BAD : list_of(e);
        }
        CType e = of_type(G, fx_typeid_elem(t), NULL);
        return e == T_INT || e == T_FLOAT ? list_of(e) : T_BAD;
    }
    default: return T_BAD;
    }
}

/* The slot of a record's field by name, or -1. */
static int field_index(const Gen *G, CType rec, const FxValue *name)
{
    size_t len;
    const char *s = name->kind == FX_VAL_STRING ? fx_val_string_data(*name, &len) : NULL;
    if (!is_rec(rec) || !s)
        return -1;
    const FxNatRec *r = &G->recs[rec - T_REC];
    for (uint32_t i = 0; i < r->n; i++)
        if (strlen(r->names[i]) == len && !memcmp(r->names[i], s, len))
            return (int)i;
    return -1;
}

/* A field's register type. */
static CType field_type(const Gen *G, CType rec, int i)
{
    FxTypeIdKind k = G->recs[rec - T_REC].kind[i];
    return k == FX_TK_FLOAT ? T_FLOAT : k == FX_TK_BOOL ? T_BOOL : T_INT;
}

static bool numeric(CType t)
{
    return t == T_INT || t == T_FLOAT;
}

static uint32_t index_of(Gen *G, const FxFunc *f)
{
    for (uint32_t i = 0; i < G->n; i++)
        if (G->funcs[i].f == f)
            return i;
    return UINT32_MAX;
}

static uint32_t kernel_of(Gen *G, const FxFunc *f)
{
    for (uint32_t i = 0; i < G->n_kernels; i++)
        if (G->kernels[i] == f)
            return i;
    return UINT32_MAX;
}

/* Joins t into *r: false when the register already holds another type. */
static bool join(CType *r, CType t, bool *changed)
{
    if (t == T_NONE || *r == t)
        return true;
    if (*r != T_NONE)
        return false;
    *r = t;
    *changed = true;
    return true;
}

/* The library functions on numbers native code calls, by FxBuiltin: the
 * C function (libm's, which the interpreter calls too) and its operands
 * (all converted to double, as the interpreter converts them). */
static const struct {
    const char *c;
    uint8_t n;
    bool float_only;
} math[FX_BUILTIN__COUNT] = {
    [FX_BUILTIN_FLOAT] = {"", 1, false},  [FX_BUILTIN_SQRT] = {"sqrt", 1, false},
    [FX_BUILTIN_EXP] = {"fx_exp", 1, false}, [FX_BUILTIN_LOG] = {"fx_log", 1, false},
    [FX_BUILTIN_SIN] = {"fx_sin", 1, false}, [FX_BUILTIN_COS] = {"fx_cos", 1, false},
    [FX_BUILTIN_TAN] = {"fx_tan", 1, false}, [FX_BUILTIN_FLOOR] = {"floor", 1, false},
    [FX_BUILTIN_CEIL] = {"ceil", 1, false}, [FX_BUILTIN_ROUND] = {"round", 1, false},
    [FX_BUILTIN_POW] = {"fx_pow", 2, false}, [FX_BUILTIN_ATAN2] = {"fx_atan2", 2, false},
    [FX_BUILTIN_ABS] = {"fabs", 1, true},
};


static CType builtin_type(const Func *F, const FxInstr *I)
{
    uint32_t n = I->op == OP_BUILTIN ? I->c : I->tb;
    if (I->a == FX_BUILTIN_LEN && n == 1) { /* len(xs) of a list */
        const FxValue *v;
        uint32_t x = fx_cgen_operand(I, 0, &v, F->f);
        return v ? T_BAD : F->reg[x] == T_NONE ? T_NONE : is_list(F->reg[x]) ? T_INT : T_BAD;
    }
    if ((I->a == FX_BUILTIN_SLICE || I->a == FX_BUILTIN_SLICE_CLOSED || I->a == FX_BUILTIN_REVERSE) &&
        n == (I->a == FX_BUILTIN_REVERSE ? 1u : 3u)) { /* xs[a..b], xs[a..=b], reverse(xs) */
        const FxValue *v;
        uint32_t x = fx_cgen_operand(I, 0, &v, F->f);
        if (v)
            return T_BAD;
        for (uint32_t k = 1; k < n; k++) {
            const FxValue *kv;
            uint32_t y = fx_cgen_operand(I, k, &kv, F->f);
            CType t = kv ? (kv->kind == FX_VAL_INT ? T_INT : T_BAD) : F->reg[y];
            if (t == T_NONE)
                return T_NONE;
            if (t != T_INT)
                return T_BAD;
        }
        return F->reg[x] == T_NONE ? T_NONE : is_list(F->reg[x]) ? F->reg[x] : T_BAD;
    }
    if ((I->a == FX_BUILTIN_MIN || I->a == FX_BUILTIN_MAX) && n == 2) { /* min(a, b) */
        CType t[2];
        for (uint32_t k = 0; k < 2; k++) {
            const FxValue *v;
            uint32_t x = fx_cgen_operand(I, k, &v, F->f);
            t[k] = v ? (v->kind == FX_VAL_INT ? T_INT : v->kind == FX_VAL_FLOAT ? T_FLOAT : T_BAD)
                     : F->reg[x];
        }
        if (t[0] == T_NONE || t[1] == T_NONE)
            return T_NONE;
        if (!numeric(t[0]) || !numeric(t[1]))
            return T_BAD;
        return t[0] == T_INT && t[1] == T_INT ? T_INT : T_FLOAT;
    }
    if (I->a >= FX_BUILTIN__COUNT || !math[I->a].c || math[I->a].n != n)
        return T_BAD;
    for (uint32_t k = 0; k < n; k++) {
        const FxValue *v;
        uint32_t x = fx_cgen_operand(I, k, &v, F->f);
        CType t = v ? (v->kind == FX_VAL_INT ? T_INT : v->kind == FX_VAL_FLOAT ? T_FLOAT : T_BAD)
                    : F->reg[x];
        if (t == T_NONE)
            return T_NONE;
        if (!numeric(t) || (math[I->a].float_only && t != T_FLOAT))
            return T_BAD;
    }
    return T_FLOAT;
}

/* The type an instruction writes to d, from its operands' (T_NONE while
 * they are unknown), or T_BAD when the translation has no such case. */
static CType result_type(Gen *G, const Func *F, const FxInstr *I, uint32_t at)
{
    const CType *r = F->reg;
    FxFunc *f = F->f;
    switch ((FxOpcode)I->op) {
    case OP_CONST: {
        FxValue v = f->consts[I->a];
        return v.kind == FX_VAL_INT ? T_INT : v.kind == FX_VAL_FLOAT ? T_FLOAT
               : v.kind == FX_VAL_BOOL ? T_BOOL : T_BAD;
    }
    case OP_MOVE: return r[I->a];
    case OP_ADD: case OP_SUB: case OP_MUL:
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        if (!numeric(r[I->a]) || !numeric(r[I->b]))
            return T_BAD;
        return r[I->a] == T_INT && r[I->b] == T_INT ? T_INT : T_FLOAT;
    case OP_DIV:
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        /* int / int is exact division in the VM (then rounded): not here */
        return numeric(r[I->a]) && numeric(r[I->b]) && (r[I->a] == T_FLOAT || r[I->b] == T_FLOAT)
                   ? T_FLOAT : T_BAD;
    case OP_IDIV: case OP_MOD:
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        return r[I->a] == T_INT && r[I->b] == T_INT ? T_INT : T_BAD;
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        return r[I->a] == r[I->b] && numeric(r[I->a]) ? T_BOOL : T_BAD;
    case OP_NEG: return numeric(r[I->a]) || r[I->a] == T_NONE ? r[I->a] : T_BAD;
    case OP_NOT: return r[I->a] == T_BOOL || r[I->a] == T_NONE ? T_BOOL : T_BAD;
    case OP_ADDK: case OP_SUBK: return numeric(r[I->a]) || r[I->a] == T_NONE ? r[I->a] : T_BAD;
    case OP_CMPK: return numeric(r[I->a]) || r[I->a] == T_NONE ? T_BOOL : T_BAD;
    case OP_CALL: {
        FxFunc *callee = f->callees[I->a];
        return of_type(G, callee->g->ret_tid, callee->g->ret_type);
    }
    case OP_END: return list_of(F->elem[F->build[at]]);
    case OP_BUILTIN: case OP_BUILTINR: return builtin_type(F, I);
    case OP_LEN: return is_list(r[I->a]) ? T_INT : r[I->a] == T_NONE ? T_NONE : T_BAD;
    case OP_POW: /* a Float power: libm's pow, as the VM's */
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        return numeric(r[I->a]) && numeric(r[I->b]) && (r[I->a] == T_FLOAT || r[I->b] == T_FLOAT)
                   ? T_FLOAT : T_BAD;
    case OP_FIELD: {
        if (r[I->a] == T_NONE)
            return T_NONE;
        int k = field_index(G, r[I->a], &f->consts[I->b]);
        return k < 0 ? T_BAD : field_type(G, r[I->a], k);
    }
    case OP_INDEXF: {
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        int k = is_list(r[I->a]) ? field_index(G, elem_of(r[I->a]), &f->consts[I->fb]) : -1;
        return k < 0 || r[I->b] != T_INT ? T_BAD : field_type(G, elem_of(r[I->a]), k);
    }
    case OP_RECORD: /* its fields' types are checked once all are known */
        return rec_type(G, fx_graph_node(f->g, (FxNodeId){I->node})->type);
    case OP_LIST: { /* its elements' types are checked once all are known */
        const FxNode *n = fx_graph_node(f->g, (FxNodeId){I->node});
        CType t = of_type(G, n->tid, n->type);
        return is_list(t) ? t : I->b ? T_BAD : T_NONE; /* `[]`: typed by its use */
    }
    case OP_CONCAT: /* of two lists (strings stay interpreted) */
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        return is_list(r[I->a]) && r[I->a] == r[I->b] ? r[I->a] : T_BAD;
    case OP_MINMAX: /* d = min(d, a): the VM's Int compare, or fmin/fmax of Floats */
        return numeric(r[I->a]) || r[I->a] == T_NONE ? r[I->a] : T_BAD;
    case OP_INDEX:
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        if (r[I->b] != T_INT)
            return T_BAD;
        return is_list(r[I->a]) ? elem_of(r[I->a]) : T_BAD;
    default: return T_BAD;
    }
}


static const char *const op_names[OP__COUNT] = {
    [OP_CALLP] = "a sieved call",
    [OP_INDEX2] = "a matrix index", [OP_RANGE] = "a range as a list",
    [OP_EXTEND] = "a nested list",
    [OP_ENDM] = "a matrix", [OP_SORT] = "a sort", [OP_GROUP] = "a grouping",
    [OP_JOIN] = "a join", [OP_PRIMES] = "a sieve", [OP_GEMM] = "a matrix product",
    [OP_SELECT] = "a selection", [OP_DATA] = "a data source", [OP_CHOICE] = "a choice",
    [OP_COLUMN] = "a column", [OP_SPLIT] = "a map split across ranks",
};

static bool refuse(Gen *G, const Func *F, const char *what)
{
    fx_buf_printf(G->why, "`%s` %s", F->f->g->intent, what);
    return false;
}

/* Is r written by empty list literals `[]` alone (whose element type the
 * graph leaves open: the use gives it)? */
static bool empty_literal(const FxFunc *f, uint32_t r)
{
    bool any = false;
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (!fx_cgen_writes((FxOpcode)I->op) || I->d != r)
            continue;
        if (I->op != OP_LIST || I->b)
            return false;
        any = true;
    }
    return any;
}

/* Is register r an integer constant: no parameter, each write of it the
 * same OP_CONST of an int64 (*k)? */
static bool int_constant(const Func *F, uint32_t r, int64_t *k)
{
    const FxFunc *f = F->f;
    bool any = false;
    if (r < f->g->n_params || F->wide[r])
        return false;
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (!fx_cgen_writes((FxOpcode)I->op) || I->d != r)
            continue;
        if (I->op != OP_CONST || f->consts[I->a].kind != FX_VAL_INT ||
            (any && f->consts[I->a].u.i != *k))
            return false;
        *k = f->consts[I->a].u.i;
        any = true;
    }
    return any;
}

/* Gives `[]` the type its use asks for: a callee's parameter (through the
 * moves into the call's argument registers), the other side of a `++`, the
 * function's result. */
static void type_empty_literals(Gen *G, Func *F, bool *changed)
{
    const FxFunc *f = F->f;
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (I->op == OP_MOVE && F->reg[I->a] == T_NONE && is_list(F->reg[I->d]) &&
            empty_literal(f, I->a))
            join(&F->reg[I->a], F->reg[I->d], changed);
        if (I->op == OP_CONCAT && F->reg[I->a] == T_NONE && is_list(F->reg[I->b]) &&
            empty_literal(f, I->a))
            join(&F->reg[I->a], F->reg[I->b], changed);
        if (I->op == OP_CONCAT && F->reg[I->b] == T_NONE && is_list(F->reg[I->a]) &&
            empty_literal(f, I->b))
            join(&F->reg[I->b], F->reg[I->a], changed);
        if (I->op == OP_RET && F->reg[I->a] == T_NONE && is_list(F->ret) &&
            empty_literal(f, I->a))
            join(&F->reg[I->a], F->ret, changed);
        if (I->op != OP_CALL)
            continue;
        const FxGraph *cg = f->callees[I->a]->g;
        for (uint32_t i = 0; i < I->c && i < cg->n_params; i++) {
            uint32_t x = I->b + i;
            if (F->reg[x] != T_NONE)
                continue;
            bool moved_empty = false; /* x = MOVE of a `[]` register */
            for (uint32_t k = 0; k < f->n_code; k++)
                if (f->code[k].op == OP_MOVE && f->code[k].d == x &&
                    empty_literal(f, f->code[k].a))
                    moved_empty = true;
            if (empty_literal(f, x) || moved_empty)
                join(&F->reg[x], of_type(G, cg->param_tids[i], cg->param_types[i]), changed);
        }
    }
}

/* Types every register of F; false (G->why says why) when one cannot be. */

static bool type_func(Gen *G, Func *F)
{
    FxFunc *f = F->f;
    const FxGraph *g = f->g;
    if (fx_func_answers_calls(f) && !(F == G->funcs && fx_func_only_hot(f)))
        return refuse(G, F, "runs a kernel around its calls (a table or a recurrence)");
    F->reg = fx_xcalloc(f->n_regs ? f->n_regs : 1, sizeof(CType));
    F->build = fx_xcalloc(f->n_code ? f->n_code : 1, sizeof(uint32_t));
    F->elem = fx_xcalloc(f->n_code ? f->n_code : 1, sizeof(CType));
    F->has = fx_xcalloc(f->n_regs ? f->n_regs : 1, sizeof(bool));
    F->wide = fx_xcalloc(f->n_regs ? f->n_regs : 1, sizeof(bool));
    F->ret = of_type(G, g->ret_tid, g->ret_type);
    if (F->ret == T_BAD)
        return refuse(G, F, "returns a type native code does not hold");
    for (uint32_t i = 0; i < g->n_params; i++) {
        F->reg[i] = of_type(G, g->param_tids[i], g->param_types[i]);
        if (F->reg[i] == T_BAD)
            return refuse(G, F, "takes a type native code does not hold");
    }
    /* builders, in code order: the compiler nests them */
    uint32_t stack[32], depth = 0;
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (I->op == OP_BEGIN) {
            if (depth == 32)
                return refuse(G, F, "nests lists too deeply");
            stack[depth++] = F->build[at] = F->n_builders++;
        } else if (I->op == OP_PUSH || I->op == OP_END) {
            if (!depth)
                return refuse(G, F, "builds a list out of order");
            F->build[at] = I->op == OP_END ? stack[--depth] : stack[depth - 1];
        } else if (op_names[I->op]) { /* named: an operation not translated */
            return refuse(G, F, op_names[I->op]);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        type_empty_literals(G, F, &changed);
        for (uint32_t at = 0; at < f->n_code; at++) {
            const FxInstr *I = &f->code[at];
            if (I->op == OP_PUSH && !join(&F->elem[F->build[at]], F->reg[I->a], &changed))
                return refuse(G, F, "builds a list of mixed elements");
            if (!fx_cgen_writes(I->op))
                continue;
            CType t = result_type(G, F, I, at);
            if (t == T_BAD) {
                fx_buf_printf(G->why, "`%s` has an instruction (%u) native code does not "
                              "translate for its operands' types", g->intent, at);
                return false;
            }
            if (I->op == OP_CONST && t == T_INT && F->wide[I->d])
                t = T_FLOAT;
            if (!join(&F->reg[I->d], t, &changed) && I->d >= g->n_params &&
                ((F->reg[I->d] == T_INT && t == T_FLOAT) ||
                 (F->reg[I->d] == T_FLOAT && t == T_INT && I->op == OP_CONST))) {
                /* `sum` of Floats: its Int 0 becomes a Float at the first addition */
                F->reg[I->d] = T_FLOAT;
                F->wide[I->d] = changed = true;
            } else if (F->reg[I->d] != t && t != T_NONE) {
                fx_buf_printf(G->why, "`%s` holds values of two types in one register (r%u, "
                              "instruction %u)", g->intent, I->d, at);
                return false;
            }
        }
    }
    /* what the emitter takes as given */
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (fx_cgen_writes(I->op) && I->d < f->n_regs && F->wide[I->d] && I->op != OP_CONST &&
            result_type(G, F, I, at) != T_FLOAT)
            return refuse(G, F, "holds an Int and a Float in one register");
        CType t = F->reg[I->d < f->n_regs ? I->d : 0];
        switch ((FxOpcode)I->op) {
        case OP_RET:
            if (F->reg[I->a] != F->ret)
                return refuse(G, F, "returns a value of another type than it declares");
            break;
        case OP_PUSH: {
            CType e = F->elem[F->build[at]];
            if (e != T_INT && e != T_FLOAT && !is_rec(e))
                return refuse(G, F, "builds a list of values native code does not hold");
            break;
        }
        case OP_RECORD: {
            const FxNatRec *r = is_rec(t) ? &G->recs[t - T_REC] : NULL;
            if (!r || I->b != r->n || f->records[I->c] != r->names)
                return refuse(G, F, "builds a record of another shape than its type's");
            for (uint32_t i = 0; i < r->n; i++)
                if (F->reg[I->a + i] != field_type(G, t, (int)i))
                    return refuse(G, F, "gives a record's field a value of another type");
            break;
        }
        case OP_LIST:
            if (!is_list(t))
                return refuse(G, F, "writes an empty list whose elements' type it cannot tell");
            for (uint32_t i = 0; i < I->b; i++)
                if (F->reg[I->a + i] != elem_of(t))
                    return refuse(G, F, "writes a list of elements of another type");
            break;
        case OP_MINMAX:
            if (!numeric(t) || F->reg[I->a] != t)
                return refuse(G, F, "takes the min or max of values of two types");
            F->has[I->d] = true;
            break;
        case OP_NONEMPTY:
            if (!F->has[I->d])
                return refuse(G, F, "asks a min or max it does not fold");
            break;
        case OP_INC: case OP_FORI: case OP_FORL:
            if (t != T_INT || (I->op != OP_INC && F->reg[I->b] != T_INT))
                return refuse(G, F, "counts with a value that is not an integer");
            break;
        case OP_BRK:
            if (!numeric(t))
                return refuse(G, F, "compares a value that is not a number");
            break;
        case OP_BR:
            if (!numeric(t) || F->reg[I->b] != t)
                return refuse(G, F, "compares values of different types");
            break;
        case OP_JMPF: case OP_JMPT:
            if (t != T_BOOL)
                return refuse(G, F, "branches on a value that is not a Bool");
            break;
        case OP_CALL:
            for (uint32_t i = 0; i < I->c && kernel_of(G, f->callees[I->a]) != UINT32_MAX; i++)
                if (!scalar(F->reg[I->b + i]))
                    return refuse(G, F, "passes a list or a record to a kernel");
            if (kernel_of(G, f->callees[I->a]) != UINT32_MAX && !scalar(t))
                return refuse(G, F, "takes a list or a record from a kernel");
            for (uint32_t i = 0; i < I->c; i++) {
                FxFunc *callee = f->callees[I->a];
                if (F->reg[I->b + i] !=
                    of_type(G, callee->g->param_tids[i], callee->g->param_types[i]))
                    return refuse(G, F, "passes an argument of another type than the callee "
                                        "declares");
            }
            break;
        default:
            break;
        }
    }
    fx_cgen_analyse(F);
    return true;
}

/* ---- emitting ---- */

static void emit_float(FxBuf *c, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof(bits));
    fx_buf_printf(c, "fx_f64(0x%016" PRIx64 "ULL)", bits);
}

static void emit_int(FxBuf *c, int64_t x)
{
    if (x == INT64_MIN)
        fx_buf_printf(c, "(-9223372036854775807LL - 1)");
    else
        fx_buf_printf(c, "%" PRId64 "LL", x);
}

/* The C comparison of a mask (bit 0: less, 1: equal, 2: greater). */
static const char *mask_op(uint32_t mask)
{
    static const char *const ops[8] = {"0 &&", "<", "==", "<=", ">", "!=", ">=", "1 ||"};
    return ops[mask & 7];
}

static const char *arith(FxOpcode op)
{
    return op == OP_ADD ? "ADD" : op == OP_SUB ? "SUB" : "MUL";
}

/* Operand x as a double (the VM converts an Int mixed with a Float). */
static void as_double(FxBuf *c, const Func *F, uint32_t r)
{
    fx_buf_printf(c, F->reg[r] == T_INT ? "(double)r%u" : "r%u", r);
}

/* Operand j of a library call as a double (the conversion the VM makes),
 * or as it is where the call's result is an Int (min/max of two Ints). */
static void emit_builtin_operand(FxBuf *c, const Func *F, const FxInstr *I, uint32_t j)
{
    const FxValue *v;
    uint32_t x = fx_cgen_operand(I, j, &v, F->f);
    bool as_int = F->reg[I->d] == T_INT;
    if (v && v->kind == FX_VAL_INT && as_int)
        emit_int(c, v->u.i);
    else if (v && v->kind == FX_VAL_INT)
        emit_float(c, (double)v->u.i); /* the double nearest, as the VM converts it */
    else if (v)
        emit_float(c, v->u.f);
    else if (as_int)
        fx_buf_printf(c, "r%u", x);
    else
        as_double(c, F, x);
}

static void emit_branch(FxBuf *c, const FxInstr *I, const char *cond)
{
    fx_buf_printf(c, "    if (!(%s)) goto L%u;\n", cond, I->a);
}

static void emit_signature(Gen *G, const Func *F, uint32_t k)
{
    const FxGraph *g = F->f->g;
    fx_buf_puts(G->c, "static ");
    put_ret(G->c, F->ret);
    fx_buf_printf(G->c, " f%u(struct FxNatCtx *c, long long fuel", k);
    for (uint32_t i = 0; i < g->n_params; i++) {
        fx_buf_puts(G->c, ", ");
        put_ctype(G->c, F->reg[i]);
        fx_buf_printf(G->c, " p%u", i);
        if (is_list(F->reg[i])) /* given: the block is the callee's to keep or free */
            fx_buf_printf(G->c, ", int g%u", i);
    }
    fx_buf_printf(G->c, ")");
}

/*
 * Lists and who frees them. A list register holds a view {p, n} of a block;
 * o<r> says whether this frame owns the block (it made it: a list built, a
 * callee's result) or borrows it (an argument: the caller's, which outlives
 * the call). A block has room for fx_cap(n) elements (a builder's size
 * as it doubles from 16; none for an empty list) and at most one owner.
 * Before a register that owns one is written, the block goes to another
 * register of the frame that views it, else it is freed; a return gives its block to the caller (a borrowed one is copied
 * first) and frees every other; a tail call keeps the blocks its arguments
 * view and frees the rest; a bail or a stop frees them all. So nothing is
 * freed while a register of the frame can still read it, and nothing is
 * kept past the frame.
 */
/* Operand j of a builtin as an Int: its register, or its constant. */
static void emit_int_operand(FxBuf *c, const Func *F, const FxInstr *I, uint32_t j)
{
    const FxValue *v;
    uint32_t x = fx_cgen_operand(I, j, &v, F->f);
    if (v)
        emit_int(c, v->u.i);
    else
        fx_buf_printf(c, "r%u", x);
}

/* Before instruction at writes list register d: the block d owns passes
 * to a register that views it and is read by at or after it, else it is
 * freed (a dead register's view is never read: find_live). */
static void emit_release(FxBuf *c, const Gen *G, const Func *F, uint32_t d, uint32_t at)
{
    CType t = F->reg[d];
    bool first = true;
    if (F->view[d] || !fx_cgen_may_own(F, at, d)) /* never an owner; o<d> is 0 here */
        return;
    fx_buf_printf(c, "    if (o%u) { o%u = 0; if (r%u.p) {", d, d, d);
    for (uint32_t x = 0; x < F->f->n_regs; x++) {
        if (x == d || F->reg[x] != t || F->view[x] ||
            !(fx_cgen_live_after(F, at, x) || fx_cgen_reads_reg(&F->f->code[at], F->f, x)))
            continue;
        fx_buf_printf(c, "%sif (r%u.p == r%u.p) o%u = 1;", first ? " " : " else ", x, d, x);
        first = false;
    }
    fx_buf_printf(c, "%sFX_DROP(r%u.p, fx_cap(r%u.n) * %uLL); } }\n", first ? " " : " else ",
                  d, d, elem_size(G, t));
}

/* d = reverse(a) ++ b, a viewing a slice of list x (mark_reversals): in
 * place when x's block is the frame's, a its prefix and b the rest of it,
 * and (in_place) nothing but d is read after; else into a new block. */
static void emit_reversing_concat(FxBuf *c, const Gen *G, const Func *F, uint32_t at,
                                  uint32_t x, bool in_place)
{
    const FxInstr *I = &F->f->code[at];
    uint32_t sz = elem_size(G, F->reg[I->d]), a = I->a, b = I->b;
    fx_buf_printf(c, "    { long long n_ = r%u.n + r%u.n; FxNatList t_ = {0, n_};\n"
                     "      FX_WORK(n_);\n", a, b);
    if (in_place) {
        fx_buf_printf(c, "      if (n_ && o%u && n_ == r%u.n && r%u.p == r%u.p &&"
                         " (!r%u.n || (char *)r%u.p == (char *)r%u.p + r%u.n * %uLL)) {\n"
                         "        ", x, x, a, x, b, b, x, a, sz);
        put_ctype(c, elem_of(F->reg[I->d]));
        fx_buf_printf(c, " *q_ = r%u.p;\n"
                         "        for (long long i_ = 0, j_ = r%u.n - 1; i_ < j_; i_++, j_--) { ",
                      x, a);
        put_ctype(c, elem_of(F->reg[I->d]));
        fx_buf_printf(c, " s_ = q_[i_]; q_[i_] = q_[j_]; q_[j_] = s_; }\n"
                         "        t_.p = r%u.p; o%u = 0; } else\n", x, x);
    }
    fx_buf_printf(c, "      if (n_) { t_.p = FX_NEW(fx_cap(n_) * %uLL); if (!t_.p) goto out;\n"
                     "        for (long long i_ = 0; i_ < r%u.n; i_++) memcpy((char *)t_.p + i_ *"
                     " %uLL, (const char *)r%u.p + (r%u.n - 1 - i_) * %uLL, %uUL);\n"
                     "        if (r%u.n) memcpy((char *)t_.p + r%u.n * %uLL, r%u.p,"
                     " (unsigned long)(r%u.n * %uLL)); }\n",
                  sz, a, sz, a, a, sz, sz, b, a, sz, b, b, sz);
    emit_release(c, G, F, I->d, at);
    fx_buf_printf(c, "    r%u = t_; o%u = 1; }\n", I->d, I->d);
}

/* Frees every block the frame owns. */
static void emit_free_owned(FxBuf *c, const Gen *G, const Func *F, uint32_t at)
{
    for (uint32_t x = 0; x < F->f->n_regs; x++)
        if (is_list(F->reg[x]) && !F->view[x] && fx_cgen_may_own(F, at, x))
            fx_buf_printf(c, "    if (o%u) { o%u = 0; FX_DROP(r%u.p, fx_cap(r%u.n) * %uLL); }\n",
                          x, x, x, x, elem_size(G, F->reg[x]));
}

/* The owner of the block that list v (a C expression of type t) views
 * gives it up into flag q (a C lvalue), else: tail. */
static void emit_take_owner(FxBuf *c, const Func *F, uint32_t at, CType t, const char *v,
                            const char *q, const char *tail)
{
    for (uint32_t x = 0; x < F->f->n_regs; x++)
        if (F->reg[x] == t && !F->view[x] && fx_cgen_may_own(F, at, x))
            fx_buf_printf(c, "if (o%u && r%u.p == %s.p) { o%u = 0; %s = 1; } else ", x, x, v, x,
                          q);
    fx_buf_printf(c, "%s\n", tail);
}

/* return r (a list): its own block if the frame owns it, else a copy */
static void emit_return_list(FxBuf *c, const Gen *G, const Func *F, uint32_t r, uint32_t at)
{
    uint32_t sz = elem_size(G, F->reg[r]);
    fx_buf_printf(c, "    { FxNatList v_ = r%u; int q_ = 0;\n      ", r);
    char tail[256];
    snprintf(tail, sizeof(tail),
             "{ v_.p = 0; if (r%u.n) { v_.p = FX_NEW(fx_cap(r%u.n) * %uLL); if (!v_.p) goto out;"
             " memcpy(v_.p, r%u.p, (unsigned long)(r%u.n * %uLL)); } }", r, r, sz, r, r, sz);
    emit_take_owner(c, F, at, F->reg[r], "v_", "q_", tail);
    emit_free_owned(c, G, F, at);
    fx_buf_printf(c, "      { FxRl t; t.v = v_; t.fuel = fuel; return t; } }\n");
}

/* The tail call of the function itself on registers b..b+n: the arguments
 * become the parameters, with the blocks they view; the rest is freed. */
static void emit_tail_call(FxBuf *c, const Gen *G, const Func *F, uint32_t at)
{
    uint32_t b = F->f->code[at].b, n = F->f->code[at].c;
    fx_buf_printf(c, "    {");
    for (uint32_t i = 0; i < n; i++) {
        fx_buf_puts(c, " ");
        put_ctype(c, F->reg[b + i]);
        fx_buf_printf(c, " t%u = r%u; int q%u = 0;", i, b + i, i);
    }
    fx_buf_puts(c, "\n");
    for (uint32_t i = 0; i < n; i++) {
        if (!is_list(F->reg[b + i]))
            continue;
        char v[16], q[16];
        snprintf(v, sizeof(v), "t%u", i);
        snprintf(q, sizeof(q), "q%u", i);
        fx_buf_puts(c, "      ");
        emit_take_owner(c, F, at, F->reg[b + i], v, q, ";");
    }
    emit_free_owned(c, G, F, at);
    for (uint32_t x = n; x < F->f->n_regs; x++) /* no view of a freed block stays */
        if (is_list(F->reg[x]))
            fx_buf_printf(c, "    r%u.p = 0; r%u.n = 0;\n", x, x);
    for (uint32_t i = 0; i < n; i++) {
        fx_buf_printf(c, "    r%u = t%u;", i, i);
        if (is_list(F->reg[i]))
            fx_buf_printf(c, " o%u = q%u;", i, i);
        fx_buf_puts(c, "\n");
    }
    fx_buf_printf(c, "    }\n    goto top;\n");
}



/* A register that may still hold the Int it started as (F->wide) is read
 * as a Float only by Float arithmetic with a Float, which converts it as
 * the VM does; anything else gives the call back while it is the Int. */
static void emit_wide_guards(FxBuf *c, const Func *F, const FxInstr *I)
{
    uint32_t r[4], base = 0, n, k = fx_cgen_reads(I, F->f, r, &base, &n);
    for (uint32_t i = 0; i < n && k < 4; i++)
        r[k++] = base + i;
    for (uint32_t i = k; i < n; i++) /* more than fit: each looked at */
        if (F->wide[base + i])
            fx_buf_printf(c, "    if (z%u) goto bail;\n", base + i);
    bool arith = I->op == OP_ADD || I->op == OP_SUB || I->op == OP_MUL || I->op == OP_DIV;
    for (uint32_t i = 0; i < k; i++) {
        if (r[i] >= F->f->n_regs || !F->wide[r[i]])
            continue;
        uint32_t other = r[i] == I->a ? I->b : I->a;
        if (arith && other != r[i] && F->reg[other] == T_FLOAT && !F->wide[other])
            continue;
        fx_buf_printf(c, "    if (z%u) goto bail;\n", r[i]);
    }
}

/* The list arguments of the call at `at` that the frame gives to the
 * callee (g<i>_): a block it owns, viewed by no register read after the
 * call nor by another argument. The callee may then write it in place
 * (mark_maps, a flip), return it, or free it. An argument read after the
 * call is never given. */
static void emit_gifts(FxBuf *c, const Func *F, uint32_t at)
{
    const FxFunc *f = F->f;
    const FxInstr *I = &f->code[at];
    for (uint32_t i = 0; i < I->c; i++) {
        uint32_t a = I->b + i;
        if (!is_list(F->reg[a]))
            continue;
        fx_buf_printf(c, "int g%u_ = 0; ", i);
        bool twice = false;
        for (uint32_t j = 0; j < I->c; j++)
            twice |= j != i && I->b + j == a;
        if (twice || F->view[a] || fx_cgen_live_after(F, at, a))
            continue;
        fx_buf_printf(c, "if (r%u.p", a);
        for (uint32_t y = 0; y < f->n_regs; y++) {
            bool arg = y >= I->b && y < I->b + I->c; /* the result's register: written */
            if (y != a && F->reg[y] == F->reg[a] && !F->view[y] &&
                (arg || (y != I->d && fx_cgen_live_after(F, at, y))))
                fx_buf_printf(c, " && r%u.p != r%u.p", y, a);
        }
        char v[24], q[24];
        snprintf(v, sizeof(v), "r%u", a);
        snprintf(q, sizeof(q), "g%u_", i);
        fx_buf_puts(c, ") { ");
        emit_take_owner(c, F, at, F->reg[a], v, q, "; }");
        fx_buf_puts(c, "     ");
    }
}

/* At the FORI of a map that may build in its list's block (mark_maps):
 * it does when the frame owns the block, which passes to the builder, and
 * no register read in the turns or after the END views it. */
static void emit_map_decision(FxBuf *c, const Func *F, uint32_t fi, uint32_t b)
{
    const FxFunc *f = F->f;
    uint32_t xs = F->map_src[b] - 1, e = F->map_end[b], i = f->code[fi].d;
    fx_buf_printf(c, "    if (r%u >= 0 && r%u.n", i, xs);
    for (uint32_t y = 0; y < f->n_regs; y++) { /* the END's register: written there */
        bool read = y != f->code[e].d && fx_cgen_live_after(F, e, y);
        for (uint32_t k = fi + 1; k < e && !read; k++)
            read = fx_cgen_reads_reg(&f->code[k], f, y);
        if (y != xs && F->reg[y] == F->reg[xs] && !F->view[y] && read)
            fx_buf_printf(c, " && r%u.p != r%u.p", y, xs);
    }
    fx_buf_puts(c, ") {\n      int own_ = 0; ");
    char v[24];
    snprintf(v, sizeof(v), "r%u", xs);
    emit_take_owner(c, F, fi, F->reg[xs], v, "own_", ";");
    fx_buf_printf(c, "      if (own_) { b%u.p = r%u.p; cap%u = fx_cap(r%u.n); }\n", b, xs, b, xs);
    if (F->map_guard[b]) { /* only the range the guard picks runs: lo_..hi_ */
        const FxInstr *GI = &f->code[F->map_guard[b] - 1];
        uint32_t lim = f->code[fi].b, mask = F->map_mask[b];
        char k[32];
        if (GI->op == OP_BRK)
            snprintf(k, sizeof(k), "%dLL", (int32_t)GI->b);
        else
            snprintf(k, sizeof(k), "r%u", GI->d == i ? GI->b : GI->d);
        fx_buf_printf(c, "      if (own_ && r%u == 0 && r%u == r%u.n) { long long k_ = %s, lo_, hi_;\n"
                         "        ", i, lim, xs, k);
        /* k + 1, where k is past the end: the end (no overflow) */
        char k1[64];
        snprintf(k1, sizeof(k1), "(k_ < r%u ? k_ + 1 : r%u)", lim, lim);
        if (mask == 2) /* i = k */
            fx_buf_printf(c, "lo_ = k_; hi_ = %s;", k1);
        else if (mask == 1 || mask == 3) /* i < k, i <= k */
            fx_buf_printf(c, "lo_ = 0; hi_ = %s;", mask == 1 ? "k_" : k1);
        else /* i > k, i >= k */
            fx_buf_printf(c, "lo_ = %s; hi_ = r%u;", mask == 6 ? "k_" : k1, lim);
        fx_buf_printf(c, "\n        if (lo_ < 0) lo_ = 0; if (lo_ > r%u) lo_ = r%u; if (hi_ > r%u) hi_ = r%u;"
                         " if (hi_ < lo_) hi_ = lo_;\n"
                         "        { long long s_ = r%u - (hi_ - lo_); /* the steps skipped, as"
                         " FX_STEP takes them */\n"
                         "          while (s_ >= fuel) { s_ -= fuel; if ((fuel = c->refuel(c)) <= 0)"
                         " goto out; }\n"
                         "          fuel -= s_; b%u.n = lo_; r%u = lo_; r%u = hi_; rng%u = 1; } }\n",
                      lim, lim, lim, lim, lim, b, i, lim, b);
    }
    fx_buf_puts(c, "    }\n");
}

static void emit_func(Gen *G, const Func *F, uint32_t k)
{
    FxBuf *c = G->c;
    const FxFunc *f = F->f;
    const FxGraph *g = f->g;
    bool *target = fx_xcalloc(f->n_code + 1, sizeof(bool));
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        switch ((FxOpcode)I->op) {
        case OP_BRK: case OP_BR: case OP_JMP: case OP_JMPF: case OP_JMPT: case OP_FORI:
        case OP_FORL:
            target[I->a] = true;
            break;
        default:
            break;
        }
    }
    /* the intent, not the version: a version that only adds a table to
     * its parent's code (hot inputs, kept results) has its parent's C, and
     * so its validated object */
    fx_buf_printf(c, "/* %s */\n", g->intent);
    emit_signature(G, F, k);
    fx_buf_printf(c, "\n{\n");
    uint32_t acc_at = fx_cgen_accumulated_call(F);
    FxOpcode acc_op = acc_at == UINT32_MAX ? OP_ADD : (FxOpcode)f->code[acc_at + 1].op;
    if (acc_at != UINT32_MAX)
        fx_buf_printf(c, "    long long acc = %d; /* the %s of the calls turned into a loop */\n"
                         "    int ovf = 0; /* it overflowed: the return bails (acc is read there "
                         "only) */\n", acc_op == OP_ADD ? 0 : 1, acc_op == OP_ADD ? "sum" : "product");
    for (uint32_t r = 0; r < f->n_regs; r++) {
        if (F->reg[r] == T_NONE) { /* written by nothing: a failure's value (no equation
                                    * covers the call), read only after the jump to bail,
                                    * where control never goes; C must still see it, of
                                    * the type of the register it moves to (a record,
                                    * a list: never an owner) */
            CType t = T_NONE;
            for (uint32_t at = 0; at < f->n_code && t == T_NONE; at++)
                if (f->code[at].op == OP_MOVE && f->code[at].a == r)
                    t = F->reg[f->code[at].d];
            fx_buf_puts(c, "    ");
            if (t == T_NONE)
                fx_buf_puts(c, "long long");
            else
                put_ctype(c, t);
            fx_buf_printf(c, " r%u = %s;\n", r, t == T_NONE ? "0" : is_list(t) ? "{0, 0}"
                                                 : is_rec(t) ? "{0}" : "0");
            continue;
        }
        fx_buf_puts(c, "    ");
        put_ctype(c, F->reg[r]);
        fx_buf_printf(c, " r%u = %s;", r, is_list(F->reg[r]) ? "{0, 0}"
                                           : is_rec(F->reg[r]) ? "{0}" : "0");
        if (is_list(F->reg[r])) /* o<r>: owned (the block is this frame's to free) */
            fx_buf_printf(c, " int o%u = 0;", r);
        if (F->has[r])
            fx_buf_printf(c, " int h%u = 0; /* it holds a value (a min/max so far) */", r);
        if (F->wide[r])
            fx_buf_printf(c, " int z%u = 0; /* it is the Int it started as */", r);
        fx_buf_puts(c, "\n");
    }
    for (uint32_t b = 0; b < F->n_builders; b++)
        fx_buf_printf(c, F->map_guard[b] ? "    FxNatList b%u = {0, 0}; long long cap%u = 0;"
                                           " int rng%u = 0; /* a range of it runs */\n"
                                         : "    FxNatList b%u = {0, 0}; long long cap%u = 0;\n",
                      b, b, b);
    for (uint32_t at = 0; at < f->n_code; at++) /* small literals copied once (mark_views) */
        if (f->code[at].op == OP_LIST && F->view_at[at]) {
            fx_buf_puts(c, "    ");
            put_ctype(c, elem_of(F->reg[f->code[at].d]));
            fx_buf_printf(c, " l%u[%u];\n", at, f->code[at].b);
        }
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(c, is_list(F->reg[i]) ? "    r%u = p%u; o%u = g%u;\n" : "    r%u = p%u;\n",
                      i, i, i, i);
    fx_buf_printf(c, "top:\n");
    for (uint32_t i = 0; i < g->n_params; i++)
        if (f->natural_mask & (UINT64_C(1) << i))
            fx_buf_printf(c, "    if (r%u < 0) goto bail; /* a Natural */\n", i);
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        const CType *T = F->reg;
        if (target[at])
            fx_buf_printf(c, "L%u:\n", at);
        emit_wide_guards(c, F, I);
        switch ((FxOpcode)I->op) {
        case OP_CONST: {
            FxValue v = f->consts[I->a];
            fx_buf_printf(c, "    r%u = ", I->d);
            if (v.kind == FX_VAL_INT && F->wide[I->d]) { /* as the VM converts it */
                emit_float(c, (double)v.u.i);
                fx_buf_printf(c, "; z%u = 1", I->d);
            } else if (v.kind == FX_VAL_INT)
                emit_int(c, v.u.i);
            else if (v.kind == FX_VAL_FLOAT)
                emit_float(c, v.u.f);
            else
                fx_buf_printf(c, "%d", v.u.b ? 1 : 0);
            fx_buf_printf(c, ";\n");
            break;
        }
        case OP_UNIT: /* a fold's start: min/max have none yet */
            if (F->has[I->d])
                fx_buf_printf(c, "    h%u = 0;\n", I->d);
            break;
        case OP_MOVE:
            if (I->d == I->a)
                break;
            if (is_list(T[I->d]))
                emit_release(c, G, F, I->d, at);
            fx_buf_printf(c, "    r%u = r%u;\n", I->d, I->a);
            break;
        case OP_ADD: case OP_SUB: case OP_MUL:
            if (acc_at != UINT32_MAX && at == acc_at + 1)
                break; /* folded into acc at the call */
            if (T[I->d] == T_INT) {
                fx_buf_printf(c, "    if (FX_%s_OV(r%u, r%u, &r%u)) goto bail;\n",
                              arith(I->op), I->a, I->b, I->d);
            } else {
                fx_buf_printf(c, "    r%u = ", I->d);
                as_double(c, F, I->a);
                fx_buf_printf(c, " %c ", I->op == OP_ADD ? '+' : I->op == OP_SUB ? '-' : '*');
                as_double(c, F, I->b);
                fx_buf_printf(c, ";\n");
            }
            break;
        case OP_DIV:
            fx_buf_printf(c, "    r%u = ", I->d);
            as_double(c, F, I->a);
            fx_buf_printf(c, " / ");
            as_double(c, F, I->b);
            fx_buf_printf(c, ";\n");
            break;
        case OP_IDIV: case OP_MOD: { /* floor division by a positive divisor, as the VM's */
            int64_t by = 0;
            bool positive = int_constant(F, I->b, &by) && by > 0; /* then no test */
            if (positive && (by & (by - 1)) == 0) {
                /* by 2^s: an arithmetic shift floors, the mask is the floor's rest */
                if (I->op == OP_IDIV)
                    fx_buf_printf(c, "    r%u = r%u >> %d;\n", I->d, I->a,
                                  __builtin_ctzll((unsigned long long)by));
                else
                    fx_buf_printf(c, "    r%u = r%u & %lldLL;\n", I->d, I->a, (long long)(by - 1));
                break;
            }
            if (!positive)
                fx_buf_printf(c, "    if (r%u <= 0) goto bail;\n", I->b);
            fx_buf_printf(c, "    { long long q = r%u / r%u, m = r%u %% r%u;"
                             " if (m < 0) { q--; m += r%u; } r%u = %s; }\n",
                          I->a, I->b, I->a, I->b, I->b, I->d, I->op == OP_IDIV ? "q" : "m");
            break;
        }
        case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
            static const char *const cmp[] = {"==", "!=", "<", "<=", ">", ">="};
            if (T[I->a] == T_FLOAT) /* a NaN has no order: the VM's error, or its answer */
                fx_buf_printf(c, "    if (r%u != r%u || r%u != r%u) goto bail;\n", I->a, I->a,
                              I->b, I->b);
            fx_buf_printf(c, "    r%u = r%u %s r%u;\n", I->d, I->a, cmp[I->op - OP_EQ], I->b);
            break;
        }
        case OP_NEG:
            if (T[I->a] == T_INT)
                fx_buf_printf(c, "    if (r%u == (-9223372036854775807LL - 1)) goto bail;\n", I->a);
            fx_buf_printf(c, "    r%u = -r%u;\n", I->d, I->a);
            break;
        case OP_NOT:
            fx_buf_printf(c, "    r%u = !r%u;\n", I->d, I->a);
            break;
        case OP_INC:
            fx_buf_printf(c, "    if (r%u == 9223372036854775807LL) goto bail;\n    r%u++;\n",
                          I->d, I->d);
            break;
        case OP_ADDK: case OP_SUBK:
            if (T[I->a] == T_INT) {
                fx_buf_printf(c, "    if (FX_%s_OV(r%u, %dLL, &r%u)) goto bail;\n",
                              I->op == OP_ADDK ? "ADD" : "SUB", I->a, (int32_t)I->b, I->d);
            } else {
                fx_buf_printf(c, "    r%u = r%u %c (double)%d;\n", I->d, I->a,
                              I->op == OP_ADDK ? '+' : '-', (int32_t)I->b);
            }
            break;
        case OP_CMPK:
            if (T[I->a] == T_FLOAT)
                fx_buf_printf(c, "    if (r%u != r%u) goto bail;\n", I->a, I->a);
            fx_buf_printf(c, "    r%u = r%u %s %s%d;\n", I->d, I->a, mask_op(I->c),
                          T[I->a] == T_FLOAT ? "(double)" : "", (int32_t)I->b);
            break;
        case OP_BRK: case OP_BR: {
            FxBuf cond = {0};
            if (T[I->d] == T_FLOAT)
                fx_buf_printf(c, "    if (r%u != r%u || r%u != r%u) goto bail;\n", I->d, I->d,
                              I->op == OP_BR ? I->b : I->d, I->op == OP_BR ? I->b : I->d);
            if (I->op == OP_BRK)
                fx_buf_printf(&cond, "r%u %s %s%d", I->d, mask_op(I->c),
                              T[I->d] == T_FLOAT ? "(double)" : "", (int32_t)I->b);
            else
                fx_buf_printf(&cond, "r%u %s r%u", I->d, mask_op(I->c), I->b);
            emit_branch(c, I, fx_buf_str(&cond));
            fx_buf_free(&cond);
            break;
        }
        case OP_JMP:
            fx_buf_printf(c, "    goto L%u;\n", I->a);
            break;
        case OP_JMPF: case OP_JMPT: {
            char cond[32];
            snprintf(cond, sizeof(cond), "%sr%u", I->op == OP_JMPF ? "" : "!", I->d);
            emit_branch(c, I, cond);
            break;
        }
        case OP_FORI: {
            if (F->map_at[at])
                emit_map_decision(c, F, at, F->map_at[at] - 1);
            char cond[48];
            snprintf(cond, sizeof(cond), "r%u < r%u", I->d, I->b);
            fx_buf_printf(c, "    FX_STEP();\n");
            emit_branch(c, I, cond);
            break;
        }
        case OP_FORL: {
            char cond[48];
            snprintf(cond, sizeof(cond), "!(r%u < r%u)", I->d, I->b);
            fx_buf_printf(c, "    if (r%u == 9223372036854775807LL) goto bail;\n    r%u++;\n"
                             "    FX_STEP();\n", I->d, I->d);
            emit_branch(c, I, cond);
            break;
        }
        case OP_CALL: {
            FxFunc *callee = f->callees[I->a];
            uint32_t k2 = index_of(G, callee);
            fx_buf_printf(c, "    FX_STEP();\n");
            if (at == acc_at) { /* f(x) + y returned: y into acc, then f(x) in this frame */
                const FxInstr *J = &f->code[at + 1];
                fx_buf_printf(c, "    ovf |= FX_%s_OV(acc, r%u, &acc);\n", arith(acc_op),
                              J->a == I->d ? J->b : J->a);
            }
            if (callee == f && ((at + 1 < f->n_code && f->code[at + 1].op == OP_RET &&
                                 f->code[at + 1].a == I->d) || at == acc_at)) {
                /* a tail call of itself: the VM's in-frame call, a jump here */
                emit_tail_call(c, G, F, at);
                break;
            }
            uint32_t kk = kernel_of(G, callee);
            if (kk != UINT32_MAX) { /* a kernel answers it: through the VM, in words */
                static const char *const word[] = {"i", "i", "f", "i", "l", "l", "i"};
                fx_buf_printf(c, "    { FxNatWord a_[%u], o_;", I->c ? I->c : 1);
                for (uint32_t i = 0; i < I->c; i++)
                    fx_buf_printf(c, " a_[%u].%s = r%u;", i, word[T[I->b + i]], I->b + i);
                fx_buf_printf(c, "\n      fuel = c->kernel(c, %u, a_, &o_, fuel); if (fuel <= 0) goto out;"
                                 " r%u = o_.%s; }\n", kk, I->d, word[T[I->d]]);
                break;
            }
            fx_buf_printf(c, "    { ");
            emit_gifts(c, F, at);
            put_ret(c, T[I->d]);
            fx_buf_printf(c, " t = f%u(c, fuel", k2);
            for (uint32_t i = 0; i < I->c; i++)
                fx_buf_printf(c, is_list(T[I->b + i]) ? ", r%u, g%u_" : ", r%u", I->b + i, i);
            fx_buf_printf(c, "); fuel = t.fuel; if (fuel < 0) goto out;\n");
            if (is_list(T[I->d])) { /* the callee's block: this frame's now */
                emit_release(c, G, F, I->d, at);
                fx_buf_printf(c, "    r%u = t.v; o%u = 1; }\n", I->d, I->d);
            } else {
                fx_buf_printf(c, "    r%u = t.v; }\n", I->d);
            }
            break;
        }
        case OP_RET:
            if (acc_at != UINT32_MAX && at != acc_at + 2)
                fx_buf_printf(c, "    ovf |= FX_%s_OV(acc, r%u, &r%u);\n    if (ovf) goto bail;\n",
                              arith(acc_op), I->a, I->a);
            if (acc_at != UINT32_MAX && at == acc_at + 2) /* that one is not reached */
                break;
            if (is_list(F->ret)) {
                emit_return_list(c, G, F, I->a, at);
                break;
            }
            emit_free_owned(c, G, F, at);
            fx_buf_puts(c, "    { ");
            put_ret(c, F->ret);
            fx_buf_printf(c, " t; t.v = r%u; t.fuel = fuel; return t; }\n", I->a);
            break;
        case OP_FAIL: case OP_CHECKF: /* the interpreter says what failed */
            fx_buf_printf(c, "    goto bail;\n");
            break;
        case OP_BEGIN:
            fx_buf_printf(c, "    b%u.n = 0;\n", F->build[at]);
            break;
        case OP_PUSH: {
            uint32_t b = F->build[at], sz = elem_size(G, list_of(F->elem[b]));
            fx_buf_printf(c, "    if (b%u.n == cap%u) { long long nc = cap%u ? 2 * cap%u : 16;"
                             " void *q = cap%u ? c->grow(c, b%u.p, cap%u * %uLL, nc * %uLL)"
                             " : FX_NEW(nc * %uLL);"
                             " if (!q) goto out; b%u.p = q; cap%u = nc; }\n    ((",
                          b, b, b, b, b, b, b, sz, sz, sz, b, b);
            put_ctype(c, F->elem[b]);
            fx_buf_printf(c, " *)b%u.p)[b%u.n++] = r%u;\n", b, b, I->a);
            break;
        }
        case OP_END: { /* the block (fx_cap of its elements) is this frame's */
            uint32_t b = F->build[at], sz = elem_size(G, T[I->d]);
            if (F->map_guard[b]) /* a range ran: the rest of the positions are as they were */
                fx_buf_printf(c, "    if (rng%u) { rng%u = 0; b%u.n = r%u.n; }\n", b, b, b,
                              F->map_src[b] - 1);
            if (F->map_src[b]) /* built in its list's block: fewer may fit a smaller one */
                fx_buf_printf(c, "    if (b%u.n && cap%u != fx_cap(b%u.n)) { void *q = c->grow(c,"
                                 " b%u.p, cap%u * %uLL, fx_cap(b%u.n) * %uLL); if (!q) goto out;"
                                 " b%u.p = q; cap%u = fx_cap(b%u.n); }\n",
                              b, b, b, b, b, sz, b, sz, b, b, b);
            fx_buf_printf(c, "    if (!b%u.n && b%u.p) { FX_DROP(b%u.p, cap%u * %uLL); b%u.p = 0; }\n",
                          b, b, b, b, sz, b);
            emit_release(c, G, F, I->d, at);
            fx_buf_printf(c, "    r%u = b%u; o%u = 1; b%u.p = 0; b%u.n = 0; cap%u = 0;\n", I->d, b,
                          I->d, b, b, b);
            break;
        }
        case OP_POW:
            fx_buf_printf(c, "    r%u = fx_pow(", I->d);
            as_double(c, F, I->a);
            fx_buf_puts(c, ", ");
            as_double(c, F, I->b);
            fx_buf_puts(c, ");\n");
            break;
        case OP_FIELD:
            fx_buf_printf(c, "    r%u = r%u.f%d;\n", I->d, I->a,
                          field_index(G, T[I->a], &f->consts[I->b]));
            break;
        case OP_INDEXF:
            fx_buf_printf(c, "    if ((unsigned long long)r%u >= (unsigned long long)r%u.n) "
                             "goto bail;\n    r%u = ((const FxR%d *)r%u.p)[r%u].f%d;\n",
                          I->b, I->a, I->d, elem_of(T[I->a]) - T_REC, I->a, I->b,
                          field_index(G, elem_of(T[I->a]), &f->consts[I->fb]));
            break;
        case OP_RECORD:
            fx_buf_printf(c, "    { FxR%d t_;", T[I->d] - T_REC);
            for (uint32_t i = 0; i < I->b; i++)
                fx_buf_printf(c, " t_.f%u = r%u;", i, I->a + i);
            fx_buf_printf(c, " r%u = t_; }\n", I->d);
            break;
        case OP_LIST: { /* a literal: a block of its elements, this frame's */
            uint32_t sz = elem_size(G, T[I->d]);
            if (F->view_at[at]) { /* read once, by what copies it (mark_views) */
                for (uint32_t i = 0; i < I->b; i++)
                    fx_buf_printf(c, "    l%u[%u] = r%u;\n", at, i, I->a + i);
                fx_buf_printf(c, "    r%u.p = l%u; r%u.n = %u;\n", I->d, at, I->d, I->b);
                break;
            }
            fx_buf_printf(c, "    { FxNatList t_ = {0, %u};", I->b);
            if (I->b) {
                fx_buf_printf(c, " t_.p = FX_NEW(fx_cap(%u) * %uLL); if (!t_.p) goto out;",
                              I->b, sz);
                for (uint32_t i = 0; i < I->b; i++) {
                    fx_buf_puts(c, " ((");
                    put_ctype(c, elem_of(T[I->d]));
                    fx_buf_printf(c, " *)t_.p)[%u] = r%u;", i, I->a + i);
                }
            }
            fx_buf_puts(c, "\n");
            emit_release(c, G, F, I->d, at);
            fx_buf_printf(c, "    r%u = t_; o%u = 1; }\n", I->d, I->d);
            break;
        }
        case OP_CONCAT: { /* a new block; its elements are work, as value.c counts them */
            uint32_t sz = elem_size(G, T[I->d]);
            if (F->rev_src[at]) {
                emit_reversing_concat(c, G, F, at, F->rev_src[at] - 1, F->in_place[at]);
                break;
            }
            fx_buf_printf(c, "    { long long n_ = r%u.n + r%u.n; FxNatList t_ = {0, n_};\n"
                             "      FX_WORK(n_);\n", I->a, I->b);
            /* onto the left's own block when the frame owns it and its capacity
             * (fx_cap of its length) holds both: its elements stay as they are,
             * so a register that views them still does, and the block passes to
             * the result (a flip's `reverse(...) ++ rest`: no allocation) */
            if (I->a != I->b && !F->view[I->a])
                fx_buf_printf(c, "      if (o%u && r%u.n && fx_cap(n_) == fx_cap(r%u.n)) {"
                                 " t_.p = r%u.p; o%u = 0; if (r%u.n) memmove((char *)t_.p +"
                                 " r%u.n * %uLL, r%u.p, (unsigned long)(r%u.n * %uLL)); } else\n",
                              I->a, I->a, I->a, I->a, I->a, I->b, I->a, sz, I->b, I->b, sz);
            fx_buf_printf(c, "      if (n_) { t_.p = FX_NEW(fx_cap(n_) * %uLL);"
                             " if (!t_.p) goto out;\n"
                             "        if (r%u.n) memcpy(t_.p, r%u.p, (unsigned long)(r%u.n * %uLL));\n"
                             "        if (r%u.n) memcpy((char *)t_.p + r%u.n * %uLL, r%u.p,"
                             " (unsigned long)(r%u.n * %uLL)); }\n",
                          sz, I->a, I->a, I->a, sz, I->b, I->a, sz, I->b, I->b, sz);
            emit_release(c, G, F, I->d, at);
            fx_buf_printf(c, "    r%u = t_; o%u = 1; }\n", I->d, I->d);
            break;
        }
        case OP_MINMAX: /* the VM's: Ints compared, Floats by fmin/fmax(so far, next) */
            /* a fold's min of an inner fold's, which has none when its
             * filter held for nothing: the VM ignores that () */
            if (F->has[I->a] && I->a != I->d)
                fx_buf_printf(c, "    if (h%u) {\n", I->a);
            if (T[I->d] == T_INT)
                fx_buf_printf(c, "    if (!h%u || r%u %c r%u) r%u = r%u;\n", I->d, I->a,
                              I->c ? '>' : '<', I->d, I->d, I->a);
            else
                fx_buf_printf(c, "    r%u = h%u ? %s(r%u, r%u) : r%u;\n", I->d, I->d,
                              I->c ? "fx_fmax" : "fx_fmin", I->d, I->a, I->a);
            fx_buf_printf(c, "    h%u = 1;\n", I->d);
            if (F->has[I->a] && I->a != I->d)
                fx_buf_puts(c, "    }\n");
            break;
        case OP_NONEMPTY: /* the interpreter says it is empty */
            fx_buf_printf(c, "    if (!h%u) goto bail;\n", I->d);
            break;
        case OP_LEN:
            fx_buf_printf(c, "    r%u = r%u.n;\n", I->d, I->a);
            break;
        case OP_BUILTIN: case OP_BUILTINR: {
            uint32_t n = I->op == OP_BUILTIN ? I->c : I->tb;
            if (I->a == FX_BUILTIN_LEN) {
                const FxValue *v;
                fx_buf_printf(c, "    r%u = r%u.n;\n", I->d, fx_cgen_operand(I, 0, &v, f));
                break;
            }
            if (I->a == FX_BUILTIN_SLICE || I->a == FX_BUILTIN_SLICE_CLOSED ||
                I->a == FX_BUILTIN_REVERSE) {
                /* a new block, as the interpreter's slice or reverse makes a new list;
                 * a slice outside 0 <= a <= b <= len is the interpreter's error */
                const FxValue *v;
                uint32_t x = fx_cgen_operand(I, 0, &v, f), sz = elem_size(G, T[I->d]);
                bool rev = I->a == FX_BUILTIN_REVERSE;
                if (rev && F->rev_at[at]) { /* the `++` that reads it reverses (mark_reversals) */
                    fx_buf_printf(c, "    FX_WORK(r%u.n);\n    r%u = r%u;\n", x, I->d, x);
                    break;
                }
                if (rev) {
                    fx_buf_printf(c, "    { long long a_ = 0, b_ = r%u.n;\n", x);
                } else {
                    fx_buf_puts(c, "    { long long a_ = ");
                    emit_int_operand(c, F, I, 1);
                    fx_buf_puts(c, ", b_ = ");
                    emit_int_operand(c, F, I, 2);
                    fx_buf_puts(c, ";\n");
                    if (I->a == FX_BUILTIN_SLICE_CLOSED)
                        fx_buf_puts(c, "      if (b_ == 0x7fffffffffffffffLL) goto bail; b_++;\n");
                    fx_buf_printf(c, "      if (a_ < 0 || b_ < a_ || b_ > r%u.n) goto bail;\n", x);
                    if (F->view_at[at]) { /* read once, by what copies it (mark_views) */
                        fx_buf_printf(c, "      r%u.n = b_ - a_; r%u.p = r%u.n ? (char *)r%u.p +"
                                         " a_ * %uLL : 0; }\n", I->d, I->d, I->d, x, sz);
                        break;
                    }
                }
                fx_buf_printf(c, "      long long n_ = b_ - a_; FxNatList t_ = {0, n_};\n"
                                 "      FX_WORK(n_);\n"
                                 "      if (n_) { t_.p = FX_NEW(fx_cap(n_) * %uLL);"
                                 " if (!t_.p) goto out;\n", sz);
                if (rev)
                    fx_buf_printf(c, "        for (long long i_ = 0; i_ < n_; i_++)"
                                     " memcpy((char *)t_.p + i_ * %uLL, (const char *)r%u.p +"
                                     " (n_ - 1 - i_) * %uLL, %uUL); }\n", sz, x, sz, sz);
                else
                    fx_buf_printf(c, "        memcpy(t_.p, (const char *)r%u.p + a_ * %uLL,"
                                     " (unsigned long)(n_ * %uLL)); }\n", x, sz, sz);
                emit_release(c, G, F, I->d, at);
                fx_buf_printf(c, "    r%u = t_; o%u = 1; }\n", I->d, I->d);
                break;
            }
            if (I->a == FX_BUILTIN_MIN || I->a == FX_BUILTIN_MAX) { /* fx_math_pick's */
                bool larger = I->a == FX_BUILTIN_MAX;
                fx_buf_printf(c, "    { %s x_ = ", T[I->d] == T_INT ? "long long" : "double");
                emit_builtin_operand(c, F, I, 0);
                fx_buf_printf(c, ", y_ = ");
                emit_builtin_operand(c, F, I, 1);
                if (T[I->d] == T_INT) /* of two Ints: the first unless the second is past it */
                    fx_buf_printf(c, "; r%u = x_ %s y_ ? x_ : y_; }\n", I->d, larger ? ">=" : "<=");
                else
                    fx_buf_printf(c, "; r%u = %s(x_, y_); }\n", I->d, larger ? "fx_fmax" : "fx_fmin");
                break;
            }
            fx_buf_printf(c, "    r%u = %s(", I->d, math[I->a].c);
            for (uint32_t j = 0; j < n; j++) {
                fx_buf_puts(c, j ? ", " : "");
                emit_builtin_operand(c, F, I, j);
            }
            fx_buf_printf(c, ");\n");
            break;
        }
        case OP_INDEX: /* a record element is copied: a struct, no allocation */
            fx_buf_printf(c, "    if ((unsigned long long)r%u >= (unsigned long long)r%u.n) "
                             "goto bail;\n    r%u = ((const ", I->b, I->a, I->d);
            put_ctype(c, T[I->d]);
            fx_buf_printf(c, " *)r%u.p)[r%u];\n", I->a, I->b);
            break;
        default: /* type_func refused the rest */
            fx_buf_printf(c, "    goto bail;\n");
            break;
        }
        if (fx_cgen_writes((FxOpcode)I->op) && I->op != OP_MINMAX && I->d < f->n_regs && F->has[I->d]) {
            if (I->op == OP_MOVE && F->has[I->a]) /* a min or max moved, or its none */
                fx_buf_printf(c, "    h%u = h%u;\n", I->d, I->a);
            else
                fx_buf_printf(c, "    h%u = 1;\n", I->d);
        }
        if (fx_cgen_writes((FxOpcode)I->op) && I->op != OP_CONST && I->d < f->n_regs && F->wide[I->d])
            fx_buf_printf(c, "    z%u = 0;\n", I->d);
    }
    fx_buf_printf(c, "bail:\n    c->status = %d;\nout:\n", FX_NAT_BAIL);
    for (uint32_t b = 0; b < F->n_builders; b++)
        fx_buf_printf(c, "    if (b%u.p) FX_DROP(b%u.p, cap%u * %uLL);\n", b, b, b,
                      elem_size(G, list_of(F->elem[b])));
    emit_free_owned(c, G, F, f->n_code); /* any register, from wherever it stopped */
    fx_buf_puts(c, "    { ");
    put_ret(c, F->ret);
    fx_buf_printf(c, " z; __builtin_memset(&z, 0, sizeof(z)); z.fuel = -1; return z; }\n}\n\n");
    free(target);
}

/* What every module begins with: the ABI, and the overflow checks (GCC's
 * builtins where the compiler has them; tcc has not). */
static void emit_prelude(const Gen *G, FxBuf *c, bool plant)
{
    fx_buf_printf(c, "/* generated by flux (src/exec/cgen.c): do not edit */\n%s\n",
                  FX_STR(FX_NAT_ABI_DEFS));
    fx_buf_printf(c,
        "static double fx_f64(unsigned long long b) { union { unsigned long long u; double d; }"
        " x; x.u = b; return x.d; }\n"
        "#if defined(__GNUC__) && !defined(__TINYC__)\n"
        "#define FX_ADD_OV(a, b, r) __builtin_add_overflow(a, b, r)\n"
        "#define FX_SUB_OV(a, b, r) __builtin_sub_overflow(a, b, r)\n"
        "#define FX_MUL_OV(a, b, r) __builtin_mul_overflow(a, b, r)\n"
        "#define FX_LIKELY(x) __builtin_expect(!!(x), 1)\n"
        "#else\n"
        "static int fx_mul_ov(long long a, long long b, long long *r) {"
        " long long m = (-9223372036854775807LL - 1);"
        " if (a == 0 || b == 0) { *r = 0; return 0; }"
        " if ((a == -1 && b == m) || (b == -1 && a == m)) return 1;"
        " if (a > 0 ? (b > 0 ? a > 9223372036854775807LL / b : b < m / a)"
        " : (b > 0 ? a < m / b : a < 9223372036854775807LL / b)) return 1;"
        " *r = a * b; return 0; }\n"
        "/* in place, as tcc inlines no function; r may be a or b */\n"
        "#define FX_ADD_OV(a, b, r) ({ long long a_ = (a), b_ = (b), s_ = (long long)"
        "((unsigned long long)a_ + (unsigned long long)b_); *(r) = s_;"
        " ((a_ ^ s_) & (b_ ^ s_)) < 0; })\n"
        "#define FX_SUB_OV(a, b, r) ({ long long a_ = (a), b_ = (b), s_ = (long long)"
        "((unsigned long long)a_ - (unsigned long long)b_); *(r) = s_;"
        " ((a_ ^ b_) & (a_ ^ s_)) < 0; })\n"
        "#define FX_MUL_OV(a, b, r) fx_mul_ov(a, b, r)\n"
        "#define FX_LIKELY(x) (x)\n"
        "#endif\n"
        "/* the work of copying n elements, out of the fuel in place (rounded up to\n"
        " * steps), the meter asked only past the fuel or for a large copy */\n"
        "#define FX_WORK(n) do { long long u_ = (n), s_ = (u_ + %d) / %d;"
        " if (u_ < (1LL << 20) && s_ < fuel) fuel -= s_;"
        " else { fuel = c->work(c, u_, fuel); if (fuel <= 0) goto out; } } while (0)\n"
        "/* a block from the call's spares when the newest is of its size, else the VM's;\n"
        " * a block let go of kept as a spare (still charged to the meter) while there\n"
        " * is room: a loop that builds and drops a list each turn calls no one */\n"
        "#define FX_NEW(b) (c->n_spare && c->spare_bytes[c->n_spare - 1] == (b)"
        " ? c->spare[--c->n_spare] : c->grow(c, 0, 0, (b)))\n"
        "#define FX_DROP(q, b) do { void *q_ = (q); long long b_ = (b); if (!q_) break;"
        " if (c->n_spare < %d) { c->spare_bytes[c->n_spare] = b_; c->spare[c->n_spare++] = q_; }"
        " else c->grow(c, q_, b_, 0); } while (0)\n",
        FX_METER_UNITS_PER_STEP - 1, FX_METER_UNITS_PER_STEP, FX_NAT_SPARES);
    if (plant) /* the test's miscompile: a sum ending in binary 0111 is one too large */
        fx_buf_printf(c, "static int fx_planted(long long a, long long b, long long *r) {"
                         " int o = FX_ADD_OV(a, b, r); *r += (*r & 15) == 7; return o; }\n"
                         "#undef FX_ADD_OV\n#define FX_ADD_OV(a, b, r) fx_planted(a, b, r)\n");
    fx_buf_printf(c,
        "double sqrt(double); double exp(double); double log(double); double sin(double);\n"
        "double cos(double); double tan(double); double floor(double); double ceil(double);\n"
        "double round(double); double fabs(double); double pow(double, double);\n"
        "double atan2(double, double); double fmin(double, double); double fmax(double, double);\n"
        "/* libm's fmin/fmax, as the VM calls them: GCC's inline ones differ on -0.0 and 0.0 */\n"
        "static double (*volatile fx_fmin)(double, double) = fmin;\n"
        "static double (*volatile fx_fmax)(double, double) = fmax;\n"
        "/* and libm's, not GCC's: it makes pow(x, 2.0) x * x and folds sin(0.5) with MPFR,\n"
        " * each correctly rounded where libm's may be half an ulp off (sqrt, floor, ceil,\n"
        " * round and fabs are exact both ways) */\n"
        "static double (*volatile fx_pow)(double, double) = pow;\n"
        "static double (*volatile fx_atan2)(double, double) = atan2;\n"
        "static double (*volatile fx_exp)(double) = exp;\n"
        "static double (*volatile fx_log)(double) = log;\n"
        "static double (*volatile fx_sin)(double) = sin;\n"
        "static double (*volatile fx_cos)(double) = cos;\n"
        "static double (*volatile fx_tan)(double) = tan;\n"
        "void *memcpy(void *, const void *, unsigned long);\n"
        "void *memmove(void *, const void *, unsigned long);\n"
        "/* a list's block holds fx_cap(n) elements, as a builder doubles it from 16 */\n"
        "static long long fx_cap(long long n) { long long c = 16; if (!n) return 0;"
        " while (c < n) c *= 2; return c; }\n"
        "typedef struct { long long v; long long fuel; } FxRi;\n"
        "typedef struct { double v; long long fuel; } FxRf;\n"
        "typedef struct { FxNatList v; long long fuel; } FxRl;\n");
    for (uint32_t k = 0; k < G->n_recs; k++) { /* natrec.h: 8-byte slots in the type's order */
        const FxNatRec *r = &G->recs[k];
        fx_buf_printf(c, "typedef struct {");
        for (uint32_t i = 0; i < r->n; i++)
            fx_buf_printf(c, " %s f%u;", r->kind[i] == FX_TK_FLOAT ? "double" : "long long", i);
        fx_buf_printf(c, " } FxR%u; /* %s */\ntypedef struct { FxR%u v; long long fuel; } FxRr%u;\n",
                      k, r->name, k, k);
    }
    fx_buf_printf(c,
        "/* a step: a call or a loop's turn; the VM looks at its budgets when the fuel is out */\n"
        "#define FX_STEP() do { if (!FX_LIKELY(--fuel > 0) && (fuel = c->refuel(c)) <= 0) goto out; }"
        " while (0)\n\n");
}

/* The module's functions and then its kernels, by intent key: the numbers
 * its code calls them by, which the VM's tables must agree with. */
static void module_shape(FxFunc *const *mod, uint32_t n, FxFunc *const *kernels, uint32_t nk,
                         FxBuf *out)
{
    for (uint32_t k = 0; k < n; k++)
        fx_buf_printf(out, "%s%s", k ? " " : "", mod[k]->g->intent);
    fx_buf_puts(out, " |");
    for (uint32_t k = 0; k < nk; k++)
        fx_buf_printf(out, " %s", kernels[k]->g->intent);
}

static void emit_entry(Gen *G)
{
    const Func *F = &G->funcs[0];
    const FxGraph *g = F->f->g;
    static const char *const field[] = {"i", "i", "f", "i", "l", "l", "i"};
    fx_buf_printf(G->c, "int %s(struct FxNatCtx *c, const FxNatWord *a, FxNatWord *out)\n{\n",
                  FX_NAT_ENTRY);
    FxBuf shape = {0};
    FxFunc *mod[FX_NATIVE_MAX_FUNCS];
    for (uint32_t k = 0; k < G->n; k++)
        mod[k] = G->funcs[k].f;
    module_shape(mod, G->n, G->kernels, G->n_kernels, &shape);
    fx_buf_printf(G->c, "    if (!c) { out->l.p = (void *)\"%s\"; return 0; } /* its shape */\n    ",
                  fx_buf_str(&shape));
    fx_buf_free(&shape);
    put_ret(G->c, F->ret);
    fx_buf_printf(G->c, " r = f0(c, c->fuel");
    for (uint32_t i = 0; i < g->n_params; i++) {
        if (is_rec(F->reg[i])) /* natrec.h: a record comes as its slots */
            fx_buf_printf(G->c, ", *(const FxR%d *)a[%u].l.p", F->reg[i] - T_REC, i);
        else if (is_list(F->reg[i])) /* the VM's: lent, never given */
            fx_buf_printf(G->c, ", a[%u].l, 0", i);
        else
            fx_buf_printf(G->c, ", a[%u].%s", i, field[F->reg[i]]);
    }
    if (is_rec(F->ret)) /* into the slots the VM gave */
        fx_buf_printf(G->c, ");\n    *(FxR%d *)out->l.p = r.v;", F->ret - T_REC);
    else
        fx_buf_printf(G->c, ");\n    out->%s = r.v;", is_list(F->ret) ? "l" : field[F->ret]);
    fx_buf_printf(G->c, "\n    c->fuel = r.fuel;\n    return c->status;\n}\n");
}

/* Adds f to list[0..*n) unless there; false when full. */
static bool add_once(FxFunc **list, uint32_t *n, FxFunc *f)
{
    for (uint32_t i = 0; i < *n; i++)
        if (list[i] == f)
            return true;
    if (*n == FX_NATIVE_MAX_FUNCS)
        return false;
    list[(*n)++] = f;
    return true;
}

uint32_t fx_native_module(FxFunc *root, FxFunc **out, FxFunc **kernels, uint32_t *n_kernels)
{
    uint32_t n = 0;
    *n_kernels = 0;
    out[n++] = root;
    for (uint32_t k = 0; k < n; k++) {
        const FxFunc *f = out[k];
        for (uint32_t at = 0; at < f->n_code; at++) {
            if (f->code[at].op != OP_CALL)
                continue;
            FxFunc *callee = f->callees[f->code[at].a];
            bool kernel = fx_func_answers_calls(callee) && callee != root;
            if (!add_once(kernel ? kernels : out, kernel ? n_kernels : &n, callee))
                return 0;
        }
    }
    return n;
}

bool fx_native_shape_holds(FxFunc *root, FxNatEntry entry)
{
    FxFunc *mod[FX_NATIVE_MAX_FUNCS], *kernels[FX_NATIVE_MAX_FUNCS];
    uint32_t nk = 0, n = fx_native_module(root, mod, kernels, &nk);
    FxNatWord w = {0};
    if (!n || entry(NULL, NULL, &w) != 0 || !w.l.p)
        return false;
    FxBuf now = {0};
    module_shape(mod, n, kernels, nk, &now);
    bool same = !strcmp(fx_buf_str(&now), (const char *)w.l.p);
    fx_buf_free(&now);
    return same;
}

bool fx_native_signature(const FxProgram *prog, const FxGraph *g)
{
    Gen G = {.prog = prog};
    if (of_type(&G, g->ret_tid, g->ret_type) == T_BAD)
        return false;
    for (uint32_t i = 0; i < g->n_params; i++)
        if (of_type(&G, g->param_tids[i], g->param_types[i]) == T_BAD)
            return false;
    return true;
}

bool fx_native_source(FxRuntime *rt, const char *intent, FxBuf *c, FxBuf *why)
{
    Gen G = {.c = c, .why = why, .prog = fx_runtime_program(rt)};
    const char *plant = getenv("FLUX_NATIVE_PLANT");
    G.plant = plant && !strcmp(plant, "1");
    FxFunc *mod[FX_NATIVE_MAX_FUNCS];
    G.n = fx_native_module(fx_runtime_func(rt, intent), mod, G.kernels, &G.n_kernels);
    if (!G.n) {
        fx_buf_printf(why, "`%s` calls more than %d functions", intent, FX_NATIVE_MAX_FUNCS);
        return false;
    }
    for (uint32_t k = 0; k < G.n; k++)
        G.funcs[k].f = mod[k];
    bool ok = true;
    for (uint32_t k = 0; ok && k < G.n; k++)
        ok = type_func(&G, &G.funcs[k]);
    if (ok) {
        emit_prelude(&G, c, G.plant);
        for (uint32_t k = 0; k < G.n; k++) {
            emit_signature(&G, &G.funcs[k], k);
            fx_buf_printf(c, ";\n");
        }
        for (uint32_t k = 0; k < G.n; k++)
            emit_func(&G, &G.funcs[k], k);
        emit_entry(&G);
        if (getenv("FLUX_DUMP_NATIVE")) /* for people debugging the generator */
            fprintf(stderr, "%s", fx_buf_str(c));
    }
    for (uint32_t k = 0; k < G.n; k++) {
        free(G.funcs[k].reg);
        free(G.funcs[k].build);
        free(G.funcs[k].elem);
        free(G.funcs[k].has);
        free(G.funcs[k].wide);
        free(G.funcs[k].view);
        free(G.funcs[k].view_at);
        free(G.funcs[k].view_use);
        free(G.funcs[k].rev_at);
        free(G.funcs[k].rev_src);
        free(G.funcs[k].in_place);
        free(G.funcs[k].live);
        free(G.funcs[k].owns);
        free(G.funcs[k].map_src);
        free(G.funcs[k].map_end);
        free(G.funcs[k].map_at);
        free(G.funcs[k].map_guard);
        free(G.funcs[k].map_mask);
    }
    return ok;
}
