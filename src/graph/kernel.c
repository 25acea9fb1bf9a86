/*
 * kernel.c: the kernel registry (kernel.h): one descriptor per kernel, in
 * id order, and the shapes of the kernels that mark a node.
 */
#include "kernel.h"

#include <string.h>

#include "graph.h"

/* A fold over a range: the sieve runs over the primes of that range. */
static bool sieve_shape(const FxGraph *g, uint32_t at, uint32_t args[FX_KERNEL_MAX_ARGS])
{
    const FxNode *n = fx_graph_node(g, (FxNodeId){at});
    if (n->op != FX_NODE_FOLD || fx_graph_node(g, n->inputs[0])->op != FX_NODE_RANGE)
        return false;
    args[0] = n->inputs[0].v;
    return true;
}

static bool index_shape(const FxGraph *g, uint32_t at, uint32_t args[FX_KERNEL_MAX_ARGS])
{
    FxNodeId cmp, value;
    if (!fx_graph_selection_shape(g, (FxNodeId){at}, &cmp, &value))
        return false;
    args[0] = cmp.v;
    args[1] = value.v;
    return true;
}

static bool gemm_shape(const FxGraph *g, uint32_t at, uint32_t args[FX_KERNEL_MAX_ARGS])
{
    FxNodeId a, b, fold;
    if (!fx_graph_matmul_shape(g, (FxNodeId){at}, &a, &b, &fold))
        return false;
    args[0] = a.v;
    args[1] = b.v;
    args[2] = fold.v;
    return true;
}

/* Is the subgraph at id affine in the slot: the slot, what does not read
 * it, and +, -, unary - and * by a factor that does not read it? */
static bool affine_in(const FxGraph *g, FxNodeId id, int64_t slot)
{
    const FxNode *n = fx_graph_node(g, id);
    if (!fx_graph_reads_slot(g, id, slot))
        return true;
    switch (n->op) {
    case FX_NODE_VAR: return true;
    case FX_NODE_NEG: return affine_in(g, n->inputs[0], slot);
    case FX_NODE_ADD:
    case FX_NODE_SUB: return affine_in(g, n->inputs[0], slot) && affine_in(g, n->inputs[1], slot);
    case FX_NODE_MUL:
        return (!fx_graph_reads_slot(g, n->inputs[0], slot) && affine_in(g, n->inputs[1], slot)) ||
               (!fx_graph_reads_slot(g, n->inputs[1], slot) && affine_in(g, n->inputs[0], slot));
    default: return false;
    }
}

/* sum(e(i) for i in lo..hi), unfiltered, integers, e affine in i. */
static bool affine_sum_shape(const FxGraph *g, uint32_t at, uint32_t args[FX_KERNEL_MAX_ARGS])
{
    const FxNode *n = fx_graph_node(g, (FxNodeId){at});
    if (n->op != FX_NODE_FOLD || n->num != FX_FOLD_SUM || n->inputs[1].v ||
        fx_graph_node(g, n->inputs[0])->op != FX_NODE_RANGE || !fx_typeid_is_integer(n->tid) ||
        !affine_in(g, n->inputs[2], n->num2))
        return false;
    args[0] = n->inputs[0].v;
    return true;
}

static bool sort_shape(const FxGraph *g, uint32_t at, uint32_t args[FX_KERNEL_MAX_ARGS])
{
    (void)args;
    return fx_graph_node(g, (FxNodeId){at})->op == FX_NODE_SORT;
}

static const FxKernelVariant sieve_variants[] = {
    {"trial", "cpu"}, {"eratosthenes", "cpu"}, {"segmented", "cpu"}};
static const FxKernelVariant index_variants[] = {{"scan", "cpu"}, {"sorted index", "cpu"}};
static const FxKernelVariant gemm_variants[] = {
    {"naive", "cpu"}, {"blocked exact", "cpu"}, {"blocked", "cpu"}};
static const FxKernelVariant sort_variants[] = {
    {"insertion", "cpu"}, {"pdq", "cpu"}, {"radix", "cpu"}, {"parallel radix", "cpu"}};
static const FxKernelVariant affine_sum_variants[] = {{"closed form", "cpu"}};
static const FxKernelVariant memo_variants[] = {{"table", "cpu"}};
static const FxKernelVariant recurrence_variants[] = {{"loop", "cpu"}, {"power", "cpu"}};
static const FxKernelVariant lookup_variants[] = {{"lookup", "cpu"}};

#define VARIANTS(v) .variants = v, .n_variants = FX_ARRAY_LEN(v)

/* ORDER FX_KERNEL */
static const FxKernel kernels[FX_KERNEL__COUNT] = {
    [FX_KERNEL_NONE] = {.id = FX_KERNEL_NONE, .marks = -1},
    [FX_KERNEL_SIEVE] = {
        .id = FX_KERNEL_SIEVE, .name = "primes", .marks = FX_NODE_FOLD, .shape = sieve_shape,
        .shape_text = "a fold over a range whose filter has, as a conjunct, the prelude's "
                      "`prime` of the fold's variable",
        .contract = "the other conditions never fail; the crossing rule; Sieve.sieve_correct "
                    "(proofs/Sieve.v): the sieve keeps exactly the primes of the range",
        VARIANTS(sieve_variants), .features = "the range's bounds: its width and its top",
        .explain = "the primes of the range, from a sieve chosen by its bounds"},
    [FX_KERNEL_GEMM] = {
        .id = FX_KERNEL_GEMM, .name = "gemm", .marks = FX_NODE_MAP, .shape = gemm_shape,
        .shape_text = "result[i,j] = sum(A[i,k] * B[k,j] for k in 0..cols(A)) over rows(A) x "
                      "cols(B)",
        .contract = "Int: the sum's reassociation; Float: k added in order from 0, each "
                    "product rounded (FX_MATMUL_BLOCKED_EXACT), reordered only within a "
                    "declared tolerance",
        VARIANTS(gemm_variants),
        .features = "the matrices' sizes, the elements' type and the tolerance",
        .explain = "the matrix product, by a blocked kernel",
        .rule = "matrix kernel",
        .effect = "every element is computed from the parameters alone: the kernel may "
                  "compute the elements in any order and on any thread",
        .no_shape = "no element-wise definition has the shape of a matrix product",
        .done = "the matrix product runs on the kernel already"},
    [FX_KERNEL_INDEX] = {
        .id = FX_KERNEL_INDEX, .name = "index", .marks = FX_NODE_FOLD, .shape = index_shape,
        .shape_text = "the fold keeps the elements x of a collection with x.FIELD OP v, v not "
                      "depending on x",
        .contract = "the field is totally ordered: a stable sorted index and a binary search "
                    "keep exactly the elements the comparison keeps, in the collection's order",
        VARIANTS(index_variants),
        .features = "the collection's length and whether it was indexed before",
        .explain = "the rows a scan or a sorted index kept",
        .rule = "query index",
        .effect = "a scan compares each row natively; from a collection's second query in a "
                  "run a sorted index answers by binary search",
        .no_shape = "no fold selects the elements of a collection by comparing a field",
        .done = "the query runs on the kernel already"},
    [FX_KERNEL_AFFINE_SUM] = {
        .id = FX_KERNEL_AFFINE_SUM, .name = "affine_sum", .marks = FX_NODE_FOLD,
        .shape = affine_sum_shape,
        .shape_text = "sum(e(i) for i in lo..hi) of integers, unfiltered, e affine in i: i, "
                      "what does not read i, and +, -, unary - and * by a factor without i",
        .contract = "e affine in i: e(lo + j) = e(lo) + j * (e(lo + 1) - e(lo)), so the sum of "
                    "the n terms is n * e(lo) + (e(lo + 1) - e(lo)) * n * (n - 1) / 2 (Gauss: "
                    "0 + 1 + ... + (n - 1) = n * (n - 1) / 2); e runs at lo and lo + 1 only, "
                    "terms the loop runs too (none when n = 0, lo alone when n = 1), so what "
                    "fails fails alike",
        VARIANTS(affine_sum_variants), .features = "none: constant time, whatever the range",
        .explain = "the sum in closed form, from the body at the range's first two elements",
        .rule = "closed-form sum",
        .effect = "a sum over a range of a body affine in its variable takes constant time",
        .no_shape = "no sum over a range has a body affine in its variable",
        .done = "the sum runs in closed form already"},
    [FX_KERNEL_SORT] = {
        .id = FX_KERNEL_SORT, .name = "kernels", .marks = FX_NODE_SORT, .shape = sort_shape,
        .shape_text = "both sort the same list the same way: same list, key and direction",
        .contract = "a total order on the elements, a stable sort by key; "
                    "SortUnique.sort_correct_any",
        VARIANTS(sort_variants),
        .features = "the list's length, its keys' spread and how sorted it is",
        .explain = "the sort kernel the cost model chose from the input's features"},
    [FX_KERNEL_MEMO] = {
        .id = FX_KERNEL_MEMO, .name = "memo", .marks = -1,
        .shape_text = "a pure function of arguments that key a table",
        .contract = "a pure function's result depends on its arguments alone",
        VARIANTS(memo_variants), .features = "the arguments, hashed",
        .explain = "each distinct call's result is kept in a table and answered from it when "
                   "asked again"},
    [FX_KERNEL_RECURRENCE] = {
        .id = FX_KERNEL_RECURRENCE, .name = "recurrence", .marks = -1,
        .shape_text = "f(n) = c_1 f(n-1) + ... + c_k f(n-k) for n >= k, f(i) given for i < k",
        .contract = "the certificate matches the equations (fx_prove_linear_recurrence); the "
                    "power variant computes the companion matrix's power",
        VARIANTS(recurrence_variants), .features = "n, the argument",
        .explain = "computes the certified recurrence directly"},
    [FX_KERNEL_TABLE] = {
        .id = FX_KERNEL_TABLE, .name = "table", .marks = -1,
        .shape_text = "arguments that recur, with their results",
        .contract = "each row is the result the version computes for its arguments",
        VARIANTS(lookup_variants), .features = "the arguments, hashed",
        .explain = "keeps the results of recurring inputs, looked up first"},
    [FX_KERNEL_KEPT] = {
        .id = FX_KERNEL_KEPT, .name = "materialised", .marks = -1,
        .shape_text = "arguments that recur, of a function that reads a data source",
        .contract = "the kept result is the one computed while the sources it read are "
                    "unchanged",
        VARIANTS(lookup_variants), .features = "the arguments and the sources' sizes and times",
        .explain = "answered from a result kept with its sources' stamps"},
};

const FxKernel *fx_kernel(FxKernelId id)
{
    return &kernels[(unsigned)id < FX_KERNEL__COUNT ? id : FX_KERNEL_NONE];
}

FxKernelId fx_kernel_by_name(const char *name)
{
    for (int k = FX_KERNEL_NONE + 1; name && k < FX_KERNEL__COUNT; k++)
        if (!strcmp(kernels[k].name, name))
            return (FxKernelId)k;
    return FX_KERNEL_NONE;
}

bool fx_kernel_marks(int op)
{
    for (int k = FX_KERNEL_NONE + 1; k < FX_KERNEL__COUNT; k++)
        if (kernels[k].marks == op)
            return true;
    return false;
}

bool fx_kernel_find(const FxGraph *g, FxKernelId k, uint32_t *at, const char **why)
{
    const FxKernel *K = fx_kernel(k);
    *why = K->no_shape;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        uint32_t args[FX_KERNEL_MAX_ARGS];
        if ((int)n->op != K->marks || !K->shape(g, i + 1, args))
            continue;
        if (n->kernel == k) {
            *why = K->done;
            continue;
        }
        if (n->kernel) /* on another kernel */
            continue;
        *at = i + 1;
        return true;
    }
    return false;
}

FxGraph *fx_kernel_candidate(const FxGraph *g, uint32_t at, FxKernelId k, const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    FX_CHECK(fx_graph_mark_kernel(c, (FxNodeId){at}, k), "node %u has not the shape of `%s`", at,
             fx_kernel_name(k));
    fx_graph_node(c, (FxNodeId){at})->origin.rewrite = fx_graph_intern(c, fx_kernel(k)->rule);
    return c;
}
