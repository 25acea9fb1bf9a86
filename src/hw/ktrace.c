/*
 * ktrace.c: the kernel calls of a run, timed (ktrace.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ktrace.h"

static _Thread_local FxKTrace *current;

uint64_t fx_ktrace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t fx_ktrace_thread(void)
{
    static _Thread_local uint32_t tid;
    if (!tid)
        tid = (uint32_t)syscall(SYS_gettid);
    return tid;
}

void fx_ktrace_begin(FxKTrace *t)
{
    t->before = current; /* the arrays are not cleared: their counts say what is kept */
    t->n_calls = t->n_totals = 0;
    t->other_calls = t->other_ns = t->overflow_calls = 0;
    t->last = NULL;
    atomic_store_explicit(&t->n_tasks, 0, memory_order_relaxed);
    t->open = NULL;
    t->t0 = fx_ktrace_now();
    t->thread = fx_ktrace_thread();
    current = t;
}

void fx_ktrace_end(FxKTrace *t)
{
    if (current == t)
        current = t->before;
}

FxKCall *fx_ktrace_open(const char *kernel, const char *intent, uint32_t node)
{
    FxKTrace *t = current;
    if (!t || t->open)
        return NULL;
    if (t->n_calls == FX_KTRACE_CALLS) { /* counted, and timed now and then */
        FxKCall *k = &t->overflow;
        k->kernel = kernel;
        k->node = node;
        t->overflow_intent = intent ? intent : "";
        t->overflow_timed = t->overflow_calls++ % FX_KTRACE_SAMPLE == 0;
        k->start_ns = t->overflow_timed ? fx_ktrace_now() - t->t0 : 0;
        t->open = k;
        return k;
    }
    FxKCall *k = &t->calls[t->n_calls++];
    uint32_t taken = atomic_load_explicit(&t->n_tasks, memory_order_relaxed);
    *k = (FxKCall){.kernel = kernel, .node = node, .start_ns = fx_ktrace_now() - t->t0,
                   .first_task = taken < FX_KTRACE_TASKS ? taken : FX_KTRACE_TASKS};
    snprintf(k->intent, sizeof(k->intent), "%s", intent ? intent : "");
    t->open = k;
    return k;
}

/* Adds a call of intent's node to its kernel's and node's total. */
static void add_total(FxKTrace *t, const FxKCall *k, const char *intent)
{
    t->last = NULL;
    for (uint32_t i = 0; i < t->n_totals; i++) {
        FxKTotal *s = &t->totals[i];
        if (s->node == k->node && !strcmp(s->kernel, k->kernel) &&
            !strncmp(s->intent, intent, sizeof(s->intent) - 1)) {
            s->calls++;
            s->ns += k->ns;
            t->last = s;
            t->last_intent = intent;
            return;
        }
    }
    if (t->n_totals < FX_KTRACE_TOTALS) {
        FxKTotal *s = &t->totals[t->n_totals++];
        *s = (FxKTotal){.kernel = k->kernel, .node = k->node, .calls = 1, .ns = k->ns};
        snprintf(s->intent, sizeof(s->intent), "%s", intent);
        t->last = s;
        t->last_intent = intent;
        return;
    }
    t->other_calls++;
    t->other_ns += k->ns;
}

void fx_ktrace_close(FxKCall *k)
{
    FxKTrace *t = current;
    if (!k || !t || t->open != k)
        return;
    if (k == &t->overflow) {
        k->ns = t->overflow_timed ? (fx_ktrace_now() - t->t0 - k->start_ns) * FX_KTRACE_SAMPLE : 0;
        FxKTotal *s = t->last;
        if (s && s->node == k->node && s->kernel == k->kernel &&
            t->last_intent == t->overflow_intent) { /* the same call as the last one's */
            s->calls++;
            s->ns += k->ns;
        } else {
            add_total(t, k, t->overflow_intent);
        }
        t->open = NULL;
        return;
    }
    k->ns = fx_ktrace_now() - t->t0 - k->start_ns;
    uint32_t taken = atomic_load_explicit(&t->n_tasks, memory_order_relaxed);
    uint32_t end = taken < FX_KTRACE_TASKS ? taken : FX_KTRACE_TASKS;
    k->n_tasks = end - k->first_task;
    add_total(t, k, k->intent);
    t->open = NULL;
}

FxKTrace *fx_ktrace_recording(void)
{
    FxKTrace *t = current; /* a call past the kept ones keeps no task */
    return t && t->open && t->open != &t->overflow ? t : NULL;
}

void fx_ktrace_task(FxKTrace *t, uint32_t task, uint64_t start, uint64_t end)
{
    uint32_t slot = atomic_fetch_add_explicit(&t->n_tasks, 1, memory_order_relaxed);
    if (slot < FX_KTRACE_TASKS)
        t->tasks[slot] = (FxTaskSpan){fx_ktrace_thread(), task, start - t->t0, end - start};
}
