/*
 * opencl.c: the OpenCL device (opencl.h) through the ICD loader, opened
 * with dlopen so that a run that never offloads never maps it, and so that
 * one binary uses whichever driver the machine has (NVIDIA's ICD, PoCL).
 *
 * The device is the first GPU of any platform, else the first accelerator,
 * else the first CPU device (PoCL). One context and one in-order queue for
 * the process, made at the probe; programs are kept by their source's hash.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/dynlib.h"
#include "base/hash.h"
#include "device.h"
#include "opencl.h"

/* ORDER CL_FN: the loader's functions this file calls, and their names */
static const char *const cl_names[] = {
    "clGetPlatformIDs", "clGetPlatformInfo", "clGetDeviceIDs", "clGetDeviceInfo",
    "clCreateContext", "clCreateCommandQueue", "clCreateProgramWithSource", "clBuildProgram",
    "clGetProgramBuildInfo", "clCreateKernel", "clSetKernelArg", "clCreateBuffer",
    "clEnqueueWriteBuffer", "clEnqueueReadBuffer", "clEnqueueNDRangeKernel", "clFinish",
    "clReleaseMemObject", "clReleaseProgram", "clGetKernelWorkGroupInfo",
};
#define CL_N_FNS (sizeof(cl_names) / sizeof(cl_names[0]))

static struct {
    cl_int (*GetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*GetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
    cl_int (*GetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_context (*CreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
                                void (*)(const char *, const void *, size_t, void *), void *,
                                cl_int *);
    cl_command_queue (*CreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties,
                                           cl_int *);
    cl_program (*CreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *,
                                          cl_int *);
    cl_int (*BuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *,
                           void (*)(cl_program, void *), void *);
    cl_int (*GetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void *,
                                  size_t *);
    cl_kernel (*CreateKernel)(cl_program, const char *, cl_int *);
    cl_int (*SetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_mem (*CreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    cl_int (*EnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *,
                                 cl_uint, const cl_event *, cl_event *);
    cl_int (*EnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                                const cl_event *, cl_event *);
    cl_int (*EnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                   const size_t *, const size_t *, cl_uint, const cl_event *,
                                   cl_event *);
    cl_int (*Finish)(cl_command_queue);
    cl_int (*ReleaseMemObject)(cl_mem);
    cl_int (*ReleaseProgram)(cl_program);
    cl_int (*GetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t,
                                     void *, size_t *);
} cl;

_Static_assert(sizeof(cl) == CL_N_FNS * sizeof(void *), "cl_names and cl disagree");

struct FxClKernel {
    uint64_t hash; /* of the source and the name */
    cl_program program;
    cl_kernel kernel;
    size_t group; /* the kernel's work-group size on the device */
    FxClKernel *next;
};

static FxClInfo info;
static bool present;
static cl_device_id device;
static cl_context context;
static cl_command_queue queue;
static FxClKernel *kernels; /* built so far, under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static _Atomic bool probed; /* probe() has run */

/* The device of the first platform that has one of type t. */
static bool find_device(const cl_platform_id *ps, cl_uint n, cl_device_type t, cl_device_id *d,
                        cl_platform_id *p)
{
    for (cl_uint i = 0; i < n; i++) {
        cl_uint nd = 0;
        if (cl.GetDeviceIDs(ps[i], t, 1, d, &nd) == CL_SUCCESS && nd > 0) {
            *p = ps[i];
            return true;
        }
    }
    return false;
}

static void probe(void)
{
    const char *env = getenv("FLUX_OPENCL");
    if (env && !strcmp(env, "off")) {
        snprintf(info.note, sizeof(info.note), "off (FLUX_OPENCL=off)");
        return;
    }
    char why[200];
    if (!fx_dynlib_load("the OpenCL ICD loader", "libOpenCL.so.1", cl_names, (void **)&cl,
                        CL_N_FNS, why, sizeof(why))) {
        snprintf(info.note, sizeof(info.note), "none: %s", why);
        return;
    }
    cl_platform_id ps[16];
    cl_uint np = 0;
    cl_int err = cl.GetPlatformIDs(16, ps, &np);
    if (err != CL_SUCCESS || np == 0) {
        snprintf(info.note, sizeof(info.note),
                 "none: no OpenCL platform (the ICD loader says %d); kernels run on the CPU",
                 (int)err);
        return;
    }
    cl_platform_id p = NULL;
    if (!find_device(ps, np, CL_DEVICE_TYPE_GPU, &device, &p) &&
        !find_device(ps, np, CL_DEVICE_TYPE_ACCELERATOR, &device, &p) &&
        !find_device(ps, np, CL_DEVICE_TYPE_CPU, &device, &p)) {
        snprintf(info.note, sizeof(info.note), "none: %u OpenCL platform%s but no device",
                 (unsigned)np, np == 1 ? "" : "s");
        return;
    }
    cl_device_type type = 0;
    cl_uint units = 0;
    cl_ulong mem = 0, max_alloc = 0;
    cl_device_fp_config fp = 0;
    size_t group = 0;
    char ext[4096] = "";
    cl.GetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(info.platform) - 1, info.platform, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_NAME, sizeof(info.device) - 1, info.device, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(group), &group, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext, NULL);
    cl.GetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp), &fp, NULL);
    info.gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info.fp64 = fp != 0 || strstr(ext, "cl_khr_fp64") != NULL;
    info.units = units;
    info.memory = mem;
    info.max_alloc = max_alloc;
    info.max_group = group;
    context = cl.CreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err == CL_SUCCESS)
        queue = cl.CreateCommandQueue(context, device, 0, &err);
    if (err != CL_SUCCESS) {
        snprintf(info.note, sizeof(info.note), "none: %s's context or queue failed (%d)",
                 info.device, (int)err);
        return;
    }
    present = true;
}

static void probe_and_mark(void)
{
    probe();
    atomic_store(&probed, true);
}

bool fx_cl_probe_done(FxClInfo *out)
{
    if (!atomic_load(&probed))
        return false;
    *out = info;
    if (!present)
        out->device[0] = '\0';
    return true;
}

bool fx_cl_probe(FxClInfo *out)
{
    FX_CHECK(pthread_once(&probe_once, probe_and_mark) == 0, "pthread_once failed");
    *out = info;
    return present;
}

/* The build log's first line or two, for a reason. */
static void build_log(cl_program prog, char *why, size_t why_len)
{
    char log[1024] = "";
    cl.GetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
    for (char *c = log; *c; c++)
        if (*c == '\n')
            *c = ' ';
    snprintf(why, why_len, "the OpenCL compiler refused the kernel: %.300s", log);
}

FxClKernel *fx_cl_kernel(const char *source, const char *name, char *why, size_t why_len)
{
    FxClInfo unused;
    if (!fx_cl_probe(&unused)) {
        snprintf(why, why_len, "no OpenCL device: %s", info.note);
        return NULL;
    }
    uint64_t h = fx_fnv1a(fx_fnv1a(FX_FNV_BASIS, source, strlen(source)), name, strlen(name));
    pthread_mutex_lock(&lock);
    FxClKernel *k = kernels;
    while (k && k->hash != h)
        k = k->next;
    if (k) {
        pthread_mutex_unlock(&lock);
        return k;
    }
    cl_int err;
    cl_program prog = cl.CreateProgramWithSource(context, 1, &source, NULL, &err);
    if (err == CL_SUCCESS)
        err = cl.BuildProgram(prog, 1, &device, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
        if (prog)
            build_log(prog, why, why_len);
        if (prog)
            cl.ReleaseProgram(prog);
        pthread_mutex_unlock(&lock);
        return NULL;
    }
    cl_kernel kern = cl.CreateKernel(prog, name, &err);
    if (err != CL_SUCCESS) {
        snprintf(why, why_len, "the OpenCL program has no kernel %s (%d)", name, (int)err);
        cl.ReleaseProgram(prog);
        pthread_mutex_unlock(&lock);
        return NULL;
    }
    k = fx_xcalloc(1, sizeof(*k));
    *k = (FxClKernel){h, prog, kern, info.max_group, kernels};
    cl.GetKernelWorkGroupInfo(kern, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(k->group),
                              &k->group, NULL);
    kernels = k; /* kept for the process: a program is a few KB */
    pthread_mutex_unlock(&lock);
    return k;
}

/* The work-group size in each dimension: 64 items in all (8 x 8 in two),
 * or what the kernel allows, a power of two; padded[d] is the global size
 * rounded up to a multiple of it, as OpenCL 1.2 wants (kernels skip the
 * items past their sizes). */
static void choose_local(const FxClKernel *k, FxClLaunch *l, size_t *padded)
{
    size_t budget = 1;
    while (budget * 2 <= (k->group < 64 ? k->group : 64))
        budget *= 2;
    for (unsigned d = 0; d < l->dims; d++) {
        size_t s = l->dims == 2 && d == 0 ? 1 : budget;
        if (l->dims == 2 && d == 0)
            while (s * s < budget)
                s *= 2;
        s = s > budget ? budget : s;
        budget /= s;
        l->local[d] = s;
        padded[d] = (l->global[d] + s - 1) / s * s;
    }
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

bool fx_cl_run(FxClKernel *k, const FxClArg *args, size_t n_args, FxClLaunch *l, char *why,
               size_t why_len)
{
    cl_mem mems[32] = {0};
    if (n_args > 32 || l->dims < 1 || l->dims > 2) {
        snprintf(why, why_len, "an OpenCL launch of %zu arguments in %u dimensions", n_args,
                 l->dims);
        return false;
    }
    size_t padded[2] = {1, 1};
    choose_local(k, l, padded);
    double t0 = now_ms();
    pthread_mutex_lock(&lock); /* clSetKernelArg is not safe on one kernel from two threads */
    cl_int err = CL_SUCCESS;
    size_t bad = 0;
    for (size_t i = 0; i < n_args && err == CL_SUCCESS; i++) {
        const FxClArg *a = &args[i];
        bad = i;
        if (a->kind == FX_CL_LONG) {
            cl_long v = a->i;
            err = cl.SetKernelArg(k->kernel, (cl_uint)i, sizeof(v), &v);
            continue;
        }
        if (a->kind == FX_CL_DOUBLE) {
            cl_double v = a->f;
            err = cl.SetKernelArg(k->kernel, (cl_uint)i, sizeof(v), &v);
            continue;
        }
        cl_mem_flags flags = a->kind == FX_CL_IN    ? CL_MEM_READ_ONLY
                             : a->kind == FX_CL_OUT ? CL_MEM_WRITE_ONLY
                                                    : CL_MEM_READ_WRITE;
        size_t bytes = a->bytes ? a->bytes : 1;
        mems[i] = cl.CreateBuffer(context, flags, bytes, NULL, &err);
        if (err == CL_SUCCESS && a->kind != FX_CL_OUT && a->bytes)
            err = cl.EnqueueWriteBuffer(queue, mems[i], CL_FALSE, 0, a->bytes, a->host, 0, NULL,
                                        NULL);
        if (err == CL_SUCCESS)
            err = cl.SetKernelArg(k->kernel, (cl_uint)i, sizeof(cl_mem), &mems[i]);
    }
    const char *step = "its arguments";
    if (err == CL_SUCCESS) {
        step = "the kernel's launch";
        err = cl.EnqueueNDRangeKernel(queue, k->kernel, l->dims, NULL, padded, l->local, 0,
                                      NULL, NULL);
    }
    for (size_t i = 0; i < n_args && err == CL_SUCCESS; i++) {
        step = "reading the results";
        if ((args[i].kind == FX_CL_OUT || args[i].kind == FX_CL_INOUT) && args[i].bytes)
            err = cl.EnqueueReadBuffer(queue, mems[i], CL_TRUE, 0, args[i].bytes, args[i].host,
                                       0, NULL, NULL);
    }
    if (err == CL_SUCCESS)
        err = cl.Finish(queue);
    else
        cl.Finish(queue);
    for (size_t i = 0; i < n_args; i++)
        if (mems[i])
            cl.ReleaseMemObject(mems[i]);
    pthread_mutex_unlock(&lock);
    l->ms = now_ms() - t0;
    if (err != CL_SUCCESS) {
        snprintf(why, why_len, "OpenCL error %d in %s (argument %zu) on %s", (int)err, step, bad,
                 info.device);
        return false;
    }
    return true;
}

/* The device table's entry (device.h): it runs only the kernels generated
 * for it, through the functions above, so it has no C-task launch. */
static bool opencl_device_probe(const FxDevice *dev, FxDeviceInfo *out)
{
    (void)dev;
    FxClInfo ci;
    bool ok = fx_cl_probe(&ci);
    *out = (FxDeviceInfo){.units = ok ? ci.units : 0, .memory = ok ? ci.memory : 0};
    if (ok)
        snprintf(out->what, sizeof(out->what), "%.100s (%.60s), %s, %u compute units, %s", ci.device,
                 ci.platform, ci.gpu ? "GPU" : "not a GPU", ci.units,
                 ci.fp64 ? "doubles" : "no doubles (floats stay on the CPU)");
    else
        snprintf(out->what, sizeof(out->what), "%s", ci.note);
    return ok;
}

const FxDevice fx_opencl_device = {
    .id = FX_DEVICE_OPENCL,
    .name = "opencl",
    .probe = opencl_device_probe,
};
