/*
 * interp_int.h: the bytecode shared by compile.c and vm.c. Private to
 * src/exec.
 *
 * Registers are frame-relative. A frame's first registers are the graph's
 * slots (parameters first, then binders), then temporaries. An instruction
 * names its destination d and operands a, b, c; `node` is the graph node it
 * computes, for counters, hooks and messages.
 */
#ifndef FX_INTERP_INT_H
#define FX_INTERP_INT_H

#include "interp.h"
#include "exec/native.h"
#include "lang/resolved.h"

/* ORDER FX_OP_ */
typedef enum {
    OP_CONST,   /* d = consts[a] */
    OP_UNIT,    /* d = () */
    OP_MOVE,    /* d = a */
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_IDIV, OP_MOD, OP_POW, OP_CONCAT, /* d = a op b */
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,                        /* d = a op b */
    OP_NEG, OP_NOT, /* d = op a */
    OP_INC,     /* d = d + 1 (integers) */
    OP_ADDK, OP_SUBK, /* d = a op b, b an immediate int32 */
    OP_CMPK,    /* d = a CMP b, b an immediate int32, c the comparison as a mask */
    OP_BRK,     /* unless (d CMP b), b an immediate: pc = a; c: the comparison mask */
    OP_BR,      /* unless (d CMP b), b a register: pc = a; c: the comparison mask */
    OP_JMP,     /* pc = a */
    OP_JMPF,    /* if !d: pc = a (c: 1 when a decision to report) */
    OP_JMPT,    /* if d: pc = a */
    OP_FORI,    /* if !(d < b): pc = a; one step */
    OP_FORL,    /* a loop's end: d = d + 1, then if d < b: pc = a (the body), else on;
                 * one step, and a count for the loop's header block c, as the
                 * jump back to its OP_FORI counted */
    OP_CALLP,   /* OP_CALL of a primality predicate (a sieved call): an argument >= 0 is
                 * answered from a sieve of a window around it */
    OP_CALL,    /* d = callees[a](regs b .. b+c) */
    OP_RET,     /* return a */
    OP_BUILTIN, /* d = builtin a (regs b .. b+c) */
    OP_BUILTINR,/* d = builtin a of tb (at most 3) operands, regs b, c, fb, where they are
                 * (no moves into consecutive registers); an operand with
                 * FX_CONST_OPERAND set is consts[operand] instead */
    OP_INDEX,   /* d = a[b] */
    OP_INDEX2,  /* d = a[b, c] */
    OP_FIELD,   /* d = a.consts[b] */
    OP_INDEXF,  /* d = a[b].consts[fb]: a list's element's field, the element not kept
                 * (tb: the INDEX node, for errors; c as OP_FIELD's) */
    OP_LIST,    /* d = [regs a .. a+b] */
    OP_RECORD,  /* d = {records[c]: regs a .. a+b} */
    OP_RANGE,   /* d = list a..b (c: inclusive) */
    OP_LEN,     /* d = len(a) */
    OP_MINMAX,  /* d = d or a, whichever is smaller (c = 0) or larger (c = 1); () ignored */
    OP_NONEMPTY,/* error if d is () */
    OP_BEGIN,   /* push a builder */
    OP_PUSH,    /* append a to the top builder */
    OP_EXTEND,  /* append every element of the list a to the top builder */
    OP_END,     /* d = the top builder as a list (popped) */
    OP_ENDM,    /* d = the top builder as an a x b matrix (popped) */
    OP_SORT,    /* d = a sorted (c bit 0: descending, bit 1: the kernels); b: keys or none */
    OP_GROUP,   /* d = the elements of a in groups of equal key (b: the keys), in order */
    OP_JOIN,    /* d = the positions in the list of keys a of the keys equal to b, ascending
                 * (a hash index of a, kept while a is) */
    OP_PRIMES,  /* d = the primes p with a <= p < b, a list (c = 1: how many) */
    OP_GEMM,    /* d = the matrix product a * b, by a kernel */
    OP_SELECT,  /* d = the elements x of list a with x.FIELD OP b, in a's order;
                 * c: OP (an FxNodeOp) | consts index of FIELD << 8 */
    OP_CHECKF,  /* a postcondition failed */
    OP_FAIL,    /* no equation covers the call with regs a .. a+b */
    OP_DATA,    /* d = the data source consts[a] */
    OP_CHOICE,  /* d = the index of the implementation chosen for the function (FxFunc.choice) */
    OP_COLUMN,  /* d = [x.FIELD for x in list a], FIELD = consts[b]: a table's column whole */
    OP_SPLIT,   /* a map split across ranks (exec/cluster.h; emitted only while a cluster
                 * runs): c = 0 before its loop: d = the job's token, b = the loop's end,
                 * lowered to this rank's slice of the list a; c = 1 after it: the other
                 * ranks' parts (token a) appended to the list d */
    OP__COUNT
} FxOpcode;

#define FX_NO_REG UINT32_MAX
#define FX_CONST_OPERAND (UINT32_C(1) << 31)

/* Execution counts are kept per basic block, counted where control moves
 * (function entry, jumps, branches), so straight-line code pays nothing:
 * block is the instruction's own block; a branch also names the blocks of
 * its target (tb) and of its fall-through (fb). A node's count is the count
 * of the block of the instruction that computes it. */
typedef struct FxInstr {
    uint8_t op;
    uint32_t d, a, b, c;
    uint32_t node;
    uint32_t block, tb, fb;
} FxInstr;

/* Builtins called by OP_BUILTIN, by number. ORDER FX_BUILTIN */
typedef enum {
    FX_BUILTIN_LEN, FX_BUILTIN_SUM, FX_BUILTIN_PRODUCT, FX_BUILTIN_MIN, FX_BUILTIN_MAX,
    FX_BUILTIN_COUNT, FX_BUILTIN_ROWS, FX_BUILTIN_COLS, FX_BUILTIN_CONTAINS,
    FX_BUILTIN_TO_MATRIX, FX_BUILTIN_TO_FLOAT_MATRIX, FX_BUILTIN_MEAN,
    /* strings (text.c); CHAR_AT is `s[i]`, SLICE `x[a..b]`, SLICE_CLOSED `x[a..=b]` */
    FX_BUILTIN_CHAR_AT, FX_BUILTIN_SLICE, FX_BUILTIN_SLICE_CLOSED, FX_BUILTIN_STR,
    FX_BUILTIN_INT, FX_BUILTIN_FLOAT, FX_BUILTIN_SPLIT, FX_BUILTIN_JOIN, FX_BUILTIN_CHARS,
    FX_BUILTIN_REVERSE, FX_BUILTIN_UPPER, FX_BUILTIN_LOWER, FX_BUILTIN_TRIM,
    FX_BUILTIN_STARTS_WITH, FX_BUILTIN_ENDS_WITH, FX_BUILTIN_FIND, FX_BUILTIN_REPLACE,
    /* numbers (mathfn.c): the unary Float functions first, in mathfn.c's order */
    FX_BUILTIN_SQRT, FX_BUILTIN_EXP, FX_BUILTIN_LOG, FX_BUILTIN_SIN, FX_BUILTIN_COS,
    FX_BUILTIN_TAN, FX_BUILTIN_FLOOR, FX_BUILTIN_CEIL, FX_BUILTIN_ROUND, FX_BUILTIN_POW,
    FX_BUILTIN_ATAN2, FX_BUILTIN_ABS, FX_BUILTIN_ISQRT, FX_BUILTIN_LOG2,
    FX_BUILTIN__COUNT
} FxBuiltin;

bool fx_builtin_lookup(const char *name, FxBuiltin *out);
/* Runs a builtin; false with a message on error. */
bool fx_builtin_call(FxBuiltin b, const FxValue *args, size_t n, FxValue *out, FxError *err);

/* The results of a memoized function, by argument tuple: open addressing,
 * a power-of-two capacity at most half full. Entries own their values. */
typedef struct FxMemoEntry {
    uint64_t hash;
    FxValue *args; /* NULL: an empty slot */
    FxValue value;
} FxMemoEntry;

typedef struct FxMemoTable {
    FxMemoEntry *slots;
    size_t cap, len;
} FxMemoTable;

void fx_memo_free(FxMemoTable *t, uint32_t n_args);
/* Adds the result v for arguments a[0..n) (both retained), charging the
 * meter for the entry and the table's growth; false (nothing added, the
 * run stopped by its memory budget) when the meter refuses. */
bool fx_memo_insert(FxMemoTable *t, const FxValue *a, uint32_t n, FxValue v) FX_MUST_CHECK;

/* A materialised result: kept for one recurring argument tuple while the
 * data sources are unchanged (epoch: the runtime's data epoch when kept). */
typedef struct FxKept {
    FxValue *args;
    FxValue value;
    bool has;
    bool from_store; /* value was read from the keeper (FxKeeper), not computed here */
    uint64_t epoch;
    uint64_t asked;  /* 1 + the data epoch the keeper was last asked at; 0: never */
} FxKept;

struct FxFunc {
    const FxGraph *g;
    struct FxLinRecSpec *rec; /* FX_KERNEL_RECURRENCE: the certificate, ready to run; else NULL */
    bool memo;           /* calls look in the table first: the graph's kernel is FX_KERNEL_MEMO,
                          * or the run switched it on (runaway protection) */
    FxMemoTable table;
    FxMemoTable hot;     /* the graph's hot-input table, looked up first; never grows */
    FxKept *kept;        /* the graph's materialised arguments, and their results */
    uint32_t n_kept;
    /* the data sources the function may read, itself or by its callees
     * (found when a kept result is first looked for); n_sources: 1 + their
     * number, 0: not looked for yet */
    const FxDataDecl **sources;
    uint32_t n_sources;
    bool memo_able;      /* a recursion whose arguments key a table */
    uint64_t watched;    /* calls since the last look for repeated work */
    uint64_t watch_more; /* calls beyond RUNAWAY_AFTER to wait: grows after each vain look */
    uint64_t *sample;    /* argument hashes of the look in progress: two tables */
    uint32_t sampled, sample_distinct; /* calls of the look; distinct of its first ones */
    uint32_t slice_seen, slice_distinct; /* its calls in one slice of the hashes */
    bool owns_graph;
    FxInstr *code;
    uint32_t n_code;
    FxValue *consts;
    uint32_t n_consts;
    uint32_t n_regs;
    FxFunc **callees; /* resolved when compiled */
    uint32_t n_callees;
    bool *natural_param; /* parameters that must not be negative */
    uint64_t natural_mask; /* bit i: parameter i is a Natural (at most 64 parameters) */
    const char *const **records; /* field names of each record an OP_RECORD builds */
    /* per instruction: the field name (a record's own pointer) an OP_FIELD
     * found last, so that the next record of the same type is checked by a
     * pointer comparison; read and written relaxed (threads share f) */
    const char **field_seen;
    /* the registers that may hold a heap value (all but those only ever
     * written with a Float or a Bool): what a return lets go of */
    uint32_t *heap_regs;
    uint32_t n_heap_regs;
    uint32_t n_records;
    uint32_t choice;        /* `result is one of`: the implementation chosen (runtime) */
    uint64_t *block_counts; /* executions of each basic block */
    uint64_t *node_ns;      /* time sampled at each node, by id; NULL until sampled (vm.c) */
    uint32_t n_node_ns;
    uint64_t sample_mark;   /* the last sample that gave it time (vm.c) */
    uint64_t profiled;      /* the stamp of the eval that kept its first call (vm.c) */
    uint32_t n_blocks;
    /* the native tier (native.h): its entry, which, and its module's
     * functions; native_asked: the provider was asked */
    FxNatEntry native;
    const char *native_tier;
    FxFunc **native_mod;
    uint32_t n_native_mod;
    FxFunc **native_kernels; /* the callees a kernel answers, by the module's numbers */
    uint32_t n_native_kernels;
    bool native_asked;
    bool native_none;        /* asked, and none: the VM's calls skip the tier at one byte */
    uint64_t native_gave_back; /* the run (FxRuntime evals) in which a call bailed */
    /* the devices (offload.h): the OpenCL plan of the function's graph, or
     * NULL with why (cl_why); cl_asked: planned */
    struct FxClPlan *cl;
    char *cl_why;
    bool cl_asked;
};

/* Does a kernel wrapped around f answer some of its calls (a hot-input
 * table, kept results, a recurrence, a memo table)? */
static inline bool fx_func_answers_calls(const FxFunc *f)
{
    return f->hot.len || f->n_kept || f->rec || f->memo;
}

/* Is the only kernel around f's calls a hot-input table? Native code may
 * run its other calls: the VM looks the table up first. */
static inline bool fx_func_only_hot(const FxFunc *f)
{
    return f->hot.len && !f->n_kept && !f->rec && !f->memo;
}

/* The native tier (native.h): the functions of the module rooted at root,
 * root first, then each callee in the order the code first calls it (the
 * order of the generated functions), except the callees a kernel answers,
 * which go to kernels (the numbers FxNatCtx.kernel takes); 0 when either
 * list would pass FX_NATIVE_MAX_FUNCS. */
#define FX_NATIVE_MAX_FUNCS 16
uint32_t fx_native_module(FxFunc *root, FxFunc **out, FxFunc **kernels, uint32_t *n_kernels);

/* Compiles g into f (allocated by the caller, zeroed). Callees are looked
 * up by name through rt. */
void fx_compile(FxRuntime *rt, const FxGraph *g, FxFunc *f);
void fx_func_free(FxFunc *f);

const FxProgram *fx_runtime_program(const FxRuntime *rt);

/* The function of an intent, lowered and compiled on first use. */
FxFunc *fx_runtime_func(FxRuntime *rt, const char *intent);

#endif
