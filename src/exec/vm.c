/*
 * vm.c: the bytecode loop, the runtime that owns compiled functions, and
 * budgets.
 *
 * DESIGN. The program's calls live on two heap arrays: a register stack of
 * FxValues, where each frame is a window of its function's n_regs
 * registers starting at the caller's argument registers (the highest the
 * caller uses at that point, so nothing of the caller's is overwritten, and
 * arguments are never copied), and a frame stack of return points.
 * So the depth of a Flux recursion is bounded by memory and the depth
 * budget, never by the C stack. Invariants:
 *   - every register holds an owned reference (or UNIT), including the
 *     stale ones above the top frame: a return of a small value does not
 *     clear its frame (that would cost more than the call), a return of a
 *     heap value does (else a deep recursion of big values keeps every
 *     level's: the sum of all k! for a factorial), every write releases
 *     what it overwrites, and the run clears up to its high-water mark at
 *     the end;
 *   - the builder stack (for collecting lists) is empty between runs.
 * On an error the loop stops, releases every live register and builder,
 * and reports a message that names the intent, the source position and,
 * for budgets, the flag that raises the limit.
 *
 * Integer arithmetic and comparisons take an int64 fast path inline; every
 * other case goes through value.c, which is exact.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "choose.h"
#include "cluster.h"
#include "colcache.h"
#include "data.h"
#include "base/hash.h"
#include "base/index.h"
#include "base/sort.h"
#include "fault.h"
#include "graph/lower.h"
#include "heapobj.h"
#include "interp_int.h"
#include "devcost.h"
#include "hw/opencl.h"
#include "offload.h"
#include "keep.h"
#include "hw/hw.h"
#include "hw/device.h"
#include "hw/ktrace.h"
#include "table.h"
#include "linrec.h"
#include "mathfn.h"
#include "natrec.h"
#include "matmul.h"
#include "meter.h"
#include "sieve.h"
#include "sortcost.h"
#include "sortk.h"
#include "value_gmp.h"

/* Where a call returns to: the caller's function, code and registers, and
 * the register that receives the value. */
typedef struct Frame {
    FxFunc *fn;
    const FxInstr *ret_pc;
    uint32_t base;
    uint32_t ret_dst;
    uint64_t tails; /* the caller's tail calls made in its frame (see OP_CALL) */
} Frame;

typedef FX_VEC(FxValue) ValueVec;

/* A list being collected: its elements, and whether any is a heap value
 * (when none is, the list is freed without a look at them). */
typedef struct Builder {
    FxValue *data;
    size_t len, cap;
    bool heap;
} Builder;

/* A function's first call in an eval, its arguments retained. */
typedef struct FirstCall {
    const FxGraph *g;
    FxValue *args;
    uint32_t n;
} FirstCall;

typedef struct NamedFunc {
    const char *name;
    FxFunc *fn;
} NamedFunc;

/* A data source read in this runtime, and its file's stamp when read. */
typedef struct DataEntry {
    const char *name;
    const FxDataDecl *dd;
    FxDataStamp stamp;
    FxValue value;
} DataEntry;

/* A hash index of a list of keys: the positions of each key, in order. */
typedef struct JoinIndex {
    FxValue keys; /* retained: the index is kept while the list is the same */
    size_t cap;
    size_t *slot;  /* 1 + a position with that key (the first), 0: empty */
    size_t *next;  /* next[p]: 1 + the next position with p's key, 0: none */
} JoinIndex;

/* The implementation chosen for an intent built by `result is one of`. */
typedef struct Choice {
    const char *intent;
    uint32_t index; /* FX_CHOICE_NONE: none may run */
    char *why;      /* then why, for the error */
} Choice;

/* A function registered, its code not compiled yet (compile_all). */
typedef struct Pending {
    FxFunc *f;
    const FxIntent *in;
} Pending;

struct FxRuntime {
    const FxProgram *prog;
    FX_VEC(NamedFunc) funcs;
    /* the callees met while compiling, compiled after it, in turn: a chain
     * of 12,000 intents each calling the next compiles in a loop, not in a
     * C recursion 12,000 compiles deep */
    FX_VEC(Pending) pending;
    bool compiling;
    FxIndex by_name, by_graph; /* of funcs: by intent key, by compiled graph */
    FX_VEC(Choice) choices;
    FX_VEC(FxFunc *) exprs; /* compiled expression graphs, freed with the runtime */
    FX_VEC(DataEntry) data;
    /* sources are read once and kept across evaluations; each evaluation
     * checks their stamps once (checked == evals), and a changed file is
     * dropped with everything computed from it (data_epoch moves on) */
    uint64_t evals, checked, data_epoch;
    FxKeeper keeper; /* where materialised results outlive the process, or none */
    char *column_cache; /* where CSV sources' columns are kept (colcache.h), or NULL */
    /* sources not read here but trusted unchanged by a result read from the
     * keeper, with their stamps then: checked as the sources read are */
    FX_VEC(FxKeepSource) watched;
    FxValue *stack;
    size_t stack_cap;
    Frame *frames;
    size_t n_frames, frames_cap;
    FX_VEC(Builder) builders;
    FxValue *spare; /* a small builder's array, kept for the next (not charged) */
    size_t spare_cap;
    FxBudgets budgets;
    FxHooks hooks;
    const FxGraph *top_callee; /* the expression's own last call, for the record */
    ValueVec top_args;
    /* the call profile (fx_runtime_profile_calls): this eval's stamp, 0
     * when off, and the first call of each function it made */
    uint64_t profile_stamp;
    bool profiling;
    FX_VEC(FirstCall) first_calls;
    FxValue top_result; /* what that call returned */
    bool has_hooks;
    FxRunStats stats;
    uint64_t side_steps; /* steps taken outside the loop's own count */
    struct timespec started;
    FxStop stopped_by; /* the budget that stopped the last run, or NONE */
    char switches[512]; /* this run's mid-run decisions, for the record */
    bool no_runaway;    /* run exactly the versions installed: no mid-run switch */
    FxVariantChooser chooser;
    FxVariantChoice top_choice; /* for the expression's own call of a kernel */
    bool has_top_choice, top_choice_told;
    bool top_from_table; /* the expression's own call was answered by a hot-input table */
    FX_VEC(struct QueryIndex) indexes; /* by (list, field): built at a list's second query */
    FxSortCosts sort_costs; /* the sort kernels' cost model, refitted on the sorts run */
    JoinIndex join;         /* the hash index of the join running (OP_JOIN) */
    FxPrimeSet prime_window; /* sieved calls: the primes of the last window asked */
    uint64_t prime_window_width;
    /* the data kernels' choice for the run's largest input ("sort kernel radix: n = ..."),
     * or "" */
    char data_choice[320];
    size_t data_choice_n;
    const FxGraph *data_choice_graph; /* whose node made it */
    const char *forced_variant; /* the variant every choice point takes when it has it, or NULL */
    bool forced_used;           /* a choice point of the last run took it */
    const char *variant_taken;  /* the variant a choice point took for the largest input */
    uint64_t variant_taken_n;
    unsigned choice_kernels;    /* FX_CHOICE_*: the kernels with a choice the last run reached */
    FxKTrace ktrace;            /* the last run's kernel calls (hw/ktrace.h) */
    uint64_t sampled_at;        /* the sampler's last note (fx_ktrace_now) */
    uint64_t samples;           /* notes taken: each one's mark (credit) */
    uint64_t rng;               /* the sampler's allowances (xorshift64) */
    FxNativeProvider native_provider; /* asked for a function's native code, or none */
    bool native_off;                  /* the interpreter only (the differential test) */
    const char *native_tier;          /* the tier that answered the expression's own call */
    uint64_t top_timed;               /* the run's own calls of a recurrence kernel so far */
    FxDeviceMode device_mode;         /* FLUX_DEVICE: where calls with a device plan run */
    char device_choice[640];          /* the last run's device decision, "" when none */
    size_t device_choice_n;           /* its work-items */
    FxDevCosts dev_costs;             /* the device cost model, given by the program */
    struct {                          /* the expression's own call, for the model */
        char intent[120];
        int dev;
        double items;
        double once_ms; /* a first compile of the kernel, not to be paid again */
        bool on;
    } dev_pending;
    FxError error; /* the last run's; FX_OK after a success */
};

static void drop_top_call(FxRuntime *rt);
static void drop_first_calls(FxRuntime *rt);
static uint64_t window_bytes(const FxPrimeSet *s);

/* A sorted index of one field of a list's records, for the query kernel:
 * the field's values (all Int or all String) with their positions, sorted
 * stably by value. */
typedef struct QueryIndex {
    FxValue list; /* retained */
    const char *field;
    uint32_t queries;
    bool built, ints;
    size_t n;
    int64_t *ikeys;   /* ints: the keys, sorted */
    FxValue *skeys;   /* strings: the keys, sorted (borrowed from the list's records) */
    uint64_t *pos;    /* the position of each sorted key */
    size_t charged;   /* bytes of the kept arrays, charged to the meter */
} QueryIndex;

FxBudgets fx_budgets_default(void)
{
    FxBudgets b = {10000000000ULL, 10000000ULL, 4096, 600.0};
    return b;
}

FxRuntime *fx_runtime_new(const FxProgram *prog)
{
    fx_meter_install();
    FxRuntime *rt = fx_xcalloc(1, sizeof(*rt));
    rt->prog = prog;
    rt->budgets = fx_budgets_default();
    fx_sortcost_defaults(&rt->sort_costs);
    const char *dev = getenv("FLUX_DEVICE");
    rt->device_mode = dev && !strcmp(dev, "opencl") ? FX_DEVICE_MODE_OPENCL
                      : dev && !strcmp(dev, "cpu")  ? FX_DEVICE_MODE_CPU
                                                    : FX_DEVICE_MODE_AUTO;
    return rt;
}

FxSortCosts *fx_runtime_sort_costs(FxRuntime *rt)
{
    return &rt->sort_costs;
}

void fx_runtime_set_budgets(FxRuntime *rt, FxBudgets b)
{
    rt->budgets = b;
}

void fx_runtime_set_hooks(FxRuntime *rt, const FxHooks *hooks)
{
    rt->hooks = hooks ? *hooks : (FxHooks){0};
    rt->has_hooks = hooks && (hooks->on_call || hooks->on_decision);
}

const FxHooks *fx_runtime_hooks(const FxRuntime *rt)
{
    return rt->has_hooks ? &rt->hooks : NULL;
}

const char *fx_runtime_error(const FxRuntime *rt)
{
    return rt->error.message;
}

const FxError *fx_runtime_last_error(const FxRuntime *rt)
{
    return &rt->error;
}

const char *fx_runtime_stopped_by(const FxRuntime *rt)
{
    return fx_meter_stop_name(rt->stopped_by);
}

FxRunStats fx_runtime_stats(const FxRuntime *rt)
{
    return rt->stats;
}

static void join_index_free(JoinIndex *x)
{
    fx_heap_release(x->keys);
    free(x->slot);
    free(x->next);
    *x = (JoinIndex){0};
}

void fx_runtime_free(FxRuntime *rt)
{
    if (!rt)
        return;
    fx_vec_foreach(NamedFunc, nf, &rt->funcs) fx_func_free(nf->fn);
    fx_vec_free(&rt->funcs);
    fx_vec_free(&rt->pending);
    fx_index_free(&rt->by_name);
    fx_index_free(&rt->by_graph);
    join_index_free(&rt->join);
    fx_vec_foreach(Choice, c, &rt->choices) free(c->why);
    fx_vec_free(&rt->choices);
    fx_vec_foreach(FxFunc *, f, &rt->exprs) fx_func_free(*f);
    fx_vec_free(&rt->exprs);
    fx_vec_foreach(DataEntry, de, &rt->data) fx_heap_release(de->value);
    fx_vec_free(&rt->data);
    free(rt->column_cache);
    fx_vec_free(&rt->watched);
    fx_vec_foreach(QueryIndex, qi, &rt->indexes)
    {
        fx_heap_release(qi->list);
        free(qi->ikeys);
        free(qi->skeys);
        free(qi->pos);
        fx_meter_sub(qi->charged);
    }
    fx_vec_free(&rt->indexes);
    if (rt->prime_window.bits)
        fx_meter_sub(window_bytes(&rt->prime_window));
    fx_primeset_free(&rt->prime_window);
    free(rt->stack);
    free(rt->frames);
    fx_meter_sub(rt->stack_cap * sizeof(FxValue) + rt->frames_cap * sizeof(Frame));
    fx_vec_free(&rt->builders);
    free(rt->spare);
    drop_top_call(rt);
    fx_vec_free(&rt->top_args);
    drop_first_calls(rt);
    fx_vec_free(&rt->first_calls);
    free(rt);
}

static uint32_t chosen(const FxRuntime *rt, const char *intent)
{
    fx_vec_foreach(Choice, c, &rt->choices) if (!strcmp(c->intent, intent)) return c->index;
    return 0;
}

void fx_runtime_set_choice(FxRuntime *rt, const char *intent, uint32_t index, const char *why)
{
    bool known = false;
    fx_vec_foreach(Choice, c, &rt->choices)
    {
        if (!strcmp(c->intent, intent)) {
            c->index = index;
            free(c->why);
            c->why = why ? fx_xstrdup(why) : NULL;
            known = true;
        }
    }
    if (!known) {
        Choice c = {fx_program_find_intent(rt->prog, intent)->key, index,
                    why ? fx_xstrdup(why) : NULL};
        fx_vec_push(&rt->choices, c);
    }
    fx_vec_foreach(NamedFunc, nf, &rt->funcs) if (!strcmp(nf->name, intent)) nf->fn->choice = index;
}

/* The function of intent key `name`, or NULL. */
static FxFunc *func_named(const FxRuntime *rt, const char *name)
{
    uint32_t i = fx_index_get(&rt->by_name, name);
    return i == FX_INDEX_NONE ? NULL : rt->funcs.data[i].fn;
}

static void add_func(FxRuntime *rt, const char *key, FxFunc *f)
{
    NamedFunc nf = {key, f};
    fx_vec_push(&rt->funcs, nf);
    rt->by_name.strings = true;
    fx_index_put(&rt->by_name, key, (uint32_t)rt->funcs.len - 1);
}

/* The function compiled from g, or NULL (an expression's included). */
static FxFunc *func_of_graph(const FxRuntime *rt, const FxGraph *g)
{
    uint32_t i = fx_index_get(&rt->by_graph, g);
    if (i != FX_INDEX_NONE)
        return rt->funcs.data[i].fn;
    fx_vec_foreach(FxFunc *, e, &rt->exprs) if ((*e)->g == g) return *e;
    return NULL;
}

/* Compiles g into funcs[i], indexed by its graph. */
static void compile_at(FxRuntime *rt, const FxGraph *g, uint32_t i)
{
    fx_compile(rt, g, rt->funcs.data[i].fn);
    fx_index_put(&rt->by_graph, g, i);
}

/* Compiles g into funcs[i], then every callee registered meanwhile
 * (pending); inside another compile, leaves those to the outermost one. */
static void compile_all(FxRuntime *rt, const FxGraph *g, uint32_t i)
{
    if (rt->compiling) {
        compile_at(rt, g, i);
        return;
    }
    rt->compiling = true;
    compile_at(rt, g, i);
    while (rt->pending.len) {
        Pending p = rt->pending.data[--rt->pending.len];
        compile_at(rt, fx_lower_intent(rt->prog, p.in), fx_index_get(&rt->by_name, p.in->key));
    }
    rt->compiling = false;
}

FxFunc *fx_runtime_func(FxRuntime *rt, const char *intent)
{
    FxFunc *known = func_named(rt, intent);
    if (known)
        return known;
    const FxIntent *in = fx_program_find_intent(rt->prog, intent);
    FX_CHECK(in, "no intent `%s` to compile", intent);
    FxFunc *f = fx_xcalloc(1, sizeof(*f));
    f->owns_graph = true;
    f->choice = chosen(rt, in->key);
    /* registered before compiling, so that recursive calls find it */
    add_func(rt, in->key, f);
    if (rt->compiling) { /* a callee of the function being compiled: after it */
        Pending p = {f, in};
        fx_vec_push(&rt->pending, p);
        return f;
    }
    compile_all(rt, fx_lower_intent(rt->prog, in), (uint32_t)rt->funcs.len - 1);
    return f;
}

bool fx_runtime_use_graph(FxRuntime *rt, FxGraph *g)
{
    const FxIntent *in = fx_program_find_intent(rt->prog, g->intent);
    if (!in || func_named(rt, in->key))
        return false;
    FxFunc *f = fx_xcalloc(1, sizeof(*f));
    f->owns_graph = true;
    f->choice = chosen(rt, in->key);
    add_func(rt, in->key, f);
    compile_all(rt, g, (uint32_t)rt->funcs.len - 1);
    return true;
}

const FxGraph *fx_runtime_graph(FxRuntime *rt, const char *intent)
{
    return fx_runtime_func(rt, intent)->g;
}

const FxProgram *fx_runtime_program(const FxRuntime *rt)
{
    return rt->prog;
}

/* The count of the block that computes node id; a node no instruction
 * computes (a parameter, a fused comparison) runs as often as its first
 * user does. */
static uint64_t node_count(const FxFunc *f, uint32_t id, int depth)
{
    for (uint32_t i = 0; i < f->n_code; i++)
        if (f->code[i].node == id)
            return f->block_counts[f->code[i].block];
    for (uint32_t n = id; depth < 8 && n < f->g->n_nodes; n++) {
        const FxNode *user = &f->g->nodes[n];
        for (uint32_t k = 0; k < user->n_inputs; k++)
            if (user->inputs[k].v == id)
                return node_count(f, n + 1, depth + 1);
    }
    return 0;
}

static uint64_t func_instructions(const FxFunc *f)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < f->n_code; i++)
        n += f->block_counts[f->code[i].block];
    return n;
}

uint64_t fx_runtime_instructions(FxRuntime *rt)
{
    uint64_t n = 0;
    fx_vec_foreach(NamedFunc, nf, &rt->funcs) n += func_instructions(nf->fn);
    fx_vec_foreach(FxFunc *, f, &rt->exprs) n += func_instructions(*f);
    return n;
}

uint64_t fx_runtime_node_ns(FxRuntime *rt, const FxGraph *g, FxNodeId id)
{
    const FxFunc *f = func_of_graph(rt, g);
    return f && id.v < f->n_node_ns ? f->node_ns[id.v] : 0;
}

const FxKTrace *fx_runtime_ktrace(const FxRuntime *rt)
{
    return &rt->ktrace;
}

uint64_t fx_runtime_node_count(FxRuntime *rt, const FxGraph *g, FxNodeId id)
{
    const FxFunc *f = func_of_graph(rt, g);
    return f ? node_count(f, id.v, 0) : 0;
}

/* ---- registers ---- */

static inline bool is_heap(FxValKind k)
{
    return k == FX_VAL_BIG || k >= FX_VAL_STRING;
}

/* Stores an owned value into a register, releasing what was there. */
static inline void put(FxValue *r, FxValue v)
{
    if (is_heap(r->kind))
        fx_heap_release(*r);
    *r = v;
}

static inline void put_int(FxValue *r, int64_t i)
{
    if (is_heap(r->kind))
        fx_heap_release(*r);
    r->kind_word = FX_VAL_INT;
    r->u.i = i;
}

static inline void put_float(FxValue *r, double f)
{
    if (is_heap(r->kind))
        fx_heap_release(*r);
    r->kind_word = FX_VAL_FLOAT;
    r->u.f = f;
}

/* a and b as doubles when one is a Float and the other a Float or an
 * int64: Float arithmetic without value.c's generic path, the same
 * doubles (value.c converts an int64 by C's cast too). */
static inline bool float_pair(FxValue a, FxValue b, double *x, double *y)
{
    if (a.kind == FX_VAL_FLOAT && (b.kind == FX_VAL_FLOAT || b.kind == FX_VAL_INT)) {
        *x = a.u.f;
        *y = b.kind == FX_VAL_FLOAT ? b.u.f : (double)b.u.i;
        return true;
    }
    if (b.kind == FX_VAL_FLOAT && a.kind == FX_VAL_INT) {
        *x = (double)a.u.i;
        *y = b.u.f;
        return true;
    }
    return false;
}

/* Two Floats, neither NaN: ordered as doubles (an int64 against a Float
 * compares exactly, in value.c; a NaN has no order, an error there). */
static inline bool float_ordered(FxValue a, FxValue b)
{
    return a.kind == FX_VAL_FLOAT && b.kind == FX_VAL_FLOAT && !isnan(a.u.f) && !isnan(b.u.f);
}

static inline void put_bool(FxValue *r, bool b)
{
    if (is_heap(r->kind))
        fx_heap_release(*r);
    r->kind_word = FX_VAL_BOOL;
    r->u.i = b;
}

/* The field consts[name] of the record rec, borrowed (() when it has none),
 * for the instruction at `at` of fn: its c is the position the field had in
 * the record it read last, and field_seen[at] the name there, a pointer.
 * The records met at one site are mostly of one type, whose names are one
 * array, so one pointer comparison finds the field; otherwise by name,
 * remembered for next time. Both are read and written relaxed by threads
 * that share fn: a pointer in field_seen is only ever a name equal to this
 * field's, so any pair read that compares equal is right. */
__attribute__((noinline)) static FxValue record_field(FxFunc *fn, size_t at, uint32_t name, const FxHeapObj *rec)
{
    size_t k = __atomic_load_n(&fn->code[at].c, __ATOMIC_RELAXED), n = rec->u.rec.n;
    const char *seen = __atomic_load_n(&fn->field_seen[at], __ATOMIC_RELAXED);
    if (k < n && rec->u.rec.names[k] == seen)
        return rec->u.rec.fields[k];
    size_t len;
    const char *want = fx_val_string_data(fn->consts[name], &len);
    for (k = 0; k < n && strcmp(rec->u.rec.names[k], want) != 0; k++)
        ;
    if (k == n) /* no such field (the checker's types rule it out) */
        return (FxValue){.kind_word = FX_VAL_UNIT};
    __atomic_store_n(&fn->code[at].c, (uint32_t)k, __ATOMIC_RELAXED);
    __atomic_store_n(&fn->field_seen[at], rec->u.rec.names[k], __ATOMIC_RELAXED);
    return rec->u.rec.fields[k];
}

static bool reserve(FxRuntime *rt, size_t bytes);

/* The register stack grows by doubling, charged to the meter: false (the
 * run stopped by its memory budget) when the doubling would not fit. It
 * stays charged while the runtime lives. */
static bool grow_stack(FxRuntime *rt, size_t need)
{
    size_t cap = rt->stack_cap ? rt->stack_cap : 1024;
    while (cap < need)
        cap *= 2;
    if (!reserve(rt, (cap - rt->stack_cap) * sizeof(FxValue)))
        return false;
    rt->stack = fx_xrealloc(rt->stack, cap * sizeof(FxValue));
    memset(rt->stack + rt->stack_cap, 0, (cap - rt->stack_cap) * sizeof(FxValue));
    rt->stack_cap = cap;
    return true;
}

/* Room for one more frame, the same way. */
static bool grow_frames(FxRuntime *rt)
{
    size_t cap = rt->frames_cap ? 2 * rt->frames_cap : 256;
    if (!reserve(rt, (cap - rt->frames_cap) * sizeof(Frame)))
        return false;
    rt->frames = fx_xrealloc(rt->frames, cap * sizeof(Frame));
    rt->frames_cap = cap;
    return true;
}

/* Lets go of fn's registers that may hold a heap value: by their list
 * where it is short, else (most of them) a walk of them all, which costs
 * less a register than the list. */
static void clear_heap_regs(FxValue *R, const FxFunc *fn)
{
    if (fn->n_heap_regs * 2 >= fn->n_regs) {
        for (uint32_t i = 0; i < fn->n_regs; i++)
            if (is_heap(R[i].kind)) {
                fx_heap_release(R[i]);
                R[i].kind_word = FX_VAL_UNIT;
            }
        return;
    }
    for (uint32_t i = 0; i < fn->n_heap_regs; i++) {
        FxValue *r = &R[fn->heap_regs[i]];
        if (is_heap(r->kind)) {
            fx_heap_release(*r);
            r->kind_word = FX_VAL_UNIT;
        }
    }
}

static void clear_regs(FxValue *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (is_heap(r[i].kind))
            fx_heap_release(r[i]);
        r[i].kind = FX_VAL_UNIT;
    }
}

/* ---- messages ---- */

static void where(const FxFunc *fn, uint32_t node, char *out, size_t len)
{
    const FxNode *n = node ? &fn->g->nodes[node - 1] : NULL;
    if (n && n->origin.file)
        snprintf(out, len, "%s:%u:%u: in `%s`", n->origin.file, n->origin.line, n->origin.col,
                 fn->g->intent);
    else
        snprintf(out, len, "in `%s`", fn->g->intent);
}

/* "f(1, [2, 3])" from the first n registers. */
static void show_call(const FxFunc *fn, const FxValue *args, uint32_t n, FxBuf *out)
{
    fx_buf_printf(out, "%s(", fn->g->intent);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            fx_buf_puts(out, ", ");
        FxBuf v = {0};
        fx_val_print(args[i], &v);
        if (v.len > 60)
            fx_buf_printf(out, "%.57s...", fx_buf_str(&v));
        else
            fx_buf_puts(out, fx_buf_str(&v));
        fx_buf_free(&v);
    }
    fx_buf_puts(out, ")");
}

static void fail(FxRuntime *rt, const FxFunc *fn, uint32_t node, const char *msg)
{
    char at[512];
    where(fn, node, at, sizeof(at));
    fx_error_set(&rt->error, FX_ERR_RUNTIME, "%s: %s", at, msg);
    const FxNode *n = node ? &fn->g->nodes[node - 1] : NULL;
    rt->error.graph = fn->g->intent;
    rt->error.node = node;
    if (n && n->origin.file) {
        rt->error.file = n->origin.file;
        rt->error.line = n->origin.line;
        rt->error.col = n->origin.col;
        rt->error.len = n->origin.len;
    }
}

/* A value operation failed: with the budget's message, as value.c wrote it,
 * when the meter refused it; else with the place. */
static void value_failed(FxRuntime *rt, const FxFunc *fn, uint32_t node, const FxError *err)
{
    if (fx_meter_state.stop == FX_STOP_NONE) {
        fail(rt, fn, node, err->message);
        return;
    }
    rt->stopped_by = fx_meter_state.stop;
    fx_error_set(&rt->error, FX_ERR_RUNTIME, "%s", err->message);
}

/* ---- budgets ----
 *
 * The loop counts steps down in a local (`fuel`) and calls refuel when it
 * runs out, every 2^16 steps; the operations that charge the meter (meter.h)
 * with work or bytes are followed by SPEND_WORK, which takes their work out
 * of the fuel, so big-number and kernel work brings the next check forward
 * and a stop the meter decided is seen before the next step.
 */

/* The message of the budget that stopped the run (depth writes its own). */
static void budget_error(FxRuntime *rt)
{
    rt->stopped_by = fx_meter_state.stop;
    if (fx_meter_state.stop != FX_STOP_DEPTH)
        fx_meter_message(NULL, rt->error.message, sizeof(rt->error.message));
}

/* The budgets that cost a clock read or a system call: the time on the
 * coarse clock, the stop the meter decided, and, at most every 10 ms, the
 * resident size as a backstop for what is not charged. */
static bool slow_budgets_ok(FxRuntime *rt)
{
    if (!fx_meter_poll() || !fx_meter_poll_resident()) {
        budget_error(rt);
        return false;
    }
    return true;
}

/* ---- the sampler ----
 *
 * Time per node is sampled, as a profiler samples: at each refuel the loop
 * gives the time since the previous refuel to the node it is at, and to the
 * call node of each function below it on the stack (the first SAMPLE_DEPTH
 * frames), once per function: a function's node_ns then add up to the time
 * it was on the stack, and an intent's call of another holds that time.
 * The loop refuels only at calls, loop iterations and after work charged
 * (a kernel, a big-number operation), so those are the nodes that get
 * time: straight-line work between them counts at the next one.
 * The allowances between refuels are drawn at random, geometric with a
 * mean of SAMPLE_MEAN steps, so that a loop whose body divides the
 * allowance does not land on the same node every time, and a run shorter
 * than an allowance is still sampled now and then. A kernel's work counts
 * as steps (SPEND_WORK), so the refuel after a long kernel lands on it and
 * gives it its time. The time after the last refuel of a run is given to
 * no node: the profiler reports shares of the time sampled (docs/web.md).
 */
#define SAMPLE_MEAN 8192.0
#define ALLOWANCE_MAX 0x40000
#define SAMPLE_DEPTH 64

static uint64_t next_allowance(FxRuntime *rt)
{
    uint64_t x = rt->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rt->rng = x;
    double a = -SAMPLE_MEAN * log(((double)(x >> 11) + 0.5) * 0x1.0p-53);
    return a < 1 ? 1 : a > ALLOWANCE_MAX ? ALLOWANCE_MAX : (uint64_t)a;
}

/* Gives `spent` to fn's node, unless sample `mark` gave fn its share. */
static void credit(FxFunc *fn, uint32_t node, uint64_t spent, uint64_t mark)
{
    if (fn->sample_mark == mark || node > fn->g->n_nodes)
        return;
    fn->sample_mark = mark;
    if (fn->n_node_ns <= node) { /* a recompiled function may have a bigger graph */
        uint32_t n = fn->g->n_nodes + 1;
        fn->node_ns = fx_xrealloc(fn->node_ns, n * sizeof(uint64_t));
        memset(fn->node_ns + fn->n_node_ns, 0, (n - fn->n_node_ns) * sizeof(uint64_t));
        fn->n_node_ns = n;
    }
    fn->node_ns[node] += spent;
}

static void sample(FxRuntime *rt, FxFunc *fn, uint32_t node, size_t nframes)
{
    uint64_t now = fx_ktrace_now(), spent = now - rt->sampled_at, mark = ++rt->samples;
    rt->sampled_at = now;
    credit(fn, node, spent, mark);
    /* frames[k], k >= 1, holds the caller of frame k and where it called */
    for (size_t k = 1; k < nframes && k < SAMPLE_DEPTH; k++)
        credit(rt->frames[k].fn, rt->frames[k].ret_pc[-1].node, spent, mark);
}

/* The step budget and the slow budgets: `used` steps were taken since the
 * last call, which the loop makes at node `node` of fn with nframes frames
 * (fn NULL: from outside the loop, not a sample). Returns the next
 * allowance, or 0 when a budget is exhausted. */
static uint64_t refuel(FxRuntime *rt, uint64_t used, FxFunc *fn, uint32_t node, size_t nframes)
{
    if (fn)
        sample(rt, fn, node, nframes);
    if (fx_meter_state.stop != FX_STOP_NONE) { /* the meter stopped the run */
        budget_error(rt);
        return 0;
    }
    fx_meter_state.work = 0; /* counted in `used` by SPEND_WORK */
    rt->stats.steps += used;
    if (rt->budgets.max_steps && rt->stats.steps >= rt->budgets.max_steps) {
        fx_meter_stop(FX_STOP_STEPS);
        budget_error(rt);
        return 0;
    }
    if (!slow_budgets_ok(rt))
        return 0;
    uint64_t left = rt->budgets.max_steps ? rt->budgets.max_steps - rt->stats.steps : UINT64_MAX;
    fx_meter_state.steps_left = left;
    uint64_t allowance = next_allowance(rt);
    return left < allowance ? left : allowance;
}

/* Takes the work the meter counted out of the loop's fuel; refuels (and
 * checks every budget) when it runs out. In the loop, after an operation
 * that may have charged the meter. */
#define SPEND_WORK()                                                                               \
    do {                                                                                           \
        uint64_t w_ = fx_meter_state.work;                                                         \
        if (w_) {                                                                                  \
            w_ = w_ / FX_METER_UNITS_PER_STEP;                                                     \
            fx_meter_state.work %= FX_METER_UNITS_PER_STEP;                                        \
            if (w_ < fuel)                                                                         \
                fuel -= w_;                                                                        \
            else if ((granted = fuel = refuel(rt, granted - fuel + w_, fn, I->node, nframes)) == 0)         \
                goto error;                                                                        \
        }                                                                                          \
    } while (0)

/* One step outside the loop (the bubble sort's comparisons): counted, with
 * the budgets checked as often as the loop checks them. */
static bool step_ok(FxRuntime *rt)
{
    if ((++rt->side_steps & 0xFFFF) != 0)
        return true;
    return refuel(rt, 0x10000, NULL, 0, 0) != 0;
}

/* The bits of n: about log2 n, for the work of a kernel. */
static uint64_t bits_of(uint64_t n)
{
    return n ? 64 - (uint64_t)__builtin_clzll(n) : 0;
}

/* Asks the meter for a kernel's buffer of `bytes`: false (the run stopped
 * by its memory budget) when it would not fit. Credit it with fx_meter_sub
 * once freed. */
static bool reserve(FxRuntime *rt, size_t bytes)
{
    if (fx_meter_charge(bytes))
        return true;
    budget_error(rt);
    return false;
}

/* ---- data sources ---- */

static void note_data_choice(FxRuntime *rt, const FxGraph *g, size_t n, const char *what,
                             const char *why);

static void drop_memo_tables(FxRuntime *rt)
{
    fx_vec_foreach(NamedFunc, nf, &rt->funcs)
    {
        if (nf->fn->memo) {
            fx_memo_free(&nf->fn->table, nf->fn->g->n_params);
            nf->fn->table = (FxMemoTable){0};
        }
    }
}

/* Drops the sources whose file changed since it was read, with the query
 * indexes on them, the memo tables (a memoized function may read one) and,
 * by moving the epoch on, the materialised results. Once an evaluation. */
static void check_sources(FxRuntime *rt)
{
    if (rt->checked == rt->evals)
        return;
    rt->checked = rt->evals;
    size_t kept = 0;
    for (size_t i = 0; i < rt->data.len; i++) {
        DataEntry *de = &rt->data.data[i];
        FxDataStamp now = fx_data_stamp_against(de->dd, &de->stamp);
        if (fx_data_stamp_equal(&now, &de->stamp)) {
            de->stamp = now; /* once aged, times alone tell a change */
            rt->data.data[kept++] = *de;
            continue;
        }
        size_t left = 0;
        fx_vec_foreach(QueryIndex, qi, &rt->indexes)
        {
            if (qi->list.u.obj != de->value.u.obj) {
                rt->indexes.data[left++] = *qi;
                continue;
            }
            fx_heap_release(qi->list);
            free(qi->ikeys);
            free(qi->skeys);
            free(qi->pos);
            fx_meter_sub(qi->charged);
        }
        rt->indexes.len = left;
        fx_heap_release(de->value);
        rt->data_epoch++;
    }
    if (kept < rt->data.len) {
        rt->data.len = kept;
        drop_memo_tables(rt);
    }
    kept = 0;
    fx_vec_foreach(FxKeepSource, w, &rt->watched)
    {
        FxDataStamp now = fx_data_stamp_against(w->dd, &w->stamp);
        if (fx_data_stamp_equal(&now, &w->stamp)) {
            w->stamp = now;
            rt->watched.data[kept++] = *w;
        }
        else
            rt->data_epoch++;
    }
    rt->watched.len = kept;
}

/* The declaration of data source `name`, or NULL. */
static const FxDataDecl *find_source(const FxRuntime *rt, const char *name)
{
    const FxDataDecl *dd = NULL;
    fx_vec_foreach(FxModule *, m, &rt->prog->modules)
    {
        fx_vec_foreach(FxDataDecl *, d, &(*m)->data) if (strcmp((*d)->name, name) == 0) dd = *d;
    }
    return dd;
}

static bool data_value(FxRuntime *rt, const char *name, FxValue *out)
{
    check_sources(rt);
    fx_vec_foreach(DataEntry, de, &rt->data)
    {
        if (strcmp(de->name, name) == 0) {
            fx_heap_retain(de->value);
            *out = de->value;
            return true;
        }
    }
    const FxDataDecl *dd = find_source(rt, name);
    FX_CHECK(dd, "no data source `%s`", name);
    /* stamped before reading: a write during the read leaves a stamp the
     * next check finds changed */
    DataEntry de = {.name = dd->name, .dd = dd, .stamp = fx_data_stamp(dd)};
    FxValue v;
    /* a CSV file's columns kept beside the store (colcache.h), unless the
     * file lies where its sources may not (then the loader says so) */
    char *outside = rt->column_cache && !strchr(dd->path, ':') && rt->prog->data_root
                            ? fx_data_outside(dd, rt->prog->data_root)
                            : NULL;
    const char *cache = rt->column_cache && !strchr(dd->path, ':') && !outside
                                ? rt->column_cache
                                : NULL;
    free(outside);
    if (!fx_colcache_load(cache, dd, &de.stamp, &v)) {
        if (fx_data_load(dd, rt->prog->data_root, &v, &rt->error) != FX_OK)
            return false;
        fx_colcache_save(cache, dd, &de.stamp, v);
    }
    de.value = v;
    fx_vec_push(&rt->data, de);
    fx_heap_retain(v);
    *out = v;
    return true;
}

static bool func_reads_data(FxFunc *fn, FxFunc **seen, size_t *n_seen, size_t cap)
{
    for (size_t i = 0; i < *n_seen; i++)
        if (seen[i] == fn)
            return false;
    if (*n_seen == cap)
        return true; /* too deep to tell: assume it does */
    seen[(*n_seen)++] = fn;
    for (uint32_t i = 0; i < fn->n_code; i++)
        if (fn->code[i].op == OP_DATA)
            return true;
    for (uint32_t i = 0; i < fn->n_callees; i++)
        if (func_reads_data(fn->callees[i], seen, n_seen, cap))
            return true;
    return false;
}

bool fx_runtime_reads_data(FxRuntime *rt, const char *intent)
{
    FxFunc *seen[256];
    size_t n = 0;
    return func_reads_data(fx_runtime_func(rt, intent), seen, &n, 256);
}

/* ---- materialised results ---- */

static FxKept *kept_row(FxFunc *fn, const FxValue *args, uint32_t n)
{
    for (uint32_t r = 0; r < fn->n_kept; r++) {
        bool same = true;
        for (uint32_t i = 0; same && i < n; i++)
            same = fx_val_equal(fn->kept[r].args[i], args[i]);
        if (same)
            return &fn->kept[r];
    }
    return NULL;
}

/* Adds the sources fn and its callees read to out (n of cap): false when
 * there are more than cap, or calls nest deeper than seen holds. */
static bool gather_sources(const FxRuntime *rt, const FxFunc *fn, const FxFunc **seen,
                           size_t *n_seen, const FxDataDecl **out, uint32_t *n, uint32_t cap)
{
    for (size_t i = 0; i < *n_seen; i++)
        if (seen[i] == fn)
            return true;
    if (*n_seen == 256)
        return false;
    seen[(*n_seen)++] = fn;
    for (uint32_t i = 0; i < fn->n_code; i++) {
        if (fn->code[i].op != OP_DATA)
            continue;
        const FxDataDecl *dd = find_source(rt, fx_val_string_data(fn->consts[fn->code[i].a], NULL));
        bool known = !dd;
        for (uint32_t j = 0; !known && j < *n; j++)
            known = out[j] == dd;
        if (!known && *n == cap)
            return false;
        if (!known)
            out[(*n)++] = dd;
    }
    for (uint32_t i = 0; i < fn->n_callees; i++)
        if (!gather_sources(rt, fn->callees[i], seen, n_seen, out, n, cap))
            return false;
    return true;
}

/* The sources fn may read, found once; NULL when they cannot be told
 * (then its results are not kept between processes). */
static const FxDataDecl **func_sources(const FxRuntime *rt, FxFunc *fn, uint32_t *n)
{
    if (!fn->n_sources) {
        const FxFunc *seen[256];
        size_t n_seen = 0;
        fn->sources = fx_xcalloc(64, sizeof(*fn->sources));
        fn->n_sources = 1;
        uint32_t got = 0;
        if (gather_sources(rt, fn, seen, &n_seen, fn->sources, &got, 64))
            fn->n_sources += got;
        else
            fn->n_sources = UINT32_MAX;
    }
    *n = fn->n_sources - 1;
    return fn->n_sources == UINT32_MAX ? NULL : fn->sources;
}

/* A source's stamp as this runtime trusts it: when read (or when a kept
 * result was read back), or else now. Caller ran check_sources. */
static FxDataStamp source_stamp(const FxRuntime *rt, const FxDataDecl *dd)
{
    fx_vec_foreach(DataEntry, de, &rt->data) if (de->dd == dd) return de->stamp;
    fx_vec_foreach(FxKeepSource, w, &rt->watched) if (w->dd == dd) return w->stamp;
    return fx_data_stamp(dd);
}

/* The stamps of fn's sources, for the keeper's bytes; NULL when fn's
 * results are not kept between processes. Caller frees. */
static FxKeepSource *stamped_sources(FxRuntime *rt, FxFunc *fn, uint32_t *n)
{
    const FxDataDecl **dd = rt->keeper.load ? func_sources(rt, fn, n) : NULL;
    if (!dd || !fx_program_find_intent(rt->prog, fn->g->intent))
        return NULL;
    FxKeepSource *s = fx_xcalloc(*n + 1, sizeof(*s));
    for (uint32_t i = 0; i < *n; i++)
        s[i] = (FxKeepSource){dd[i], source_stamp(rt, dd[i])};
    return s;
}

/* "intent(arg, ...)": what the keeper keeps k's bytes under. Caller frees. */
static char *kept_call(const FxFunc *fn, const FxKept *k)
{
    FxBuf b = {0};
    fx_buf_printf(&b, "%s(", fn->g->intent);
    for (uint32_t i = 0; i < fn->g->n_params; i++) {
        fx_buf_puts(&b, i ? ", " : "");
        fx_val_print(k->args[i], &b);
    }
    fx_buf_putc(&b, ')');
    return fx_buf_take(&b);
}

/* Reads k's result back from the keeper, once an epoch: true when it was
 * kept there with the stamps fn's sources have now. The sources it spares
 * reading are watched from then on. */
static bool load_kept(FxRuntime *rt, FxFunc *fn, FxKept *k)
{
    if (!rt->keeper.load || k->asked == rt->data_epoch + 1)
        return false;
    k->asked = rt->data_epoch + 1;
    uint32_t n;
    FxKeepSource *src = stamped_sources(rt, fn, &n);
    char *call = src ? kept_call(fn, k) : NULL, *bytes = NULL;
    size_t len = 0;
    FxValue v;
    /* a value takes a few times its bytes: read it only within the budget */
    bool ok = src && rt->keeper.load(rt->keeper.ctx, fn->g, call, &bytes, &len) &&
              fx_meter_room() / 16 > len &&
              fx_keep_decode(bytes, len, fx_program_find_intent(rt->prog, fn->g->intent)->ret,
                             src, n, &v) == FX_KEEP_OK;
    if (ok) {
        if (k->has)
            fx_heap_release(k->value);
        *k = (FxKept){k->args, v, true, true, rt->data_epoch, k->asked};
        for (uint32_t i = 0; i < n; i++) {
            bool read = false;
            fx_vec_foreach(DataEntry, de, &rt->data) read |= de->dd == src[i].dd;
            fx_vec_foreach(FxKeepSource, w, &rt->watched) read |= w->dd == src[i].dd;
            if (!read)
                fx_vec_push(&rt->watched, src[i]);
        }
    }
    free(bytes);
    free(call);
    free(src);
    return ok;
}

/* The result kept for these arguments, when the sources are unchanged
 * since it was computed (borrowed), or NULL. */
static const FxValue *kept_result(FxRuntime *rt, FxFunc *fn, const FxValue *args, uint32_t n)
{
    FxKept *k = kept_row(fn, args, n);
    if (!k)
        return NULL;
    check_sources(rt);
    if (!(k->has && k->epoch == rt->data_epoch) && !load_kept(rt, fn, k))
        return NULL;
    FxBuf why = {0};
    fx_buf_printf(&why, "%s(", fn->g->intent);
    for (uint32_t i = 0; i < n; i++) {
        fx_buf_puts(&why, i ? ", " : "");
        fx_val_print(args[i], &why);
    }
    fx_buf_puts(&why, k->from_store ? ") was kept in the store by an earlier run, and its "
                                      "sources are unchanged since ("
                                    : ") was computed before, and its sources are unchanged "
                                      "since (");
    size_t rows = 0; /* what the kept result spares reading: it ranks as that large an input */
    fx_vec_foreach(DataEntry, de, &rt->data)
        rows += de->value.kind == FX_VAL_LIST ? fx_val_list_len(de->value) : 0;
    uint32_t n_src = 0;
    const FxDataDecl **src = func_sources(rt, fn, &n_src);
    for (uint32_t i = 0; src && i < n_src; i++) {
        const char *slash = strrchr(src[i]->path, '/');
        fx_buf_printf(&why, "%s%s", i ? ", " : "", slash ? slash + 1 : src[i]->path);
    }
    fx_buf_puts(&why, ": the same size and times)");
    note_data_choice(rt, fn->g, rows, "materialised result", fx_buf_str(&why));
    fx_buf_free(&why);
    return &k->value;
}

/* Keeps v, just computed for a materialised row, in the runtime and with
 * the keeper (when its type and size allow). */
static void keep_result(FxRuntime *rt, FxFunc *fn, const FxValue *args, FxValue v)
{
    FxKept *k = kept_row(fn, args, fn->g->n_params);
    if (!k)
        return;
    if (k->has)
        fx_heap_release(k->value);
    fx_heap_retain(v);
    k->value = v;
    k->has = true;
    k->from_store = false;
    k->epoch = rt->data_epoch;
    uint32_t n;
    FxKeepSource *src = rt->keeper.save ? stamped_sources(rt, fn, &n) : NULL;
    FxBuf bytes = {0};
    if (src && fx_keep_encode(v, fx_program_find_intent(rt->prog, fn->g->intent)->ret, src, n,
                              &bytes)) {
        char *call = kept_call(fn, k);
        rt->keeper.save(rt->keeper.ctx, fn->g, call, bytes.data, bytes.len);
        free(call);
    }
    fx_buf_free(&bytes);
    free(src);
}

void fx_runtime_set_keeper(FxRuntime *rt, const FxKeeper *k)
{
    rt->keeper = k ? *k : (FxKeeper){0};
}

void fx_runtime_set_column_cache(FxRuntime *rt, const char *dir)
{
    free(rt->column_cache);
    rt->column_cache = dir ? fx_xstrdup(dir) : NULL;
}

/* ---- the operations that are not one line ---- */

static bool natural_args_ok(FxRuntime *rt, const FxFunc *callee, const FxValue *args,
                            const FxFunc *caller, uint32_t node)
{
    for (uint32_t i = 0; i < callee->g->n_params; i++) {
        if (!callee->natural_param[i] || (args[i].kind == FX_VAL_INT && args[i].u.i >= 0) ||
            !fx_val_is_integer(args[i]) || fx_val_int_sign(args[i]) >= 0)
            continue;
        FxBuf v = {0};
        fx_val_print(args[i], &v);
        char *msg = fx_xasprintf("`%s` was called with %s = %s, but parameter `%s` is a "
                                 "Natural (no negative values)", callee->g->intent,
                                 callee->g->param_names[i], fx_buf_str(&v),
                                 callee->g->param_names[i]);
        fail(rt, caller ? caller : callee, caller ? node : 0, msg);
        free(msg);
        fx_buf_free(&v);
        return false;
    }
    return true;
}

static bool index_ok(FxRuntime *rt, const FxFunc *fn, uint32_t node, FxValue i, size_t len,
                     const char *what, size_t *out)
{
    int64_t k;
    if (fx_val_to_int64(i, &k) && k >= 0 && (uint64_t)k < len) {
        *out = (size_t)k;
        return true;
    }
    FxBuf b = {0};
    fx_val_print(i, &b);
    char *msg = fx_xasprintf("index %s is out of range for a %s of %zu", fx_buf_str(&b), what,
                             len);
    fail(rt, fn, node, msg);
    free(msg);
    fx_buf_free(&b);
    return false;
}

static bool make_range(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                       FxValue *out)
{
    int64_t lo, hi;
    if (!fx_val_to_int64(R[I->a], &lo) || !fx_val_to_int64(R[I->b], &hi) ||
        (I->c && hi == INT64_MAX) || (hi - lo > (int64_t)1 << 31 && hi > lo)) {
        fail(rt, fn, I->node, "a range too large to build as a list");
        return false;
    }
    if (I->c)
        hi++;
    size_t n = hi > lo ? (size_t)(hi - lo) : 0;
    if (!reserve(rt, n * sizeof(FxValue)))
        return false;
    FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++)
        items[i] = fx_val_int(lo + (int64_t)i);
    *out = fx_val_list_adopt(items, n, n, true);
    fx_meter_work(n);
    return true;
}

/* The naive sort of version 1: a bubble sort, stable, by keys if given. */
static bool join_matches(FxRuntime *rt, FxValue keys, FxValue key, FxValue *out)
{
    JoinIndex *x = &rt->join;
    size_t n = fx_val_list_len(keys);
    if (x->keys.kind != FX_VAL_LIST || x->keys.u.obj != keys.u.obj) {
        size_t cap = 16;
        while (cap < 2 * n)
            cap *= 2;
        if (!fx_meter_afford(n, (3 * cap + n + 1) * sizeof(size_t))) {
            budget_error(rt);
            return false;
        }
        join_index_free(x);
        fx_heap_retain(keys);
        x->keys = keys;
        x->cap = 16;
        while (x->cap < 2 * n)
            x->cap *= 2;
        x->slot = fx_xcalloc(x->cap, sizeof(size_t));
        x->next = fx_xcalloc(n + 1, sizeof(size_t));
        size_t *last = fx_xcalloc(x->cap, sizeof(size_t)); /* 1 + the last position per slot */
        for (size_t p = 0; p < n; p++) {
            FxValue k = fx_val_list_at(keys, p);
            size_t h = (size_t)fx_val_hash(k) & (x->cap - 1);
            while (x->slot[h] && !fx_val_equal(fx_val_list_at(keys, x->slot[h] - 1), k))
                h = (h + 1) & (x->cap - 1);
            if (!x->slot[h])
                x->slot[h] = p + 1;
            else
                x->next[last[h] - 1] = p + 1;
            last[h] = p + 1;
        }
        free(last);
    }
    size_t h = (size_t)fx_val_hash(key) & (x->cap - 1);
    while (x->slot[h] && !fx_val_equal(fx_val_list_at(keys, x->slot[h] - 1), key))
        h = (h + 1) & (x->cap - 1);
    FX_VEC(int64_t) pos = {0};
    for (size_t p = x->slot[h]; p; p = x->next[p - 1])
        fx_vec_push(&pos, (int64_t)(p - 1));
    *out = fx_val_list_of_i64(pos.data, pos.len);
    fx_vec_free(&pos);
    return true;
}

/* The elements of list in groups of equal key (keys[i] is element i's), the
 * groups in the order of their first elements: one pass with a hash table
 * from key to group (open addressing, at most half full). */
static bool group_by_key(FxRuntime *rt, FxValue list, FxValue keys, FxValue *out)
{
    size_t n = fx_val_list_len(list), cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    /* the table, and the groups' elements held twice at most */
    if (!fx_meter_afford(n, cap * sizeof(size_t) + 3 * n * sizeof(FxValue))) {
        budget_error(rt);
        return false;
    }
    size_t *slot = fx_xmalloc(cap * sizeof(size_t)); /* group index + 1; 0: empty */
    memset(slot, 0, cap * sizeof(size_t));
    FX_VEC(ValueVec) groups = {0};
    FX_VEC(size_t) first = {0}; /* each group's first element, for its key */
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        FxValue k = fx_val_list_at(keys, i);
        size_t h = (size_t)fx_val_hash(k) & (cap - 1);
        while (slot[h] && !fx_val_equal(fx_val_list_at(keys, first.data[slot[h] - 1]), k))
            h = (h + 1) & (cap - 1);
        if (!slot[h]) {
            ValueVec g = {0};
            fx_vec_push(&groups, g);
            fx_vec_push(&first, i);
            slot[h] = groups.len;
        }
        FxValue x = fx_val_list_at(list, i);
        fx_heap_retain(x);
        fx_vec_push(&groups.data[slot[h] - 1], x);
        ok = step_ok(rt);
    }
    FxValue *lists = fx_xmalloc((groups.len + 1) * sizeof(FxValue));
    for (size_t g = 0; g < groups.len; g++) {
        lists[g] = fx_val_list_take(groups.data[g].data, groups.data[g].len);
        fx_vec_free(&groups.data[g]);
    }
    if (ok)
        *out = fx_val_list_take(lists, groups.len);
    else
        for (size_t g = 0; g < groups.len; g++)
            fx_heap_release(lists[g]);
    free(lists);
    fx_vec_free(&groups);
    fx_vec_free(&first);
    free(slot);
    return ok;
}

static bool bubble_sort(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                        FxValue *out)
{
    FxValue list = R[I->a];
    size_t n = fx_val_list_len(list);
    bool keyed = I->b != FX_NO_REG, ok = true;
    size_t peak = (keyed ? 2 : 1) * n * sizeof(FxValue); /* the items become the list */
    if (!reserve(rt, peak))
        return false;
    FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    FxValue *keys = keyed ? fx_xmalloc((n ? n : 1) * sizeof(FxValue)) : items;
    for (size_t i = 0; i < n; i++) {
        items[i] = fx_val_list_at(list, i);
        fx_heap_retain(items[i]);
        if (keyed)
            keys[i] = fx_val_list_at(R[I->b], i);
    }
    for (size_t pass = 0; ok && pass + 1 < n; pass++) {
        for (size_t j = 0; ok && j + 1 < n - pass; j++) {
            bool ordered;
            int c = fx_val_compare(keys[j], keys[j + 1], &ordered);
            if (!ordered) {
                fail(rt, fn, I->node, "these elements have no order to sort by");
                ok = false;
            } else if (!step_ok(rt)) {
                ok = false;
            } else if (I->c & 1 ? c < 0 : c > 0) {
                FxValue t = items[j];
                items[j] = items[j + 1];
                items[j + 1] = t;
                if (keyed) {
                    t = keys[j];
                    keys[j] = keys[j + 1];
                    keys[j + 1] = t;
                }
            }
        }
    }
    if (keyed)
        free(keys);
    fx_meter_sub(peak - n * sizeof(FxValue)); /* the keys */
    if (ok) {
        *out = fx_val_list_adopt(items, n, n, false);
        return true;
    }
    for (size_t i = 0; i < n; i++)
        fx_heap_release(items[i]);
    free(items);
    fx_meter_sub(n * sizeof(FxValue));
    return false;
}

/* ---- forced variants (FluxRunOptions.variant) ---- */

/* The i-th variant of a kernel with a choice (FX_CHOICE_*), NULL past the last. */
static const char *kernel_variant(unsigned kernel, int i)
{
    switch (kernel) {
    case FX_CHOICE_RECURRENCE: return i < 2 ? fx_graph_variant_name(1u << i) : NULL;
    case FX_CHOICE_SORT: return i < FX_SORTK__COUNT ? fx_sortk_name((FxSortKind)i) : NULL;
    case FX_CHOICE_SIEVE: return i < FX_SIEVE__COUNT ? fx_sieve_name((FxSieveKind)i) : NULL;
    default: return NULL;
    }
}

void fx_variant_names(unsigned kernels, FxBuf *out)
{
    const char *sep = "";
    for (unsigned k = 1; k <= kernels && k; k <<= 1)
        for (int i = 0; (kernels & k) && kernel_variant(k, i); i++, sep = ", ")
            fx_buf_printf(out, "%s%s", sep, kernel_variant(k, i));
}

void fx_runtime_force_variant(FxRuntime *rt, const char *name)
{
    rt->forced_variant = name;
}

bool fx_runtime_forced_used(const FxRuntime *rt)
{
    return rt->forced_used;
}

unsigned fx_runtime_choice_kernels(const FxRuntime *rt)
{
    return rt->choice_kernels;
}

const char *fx_runtime_variant_taken(const FxRuntime *rt)
{
    return rt->variant_taken;
}

/* A kernel's choice point on an input of size n: its own choice `chosen`
 * (by position), unless the caller forced another variant it has
 * (*forced); noted for the run, the variant of its largest input kept. */
static int choice_point(FxRuntime *rt, unsigned kernel, int chosen, uint64_t n, bool *forced)
{
    rt->choice_kernels |= kernel;
    *forced = false;
    for (int i = 0; rt->forced_variant && kernel_variant(kernel, i); i++)
        if (!strcmp(kernel_variant(kernel, i), rt->forced_variant))
            chosen = i, *forced = rt->forced_used = true;
    if (!rt->variant_taken || n > rt->variant_taken_n) {
        rt->variant_taken = kernel_variant(kernel, chosen);
        rt->variant_taken_n = n;
    }
    return chosen;
}

/* ---- the evolved sort: a kernel chosen per call ---- */

const char *fx_runtime_data_choice(const FxRuntime *rt, const FxGraph **made_by)
{
    if (made_by)
        *made_by = rt->data_choice[0] ? rt->data_choice_graph : NULL;
    return rt->data_choice[0] ? rt->data_choice : NULL;
}

static void device_plan(FxRuntime *rt, FxFunc *f);
static const char *mpi_choice(FxRuntime *rt, const FxFunc *fn, double work, double floor,
                              char *why, size_t len);
static void mpi_point(FxRuntime *rt, const FxFunc *fn, double work, double floor, bool split);

/* The device model's points for f's intent, measured on f's version (those
 * of another version are dropped: it is measured afresh). */
static FxDevCost *device_cost(FxRuntime *rt, const FxFunc *f)
{
    FxDevCost *cost = fx_devcosts_get(&rt->dev_costs, f->g->intent, true);
    int64_t version = f->g->version ? strtoll(f->g->version + 1, NULL, 10) : 0;
    if (cost->version != version)
        *cost = (FxDevCost){.version = version};
    return cost;
}

bool fx_runtime_device_explain(FxRuntime *rt, const char *intent, const FxValue *args,
                               int64_t element, int64_t col, FxBuf *out)
{
    if (!fx_program_find_intent(rt->prog, intent))
        return false;
    FxFunc *f = fx_runtime_func(rt, intent);
    device_plan(rt, f);
    bool forced = rt->device_mode == FX_DEVICE_MODE_OPENCL;
    size_t items = 0;
    if (!f->cl || !fx_offload_items(f->g, f->cl, args, &items)) {
        if (forced) /* unforced, a call no device can take has nothing to say */
            fx_buf_printf(out, "cpu: %s\n", f->cl_why ? f->cl_why : "sizes past 64 bits");
        return forced;
    }
    char why[320] = "forced (--device opencl, FLUX_DEVICE)";
    if (!forced) {
        FxDevCost *cost = device_cost(rt, f);
        if (items < FX_DEVCOST_MIN_ITEMS) {
            fx_buf_printf(out, "cpu: %zu items, fewer than the %d a device is considered for\n",
                          items, FX_DEVCOST_MIN_ITEMS);
            return true;
        }
        FxClInfo info = {0};
        bool present = fx_cl_probe(&info);
        char label[160];
        snprintf(label, sizeof(label), "OpenCL on %s", info.device);
        if (!present || fx_devcost_choose(cost, FX_DEVCOST_OPENCL, (double)items, label, why,
                                          sizeof(why)) == FX_DEVCOST_CPU) {
            fx_buf_printf(out, "cpu: %s\n", present ? why : info.note);
            return true;
        }
    }
    FxOffloadNote note;
    FxValue v;
    FxOffloadStatus st = fx_offload_run(rt, f->g, f->cl, args, &v, &note);
    if (st != FX_OFFLOAD_DONE) {
        fx_buf_printf(out, "cpu: %s; %s\n", why, note.why);
        return true;
    }
    fx_heap_release(v);
    fx_buf_printf(out, "opencl: %s; %s\n", why, note.why);
    if (element >= 0 && (size_t)element < items && note.dims == 1 && f->cl->shape != FX_CL_SHAPE_REDUCE)
        fx_buf_printf(out, "element %lld: computed on %s by work-item %lld of work-group %lld "
                      "(global id %lld; %zu items a group)\n", (long long)element, note.device,
                      (long long)(element % (int64_t)note.local[0]),
                      (long long)(element / (int64_t)note.local[0]), (long long)element,
                      note.local[0]);
    else if (element >= 0 && col >= 0 && note.dims == 2)
        fx_buf_printf(out, "cell [%lld, %lld]: computed on %s by work-item [%lld, %lld] of "
                      "work-group [%lld, %lld] (global id [%lld, %lld]; %zu x %zu items a "
                      "group)\n", (long long)element, (long long)col, note.device,
                      (long long)(element % (int64_t)note.local[0]),
                      (long long)(col % (int64_t)note.local[1]),
                      (long long)(element / (int64_t)note.local[0]),
                      (long long)(col / (int64_t)note.local[1]), (long long)element,
                      (long long)col, note.local[0], note.local[1]);
    else if (element >= 0 && note.dims == 2)
        fx_buf_printf(out, "row %lld: computed on %s by the work-items [%lld, j] of work-groups "
                      "[%lld, j / %zu] (%zu x %zu items a group)\n", (long long)element,
                      note.device, (long long)(element % (int64_t)note.local[0]),
                      (long long)(element / (int64_t)note.local[0]), note.local[1],
                      note.local[0], note.local[1]);
    fx_buf_printf(out, "independent: %s\n", fx_clgen_proof(f->cl));
    return true;
}

FxDevCosts *fx_runtime_dev_costs(FxRuntime *rt)
{
    return &rt->dev_costs;
}

void fx_runtime_device_observe(FxRuntime *rt, double ms)
{
    if (!rt->dev_pending.on)
        return;
    rt->dev_pending.on = false;
    for (uint32_t i = 0; i < rt->dev_costs.n; i++) {
        if (strcmp(rt->dev_costs.e[i].key, rt->dev_pending.intent) != 0)
            continue;
        double paid = ms - rt->dev_pending.once_ms; /* a first compile is paid once */
        fx_devcost_observe(&rt->dev_costs.e[i].cost, rt->dev_pending.dev, rt->dev_pending.items,
                           paid > 0 ? paid : ms);
        rt->dev_costs.e[i].refitted = true;
    }
}

const char *fx_runtime_device_choice(const FxRuntime *rt)
{
    return rt->device_choice[0] ? rt->device_choice : NULL;
}

/* Keeps the choice made for the run's largest input, for the record. */
static void note_data_choice(FxRuntime *rt, const FxGraph *g, size_t n, const char *what,
                             const char *why)
{
    if (n >= rt->data_choice_n) {
        rt->data_choice_n = n;
        rt->data_choice_graph = g;
        FxBuf b = {0}; /* a reason may be long: cut to the record's room */
        fx_buf_printf(&b, "%s: %s", what, why);
        snprintf(rt->data_choice, sizeof(rt->data_choice), "%.*s",
                 (int)sizeof(rt->data_choice) - 1, fx_buf_str(&b));
        fx_buf_free(&b);
    }
}

/* A key and the position of its item: what a sort by key moves. The key
 * comes first, so key_order reads a KeyAt as it reads a bare value. */
typedef struct KeyAt {
    FxValue key;
    uint64_t at;
} KeyAt;

/* Ascending, or descending when *desc. */
static int key_order(void *desc, const void *a, const void *b)
{
    bool ordered;
    int c = fx_val_compare(*(const FxValue *)a, *(const FxValue *)b, &ordered);
    return !ordered ? FX_SORT_UNORDERED : *(const bool *)desc ? -c : c;
}

/* A stable sort of items by keys (any values with an order; the items
 * themselves when keys is items): the evolved sort of lists that are not
 * all int64. */
static bool merge_values(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, FxValue *items,
                         const FxValue *keys, size_t n, bool desc)
{
    bool ok;
    if (keys == items) {
        ok = fx_merge_sort(items, n, sizeof(FxValue), key_order, &desc);
    } else {
        KeyAt *p = fx_xmalloc((n ? n : 1) * sizeof(KeyAt));
        for (size_t i = 0; i < n; i++)
            p[i] = (KeyAt){keys[i], i};
        ok = fx_merge_sort(p, n, sizeof(KeyAt), key_order, &desc);
        FxValue *sorted = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
        for (size_t i = 0; ok && i < n; i++)
            sorted[i] = items[p[i].at];
        if (ok)
            memcpy(items, sorted, n * sizeof(FxValue));
        free(sorted);
        free(p);
    }
    if (!ok)
        fail(rt, fn, I->node, "these elements have no order to sort by");
    return ok;
}

/* Sorts the int64 keys k[0..n) on the kernel the model chooses, timing it
 * for the model; false when its scratch memory could not be had. */
static bool sort_keys(FxRuntime *rt, int64_t *k, FxSortPair *p, size_t n, bool desc, char *why,
                      size_t why_len)
{
    FxSortFeatures f;
    fx_sortk_features(k, n, &f);
    unsigned threads = fx_device_threads(fx_device_cpu(), (double)n, FX_SORTK_PARALLEL_MIN);
    FxSortKind kind = fx_choose_sort(&rt->sort_costs, &f, threads, why, why_len);
    bool forced;
    kind = (FxSortKind)choice_point(rt, FX_CHOICE_SORT, (int)kind, n, &forced);
    if (forced)
        snprintf(why, why_len, "%s: forced by the caller, n = %zu", fx_sort_kernel_name(kind, n),
                 n);
    if (p) { /* by key: pairs, whose costs the int64 model does not measure */
        for (size_t i = 0; i < n; i++)
            p[i] = (FxSortPair){k[i], i};
        return fx_sortk_by_key(kind, p, n, desc, threads);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool ok = fx_sortk(kind, k, n, desc, threads);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (ok)
        fx_sortcost_observe(&rt->sort_costs, kind, &f, threads,
                            (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                                (double)(t1.tv_nsec - t0.tv_nsec));
    return ok;
}

static bool kernel_sort(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                        FxValue *out)
{
    FxValue list = R[I->a];
    size_t n = fx_val_list_len(list);
    bool keyed = I->b != FX_NO_REG, desc = I->c & 1, ints = true;
    /* the most any path holds at once, result included, in bytes an element:
     * the keys (8) and a kernel's scratch (16) and the result (16), or with
     * the items, keys and merge or pair buffers, 104 */
    const int64_t *unboxed = keyed ? NULL : fx_val_list_ints(list);
    bool plain = !keyed;
    for (size_t i = 0; i < n && plain && !unboxed; i++)
        plain = fx_val_list_at(list, i).kind == FX_VAL_INT;
    size_t peak = n * (plain ? 40 : 104);
    if (!reserve(rt, peak))
        return false;
    fx_meter_work(n * (bits_of(n) + 1)); /* about n log2 n comparisons or moves */
    int64_t *k = malloc((n ? n : 1) * sizeof(int64_t));
    if (!k) {
        fx_meter_sub(peak);
        return bubble_sort(rt, fn, I, R, out);
    }
    if (unboxed && n)
        memcpy(k, unboxed, n * sizeof(int64_t));
    for (size_t i = 0; i < n && ints && !unboxed; i++) {
        FxValue x = fx_val_list_at(keyed ? R[I->b] : list, i);
        ints = x.kind == FX_VAL_INT;
        k[i] = ints ? x.u.i : 0;
    }
    char why[320];
    bool ok = true, no_memory = false;
    FxSplit split = FX_SPLIT_LOCAL; /* across the ranks of a cluster (exec/cluster.h)? */
    if (ints && !keyed) { /* the common case: the sorted keys are the list */
        char chose[320];
        const char *chosen = mpi_choice(rt, fn, (double)n, FX_CLUSTER_SORT_FROM, chose,
                                        sizeof(chose));
        split = fx_cluster_sort(&rt->sort_costs, k, n, desc, chosen, why, sizeof(why));
        mpi_point(rt, fn, (double)n, FX_CLUSTER_SORT_FROM, split == FX_SPLIT_DONE);
        ok = split == FX_SPLIT_DONE || (split == FX_SPLIT_LOCAL &&
                                        sort_keys(rt, k, NULL, n, desc, why, sizeof(why)));
        no_memory = !ok && split == FX_SPLIT_LOCAL;
        if (ok) { /* the list keeps the sorted array: no copy */
            *out = fx_val_list_adopt_ints(k, n);
            k = NULL;
        }
    } else {
        FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
        for (size_t i = 0; i < n; i++) {
            items[i] = fx_val_list_at(list, i);
            fx_heap_retain(items[i]);
        }
        if (!ints) { /* strings, big integers, keys of any order: merge sort */
            FxValue *keys = keyed ? fx_xmalloc((n ? n : 1) * sizeof(FxValue)) : items;
            for (size_t i = 0; keyed && i < n; i++)
                keys[i] = fx_val_list_at(R[I->b], i);
            ok = merge_values(rt, fn, I, items, keys, n, desc);
            if (keyed)
                free(keys);
            snprintf(why, sizeof(why), "merge: n = %zu values that are not all 64-bit integers",
                     n);
        } else {
            FxSortPair *p = malloc((n ? n : 1) * sizeof(FxSortPair));
            ok = p && sort_keys(rt, k, p, n, desc, why, sizeof(why));
            no_memory = !ok;
            if (ok) {
                FxValue *sorted = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
                for (size_t i = 0; i < n; i++)
                    sorted[i] = items[p[i].index];
                memcpy(items, sorted, n * sizeof(FxValue));
                free(sorted);
            }
            free(p);
        }
        if (ok) {
            *out = fx_val_list_take(items, n);
        } else {
            for (size_t i = 0; i < n; i++)
                fx_heap_release(items[i]);
        }
        free(items); /* fx_val_list_take copied the references */
    }
    free(k);
    fx_meter_sub(peak);
    if (no_memory || split == FX_SPLIT_FAILED)
        fail(rt, fn, I->node, no_memory ? "no memory for the sort's scratch buffer" : why);
    if (!ok)
        return false;
    if (split == FX_SPLIT_DONE) {
        note_data_choice(rt, fn->g, n, "mpi", why);
        fx_fault_inject("kernel:sort", out); /* tests only: fault.h */
        return true;
    }
    const char *colon = strchr(why, ':');
    char what[64];
    snprintf(what, sizeof(what), "sort kernel %.*s", colon ? (int)(colon - why) : 5, why);
    note_data_choice(rt, fn->g, n, what, colon ? colon + 2 : why);
    fx_fault_inject("kernel:sort", out); /* tests only: fault.h */
    return true;
}

/* ---- the evolved comprehension over primes: a sieve kernel per call ---- */

static bool kernel_keep_going(void *ctx);

/* The primes p of [lo, hi) for which every p + c (c in the list `offsets`)
 * is prime too, listed or counted: one sieve of each window of 2^26 numbers
 * and the offsets beyond it, read a word of bits at a time (twin primes,
 * prime quadruplets: fx_primeset_tuples). */
static bool primes_run(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, uint64_t lo,
                       uint64_t hi, FxValue *out);

/* A count of tuples over a window's set, split in ranges across the CPU
 * device's threads (the set is only read; each range's count is its own). */
typedef struct TupleCount {
    const FxPrimeSet *set;
    uint64_t lo, hi;
    const uint64_t *c;
    size_t n;
    unsigned parts;
    uint64_t counts[64];
} TupleCount;

static void tuple_count_task(void *arg, size_t t)
{
    TupleCount *j = arg;
    uint64_t span = (j->hi - j->lo) / j->parts, a = j->lo + span * t;
    uint64_t b = t + 1 == j->parts ? j->hi : a + span;
    j->counts[t] = fx_primeset_tuples(j->set, a, b, j->c, j->n, NULL);
}

static uint64_t count_tuples(const FxPrimeSet *set, uint64_t lo, uint64_t hi, const uint64_t *c,
                             size_t n, unsigned threads)
{
    TupleCount j = {set, lo, hi, c, n, threads < 64 ? threads : 64, {0}};
    if (j.parts <= 1)
        return fx_primeset_tuples(set, lo, hi, c, n, NULL);
    fx_device_launch(fx_device_cpu(), j.parts, tuple_count_task, &j, NULL);
    uint64_t total = 0;
    for (unsigned t = 0; t < j.parts; t++)
        total += j.counts[t];
    return total;
}

static bool primes_tuple(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, FxValue offsets,
                         uint64_t lo, uint64_t hi, bool count, size_t segment, FxValue *out)
{
    size_t n = fx_val_list_len(offsets);
    uint64_t c[8], reach = 0;
    FxBuf shown = {0};
    for (size_t i = 0; i < n && i < 8; i++) {
        c[i] = (uint64_t)fx_val_list_at(offsets, i).u.i;
        reach = c[i] > reach ? c[i] : reach;
        fx_buf_printf(&shown, "%sp + %llu", i ? ", " : "", (unsigned long long)c[i]);
    }
    if (hi > FX_SIEVE_HI_MAX - reach) {
        fx_buf_free(&shown);
        fail(rt, fn, I->node, "a range of primes beyond 2^63");
        return false;
    }
    unsigned threads =
            fx_device_threads(fx_device_cpu(), (double)(hi - lo), FX_SIEVE_PARALLEL_FROM);
    char why[240];
    snprintf(why, sizeof(why), "[%llu, %llu): one sieve a window of up to 2^26 numbers, each "
             "prime p kept when %s %s prime too, on %u thread%s", (unsigned long long)lo,
             (unsigned long long)hi, fx_buf_str(&shown), n == 1 ? "is" : "are", threads,
             threads == 1 ? "" : "s");
    fx_buf_free(&shown);
    note_data_choice(rt, fn->g, hi > lo ? hi - lo : 0, "sieve tuples", why);
    FxPrimes kept = {0};
    uint64_t how_many = 0;
    const uint64_t window = (uint64_t)1 << 26;
    for (uint64_t wlo = lo; wlo < hi; wlo = hi - wlo > window ? wlo + window : hi) {
        uint64_t whi = hi - wlo > window ? wlo + window : hi;
        FxPrimeSet s;
        if (!fx_sieve_set(wlo, whi + reach, threads, segment, &s, kernel_keep_going, rt)) {
            fx_primes_free(&kept);
            return false;
        }
        how_many += count ? count_tuples(&s, wlo, whi, c, n < 8 ? n : 8, threads)
                          : fx_primeset_tuples(&s, wlo, whi, c, n < 8 ? n : 8, &kept);
        fx_primeset_free(&s);
    }
    *out = count ? fx_val_int((int64_t)how_many) : fx_val_list_of_u64(kept.v, kept.len);
    fx_primes_free(&kept);
    return true;
}

/* The most a sieve of [lo, hi) holds at once, in bytes, besides the list
 * value it returns (charged when it is made): the sieving primes up to
 * sqrt(hi) (their bitmap, and a copy with its state on each thread), a
 * segment a thread or the plain sieve's bitmap or a window's, and, when the
 * primes are listed, the kernel's list of them with its growth (16 bytes a
 * prime). There are at most 2 n / ln n primes in a range of n (Montgomery
 * and Vaughan's form of the Brun-Titchmarsh bound) and at most
 * x / ln x (1 + 1.2762 / ln x) up to x (Dusart, x > 1); the smaller bound
 * holds. */
static uint64_t sieve_bytes(uint64_t lo, uint64_t hi, bool listed, unsigned threads)
{
    double root = sqrt((double)hi) + 2, n = hi > lo ? (double)(hi - lo) : 0;
    double sieving = root / 16 + 1.26 * root / log(root) * (4 + 16.0 * threads);
    double map = hi <= ((uint64_t)1 << 20) ? (double)hi / 16 : (double)threads * (256 << 10);
    map += (n < (double)((uint64_t)1 << 26) ? n : (double)((uint64_t)1 << 26)) / 30;
    double primes = n <= 16 ? n : 2 * n / log(n);
    if (hi > 16) {
        double x = (double)hi, upto = x / log(x) * (1 + 1.2762 / log(x));
        primes = upto < primes ? upto : primes;
    }
    return (uint64_t)(sieving + map + (listed ? 16 * primes : 0)) + 4096;
}

static bool primes_kernel(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                          FxValue *out)
{
    int64_t a, b;
    if (!fx_val_to_int64(R[I->a], &a) || !fx_val_to_int64(R[I->b], &b)) {
        fail(rt, fn, I->node, "a range of primes beyond 2^63");
        return false;
    }
    uint64_t lo = a < 0 ? 0 : (uint64_t)a, hi = b < 0 ? 0 : (uint64_t)b;
    uint64_t peak = sieve_bytes(lo, hi, !(I->c & 1), fx_device_info(fx_device_cpu()).units);
    if (!reserve(rt, peak))
        return false;
    fx_meter_work(hi > lo ? hi - lo : 0); /* about a nanosecond a number sieved */
    bool ok = primes_run(rt, fn, I, lo, hi, out);
    fx_meter_sub(peak);
    return ok;
}

/* The primes kernel on [lo, hi), its memory charged by the caller. */
static bool primes_run(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, uint64_t lo,
                       uint64_t hi, FxValue *out)
{
    unsigned threads = fx_device_threads(fx_device_cpu(), hi > lo ? (double)(hi - lo) : 0,
                                         FX_SIEVE_PARALLEL_FROM);
    char why[160];
    FxSieveKind kind = fx_choose_sieve(lo, hi, threads, why, sizeof(why));
    bool forced = false; /* tuples are sieved one way: no choice */
    if (!(I->c >> 1))
        kind = (FxSieveKind)choice_point(rt, FX_CHOICE_SIEVE, (int)kind, hi > lo ? hi - lo : 0,
                                         &forced);
    if (forced)
        snprintf(why, sizeof(why), "forced by the caller, [%llu, %llu) on %u thread%s",
                 (unsigned long long)lo, (unsigned long long)hi, threads, threads == 1 ? "" : "s");
    char what[64];
    snprintf(what, sizeof(what), "sieve %s", fx_sieve_name(kind));
    FxHardware hw = fx_hw_detect();
    size_t segment = hw.l2 >= (256u << 10) ? 128u << 10 : 0; /* measured best here */
    if (I->c >> 1) /* p kept when every p + c is prime too */
        return primes_tuple(rt, fn, I, fn->consts[(I->c >> 1) - 1], lo, hi, I->c & 1, segment,
                            out);
    note_data_choice(rt, fn->g, hi > lo ? hi - lo : 0, what, why);
    if (I->c == 1) {
        uint64_t count = 0;
        char split_why[320]; /* across the ranks of a cluster (exec/cluster.h)? */
        char chose[320];
        double work = hi > lo ? (double)(hi - lo) : 0;
        const char *chosen = mpi_choice(rt, fn, work, FX_CLUSTER_PRIMES_FROM, chose,
                                        sizeof(chose));
        FxSplit split = fx_cluster_count_primes(kind, lo, hi, segment, kernel_keep_going, rt,
                                                chosen, &count, split_why, sizeof(split_why));
        mpi_point(rt, fn, work, FX_CLUSTER_PRIMES_FROM, split == FX_SPLIT_DONE);
        if (split == FX_SPLIT_DONE)
            note_data_choice(rt, fn->g, hi - lo, "mpi", split_why);
        else if (split == FX_SPLIT_FAILED)
            fail(rt, fn, I->node, split_why);
        if (split < 0 || (split == FX_SPLIT_LOCAL &&
                          !fx_sieve_count(kind, lo, hi, threads, segment, &count,
                                          kernel_keep_going, rt)))
            return false;
        *out = fx_val_int((int64_t)count);
        return true;
    }
    FxPrimes p = {0};
    if (!fx_sieve_list(kind, lo, hi, threads, segment, &p, kernel_keep_going, rt)) {
        fx_primes_free(&p);
        return false;
    }
    if (p.len < p.cap) /* the list keeps the kernel's array: no copy */
        p.v = p.len ? fx_xrealloc(p.v, p.len * sizeof(uint64_t)) : (free(p.v), NULL);
    *out = fx_val_list_adopt_ints((int64_t *)p.v, p.len);
    return true;
}

/* ---- sieved calls: prime(p + 2) in the conditions of a sieved fold ---- */

#define PRIME_WINDOW_MIN ((uint64_t)1 << 16)
#define PRIME_WINDOW_MAX ((uint64_t)1 << 26) /* 2.2 MB of wheel bitmap */

/* The bytes of a window's bitmap, as charged while the runtime keeps it. */
static uint64_t window_bytes(const FxPrimeSet *s)
{
    return (s->hi - s->lo) / 30 + 16;
}

/* Is x prime: 1 or 0, from the primes of a window of w numbers sieved when
 * x falls outside the last one (w doubling from 2^16 to 2^26 as windows are
 * left), reaching ahead of x in the walk's direction: [x, x + w) above the
 * last window, (x - w, x] below it, so that an ascending walk (p + 2) and a
 * descending one (n - p) both sieve each number about once; -1 when a
 * budget stopped the sieve. */
static int sieved_prime(FxRuntime *rt, uint64_t x, const FxFunc *fn, uint32_t node)
{
    FxPrimeSet *s = &rt->prime_window;
    if (x < 2)
        return 0;
    if (!s->bits || x < s->lo || x >= s->hi) {
        uint64_t w = rt->prime_window_width ? rt->prime_window_width * 2 : PRIME_WINDOW_MIN;
        rt->prime_window_width = w = w > PRIME_WINDOW_MAX ? PRIME_WINDOW_MAX : w;
        bool down = s->bits && x < s->lo;
        uint64_t lo = down ? (x + 1 > w ? x + 1 - w : 0) : x;
        uint64_t hi = down ? x + 1 : x < FX_SIEVE_HI_MAX - w ? x + w : FX_SIEVE_HI_MAX;
        if (s->bits)
            fx_meter_sub(window_bytes(s));
        fx_primeset_free(s);
        unsigned threads =
                fx_device_threads(fx_device_cpu(), (double)w, FX_SIEVE_WINDOW_PARALLEL_FROM);
        uint64_t peak = sieve_bytes(lo, hi, false, threads);
        if (!reserve(rt, peak))
            return -1;
        fx_meter_work(w);
        FxKCall *k = fx_ktrace_open("sieve window", fn->g->intent, node);
        bool ok = fx_sieve_set(lo, hi, threads, 0, s, kernel_keep_going, rt);
        fx_ktrace_close(k);
        fx_meter_sub(peak);
        if (!ok)
            return -1;
        fx_meter_add(window_bytes(s)); /* kept by the runtime, until the next window */
    }
    return fx_primeset_has(s, x);
}

/* ---- the evolved matrix product ---- */

/* The definition's own order, on any values: acc = 0, then + A[i,k]*B[k,j]
 * for k in order (exact integers of any size, floats as the graph adds). */
static bool gemm_values(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, FxValue A, FxValue B,
                        size_t m, size_t k, size_t n, FxValue *out)
{
    if (!reserve(rt, m * n * sizeof(FxValue)))
        return false;
    FxValue *cells = fx_xmalloc((m * n > 0 ? m * n : 1) * sizeof(FxValue));
    FxError err;
    bool ok = true;
    size_t done = 0;
    for (size_t i = 0; ok && i < m; i++) {
        for (size_t j = 0; ok && j < n; j++) {
            FxValue acc = fx_val_int(0), prod, sum;
            for (size_t q = 0; ok && q < k; q++) {
                ok = fx_val_mul(fx_val_matrix_at(A, i, q), fx_val_matrix_at(B, q, j), &prod,
                                &err) &&
                     fx_val_add(acc, prod, &sum, &err);
                if (ok) {
                    fx_heap_release(prod);
                    fx_heap_release(acc);
                    acc = sum;
                } else {
                    fx_heap_release(acc);
                    value_failed(rt, fn, I->node, &err);
                }
            }
            if (ok)
                cells[done++] = acc;
        }
    }
    if (ok) {
        *out = fx_val_matrix_adopt(m, n, cells, m * n, false);
        return true;
    }
    for (size_t i = 0; i < done; i++)
        fx_heap_release(cells[i]);
    free(cells);
    fx_meter_sub(m * n * sizeof(FxValue));
    return false;
}

static bool gemm_kernel(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                        FxValue *out)
{
    FxValue A = R[I->a], B = R[I->b];
    size_t m = fx_val_matrix_rows(A), k = fx_val_matrix_cols(A), n = fx_val_matrix_cols(B);
    if (fx_val_matrix_rows(B) != k) {
        fail(rt, fn, I->node, "the matrices' sizes do not agree for a product");
        return false;
    }
    bool ints = k > 0, floats = k > 0;
    for (size_t i = 0; i < m * k && (ints || floats); i++) {
        FxValKind kind = fx_val_matrix_at(A, i / k, i % k).kind;
        ints &= kind == FX_VAL_INT;
        floats &= kind == FX_VAL_FLOAT;
    }
    for (size_t i = 0; i < k * n && (ints || floats); i++) {
        FxValKind kind = fx_val_matrix_at(B, i / n, i % n).kind;
        ints &= kind == FX_VAL_INT;
        floats &= kind == FX_VAL_FLOAT;
    }
    double work = (double)m * (double)n * (double)k;
    unsigned threads = fx_device_threads(fx_device_cpu(), work, FX_MATMUL_PARALLEL_FROM);
    char why[320];
    snprintf(why, sizeof(why), "%zu x %zu times %zu x %zu, %s, on %u thread%s", m, k, k, n,
             ints ? "int64 (exact)" : "values beyond int64 or mixed: the definition's loop",
             threads, threads == 1 ? "" : "s");
    if (!floats)
        note_data_choice(rt, fn->g, (size_t)work, ints ? "matmul blocked" : "matmul naive", why);
    if (!ints && !floats)
        return gemm_values(rt, fn, I, A, B, m, k, n, out);
    size_t sa = m * k, sb = k * n, sc = m * n;
    /* the three arrays of numbers, and the result's cells, which it adopts */
    size_t scratch = (sa + sb + sc) * 8;
    if (!reserve(rt, scratch + sc * sizeof(FxValue)))
        return false;
    fx_meter_work((uint64_t)work / 2); /* blocked: under a nanosecond a multiply-add */
    FxValue *cells = fx_xmalloc((sc ? sc : 1) * sizeof(FxValue));
    bool ok;
    if (ints) {
        int64_t *a = fx_xmalloc((sa + sb + sc) * sizeof(int64_t)), *b = a + sa, *c = b + sb;
        for (size_t i = 0; i < sa; i++)
            a[i] = fx_val_matrix_at(A, i / k, i % k).u.i;
        for (size_t i = 0; i < sb; i++)
            b[i] = fx_val_matrix_at(B, i / n, i % n).u.i;
        FxMatmulStatus st = fx_matmul_i64(FX_MATMUL_BLOCKED, a, b, c, m, k, n, threads,
                                          kernel_keep_going, rt);
        for (size_t i = 0; st == FX_MATMUL_OK && i < sc; i++)
            cells[i] = fx_val_int(c[i]);
        free(a);
        if (st == FX_MATMUL_OVERFLOW) { /* beyond int64: the exact loop */
            free(cells);
            fx_meter_sub(scratch + sc * sizeof(FxValue));
            return gemm_values(rt, fn, I, A, B, m, k, n, out);
        }
        ok = st == FX_MATMUL_OK;
    } else {
        double *a = fx_xmalloc((sa + sb + sc) * sizeof(double)), *b = a + sa, *c = b + sb;
        for (size_t i = 0; i < sa; i++)
            a[i] = fx_val_matrix_at(A, i / k, i % k).u.f;
        for (size_t i = 0; i < sb; i++)
            b[i] = fx_val_matrix_at(B, i / n, i % n).u.f;
        double bound;
        bool reorder = fx_may_reassociate(fn->g->tolerance, a, sa, b, sb, k, &bound);
        if (reorder)
            snprintf(why, sizeof(why), "%zu x %zu times %zu x %zu, doubles, sums reordered (FMA, "
                     "blocked) under the declared tolerance %g: each element within %.2g times "
                     "the magnitude of its terms of the definition's order, on %u thread%s",
                     m, k, k, n, fn->g->tolerance, bound, threads, threads == 1 ? "" : "s");
        else
            snprintf(why, sizeof(why), "%zu x %zu times %zu x %zu, doubles, each sum in the "
                     "definition's order%s, on %u thread%s", m, k, k, n,
                     fn->g->tolerance > 0 ? fx_tolerance_miss(fn->g->tolerance, bound) : "",
                     threads, threads == 1 ? "" : "s");
        note_data_choice(rt, fn->g, (size_t)work,
                         reorder ? "matmul reassociated" : "matmul blocked", why);
        ok = fx_matmul_f64(reorder ? FX_MATMUL_BLOCKED : FX_MATMUL_BLOCKED_EXACT, a, b, c, m, k, n,
                           threads, kernel_keep_going, rt);
        for (size_t i = 0; ok && i < sc; i++)
            cells[i] = fx_val_float(c[i]);
        free(a);
    }
    fx_meter_sub(scratch);
    if (ok) {
        *out = fx_val_matrix_adopt(m, n, cells, sc, true); /* int64s or doubles */
        return true;
    }
    free(cells); /* numbers only: nothing to release */
    fx_meter_sub(sc * sizeof(FxValue));
    return false;
}

/* ---- the evolved query: a scan, then a sorted index ---- */

static bool select_holds(FxNodeOp op, int c)
{
    switch (op) {
    case FX_NODE_GE: return c >= 0;
    case FX_NODE_GT: return c > 0;
    case FX_NODE_LE: return c <= 0;
    case FX_NODE_LT: return c < 0;
    default: return c == 0;
    }
}

/* The Int column `field` of a list kept as a table (table.h), or NULL. */
static const int64_t *int_column(FxValue list, const char *field)
{
    const FxTable *t = fx_val_list_table(list);
    int c = t ? fx_table_column(t, field) : -1;
    return c >= 0 && t->cols[c].kind == FX_COL_INT ? t->cols[c].u.ints : NULL;
}

/* Field `field` of row i, borrowed (a table's rows are made for it). */
static FxValue row_field(FxValue list, size_t i, const char *field)
{
    return fx_val_record_field(fx_val_list_at(list, i), field);
}

/* OP_COLUMN: field FIELD of every element of list a, in order. A table's
 * Int or Float column is copied whole into a list kept unboxed (8 bytes an
 * element); any other list or column is read element by element, a row
 * made at a time. The same values either way. */
static bool column_list(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                        FxValue *out)
{
    FxValue list = R[I->a];
    const char *field = fx_val_string_data(fn->consts[I->b], NULL);
    size_t n = fx_val_list_len(list);
    const int64_t *ints = int_column(list, field);
    const FxTable *t = fx_val_list_table(list);
    int c = t ? fx_table_column(t, field) : -1;
    const double *floats = c >= 0 && t->cols[c].kind == FX_COL_FLOAT ? t->cols[c].u.floats : NULL;
    fx_meter_work(n);
    if (ints || floats) {
        if (!reserve(rt, n * 8))
            return false;
        fx_meter_sub(n * 8); /* the list counts itself */
        if (ints) {
            *out = fx_val_list_of_i64(ints, n);
        } else {
            double *copy = fx_xmalloc((n ? n : 1) * sizeof(double));
            memcpy(copy, floats, n * sizeof(double));
            *out = fx_val_list_adopt_floats(copy, n);
        }
        return true;
    }
    if (!reserve(rt, n * sizeof(FxValue)))
        return false;
    FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    bool flat = true;
    for (size_t i = 0; i < n; i++) {
        FxValue row = fx_val_list_get(list, i);
        items[i] = fx_val_record_field(row, field);
        fx_heap_retain(items[i]);
        fx_heap_release(row);
        flat &= items[i].kind <= FX_VAL_FLOAT && items[i].kind != FX_VAL_BIG;
    }
    *out = fx_val_list_adopt(items, n, n, flat);
    return true;
}

/* Builds the index: false when the field's values are not all Int or all
 * String (the scan then serves every query). */
static bool build_index(QueryIndex *qi)
{
    size_t n = fx_val_list_len(qi->list);
    const int64_t *column = int_column(qi->list, qi->field);
    bool ints = true, strings = !column;
    for (size_t i = 0; !column && i < n && (ints || strings); i++) {
        FxValue k = row_field(qi->list, i, qi->field);
        ints &= k.kind == FX_VAL_INT;
        strings &= k.kind == FX_VAL_STRING;
    }
    if (!ints && !strings)
        return false;
    /* kept: the positions (8 bytes a row) and the keys (8 or 16); while it
     * is built, the pairs or the merge's buffers (24) on top */
    size_t keep = n * (ints ? 16 : 24);
    if (fx_meter_room() < keep + n * 24)
        return false; /* no room within the budget: the scan serves every query */
    bool charged = fx_meter_charge(keep + n * 24);
    FX_ASSERT(charged);
    (void)charged;
    qi->charged = keep;
    fx_meter_work(n * (bits_of(n) + 1));
    qi->n = n;
    qi->ints = ints;
    qi->pos = fx_xmalloc((n ? n : 1) * sizeof(uint64_t));
    if (ints) {
        FxSortPair *p = fx_xmalloc((n ? n : 1) * sizeof(FxSortPair));
        for (size_t i = 0; i < n; i++)
            p[i] = (FxSortPair){column ? column[i] : row_field(qi->list, i, qi->field).u.i, i};
        bool ok = fx_sortk_by_key(FX_SORTK_RADIX, p, n, false, 1);
        qi->ikeys = fx_xmalloc((n ? n : 1) * sizeof(int64_t));
        for (size_t i = 0; ok && i < n; i++) {
            qi->ikeys[i] = p[i].key;
            qi->pos[i] = p[i].index;
        }
        free(p);
        fx_meter_sub(n * 24);
        return ok;
    }
    /* strings: a stable sort of (key, position) by key */
    KeyAt *p = fx_xmalloc((n ? n : 1) * sizeof(KeyAt));
    for (size_t i = 0; i < n; i++) /* borrowed keys */
        p[i] = (KeyAt){row_field(qi->list, i, qi->field), i};
    bool asc = false, ok = fx_merge_sort(p, n, sizeof(KeyAt), key_order, &asc);
    FX_ASSERT(ok); /* strings have an order */
    (void)ok;
    FxValue *keys = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++) {
        keys[i] = p[i].key;
        qi->pos[i] = p[i].at;
    }
    free(p);
    fx_meter_sub(n * 24);
    qi->skeys = keys;
    return true;
}

/* The first sorted position whose key is >= v (strict: > v). */
static size_t index_bound(const QueryIndex *qi, FxValue v, bool strict)
{
    size_t lo = 0, hi = qi->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c;
        if (qi->ints) {
            int64_t k = qi->ikeys[mid], x = v.u.i;
            c = k < x ? -1 : k > x;
        } else {
            bool ok;
            c = fx_val_compare(qi->skeys[mid], v, &ok);
        }
        if (strict ? c <= 0 : c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The k rows at positions pos (the index's order) written to out in the
 * collection's order. Few rows are sorted; many are marked in a bitmap and
 * read back in one pass, O(k + n/64): sorting half of 20,000 rows cost as
 * much as scanning them, and a query index made large answers slower than
 * the scan it replaced. */
static void index_rows_in_order(const uint64_t *pos, size_t k, FxValue list, size_t n,
                                FxValue *out)
{
    if (k <= n / 64) {
        uint64_t *sorted = fx_xmalloc((k ? k : 1) * sizeof(uint64_t));
        memcpy(sorted, pos, k * sizeof(uint64_t));
        qsort(sorted, k, sizeof(uint64_t), cmp_u64);
        for (size_t i = 0; i < k; i++)
            out[i] = fx_val_list_get(list, sorted[i]);
        free(sorted);
        return;
    }
    size_t words = n / 64 + 1;
    uint64_t *marks = fx_xcalloc(words, sizeof(uint64_t));
    for (size_t i = 0; i < k; i++)
        marks[pos[i] / 64] |= UINT64_C(1) << (pos[i] % 64);
    for (size_t w = 0; w < words; w++)
        for (uint64_t m = marks[w]; m; m &= m - 1)
            *out++ = fx_val_list_get(list, w * 64 + (size_t)__builtin_ctzll(m));
    free(marks);
}

static bool select_kernel(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                          FxValue *out)
{
    FxValue list = R[I->a], v = R[I->b];
    FxNodeOp op = (FxNodeOp)(I->c & 0xFF);
    size_t flen;
    const char *field = fx_val_string_data(fn->consts[I->c >> 8], &flen);
    size_t n = fx_val_list_len(list);
    QueryIndex *qi = NULL;
    fx_vec_foreach(QueryIndex, q, &rt->indexes) if (q->list.u.obj == list.u.obj &&
                                                    !strcmp(q->field, field)) qi = q;
    if (!qi) {
        QueryIndex fresh = {list, field, 0, false, false, 0, NULL, NULL, NULL, 0};
        fx_heap_retain(list);
        fx_vec_push(&rt->indexes, fresh);
        qi = &rt->indexes.data[rt->indexes.len - 1];
    }
    bool comparable = v.kind == FX_VAL_INT || v.kind == FX_VAL_STRING;
    if (++qi->queries == 2 && !qi->built && comparable)
        qi->built = build_index(qi);
    char why[160];
    bool use_index = qi->built && (qi->ints ? v.kind == FX_VAL_INT : v.kind == FX_VAL_STRING);
    /* room for every row, charged first; the list adopts what is kept (a
     * block this large is mapped, so the rows not kept never take memory) */
    if (!reserve(rt, n * sizeof(FxValue)))
        return false;
    fx_meter_work(n);
    FX_VEC(FxValue) kept = {fx_xmalloc((n ? n : 1) * sizeof(FxValue)), 0, n};
    if (use_index) {
        size_t from = 0, to = qi->n;
        if (op == FX_NODE_GE || op == FX_NODE_GT || op == FX_NODE_EQ)
            from = index_bound(qi, v, op == FX_NODE_GT);
        if (op == FX_NODE_LE || op == FX_NODE_LT || op == FX_NODE_EQ)
            to = index_bound(qi, v, op != FX_NODE_LT);
        size_t k = to > from ? to - from : 0;
        index_rows_in_order(qi->pos + from, k, list, n, kept.data); /* k <= n: room */
        kept.len = k;
        snprintf(why, sizeof(why), "the sorted index on `%s`, a binary search: %zu of %zu rows",
                 field, k, n);
    } else {
        const int64_t *column = v.kind == FX_VAL_INT ? int_column(list, field) : NULL;
        for (size_t i = 0; i < n; i++) {
            FxValue x = {.kind = FX_VAL_UNIT};
            bool ok = true;
            int c;
            if (column) { /* a table's Int column: no row is made but those kept */
                c = column[i] < v.u.i ? -1 : column[i] > v.u.i;
            } else {
                x = fx_val_list_get(list, i);
                c = fx_val_compare(fx_val_record_field(x, field), v, &ok);
            }
            if (!ok) {
                fx_heap_release(x);
                fail(rt, fn, I->node, "these values have no order to compare");
                fx_vec_foreach(FxValue, y, &kept) fx_heap_release(*y);
                fx_vec_free(&kept);
                fx_meter_sub(n * sizeof(FxValue));
                return false;
            }
            if (select_holds(op, c))
                fx_vec_push(&kept, column ? fx_val_list_get(list, i) : x);
            else
                fx_heap_release(x);
        }
        snprintf(why, sizeof(why), "a scan of %zu rows (the first query of `%s` in this run; "
                 "its index is built at the second)", n, field);
    }
    note_data_choice(rt, fn->g, n, use_index ? "query index" : "query scan", why);
    *out = fx_val_list_adopt(kept.data, kept.len, n, false);
    return true;
}

static void call_failure(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                         bool postcondition)
{
    FxBuf call = {0};
    show_call(fn, postcondition ? R : R + I->a, postcondition ? fn->g->n_params : I->b, &call);
    char *msg;
    if (postcondition)
        msg = fx_xasprintf("postcondition %s does not hold for %s",
                           fn->g->nodes[I->node - 1].text, fx_buf_str(&call));
    else if (I->c == 1)
        msg = fx_xasprintf("%s: %s", fx_buf_str(&call), fn->g->nodes[I->node - 1].text);
    else
        msg = fx_xasprintf("no equation of `%s` covers the call %s", fn->g->intent,
                           fx_buf_str(&call));
    fail(rt, fn, I->node, msg);
    free(msg);
    fx_buf_free(&call);
}

/* A loop's test: its counter below its end (int64 inline, else exact). */
static inline bool counter_below(FxValue c, FxValue e)
{
    if (c.kind == FX_VAL_INT && e.kind == FX_VAL_INT)
        return c.u.i < e.u.i;
    bool ok;
    return fx_val_compare(c, e, &ok) < 0;
}

/* A list of at most this many elements is made by a copy (end_builder). */
#define SMALL_LIST 8

static void begin_builder(FxRuntime *rt)
{
    Builder b = {0};
    fx_vec_push(&rt->builders, b);
}

/* Room for one more element in a builder: its capacity doubles, charged
 * first; when the doubling would cross the memory budget it grows by what
 * the budget still allows, and when nothing is left the run stops. So a
 * list being built never takes the process past its budget, and never
 * stops at half of it either. */
static bool grow_builder(FxRuntime *rt, Builder *v)
{
    if (!v->data && rt->spare) { /* a small list's array again */
        if (!reserve(rt, rt->spare_cap * sizeof(FxValue)))
            return false;
        v->data = rt->spare;
        v->cap = rt->spare_cap;
        rt->spare = NULL;
        return true;
    }
    size_t want = v->cap ? v->cap : 16;
    size_t room = fx_meter_room() / sizeof(FxValue);
    if (want > room && room > 0)
        want = room;
    if (!reserve(rt, want * sizeof(FxValue)))
        return false;
    v->data = fx_xrealloc(v->data, (v->cap + want) * sizeof(FxValue));
    v->cap += want;
    return true;
}

/* The top builder as a list, which takes over its array (no copy). A list
 * of integers that all fit int64, or of floats, is kept unboxed (value.h):
 * packed in place, 8 bytes an element, half the memory, and what kernels
 * read. */
static FxValue end_builder(FxRuntime *rt)
{
    Builder b = rt->builders.data[--rt->builders.len];
    FxValKind kind = !b.heap && b.len > 0 ? b.data[0].kind : FX_VAL_UNIT;
    bool same = kind == FX_VAL_INT || kind == FX_VAL_FLOAT;
    for (size_t i = 1; same && i < b.len; i++)
        same = b.data[i].kind == kind;
    if (b.len <= SMALL_LIST && b.data) {
        /* a small list is copied into an object of its own (value.c's
         * cache of small blocks), and the array kept for the next builder:
         * no malloc, realloc and free a list */
        FxValue list;
        if (!same) {
            list = fx_val_list_take(b.data, b.len);
            list.u.obj->flat = !b.heap;
        } else {
            char *packed = (char *)b.data;
            for (size_t i = 0; i < b.len; i++)
                memcpy(packed + 8 * i, &b.data[i].u, 8);
            list = kind == FX_VAL_INT ? fx_val_list_of_i64((const int64_t *)packed, b.len)
                                      : fx_val_list_of_f64((const double *)packed, b.len);
        }
        fx_meter_sub(b.cap * sizeof(FxValue));
        if (!rt->spare && b.cap <= 4 * SMALL_LIST) {
            rt->spare = b.data;
            rt->spare_cap = b.cap;
        } else {
            free(b.data);
        }
        return list;
    }
    if (!same)
        return fx_val_list_adopt(b.data, b.len, b.cap, !b.heap);
    /* element i moves down to byte 8i: never ahead of what is read */
    char *packed = (char *)b.data;
    for (size_t i = 0; i < b.len; i++)
        memcpy(packed + 8 * i, &b.data[i].u, 8);
    fx_meter_sub(b.cap * sizeof(FxValue)); /* the list counts itself */
    packed = fx_xrealloc(packed, b.len * 8);
    return kind == FX_VAL_INT ? fx_val_list_adopt_ints((int64_t *)packed, b.len)
                              : fx_val_list_adopt_floats((double *)packed, b.len);
}

static bool end_matrix(FxRuntime *rt, const FxFunc *fn, const FxInstr *I, const FxValue *R,
                       FxValue *out)
{
    Builder v = rt->builders.data[--rt->builders.len];
    int64_t rows, cols;
    bool ok = fx_val_to_int64(R[I->a], &rows) && fx_val_to_int64(R[I->b], &cols) &&
              (size_t)(rows * cols) == v.len;
    if (ok) {
        *out = fx_val_matrix_adopt((size_t)rows, (size_t)cols, v.data, v.cap, !v.heap);
        return true;
    }
    fail(rt, fn, I->node, "a matrix whose sizes do not match its elements");
    for (size_t i = 0; i < v.len; i++)
        fx_heap_release(v.data[i]);
    free(v.data);
    fx_meter_sub(v.cap * sizeof(FxValue));
    return false;
}

static void clear_builders(FxRuntime *rt)
{
    while (rt->builders.len) {
        FxValue v = end_builder(rt);
        fx_heap_release(v);
    }
}

/* The slow path of arithmetic and comparison: value.c, exact. */
static bool generic_op(const FxInstr *I, const FxValue *R, FxValue *out, FxError *err)
{
    FxValue a = R[I->a], b = R[I->b];
    bool ok = true;
    int c;
    switch (I->op) {
    case OP_ADD: return fx_val_add(a, b, out, err);
    case OP_SUB: return fx_val_sub(a, b, out, err);
    case OP_MUL: return fx_val_mul(a, b, out, err);
    case OP_DIV: return fx_val_div_float(a, b, out, err);
    case OP_IDIV: return fx_val_idiv(a, b, out, err);
    case OP_MOD: return fx_val_mod(a, b, out, err);
    case OP_POW: return fx_val_pow(a, b, out, err);
    case OP_CONCAT: return fx_val_concat(a, b, out, err);
    case OP_EQ: *out = fx_val_bool(fx_val_equal(a, b)); return true;
    case OP_NE: *out = fx_val_bool(!fx_val_equal(a, b)); return true;
    default: break;
    }
    c = fx_val_compare(a, b, &ok);
    if (!ok) {
        snprintf(err->message, sizeof(err->message), "these values have no order");
        return false;
    }
    switch (I->op) {
    case OP_LT: *out = fx_val_bool(c < 0); break;
    case OP_LE: *out = fx_val_bool(c <= 0); break;
    case OP_GT: *out = fx_val_bool(c > 0); break;
    default: *out = fx_val_bool(c >= 0); break;
    }
    return true;
}

/* a CMP b, exact, int64 first. The comparison travels as a mask (see
 * fx_cmp_mask): bit 0 holds when a < b, bit 1 when a = b, bit 2 when a > b,
 * so the answer is a shift, not a jump the CPU must predict. */
static inline bool compare(uint32_t mask, FxValue a, FxValue b, bool *out, FxError *err)
{
    int c;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT) {
        c = (a.u.i > b.u.i) - (a.u.i < b.u.i);
    } else if (float_ordered(a, b)) {
        c = (a.u.f > b.u.f) - (a.u.f < b.u.f);
    } else if (mask == 2 || mask == 5) { /* = and != need no order */
        c = fx_val_equal(a, b) ? 0 : 1;
    } else {
        bool ok;
        c = fx_val_compare(a, b, &ok);
        if (!ok) {
            snprintf(err->message, sizeof(err->message), "these values have no order");
            return false;
        }
        c = (c > 0) - (c < 0);
    }
    *out = (mask >> (c + 1)) & 1;
    return true;
}

static void finish_stats(FxRuntime *rt, uint64_t used, uint64_t calls, uint64_t deepest)
{
    fx_ktrace_end(&rt->ktrace);
    rt->stats.steps += used;
    rt->stats.calls = calls;
    rt->stats.max_depth = deepest;
}

static void drop_top_call(FxRuntime *rt)
{
    rt->has_top_choice = false;
    rt->top_from_table = false;
    fx_vec_foreach(FxValue, v, &rt->top_args) fx_heap_release(*v);
    rt->top_args.len = 0;
    rt->top_callee = NULL;
    fx_heap_release(rt->top_result);
    rt->top_result = (FxValue){0};
}

/* Keeps the arguments of a call made by the entry frame: the record of an
 * execution names them as its input. */
static void note_top_call(FxRuntime *rt, const FxFunc *callee, const FxValue *args, uint32_t n)
{
    drop_top_call(rt);
    rt->top_callee = callee->g;
    for (uint32_t i = 0; i < n; i++) {
        fx_heap_retain(args[i]);
        fx_vec_push(&rt->top_args, args[i]);
    }
}

/* ---- the call profile ----
 *
 * With the profile on, each eval keeps the arguments of the first call of
 * every function it calls: a recursion's first call is its outermost, so
 * the call stands for all the work under it. Learning turns a callee that
 * took a large share of the run into a call of its own (api/callees.c).
 * The check at each call is one relaxed load of a stamp unique to the
 * eval; FxFunc.profiled may be shared by threads, the kept calls are the
 * runtime's own. */
static uint64_t profile_stamps;

void fx_runtime_profile_calls(FxRuntime *rt, bool on)
{
    rt->profiling = on;
}

static void drop_first_calls(FxRuntime *rt)
{
    fx_vec_foreach(FirstCall, c, &rt->first_calls)
    {
        for (uint32_t i = 0; i < c->n; i++)
            fx_heap_release(c->args[i]);
        free(c->args);
    }
    rt->first_calls.len = 0;
}

static __attribute__((noinline)) void note_first_call(FxRuntime *rt, FxFunc *f,
                                                      const FxValue *args, uint32_t n)
{
    __atomic_store_n(&f->profiled, rt->profile_stamp, __ATOMIC_RELAXED);
    fx_vec_foreach(FirstCall, c, &rt->first_calls) if (c->g == f->g) return;
    FirstCall c = {f->g, fx_xmalloc((n ? n : 1) * sizeof(FxValue)), n};
    for (uint32_t i = 0; i < n; i++) {
        fx_heap_retain(args[i]);
        c.args[i] = args[i];
    }
    fx_vec_push(&rt->first_calls, c);
}

const FxValue *fx_runtime_first_call(const FxRuntime *rt, const FxGraph *g, size_t *n)
{
    fx_vec_foreach(FirstCall, c, &rt->first_calls) if (c->g == g)
    {
        *n = c->n;
        return c->args;
    }
    return NULL;
}

FxValue fx_runtime_top_result(const FxRuntime *rt)
{
    return rt->top_result;
}

const FxGraph *fx_runtime_top_call(const FxRuntime *rt, const FxValue **out_args, size_t *out_n)
{
    *out_args = rt->top_args.data;
    *out_n = rt->top_args.len;
    return rt->top_callee;
}

void fx_runtime_set_runaway_protection(FxRuntime *rt, bool on)
{
    rt->no_runaway = !on;
}

const char *fx_runtime_switches(const FxRuntime *rt)
{
    return rt->switches[0] ? rt->switches : NULL;
}

static void reset_func_counts(FxFunc *f)
{
    memset(f->block_counts, 0, f->n_blocks * sizeof(uint64_t));
    if (f->node_ns)
        memset(f->node_ns, 0, f->n_node_ns * sizeof(uint64_t));
}

void fx_runtime_reset_counts(FxRuntime *rt)
{
    fx_vec_foreach(NamedFunc, nf, &rt->funcs) reset_func_counts(nf->fn);
    fx_vec_foreach(FxFunc *, f, &rt->exprs) reset_func_counts(*f);
}

/* ---- runaway protection ----
 *
 * A recursion that has made RUNAWAY_AFTER calls in a run is watched for the
 * next RUNAWAY_SAMPLE * RUNAWAY_STRIDE calls, through two samples of their
 * argument hashes:
 *
 *   - the first RUNAWAY_SAMPLE calls, in a row: a recursion such as fib
 *     asks the same few tuples again within a few calls;
 *   - the calls whose hash falls in one slice of RUNAWAY_STRIDE, across the
 *     whole window: ackermann's repeats are thousands of calls apart (each
 *     chain ack(1, x), ack(1, x - 1), ... is new within itself and walks
 *     the previous chain again), and a slice of the hashes sees them as
 *     often as they happen, whatever the distance.
 *
 * If at most half of either sample is distinct, it is doing the same work
 * again and again, and its table is switched on for the rest of the
 * process; a slice with no repeat at all after 4096 calls ends the look. Sound for every intent, as intents are pure by construction: a
 * call's result is its result whenever it is asked. A look that finds no
 * repetition waits twice as long before the next, so a recursion without
 * repeated work pays almost nothing.
 */
#define RUNAWAY_AFTER 65536
#define RUNAWAY_SAMPLE 512
#define RUNAWAY_STRIDE 64
#define RUNAWAY_SLOTS (2 * RUNAWAY_SAMPLE) /* each sample's open-addressed table */

static uint64_t args_hash(const FxValue *a, uint32_t n);

/* h into the table at slots; true when it was not there. */
static bool sample_add(uint64_t *slots, uint64_t h)
{
    size_t j = h & (RUNAWAY_SLOTS - 1);
    while (slots[j] && slots[j] != h)
        j = (j + 1) & (RUNAWAY_SLOTS - 1);
    if (slots[j])
        return false;
    slots[j] = h;
    return true;
}

static bool mostly_repeated(uint32_t seen, uint32_t distinct)
{
    return seen >= RUNAWAY_SAMPLE / 8 && 2 * distinct <= seen;
}

static void watch_for_runaway(FxRuntime *rt, FxFunc *f, const FxValue *args, uint32_t n)
{
    if (!f->sample)
        f->sample = fx_xcalloc(2 * RUNAWAY_SLOTS, sizeof(uint64_t));
    uint64_t h = args_hash(args, n) | 1;
    uint32_t calls = ++f->sampled;
    if (calls <= RUNAWAY_SAMPLE)
        f->sample_distinct += sample_add(f->sample, h);
    /* the slice: bits the table's index does not use */
    if ((h >> 32) % RUNAWAY_STRIDE == 0 && f->slice_seen < RUNAWAY_SAMPLE) {
        f->slice_seen++;
        f->slice_distinct += sample_add(f->sample + RUNAWAY_SLOTS, h);
    }
    bool in_a_row = calls == RUNAWAY_SAMPLE && mostly_repeated(calls, f->sample_distinct);
    bool spread = !in_a_row && calls == RUNAWAY_SAMPLE * RUNAWAY_STRIDE &&
                  mostly_repeated(f->slice_seen, f->slice_distinct);
    /* a slice without a single repeat an eighth of the way in ends the look:
     * a recursion without repeated work (native code's, which waits for the
     * look in the interpreter) pays 4096 calls a look, not 32768 */
    bool vain = calls == RUNAWAY_SAMPLE * RUNAWAY_STRIDE / 8 &&
                f->slice_seen >= RUNAWAY_SAMPLE / 16 && f->slice_distinct == f->slice_seen;
    if (!in_a_row && !vain && calls < RUNAWAY_SAMPLE * RUNAWAY_STRIDE)
        return;
    if (in_a_row || spread) {
        f->memo = true;
        uint32_t seen = in_a_row ? calls : f->slice_seen;
        uint32_t distinct = in_a_row ? f->sample_distinct : f->slice_distinct;
        char sample[64];
        if (in_a_row)
            snprintf(sample, sizeof(sample), "calls in a row");
        else
            snprintf(sample, sizeof(sample), "one hash slice in %d, over %u calls",
                     RUNAWAY_STRIDE, calls);
        size_t used = strlen(rt->switches);
        snprintf(rt->switches + used, sizeof(rt->switches) - used,
                 "%smemoized `%s` mid-run after %llu calls: %u of %u sampled calls repeated "
                 "an argument tuple (%s)",
                 used ? "; " : "", f->g->intent, (unsigned long long)(f->watched + calls),
                 seen - distinct, seen, sample);
    }
    memset(f->sample, 0, 2 * RUNAWAY_SLOTS * sizeof(uint64_t));
    f->watched = f->sampled = f->sample_distinct = f->slice_seen = f->slice_distinct = 0;
    if (!f->memo) /* no repeated work: its native code may take the calls again */
        f->native_gave_back = 0;
    if (f->watch_more < (1ULL << 40))
        f->watch_more = 2 * f->watch_more + RUNAWAY_AFTER;
}

/* ---- the recurrence kernel ---- */

void fx_runtime_set_chooser(FxRuntime *rt, const FxVariantChooser *c)
{
    rt->chooser = c ? *c : (FxVariantChooser){0};
}

/* The built-in rule (docs/executor.md). */
static uint32_t default_variant(const FxGraph *g, uint64_t n)
{
    if (g->variants != (FX_VARIANT_LOOP | FX_VARIANT_POWER))
        return g->variants & FX_VARIANT_POWER ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
    return n >= FX_POWER_FROM ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
}

bool fx_runtime_top_from_table(const FxRuntime *rt)
{
    return rt->top_from_table;
}

const FxVariantChoice *fx_runtime_top_choice(FxRuntime *rt)
{
    if (!rt->has_top_choice)
        return NULL;
    FxVariantChoice *c = &rt->top_choice;
    if (!rt->top_choice_told) { /* the words are written once, when asked */
        rt->top_choice_told = true;
        c->why[0] = '\0';
        if (c->forced)
            snprintf(c->why, sizeof(c->why), "forced by the caller: n = %llu",
                     (unsigned long long)c->n);
        else if (rt->chooser.explain)
            rt->chooser.explain(rt->chooser.ctx, c);
        if (!c->why[0] && c->g->variants != (FX_VARIANT_LOOP | FX_VARIANT_POWER))
            snprintf(c->why, sizeof(c->why), "the only variant of %s", c->g->version);
        else if (!c->why[0])
            snprintf(c->why, sizeof(c->why), "n = %llu %s %d, the built-in crossover (no cost "
                     "model yet)", (unsigned long long)c->n, c->n >= FX_POWER_FROM ? ">=" : "<",
                     FX_POWER_FROM);
    }
    return c;
}

/* A kernel's poll (every few thousand steps, or each squaring): the
 * coarse clock and the meter's stop each time, the resident size at most
 * every 10 ms. */
static bool kernel_keep_going(void *ctx)
{
    return slow_budgets_ok(ctx);
}

/* f(n) by f's recurrence kernel, in the variant chosen for this call.
 * False with rt->error set when a budget stopped it. */
static bool run_recurrence(FxRuntime *rt, FxFunc *f, uint64_t n, bool top, FxValue *out)
{
    bool timed;
    FxVariantChoice c;
    c.variant = 0;
    c.explore = c.forced = false;
    if (rt->chooser.choose)
        rt->chooser.choose(rt->chooser.ctx, f->g, n, top, &c);
    if (!(c.variant & f->g->variants)) {
        c.variant = default_variant(f->g, n);
        c.explore = false;
    }
    if (f->g->variants == (FX_VARIANT_LOOP | FX_VARIANT_POWER))
        c.variant = 1u << choice_point(rt, FX_CHOICE_RECURRENCE, c.variant == FX_VARIANT_POWER, n,
                                       &c.forced);
    c.explore &= !c.forced;
    if (top) { /* the words only if the record asks: fx_runtime_top_choice */
        rt->top_choice.g = f->g;
        rt->top_choice.n = n;
        rt->top_choice.variant = c.variant;
        rt->top_choice.explore = c.explore;
        rt->top_choice.forced = c.forced;
        rt->top_choice.predicted_gain = 0;
        rt->has_top_choice = true;
        rt->top_choice_told = false;
    }
    struct timespec t0, t1;
    /* the chooser's models learn from the call they chose: the first calls
     * of a run are timed, then one in 256 (a loop of a million calls of a
     * small n would spend most of its time reading the clock); the record
     * keeps the last time taken */
    timed = top && (rt->top_timed++ < 8 || rt->top_timed % 256 == 0);
    if (timed)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t small;
    if (c.variant == FX_VARIANT_LOOP && fx_linrec_loop_small(f->rec, n, &small)) {
        *out = fx_val_int(small);
        if (timed) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            rt->top_choice.ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                                (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        }
        return true;
    }
    mpz_t z;
    mpz_init(z);
    bool ok = c.variant == FX_VARIANT_LOOP ? fx_linrec_loop(f->rec, n, z, kernel_keep_going, rt)
                                           : fx_linrec_power(f->rec, n, z, kernel_keep_going, rt);
    if (timed) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        rt->top_choice.ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
                            (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    }
    if (!ok) {
        mpz_clear(z);
        return false;
    }
    *out = fx_val_int_take_mpz(z);
    return true;
}

/* ---- memoized functions ---- */

static uint64_t args_hash(const FxValue *a, uint32_t n)
{
    uint64_t h = FX_FNV_BASIS;
    for (uint32_t i = 0; i < n; i++)
        h = fx_fnv_step(h, a[i].kind == FX_VAL_INT ? (uint64_t)a[i].u.i * 0x9e3779b97f4a7c15ULL
                                                   : fx_val_hash(a[i]));
    return h;
}

static bool same_args(const FxValue *a, const FxValue *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (a[i].kind == FX_VAL_INT && b[i].kind == FX_VAL_INT ? a[i].u.i != b[i].u.i
                                                               : !fx_val_equal(a[i], b[i]))
            return false;
    }
    return true;
}

static FxMemoEntry *memo_find(const FxMemoTable *t, const FxValue *a, uint32_t n, uint64_t h)
{
    if (!t->cap)
        return NULL;
    for (size_t i = h & (t->cap - 1); t->slots[i].args; i = (i + 1) & (t->cap - 1))
        if (t->slots[i].hash == h && same_args(t->slots[i].args, a, n))
            return &t->slots[i];
    return NULL;
}

static void memo_place(FxMemoTable *t, FxMemoEntry e)
{
    size_t i = e.hash & (t->cap - 1);
    while (t->slots[i].args)
        i = (i + 1) & (t->cap - 1);
    t->slots[i] = e;
}

/* The bytes of an entry's argument tuple, as charged. */
static size_t memo_args_bytes(uint32_t n)
{
    return (n ? n : 1) * sizeof(FxValue) + FX_METER_BLOCK_OVERHEAD;
}

bool fx_memo_insert(FxMemoTable *t, const FxValue *a, uint32_t n, FxValue v)
{
    if ((t->len + 1) * 2 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        if (!fx_meter_charge(cap * sizeof(FxMemoEntry))) /* the old slots go after */
            return false;
        FxMemoTable bigger = {fx_xcalloc(cap, sizeof(FxMemoEntry)), cap, t->len};
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].args)
                memo_place(&bigger, t->slots[i]);
        free(t->slots);
        fx_meter_sub(t->cap * sizeof(FxMemoEntry));
        *t = bigger;
    }
    if (!fx_meter_charge(memo_args_bytes(n)))
        return false;
    FxMemoEntry e = {args_hash(a, n), fx_xmalloc((n ? n : 1) * sizeof(FxValue)), v};
    for (uint32_t i = 0; i < n; i++) {
        fx_heap_retain(a[i]);
        e.args[i] = a[i];
    }
    fx_heap_retain(v);
    memo_place(t, e);
    t->len++;
    return true;
}

void fx_memo_free(FxMemoTable *t, uint32_t n_args)
{
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].args)
            continue;
        for (uint32_t k = 0; k < n_args; k++)
            fx_heap_release(t->slots[i].args[k]);
        free(t->slots[i].args);
        fx_meter_sub(memo_args_bytes(n_args));
        fx_heap_release(t->slots[i].value);
    }
    free(t->slots);
    fx_meter_sub(t->cap * sizeof(FxMemoEntry));
    memset(t, 0, sizeof(*t));
}

/* ---- calls answered without running: the whole-function kernels ---- */

typedef enum {
    ANSWER_NONE,    /* the callee's code runs */
    ANSWER_GIVEN,   /* *out holds the result, a reference of the caller's */
    ANSWER_STOPPED, /* a budget stopped the kernel: rt->error says which */
} Answer;


/* The call of f on args answered by a kernel wrapped around it, the first
 * that can: its hot-input table (FX_KERNEL_TABLE), a materialised result
 * (FX_KERNEL_KEPT), its recurrence (FX_KERNEL_RECURRENCE) or its memo
 * table (FX_KERNEL_MEMO). *counted: whether the call counts in the run's
 * calls (a memo hit does not: the memo saves exactly those). */
static Answer answer_call(FxRuntime *rt, FxFunc *f, const FxValue *args, uint32_t n, bool top,
                          FxValue *out, bool *counted)
{
    if (top) /* the expression's own call: the record names its input */
        note_top_call(rt, f, args, n);
    *counted = true;
    const FxMemoEntry *hit;
    if (f->hot.len && (hit = memo_find(&f->hot, args, n, args_hash(args, n)))) {
        rt->top_from_table |= top;
        fx_heap_retain(*out = hit->value);
        return ANSWER_GIVEN;
    }
    const FxValue *kept = f->n_kept ? kept_result(rt, f, args, n) : NULL;
    if (kept) {
        fx_heap_retain(*out = *kept);
        return ANSWER_GIVEN;
    }
    if (f->rec && args[0].kind == FX_VAL_INT && args[0].u.i >= 0) {
        FxKCall *k = fx_ktrace_open("recurrence", f->g->intent, 0);
        bool ok = run_recurrence(rt, f, (uint64_t)args[0].u.i, top, out);
        fx_ktrace_close(k);
        return ok ? ANSWER_GIVEN : ANSWER_STOPPED;
    }
    if (f->memo && (hit = memo_find(&f->table, args, n, args_hash(args, n)))) {
        *counted = false;
        fx_heap_retain(*out = hit->value);
        return ANSWER_GIVEN;
    }
    return ANSWER_NONE;
}

/* OP_SPLIT: a map split across the ranks of a cluster (exec/cluster.h).
 * Before the loop (c = 0) the other ranks get their slices of the list a
 * and the loop's end b is lowered to this rank's; after it (c = 1) their
 * parts are appended to the list d. d (before) and a (after) hold the
 * job's token: UNIT when the map runs here whole. */
static bool split_map(FxRuntime *rt, FxFunc *fn, const FxInstr *I, FxValue *R)
{
    char why[320];
    FxValue token = {0};
    int64_t end = 0;
    FxSplit s;
    if (I->c == 0) {
        char chose[320];
        double n = R[I->a].kind == FX_VAL_LIST ? (double)fx_val_list_len(R[I->a]) : 0;
        const char *chosen = mpi_choice(rt, fn, n, FX_CLUSTER_MAP_FROM, chose, sizeof(chose));
        s = fx_cluster_map_begin(fn, R, I->a, &rt->budgets, chosen, &end, &token, why,
                                 sizeof(why));
        mpi_point(rt, fn, n, FX_CLUSTER_MAP_FROM, s == FX_SPLIT_DONE);
    } else {
        s = fx_cluster_map_end(R[I->a], &R[I->d], why, sizeof(why));
    }
    if (s == FX_SPLIT_FAILED) {
        fail(rt, fn, I->node, why);
        return false;
    }
    if (I->c == 0) {
        put(&R[I->d], token);
        if (s == FX_SPLIT_DONE) {
            put_int(&R[I->b], end);
            note_data_choice(rt, fn->g, fx_val_list_len(R[I->a]), "mpi", why);
        }
    }
    return true;
}

/* ---- the loop ---- */

/* A kernel's call, timed in the run's trace (hw/ktrace.h); its value. */
static inline bool kernel_called(FxKCall *k, bool ok)
{
    fx_ktrace_close(k);
    return ok;
}
#define KERNEL_CALL(name, call) (kcall = fx_ktrace_open(name, fn->g->intent, I->node), kernel_called(kcall, (call)))

#define INT_BINOP(builtin_op, float_op)                                                            \
    do {                                                                                           \
        FxValue a_ = R[I->a], b_ = R[I->b];                                                        \
        int64_t r_;                                                                                \
        double x_, y_;                                                                             \
        if (a_.kind == FX_VAL_INT && b_.kind == FX_VAL_INT && !builtin_op(a_.u.i, b_.u.i, &r_)) { \
            put_int(&R[I->d], r_);                                                                 \
            break;                                                                                 \
        }                                                                                          \
        if (float_pair(a_, b_, &x_, &y_)) {                                                        \
            put_float(&R[I->d], x_ float_op y_);                                                   \
            break;                                                                                 \
        }                                                                                          \
        goto slow;                                                                                 \
    } while (0)

#define INT_CMP(op)                                                                                \
    do {                                                                                           \
        FxValue a_ = R[I->a], b_ = R[I->b];                                                        \
        if (a_.kind == FX_VAL_INT && b_.kind == FX_VAL_INT) {                                      \
            put_bool(&R[I->d], a_.u.i op b_.u.i);                                                  \
            break;                                                                                 \
        }                                                                                          \
        if (float_ordered(a_, b_)) {                                                               \
            put_bool(&R[I->d], a_.u.f op b_.u.f);                                                  \
            break;                                                                                 \
        }                                                                                          \
        goto slow;                                                                                 \
    } while (0)

/* Dispatch. With GCC or clang, each operation jumps straight to the next
 * one's code ("threaded code"): one indirect jump per operation site
 * predicts far better than the single one of a switch, which was a quarter
 * of the time of a call-heavy program. Elsewhere, a plain switch. */
#if defined(__GNUC__)
#define CASE(op) L_##op
#define NEXT goto *dispatch[(I = pc++)->op]
#define VM_LOOP_BEGIN                                                                              \
    static const void *const dispatch[OP__COUNT + 1] = {VM_LABELS};                                \
    NEXT;
#define VM_LOOP_END
#else
#define CASE(op) case op
#define NEXT goto next
#define VM_LOOP_BEGIN                                                                              \
    for (;;) {                                                                                     \
        I = pc++;                                                                                  \
        switch ((FxOpcode)I->op) {
#define VM_LOOP_END                                                                                \
        }                                                                                          \
    next:;                                                                                         \
    }
#endif

#define VM_LABELS \
    [OP_CONST] = &&L_OP_CONST, \
    [OP_UNIT] = &&L_OP_UNIT, \
    [OP_MOVE] = &&L_OP_MOVE, \
    [OP_ADDK] = &&L_OP_ADDK, \
    [OP_SUBK] = &&L_OP_SUBK, \
    [OP_CMPK] = &&L_OP_CMPK, \
    [OP_BRK] = &&L_OP_BRK, \
    [OP_BR] = &&L_OP_BR, \
    [OP_ADD] = &&L_OP_ADD, \
    [OP_SUB] = &&L_OP_SUB, \
    [OP_MUL] = &&L_OP_MUL, \
    [OP_EQ] = &&L_OP_EQ, \
    [OP_NE] = &&L_OP_NE, \
    [OP_LT] = &&L_OP_LT, \
    [OP_LE] = &&L_OP_LE, \
    [OP_GT] = &&L_OP_GT, \
    [OP_GE] = &&L_OP_GE, \
    [OP_DIV] = &&L_OP_DIV, \
    [OP_IDIV] = &&L_OP_IDIV, \
    [OP_MOD] = &&L_OP_MOD, \
    [OP_POW] = &&L_OP_POW, \
    [OP_CONCAT] = &&L_OP_CONCAT, \
    [OP_NEG] = &&L_OP_NEG, \
    [OP_NOT] = &&L_OP_NOT, \
    [OP_INC] = &&L_OP_INC, \
    [OP_JMP] = &&L_OP_JMP, \
    [OP_JMPF] = &&L_OP_JMPF, \
    [OP_JMPT] = &&L_OP_JMPT, \
    [OP_FORI] = &&L_OP_FORI, \
    [OP_CALLP] = &&L_OP_CALLP, \
    [OP_CALL] = &&L_OP_CALL, \
    [OP_RET] = &&L_OP_RET, \
    [OP_BUILTIN] = &&L_OP_BUILTIN, \
    [OP_INDEX] = &&L_OP_INDEX, \
    [OP_INDEX2] = &&L_OP_INDEX2, \
    [OP_FIELD] = &&L_OP_FIELD, \
    [OP_BUILTINR] = &&L_OP_BUILTINR, \
    [OP_FORL] = &&L_OP_FORL, \
    [OP_INDEXF] = &&L_OP_INDEXF, \
    [OP_LIST] = &&L_OP_LIST, \
    [OP_RECORD] = &&L_OP_RECORD, \
    [OP_RANGE] = &&L_OP_RANGE, \
    [OP_LEN] = &&L_OP_LEN, \
    [OP_MINMAX] = &&L_OP_MINMAX, \
    [OP_NONEMPTY] = &&L_OP_NONEMPTY, \
    [OP_BEGIN] = &&L_OP_BEGIN, \
    [OP_PUSH] = &&L_OP_PUSH, \
    [OP_EXTEND] = &&L_OP_EXTEND, \
    [OP_END] = &&L_OP_END, \
    [OP_ENDM] = &&L_OP_ENDM, \
    [OP_SORT] = &&L_OP_SORT, \
    [OP_GROUP] = &&L_OP_GROUP, \
    [OP_JOIN] = &&L_OP_JOIN, \
    [OP_PRIMES] = &&L_OP_PRIMES, \
    [OP_GEMM] = &&L_OP_GEMM, \
    [OP_SELECT] = &&L_OP_SELECT, \
    [OP_CHECKF] = &&L_OP_CHECKF, \
    [OP_FAIL] = &&L_OP_FAIL, \
    [OP_DATA] = &&L_OP_DATA, \
    [OP_CHOICE] = &&L_OP_CHOICE, \
    [OP_COLUMN] = &&L_OP_COLUMN, \
    [OP_SPLIT] = &&L_OP_SPLIT, \
    [OP__COUNT] = &&L_OP__COUNT,


/* ---- the native tier (native.h) ---- */

/* The C stack a native call may use: past it the code bails, and the
 * interpreter, whose stack is on the heap, runs the call. */
#define NATIVE_STACK (256u << 10)
/* At most this many native frames fit in it (16 bytes each at least): a
 * depth budget below it is left to the interpreter to count. */
#define NATIVE_DEPTH (NATIVE_STACK / 16 + 64)

typedef struct NativeRun {
    struct FxNatCtx c; /* first: the generated code's pointer is this run's */
    FxRuntime *rt;
    FxFunc *root;      /* whose module runs (its kernel callees, by number) */
    uint64_t granted;  /* the VM's fuel accounting, carried through */
    uint64_t left;     /* of the VM's allowance, not yet handed to the native code */
    uint64_t handed;   /* steps handed to the native code in all */
    FxFunc *fn;        /* the caller and its call node, for the sampler */
    uint32_t node;
    size_t nframes;
    uint64_t cap;      /* steps before it gives the call back (runaway watch), or 0 */
    char *stack_low;   /* C stack below this: it gives the call back */
    size_t charged;    /* builder bytes charged to the meter */
    FxNatCache cache;  /* blocks let go of, for the next list of their size (natrec.h) */
} NativeRun;

/* The native code's fuel comes in chunks of at most NATIVE_CHUNK steps:
 * each chunk's end is where the C stack is looked at (a step a call: the
 * stack grows at most NATIVE_CHUNK frames between looks). */
#define NATIVE_CHUNK 1024

static long long hand(NativeRun *nr)
{
    uint64_t give = nr->left < NATIVE_CHUNK ? nr->left : NATIVE_CHUNK;
    nr->left -= give;
    nr->handed += give;
    return (long long)give;
}

static long long native_refuel(struct FxNatCtx *c)
{
    NativeRun *nr = (NativeRun *)c;
    /* the frame's address, not a local's: under AddressSanitizer locals may
     * live on a heap "fake stack" */
    if ((uintptr_t)__builtin_frame_address(0) < (uintptr_t)nr->stack_low ||
        (nr->cap && nr->handed >= nr->cap)) { /* deep: the interpreter's stack is the heap's;
                                                * long: the interpreter's watch decides */
        c->status = FX_NAT_BAIL;
        return 0;
    }
    if (!nr->left) {
        uint64_t g = refuel(nr->rt, nr->granted, nr->fn, nr->node, nr->nframes);
        if (!g) {
            c->status = FX_NAT_STOP;
            return 0;
        }
        nr->granted = nr->left = g;
    }
    return hand(nr);
}

/* Kernel callee k of the running module on args (words of its parameter
 * types), answered by its kernel as the VM's call would be: the fuel left
 * after the kernel's work, or 0 with status BAIL (the kernel did not answer,
 * or gave a big integer) or STOP. */
static long long native_spend(struct FxNatCtx *c, long long fuel);

static long long native_kernel(struct FxNatCtx *c, int k, const FxNatWord *a, FxNatWord *out,
                               long long fuel)
{
    NativeRun *nr = (NativeRun *)c;
    FxFunc *g = nr->root->native_kernels[k];
    const FxGraph *gg = g->g;
    FxValue args[16], v;
    if (gg->n_params > 16) {
        c->status = FX_NAT_BAIL;
        return 0;
    }
    for (uint32_t i = 0; i < gg->n_params; i++) {
        FxTypeIdKind t = fx_typeid_kind(gg->param_tids[i]);
        args[i] = t == FX_TK_FLOAT ? fx_val_float(a[i].f)
                  : t == FX_TK_BOOL ? fx_val_bool(a[i].i != 0) : fx_val_int(a[i].i);
    }
    bool counted;
    Answer ans = answer_call(nr->rt, g, args, gg->n_params, false, &v, &counted);
    if (ans != ANSWER_GIVEN) {
        c->status = ans == ANSWER_STOPPED ? FX_NAT_STOP : FX_NAT_BAIL;
        return 0;
    }
    bool ok = v.kind == FX_VAL_INT || v.kind == FX_VAL_FLOAT || v.kind == FX_VAL_BOOL;
    if (v.kind == FX_VAL_FLOAT)
        out->f = v.u.f;
    else
        out->i = v.kind == FX_VAL_BOOL ? v.u.b : v.u.i;
    fx_heap_release(v);
    if (!ok) { /* a big integer: the interpreter holds those */
        c->status = FX_NAT_BAIL;
        return 0;
    }
    return native_spend(c, fuel);
}

/* `++`'s units of work, asked of the meter first as value.c asks them. */
static long long native_work(struct FxNatCtx *c, long long units, long long fuel)
{
    if (!fx_meter_afford((uint64_t)units, 0)) {
        budget_error(((NativeRun *)c)->rt);
        c->status = FX_NAT_STOP;
        return 0;
    }
    return native_spend(c, fuel);
}

/* The meter's work since the VM looked (a kernel's, a `++`'s) out of the
 * fuel, as SPEND_WORK takes it from the VM's: the fuel left, or 0. */
static long long native_spend(struct FxNatCtx *c, long long fuel)
{
    NativeRun *nr = (NativeRun *)c;
    uint64_t w = fx_meter_state.work / FX_METER_UNITS_PER_STEP; /* the work, in steps */
    fx_meter_state.work %= FX_METER_UNITS_PER_STEP;
    if ((long long)w < fuel)
        return fuel - (long long)w;
    w -= (uint64_t)fuel;
    nr->left = nr->left > w ? nr->left - w : 0;
    return native_refuel(c);
}

static void *native_grow(struct FxNatCtx *c, void *p, long long old_bytes, long long new_bytes)
{
    NativeRun *nr = (NativeRun *)c;
    if (new_bytes <= 0) {
        fx_natcache_put(&nr->cache, p, (size_t)old_bytes);
        fx_meter_sub((size_t)old_bytes);
        nr->charged -= (size_t)old_bytes;
        return NULL;
    }
    if (new_bytes < old_bytes) { /* shrunk to its elements: credited */
        fx_meter_sub((size_t)(old_bytes - new_bytes));
        nr->charged -= (size_t)(old_bytes - new_bytes);
        return fx_xrealloc(p, (size_t)new_bytes);
    }
    if (!fx_meter_charge((size_t)(new_bytes - old_bytes))) {
        budget_error(nr->rt);
        c->status = FX_NAT_STOP;
        return NULL;
    }
    nr->charged += (size_t)(new_bytes - old_bytes);
    void *kept = p ? NULL : fx_natcache_take(&nr->cache, (size_t)new_bytes);
    return kept ? kept : fx_xrealloc(p, (size_t)new_bytes);
}

/* May native code run f's call now? Not when hooks watch each call, nor
 * when a function of its module has a table switched on since. */
static bool native_ready(FxRuntime *rt, FxFunc *f)
{
    if (!f->native_asked) {
        f->native_asked = true;
        if (rt->native_provider.attach && !rt->native_off &&
            fx_program_find_intent(rt->prog, f->g->intent)) /* not an expression */
            rt->native_provider.attach(rt->native_provider.ctx, rt, f->g->intent);
        device_plan(rt, f);
        /* a forced device says why it was not used: the call comes here */
        f->native_none = !f->native && !f->cl && rt->device_mode != FX_DEVICE_MODE_OPENCL;
    }
    if (!f->native || rt->native_off || rt->has_hooks)
        return false;
    if (f->native_gave_back == rt->evals) /* its calls within the one given back, each */
        return false;                      /* giving back too: the interpreter runs them */
    if (!rt->no_runaway && f->memo_able && !f->watch_more)
        return false; /* runaway protection's first look is the interpreter's: a recursion
                       * that repeats its work is better memoized than compiled */
    if (rt->budgets.max_depth && rt->budgets.max_depth < NATIVE_DEPTH) /* the C stack's depth */
        return false;
    for (uint32_t i = 0; i < f->n_native_mod; i++)
        if (fx_func_answers_calls(f->native_mod[i]) && !(i == 0 && fx_func_only_hot(f)))
            return false; /* the root's hot-input table is looked up first (native_in_loop) */
    return true;
}

/* Runs f's call on args natively: FX_NAT_OK with *out (a new reference),
 * FX_NAT_BAIL (the interpreter runs it) or FX_NAT_STOP (a budget; rt's
 * error says which). fuel and granted are the VM loop's, taken and given
 * back; calls gets the calls made. */
static int native_call(FxRuntime *rt, FxFunc *f, const FxValue *args, uint64_t *fuel,
                       uint64_t *granted, FxFunc *caller, uint32_t node, size_t nframes,
                       FxValue *out, uint64_t *calls)
{
    const FxGraph *g = f->g;
    FxNatWord w[16], r;
    void *tmp[16] = {0};
    uint64_t slots[FX_NATREC_MAX_FIELDS]; /* a record result's */
    r.l = (FxNatList){slots, 1};
    if (g->n_params > 16)
        return FX_NAT_BAIL;
    bool ok = true;
    for (uint32_t i = 0; ok && i < g->n_params; i++)
        ok = fx_natrec_word(rt->prog, args[i], g->param_tids[i], g->param_types[i], &w[i],
                            &tmp[i]); /* natrec.c */
    int status = FX_NAT_BAIL;
    if (ok) {
        uintptr_t here = (uintptr_t)__builtin_frame_address(0);
        NativeRun nr = {.c = {.refuel = native_refuel, .grow = native_grow,
                              .kernel = native_kernel, .work = native_work},
                        .rt = rt, .root = f, .granted = *granted, .left = *fuel, .fn = caller,
                        .node = node, .nframes = nframes,
                        .stack_low = (char *)(here - NATIVE_STACK)};
        /* runaway protection watches the interpreter: once its first look
         * found no repeated work (native_ready), the call goes back to it
         * after 16 times the wait for the next look (a few ms of native work) */
        if (!rt->no_runaway && f->memo_able)
            nr.cap = 16 * (RUNAWAY_AFTER + f->watch_more);
        nr.c.fuel = hand(&nr);
        uint64_t steps_before = rt->stats.steps;
        status = f->native(&nr.c, w, &r);
        for (int i = 0; i < nr.c.n_spare; i++) { /* charged while spare (FX_DROP) */
            free(nr.c.spare[i]);
            fx_meter_sub((size_t)nr.c.spare_bytes[i]);
            nr.charged -= (size_t)nr.c.spare_bytes[i];
        }
        fx_natcache_clear(&nr.cache);
        if (status == FX_NAT_BAIL) { /* the interpreter runs the call afresh, on these steps */
            rt->stats.steps = steps_before;
            f->native_gave_back = rt->evals;
            for (uint32_t i = 0; i < g->n_params; i++)
                free(tmp[i]);
            return status;
        }
        /* what it did not use of its chunk goes back; a call given back
         * keeps the steps it took (counted: they were taken) */
        nr.left += status == FX_NAT_OK && nr.c.fuel > 0 ? (uint64_t)nr.c.fuel : 0;
        *fuel = nr.left ? nr.left : 1;
        *granted = nr.granted + (nr.left ? 0 : 1);
        *calls = 1;
        if (status == FX_NAT_OK) {
            switch (fx_typeid_kind(g->ret_tid)) {
            case FX_TK_FLOAT: *out = fx_val_float(r.f); break;
            case FX_TK_BOOL: *out = fx_val_bool(r.i != 0); break;
            case FX_TK_RECORD: *out = fx_natrec_result(rt->prog, g->ret_tid, g->ret_type, r); break;
            case FX_TK_LIST:
                fx_meter_sub(nr.charged); /* the list charges it again, as it keeps it */
                *out = fx_natrec_result(rt->prog, g->ret_tid, g->ret_type, r);
                break;
            default: *out = fx_val_int(r.i); break;
            }
        }
    }
    for (uint32_t i = 0; i < g->n_params; i++)
        free(tmp[i]);
    return status;
}

/* ---- the devices: calls whose parts run on OpenCL (offload.h) ---- */

/* f's OpenCL plan, made once, unless the run keeps to the CPU. */
static void device_plan(FxRuntime *rt, FxFunc *f)
{
    if (f->cl_asked || rt->device_mode == FX_DEVICE_MODE_CPU)
        return;
    f->cl_asked = true;
    if (!fx_program_find_intent(rt->prog, f->g->intent) || fx_func_answers_calls(f))
        return;
    FxClPlan *p = fx_xcalloc(1, sizeof(*p));
    char why[256];
    if (fx_clgen_plan(rt, f->g, p, why, sizeof(why))) {
        f->cl = p;
    } else {
        free(p);
        f->cl_why = fx_xstrdup(why);
    }
}

/* The run's device decision, for the record: the one of the most items. */
static void note_device(FxRuntime *rt, size_t items, const char *where, const char *why)
{
    if (items < rt->device_choice_n)
        return;
    rt->device_choice_n = items;
    snprintf(rt->device_choice, sizeof(rt->device_choice), "%s: %s", where, why);
}

/* Under mpirun: does a kernel call of `work` units in fn split across the
 * ranks? With --device mpi, yes; else, from the kernel's floor on, where
 * the device cost model predicts it faster for fn's intent (devcost.h).
 * Returns the reason to split, in why, or NULL to run here; the choice is
 * the run's device decision. mpi_point then makes the run's time the
 * model's next point. */
static const char *mpi_choice(FxRuntime *rt, const FxFunc *fn, double work, double floor,
                              char *why, size_t len)
{
    if (!fx_cluster_active())
        return NULL;
    if (fx_cluster_forced()) {
        snprintf(why, len, "forced (--device mpi)");
        return why;
    }
    if (work < floor)
        return NULL;
    int c = fx_devcost_choose(device_cost(rt, fn), FX_DEVCOST_MPI, work, fx_cluster_device(),
                              why, len);
    note_device(rt, (size_t)work, c == FX_DEVCOST_MPI ? "mpi" : "cpu", why);
    return c == FX_DEVCOST_MPI ? why : NULL;
}

/* The run's time is a point of the model for fn's intent: on the ranks
 * (split, forced or chosen) or on the CPU, for the run's largest such
 * call. */
static void mpi_point(FxRuntime *rt, const FxFunc *fn, double work, double floor, bool split)
{
    if (!fx_cluster_active() || (work < floor && !split) ||
        (rt->dev_pending.on && rt->dev_pending.items > work))
        return;
    (void)device_cost(rt, fn); /* the entry, of fn's version, that the point goes to */
    snprintf(rt->dev_pending.intent, sizeof(rt->dev_pending.intent), "%s", fn->g->intent);
    rt->dev_pending.dev = split ? FX_DEVCOST_MPI : FX_DEVCOST_CPU;
    rt->dev_pending.items = work;
    rt->dev_pending.once_ms = 0;
    rt->dev_pending.on = true;
}

/* Where the call of f on args runs: the OpenCL device when the run forces
 * it (--device opencl), or, for the expression's own call of 1024 items or
 * more, where the device cost model (devcost.h) predicts it faster; else
 * the CPU. FX_NAT_OK with *out, else FX_NAT_BAIL (the CPU runs it) or
 * FX_NAT_STOP. The decision, with its reason, is the run's device choice,
 * and the run's time is the model's next point (fx_runtime_device_observe). */
static int device_call(FxRuntime *rt, FxFunc *f, const FxValue *args, uint32_t n,
                       size_t nframes, FxValue *out, uint64_t *calls)
{
    device_plan(rt, f);
    bool forced = rt->device_mode == FX_DEVICE_MODE_OPENCL;
    if (!forced && nframes != 1)
        return FX_NAT_BAIL; /* the model measures the expression's own calls */
    size_t items = 0;
    if (!f->cl || rt->has_hooks || fx_func_answers_calls(f) ||
        !fx_offload_items(f->g, f->cl, args, &items)) {
        if (forced && nframes == 1)
            note_device(rt, items, "cpu", f->cl ? "the call is traced, answered by a kernel or "
                        "sized past 64 bits" : f->cl_why ? f->cl_why : "not an intent");
        return FX_NAT_BAIL;
    }
    if (!forced && items < FX_DEVCOST_MIN_ITEMS)
        return FX_NAT_BAIL;
    char why[320] = "forced (--device opencl, FLUX_DEVICE)";
    FxDevCost *cost = device_cost(rt, f);
    if (!forced) {
        FxClInfo info = {0};
        bool present = fx_cl_probe_done(&info) ? info.device[0] != 0 : true;
        int choice = present ? fx_devcost_choose(cost, FX_DEVCOST_OPENCL, (double)items,
                                                 "the OpenCL device", why, sizeof(why))
                             : FX_DEVCOST_CPU;
        if (choice == FX_DEVCOST_OPENCL) { /* it will be used: its name in the reason */
            present = fx_cl_probe(&info);
            char label[160];
            snprintf(label, sizeof(label), "OpenCL on %s", info.device);
            choice = present ? fx_devcost_choose(cost, FX_DEVCOST_OPENCL, (double)items, label,
                                                 why, sizeof(why))
                             : FX_DEVCOST_CPU;
        }
        if (choice == FX_DEVCOST_CPU) {
            if (present)
                note_device(rt, items, "cpu", why);
            snprintf(rt->dev_pending.intent, sizeof(rt->dev_pending.intent), "%s",
                     f->g->intent);
            rt->dev_pending.dev = FX_DEVCOST_CPU;
            rt->dev_pending.items = (double)items;
            rt->dev_pending.once_ms = 0;
            rt->dev_pending.on = true;
            return FX_NAT_BAIL;
        }
    }
    FxOffloadNote note;
    FxValue v;
    FxOffloadStatus st = fx_offload_run(rt, f->g, f->cl, args, &v, &note);
    FxBuf reason = {0};
    fx_buf_printf(&reason, "%s; %s", why, note.why);
    if (st == FX_OFFLOAD_DONE)
        fx_buf_printf(&reason, "; independent parts: %s", fx_clgen_proof(f->cl));
    note_device(rt, items, st == FX_OFFLOAD_DONE ? "opencl" : "cpu", fx_buf_str(&reason));
    fx_buf_free(&reason);
    if (st == FX_OFFLOAD_STOP)
        return FX_NAT_STOP;
    if (nframes == 1) { /* the model's point: this run's time, on this device */
        snprintf(rt->dev_pending.intent, sizeof(rt->dev_pending.intent), "%s", f->g->intent);
        rt->dev_pending.dev = st == FX_OFFLOAD_DONE ? FX_DEVCOST_OPENCL : FX_DEVCOST_CPU;
        rt->dev_pending.items = (double)items;
        rt->dev_pending.once_ms = st == FX_OFFLOAD_DONE && note.build_ms > FX_DEVCOST_WARM_BUILD_MS
                                          ? note.build_ms - FX_DEVCOST_WARM_BUILD_MS
                                          : 0;
        rt->dev_pending.on = true;
    }
    if (st != FX_OFFLOAD_DONE)
        return FX_NAT_BAIL;
    *out = v;
    *calls += 1;
    if (nframes == 1) { /* the expression's own call */
        note_top_call(rt, f, args, n);
        fx_heap_retain(*out);
        fx_heap_release(rt->top_result);
        rt->top_result = *out;
    }
    return FX_NAT_OK;
}

/* The VM's call of callee natively, out of the loop's way: FX_NAT_OK with
 * *out (the expression's own call noted as the loop notes it), FX_NAT_BAIL
 * (not ready, or given back: the interpreter runs it) or FX_NAT_STOP. */
static __attribute__((noinline)) int native_in_loop(FxRuntime *rt, FxFunc *callee,
                                                    const FxValue *args, uint32_t n,
                                                    uint64_t *fuel, uint64_t *granted, FxFunc *fn,
                                                    uint32_t node, size_t nframes, bool deep_ok,
                                                    FxValue *out, uint64_t *calls)
{
    if (rt->device_mode != FX_DEVICE_MODE_CPU) {
        int ds = device_call(rt, callee, args, n, nframes, out, calls);
        if (ds != FX_NAT_BAIL)
            return ds;
    }
    if (!deep_ok || !native_ready(rt, callee)) /* deep_ok: the depth budget has room */
        return FX_NAT_BAIL;
    if (callee->hot.len && memo_find(&callee->hot, args, n, args_hash(args, n)))
        return FX_NAT_BAIL; /* a hot input: its table answers (answer_call), not the code */
    uint64_t made = 0;
    int ns = native_call(rt, callee, args, fuel, granted, fn, node, nframes, out, &made);
    if (ns != FX_NAT_OK)
        return ns;
    if (!rt->native_tier) /* native code ran a call of this run */
        rt->native_tier = callee->native_tier;
    if (nframes == 1) { /* the expression's own call */
        note_top_call(rt, callee, args, n);
        fx_heap_retain(*out);
        fx_heap_release(rt->top_result);
        rt->top_result = *out;
        rt->native_tier = callee->native_tier;
    }
    *calls += made;
    return FX_NAT_OK;
}

bool fx_runtime_attach_native(FxRuntime *rt, const char *intent, FxNatEntry entry,
                              const char *tier)
{
    const FxIntent *in = fx_program_find_intent(rt->prog, intent);
    fx_vec_foreach(NamedFunc, nf, &rt->funcs)
    {
        if (!in || strcmp(nf->name, in->key) != 0)
            continue;
        FxFunc *f = nf->fn, *mod[FX_NATIVE_MAX_FUNCS], *kernels[FX_NATIVE_MAX_FUNCS];
        bool fits = !entry || fx_native_shape_holds(f, entry);
        uint32_t nk = 0, n = entry && fits ? fx_native_module(f, mod, kernels, &nk) : 0;
        free(f->native_kernels);
        f->native_kernels = n && nk ? fx_xmalloc(nk * sizeof(*kernels)) : NULL;
        if (n && nk)
            memcpy(f->native_kernels, kernels, nk * sizeof(*kernels));
        f->n_native_kernels = n ? nk : 0;
        free(f->native_mod);
        free((char *)f->native_tier);
        f->native_mod = n ? fx_xmalloc(n * sizeof(*mod)) : NULL;
        if (n)
            memcpy(f->native_mod, mod, n * sizeof(*mod));
        f->n_native_mod = n;
        f->native = n ? entry : NULL;
        f->native_tier = n ? fx_xstrdup(tier) : NULL;
        f->native_asked = true;
        f->native_none = !f->native && !f->cl;
        return fits;
    }
    return false;
}

void fx_runtime_prepare_native(FxRuntime *rt, const char *intent)
{
    if (!rt->native_provider.attach || rt->native_off ||
        !fx_program_find_intent(rt->prog, intent))
        return;
    native_ready(rt, fx_runtime_func(rt, intent));
}

const char *fx_runtime_native_of(FxRuntime *rt, const char *intent)
{
    if (!fx_program_find_intent(rt->prog, intent))
        return NULL;
    FxFunc *f = fx_runtime_func(rt, intent);
    if (!f->native_asked && rt->native_provider.attach && !rt->native_off) {
        f->native_asked = true;
        rt->native_provider.attach(rt->native_provider.ctx, rt, intent);
        f->native_none = !f->native && !f->cl;
    }
    return f->native ? f->native_tier : NULL;
}

void fx_runtime_set_native(FxRuntime *rt, bool on)
{
    rt->native_off = !on;
}

void fx_runtime_set_native_provider(FxRuntime *rt, const FxNativeProvider *p)
{
    rt->native_provider = p ? *p : (FxNativeProvider){0};
}

const char *fx_runtime_native_tier(const FxRuntime *rt)
{
    return rt->native_tier;
}

static FxStatus run(FxRuntime *rt, FxFunc *entry, const FxValue *args, uint32_t n_args,
                    FxValue *out)
{
    rt->stats = (FxRunStats){0};
    drop_top_call(rt);
    drop_first_calls(rt);
    rt->profile_stamp = rt->profiling ? __atomic_add_fetch(&profile_stamps, 1, __ATOMIC_RELAXED)
                                      : 0;
    rt->side_steps = 0;
    fx_error_clear(&rt->error);
    rt->switches[0] = '\0';
    rt->data_choice[0] = '\0';
    rt->data_choice_n = 0;
    rt->device_choice[0] = '\0';
    rt->device_choice_n = 0;
    rt->dev_pending.on = false;
    rt->forced_used = false;
    rt->variant_taken = NULL;
    rt->choice_kernels = 0;
    rt->stopped_by = FX_STOP_NONE;
    rt->native_tier = NULL;
    rt->top_timed = 0;
    rt->evals++;
    clock_gettime(CLOCK_MONOTONIC, &rt->started);
    fx_meter_begin(rt->budgets.max_steps, rt->budgets.max_memory_mb, rt->budgets.max_seconds);
    if ((entry->n_regs > rt->stack_cap && !grow_stack(rt, entry->n_regs)) ||
        (!rt->frames_cap && !grow_frames(rt))) {
        fx_meter_end();
        rt->error.status = FX_ERR_RUNTIME;
        return FX_ERR_RUNTIME;
    }
    for (uint32_t i = 0; i < n_args; i++) {
        fx_heap_retain(args[i]);
        rt->stack[i] = args[i];
    }
    fx_ktrace_begin(&rt->ktrace);
    rt->sampled_at = rt->ktrace.t0;
    if (!rt->rng)
        rt->rng = (rt->ktrace.t0 ^ (uintptr_t)rt) | 1;
    rt->n_frames = 1; /* the entry: returning from it ends the run */
    rt->frames[0] = (Frame){entry, NULL, 0, 0, 0};
    Frame *frames = rt->frames;
    size_t nframes = 1;
    const uint64_t max_depth = rt->budgets.max_depth ? rt->budgets.max_depth : UINT64_MAX;
    FxFunc *fn = entry;
    uint32_t base = 0;
    FxValue *stack = rt->stack; /* rt->stack, kept in a register; reloaded when it grows */
    size_t stack_cap = rt->stack_cap;
    FxValue *R = stack;
    const FxInstr *pc = fn->code;
    uint64_t *counts = fn->block_counts;
    size_t high = entry->n_regs; /* registers ever used: cleared at the end */
    uint64_t granted = refuel(rt, 0, NULL, 0, 0), fuel = granted; /* steps left before the next check */
    uint64_t calls = 0, deepest = 1;
    /* tail calls made in the current frame, and in all frames: the depth
     * the language sees is nframes + all_tails (see OP_CALL) */
    uint64_t tails = 0, all_tails = 0;
    const bool hooked = rt->has_hooks;
    const bool watching = !rt->no_runaway;
    if (fuel == 0)
        goto error;
    FxError verr;
    FxValue tmp;
    FxKCall *kcall; /* KERNEL_CALL's */
    if (!natural_args_ok(rt, entry, R, NULL, 0))
        goto error;
    if ((entry->native || !entry->native_asked) && native_ready(rt, entry)) {
        FxValue v;
        int ns = native_call(rt, entry, R, &fuel, &granted, NULL, 0, 1, &v, &calls);
        if (ns == FX_NAT_STOP)
            goto error;
        if (ns == FX_NAT_OK) {
            rt->native_tier = entry->native_tier;
            clear_regs(rt->stack, (uint32_t)high);
            finish_stats(rt, granted - fuel, calls, deepest);
            fx_meter_end();
            *out = v;
            return FX_OK;
        }
        calls = 0;
    }
    counts[0]++;
    const FxInstr *I;
    VM_LOOP_BEGIN
        CASE(OP_CONST):
            if (is_heap(fn->consts[I->a].kind))
                fx_heap_retain(fn->consts[I->a]);
            put(&R[I->d], fn->consts[I->a]);
            NEXT;
        CASE(OP_UNIT):
            put(&R[I->d], (FxValue){0});
            NEXT;
        CASE(OP_MOVE):
            if (I->d != I->a) {
                if (is_heap(R[I->a].kind))
                    fx_heap_retain(R[I->a]);
                put(&R[I->d], R[I->a]);
            }
            NEXT;
        CASE(OP_ADDK):
        CASE(OP_SUBK): {
            FxValue a = R[I->a];
            int64_t r, k = (int32_t)I->b;
            if (a.kind == FX_VAL_INT && !(I->op == OP_ADDK ? __builtin_add_overflow(a.u.i, k, &r)
                                                           : __builtin_sub_overflow(a.u.i, k, &r))) {
                put_int(&R[I->d], r);
                NEXT;
            }
            bool ok = I->op == OP_ADDK ? fx_val_add(a, fx_val_int(k), &tmp, &verr)
                                       : fx_val_sub(a, fx_val_int(k), &tmp, &verr);
            if (!ok)
                goto value_error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        }
        CASE(OP_CMPK): {
            bool v;
            if (!compare(I->c, R[I->a], fx_val_int((int32_t)I->b), &v, &verr))
                goto value_error;
            put_bool(&R[I->d], v);
            NEXT;
        }
        CASE(OP_BRK):
        CASE(OP_BR): {
            bool v;
            FxValue lhs = R[I->d];
            if (I->op == OP_BRK && lhs.kind == FX_VAL_INT) {
                int64_t k = (int32_t)I->b;
                v = (I->c >> ((lhs.u.i > k) - (lhs.u.i < k) + 1)) & 1;
            } else if (!compare(I->c, lhs, I->op == OP_BRK ? fx_val_int((int32_t)I->b) : R[I->b],
                                &v, &verr)) {
                goto value_error;
            }
            if (hooked && rt->hooks.on_decision) {
                FxNodeId nid = {I->node};
                rt->hooks.on_decision(rt->hooks.ctx, fn->g, nid, v, nframes);
            }
            if (!v) {
                counts[I->tb]++;
                pc = fn->code + I->a;
            } else {
                counts[I->fb]++;
            }
            NEXT;
        }
        CASE(OP_ADD): INT_BINOP(__builtin_add_overflow, +); NEXT;
        CASE(OP_SUB): INT_BINOP(__builtin_sub_overflow, -); NEXT;
        CASE(OP_MUL): INT_BINOP(__builtin_mul_overflow, *); NEXT;
        CASE(OP_EQ): INT_CMP(==); NEXT;
        CASE(OP_NE): INT_CMP(!=); NEXT;
        CASE(OP_LT): INT_CMP(<); NEXT;
        CASE(OP_LE): INT_CMP(<=); NEXT;
        CASE(OP_GT): INT_CMP(>); NEXT;
        CASE(OP_GE): INT_CMP(>=); NEXT;
        CASE(OP_DIV): {
            double x, y;
            if (float_pair(R[I->a], R[I->b], &x, &y)) {
                put_float(&R[I->d], x / y);
                NEXT;
            }
            goto slow;
        }
        CASE(OP_IDIV):
        CASE(OP_MOD): {
            FxValue a = R[I->a], b = R[I->b];
            if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && b.u.i > 0) {
                /* floor division by a positive int64, as value.c's: C truncates toward zero */
                int64_t q = a.u.i / b.u.i, r = a.u.i % b.u.i;
                if (r < 0) {
                    q--;
                    r += b.u.i;
                }
                put_int(&R[I->d], I->op == OP_IDIV ? q : r);
                NEXT;
            }
            goto slow;
        }
        CASE(OP_POW):
        CASE(OP_CONCAT):
        slow:
            if (!generic_op(I, R, &tmp, &verr))
                goto value_error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_NEG):
            if (!fx_val_neg(R[I->a], &tmp, &verr))
                goto value_error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_NOT):
            put_bool(&R[I->d], !R[I->a].u.b);
            NEXT;
        CASE(OP_INC):
            if (R[I->d].kind == FX_VAL_INT && R[I->d].u.i < INT64_MAX) {
                R[I->d].u.i++;
            } else {
                if (!fx_val_add(R[I->d], fx_val_int(1), &tmp, &verr))
                    goto value_error;
                put(&R[I->d], tmp);
                SPEND_WORK();
            }
            NEXT;
        CASE(OP_JMP):
            counts[I->tb]++;
            pc = fn->code + I->a;
            NEXT;
        CASE(OP_JMPF):
        CASE(OP_JMPT): {
            bool v = R[I->d].u.b;
            if (I->c && hooked && rt->hooks.on_decision) {
                FxNodeId nid = {I->node};
                rt->hooks.on_decision(rt->hooks.ctx, fn->g, nid, v, nframes);
            }
            if (v == (I->op == OP_JMPT)) {
                counts[I->tb]++;
                pc = fn->code + I->a;
            } else {
                counts[I->fb]++;
            }
            NEXT;
        }
        CASE(OP_FORI): {
            if (--fuel == 0 && (granted = fuel = refuel(rt, granted, fn, I->node, nframes)) == 0)
                goto error;
            if (!counter_below(R[I->d], R[I->b])) {
                counts[I->tb]++;
                pc = fn->code + I->a;
            } else {
                counts[I->fb]++;
            }
            NEXT;
        }
        CASE(OP_FORL): { /* OP_INC, OP_JMP to the header and its OP_FORI, in one */
            if (R[I->d].kind == FX_VAL_INT && R[I->d].u.i < INT64_MAX) {
                R[I->d].u.i++;
            } else {
                if (!fx_val_add(R[I->d], fx_val_int(1), &tmp, &verr))
                    goto value_error;
                put(&R[I->d], tmp);
                SPEND_WORK();
            }
            counts[I->c]++;
            if (--fuel == 0 && (granted = fuel = refuel(rt, granted, fn, I->node, nframes)) == 0)
                goto error;
            if (counter_below(R[I->d], R[I->b])) {
                counts[I->tb]++;
                pc = fn->code + I->a;
            } else {
                counts[I->fb]++;
            }
            NEXT;
        }
        CASE(OP_CALLP): /* primality of an argument >= 0, from a sieve window */
            if (R[I->b].kind == FX_VAL_INT && R[I->b].u.i >= 0) {
                int is = sieved_prime(rt, (uint64_t)R[I->b].u.i, fn, I->node);
                if (is < 0)
                    goto error;
                SPEND_WORK();
                if (hooked && rt->hooks.on_call)
                    rt->hooks.on_call(rt->hooks.ctx, fn->callees[I->a]->g, R + I->b, 1, nframes);
                calls++;
                put(&R[I->d], fx_val_bool(is));
                NEXT;
            }
            goto call; /* a negative or big argument: the call itself */
        CASE(OP_CALL):
        call: {
            FxFunc *callee = fn->callees[I->a];
            uint32_t nb = base + I->b; /* the arguments become the callee's first slots */
            if (__builtin_expect(__atomic_load_n(&callee->profiled, __ATOMIC_RELAXED) !=
                                     rt->profile_stamp, 0))
                note_first_call(rt, callee, R + I->b, I->c);
            if (nframes + all_tails >= max_depth) {
                char *msg = fx_xasprintf("the depth budget of %llu nested calls is exhausted "
                                         "in `%s`; raise it with --max-depth",
                                         (unsigned long long)max_depth, callee->g->intent);
                fail(rt, fn, I->node, msg); // at the call that went one deeper
                free(msg);
                fx_meter_stop(FX_STOP_DEPTH);
                goto error;
            }
            if (--fuel == 0 && (granted = fuel = refuel(rt, granted, fn, I->node, nframes)) == 0)
                goto error;
            if (__builtin_expect(!callee->native_none, 0)) { /* one byte for the rest */
                FxValue v;
                int ns = native_in_loop(rt, callee, R + I->b, I->c, &fuel, &granted, fn, I->node,
                                        nframes, nframes + all_tails + NATIVE_DEPTH < max_depth,
                                        &v, &calls);
                if (ns == FX_NAT_STOP)
                    goto error;
                if (ns == FX_NAT_OK) {
                    put(&R[I->d], v);
                    NEXT;
                }
            }
            if (fx_func_answers_calls(callee)) {
                FxValue v;
                bool counted;
                Answer a = answer_call(rt, callee, R + I->b, I->c, nframes == 1, &v, &counted);
                if (a == ANSWER_STOPPED)
                    goto error;
                if (a == ANSWER_GIVEN) {
                    if (hooked && rt->hooks.on_call) /* a call answered is still a call made */
                        rt->hooks.on_call(rt->hooks.ctx, callee->g, R + I->b, I->c, nframes);
                    if (nframes == 1) { /* the expression's own call */
                        fx_heap_retain(v);
                        fx_heap_release(rt->top_result);
                        rt->top_result = v;
                    }
                    calls += counted;
                    put(&R[I->d], v);
                    SPEND_WORK();
                    NEXT;
                }
            }
            if (!callee->memo && callee->memo_able && watching &&
                ++callee->watched >= RUNAWAY_AFTER + callee->watch_more) {
                callee->watched--; /* stays at the mark while the sample fills */
                watch_for_runaway(rt, callee, R + I->b, I->c);
            }
            if (callee == fn && pc->op == OP_RET && pc->a == I->d && I->b >= I->c && !hooked &&
                !fn->memo && !fn->n_kept && nframes > 1) {
                /* A tail call of the function itself: its result is this
                 * frame's, so it runs in this frame, its arguments moved to
                 * the parameters' slots, the old parameters to where the
                 * arguments were (a loop written as a recursion then holds
                 * one step's values, not every step's: each register is
                 * let go as the next step writes it, or at the return).
                 * It is still a nested call to
                 * the language: counted in the depth budget and the
                 * deepest depth, and taken back in one return. Not when
                 * hooks watch the calls (explain's tree has a level a
                 * call), nor when returns do work a level (a memo table,
                 * kept results). */
                FxValue *A = R + I->b;
                for (uint32_t i = 0; i < I->c; i++) {
                    FxValue t = R[i];
                    R[i] = A[i];
                    A[i] = t;
                }
                for (uint64_t m = fn->natural_mask; m; m &= m - 1) {
                    const FxValue *x = &R[__builtin_ctzll(m)];
                    if ((x->kind != FX_VAL_INT || x->u.i < 0) &&
                        !natural_args_ok(rt, fn, R, fn, I->node))
                        goto error;
                }
                calls++;
                tails++;
                all_tails++;
                if (nframes + all_tails > deepest)
                    deepest = nframes + all_tails;
                counts[0]++;
                pc = fn->code;
                NEXT;
            }
            size_t need = (size_t)nb + callee->n_regs;
            if (need > stack_cap) {
                if (!grow_stack(rt, need))
                    goto error;
                stack = rt->stack;
                stack_cap = rt->stack_cap;
                R = stack + base;
            }
            if (need > high)
                high = need;
            if (nframes == rt->frames_cap) {
                if (!grow_frames(rt))
                    goto error;
                frames = rt->frames;
            }
            if (nframes == 1)
                note_top_call(rt, callee, R + I->b, I->c);
            frames[nframes++] = (Frame){fn, pc, base, I->d, tails};
            tails = 0;
            FxValue *A = stack + nb;
            for (uint64_t m = callee->natural_mask; m; m &= m - 1) {
                /* the common case inline: a small non-negative integer */
                const FxValue *x = &A[__builtin_ctzll(m)];
                if ((x->kind != FX_VAL_INT || x->u.i < 0) &&
                    !natural_args_ok(rt, callee, A, fn, I->node))
                    goto error;
            }
            calls++;
            if (nframes + all_tails > deepest)
                deepest = nframes + all_tails;
            if (hooked && rt->hooks.on_call)
                rt->hooks.on_call(rt->hooks.ctx, callee->g, A, I->c, nframes - 1);
            fn = callee;
            counts = fn->block_counts;
            counts[0]++;
            base = nb;
            R = A;
            pc = fn->code;
            NEXT;
        }
        CASE(OP_RET): {
            FxValue v = R[I->a];
            if (is_heap(v.kind))
                fx_heap_retain(v);
            if (fn->memo) {
                if (!fx_memo_insert(&fn->table, R, fn->g->n_params, v)) {
                    fx_heap_release(v);
                    goto error; /* the meter refused the table's growth */
                }
            }
            if (fn->n_kept)
                keep_result(rt, fn, R, v);
            if (nframes == 1) {
                clear_regs(rt->stack, (uint32_t)high);
                finish_stats(rt, granted - fuel, calls, deepest);
                fx_meter_end();
                *out = v;
                return FX_OK;
            }
            if (nframes == 2) { /* a call of the expression itself returns */
                fx_heap_retain(v);
                fx_heap_release(rt->top_result);
                rt->top_result = v;
            }
            /* a frame that made a heap value lets go of what it holds: a deep
             * recursion building big values (n * f(n - 1)) would otherwise
             * keep every level's until the run ends (the sum of all k! for
             * a factorial); a frame of small values is left as it is, for
             * the next call to overwrite */
            if (is_heap(v.kind))
                clear_heap_regs(R, fn);
            Frame back = frames[--nframes];
            all_tails -= tails;
            tails = back.tails;
            fn = back.fn;
            counts = fn->block_counts;
            base = back.base;
            R = stack + base;
            pc = back.ret_pc;
            put(&R[back.ret_dst], v);
            NEXT;
        }
        CASE(OP_BUILTINR): {
#define OPERAND(x) ((x) & FX_CONST_OPERAND ? fn->consts[(x) & ~FX_CONST_OPERAND] : R[x])
            const FxValue ops[3] = {OPERAND(I->b), OPERAND(I->c), OPERAND(I->fb)}; /* borrowed */
#undef OPERAND
            if (I->a == FX_BUILTIN_SLICE && ops[0].kind == FX_VAL_LIST &&
                ops[1].kind == FX_VAL_INT && ops[2].kind == FX_VAL_INT && ops[1].u.i >= 0 &&
                ops[1].u.i <= ops[2].u.i && (uint64_t)ops[2].u.i <= ops[0].u.obj->u.list.n) {
                /* xs[a..b] within xs: the slice without the general path's
                 * checks, which also word its errors */
                put(&R[I->d], fx_val_list_slice(ops[0], (size_t)ops[1].u.i, (size_t)ops[2].u.i));
                SPEND_WORK();
                NEXT;
            }
            if (!fx_builtin_call((FxBuiltin)I->a, ops, I->tb, &tmp, &verr))
                goto value_error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        }
        CASE(OP_BUILTIN):
            if (!fx_builtin_call((FxBuiltin)I->a, R + I->b, I->c, &tmp, &verr))
                goto value_error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_INDEX): {
            size_t k;
            FxValue list = R[I->a];
            const FxHeapObj *o = list.u.obj;
            /* the common case inline: an int64 index in range of an element
             * at hand (heapobj.h) */
            if (R[I->b].kind == FX_VAL_INT && (uint64_t)R[I->b].u.i < o->u.list.n &&
                fx_heap_list_item(o, (size_t)R[I->b].u.i, &tmp)) {
                put(&R[I->d], tmp);
                NEXT;
            }
            if (!index_ok(rt, fn, I->node, R[I->b], fx_val_list_len(list), "list", &k))
                goto error;
            put(&R[I->d], fx_val_list_get(list, k)); /* a table's row: made alone */
            NEXT;
        }
        CASE(OP_INDEX2): {
            size_t r, c;
            FxValue m = R[I->a];
            if (!index_ok(rt, fn, I->node, R[I->b], fx_val_matrix_rows(m), "matrix's rows", &r) ||
                !index_ok(rt, fn, I->node, R[I->c], fx_val_matrix_cols(m), "matrix's columns",
                          &c))
                goto error;
            tmp = fx_val_matrix_at(m, r, c);
            fx_heap_retain(tmp);
            put(&R[I->d], tmp);
            NEXT;
        }
        CASE(OP_FIELD): {
            /* the remembered position checked inline (see record_field), here
             * and in OP_INDEXF: one inline helper for both measured n-body
             * 25% slower (0.56 -> 0.71 s; GCC's code for this loop) */
            size_t at = (size_t)(I - fn->code);
            size_t k = __atomic_load_n(&fn->code[at].c, __ATOMIC_RELAXED);
            const FxHeapObj *rec = R[I->a].u.obj;
            if (k < rec->u.rec.n &&
                rec->u.rec.names[k] == __atomic_load_n(&fn->field_seen[at], __ATOMIC_RELAXED))
                tmp = rec->u.rec.fields[k];
            else
                tmp = record_field(fn, at, I->b, rec);
            fx_heap_retain(tmp);
            put(&R[I->d], tmp);
            NEXT;
        }
        CASE(OP_INDEXF): { /* xs[i].f: the element borrowed, when it is boxed */
            FxValue list = R[I->a];
            const FxHeapObj *o = list.u.obj;
            if (R[I->b].kind == FX_VAL_INT && (uint64_t)R[I->b].u.i < o->u.list.n &&
                o->u.list.items) {
                size_t at = (size_t)(I - fn->code);
                size_t k = __atomic_load_n(&fn->code[at].c, __ATOMIC_RELAXED);
                const FxHeapObj *rec = o->u.list.items[R[I->b].u.i].u.obj;
                if (k < rec->u.rec.n &&
                    rec->u.rec.names[k] == __atomic_load_n(&fn->field_seen[at], __ATOMIC_RELAXED))
                    tmp = rec->u.rec.fields[k];
                else
                    tmp = record_field(fn, at, I->fb, rec);
                fx_heap_retain(tmp);
                put(&R[I->d], tmp);
                NEXT;
            }
            size_t k;
            if (!index_ok(rt, fn, I->tb, R[I->b], fx_val_list_len(list), "list", &k))
                goto error;
            FxValue row = fx_val_list_get(list, k); /* a table's row: made alone */
            tmp = record_field(fn, (size_t)(I - fn->code), I->fb, row.u.obj);
            fx_heap_retain(tmp);
            fx_heap_release(row);
            put(&R[I->d], tmp);
            NEXT;
        }
        CASE(OP_LIST): /* a literal's few elements: counted, and looked at after */
            put(&R[I->d], fx_val_list(R + I->a, I->b));
            SPEND_WORK();
            NEXT;
        CASE(OP_RECORD):
            put(&R[I->d], fx_val_record(I->b, fn->records[I->c], R + I->a));
            SPEND_WORK();
            NEXT;
        CASE(OP_RANGE):
            if (!make_range(rt, fn, I, R, &tmp))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_LEN):
            put_int(&R[I->d], (int64_t)fx_val_list_len(R[I->a]));
            NEXT;
        CASE(OP_MINMAX): {
            FxValue v = R[I->a], acc = R[I->d];
            if (v.kind == FX_VAL_UNIT)
                NEXT;
            if (v.kind == FX_VAL_INT && acc.kind == FX_VAL_INT) { /* a fold's common case */
                if (I->c ? v.u.i > acc.u.i : v.u.i < acc.u.i)
                    R[I->d].u.i = v.u.i;
                NEXT;
            }
            bool ok = true;
            if (acc.kind != FX_VAL_UNIT && (v.kind == FX_VAL_FLOAT || acc.kind == FX_VAL_FLOAT) &&
                v.kind != FX_VAL_UNIT) { /* fmin/fmax, as min(a, b) of Floats */
                if (!fx_math_pick(acc, v, I->c, &tmp, &verr))
                    goto value_error;
                put(&R[I->d], tmp);
                NEXT;
            }
            if (acc.kind != FX_VAL_UNIT) {
                int c = fx_val_compare(v, acc, &ok);
                if (!ok) {
                    fail(rt, fn, I->node, "`min`/`max` of values that have no order");
                    goto error;
                }
                if (I->c ? c <= 0 : c >= 0)
                    NEXT;
            }
            fx_heap_retain(v);
            put(&R[I->d], v);
            NEXT;
        }
        CASE(OP_NONEMPTY):
            if (R[I->d].kind == FX_VAL_UNIT) {
                fail(rt, fn, I->node, "`min`/`max` of an empty sequence");
                goto error;
            }
            NEXT;
        CASE(OP_BEGIN):
            begin_builder(rt);
            NEXT;
        CASE(OP_PUSH): {
            Builder *b = &rt->builders.data[rt->builders.len - 1];
            if (b->len == b->cap && !grow_builder(rt, b))
                goto error;
            if (is_heap(R[I->a].kind)) {
                fx_heap_retain(R[I->a]);
                b->heap = true;
            }
            b->data[b->len++] = R[I->a];
            NEXT;
        }
        CASE(OP_EXTEND): {
            Builder *b = &rt->builders.data[rt->builders.len - 1];
            size_t n = fx_val_list_len(R[I->a]);
            for (size_t i = 0; i < n; i++) {
                if (b->len == b->cap && !grow_builder(rt, b))
                    goto error;
                FxValue v = fx_val_list_at(R[I->a], i);
                if (is_heap(v.kind)) {
                    fx_heap_retain(v);
                    b->heap = true;
                }
                b->data[b->len++] = v;
            }
            NEXT;
        }
        CASE(OP_END):
            put(&R[I->d], end_builder(rt));
            SPEND_WORK();
            NEXT;
        CASE(OP_ENDM):
            if (!end_matrix(rt, fn, I, R, &tmp))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_SORT): {
            FxKCall *k = fx_ktrace_open(I->c & 2 ? "sort kernel" : "bubble sort", fn->g->intent, I->node);
            bool ok = I->c & 2 ? kernel_sort(rt, fn, I, R, &tmp) : bubble_sort(rt, fn, I, R, &tmp);
            fx_ktrace_close(k);
            if (!ok)
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        }
        CASE(OP_JOIN):
            if (!KERNEL_CALL("join", join_matches(rt, R[I->a], R[I->b], &tmp)))
                goto error;
            put(&R[I->d], tmp);
            NEXT;
        CASE(OP_GROUP):
            if (!KERNEL_CALL("group", group_by_key(rt, R[I->a], R[I->b], &tmp)))
                goto error;
            put(&R[I->d], tmp);
            NEXT;
        CASE(OP_SELECT):
            if (!KERNEL_CALL("select", select_kernel(rt, fn, I, R, &tmp)))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_GEMM):
            if (!KERNEL_CALL("matrix product", gemm_kernel(rt, fn, I, R, &tmp)))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_PRIMES):
            if (!KERNEL_CALL("sieve", primes_kernel(rt, fn, I, R, &tmp)))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_CHECKF):
        CASE(OP_FAIL):
            call_failure(rt, fn, I, R, I->op == OP_CHECKF);
            goto error;
        CASE(OP_DATA): {
            size_t len;
            if (!KERNEL_CALL("data source",
                             data_value(rt, fx_val_string_data(fn->consts[I->a], &len), &tmp)))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        }
        CASE(OP_CHOICE):
            if (fn->choice == FX_CHOICE_NONE) {
                const char *why = "no implementation may run";
                fx_vec_foreach(Choice, c, &rt->choices) if (!strcmp(c->intent, fn->g->intent) &&
                                                            c->why) why = c->why;
                fail(rt, fn, I->node, why);
                goto error;
            }
            put_int(&R[I->d], (int64_t)fn->choice);
            NEXT;
        CASE(OP_COLUMN):
            if (!KERNEL_CALL("column", column_list(rt, fn, I, R, &tmp)))
                goto error;
            put(&R[I->d], tmp);
            SPEND_WORK();
            NEXT;
        CASE(OP_SPLIT):
            if (!KERNEL_CALL("cluster map", split_map(rt, fn, I, R)))
                goto error;
            NEXT;
        CASE(OP__COUNT):
            FX_UNREACHABLE();
    VM_LOOP_END
value_error:
    value_failed(rt, fn, I->node, &verr);
error:
    fx_cluster_settle(); /* a map split across ranks that this error left */
    /* whatever failed after the meter stopped the run, a budget stopped it */
    if (fx_meter_state.stop != FX_STOP_NONE && rt->stopped_by == FX_STOP_NONE)
        budget_error(rt);
    finish_stats(rt, granted - fuel, calls, deepest);
    clear_regs(rt->stack, (uint32_t)high);
    rt->n_frames = 0;
    clear_builders(rt);
    fx_meter_end();
    rt->error.status = FX_ERR_RUNTIME;
    return FX_ERR_RUNTIME;
}

FxStatus fx_runtime_eval_with(FxRuntime *rt, const FxGraph *g, const FxValue *args, size_t n,
                              FxValue *out)
{
    fx_vec_foreach(FxFunc *, old, &rt->exprs) fx_func_free(*old);
    rt->exprs.len = 0;
    FxFunc *f = fx_xcalloc(1, sizeof(*f));
    fx_vec_push(&rt->exprs, f);
    fx_compile(rt, g, f);
    if (n != g->n_params) {
        fx_error_set(&rt->error, FX_ERR_USAGE, "`%s` takes %u arguments, not %zu", g->intent,
                     g->n_params, n);
        return FX_ERR_USAGE;
    }
    return run(rt, f, args, (uint32_t)n, out);
}

FxStatus fx_runtime_eval(FxRuntime *rt, const FxGraph *g, FxValue *out)
{
    /* an expression runs once: the previous one's code is not needed again */
    fx_vec_foreach(FxFunc *, old, &rt->exprs) fx_func_free(*old);
    rt->exprs.len = 0;
    FxFunc *f = fx_xcalloc(1, sizeof(*f));
    fx_vec_push(&rt->exprs, f);
    fx_compile(rt, g, f);
    return run(rt, f, NULL, 0, out);
}

FxStatus fx_runtime_call(FxRuntime *rt, const char *intent, const FxValue *args, size_t n,
                         FxValue *out)
{
    FxFunc *f = fx_runtime_func(rt, intent);
    if (n != f->g->n_params) {
        fx_error_set(&rt->error, FX_ERR_USAGE, "`%s` takes %u arguments, not %zu", intent,
                     f->g->n_params, n);
        return FX_ERR_USAGE;
    }
    return run(rt, f, args, (uint32_t)n, out);
}
