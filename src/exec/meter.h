/*
 * meter.h: what a run spends, counted as it is spent, against its budgets.
 *
 * The VM counts its own steps in a local (vm.c). Everything else a run
 * spends passes through the meter, which every part of the executor reaches
 * without a runtime pointer: value.c (every heap value, and the work and
 * digits of each big-number operation), GMP itself (its allocation
 * functions, installed once per process), data.c (reading a source), and
 * the VM's builders, stacks, tables and kernels.
 *
 * Memory. `live` is the bytes charged and not yet credited. A run may take
 * it up to `limit` = live at the start + (the budget - the resident memory
 * of the process at the start), so that what the run allocates plus what
 * the process held before stays within the budget. Two kinds of charge:
 *   fx_meter_charge(n)   asks first: when n would cross the limit nothing is
 *                        charged, the run is stopped and the caller must not
 *                        allocate. Every allocation whose size the program
 *                        decides asks first: a list builder's growth, a
 *                        range, a product's or power's digits (predicted by
 *                        value.c before GMP runs), a kernel's buffers, a file
 *                        being read, the VM's stacks, a memo table.
 *   fx_meter_add(n)      counts what is already decided and small (a value's
 *                        header, a record of a few fields, GMP's own
 *                        allocations inside an operation that was predicted
 *                        to fit): never refused; crossing the limit stops
 *                        the run at the VM's next look, which comes before
 *                        its next step.
 * Work. Big-number operations and kernels charge their estimated cost in
 * units of about a nanosecond (value.c documents the estimates); the VM
 * takes them out of its step fuel, FX_METER_UNITS_PER_STEP units a step, so
 * they count in the step budget and bring the next time check forward.
 * Time. A deadline on CLOCK_MONOTONIC_COARSE (a few nanoseconds to read,
 * 4 ms fine here). An operation estimated to end past it is refused before
 * it starts.
 *
 * A refusal is sticky: once the meter has stopped a run, every later
 * charge, poll or estimate is refused too, until the next run begins.
 *
 * Thread rules: the state is thread-local, so a run's meter is the meter of
 * the thread that runs it, and two runtimes on two threads do not mix.
 * Kernel worker threads charge nothing: their buffers are charged by the
 * thread that starts them.
 */
#ifndef FX_METER_H
#define FX_METER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which budget stopped a run. ORDER FX_STOP: keep in sync with stop_names[] */
typedef enum FxStop {
    FX_STOP_NONE,
    FX_STOP_STEPS,
    FX_STOP_DEPTH,
    FX_STOP_MEMORY,
    FX_STOP_TIME,
    FX_STOP_INTERRUPT, /* fx_meter_interrupt: the user's, not a budget */
} FxStop;

/* Work units (about a nanosecond each) that make one step. */
#define FX_METER_UNITS_PER_STEP 16
/* What malloc adds to each block it hands out, as charged. */
#define FX_METER_BLOCK_OVERHEAD 16

typedef struct FxMeter {
    int64_t live;        /* bytes charged and not yet credited, on this thread */
    int64_t limit;       /* live may not pass it; INT64_MAX outside a run */
    uint64_t work;       /* units charged since the VM last took them */
    uint64_t steps_left; /* the step budget left at the VM's last look; UINT64_MAX: none */
    double deadline;     /* on the coarse clock, in seconds; 0: none */
    FxStop stop;         /* the budget that stopped the run, or NONE */
    bool running;
    /* the budgets, for the messages */
    uint64_t max_steps, max_memory_mb;
    double max_seconds;
    int64_t baseline;    /* resident bytes when the run began */
    int64_t start_live;  /* live when the run began: limit - start_live is all it may take */
    double last_rss_look; /* coarse seconds of the last read of the resident size */
    unsigned interrupts;  /* fx_meter_interrupt's count when the run began */
    bool interruptible;   /* whether fx_meter_interrupt stops this thread's runs */
} FxMeter;

extern _Thread_local FxMeter fx_meter_state;

/* Installs the counting allocation functions in GMP (once per process;
 * thread-safe). Every GMP allocation after this is counted on the thread
 * that makes it. */
void fx_meter_install(void);

/* A run begins on this thread: the budgets (0: none) and the resident
 * memory now, read from /proc. */
void fx_meter_begin(uint64_t max_steps, uint64_t max_memory_mb, double max_seconds);
/* The run ended: nothing is limited until the next begins. */
void fx_meter_end(void);

/* Called when a forced charge crossed the limit: stops the run. */
void fx_meter_crossed(void);

/* Counts n bytes that are allocated whatever the budget says (see above). */
static inline void fx_meter_add(size_t n)
{
    fx_meter_state.live += (int64_t)n;
    if (fx_meter_state.live > fx_meter_state.limit)
        fx_meter_crossed();
}

/* Credits n bytes freed. */
static inline void fx_meter_sub(size_t n)
{
    fx_meter_state.live -= (int64_t)n;
}

/* Asks for n bytes: true and charged, or false (nothing charged, the run
 * stopped by its memory budget) when they would cross the limit. */
bool fx_meter_charge(size_t n);

/* Would n more bytes fit? Charges nothing; false stops the run, as a
 * refused charge does. For allocations made by someone else (GMP). */
bool fx_meter_fits(size_t n);

/* The bytes a charge may still take (0 when stopped). */
size_t fx_meter_room(void);

/* Counts work already done or small enough not to ask about. */
static inline void fx_meter_work(uint64_t units)
{
    fx_meter_state.work += units;
}

/* Asks before an operation of `units` of work that may allocate `bytes`
 * at its peak: refused (false, the run stopped by the budget in the way)
 * when the bytes do not fit, when its steps exceed what is left of the step
 * budget, or when, estimated at a unit a nanosecond, it would end past the
 * deadline. Otherwise the work is counted and true returned. */
bool fx_meter_afford(uint64_t units, size_t bytes);

/* The clock against the deadline, the work counted since the VM's last
 * look against the steps left, and the stop flag: false when the run must
 * stop. For the loops of kernels and readers, which the VM does not see. */
bool fx_meter_poll(void);

/* The resident memory against the budget, at most every 10 ms: the
 * backstop for what is not charged. False (the run stopped) when over. */
bool fx_meter_poll_resident(void);

/* Seconds on the coarse monotonic clock. */
double fx_meter_clock(void);

/* Marks the run stopped by a budget the caller detected (steps, depth). */
void fx_meter_stop(FxStop why);

/* "the time budget of 2 s is exhausted; raise it with --max-seconds" for
 * the budget that stopped the run (steps, memory or time; depth has its
 * own message, which names the intent), with ": DETAIL" before the `;`
 * when detail is given (what was refused up front, and its estimate). */
void fx_meter_message(const char *detail, char *out, size_t len);

/* "step", "depth", "memory", "time" (NULL for NONE): "the step budget". */
const char *fx_meter_stop_name(FxStop s);

/* Stops every run in progress in the process at its next look at the
 * meter (within about a millisecond, between two steps or at a kernel's
 * poll), with FX_STOP_INTERRUPT, on the threads that asked for it
 * (fx_meter_interruptible); runs that begin later are not touched.
 * Async-signal-safe: one atomic increment (a SIGINT handler calls it). */
void fx_meter_interrupt(void);
/* Whether fx_meter_interrupt stops the runs of this thread (off unless
 * set: a learner's runs are not the user's to stop). */
void fx_meter_interruptible(bool on);

#endif
