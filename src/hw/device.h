/*
 * device.h: what kernels run on, behind one interface, in the spirit of
 * SQLite's sqlite3_vfs: a device is a table of functions (probe, memory,
 * copy, launch) with a name, and a kernel that runs in parallel asks its
 * device to launch tasks instead of starting threads of its own.
 *
 *   static void rows(void *arg, size_t t) { ... part t of the work ... }
 *   unsigned parts = fx_device_threads(fx_device_cpu(), work, FX_MATMUL_PARALLEL_FROM);
 *   fx_device_launch(fx_device_cpu(), parts, rows, &job, NULL);  // returns when all ran
 *
 * The CPU device (cpu.c) is the process's one thread pool (pool.h): the
 * calling thread and fx_pool_default_size() - 1 workers, started once.
 * A device's id and name are what kernel variants and cost models are
 * keyed by (the cost models in the store: docs/store.md); `flux hw` lists
 * the devices present. Adding a device: docs/extending.md.
 *
 * Threads: the devices are immutable tables; every function here may be
 * called from any thread at any time (launch: see pool.h for what a launch
 * made while the device is busy does).
 */
#ifndef FX_DEVICE_H
#define FX_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* ORDER FX_DEVICE: keep in sync with devices[] in device.c */
typedef enum {
    FX_DEVICE_CPU,    /* the host's cores, through the thread pool */
    FX_DEVICE_OPENCL, /* a GPU (or PoCL's CPU device) through OpenCL: opencl.h */
    FX_DEVICE_MPI,    /* the ranks of an mpirun job (mpi.h): its kernels are the cluster's jobs */
    FX_DEVICE__COUNT
} FxDeviceId;

/* Task number `task` of a launch, with the launch's arg. */
typedef void (*FxTaskFn)(void *arg, size_t task);
/* Called on the launching thread about every millisecond while it waits
 * for the device (a kernel polls its budget there), with the launch's arg. */
typedef void (*FxWaitFn)(void *arg);

/* What probe finds. */
typedef struct FxDeviceInfo {
    unsigned units;  /* tasks it runs at once: the CPU's pool threads */
    uint64_t memory; /* bytes of memory its kernels may use; 0 when unknown */
    char what[256];  /* for people: "2 threads on 2 cores (the pool)"; when the
                      * device is absent, why ("none: no OpenCL platform ...") */
} FxDeviceInfo;

typedef struct FxDevice FxDevice;
struct FxDevice {
    FxDeviceId id;
    const char *name; /* "cpu": a lowercase word, stable across releases */
    /* Is the device there? Fills *out, with why in what when it is not.
     * Starts nothing that is not the device's own (a driver, a context). */
    bool (*probe)(const FxDevice *dev, FxDeviceInfo *out);
    /* Memory the device's kernels read and write (the CPU's: the heap);
     * NULL when it has not that much. Freed by release (NULL-safe).
     * alloc, release, copy and launch are NULL on a device that runs only
     * kernels generated for it (OpenCL: opencl.h has its interface). */
    void *(*alloc)(const FxDevice *dev, size_t bytes);
    void (*release)(const FxDevice *dev, void *p);
    /* Copies bytes between host memory and the device's, either way (the
     * CPU's memory is the host's: memcpy). */
    void (*copy)(const FxDevice *dev, void *dst, const void *src, size_t bytes);
    /* Runs fn(arg, i) once for each i in [0, n_tasks), returning when all
     * have returned and their writes are visible; wait (may be NULL) is
     * called as FxWaitFn says. The tasks may run in any order, at once or
     * one after another: they must not wait for each other. On the CPU,
     * task 0 runs on the calling thread. */
    void (*launch)(const FxDevice *dev, size_t n_tasks, FxTaskFn fn, void *arg, FxWaitFn wait);
};

/* The device with this id when it is present (probed once, when first
 * asked: OpenCL's probe loads a driver), else NULL. The CPU is always
 * present. */
const FxDevice *fx_device_get(FxDeviceId id);

/* The CPU device: always present. */
const FxDevice *fx_device_cpu(void);

/* What the device is, as its probe said when first asked (zeroes when
 * absent). */
FxDeviceInfo fx_device_info(const FxDevice *dev);

/* The one place thread counts are decided: how many tasks a kernel splits
 * `work` (in its own unit: multiply-adds, numbers sieved, elements) into
 * on dev: all its units from `parallel_from` on, where the kernel measured
 * that splitting starts to pay, and 1 below. */
unsigned fx_device_threads(const FxDevice *dev, double work, double parallel_from);

/* dev->launch, for kernels. */
void fx_device_launch(const FxDevice *dev, size_t n_tasks, FxTaskFn fn, void *arg,
                      FxWaitFn wait);

/* The devices section of `flux hw`: a line each ("devices   cpu: ..."), or
 * with json the value of its "devices" key, [{"id", "name", "present",
 * "units", "memory", "what"}]; an absent device says why in what. */
void fx_device_report(bool json, FxBuf *out);

#endif
