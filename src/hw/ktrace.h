/*
 * ktrace.h: what a run's kernels did, call by call: when each began and how
 * long it took, and the spans of its tasks on the device's threads. The VM
 * opens a call around each kernel it runs (a sort, a sieve, a matrix
 * product, a recurrence, a data source read); fx_device_launch, while a
 * call is open on the launching thread, times every task it runs and keeps
 * the thread that ran it. `flux traces --format chrome` draws them, and the
 * profiler of `flux serve` sums them (docs/web.md).
 *
 *   FxKTrace t;
 *   fx_ktrace_begin(&t);                 // this thread's runs trace into t
 *   FxKCall *k = fx_ktrace_open("sieve", intent, node);
 *   ... the kernel; its launches' tasks are timed ...
 *   fx_ktrace_close(k);
 *   fx_ktrace_end(&t);                   // the trace before is restored
 *
 * A trace keeps its first FX_KTRACE_CALLS calls and FX_KTRACE_TASKS task
 * spans whole; past them it still counts every call by kernel and node
 * (`totals`), and times one call in FX_KTRACE_SAMPLE (the total's time is
 * their time times FX_KTRACE_SAMPLE), so that a loop of a million small
 * kernel calls costs neither memory nor two clock reads a call.
 *
 * Threads: a trace belongs to the thread that began it; the tasks of its
 * launches write their spans from the device's threads into slots they
 * take with an atomic counter, and fx_device_launch returns only once they
 * are written.
 */
#ifndef FX_HW_KTRACE_H
#define FX_HW_KTRACE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define FX_KTRACE_CALLS 64
#define FX_KTRACE_TASKS 256
#define FX_KTRACE_TOTALS 16
#define FX_KTRACE_NAME 64 /* an intent's name is kept to this many bytes */
#define FX_KTRACE_SAMPLE 64 /* past the kept calls, one call in this many is timed */

/* One task of a launch: the thread (its Linux thread id) that ran it. */
typedef struct FxTaskSpan {
    uint32_t thread, task;
    uint64_t start_ns, ns; /* start from the trace's beginning */
} FxTaskSpan;

/* One kernel call; its task spans are spans[first_task, first_task + n_tasks). */
typedef struct FxKCall {
    const char *kernel; /* a static name */
    char intent[FX_KTRACE_NAME]; /* whose graph the node is in (a copy: the
                                  * graph of an EXPR is freed before the run
                                  * is recorded) */
    uint32_t node;      /* the graph node that called it; 0: the intent's call itself */
    uint64_t start_ns, ns;
    uint32_t first_task, n_tasks;
} FxKCall;

/* Every call of one kernel from one node. */
typedef struct FxKTotal {
    const char *kernel;
    char intent[FX_KTRACE_NAME];
    uint32_t node;
    uint64_t calls, ns;
} FxKTotal;

typedef struct FxKTrace {
    uint64_t t0;     /* CLOCK_MONOTONIC nanoseconds at fx_ktrace_begin */
    uint32_t thread; /* the thread that began it */
    FxKCall calls[FX_KTRACE_CALLS];
    uint32_t n_calls;
    FxKTotal totals[FX_KTRACE_TOTALS]; /* every call, by kernel and node */
    uint32_t n_totals;
    uint64_t other_calls, other_ns; /* calls of pairs past FX_KTRACE_TOTALS */
    FxTaskSpan tasks[FX_KTRACE_TASKS];
    _Atomic uint32_t n_tasks; /* slots taken; may pass FX_KTRACE_TASKS */
    FxKCall *open;            /* the call open now, or NULL */
    FxKCall overflow;         /* where a call past FX_KTRACE_CALLS is counted */
    const char *overflow_intent; /* its intent (borrowed while it is open) */
    bool overflow_timed;      /* and whether it is one of those timed */
    FxKTotal *last;           /* the total the last call went to, and its intent's */
    const char *last_intent;  /* name as given (a loop's calls find it at once) */
    uint64_t overflow_calls;
    struct FxKTrace *before;  /* the thread's trace when this one began */
} FxKTrace;

/* Makes t this thread's trace, empty, until fx_ktrace_end(t). */
void fx_ktrace_begin(FxKTrace *t);
void fx_ktrace_end(FxKTrace *t);
/* Opens a kernel call in this thread's trace (intent NULL: none); NULL (and nothing to close)
 * when the thread has none or a call is open already (a kernel inside a
 * kernel is part of it). */
FxKCall *fx_ktrace_open(const char *kernel, const char *intent, uint32_t node);
void fx_ktrace_close(FxKCall *k);
/* The trace with a call open on this thread, or NULL: fx_device_launch's
 * question. */
FxKTrace *fx_ktrace_recording(void);
/* Keeps a task's span in t (from any thread). */
void fx_ktrace_task(FxKTrace *t, uint32_t task, uint64_t start, uint64_t end);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t fx_ktrace_now(void);
/* The calling thread's Linux thread id (cached). */
uint32_t fx_ktrace_thread(void);

#endif
