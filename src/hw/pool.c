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
 * One job at a time: `running` catches a second caller, and a task that
 * calls fx_pool_run on its own pool, which would otherwise deadlock.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/base.h"
#include "hw.h"
#include "pool.h"

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
    atomic_bool running; /* an fx_pool_run is in progress */
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

void fx_pool_run(FxPool *p, size_t n_tasks, FxPoolFn fn, void *ctx)
{
    FX_CHECK(!atomic_exchange(&p->running, true),
             "fx_pool_run: the pool is already running a job (two callers, or a task "
             "calling its own pool)");
    // after fork() only the calling thread exists in the child
    if (n_tasks <= 1 || p->n_workers == 0 || p->owner != getpid()) {
        for (size_t i = 0; i < n_tasks; i++)
            fn(ctx, i);
        atomic_store(&p->running, false);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->busy = p->n_workers;
    p->gen++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);

    drain(p, fn, ctx, n_tasks);

    pthread_mutex_lock(&p->lock);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    atomic_store(&p->running, false);
}

static FxPool *default_pool;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void create_default(void)
{
    default_pool = fx_pool_create(fx_pool_default_size());
}

FxPool *fx_pool_default(void)
{
    pthread_once(&default_once, create_default);
    return default_pool;
}

unsigned fx_pool_default_size(void)
{
    return fx_hw_detect().cores;
}
