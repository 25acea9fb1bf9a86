/*
 * pool.h: a small fixed pool of worker threads and its parallel-for, the
 * threads of the CPU device (device.h). Every kernel's threads come from
 * here, through fx_device_launch; nothing else starts threads.
 *
 *   static void square(void *ctx, size_t i) { long *v = ctx; v[i] *= v[i]; }
 *   fx_pool_run(fx_pool_default(), n, square, values);  // returns when all n ran
 *
 * A pool of N threads has N - 1 workers: the thread that calls fx_pool_run
 * is the N-th and takes tasks too, so a pool of 1 runs everything inline.
 * The workers are started once and sleep between calls, so a call costs a
 * wake-up (some microseconds), not a thread start. Tasks are claimed one at
 * a time from a shared counter, so uneven tasks balance themselves; a task
 * should be worth a few microseconds at least (batch finer work into chunks
 * yourself). Tasks must not wait for one another (no barrier inside a
 * task): a call may run them one after the other (below).
 *
 * Threads: any thread may call fx_pool_run at any time. The workers serve
 * one call at a time; a call made while they are busy (from another
 * thread, or from inside a task of the same pool) runs its tasks in the
 * calling thread, one after the other, with the same result. In a child of
 * fork() a pool's workers are gone and its calls run inline too, except
 * the default pool's: the child gets a fresh default pool of its own.
 */
#ifndef FX_POOL_H
#define FX_POOL_H

#include <stddef.h>

typedef struct FxPool FxPool;

/* Runs task number `task` (0 <= task < n_tasks) with the context given to
 * fx_pool_run. Called from any thread of the pool, in no particular order. */
typedef void (*FxPoolFn)(void *ctx, size_t task);

/* Called on the calling thread about every millisecond while it waits for
 * the workers' last tasks (to poll a budget, say), with the call's ctx. */
typedef void (*FxPoolWait)(void *ctx);

/* Returns a new pool of `threads` threads (0 counts as 1): the caller and
 * threads - 1 workers, fewer if the OS refuses to start some. The caller
 * frees it with fx_pool_destroy(). */
FxPool *fx_pool_create(unsigned threads);

/* Stops and joins the workers, then frees the pool. NULL-safe. Must not be
 * called while fx_pool_run runs. */
void fx_pool_destroy(FxPool *p);

/* The threads that run tasks: the workers started, plus the caller. */
unsigned fx_pool_size(const FxPool *p);

/* Calls fn(ctx, i) once for each i in [0, n_tasks), spread over the pool,
 * and returns when every call has returned; what the tasks wrote is then
 * visible to the caller. Task 0 runs on the calling thread. wait (NULL:
 * none) is called as FxPoolWait says. */
void fx_pool_run(FxPool *p, size_t n_tasks, FxPoolFn fn, void *ctx, FxPoolWait wait);

/* The process-wide pool, created on the first call (thread-safe) with
 * fx_pool_default_size() threads and kept until the process exits. */
FxPool *fx_pool_default(void);

/* The size the default pool has or will have: the physical cores of the
 * hardware profile (fx_hw_detect). Starts no thread. */
unsigned fx_pool_default_size(void);

#endif
