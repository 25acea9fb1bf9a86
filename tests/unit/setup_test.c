/*
 * setup_test.c: one-time setup is counted (hw/setup.h), once, so that a
 * run's time can leave it out: the hardware probe and the worker pool's
 * start on their first use, nothing on the next.
 */
#include "fx_test.h"
#include "hw/hw.h"
#include "hw/pool.h"
#include "hw/setup.h"

FX_TEST(the_first_probe_and_pool_are_setup_and_the_next_are_not)
{
    double t0 = fx_setup_total_ms();
    (void)fx_hw_detect();
    double t1 = fx_setup_total_ms();
    EXPECT(t1 > t0); /* hwloc's topology, at least microseconds */
    (void)fx_hw_detect();
    EXPECT(fx_setup_total_ms() == t1);
    (void)fx_pool_default();
    double t2 = fx_setup_total_ms();
    EXPECT(t2 > t1); /* the workers' start */
    (void)fx_pool_default();
    EXPECT(fx_setup_total_ms() == t2);
}

FX_TEST(a_charge_counts_from_its_start)
{
    double before = fx_setup_total_ms(), since = fx_setup_clock_ms();
    while (fx_setup_clock_ms() - since < 2)
        ;
    fx_setup_charge(since);
    double added = fx_setup_total_ms() - before;
    EXPECT(added >= 2 && added < 1000);
}

int main(void)
{
    return fx_test_run();
}
