/*
 * graph.h: execution graphs, the intermediate form every version of an
 * intent is made of, and what optimization rewrites.
 *
 * A graph is an array of nodes; a node is an operation, the type of its
 * value, its inputs (earlier nodes), a few attributes, and its origin (the
 * source span of the constraint it came from, or the rewrite that made it).
 * Structured control is expressed by the operations themselves: some
 * inputs are *lazy* (evaluated only when the operation asks, possibly many
 * times), and some operations *bind* a slot that nodes inside their lazy
 * inputs read with VAR. The table in graph.c says which inputs are lazy.
 *
 * Invariants (checked by fx_graph_verify):
 *   - a node's inputs have smaller ids (the array is in dependency order);
 *   - a VAR reads a slot bound by an operation it is inside, or a parameter
 *     slot (< n_params);
 *   - a node on a kernel is of the op the kernel runs, and what its shape
 *     bound are nodes before it;
 *   - once fx_graph_freeze has run the graph is never changed again: a
 *     rewrite builds a new graph (a new version).
 */
#ifndef FX_GRAPH_H
#define FX_GRAPH_H

#include <stdio.h>

#include "base/arena.h"
#include "base/buf.h"
#include "graph/kernel.h"
#include "graph/typeid.h"

typedef struct {
    uint32_t v; /* index + 1; 0 is "no node" */
} FxNodeId;

/* ORDER FX_NODE: keep in sync with op_info[] in graph.c */
typedef enum {
    FX_NODE_CONST,   /* text: literal; type says Int/Float/String/Bool */
    FX_NODE_PARAM,   /* num: parameter index */
    FX_NODE_VAR,     /* num: slot */
    FX_NODE_NEG,
    FX_NODE_NOT,
    FX_NODE_ADD,
    FX_NODE_SUB,
    FX_NODE_MUL,
    FX_NODE_DIV,     /* `/` on floats */
    FX_NODE_IDIV,    /* floor */
    FX_NODE_MOD,     /* floor */
    FX_NODE_POW,
    FX_NODE_CONCAT,
    FX_NODE_EQ,
    FX_NODE_NE,
    FX_NODE_LT,
    FX_NODE_LE,
    FX_NODE_GT,
    FX_NODE_GE,
    FX_NODE_AND,     /* a, lazy b */
    FX_NODE_OR,      /* a, lazy b */
    FX_NODE_IF,      /* cond, lazy then, lazy else */
    FX_NODE_CALL,    /* text: callee intent; inputs: arguments */
    FX_NODE_BUILTIN, /* text: len sum product min max count rows cols */
    FX_NODE_INDEX,   /* base, index... */
    FX_NODE_FIELD,   /* text: field name */
    FX_NODE_LIST,
    FX_NODE_RECORD,  /* text: field names, comma separated */
    FX_NODE_RANGE,   /* lo, hi; num: 1 when inclusive */
    FX_NODE_FOLD,    /* num: FxFoldKind; num2: slot; domain, lazy filter (or none), lazy body;
                      * kernel: none, FX_KERNEL_SIEVE (over the primes of its range domain,
                      * listed or counted by a sieve kernel) or FX_KERNEL_INDEX (over the
                      * elements its selection filter keeps, found by a query kernel) */
    FX_NODE_MAP,     /* num: slot i; num2: slot j or -1; rows, cols (or none), lazy body;
                      * kernel: none, or FX_KERNEL_GEMM (a matrix product) */
    FX_NODE_SORT,    /* num: 1 descending; num2: key slot or -1; list, lazy key (or none);
                      * kernel: none (v1's bubble sort) or FX_KERNEL_SORT (one per call) */
    FX_NODE_CHECK,   /* num2: slot of the value; text: what is checked; value, lazy cond */
    FX_NODE_FAIL,    /* inputs: the arguments; num 0: no equation covers the call (text: the
                      * intent), num 1: the arguments are invalid (text: why) */
    FX_NODE_DATA,    /* text: data source name */
    FX_NODE_GROUP,   /* num2: slot; list, lazy key: the elements of list in groups of equal
                      * key (the key evaluated with the slot bound to each element), the groups
                      * in the order of their first elements, each in list's order */
    FX_NODE_LET,     /* num2: slot; value, lazy body: body with the slot bound to value */
    FX_NODE_CHOOSE,  /* lazy inputs: implementations of the intent (`result is one of`); the
                      * one the runtime chose for it runs (the first until one is chosen) */
    FX_NODE__COUNT
} FxNodeOp;

/* ORDER FX_FOLD */
typedef enum {
    FX_FOLD_SUM,
    FX_FOLD_PRODUCT,
    FX_FOLD_MIN,
    FX_FOLD_MAX,
    FX_FOLD_COUNT,
    FX_FOLD_ALL,
    FX_FOLD_ANY,
    FX_FOLD_COLLECT, /* the list of bodies whose filter holds */
    /* the outer generators of an aggregate of several (`for i in A for j in B`),
     * whose bodies are the inner folds: */
    FX_FOLD_MIN_PART, /* the least body that is not empty (unit), or unit */
    FX_FOLD_MAX_PART, /* the greatest likewise */
    FX_FOLD_CONCAT,   /* the concatenation of the bodies, each a list */
} FxFoldKind;

/* The certificate of a linear recurrence with constant coefficients:
 * f(n) = c_1 f(n-1) + ... + c_k f(n-k) for n >= k, and f(i) = initial[i]
 * for i < k. It is what the recurrence kernel computes and what its
 * proof (fx_prove_linear_recurrence) checked against the equations. */
#define FX_RECURRENCE_MAX_ORDER 8
typedef struct FxRecurrence {
    uint32_t order;
    int64_t coeffs[FX_RECURRENCE_MAX_ORDER];
    const char *initial[FX_RECURRENCE_MAX_ORDER]; /* decimal, arena strings */
} FxRecurrence;

/* The algorithms a recurrence kernel holds, one per bit: the cost model
 * picks one per call among those the version holds. */
enum {
    FX_VARIANT_LOOP = 1,  /* O(n) steps over the last k values */
    FX_VARIANT_POWER = 2, /* O(log n): the companion matrix's power */
};

/* Where a node came from: a source span, or a rewrite's name. */
typedef struct FxOrigin {
    const char *file; /* NULL when none */
    uint32_t line, col, len;
    const char *rewrite; /* NULL for nodes made by lowering */
} FxOrigin;

typedef struct FxNode {
    FxNodeOp op;
    const char *type; /* "Natural", "List[Int]", ...; arena string */
    FxTypeId tid;     /* the type as decisions read it (typeid.h) */
    uint32_t n_inputs;
    FxNodeId *inputs;
    const char *text; /* see the op */
    int64_t num, num2;
    FxOrigin origin;
    /* the kernel that runs the node, and the nodes its shape bound (kernel.h) */
    FxKernelId kernel;
    FxNodeId kargs[FX_KERNEL_MAX_ARGS];
} FxNode;

typedef struct FxGraph {
    FxArena arena;
    const char *intent;
    const char *version; /* "v1", ... */
    uint32_t n_params;
    const char **param_names;
    const char **param_types;
    FxTypeId *param_tids;
    const char *ret_type; /* set with fx_graph_set_ret_type */
    FxTypeId ret_tid;
    uint32_t n_slots; /* parameters first, then binders */
    FxNode *nodes;
    uint32_t n_nodes, cap_nodes;
    FxNodeId root;
    /* a kernel wrapped around the whole function: FX_KERNEL_MEMO (results
     * kept by argument, for a pure function with repeated sub-calls),
     * FX_KERNEL_RECURRENCE (a linear recurrence computed by the variants
     * below, the nodes kept as its definition), or FX_KERNEL_NONE */
    FxKernelId kernel;
    FxRecurrence rec;  /* FX_KERNEL_RECURRENCE */
    uint32_t variants; /* FX_KERNEL_RECURRENCE: FX_VARIANT_* bits */
    /* the hot-input table: results kept for arguments that recur, looked up
     * before anything else runs; n_table rows of n_params argument texts
     * then the result's text (integers, true, false), arena strings */
    uint32_t n_table;
    const char **table;
    /* materialised results: for these n_materialised rows of n_params
     * argument texts (arguments that recur, of a function that reads a data
     * source), the runtime keeps the result it computes while the sources
     * it read are unchanged; arena strings */
    uint32_t n_materialised;
    const char **materialised;
    /* the intent's `tolerance(EPS)`, or 0: floating-point sums may be
     * reordered when each element stays within EPS times the magnitude of
     * its terms (docs/language.md §6) */
    double tolerance;
    bool frozen;
} FxGraph;

/* Returns a new, empty graph; caller frees with fx_graph_free(). */
FxGraph *fx_graph_new(const char *intent, const char *version);
void fx_graph_free(FxGraph *g);

void fx_graph_add_param(FxGraph *g, const char *name, const char *type);
void fx_graph_set_ret_type(FxGraph *g, const char *type);
/* Do two nodes (of any graphs) have the same type, record names included? */
bool fx_graph_same_type(const FxNode *a, const FxNode *b);
/* A fresh binder slot. */
uint32_t fx_graph_new_slot(FxGraph *g);

/* Appends a node; inputs are copied. Returns its id. */
FxNodeId fx_graph_add(FxGraph *g, FxNodeOp op, const char *type, const FxNodeId *inputs,
                      uint32_t n_inputs, FxOrigin origin);
static inline FxNode *fx_graph_node(const FxGraph *g, FxNodeId id)
{
    return &g->nodes[id.v - 1];
}
/* A string owned by the graph. */
const char *fx_graph_intern(FxGraph *g, const char *s);

void fx_graph_freeze(FxGraph *g);

/* Do the subgraphs under a (in ga) and b (in gb) compute the same thing
 * the same way: same ops, types, attributes and inputs, origins aside? */
bool fx_graph_same_shape(const FxGraph *ga, FxNodeId a, const FxGraph *gb, FxNodeId b);

/* Are a and b the same graph, node for node, origins aside (a store's v1
 * against the graph lowered from the source now)? Linear in the nodes. */
bool fx_graph_same_graph(const FxGraph *a, const FxGraph *b);

/* Does g call its own intent? */
bool fx_graph_calls_itself(const FxGraph *g);
/* Can g's arguments key a table of results: is every parameter a number,
 * boolean or string (values that hash and compare exactly)? */
bool fx_graph_args_key_a_table(const FxGraph *g);
/* The same, lists of such values allowed too (*lists says whether one is
 * a list): a list keys a table exactly, but hashing it costs its length at
 * each call, so a table keyed by one must be measured to pay. */
bool fx_graph_args_key_a_table_by_value(const FxGraph *g, bool *lists);

/* The filter `filter` of g without the conjunct `conj`: when filter is
 * conj itself, *rest = {0} (nothing remains); when it is `x and conj` or
 * `conj and x`, *rest = x; when conj is deeper in a chain of `and`s
 * (`a and conj and b`), *rest = filter, conj included (the graph has no
 * node for the chain without it). False for any other shape. */
bool fx_graph_conjunct_rest(const FxGraph *g, FxNodeId filter, FxNodeId conj, FxNodeId *rest);

/* Is the node at `map` the element-wise product of two matrices:
 * map [i, j] over rows(X), cols(Y) of sum(X[i,k] * Y[k,j] for k in
 * 0..cols(X)), X and Y the same subgraph at each use? Sets *a and *b to
 * X and Y's nodes (in the map's row count and column count), *fold to
 * the sum. */
bool fx_graph_matmul_shape(const FxGraph *g, FxNodeId map, FxNodeId *a, FxNodeId *b,
                           FxNodeId *fold);

/* Is the fold at `fold` a selection: its filter is `v.FIELD OP e` with v
 * the fold's variable, OP one of < <= > >= =, e not reading v, and the
 * field an Int, Natural or String? Sets *cmp to the comparison, *value to
 * e. */
bool fx_graph_selection_shape(const FxGraph *g, FxNodeId fold, FxNodeId *cmp, FxNodeId *value);
/* The slots node n binds for its lazy inputs (a fold's variable, a map's
 * two, a let's, ...), -1 where none. */
void fx_graph_bound_slots(const FxNode *n, int64_t out[2]);
/* Does the subgraph at id read the slot? */
bool fx_graph_reads_slot(const FxGraph *g, FxNodeId id, int64_t slot);
/* Is the node at id one field of every element of a list, in order:
 * `map [i] over len(L) of L[i].FIELD` (L the same subgraph at each use,
 * not reading i) or `[x.FIELD for x in L]` with no filter? Sets *list to
 * L and *field to FIELD. */
bool fx_graph_column_shape(const FxGraph *g, FxNodeId id, FxNodeId *list, const char **field);

/* A frozen copy of g named `intent` and labelled `version`, its calls of
 * itself renamed too: how a candidate written as another intent becomes a
 * version of the one it rewrites. Caller frees. */
FxGraph *fx_graph_copy_as(const FxGraph *g, const char *intent, const char *version);

/* "loop", "power": the name of one variant bit, and back (0 for none). */
const char *fx_graph_variant_name(uint32_t variant);
uint32_t fx_graph_variant_by_name(const char *name);
/* Sets g's kernel to the recurrence, with certificate rec and the variants. */
void fx_graph_set_recurrence(FxGraph *g, const FxRecurrence *rec, uint32_t variants);

/* Sets g's hot-input table: n rows of n_params + 1 texts (copied). */
void fx_graph_set_table(FxGraph *g, uint32_t n, const char *const *cells);
/* Sets the arguments whose results are materialised: n rows of n_params
 * texts (copied). */
void fx_graph_set_materialised(FxGraph *g, uint32_t n, const char *const *cells);
/* Puts the node at `at` of g (a candidate still being made) on kernel k, which must mark
 * its op: matches k's shape there and keeps what it binds. False, the
 * node unchanged, when the node does not have that shape. */
bool fx_graph_mark_kernel(FxGraph *g, FxNodeId at, FxKernelId k);

/* Copies what wraps from's nodes (kernel, certificate, variants, tables)
 * into `into`, a graph of the same intent. */
void fx_graph_copy_kernel(FxGraph *into, const FxGraph *from);

/* Checks the invariants above; returns false and a message on violation. */
bool fx_graph_verify(const FxGraph *g, char *why, size_t why_len);

/* Is input k of a node of this op evaluated lazily? */
bool fx_graph_input_is_lazy(FxNodeOp op, uint32_t k);
const char *fx_graph_op_name(FxNodeOp op);
const char *fx_graph_fold_name(FxFoldKind k);

/* Printing. Text is for people, dot for Graphviz, JSON for storage:
 * fx_graph_read_json(fx_graph_print_json(g)) prints back byte-identical. */
void fx_graph_print_text(const FxGraph *g, FxBuf *out);
void fx_graph_print_dot(const FxGraph *g, FxBuf *out);
void fx_graph_print_json(const FxGraph *g, FxBuf *out);
/* A recurrence kernel's certificate and variants, in one line:
 * "  fib(n) = fib(n-1) + fib(n-2) for n >= 2; fib(0) = 0, fib(1) = 1; variants loop" */
void fx_graph_print_recurrence(const FxGraph *g, FxBuf *out);
/* The hot-input table in one line: "  table: f(30) = 832040; f(25) = 75025" */
void fx_graph_print_table(const FxGraph *g, FxBuf *out);
/* "  materialised: f(18); f(21)": the materialised arguments. */
void fx_graph_print_materialised(const FxGraph *g, FxBuf *out);
/* SVG drawn by Graphviz; false with a reason when Graphviz fails. */
bool fx_graph_print_svg(const FxGraph *g, FxBuf *out, char *why, size_t why_len);
/* Returns a new frozen graph, or NULL with a message in why. */
FxGraph *fx_graph_read_json(const char *text, char *why, size_t why_len);

#endif
