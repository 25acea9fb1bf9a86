/*
 * meter.c: the run's meter (meter.h): charges, the clock, the resident
 * size, and GMP's allocation functions.
 *
 * DESIGN
 *
 * The budgets of a run are a property of the thread running it, so the
 * meter is one thread-local struct: value.c and GMP can charge it without
 * a runtime pointer, and the VM reads it with one load after the operations
 * that may have charged it. It is the one piece of global state of the
 * executor besides GMP's own hook, which is process-wide by GMP's design:
 * installed once, it counts on whatever thread allocates.
 *
 * GMP gives the size of every block to its free and reallocate functions,
 * so its memory is counted exactly. Its functions may not fail (GMP has no
 * way to unwind an operation half done), so they only count; whether an
 * operation may run is decided before it starts, by value.c's prediction
 * of its result and scratch (fx_meter_afford). A crossing that slips
 * through (an estimate too low) stops the run at the VM's next look.
 *
 * malloc keeps what a program frees for reuse, and until version 2.35 at
 * least glibc raises its mmap threshold to the largest block freed (up to
 * 32 MB), so that the freed big blocks of a number-crunching run stay
 * resident. fx_meter_install fixes the threshold at 1 MB instead: a block
 * of 1 MB or more is mapped on its own and given back when freed, so what
 * is resident follows what is live, and the resident size stays within
 * the budget that the charges keep.
 *
 * The deadline is met by the run and the giving back of what it holds
 * together: freeing a few GB (malloc's free lists, the kernel's pages) takes
 * a tenth of a second or more, which the person who set --max-seconds
 * waits for too. So the clock is compared with the deadline less the
 * release time of the bytes the run holds, 40 ms a GB (measured here: 170
 * ms for a stop holding 3.7 GB), and a run holding little stops at its
 * deadline.
 *
 * The resident size (/proc/self/statm) is read when a run begins (the
 * baseline) and then at most every 10 ms of a run as the backstop for
 * memory nothing charges (the compiled code, sqlite's cache, malloc's
 * fragments).
 */
#include "meter.h"

#include <fcntl.h>
#include <gmp.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

_Thread_local FxMeter fx_meter_state = {.limit = INT64_MAX, .steps_left = UINT64_MAX};

/* ---- GMP's allocation functions: they count, and never refuse ---- */

static void *gmp_alloc(size_t n)
{
    fx_meter_add(n + FX_METER_BLOCK_OVERHEAD);
    return fx_xmalloc(n);
}

static void *gmp_realloc(void *p, size_t old, size_t n)
{
    fx_meter_sub(old);
    fx_meter_add(n);
    return fx_xrealloc(p, n);
}

static void gmp_free(void *p, size_t n)
{
    fx_meter_sub(n + FX_METER_BLOCK_OVERHEAD);
    free(p);
}

static void install_once(void)
{
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
#ifdef M_MMAP_THRESHOLD
    /* a fixed threshold also turns off glibc's raising it (see above) */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

void fx_meter_install(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_once);
}

/* ---- the clock and the resident size ---- */

double fx_meter_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int statm_fd = -1;
static pthread_once_t statm_once = PTHREAD_ONCE_INIT;

static void open_statm(void)
{
    statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
}

/* Resident bytes of the process, or 0 when /proc cannot tell. The file is
 * opened once and read with pread, which /proc answers afresh each time:
 * an open, a scanf and a close were 10 us of every run's start, as long
 * as a small run itself. */
static int64_t resident_bytes(void)
{
    pthread_once(&statm_once, open_statm);
    char buf[128];
    ssize_t n = statm_fd >= 0 ? pread(statm_fd, buf, sizeof(buf) - 1, 0) : -1;
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strchr(buf, ' '); /* size, then resident, in pages */
    return p ? (int64_t)strtoull(p + 1, NULL, 10) * (int64_t)sysconf(_SC_PAGESIZE) : 0;
}

/* ---- a run ---- */

/* fx_meter_interrupt's requests so far: a run stops when it sees it move */
static atomic_uint interrupts;

void fx_meter_interrupt(void)
{
    atomic_fetch_add_explicit(&interrupts, 1, memory_order_relaxed);
}

void fx_meter_interruptible(bool on)
{
    fx_meter_state.interruptible = on;
}

void fx_meter_begin(uint64_t max_steps, uint64_t max_memory_mb, double max_seconds)
{
    FxMeter *m = &fx_meter_state;
    m->running = true;
    m->interrupts = atomic_load_explicit(&interrupts, memory_order_relaxed);
    m->stop = FX_STOP_NONE;
    m->work = 0;
    m->max_steps = max_steps;
    m->max_memory_mb = max_memory_mb;
    m->max_seconds = max_seconds;
    m->steps_left = max_steps ? max_steps : UINT64_MAX;
    double now = fx_meter_clock();
    m->deadline = max_seconds > 0 ? now + max_seconds : 0;
    m->last_rss_look = now;
    m->limit = INT64_MAX;
    m->start_live = m->live;
    if (max_memory_mb) {
        m->baseline = resident_bytes();
        int64_t budget = max_memory_mb > (uint64_t)INT64_MAX >> 21
                             ? INT64_MAX / 2
                             : (int64_t)max_memory_mb << 20;
        m->limit = m->live + (budget - m->baseline);
    }
}

void fx_meter_end(void)
{
    FxMeter *m = &fx_meter_state;
    m->running = false;
    m->limit = INT64_MAX;
    m->deadline = 0;
    m->steps_left = UINT64_MAX;
    m->work = 0;
}

/* Seconds to give back one byte the run holds (see above). */
#define RELEASE_SECONDS_PER_BYTE (0.040 / (double)(1 << 30))

/* Would the run, `more` seconds from now and having given back what it
 * holds, end past its deadline? */
static bool past_deadline(const FxMeter *m, double more)
{
    int64_t held = m->live - m->start_live;
    double release = held > 0 ? (double)held * RELEASE_SECONDS_PER_BYTE : 0;
    return fx_meter_clock() + more + release > m->deadline;
}

/* Work that makes the VM look at once (its next fuel check sees the stop). */
#define LOOK_NOW ((uint64_t)1 << 62)

void fx_meter_stop(FxStop why)
{
    FxMeter *m = &fx_meter_state;
    if (m->stop == FX_STOP_NONE)
        m->stop = why;
    m->work |= LOOK_NOW;
}

void fx_meter_crossed(void)
{
    if (fx_meter_state.running)
        fx_meter_stop(FX_STOP_MEMORY);
}

bool fx_meter_charge(size_t n)
{
    FxMeter *m = &fx_meter_state;
    if (m->stop != FX_STOP_NONE && m->running)
        return false;
    if (n > (size_t)INT64_MAX || m->live > m->limit - (int64_t)n) {
        if (m->running) {
            fx_meter_stop(FX_STOP_MEMORY);
            return false;
        }
    }
    m->live += (int64_t)n;
    return true;
}

bool fx_meter_fits(size_t n)
{
    FxMeter *m = &fx_meter_state;
    if (!m->running)
        return true;
    if (m->stop != FX_STOP_NONE)
        return false;
    if (n > (size_t)INT64_MAX || m->live > m->limit - (int64_t)n) {
        fx_meter_stop(FX_STOP_MEMORY);
        return false;
    }
    return true;
}

size_t fx_meter_room(void)
{
    FxMeter *m = &fx_meter_state;
    if (m->stop != FX_STOP_NONE || m->live >= m->limit)
        return 0;
    return (size_t)(m->limit - m->live);
}

bool fx_meter_afford(uint64_t units, size_t bytes)
{
    FxMeter *m = &fx_meter_state;
    if (!m->running) {
        m->work += units;
        return true;
    }
    if (!fx_meter_fits(bytes))
        return false;
    if (units / FX_METER_UNITS_PER_STEP > m->steps_left) {
        fx_meter_stop(FX_STOP_STEPS);
        return false;
    }
    /* below about a millisecond the clock is not worth reading */
    if (m->deadline > 0 && units >= ((uint64_t)1 << 20) &&
        past_deadline(m, (double)units * 1e-9)) {
        fx_meter_stop(FX_STOP_TIME);
        return false;
    }
    m->work += units;
    return true;
}

bool fx_meter_poll(void)
{
    FxMeter *m = &fx_meter_state;
    if (!m->running)
        return true;
    if (m->stop != FX_STOP_NONE)
        return false;
    if (m->interruptible && atomic_load_explicit(&interrupts, memory_order_relaxed) != m->interrupts) {
        fx_meter_stop(FX_STOP_INTERRUPT);
        return false;
    }
    if (m->work / FX_METER_UNITS_PER_STEP > m->steps_left) {
        fx_meter_stop(FX_STOP_STEPS);
        return false;
    }
    if (m->deadline > 0 && past_deadline(m, 0)) {
        fx_meter_stop(FX_STOP_TIME);
        return false;
    }
    return true;
}

bool fx_meter_poll_resident(void)
{
    FxMeter *m = &fx_meter_state;
    if (!m->running || !m->max_memory_mb)
        return m->stop == FX_STOP_NONE || !m->running;
    if (m->stop != FX_STOP_NONE)
        return false;
    double now = fx_meter_clock();
    if (now - m->last_rss_look < 0.010)
        return true;
    m->last_rss_look = now;
    if ((uint64_t)resident_bytes() > m->max_memory_mb << 20) {
        fx_meter_stop(FX_STOP_MEMORY);
        return false;
    }
    return true;
}

/* ORDER FX_STOP; an interrupt is no budget: it has no name, and the run
 * is not recorded */
static const char *const stop_names[] = {NULL, "step", "depth", "memory", "time", NULL};

const char *fx_meter_stop_name(FxStop s)
{
    return stop_names[s];
}

void fx_meter_message(const char *detail, char *out, size_t len)
{
    const FxMeter *m = &fx_meter_state;
    const char *sep = detail && *detail ? ": " : "";
    detail = detail ? detail : "";
    switch (m->stop) {
    case FX_STOP_STEPS:
        snprintf(out, len, "the step budget of %llu steps (calls and loop iterations) is "
                 "exhausted%s%s; raise it with --max-steps", (unsigned long long)m->max_steps, sep,
                 detail);
        break;
    case FX_STOP_MEMORY:
        snprintf(out, len, "the memory budget of %llu MB is exhausted%s%s; raise it with "
                 "--max-memory", (unsigned long long)m->max_memory_mb, sep, detail);
        break;
    case FX_STOP_TIME:
        snprintf(out, len, "the time budget of %g s is exhausted%s%s; raise it with --max-seconds",
                 m->max_seconds, sep, detail);
        break;
    case FX_STOP_INTERRUPT:
        snprintf(out, len, "interrupted%s%s", sep, detail);
        break;
    default: /* depth names the intent: the VM writes it */
        snprintf(out, len, "a budget is exhausted");
        break;
    }
}
