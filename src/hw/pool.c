/*
 * pool.c: the worker threads behind fx_pool_run.
 *
 * DESIGN
 * A job is {fn, ctx, n_tasks} plus an atomic counter `next` from which every
 * thread claims task indices until they run out. The job is published under
 * the lock with a new generation number `gen`; each worker sleeps on `work`
 * until the generation moves past the last one it served, runs what it can
 * claim, then decrements `busy` and signals `done` when it was the last.
 *
 * Task 0 is the caller's: it runs it first, before it claims others, so a
 * kernel knows that at least one of its tasks runs on the thread that may
 * poll the caller's budget, however loaded the machine.
 *
 * Invariants:
 *   - while a job runs, busy counts the workers that have not yet finished
 *     with it; fx_pool_run returns only when busy is 0, so no worker can
 *     touch fn or ctx (which may live on the caller's stack) afterwards, and
 *     the next job may reset `next` safely;
 *   - every worker serves every generation exactly once, even one whose
 *     tasks the others already took: that costs a wake-up and keeps the
 *     accounting trivial;
 *   - what a task writes happens before its worker's decrement of busy under
 *     the lock, which happens before the caller reads busy == 0 under the
 *     lock: the caller sees every task's writes.
 * One job at a time: `running` is taken (atomic exchange) by the call that
 * publishes a job. A call that finds it taken, from another thread or from
 * inside a task, runs its own tasks inline rather than wait: waiting inside
 * a task would deadlock, and an inline run gives the same result.
 *
 * Fork. The workers do not exist in a child of fork(): a pool made in
 * another process runs inline there (`owner`). The default pool is made
 * afresh in a child, so that a forked learner's kernels have their threads
 * as the parent's had; the parent's copy is freed without touching its
 * lock or conditions, whose state is the parent's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "hw.h"
#include "pool.h"
#include "setup.h"

struct FxPool {
    pthread_mutex_t lock; /* guards gen, busy, stop, fn, ctx, n_tasks */
    pthread_cond_t work;  /* gen moved or stop was set */
    pthread_cond_t done;  /* busy reached 0 */
    unsigned long gen;    /* the job's number; 0 before the first */
    unsigned busy;        /* workers not yet done with job gen */
    bool stop;            /* fx_pool_destroy: workers exit */
    FxPoolFn fn;
    void *ctx;
    size_t n_tasks;
    atomic_size_t next;  /* the next task to claim; beyond n_tasks when none is left */
    atomic_bool running; /* a job holds the workers */
    pid_t owner;         /* the process the workers live in */
    unsigned n_workers;
    pthread_t *workers;
};

/* Runs tasks of the current job until none is left to claim. */
static void drain(FxPool *p, FxPoolFn fn, void *ctx, size_t n)
{
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= n)
            return;
        fn(ctx, i);
    }
}

static void *worker_main(void *arg)
{
    FxPool *p = arg;
    unsigned long served = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->gen == served && !p->stop)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stop)
            break;
        served = p->gen;
        FxPoolFn fn = p->fn;
        void *ctx = p->ctx;
        size_t n = p->n_tasks;
        pthread_mutex_unlock(&p->lock);
        drain(p, fn, ctx, n);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

FxPool *fx_pool_create(unsigned threads)
{
    FxPool *p = fx_xcalloc(1, sizeof(*p));
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->next, 0);
    atomic_init(&p->running, false);
    p->owner = getpid();
    unsigned want = threads > 1 ? threads - 1 : 0;
    p->workers = fx_xcalloc(want ? want : 1, sizeof(pthread_t));
    // a worker the OS refuses to start is one fewer thread, not an error
    while (p->n_workers < want &&
           pthread_create(&p->workers[p->n_workers], NULL, worker_main, p) == 0)
        p->n_workers++;
    return p;
}

void fx_pool_destroy(FxPool *p)
{
    if (!p)
        return;
    FX_CHECK(!atomic_load(&p->running), "fx_pool_destroy: the pool is running a job");
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    if (p->owner == getpid())
        for (unsigned i = 0; i < p->n_workers; i++)
            pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    pthread_mutex_destroy(&p->lock);
    free(p->workers);
    free(p);
}

unsigned fx_pool_size(const FxPool *p)
{
    return p->n_workers + 1;
}

/* Waits, with p->lock held, for the workers to finish the job, calling
 * wait(ctx) each millisecond meanwhile (without the lock). */
static void wait_workers(FxPool *p, FxPoolWait wait, void *ctx)
{
    while (p->busy > 0) {
        if (!wait) {
            pthread_cond_wait(&p->done, &p->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&p->done, &p->lock, &until);
        if (p->busy > 0) {
            pthread_mutex_unlock(&p->lock);
            wait(ctx);
            pthread_mutex_lock(&p->lock);
        }
    }
}

void fx_pool_run(FxPool *p, size_t n_tasks, FxPoolFn fn, void *ctx, FxPoolWait wait)
{
    // after fork() only the calling thread exists in the child
    bool inline_run = n_tasks <= 1 || p->n_workers == 0 || p->owner != getpid() ||
                      atomic_exchange(&p->running, true);
    if (inline_run) {
        for (size_t i = 0; i < n_tasks; i++)
            fn(ctx, i);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store_explicit(&p->next, 1, memory_order_relaxed); /* task 0 is the caller's */
    p->busy = p->n_workers;
    p->gen++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);

    fn(ctx, 0);
    drain(p, fn, ctx, n_tasks);

    pthread_mutex_lock(&p->lock);
    wait_workers(p, wait, ctx);
    pthread_mutex_unlock(&p->lock);
    atomic_store(&p->running, false);
}

/* ---- the default pool ---- */

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER; /* guards default_pool */
static FxPool *default_pool;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The lock is held across fork(), so that the child's copy is free and
 * default_pool is not half written there. */
static void before_fork(void)
{
    pthread_mutex_lock(&default_lock);
}

static void after_fork(void)
{
    pthread_mutex_unlock(&default_lock);
}

static void register_atfork(void)
{
    FX_CHECK(pthread_atfork(before_fork, after_fork, after_fork) == 0, "pthread_atfork failed");
}

FxPool *fx_pool_default(void)
{
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&default_lock);
    if (default_pool && default_pool->owner != getpid()) { /* the parent's: its workers are not here */
        free(default_pool->workers);
        free(default_pool);
        default_pool = NULL;
    }
    if (!default_pool) {
        unsigned threads = fx_pool_default_size(); /* the probe charges its own time */
        double t0 = fx_setup_clock_ms();
        default_pool = fx_pool_create(threads);
        fx_setup_charge(t0); /* the workers' start, once a process */
    }
    FxPool *p = default_pool;
    pthread_mutex_unlock(&default_lock);
    return p;
}

unsigned fx_pool_default_size(void)
{
    return fx_hw_detect().cores;
}
