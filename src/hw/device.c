/*
 * device.c: the table of devices, and what is common to them: which are
 * present, how many tasks a kernel splits into, and `flux hw`'s section.
 *
 * Each device is probed once, when first asked for (OpenCL's probe loads a
 * driver: a run that never offloads never pays it), and what it said is
 * kept, so that asking a device's size costs no system call at each
 * kernel call; the device tables themselves are constant.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/base.h"
#include "device.h"
#include "ktrace.h"

extern const FxDevice fx_cpu_device;    /* cpu.c */
extern const FxDevice fx_opencl_device; /* opencl.c */
extern const FxDevice fx_mpi_device;    /* mpi.c */

/* ORDER FX_DEVICE */
static const FxDevice *const devices[FX_DEVICE__COUNT] = {&fx_cpu_device, &fx_opencl_device,
                                                          &fx_mpi_device};

/* written once each, under lock, before probed[i] is set (release) */
static bool present[FX_DEVICE__COUNT];
static FxDeviceInfo infos[FX_DEVICE__COUNT];
static _Atomic bool probed[FX_DEVICE__COUNT];
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* Probes device i the first time it is asked for. */
static void probe(int i)
{
    if (atomic_load_explicit(&probed[i], memory_order_acquire))
        return;
    pthread_mutex_lock(&probe_lock);
    if (!atomic_load_explicit(&probed[i], memory_order_relaxed)) {
        present[i] = devices[i]->probe(devices[i], &infos[i]);
        if (!present[i]) { /* keep only why */
            char why[sizeof(infos[i].what)];
            memcpy(why, infos[i].what, sizeof(why));
            memset(&infos[i], 0, sizeof(infos[i]));
            memcpy(infos[i].what, why, sizeof(why));
        }
        atomic_store_explicit(&probed[i], true, memory_order_release);
    }
    pthread_mutex_unlock(&probe_lock);
}

const FxDevice *fx_device_get(FxDeviceId id)
{
    if ((unsigned)id >= FX_DEVICE__COUNT)
        return NULL;
    probe((int)id);
    return present[id] ? devices[id] : NULL;
}

const FxDevice *fx_device_cpu(void)
{
    return &fx_cpu_device;
}

FxDeviceInfo fx_device_info(const FxDevice *dev)
{
    probe((int)dev->id);
    return infos[dev->id];
}

unsigned fx_device_threads(const FxDevice *dev, double work, double parallel_from)
{
    if (work < parallel_from)
        return 1;
    probe((int)dev->id);
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

/* s as a JSON string: a driver's name or message may hold anything. */
static void put_json_text(FxBuf *out, const char *s)
{
    fx_buf_puts(out, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fx_buf_printf(out, "\\%c", c);
        else if (c < 0x20)
            fx_buf_printf(out, "\\u%04x", c);
        else
            fx_buf_printf(out, "%c", c);
    }
    fx_buf_puts(out, "\"");
}

void fx_device_report(bool json, FxBuf *out)
{
    if (json)
        fx_buf_puts(out, "[");
    for (int i = 0; i < FX_DEVICE__COUNT; i++) {
        const FxDevice *d = devices[i];
        bool here = fx_device_get((FxDeviceId)i) != NULL;
        FxDeviceInfo info = fx_device_info(d);
        if (json) {
            fx_buf_printf(out, "%s{\"id\": %d, \"name\": \"%s\", \"present\": %s, \"units\": %u, "
                          "\"memory\": ", i ? ", " : "", (int)d->id, d->name,
                          here ? "true" : "false", info.units);
            if (info.memory)
                fx_buf_printf(out, "%llu", (unsigned long long)info.memory);
            else
                fx_buf_puts(out, "null");
            fx_buf_puts(out, ", \"what\": ");
            put_json_text(out, info.what);
            fx_buf_puts(out, "}");
        } else {
            fx_buf_printf(out, "%s%s: %s", i ? "          " : "devices   ", d->name, info.what);
            if (here) {
                fx_buf_puts(out, ", ");
                put_memory(out, info.memory);
            }
            fx_buf_puts(out, "\n");
        }
    }
    if (json)
        fx_buf_puts(out, "]");
}
