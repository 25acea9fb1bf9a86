/*
 * cpu.c: the CPU device (device.h): the host's cores, through the one
 * thread pool (pool.h). Its memory is the host's: allocation is the heap
 * and copying is memcpy; its units are the default pool's threads, one a
 * physical core (hyperthreads share a core's caches and units, which the
 * kernels already fill).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "device.h"
#include "hw.h"
#include "pool.h"

static bool cpu_probe(const FxDevice *dev, FxDeviceInfo *out)
{
    (void)dev;
    FxHardware hw = fx_hw_detect();
    unsigned units = fx_pool_default_size();
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *out = (FxDeviceInfo){.units = units};
    if (pages > 0 && page > 0)
        out->memory = (uint64_t)pages * (uint64_t)page;
    snprintf(out->what, sizeof(out->what), "%u thread%s on %u core%s (the pool), %s", units,
             units == 1 ? "" : "s", hw.cores, hw.cores == 1 ? "" : "s",
             hw.arch[0] ? hw.arch : "unknown arch");
    return true;
}

static void *cpu_alloc(const FxDevice *dev, size_t bytes)
{
    (void)dev;
    return malloc(bytes ? bytes : 1);
}

static void cpu_release(const FxDevice *dev, void *p)
{
    (void)dev;
    free(p);
}

static void cpu_copy(const FxDevice *dev, void *dst, const void *src, size_t bytes)
{
    (void)dev;
    if (bytes)
        memcpy(dst, src, bytes);
}

static void cpu_launch(const FxDevice *dev, size_t n_tasks, FxTaskFn fn, void *arg,
                       FxWaitFn wait)
{
    (void)dev;
    fx_pool_run(fx_pool_default(), n_tasks, fn, arg, wait);
}

const FxDevice fx_cpu_device = {
    .id = FX_DEVICE_CPU,
    .name = "cpu",
    .probe = cpu_probe,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .copy = cpu_copy,
    .launch = cpu_launch,
};
