/*
 * device_test.c: the device interface (hw/device.h) and the CPU device's
 * pool under it: every task of a launch runs exactly once, task 0 on the
 * caller, launches nested in a task and launches from several threads at
 * once are safe, the caller is called back while it waits, and a forked
 * child gets a default pool with workers of its own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fx_test.h"
#include "hw/device.h"
#include "hw/pool.h"

/* A launch's record: how often each task ran. EXPECT is not thread-safe, so
 * tasks only count; the test thread checks. */
typedef struct {
    atomic_int *runs;
    size_t n;
    pthread_t caller;
    atomic_bool task0_elsewhere;
} Count;

static void count_task(void *arg, size_t i)
{
    Count *c = arg;
    atomic_fetch_add(&c->runs[i], 1);
    if (i == 0 && !pthread_equal(pthread_self(), c->caller))
        atomic_store(&c->task0_elsewhere, true);
}

/* Launches n counting tasks on the CPU; true when each ran exactly once and
 * task 0 on this thread. */
static bool launch_counted(size_t n)
{
    Count c = {.runs = calloc(n ? n : 1, sizeof(atomic_int)), .n = n, .caller = pthread_self()};
    atomic_init(&c.task0_elsewhere, false);
    fx_device_launch(fx_device_cpu(), n, count_task, &c, NULL);
    bool ok = !atomic_load(&c.task0_elsewhere);
    for (size_t i = 0; i < n; i++)
        ok &= atomic_load(&c.runs[i]) == 1;
    free(c.runs);
    return ok;
}

FX_TEST(the_cpu_is_present_and_named)
{
    const FxDevice *cpu = fx_device_get(FX_DEVICE_CPU);
    EXPECT(cpu != NULL && cpu == fx_device_cpu());
    EXPECT_STR_EQ(cpu->name, "cpu");
    EXPECT_EQ(cpu->id, FX_DEVICE_CPU);
    EXPECT(fx_device_get(FX_DEVICE__COUNT) == NULL);
    FxDeviceInfo info = fx_device_info(cpu);
    EXPECT_EQ(info.units, fx_pool_default_size());
    EXPECT(info.memory > 0);
    EXPECT(strstr(info.what, "(the pool)") != NULL);
    FxBuf b = {0};
    fx_device_report(false, &b);
    EXPECT(strncmp(fx_buf_str(&b), "devices   cpu: ", 15) == 0);
    fx_buf_free(&b);
    fx_device_report(true, &b);
    EXPECT(strncmp(fx_buf_str(&b), "[{\"id\": 0, \"name\": \"cpu\", \"present\": true, \"units\": ",
                   52) == 0);
    fx_buf_free(&b);
}

FX_TEST(memory_and_copy)
{
    const FxDevice *cpu = fx_device_cpu();
    char *d = cpu->alloc(cpu, 6);
    EXPECT(d != NULL);
    cpu->copy(cpu, d, "flux!", 6);
    char back[6];
    cpu->copy(cpu, back, d, 6);
    EXPECT_STR_EQ(back, "flux!");
    cpu->release(cpu, d);
    cpu->release(cpu, NULL);
}

FX_TEST(thread_counts_follow_the_work)
{
    const FxDevice *cpu = fx_device_cpu();
    unsigned units = fx_device_info(cpu).units;
    EXPECT_EQ(fx_device_threads(cpu, 999999, 1e6), 1);
    EXPECT_EQ(fx_device_threads(cpu, 1e6, 1e6), units);
    EXPECT_EQ(fx_device_threads(cpu, 0, 0), units);
}

FX_TEST(every_task_runs_once)
{
    const size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 100000};
    for (size_t i = 0; i < FX_ARRAY_LEN(sizes); i++)
        EXPECT(launch_counted(sizes[i]));
    for (int k = 0; k < 2000; k++) /* the dispatch, many times over */
        EXPECT(launch_counted((size_t)(k % 9)));
}

/* Each task launches 16 tasks of its own on the same device. */
typedef struct {
    atomic_int inner; /* inner tasks run */
    atomic_int bad;   /* inner launches that did not run each task once */
} Nest;

static void inner_task(void *arg, size_t i)
{
    (void)i;
    atomic_fetch_add(&((Nest *)arg)->inner, 1);
}

static void outer_task(void *arg, size_t i)
{
    (void)i;
    Nest *nest = arg;
    Nest mine;
    atomic_init(&mine.inner, 0);
    fx_device_launch(fx_device_cpu(), 16, inner_task, &mine, NULL);
    if (atomic_load(&mine.inner) != 16)
        atomic_fetch_add(&nest->bad, 1);
    atomic_fetch_add(&nest->inner, atomic_load(&mine.inner));
}

FX_TEST(nested_launches_are_safe)
{
    Nest nest;
    atomic_init(&nest.inner, 0);
    atomic_init(&nest.bad, 0);
    fx_device_launch(fx_device_cpu(), 8, outer_task, &nest, NULL);
    EXPECT_EQ(atomic_load(&nest.inner), 8 * 16);
    EXPECT_EQ(atomic_load(&nest.bad), 0);
}

static void *launcher(void *arg)
{
    atomic_int *failures = arg;
    for (int k = 0; k < 300; k++)
        if (!launch_counted(1 + (size_t)(k % 40)))
            atomic_fetch_add(failures, 1);
    return NULL;
}

FX_TEST(concurrent_launches_are_safe)
{
    atomic_int failures;
    atomic_init(&failures, 0);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        EXPECT(pthread_create(&t[i], NULL, launcher, &failures) == 0);
    launcher(&failures);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    EXPECT_EQ(atomic_load(&failures), 0);
}

/* Task 1 takes 20 ms on a worker, and task 0 (the caller's) returns once
 * it has started: the caller then waits and is called back meanwhile. */
typedef struct {
    atomic_int waits;
    pthread_t caller;
    atomic_bool wait_elsewhere, started;
} Slow;

static void nap(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static void slow_task(void *arg, size_t i)
{
    Slow *s = arg;
    if (i == 1) {
        atomic_store(&s->started, true);
        nap(20000000);
        return;
    }
    for (int ms = 0; ms < 5000 && !atomic_load(&s->started); ms++)
        nap(1000000);
}

static void on_wait(void *arg)
{
    Slow *s = arg;
    atomic_fetch_add(&s->waits, 1);
    if (!pthread_equal(pthread_self(), s->caller))
        atomic_store(&s->wait_elsewhere, true);
}

FX_TEST(the_caller_is_called_back_while_it_waits)
{
    if (fx_device_info(fx_device_cpu()).units < 2)
        return; /* one thread: every task runs inline, nothing to wait for */
    Slow s = {.caller = pthread_self()};
    atomic_init(&s.waits, 0);
    atomic_init(&s.wait_elsewhere, false);
    atomic_init(&s.started, false);
    fx_device_launch(fx_device_cpu(), 2, slow_task, &s, on_wait);
    EXPECT(atomic_load(&s.waits) > 0);
    EXPECT(!atomic_load(&s.wait_elsewhere));
}

/* Task 0 (the caller's) waits, up to 5 s, for another task to run on
 * another thread: there are workers. */
typedef struct {
    pthread_t caller;
    atomic_bool elsewhere;
} Where;

static void where_task(void *arg, size_t i)
{
    Where *w = arg;
    if (i != 0) {
        if (!pthread_equal(pthread_self(), w->caller))
            atomic_store(&w->elsewhere, true);
        return;
    }
    for (int ms = 0; ms < 5000 && !atomic_load(&w->elsewhere); ms++)
        nap(1000000);
}

FX_TEST(a_forked_child_has_workers_of_its_own)
{
    if (fx_device_info(fx_device_cpu()).units < 2)
        return;
    EXPECT(launch_counted(100)); /* the parent's pool exists */
    pid_t child = fork();
    if (child == 0) {
        Where w = {.caller = pthread_self()};
        atomic_init(&w.elsewhere, false);
        fx_device_launch(fx_device_cpu(), 4, where_task, &w, NULL);
        _exit(atomic_load(&w.elsewhere) && launch_counted(1000) ? 0 : 1);
    }
    int status = -1;
    EXPECT(child > 0 && waitpid(child, &status, 0) == child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT(launch_counted(100)); /* and the parent's still works */
}

static void nothing(void *arg, size_t i)
{
    (void)arg;
    (void)i;
}

/* What a launch costs when its tasks cost nothing: a wake-up of the
 * workers, not a thread start (printed, as store_test prints a flush). */
FX_TEST(the_cost_of_a_launch)
{
    const FxDevice *cpu = fx_device_cpu();
    unsigned units = fx_device_info(cpu).units;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < 2000; k++)
        fx_device_launch(cpu, units, nothing, NULL, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3;
    printf("device: a launch of %u empty tasks on the cpu: %.1f us\n", units, us / 2000);
}

int main(void)
{
    return fx_test_run();
}
