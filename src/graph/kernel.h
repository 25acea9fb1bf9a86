/*
 * kernel.h: the kernel registry. A kernel is native code that runs part of
 * a version in place of the nodes that define it: a node's kernel (a sieve
 * under a fold, a matrix product under a map) or the whole function's (a
 * memo table, a linear recurrence). Each has one descriptor here, in the
 * spirit of SQLite's sqlite3_module: its name in the store, the graph
 * shape it implements, the contract the prover discharges for it, its
 * variants by device, the features its cost model reads, and how explain
 * describes a call. Everything else finds a kernel by its id, never by
 * its name; the name is read once, by fx_kernel_by_name (graph/read.c).
 *
 * The shape is matched once: when a rewrite marks a node (fx_graph_mark_
 * kernel) or when a stored version is read back. The match binds the
 * kernel's arguments (the matrices of a product, the comparison of a
 * selection), kept on the node; the compiler runs the kernel on them
 * without matching again. A stored node whose kernel no longer matches
 * its shape is refused: the naive loop never stands in silently.
 *
 * Layering: the registry sits in the graph layer, so read.c can find a
 * name and everything above can read a descriptor. The code a kernel owns
 * in higher layers is found by its id: the prover's (proof/prove.c:
 * fx_prove_kernel_rewrite), the compiler's and the interpreter's
 * (exec/compile.c, exec/vm.c, exec/choose.c), the optimizer's (the
 * kernels' rule, opt/rule_kernel.c). docs/extending.md: adding a kernel.
 */
#ifndef FX_KERNEL_H
#define FX_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

struct FxGraph;

/* ORDER FX_KERNEL: keep in sync with the table in kernel.c */
typedef enum {
    FX_KERNEL_NONE,
    FX_KERNEL_SIEVE,      /* a fold over the primes of its range ("primes") */
    FX_KERNEL_GEMM,       /* a matrix product ("gemm") */
    FX_KERNEL_INDEX,      /* a selection by a query kernel ("index") */
    FX_KERNEL_AFFINE_SUM, /* a sum over a range of a body affine in its variable ("affine_sum") */
    FX_KERNEL_SORT,       /* the evolved sort, a kernel chosen per call ("kernels") */
    FX_KERNEL_MEMO,       /* results kept by argument ("memo") */
    FX_KERNEL_RECURRENCE, /* a linear recurrence, loop or matrix power ("recurrence") */
    FX_KERNEL_TABLE,      /* the hot-input table ("table") */
    FX_KERNEL_KEPT,       /* materialised results ("materialised") */
    FX_KERNEL__COUNT
} FxKernelId;

/* The most arguments a kernel binds. */
#define FX_KERNEL_MAX_ARGS 3

/* A variant of a kernel: an algorithm, on a device. A kernel that keeps
 * several in one version (the recurrence) names them by bit: variant i is
 * bit 1 << i (graph.h: FX_VARIANT_*). */
typedef struct FxKernelVariant {
    const char *name;   /* "loop", "power", "segmented", ... */
    const char *device; /* "cpu": the device it runs on (src/hw) */
} FxKernelVariant;

typedef struct FxKernel {
    FxKernelId id;
    const char *name; /* in the store and in `flux graph` */
    /* what it runs: the op (FxNodeOp) of the node it marks, or -1 for a
     * kernel wrapped around the whole function (g->kernel, or the tables) */
    int marks;
    /* The shape: does the node at `at` of g have the shape the kernel
     * implements? Binds its arguments (node ids, 0 for none). NULL for a
     * whole-function kernel, whose certificate read.c checks. */
    bool (*shape)(const struct FxGraph *g, uint32_t at, uint32_t args[FX_KERNEL_MAX_ARGS]);
    const char *shape_text; /* the shape, in words (the proof's template) */
    const char *contract;   /* what the prover discharges beyond the template */
    const FxKernelVariant *variants;
    uint32_t n_variants;
    const char *features; /* what its cost model reads of a call's input */
    const char *explain;  /* how explain describes a call it ran */
    /* The rewrite that puts a node on it when its shape alone makes it
     * right (fx_kernel_find, fx_kernel_candidate; the prover's
     * fx_prove_kernel_rewrite), tried in id order: its name, what it
     * installs, and why it does not apply (no node has the shape; the node
     * runs on it already). NULL when a rule of its own does more. */
    const char *rule, *effect, *no_shape, *done;
} FxKernel;

/* The descriptor of id (FX_KERNEL_NONE has one too, named NULL). */
const FxKernel *fx_kernel(FxKernelId id);
/* The kernel a stored name names, or FX_KERNEL_NONE. The one place a
 * kernel is found by name. */
FxKernelId fx_kernel_by_name(const char *name);
/* The first node of g with k's shape that is on no kernel yet (k has a
 * rule): true with its id, or false with why not. */
bool fx_kernel_find(const struct FxGraph *g, FxKernelId k, uint32_t *at, const char **why);
/* The candidate of k's rule: a frozen copy of g labelled `label`, with the
 * node at `at` on k. Caller frees. */
struct FxGraph *fx_kernel_candidate(const struct FxGraph *g, uint32_t at, FxKernelId k,
                                    const char *label);

/* Does some kernel mark nodes of this op (FxNodeOp)? */
bool fx_kernel_marks(int op);
static inline const char *fx_kernel_name(FxKernelId id)
{
    return fx_kernel(id)->name;
}

#endif
