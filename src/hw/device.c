/*
 * device.c: the table of devices, and what is common to them: which are
 * present, how many tasks a kernel splits into, and `flux hw`'s section.
 *
 * The devices are probed once (pthread_once) and what they said is kept, so
 * that asking a device's size costs no system call at each kernel call;
 * the device tables themselves are constant, so nothing here needs a lock.
 */
#include <pthread.h>
#include <string.h>

#include "base/base.h"
#include "device.h"
#include "ktrace.h"

extern const FxDevice fx_cpu_device; /* cpu.c */
extern const FxDevice fx_mpi_device; /* mpi.c */

/* ORDER FX_DEVICE */
static const FxDevice *const devices[FX_DEVICE__COUNT] = {&fx_cpu_device, &fx_mpi_device};
/* an absent device's note, for `flux hw` (written once, under probe_once) */
static char absent_why[FX_DEVICE__COUNT][sizeof(((FxDeviceInfo *)0)->what)];

/* written once, under probe_once */
static bool present[FX_DEVICE__COUNT];
static FxDeviceInfo infos[FX_DEVICE__COUNT];
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_all(void)
{
    for (int i = 0; i < FX_DEVICE__COUNT; i++) {
        present[i] = devices[i]->probe(devices[i], &infos[i]);
        if (!present[i]) {
            memcpy(absent_why[i], infos[i].what, sizeof(absent_why[i]));
            absent_why[i][sizeof(absent_why[i]) - 1] = '\0';
            memset(&infos[i], 0, sizeof(infos[i]));
        }
    }
}

static void probe_once_all(void)
{
    FX_CHECK(pthread_once(&probe_once, probe_all) == 0, "pthread_once failed");
}

const FxDevice *fx_device_get(FxDeviceId id)
{
    probe_once_all();
    return (unsigned)id < FX_DEVICE__COUNT && present[id] ? devices[id] : NULL;
}

const FxDevice *fx_device_cpu(void)
{
    return &fx_cpu_device;
}

FxDeviceInfo fx_device_info(const FxDevice *dev)
{
    probe_once_all();
    return infos[dev->id];
}

unsigned fx_device_threads(const FxDevice *dev, double work, double parallel_from)
{
    if (work < parallel_from)
        return 1;
    probe_once_all();
    unsigned units = infos[dev->id].units;
    return units ? units : 1;
}

/* A launch made while a kernel call is traced (ktrace.h): each task is
 * timed on the thread that runs it. */
typedef struct Traced {
    FxKTrace *trace;
    FxTaskFn fn;
    FxWaitFn wait;
    void *arg;
} Traced;

static void traced_task(void *arg, size_t task)
{
    const Traced *t = arg;
    uint64_t start = fx_ktrace_now();
    t->fn(t->arg, task);
    fx_ktrace_task(t->trace, (uint32_t)task, start, fx_ktrace_now());
}

static void traced_wait(void *arg)
{
    const Traced *t = arg;
    t->wait(t->arg);
}

void fx_device_launch(const FxDevice *dev, size_t n_tasks, FxTaskFn fn, void *arg,
                      FxWaitFn wait)
{
    FxKTrace *trace = fx_ktrace_recording();
    if (!trace) {
        dev->launch(dev, n_tasks, fn, arg, wait);
        return;
    }
    Traced t = {trace, fn, wait, arg};
    dev->launch(dev, n_tasks, traced_task, &t, wait ? traced_wait : NULL);
}

/* Bytes for people: "15.5 GiB". */
static void put_memory(FxBuf *out, uint64_t bytes)
{
    if (!bytes)
        fx_buf_puts(out, "memory unknown");
    else if (bytes >= (uint64_t)1 << 30)
        fx_buf_printf(out, "%.1f GiB of memory", (double)bytes / (double)((uint64_t)1 << 30));
    else
        fx_buf_printf(out, "%.0f MiB of memory", (double)bytes / (double)(1 << 20));
}

void fx_device_report(bool json, FxBuf *out)
{
    bool first = true;
    if (json)
        fx_buf_puts(out, "[");
    for (int i = 0; i < FX_DEVICE__COUNT; i++) {
        const FxDevice *d = fx_device_get((FxDeviceId)i);
        if (!d && !json && absent_why[i][0]) { /* a line saying why it is not there */
            fx_buf_printf(out, "          %s: %s\n", devices[i]->name, absent_why[i]);
            continue;
        }
        if (!d)
            continue;
        FxDeviceInfo info = fx_device_info(d);
        // name and what hold no character that JSON must escape
        if (json) {
            fx_buf_printf(out, "%s{\"id\": %d, \"name\": \"%s\", \"units\": %u, \"memory\": ",
                          first ? "" : ", ", (int)d->id, d->name, info.units);
            if (info.memory)
                fx_buf_printf(out, "%llu", (unsigned long long)info.memory);
            else
                fx_buf_puts(out, "null");
            fx_buf_printf(out, ", \"what\": \"%s\"}", info.what);
        } else {
            fx_buf_printf(out, "%s%s: %s, ", first ? "devices   " : "          ", d->name,
                          info.what);
            put_memory(out, info.memory);
            fx_buf_puts(out, "\n");
        }
        first = false;
    }
    if (json)
        fx_buf_puts(out, "]");
}
