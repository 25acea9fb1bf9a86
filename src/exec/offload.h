/*
 * offload.h: a call run on the OpenCL device (docs/devices.md): the
 * arguments copied into buffers, the kernel clgen.h made of the intent's
 * graph launched, the result built from what comes back. The VM asks it
 * at a call of a function that has a plan (vm.c, "the devices").
 */
#ifndef FX_OFFLOAD_H
#define FX_OFFLOAD_H

#include "clgen.h"

typedef enum {
    FX_OFFLOAD_DONE, /* *out holds the result */
    FX_OFFLOAD_CPU,  /* the CPU runs the call (why says why when it was tried) */
    FX_OFFLOAD_STOP, /* a budget: the run's error is set */
} FxOffloadStatus;

typedef struct FxOffloadNote {
    char what[64];   /* "opencl" */
    char why[512];   /* for the decision tree: sizes, device, groups, proof, times */
    size_t items;    /* the work-items */
    size_t local[2]; /* the work-group's size in each dimension (0: not launched) */
    unsigned dims;   /* 1 or 2 */
    size_t parts;    /* REDUCE: the partial results (a work-item each) */
    double ms;       /* copies and kernel */
    double build_ms; /* the kernel's build in this process (0: built before) */
    char device[128];
} FxOffloadNote;

/* Runs f's call (plan p) on args on the OpenCL device. */
FxOffloadStatus fx_offload_run(FxRuntime *rt, const FxGraph *g, const FxClPlan *p,
                               const FxValue *args, FxValue *out, FxOffloadNote *note);

/* The number of work-items of the call (elements, cells, or numbers of the
 * domain), false when a size cannot be had from the arguments. */
bool fx_offload_items(const FxGraph *g, const FxClPlan *p, const FxValue *args, size_t *items);

#endif
