/*
 * interp.h: running graphs.
 *
 * A graph is compiled once into register bytecode (compile.c) and run by a
 * loop that keeps the program's calls on a heap stack, never on the C
 * stack (vm.c): a recursion a million calls deep needs memory, not a
 * bigger thread stack, and when it runs out of budget it stops with a
 * message, it does not crash.
 *
 * Budgets bound every run: steps (calls, loop iterations, and big-number
 * and kernel work counted in steps), call depth, memory (the process's
 * resident memory: what the run allocates is charged as it allocates it,
 * over the resident size when it began) and wall time. Exceeding one is a
 * run-time error naming the budget and the flag that raises it; an
 * operation that would exceed one is refused before it starts
 * (docs/executor.md, "Budgets"). The accounting is the meter's (meter.h),
 * which installs its own allocation functions in GMP.
 */
#ifndef FX_INTERP_H
#define FX_INTERP_H

#include "base/error.h"
#include "exec/value.h"
#include "graph/graph.h"

/* The checked program a runtime runs (lang/resolved.h), opaque here. */
typedef struct FxProgram FxProgram;
typedef struct FxRuntime FxRuntime;
typedef struct FxFunc FxFunc;

typedef struct FxBudgets {
    uint64_t max_steps;     /* calls + loop iterations + work / 16 units; 0: unlimited */
    uint64_t max_depth;     /* nested calls */
    uint64_t max_memory_mb; /* resident memory of the process */
    double max_seconds;     /* wall time of the run */
} FxBudgets;

/* The defaults: 10^10 steps, depth 10^7, 4096 MB, 600 s. */
FxBudgets fx_budgets_default(void);

/* Hooks for tracing: called, when set, at every call and every decision.
 * depth is the number of frames active in the caller (1: the evaluated
 * expression itself, 2: the intent it called, ...). */
typedef struct FxHooks {
    void *ctx;
    void (*on_call)(void *ctx, const FxGraph *callee, const FxValue *args, size_t n_args,
                    size_t depth);
    void (*on_decision)(void *ctx, const FxGraph *g, FxNodeId node, bool taken, size_t depth);
} FxHooks;

/* A runtime for one checked program: graphs are lowered and compiled on
 * first use. prog must outlive the runtime. Caller frees with
 * fx_runtime_free(). */
FxRuntime *fx_runtime_new(const FxProgram *prog);
void fx_runtime_free(FxRuntime *rt);
void fx_runtime_set_budgets(FxRuntime *rt, FxBudgets b);
void fx_runtime_set_hooks(FxRuntime *rt, const FxHooks *hooks);
/* The hooks set, or NULL. */
const FxHooks *fx_runtime_hooks(const FxRuntime *rt);

/* Runs g (taken over: freed with the runtime) for its intent from now on,
 * instead of lowering the intent's constraints: how a stored version is
 * replayed. Must come before anything that calls the intent is compiled.
 * Returns false when the intent is unknown or already compiled. */
bool fx_runtime_use_graph(FxRuntime *rt, FxGraph *g);

/* For an intent built by `result is one of` (or measured by `accuracy`):
 * which implementation runs (by position, from 0; 0 until set), from now
 * on; FX_CHOICE_NONE: none may, and a call stops with `why`. */
#define FX_CHOICE_NONE UINT32_MAX
void fx_runtime_set_choice(FxRuntime *rt, const char *intent, uint32_t index, const char *why);

/* The graph the runtime runs for an intent (v1 unless installed otherwise). */
const FxGraph *fx_runtime_graph(FxRuntime *rt, const char *intent);

/* Runs a graph of no parameters (an expression). On success *out holds a
 * new reference. On a run-time error returns FX_ERR_RUNTIME and the message
 * is in fx_runtime_error(). */
FxStatus fx_runtime_eval(FxRuntime *rt, const FxGraph *g, FxValue *out) FX_MUST_CHECK;
/* Runs a graph with parameters on the given arguments (borrowed). */
FxStatus fx_runtime_eval_with(FxRuntime *rt, const FxGraph *g, const FxValue *args, size_t n,
                              FxValue *out) FX_MUST_CHECK;
/* Calls an intent with arguments (borrowed). */
FxStatus fx_runtime_call(FxRuntime *rt, const char *intent, const FxValue *args, size_t n,
                         FxValue *out) FX_MUST_CHECK;

const char *fx_runtime_error(const FxRuntime *rt);
/* The same as a record (base/error.h): its status (FX_OK after a success),
 * and for an error at a node, the graph, the node and its source place.
 * Borrowed until the next run. */
const FxError *fx_runtime_last_error(const FxRuntime *rt);
/* The budget that stopped the last run: "step", "depth", "memory" or
 * "time"; NULL when none did (it succeeded, or failed otherwise). */
const char *fx_runtime_stopped_by(const FxRuntime *rt);

/* The last call the evaluated expression itself made (not a call made
 * inside an intent): for `f(x)[2]` that is f with x's value. Borrowed until
 * the next run; NULL before any. */
const FxGraph *fx_runtime_top_call(const FxRuntime *rt, const FxValue **out_args, size_t *out_n);
/* The value that call returned (borrowed; UNIT before any). */
FxValue fx_runtime_top_result(const FxRuntime *rt);

/* The sort kernels' cost model the runtime chooses by (exec/sortcost.h),
 * refitted on the sorts it runs; its caller gives it the model the store
 * keeps and writes it back there (src/api/costs.c). */
typedef struct FxSortCosts FxSortCosts;
FxSortCosts *fx_runtime_sort_costs(FxRuntime *rt);

/* On by default; off runs exactly the versions installed (`--no-learn`). */
void fx_runtime_set_runaway_protection(FxRuntime *rt, bool on);
/* What the last run decided while running (a recursion switched to its
 * table by runaway protection, with the evidence), or NULL: none. */
const char *fx_runtime_switches(const FxRuntime *rt);

/* Which variant of a recurrence kernel (graph.h: FX_VARIANT_*) runs a
 * call, and why: the cost model's decision, kept for the record. */
typedef struct FxVariantChoice {
    const FxGraph *g;
    uint64_t n;
    uint32_t variant;
    bool explore;          /* run to measure it, not because it is predicted fastest */
    bool forced;           /* the caller's (fx_runtime_force_variant), not the chooser's */
    double ms;             /* the kernel's measured time, of the expression's own call */
    double predicted_gain; /* set with why: the next best variant's predicted time over
                            * this one's; 0: none */
    char why[512];         /* set on demand, by fx_runtime_top_choice */
} FxVariantChoice;
/* A chooser picks the variant for a call with argument n among g->variants
 * (top: the call is the expression's own) and must be cheap: it runs at
 * every call. Its explainer writes why and predicted_gain of a choice it
 * made, when the record asks. */
typedef struct FxVariantChooser {
    void *ctx;
    void (*choose)(void *ctx, const FxGraph *g, uint64_t n, bool top, FxVariantChoice *out);
    void (*explain)(void *ctx, FxVariantChoice *c);
} FxVariantChooser;
/* Without a chooser (or when it leaves variant 0): the one variant a
 * version holds, or the power from n >= FX_POWER_FROM on (docs/executor.md). */
#define FX_POWER_FROM 200
void fx_runtime_set_chooser(FxRuntime *rt, const FxVariantChooser *c);
/* The data kernels' choice for the last run's largest input, as
 * "DECISION: REASON" ("sort kernel radix: n = 100000, ...", "sieve
 * segmented: hi = 100000000: ..."), or NULL; *made_by (when asked) gets
 * the graph whose node made it, which may be an intent the expression's
 * own call called. */
const char *fx_runtime_data_choice(const FxRuntime *rt, const FxGraph **made_by);

/* Where the calls with independent parts run (docs/devices.md): FLUX_DEVICE,
 * read when a runtime is made: "opencl" forces the OpenCL device for every
 * call it can take, "cpu" never offloads; unset or "auto": the device cost
 * model chooses for the expression's own call. */
typedef enum { FX_DEVICE_MODE_AUTO, FX_DEVICE_MODE_CPU, FX_DEVICE_MODE_OPENCL } FxDeviceMode;

/* The last run's device decision, "opencl: REASON" or "cpu: REASON" (why
 * a forced device was not used), or NULL when none was taken. */
const char *fx_runtime_device_choice(const FxRuntime *rt);

/* For explain: where a run would compute intent's call on args, and, when
 * on the OpenCL device (which computes it again now), where on it element
 * `element` (-1: none) of a list, or row `element` of a matrix (cell
 * [element, col] when col >= 0), was: lines "opencl: REASON", "element K:
 * computed on DEVICE by work-item I of work-group G ...", "independent:
 * WHY", or "cpu: WHY". False when the call has nothing to say (no plan,
 * no force). */
bool fx_runtime_device_explain(FxRuntime *rt, const char *intent, const FxValue *args,
                               int64_t element, int64_t col, FxBuf *out);

/* The device cost model (devcost.h) the runtime chooses by: the program
 * gives it before a run and keeps what the run refitted. */
struct FxDevCosts *fx_runtime_dev_costs(FxRuntime *rt);

/* The last run took ms: a point for the device its own call ran on, when
 * the call had a device decision. */
void fx_runtime_device_observe(FxRuntime *rt, double ms);
/* Where materialised results are kept between processes (exec/keep.h,
 * docs/store.md): the runtime asks for a call's bytes the first time a
 * version's node needs that call's result and none is kept in the
 * runtime, and hands over the bytes of each such result it computes. The
 * bytes are under g's version and the call's text ("query_users(95)").
 * Neither may fail a run: a row that cannot be read is none. */
typedef struct FxKeeper {
    void *ctx;
    /* The bytes kept for the call into *out (malloc'd), or false: none. */
    bool (*load)(void *ctx, const FxGraph *g, const char *call, char **out, size_t *len);
    void (*save)(void *ctx, const FxGraph *g, const char *call, const char *bytes, size_t len);
} FxKeeper;
void fx_runtime_set_keeper(FxRuntime *rt, const FxKeeper *k);
/* Where CSV sources' columns are kept between processes (exec/colcache.h):
 * the store's `columns` folder; NULL: nowhere. dir is copied. */
void fx_runtime_set_column_cache(FxRuntime *rt, const char *dir);
/* Does the intent's running version read a data source, itself or by
 * the intents it calls? (Its results then depend on files that change.) */
bool fx_runtime_reads_data(FxRuntime *rt, const char *intent);
/* Was the last run's own call answered by its version's hot-input table? */
bool fx_runtime_top_from_table(const FxRuntime *rt);
/* The choice made for the last run's own call of a kernel, with its
 * reason, or NULL. */
const FxVariantChoice *fx_runtime_top_choice(FxRuntime *rt);

/* Forcing a kernel variant by name (FluxRunOptions.variant), for
 * benchmarks and tests: from now on every choice point of a kernel that
 * has a variant of that name takes it (NULL: each chooses again); name
 * must outlive the runs. The kernels with a choice (FX_CHOICE_* bits) and
 * their variants' names: */
#define FX_CHOICE_RECURRENCE 1u /* loop, power: a recurrence kernel holding both */
#define FX_CHOICE_SORT 2u       /* the sort kernels: insertion, pdq, radix, parallel, vqsort */
#define FX_CHOICE_SIEVE 4u      /* the sieves: trial, eratosthenes, segmented */
#define FX_CHOICE_ALL 7u
void fx_runtime_force_variant(FxRuntime *rt, const char *name);
/* Did a choice point of the last run take the forced variant? */
bool fx_runtime_forced_used(const FxRuntime *rt);
/* The kernels with a choice that the last run reached (FX_CHOICE_* bits). */
unsigned fx_runtime_choice_kernels(const FxRuntime *rt);
/* The variant a choice point of the last run took for its largest input
 * ("power", "radix"), or NULL: none was reached. */
const char *fx_runtime_variant_taken(const FxRuntime *rt);
/* The names of the variants of those kernels, joined by ", ". */
void fx_variant_names(unsigned kernels, FxBuf *out);

/* Zeroes every execution counter, so that the next run's counts are its own. */
void fx_runtime_reset_counts(FxRuntime *rt);

/* Statistics of the last run. */
typedef struct FxRunStats {
    uint64_t steps, calls, max_depth;
} FxRunStats;
FxRunStats fx_runtime_stats(const FxRuntime *rt);

/* How many times node `id` of `g` ran since the runtime was made (0 for a
 * graph the runtime has not compiled). */
uint64_t fx_runtime_node_count(FxRuntime *rt, const FxGraph *g, FxNodeId id);
/* The instructions run since the counts were last reset, in every
 * function of the runtime: a call's work with its callees'. */
uint64_t fx_runtime_instructions(FxRuntime *rt);
/* The time (ns) sampled at node id of g since the counts were last reset
 * (vm.c, "the sampler"): the node's own time, not its callees'. */
uint64_t fx_runtime_node_ns(FxRuntime *rt, const FxGraph *g, FxNodeId id);

/* The call profile: with it on, each eval keeps the arguments of the
 * first call it makes of each function (a recursion's outermost), for
 * learning to call that function alone. fx_runtime_first_call gives g's
 * (borrowed, until the next eval), or NULL when the last eval made none. */
void fx_runtime_profile_calls(FxRuntime *rt, bool on);
const FxValue *fx_runtime_first_call(const FxRuntime *rt, const FxGraph *g, size_t *n);
/* The kernel calls of the last run (hw/ktrace.h). */
struct FxKTrace;
const struct FxKTrace *fx_runtime_ktrace(const FxRuntime *rt);

#endif
