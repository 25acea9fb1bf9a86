/*
 * clgen.h: an intent's graph as an OpenCL C kernel (docs/devices.md), for
 * the intents whose result is made of independent parts:
 *
 *   - a list, one element per element of a list parameter or of a range
 *     (`for each x in xs: E`, `[E for i in a..b]`): a work-item an element;
 *   - a matrix defined element-wise (`result[i,j] = E`, the matrix
 *     product): a work-item a cell, in two dimensions;
 *   - a sum, count, min or max over a range or a list: a work-item a
 *     chunk, its partial result combined on the host (integers exactly,
 *     with overflow checked; floats only under the intent's tolerance).
 *
 * E may read numbers, booleans and records of them, call other intents
 * (inlined: the call graph may not recurse), fold sequentially over a
 * range or a list parameter (in the definition's order), and index the
 * list and matrix parameters. Every integer operation is checked, as the
 * interpreter's are; an overflow, a division by a non-positive number, a
 * NaN compared, an index out of range or an empty float sum sets the
 * kernel's error word, and the host then runs the call on the CPU, so the
 * answer (or the error) is always the interpreter's. Floats are computed
 * with the same operations in the same order, without contraction into
 * fused multiply-adds, so an element is the CPU's to the bit.
 */
#ifndef FX_CLGEN_H
#define FX_CLGEN_H

#include "graph/graph.h"
#include "interp.h"

typedef enum {
    FX_CL_SHAPE_LIST,   /* one element per element of list parameter `list` */
    FX_CL_SHAPE_RANGE,  /* one element per number of the range [lo, hi) */
    FX_CL_SHAPE_MATRIX, /* rows x cols cells */
    FX_CL_SHAPE_REDUCE, /* partials over a list parameter or a range */
} FxClShape;

/* What a parameter or the result's element is on the device. */
typedef enum {
    FX_CL_K_INT,    /* long (Int, Natural) */
    FX_CL_K_FLOAT,  /* double */
    FX_CL_K_BOOL,   /* int */
    FX_CL_K_RECORD, /* a struct of the above: a buffer a field */
    FX_CL_K_LIST,   /* of an element kind */
    FX_CL_K_MATRIX, /* of an element kind, row-major */
} FxClKind;

#define FX_CL_MAX_FIELDS 16

typedef struct FxClRecord {
    const char *name;                     /* the record type's name */
    uint32_t n;
    const char *fields[FX_CL_MAX_FIELDS]; /* in declared order */
    FxClKind kinds[FX_CL_MAX_FIELDS];     /* INT, FLOAT or BOOL */
} FxClRecord;

typedef struct FxClType {
    FxClKind kind;
    FxClKind elem;        /* LIST, MATRIX: the element's kind */
    FxClRecord record;    /* RECORD, or an element that is one */
} FxClType;

typedef struct FxClPlan {
    FxClShape shape;
    FxNodeId par;          /* the node whose parts are the work-items */
    char *source;          /* the OpenCL C program; kernel "flux_parts" */
    uint32_t n_params;
    FxClType params[16];
    FxClType out;          /* the result's element (REDUCE: the result) */
    uint32_t list;         /* LIST, REDUCE over a list: the parameter */
    bool over_range;       /* REDUCE: over [lo, hi), else over `list` */
    FxNodeId lo, hi;       /* RANGE, REDUCE over a range: host-evaluated bounds */
    FxNodeId rows, cols;   /* MATRIX: host-evaluated sizes */
    int fold;              /* REDUCE: FxFoldKind */
    bool uses_float;       /* needs doubles on the device */
    bool float_sum;        /* REDUCE of floats: reordered, so only under tolerance */
    /* a float sum inside the element over list parameter grid_list whose
     * terms are exactly 0.0 where the sum of the squared differences of the
     * fields grid_field exceeds grid_k: it visits the neighbour cells the
     * host builds (clgrid.h), arguments after the outputs */
    bool grid;
    uint32_t grid_list, grid_dims, grid_field[3];
    double grid_k;
} FxClPlan;

/* The plan for f's graph, or false with why (for the decision tree:
 * "it calls itself", "`pow` on floats is not correctly rounded on OpenCL").
 * rt finds the callees' graphs. The plan's source is malloc'd. */
bool fx_clgen_plan(FxRuntime *rt, const FxGraph *g, FxClPlan *out, char *why, size_t why_len);
void fx_clgen_free(FxClPlan *p);

/* Why the plan's parts are independent, for the decision tree: what each
 * work-item reads and writes, and how partial results combine. */
const char *fx_clgen_proof(const FxClPlan *p);

/* Evaluates a size node of a plan (a constant, a parameter, len, rows or
 * cols of one, + - * of those) on the call's arguments; false when it is
 * not one of those or not a 64-bit integer. */
bool fx_clgen_size(const FxGraph *g, FxNodeId id, const FxValue *args, int64_t *out);

#endif
