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
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_int.h"
#include "native.h"

#define FX_STR2(...) #__VA_ARGS__
#define FX_STR(...) FX_STR2(__VA_ARGS__)

/* A register's C type. */
typedef enum { T_NONE, T_INT, T_FLOAT, T_BOOL, T_LISTI, T_LISTF, T_BAD } CType;

static const char *const c_type[] = {"long long", "long long", "double", "int",
                                     "FxNatList", "FxNatList", "?"};
/* What a function returns: its value and the fuel left (negative: it
 * stopped, c->status says how), in two registers for a scalar. */
static const char *const c_ret[] = {"FxRi", "FxRi", "FxRf", "FxRi", "FxRl", "FxRl", "?"};


typedef struct Func {
    FxFunc *f;
    CType *reg;      /* by register */
    uint32_t *build; /* by instruction: the builder a BEGIN/PUSH/END uses */
    CType *elem;     /* by builder: its elements' type */
    uint32_t n_builders;
    CType ret;
} Func;

typedef struct Gen {
    Func funcs[FX_NATIVE_MAX_FUNCS];
    uint32_t n;
    FxFunc *kernels[FX_NATIVE_MAX_FUNCS]; /* callees a kernel answers: called through the VM */
    uint32_t n_kernels;
    FxBuf *c, *why;
    bool plant;
} Gen;

static CType of_tid(FxTypeId t)
{
    switch (fx_typeid_kind(t)) {
    case FX_TK_NATURAL:
    case FX_TK_INT: return T_INT;
    case FX_TK_FLOAT: return T_FLOAT;
    case FX_TK_BOOL: return T_BOOL;
    case FX_TK_LIST: {
        CType e = of_tid(fx_typeid_elem(t));
        return e == T_INT ? T_LISTI : e == T_FLOAT ? T_LISTF : T_BAD;
    }
    default: return T_BAD;
    }
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
    [FX_BUILTIN_EXP] = {"exp", 1, false}, [FX_BUILTIN_LOG] = {"log", 1, false},
    [FX_BUILTIN_SIN] = {"sin", 1, false}, [FX_BUILTIN_COS] = {"cos", 1, false},
    [FX_BUILTIN_TAN] = {"tan", 1, false}, [FX_BUILTIN_FLOOR] = {"floor", 1, false},
    [FX_BUILTIN_CEIL] = {"ceil", 1, false}, [FX_BUILTIN_ROUND] = {"round", 1, false},
    [FX_BUILTIN_POW] = {"pow", 2, false}, [FX_BUILTIN_ATAN2] = {"atan2", 2, false},
    [FX_BUILTIN_ABS] = {"fabs", 1, true},
};

/* Operand k of a library call: its register, or a constant (OP_BUILTINR's
 * FX_CONST_OPERAND) as FX_NO_REG with *k_const set. */
static uint32_t builtin_operand(const FxInstr *I, uint32_t k, const FxValue **k_const,
                                const FxFunc *f)
{
    uint32_t x = I->op == OP_BUILTIN ? I->b + k : k == 0 ? I->b : k == 1 ? I->c : I->fb;
    *k_const = NULL;
    if (I->op == OP_BUILTINR && (x & FX_CONST_OPERAND)) {
        *k_const = &f->consts[x & ~FX_CONST_OPERAND];
        return FX_NO_REG;
    }
    return x;
}

static CType builtin_type(const Func *F, const FxInstr *I)
{
    uint32_t n = I->op == OP_BUILTIN ? I->c : I->tb;
    if (I->a >= FX_BUILTIN__COUNT || !math[I->a].c || math[I->a].n != n)
        return T_BAD;
    for (uint32_t k = 0; k < n; k++) {
        const FxValue *v;
        uint32_t x = builtin_operand(I, k, &v, F->f);
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
static CType result_type(const Func *F, const FxInstr *I, uint32_t at)
{
    const CType *r = F->reg;
    FxFunc *f = F->f;
    switch ((FxOpcode)I->op) {
    case OP_CONST: {
        FxValue v = f->consts[I->a];
        return v.kind == FX_VAL_INT ? T_INT : v.kind == FX_VAL_FLOAT ? T_FLOAT
               : v.kind == FX_VAL_BOOL ? T_BOOL : T_BAD;
    }
    case OP_MOVE: return r[I->a] == T_LISTI || r[I->a] == T_LISTF ? T_BAD : r[I->a];
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
        CType t = of_tid(callee->g->ret_tid);
        return t == T_LISTI || t == T_LISTF ? T_BAD : t; /* a list's owner would be unclear */
    }
    case OP_END: {
        CType e = F->elem[F->build[at]];
        return e == T_INT ? T_LISTI : e == T_FLOAT ? T_LISTF : e == T_NONE ? T_NONE : T_BAD;
    }
    case OP_BUILTIN: case OP_BUILTINR: return builtin_type(F, I);
    case OP_LEN: return r[I->a] == T_LISTI || r[I->a] == T_LISTF || r[I->a] == T_NONE ? T_INT
                                                                                       : T_BAD;
    case OP_INDEX:
        if (r[I->a] == T_NONE || r[I->b] == T_NONE)
            return T_NONE;
        if (r[I->b] != T_INT)
            return T_BAD;
        return r[I->a] == T_LISTI ? T_INT : r[I->a] == T_LISTF ? T_FLOAT : T_BAD;
    default: return T_BAD;
    }
}

/* Does the op write d (and so have a result_type)? */
static bool writes_d(FxOpcode op)
{
    switch (op) {
    case OP_CONST: case OP_MOVE: case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_IDIV: case OP_MOD: case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT:
    case OP_GE: case OP_NEG: case OP_NOT: case OP_ADDK: case OP_SUBK: case OP_CMPK:
    case OP_CALL: case OP_END: case OP_LEN: case OP_INDEX: case OP_BUILTIN: case OP_BUILTINR:
        return true;
    default:
        return false;
    }
}

static const char *const op_names[OP__COUNT] = {
    [OP_POW] = "power", [OP_CONCAT] = "concatenation", [OP_CALLP] = "a sieved call",
    [OP_INDEX2] = "a matrix index", [OP_FIELD] = "a record field", [OP_INDEXF] = "a field",
    [OP_LIST] = "a list literal", [OP_RECORD] = "a record", [OP_RANGE] = "a range as a list",
    [OP_MINMAX] = "min or max", [OP_NONEMPTY] = "min or max", [OP_EXTEND] = "a nested list",
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

/* Is register r written by a list builder's end (OP_END), and by nothing
 * else? (A list returned must be a block the native code made.) */
static bool built_here(const FxFunc *f, uint32_t r)
{
    bool built = false;
    if (r < f->g->n_params)
        return false;
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (writes_d((FxOpcode)I->op) && I->d == r) {
            if (I->op != OP_END)
                return false;
            built = true;
        }
    }
    return built;
}

/* Types every register of F; false (G->why says why) when one cannot be. */
static bool type_func(Gen *G, Func *F)
{
    FxFunc *f = F->f;
    const FxGraph *g = f->g;
    if (fx_func_answers_calls(f))
        return refuse(G, F, "runs a kernel around its calls (a table or a recurrence)");
    F->reg = fx_xcalloc(f->n_regs ? f->n_regs : 1, sizeof(CType));
    F->build = fx_xcalloc(f->n_code ? f->n_code : 1, sizeof(uint32_t));
    F->elem = fx_xcalloc(f->n_code ? f->n_code : 1, sizeof(CType));
    F->ret = of_tid(g->ret_tid);
    if (F->ret == T_BAD)
        return refuse(G, F, "returns a type native code does not hold");
    for (uint32_t i = 0; i < g->n_params; i++) {
        F->reg[i] = of_tid(g->param_tids[i]);
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
        for (uint32_t at = 0; at < f->n_code; at++) {
            const FxInstr *I = &f->code[at];
            if (I->op == OP_PUSH && !join(&F->elem[F->build[at]], F->reg[I->a], &changed))
                return refuse(G, F, "builds a list of mixed elements");
            if (!writes_d(I->op))
                continue;
            CType t = result_type(F, I, at);
            if (t == T_BAD) {
                fx_buf_printf(G->why, "`%s` has an instruction (%u) native code does not "
                              "translate for its operands' types", g->intent, at);
                return false;
            }
            if (!join(&F->reg[I->d], t, &changed))
                return refuse(G, F, "holds values of two types in one register");
        }
    }
    /* what the emitter takes as given */
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        CType t = F->reg[I->d < f->n_regs ? I->d : 0];
        switch ((FxOpcode)I->op) {
        case OP_RET:
            if (F->reg[I->a] != F->ret)
                return refuse(G, F, "returns a value of another type than it declares");
            if ((F->ret == T_LISTI || F->ret == T_LISTF) && !built_here(f, I->a))
                return refuse(G, F, "returns a list it did not build (its argument's, say)");
            break;
        case OP_PUSH:
            if (F->elem[F->build[at]] != T_INT && F->elem[F->build[at]] != T_FLOAT)
                return refuse(G, F, "builds a list of values native code does not hold");
            break;
        case OP_END:
            /* a list built here is only returned: its block goes to the VM */
            if (at + 1 >= f->n_code || f->code[at + 1].op != OP_RET ||
                f->code[at + 1].a != I->d || F->f != G->funcs[0].f)
                return refuse(G, F, "uses a list it builds other than by returning it");
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
                if (F->reg[I->b + i] == T_LISTI || F->reg[I->b + i] == T_LISTF)
                    return refuse(G, F, "passes a list to a kernel");
            for (uint32_t i = 0; i < I->c; i++) {
                FxFunc *callee = f->callees[I->a];
                if (F->reg[I->b + i] != of_tid(callee->g->param_tids[i]))
                    return refuse(G, F, "passes an argument of another type than the callee "
                                        "declares");
            }
            break;
        default:
            break;
        }
    }
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

static void emit_branch(FxBuf *c, const FxInstr *I, const char *cond)
{
    fx_buf_printf(c, "    if (!(%s)) goto L%u;\n", cond, I->a);
}

static void emit_signature(Gen *G, const Func *F, uint32_t k)
{
    const FxGraph *g = F->f->g;
    fx_buf_printf(G->c, "static %s f%u(struct FxNatCtx *c, long long fuel", c_ret[F->ret], k);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(G->c, ", %s p%u", c_type[F->reg[i]], i);
    fx_buf_printf(G->c, ")");
}

/* The call that "tail recursion modulo an associative operation" turns
 * into a loop, or UINT32_MAX: a call of the function itself whose result
 * only an integer addition (or multiplication) with a value known before
 * it reads, whose result is returned (`f(n-1) + f(n-2)`, `n * f(n-1)`).
 * The sum is then built in another order (acc), each partial sum checked:
 * exact when no partial sum overflows, and a bail when one does, so the
 * native code returns the exact value or none. The last such call is the
 * one taken (the operand computed before it: the other call's result). */
static uint32_t accumulated_call(const Func *F)
{
    const FxFunc *f = F->f;
    uint32_t found = UINT32_MAX;
    bool *target = fx_xcalloc(f->n_code + 1, sizeof(bool)); /* the J and K below are reached */
    for (uint32_t at = 0; at < f->n_code; at++) {           /* from the call alone */
        switch ((FxOpcode)f->code[at].op) {
        case OP_BRK: case OP_BR: case OP_JMP: case OP_JMPF: case OP_JMPT: case OP_FORI:
        case OP_FORL:
            target[f->code[at].a] = true;
            break;
        default:
            break;
        }
    }
    for (uint32_t at = 0; at + 2 < f->n_code; at++) {
        const FxInstr *I = &f->code[at], *J = &f->code[at + 1], *K = &f->code[at + 2];
        if (I->op != OP_CALL || f->callees[I->a] != f || (J->op != OP_ADD && J->op != OP_MUL) ||
            F->reg[J->d] != T_INT || (J->a == I->d) == (J->b == I->d) || K->op != OP_RET ||
            K->a != J->d || target[at + 1] || target[at + 2])
            continue;
        if (found != UINT32_MAX && f->code[found + 1].op != J->op) {
            free(target);
            return UINT32_MAX; /* a sum here, a product there: neither */
        }
        bool read_elsewhere = false; /* the call's result, read by J alone */
        for (uint32_t k = 0; k < f->n_code; k++) {
            const FxInstr *X = &f->code[k];
            if (k != at + 1 && X->op != OP_CONST && X->op != OP_UNIT &&
                (X->a == I->d || X->b == I->d || (X->op == OP_BR && X->d == I->d) ||
                 ((X->op == OP_JMPF || X->op == OP_JMPT || X->op == OP_BRK) && X->d == I->d)))
                read_elsewhere = true;
        }
        if (!read_elsewhere)
            found = at;
    }
    free(target);
    return found;
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
    fx_buf_printf(c, "/* %s %s */\n", g->intent, g->version);
    emit_signature(G, F, k);
    fx_buf_printf(c, "\n{\n");
    uint32_t acc_at = accumulated_call(F);
    FxOpcode acc_op = acc_at == UINT32_MAX ? OP_ADD : (FxOpcode)f->code[acc_at + 1].op;
    if (acc_at != UINT32_MAX)
        fx_buf_printf(c, "    long long acc = %d; /* the %s of the calls turned into a loop */\n"
                         "    int ovf = 0; /* it overflowed: the return bails (acc is read there "
                         "only) */\n", acc_op == OP_ADD ? 0 : 1, acc_op == OP_ADD ? "sum" : "product");
    for (uint32_t r = 0; r < f->n_regs; r++)
        if (F->reg[r] != T_NONE)
            fx_buf_printf(c, "    %s r%u%s;\n", c_type[F->reg[r]], r,
                          F->reg[r] == T_LISTI || F->reg[r] == T_LISTF ? " = {0, 0}" : " = 0");
        else // written by nothing: a failure's value (no equation covers the call), read
             // only after the jump to bail, where control never goes; C must still see it
            fx_buf_printf(c, "    long long r%u = 0;\n", r);
    for (uint32_t b = 0; b < F->n_builders; b++)
        fx_buf_printf(c, "    FxNatList b%u = {0, 0}; long long cap%u = 0;\n", b, b);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(c, "    r%u = p%u;\n", i, i);
    fx_buf_printf(c, "top:\n");
    for (uint32_t i = 0; i < g->n_params; i++)
        if (f->natural_mask & (UINT64_C(1) << i))
            fx_buf_printf(c, "    if (r%u < 0) goto bail; /* a Natural */\n", i);
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        const CType *T = F->reg;
        if (target[at])
            fx_buf_printf(c, "L%u:\n", at);
        switch ((FxOpcode)I->op) {
        case OP_CONST: {
            FxValue v = f->consts[I->a];
            fx_buf_printf(c, "    r%u = ", I->d);
            if (v.kind == FX_VAL_INT)
                emit_int(c, v.u.i);
            else if (v.kind == FX_VAL_FLOAT)
                emit_float(c, v.u.f);
            else
                fx_buf_printf(c, "%d", v.u.b ? 1 : 0);
            fx_buf_printf(c, ";\n");
            break;
        }
        case OP_UNIT:
            break;
        case OP_MOVE:
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
        case OP_IDIV: case OP_MOD: /* floor division by a positive divisor, as the VM's */
            fx_buf_printf(c, "    if (r%u <= 0) goto bail;\n"
                             "    { long long q = r%u / r%u, m = r%u %% r%u;"
                             " if (m < 0) { q--; m += r%u; } r%u = %s; }\n",
                          I->b, I->a, I->b, I->a, I->b, I->b, I->d,
                          I->op == OP_IDIV ? "q" : "m");
            break;
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
                fx_buf_printf(c, "    {");
                for (uint32_t i = 0; i < I->c; i++)
                    fx_buf_printf(c, " %s t%u = r%u;", c_type[T[I->b + i]], i, I->b + i);
                for (uint32_t i = 0; i < I->c; i++)
                    fx_buf_printf(c, " r%u = t%u;", i, i);
                fx_buf_printf(c, " }\n    goto top;\n");
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
            fx_buf_printf(c, "    { %s t = f%u(c, fuel", c_ret[T[I->d]], k2);
            for (uint32_t i = 0; i < I->c; i++)
                fx_buf_printf(c, ", r%u", I->b + i);
            fx_buf_printf(c, "); fuel = t.fuel; if (fuel < 0) goto out; r%u = t.v; }\n", I->d);
            break;
        }
        case OP_RET:
            if (acc_at != UINT32_MAX && at != acc_at + 2)
                fx_buf_printf(c, "    ovf |= FX_%s_OV(acc, r%u, &r%u);\n    if (ovf) goto bail;\n",
                              arith(acc_op), I->a, I->a);
            if (acc_at == UINT32_MAX || at != acc_at + 2) /* that one is not reached */
                fx_buf_printf(c, "    { %s t; t.v = r%u; t.fuel = fuel; return t; }\n",
                              c_ret[F->ret], I->a);
            break;
        case OP_FAIL: case OP_CHECKF: /* the interpreter says what failed */
            fx_buf_printf(c, "    goto bail;\n");
            break;
        case OP_BEGIN:
            fx_buf_printf(c, "    b%u.n = 0;\n", F->build[at]);
            break;
        case OP_PUSH: {
            uint32_t b = F->build[at];
            const char *et = F->elem[b] == T_INT ? "long long" : "double";
            fx_buf_printf(c, "    if (b%u.n == cap%u) { long long nc = cap%u ? 2 * cap%u : 16;"
                             " void *q = c->grow(c, b%u.p, cap%u * 8, nc * 8);"
                             " if (!q) goto out; b%u.p = q; cap%u = nc; }\n"
                             "    ((%s *)b%u.p)[b%u.n++] = r%u;\n",
                          b, b, b, b, b, b, b, b, et, b, b, I->a);
            break;
        }
        case OP_END: /* returned next: the block is the VM's from here */
            fx_buf_printf(c, "    r%u = b%u; b%u.p = 0;\n", I->d, F->build[at], F->build[at]);
            break;
        case OP_LEN:
            fx_buf_printf(c, "    r%u = r%u.n;\n", I->d, I->a);
            break;
        case OP_BUILTIN: case OP_BUILTINR: {
            uint32_t n = I->op == OP_BUILTIN ? I->c : I->tb;
            fx_buf_printf(c, "    r%u = %s(", I->d, math[I->a].c);
            for (uint32_t j = 0; j < n; j++) {
                const FxValue *v;
                uint32_t x = builtin_operand(I, j, &v, f);
                fx_buf_puts(c, j ? ", " : "");
                if (v && v->kind == FX_VAL_INT)
                    fx_buf_printf(c, "(double)%" PRId64 "LL", v->u.i);
                else if (v)
                    emit_float(c, v->u.f);
                else
                    as_double(c, F, x);
            }
            fx_buf_printf(c, ");\n");
            break;
        }
        case OP_INDEX:
            fx_buf_printf(c, "    if ((unsigned long long)r%u >= (unsigned long long)r%u.n) "
                             "goto bail;\n    r%u = ((const %s *)r%u.p)[r%u];\n",
                          I->b, I->a, I->d, T[I->d] == T_INT ? "long long" : "double", I->a,
                          I->b);
            break;
        default: /* type_func refused the rest */
            fx_buf_printf(c, "    goto bail;\n");
            break;
        }
    }
    fx_buf_printf(c, "bail:\n    c->status = %d;\nout:\n", FX_NAT_BAIL);
    for (uint32_t b = 0; b < F->n_builders; b++)
        fx_buf_printf(c, "    if (b%u.p) c->grow(c, b%u.p, cap%u * 8, 0);\n", b, b, b);
    fx_buf_printf(c, "    { %s z; __builtin_memset(&z, 0, sizeof(z)); z.fuel = -1; return z; }\n"
                     "}\n\n", c_ret[F->ret]);
    free(target);
}

/* What every module begins with: the ABI, and the overflow checks (GCC's
 * builtins where the compiler has them; tcc has not). */
static void emit_prelude(FxBuf *c, bool plant)
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
        "#endif\n");
    if (plant) /* the test's miscompile: a sum ending in binary 0111 is one too large */
        fx_buf_printf(c, "static int fx_planted(long long a, long long b, long long *r) {"
                         " int o = FX_ADD_OV(a, b, r); *r += (*r & 15) == 7; return o; }\n"
                         "#undef FX_ADD_OV\n#define FX_ADD_OV(a, b, r) fx_planted(a, b, r)\n");
    fx_buf_printf(c,
        "double sqrt(double); double exp(double); double log(double); double sin(double);\n"
        "double cos(double); double tan(double); double floor(double); double ceil(double);\n"
        "double round(double); double fabs(double); double pow(double, double);\n"
        "double atan2(double, double);\n"
        "typedef struct { long long v; long long fuel; } FxRi;\n"
        "typedef struct { double v; long long fuel; } FxRf;\n"
        "typedef struct { FxNatList v; long long fuel; } FxRl;\n"
        "/* a step: a call or a loop's turn; the VM looks at its budgets when the fuel is out */\n"
        "#define FX_STEP() do { if (!FX_LIKELY(--fuel > 0) && (fuel = c->refuel(c)) <= 0) goto out; }"
        " while (0)\n\n");
}

static void emit_entry(Gen *G)
{
    const Func *F = &G->funcs[0];
    const FxGraph *g = F->f->g;
    static const char *const field[] = {"i", "i", "f", "i", "l", "l", "i"};
    fx_buf_printf(G->c, "int %s(struct FxNatCtx *c, const FxNatWord *a, FxNatWord *out)\n{\n"
                        "    %s r = f0(c, c->fuel", FX_NAT_ENTRY, c_ret[F->ret]);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(G->c, ", a[%u].%s", i, field[F->reg[i]]);
    fx_buf_printf(G->c, ");\n    out->%s = r.v;\n    c->fuel = r.fuel;\n    return c->status;\n}\n",
                  field[F->ret]);
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

bool fx_native_source(FxRuntime *rt, const char *intent, FxBuf *c, FxBuf *why)
{
    Gen G = {.c = c, .why = why};
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
        emit_prelude(c, G.plant);
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
    }
    return ok;
}
