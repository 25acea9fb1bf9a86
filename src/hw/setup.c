/*
 * setup.c: see setup.h.
 */
#include "setup.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static _Atomic uint64_t total_ns;

double fx_setup_clock_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void fx_setup_charge(double since)
{
    double ms = fx_setup_clock_ms() - since;
    if (ms > 0)
        atomic_fetch_add(&total_ns, (uint64_t)(ms * 1e6));
}

double fx_setup_total_ms(void)
{
    return (double)atomic_load(&total_ns) / 1e6;
}
