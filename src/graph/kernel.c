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
static const FxKernelVariant memo_variants[] = {{"table", "cpu"}};
static const FxKernelVariant recurrence_variants[] = {{"loop", "cpu"}, {"power", "cpu"}};
static const FxKernelVariant lookup_variants[] = {{"lookup", "cpu"}};

#define VARIANTS(v) v, FX_ARRAY_LEN(v)

/* ORDER FX_KERNEL */
static const FxKernel kernels[FX_KERNEL__COUNT] = {
    [FX_KERNEL_NONE] = {FX_KERNEL_NONE, NULL, -1, NULL, NULL, NULL, NULL, 0, NULL, NULL},
    [FX_KERNEL_SIEVE] = {
        FX_KERNEL_SIEVE, "primes", FX_NODE_FOLD, sieve_shape,
        "a fold over a range whose filter has, as a conjunct, the prelude's `prime` of the "
        "fold's variable",
        "the other conditions never fail; the crossing rule; Sieve.sieve_correct "
        "(proofs/Sieve.v): the sieve keeps exactly the primes of the range",
        VARIANTS(sieve_variants), "the range's bounds: its width and its top",
        "the primes of the range, from a sieve chosen by its bounds"},
    [FX_KERNEL_INDEX] = {
        FX_KERNEL_INDEX, "index", FX_NODE_FOLD, index_shape,
        "the fold keeps the elements x of a collection with x.FIELD OP v, v not depending on x",
        "the field is totally ordered: a stable sorted index and a binary search keep exactly "
        "the elements the comparison keeps, in the collection's order",
        VARIANTS(index_variants), "the collection's length and whether it was indexed before",
        "the rows a scan or a sorted index kept"},
    [FX_KERNEL_GEMM] = {
        FX_KERNEL_GEMM, "gemm", FX_NODE_MAP, gemm_shape,
        "result[i,j] = sum(A[i,k] * B[k,j] for k in 0..cols(A)) over rows(A) x cols(B)",
        "Int: the sum's reassociation; Float: k added in order from 0, each product rounded "
        "(FX_MATMUL_BLOCKED_EXACT), reordered only within a declared tolerance",
        VARIANTS(gemm_variants), "the matrices' sizes, the elements' type and the tolerance",
        "the matrix product, by a blocked kernel"},
    [FX_KERNEL_SORT] = {
        FX_KERNEL_SORT, "kernels", FX_NODE_SORT, sort_shape,
        "both sort the same list the same way: same list, key and direction",
        "a total order on the elements, a stable sort by key; SortUnique.sort_correct_any",
        VARIANTS(sort_variants), "the list's length, its keys' spread and how sorted it is",
        "the sort kernel the cost model chose from the input's features"},
    [FX_KERNEL_MEMO] = {
        FX_KERNEL_MEMO, "memo", -1, NULL, "a pure function of arguments that key a table",
        "a pure function's result depends on its arguments alone", VARIANTS(memo_variants),
        NULL,
        "each distinct call's result is kept in a table and answered from it when asked again"},
    [FX_KERNEL_RECURRENCE] = {
        FX_KERNEL_RECURRENCE, "recurrence", -1, NULL,
        "f(n) = c_1 f(n-1) + ... + c_k f(n-k) for n >= k, f(i) given for i < k",
        "the certificate matches the equations (fx_prove_linear_recurrence); the power "
        "variant: the companion matrix's power (proofs/)",
        VARIANTS(recurrence_variants), "n, the argument",
        "computes the certified recurrence directly"},
    [FX_KERNEL_TABLE] = {
        FX_KERNEL_TABLE, "table", -1, NULL, "arguments that recur, with their results",
        "each row is the result the version computes for its arguments",
        VARIANTS(lookup_variants), NULL, "keeps the results of recurring inputs, looked up first"},
    [FX_KERNEL_KEPT] = {
        FX_KERNEL_KEPT, "materialised", -1, NULL,
        "arguments that recur, of a function that reads a data source",
        "the kept result is the one computed while the sources it read are unchanged",
        VARIANTS(lookup_variants), NULL, "answered from a result kept with its sources' stamps"},
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
