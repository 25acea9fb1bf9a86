/*
 * opencl.h: the OpenCL device (docs/devices.md): a GPU, or PoCL's CPU
 * device where there is none, through the ICD loader (libOpenCL.so.1,
 * opened with dlopen when first asked), OpenCL 1.2.
 *
 *   FxClInfo info;
 *   if (fx_cl_probe(&info)) {              // the first call costs 0.1-0.3 s
 *       FxClKernel *k = fx_cl_kernel(src, "elements", why, sizeof(why));
 *       FxClArg args[] = {{FX_CL_IN, xs, n * 8}, {FX_CL_OUT, ys, n * 8},
 *                         {FX_CL_LONG, .i = (int64_t)n}};
 *       FxClLaunch l = {.dims = 1, .global = {n}};
 *       ok = k && fx_cl_run(k, args, 3, &l, why, sizeof(why));
 *   }
 *
 * No loader, no platform or an error from it means no device: probe says
 * why in info.note (`flux hw` prints it), and callers run on the CPU.
 * Programs are built once a process (kept by their source's hash) and the
 * driver keeps their binaries (PoCL's cache: POCL_CACHE_DIR). Every
 * function may be called from any thread; runs take one lock.
 */
#ifndef FX_OPENCL_H
#define FX_OPENCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct FxClInfo {
    char device[128];   /* "NVIDIA H200", "pthread-haswell-AMD EPYC ..." */
    char platform[64];  /* "NVIDIA CUDA", "Portable Computing Language" */
    bool gpu;           /* CL_DEVICE_TYPE_GPU */
    bool fp64;          /* doubles: cl_khr_fp64 or a double fp config */
    unsigned units;     /* compute units */
    uint64_t memory;    /* global memory, bytes */
    uint64_t max_alloc; /* the largest buffer */
    size_t max_group;   /* work-group size */
    char note[256];     /* when absent: why ("no OpenCL platform (ICD loader: -1001)") */
} FxClInfo;

/* Is there a device? Fills *out either way (note when not). FLUX_OPENCL=off
 * means none. Probed once a process. */
bool fx_cl_probe(FxClInfo *out);

/* Has the device been probed? Then fills *out (device "" when there is
 * none) and returns true; never probes (a cost model asks it per call). */
bool fx_cl_probe_done(FxClInfo *out);

typedef struct FxClKernel FxClKernel;

/* The kernel `name` of the OpenCL C program source, built for the device
 * (once a process for a source); NULL with why (the build log's first
 * lines) when it does not build or there is no device. */
FxClKernel *fx_cl_kernel(const char *source, const char *name, char *why, size_t why_len);

typedef enum {
    FX_CL_IN,     /* host bytes copied to a read-only buffer */
    FX_CL_OUT,    /* a write-only buffer read back into host */
    FX_CL_INOUT,  /* copied there and back */
    FX_CL_LONG,   /* a long argument */
    FX_CL_DOUBLE, /* a double argument */
} FxClArgKind;

typedef struct FxClArg {
    FxClArgKind kind;
    void *host;   /* buffers: the host's bytes */
    size_t bytes; /* buffers: their size (0 is allowed: a one-byte buffer) */
    int64_t i;
    double f;
} FxClArg;

typedef struct FxClLaunch {
    unsigned dims;    /* 1 or 2 */
    /* work-items in each dimension; a kernel skips the items past them, as
     * the launch pads each to a multiple of its work-group size */
    size_t global[2];
    /* out: the work-group size the device took in each dimension (for
     * provenance: item g of dimension d is in group g / local[d]), and the
     * time of the copies and the kernel, in ms */
    size_t local[2];
    double ms;
} FxClLaunch;

/* Runs k over l->global work-items with args in order, copying buffers in
 * and out; false with why on any OpenCL error (nothing was written to an
 * FX_CL_OUT host buffer then that a caller may use). */
bool fx_cl_run(FxClKernel *k, const FxClArg *args, size_t n_args, FxClLaunch *l, char *why,
               size_t why_len);

#endif
