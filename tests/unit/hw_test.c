/*
 * hw_test.c: the hardware profile's invariants (hw.h), on both detection
 * paths (hwloc, and sysfs alone), and the thread pool's parallel-for.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fx_test.h"
#include "hw/hw.h"
#include "hw/pool.h"

static bool pow2(size_t n)
{
    return n && !(n & (n - 1));
}

/* The invariants hw.h states; every machine must satisfy them. */
static void expect_sane(const FxHardware *hw)
{
    EXPECT(hw->cores >= 1);
    EXPECT(hw->threads >= hw->cores);
    EXPECT(hw->numa_nodes >= 1);
    EXPECT(hw->cache_line == 0 || pow2(hw->cache_line));
    const size_t level[] = {hw->l1d, hw->l2, hw->l3};
    size_t below = 0;
    for (size_t i = 0; i < FX_ARRAY_LEN(level); i++) {
        EXPECT_EQ(level[i] % 1024, 0);
        EXPECT(level[i] == 0 || level[i] >= below);
        // no data cache is smaller than 1 KiB or larger than 4 GiB
        EXPECT(level[i] == 0 || (level[i] >= 1024 && level[i] <= ((size_t)4 << 30)));
        if (level[i])
            below = level[i];
    }
    EXPECT(hw->source[0] != '\0');
#if defined(__x86_64__)
    EXPECT_STR_EQ(hw->arch, "x86_64");
    // x86-64 implies SSE2 only, but the implications between levels hold
    EXPECT(!hw->avx2 || hw->avx);
    EXPECT(!hw->avx512bw || hw->avx512f);
    EXPECT(!hw->avx512f || hw->avx2);
#elif defined(__aarch64__)
    EXPECT(hw->neon);
#endif
}

FX_TEST(detect_hwloc_is_sane)
{
    FxHardware hw = fx_hw_probe(true);
    expect_sane(&hw);
}

FX_TEST(detect_sysfs_fallback_is_sane)
{
    FxHardware hw = fx_hw_probe(false);
    expect_sane(&hw);
    EXPECT_STR_EQ(hw.source, "sysfs");
    // the CPU is the same whichever way the topology was read
    FxHardware h2 = fx_hw_probe(true);
    EXPECT_EQ(hw.avx2, h2.avx2);
    EXPECT_EQ(hw.avx512f, h2.avx512f);
}

FX_TEST(detect_is_cached)
{
    FxHardware a = fx_hw_detect(), b = fx_hw_detect();
    expect_sane(&a);
    EXPECT(memcmp(&a, &b, sizeof(a)) == 0);
}

FX_TEST(a_kept_profile_reads_back)
{
    FxHardware hw = fx_hw_probe(true), back;
    FxBuf text = {0};
    fx_hw_encode(&hw, &text);
    EXPECT(fx_hw_decode(fx_buf_str(&text), &back));
    EXPECT(memcmp(&hw, &back, sizeof(hw)) == 0);
    fx_buf_free(&text);
    // a damaged row is no profile, and one that breaks the invariants is settled
    EXPECT(!fx_hw_decode("1 2 2", &back));
    EXPECT(!fx_hw_decode("not a profile", &back));
    EXPECT(fx_hw_decode("1 8 2 0 1000 0 0 3 0 x86_64|kept", &back));
    EXPECT_EQ(back.cores, 2);     // no more cores than threads
    EXPECT_EQ(back.numa_nodes, 1); // at least one node
    EXPECT_EQ(back.l1d, 0);        // not a multiple of 1 KiB: unknown
    EXPECT_STR_EQ(back.source, "kept");
    FxBuf key = {0}, again = {0};
    fx_hw_machine_key(&key);
    fx_hw_machine_key(&again);
    EXPECT_EQ(key.len, 16);
    EXPECT_STR_EQ(fx_buf_str(&key), fx_buf_str(&again));
    fx_buf_free(&key);
    fx_buf_free(&again);
}

FX_TEST(describe_keeps_the_short_form)
{
    FxHardware hw = {.cores = 2, .threads = 4, .arch = "x86_64", .avx2 = true, .avx512f = true,
                     .sse42 = true, .l1d = 49152};
    FxBuf b = {0};
    fx_hw_describe(&hw, &b);
    EXPECT_STR_EQ(fx_buf_str(&b), "2 cores, x86_64, avx512f, avx2");
    fx_buf_free(&b);
    hw = (FxHardware){.cores = 1, .threads = 1};
    fx_hw_describe(&hw, &b);
    EXPECT_STR_EQ(fx_buf_str(&b), "1 core, unknown");
    fx_buf_free(&b);
}

FX_TEST(report_lists_everything)
{
    FxHardware hw = {.cores = 4, .threads = 8, .numa_nodes = 1, .l1d = 48 << 10,
                     .l2 = 1280 << 10, .cache_line = 64, .arch = "x86_64", .source = "sysfs",
                     .avx = true, .avx2 = true};
    FxBuf b = {0};
    fx_hw_simd(&hw, &b);
    EXPECT_STR_EQ(fx_buf_str(&b), "avx avx2");
    fx_buf_free(&b);
    fx_hw_report(&hw, 4, false, &b);
    EXPECT(strstr(fx_buf_str(&b), "4 physical, 8 hardware threads") != NULL);
    EXPECT(strstr(fx_buf_str(&b), "L1d 48 KiB, L2 1.25 MiB, L3 unknown; 64-byte lines") != NULL);
    EXPECT(strstr(fx_buf_str(&b), "4 threads (the caller and 3 workers)") != NULL);
    fx_buf_free(&b);
    fx_hw_report(&hw, 4, true, &b);
    EXPECT(strstr(fx_buf_str(&b), "\"caches\": {\"l1d\": 49152, \"l2\": 1310720, \"l3\": null, "
                                  "\"line\": 64}") != NULL);
    EXPECT(strstr(fx_buf_str(&b), "\"simd\": [\"avx\", \"avx2\"]") != NULL);
    fx_buf_free(&b);
}

/* ---- the pool ---------------------------------------------------------- */

typedef struct {
    long *slots;      /* slots[i] = i * i, written by task i */
    atomic_long sum;  /* the sum of all task indices */
    atomic_int calls; /* how many tasks ran */
} Job;

static void task(void *ctx, size_t i)
{
    Job *j = ctx;
    j->slots[i] = (long)(i * i);
    atomic_fetch_add(&j->sum, (long)i);
    atomic_fetch_add(&j->calls, 1);
}

/* Runs n tasks on p and checks each ran exactly once. */
static void expect_run(FxPool *p, size_t n)
{
    Job j = {.slots = calloc(n ? n : 1, sizeof(long))};
    atomic_init(&j.sum, 0);
    atomic_init(&j.calls, 0);
    fx_pool_run(p, n, task, &j, NULL);
    EXPECT_EQ(atomic_load(&j.calls), n);
    EXPECT_EQ(atomic_load(&j.sum), n ? (long)(n * (n - 1) / 2) : 0);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += j.slots[i] != (long)(i * i);
    EXPECT_EQ(wrong, 0);
    free(j.slots);
}

FX_TEST(pool_sums_over_tasks)
{
    FxPool *p = fx_pool_create(4);
    EXPECT_EQ(fx_pool_size(p), 4);
    expect_run(p, 0);
    expect_run(p, 1);
    expect_run(p, 3);
    expect_run(p, 10000);
    fx_pool_destroy(p);
}

FX_TEST(pool_many_calls)
{
    FxPool *p = fx_pool_create(3);
    for (size_t k = 0; k < 2000; k++)
        expect_run(p, k % 17);
    fx_pool_destroy(p);
}

FX_TEST(pool_of_one_runs_inline)
{
    FxPool *p = fx_pool_create(1);
    EXPECT_EQ(fx_pool_size(p), 1);
    expect_run(p, 1000);
    fx_pool_destroy(p);
    p = fx_pool_create(0);
    EXPECT_EQ(fx_pool_size(p), 1);
    expect_run(p, 5);
    fx_pool_destroy(p);
    fx_pool_destroy(NULL);
}

/* A task that sleeps a little on one index: the others must not wait for it
 * to start, and the call must wait for it to finish. */
static void slow_task(void *ctx, size_t i)
{
    Job *j = ctx;
    if (i == 0) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    atomic_fetch_add(&j->calls, 1);
}

FX_TEST(pool_waits_for_the_slowest)
{
    FxPool *p = fx_pool_create(4);
    for (int k = 0; k < 20; k++) {
        Job j = {0};
        atomic_init(&j.calls, 0);
        fx_pool_run(p, 8, slow_task, &j, NULL);
        EXPECT_EQ(atomic_load(&j.calls), 8);
    }
    fx_pool_destroy(p);
}

FX_TEST(pool_default_is_sized_by_the_profile)
{
    FxPool *p = fx_pool_default();
    EXPECT(p == fx_pool_default());
    EXPECT_EQ(fx_pool_default_size(), fx_hw_detect().cores);
    // fewer only if the OS refused to start a worker
    EXPECT(fx_pool_size(p) <= fx_pool_default_size());
    EXPECT(fx_pool_size(p) >= 1);
    expect_run(p, 4096);
}

/* A child of fork() has none of the workers: the call runs inline there. */
FX_TEST(pool_after_fork_runs_inline)
{
    FxPool *p = fx_pool_create(3);
    expect_run(p, 100);
    pid_t child = fork();
    if (child == 0) {
        Job j = {.slots = calloc(100, sizeof(long))};
        atomic_init(&j.sum, 0);
        atomic_init(&j.calls, 0);
        fx_pool_run(p, 100, task, &j, NULL);
        _exit(atomic_load(&j.calls) == 100 ? 0 : 1);
    }
    int status = -1;
    EXPECT(child > 0 && waitpid(child, &status, 0) == child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    expect_run(p, 100);
    fx_pool_destroy(p);
}

int main(void)
{
    return fx_test_run();
}
