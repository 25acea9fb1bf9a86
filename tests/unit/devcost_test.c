/*
 * devcost_test.c: the device cost model (exec/devcost.h): the CPU runs
 * until it is measured, the device is tried once for a long call, then the
 * faster predicted side wins; a small call never goes to the device on a
 * larger call's measure; points are replaced by size, and the table drops
 * its oldest entry when full.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/devcost.h"
#include "fx_test.h"

static int choose(const FxDevCost *c, double items, char why[256])
{
    return fx_devcost_choose(c, FX_DEVCOST_OPENCL, items, "OpenCL on gpu", why, 256);
}

FX_TEST(measured_then_chosen)
{
    FxDevCost c = {0};
    char why[256];
    unsetenv("FLUX_EXPLORE"); /* the suite turns exploring off */
    EXPECT_EQ(choose(&c, 5000, why), FX_DEVCOST_CPU);
    EXPECT(strstr(why, "no measured call") != NULL);
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 5000, 300.0); /* short: not worth a try yet */
    EXPECT_EQ(choose(&c, 5000, why), FX_DEVCOST_CPU);
    EXPECT(strstr(why, "its 1 call so far took about 300 ms, under the 1000 ms") != NULL);
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 5000, 3000.0); /* the same size: replaced */
    EXPECT_EQ(c.dev[FX_DEVCOST_CPU].n, 1u);
    EXPECT_EQ(choose(&c, 5000, why), FX_DEVCOST_OPENCL);
    EXPECT(strstr(why, "once, to measure it") != NULL);
    fx_devcost_observe(&c, FX_DEVCOST_OPENCL, 5000, 300.0);
    EXPECT_EQ(choose(&c, 5000, why), FX_DEVCOST_OPENCL);
    EXPECT(strstr(why, "OpenCL on gpu: predicted 300 ms against 3e+03 ms") != NULL);
    /* a hundredth of the size: the CPU predicted 30 ms, the device no less
     * than its measured 300 (copies and launch): the CPU keeps it */
    EXPECT_EQ(choose(&c, 50, why), FX_DEVCOST_CPU);
    double ms;
    EXPECT(fx_devcost_predict(&c, FX_DEVCOST_OPENCL, 50000, &ms) && ms == 3000.0);
    EXPECT(fx_devcost_predict(&c, FX_DEVCOST_CPU, 50000, &ms) && ms == 30000.0);
    setenv("FLUX_EXPLORE", "off", 1); /* no first try of the device */
    FxDevCost fresh = {0};
    fx_devcost_observe(&fresh, FX_DEVCOST_CPU, 5000, 3000.0);
    EXPECT_EQ(choose(&fresh, 5000, why), FX_DEVCOST_CPU);
}

/* The MPI device's points are its own: OpenCL's say nothing of it, and
 * its choice against the CPU is made the same way. */
FX_TEST(mpi_is_another_device)
{
    FxDevCost c = {0};
    char why[256];
    unsetenv("FLUX_EXPLORE");
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 1e10, 3000.0);
    fx_devcost_observe(&c, FX_DEVCOST_OPENCL, 1e10, 100.0);
    EXPECT_EQ(fx_devcost_choose(&c, FX_DEVCOST_MPI, 1e10, "2 ranks", why, sizeof(why)),
              FX_DEVCOST_MPI);
    EXPECT(strstr(why, "2 ranks, once, to measure it") != NULL);
    fx_devcost_observe(&c, FX_DEVCOST_MPI, 1e10, 3300.0); /* slower: the messages */
    EXPECT_EQ(fx_devcost_choose(&c, FX_DEVCOST_MPI, 1e10, "2 ranks", why, sizeof(why)),
              FX_DEVCOST_CPU);
    EXPECT(strstr(why, "the ranks' messages included") != NULL);
    fx_devcost_observe(&c, FX_DEVCOST_MPI, 1e10, 1600.0); /* measured again: replaced */
    EXPECT_EQ(fx_devcost_choose(&c, FX_DEVCOST_MPI, 1e10, "2 ranks", why, sizeof(why)),
              FX_DEVCOST_MPI);
    EXPECT(strstr(why, "2 ranks: predicted 1.6e+03 ms against 3e+03 ms") != NULL);
    setenv("FLUX_EXPLORE", "off", 1);
}

/* Ski rental: short calls on the CPU until they have spent a second, then
 * one try of the device, which the model keeps when it is faster. */
FX_TEST(short_calls_try_the_device_after_a_second)
{
    FxDevCost c = {0};
    char why[256];
    unsetenv("FLUX_EXPLORE");
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 1200, 800.0);
    EXPECT_EQ(choose(&c, 1200, why), FX_DEVCOST_CPU);
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 1200, 805.0);
    EXPECT_EQ(choose(&c, 1200, why), FX_DEVCOST_OPENCL);
    EXPECT(strstr(why, "its 2 calls so far took about 1.61e+03 ms") != NULL);
    fx_devcost_observe(&c, FX_DEVCOST_OPENCL, 1200, 90.0);
    EXPECT_EQ(choose(&c, 1200, why), FX_DEVCOST_OPENCL);
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 10, 5.0); /* many tiny calls: the device's */
    EXPECT_EQ(choose(&c, 10, why), FX_DEVCOST_CPU); /* least cost keeps them here */
    setenv("FLUX_EXPLORE", "off", 1);
}

FX_TEST(points_kept_by_size)
{
    FxDevCost c = {0};
    for (int i = 0; i < 10; i++)
        fx_devcost_observe(&c, FX_DEVCOST_CPU, 1000.0 * (1 << i), (double)(1 << i));
    EXPECT_EQ(c.dev[FX_DEVCOST_CPU].n, (uint32_t)FX_DEVCOST_POINTS);
    EXPECT_EQ(c.dev[FX_DEVCOST_CPU].observed, 10u);
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 0.5, 1.0); /* no items: no point */
    fx_devcost_observe(&c, FX_DEVCOST_CPU, 100, -1.0);
    EXPECT_EQ(c.dev[FX_DEVCOST_CPU].observed, 10u);
}

FX_TEST(table_drops_the_oldest)
{
    FxDevCosts t = {0};
    char key[32];
    for (int i = 0; i < FX_DEVCOST_KEYS + 3; i++) {
        snprintf(key, sizeof(key), "f%d", i);
        fx_devcosts_get(&t, key, true)->version = i;
    }
    EXPECT_EQ(t.n, (uint32_t)FX_DEVCOST_KEYS);
    EXPECT(fx_devcosts_get(&t, "f0", false) == NULL);
    snprintf(key, sizeof(key), "f%d", FX_DEVCOST_KEYS + 2);
    EXPECT(fx_devcosts_get(&t, key, false)->version == FX_DEVCOST_KEYS + 2);
}

int main(void)
{
    return fx_test_run();
}
