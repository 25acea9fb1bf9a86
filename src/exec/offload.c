/*
 * offload.c: a call on the OpenCL device (offload.h).
 *
 * Values cross as flat arrays: a list of numbers as one array, a list of
 * records as one array a field, a matrix row-major. A value the device
 * cannot hold exactly (an integer past 64 bits, a boxed element of another
 * kind) sends the call to the CPU, as does the kernel's error word.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "clgrid.h"
#include "hw/opencl.h"
#include "meter.h"
#include "offload.h"
#include "value.h"

#define MAX_ARGS 32
#define REDUCE_CHUNK 4096 /* numbers of the domain a work-item folds */

typedef struct Marshal {
    FxClArg a[MAX_ARGS];
    void *owned[MAX_ARGS]; /* host arrays made here */
    size_t n;
    size_t bytes;
    bool ok;
} Marshal;

static void *array(Marshal *m, size_t bytes)
{
    void *p = fx_xmalloc(bytes ? bytes : 1);
    m->owned[m->n] = p;
    m->bytes += bytes;
    return p;
}

static void push(Marshal *m, FxClArg a)
{
    if (m->n == MAX_ARGS) {
        m->ok = false;
        return;
    }
    m->a[m->n++] = a;
}

/* One scalar of kind k from v into *w (8 bytes): false when it has none. */
static bool scalar(FxValue v, FxClKind k, void *w)
{
    int64_t i;
    switch (k) {
    case FX_CL_K_INT:
        if (!fx_val_to_int64(v, &i))
            return false;
        memcpy(w, &i, 8);
        return true;
    case FX_CL_K_FLOAT:
        if (v.kind != FX_VAL_FLOAT)
            return false;
        memcpy(w, &v.u.f, 8);
        return true;
    case FX_CL_K_BOOL:
        i = v.kind == FX_VAL_BOOL && v.u.b;
        memcpy(w, &i, 8);
        return v.kind == FX_VAL_BOOL;
    default: return false;
    }
}

/* An argument as the kernel's arguments (clgen.c's param()). */
static void marshal(Marshal *m, const FxClType *t, FxValue v)
{
    switch (t->kind) {
    case FX_CL_K_LIST: {
        size_t n = v.kind == FX_VAL_LIST ? fx_val_list_len(v) : 0;
        if (v.kind != FX_VAL_LIST) {
            m->ok = false;
            return;
        }
        uint32_t nf = t->elem == FX_CL_K_RECORD ? t->record.n : 1;
        for (uint32_t f = 0; f < nf && m->ok; f++) {
            int64_t *p = array(m, n * 8);
            push(m, (FxClArg){FX_CL_IN, p, n * 8});
            const int64_t *ints = t->elem == FX_CL_K_INT ? fx_val_list_ints(v) : NULL;
            const double *floats = t->elem == FX_CL_K_FLOAT ? fx_val_list_floats(v) : NULL;
            if (ints || floats) {
                memcpy(p, ints ? (const void *)ints : (const void *)floats, n * 8);
                continue;
            }
            for (size_t i = 0; i < n && m->ok; i++) {
                FxValue e = fx_val_list_at(v, i);
                if (t->elem == FX_CL_K_RECORD) {
                    FxValue x = e.kind == FX_VAL_RECORD
                                        ? fx_val_record_field(e, t->record.fields[f])
                                        : (FxValue){.kind = FX_VAL_UNIT};
                    m->ok = scalar(x, t->record.kinds[f], &p[i]);
                } else {
                    m->ok = scalar(e, t->elem, &p[i]);
                }
            }
        }
        push(m, (FxClArg){FX_CL_LONG, .i = (int64_t)n});
        return;
    }
    case FX_CL_K_MATRIX: {
        if (v.kind != FX_VAL_MATRIX) {
            m->ok = false;
            return;
        }
        size_t r = fx_val_matrix_rows(v), c = fx_val_matrix_cols(v);
        int64_t *p = array(m, r * c * 8);
        push(m, (FxClArg){FX_CL_IN, p, r * c * 8});
        for (size_t i = 0; i < r * c && m->ok; i++)
            m->ok = scalar(fx_val_matrix_at(v, i / c, i % c), t->elem, &p[i]);
        push(m, (FxClArg){FX_CL_LONG, .i = (int64_t)r});
        push(m, (FxClArg){FX_CL_LONG, .i = (int64_t)c});
        return;
    }
    case FX_CL_K_RECORD:
        for (uint32_t f = 0; f < t->record.n && m->ok; f++) {
            FxValue x = v.kind == FX_VAL_RECORD ? fx_val_record_field(v, t->record.fields[f])
                                                : (FxValue){.kind = FX_VAL_UNIT};
            int64_t w;
            m->ok = scalar(x, t->record.kinds[f], &w);
            FxClArg a = {t->record.kinds[f] == FX_CL_K_FLOAT ? FX_CL_DOUBLE : FX_CL_LONG};
            memcpy(t->record.kinds[f] == FX_CL_K_FLOAT ? (void *)&a.f : (void *)&a.i, &w, 8);
            push(m, a);
        }
        return;
    default: {
        int64_t w;
        m->ok = scalar(v, t->kind, &w);
        FxClArg a = {t->kind == FX_CL_K_FLOAT ? FX_CL_DOUBLE : FX_CL_LONG};
        memcpy(t->kind == FX_CL_K_FLOAT ? (void *)&a.f : (void *)&a.i, &w, 8);
        push(m, a);
        return;
    }
    }
}

static FxValue element(FxClKind k, const int64_t *w)
{
    double f;
    switch (k) {
    case FX_CL_K_FLOAT: memcpy(&f, w, 8); return fx_val_float(f);
    case FX_CL_K_BOOL: return fx_val_bool(*w != 0);
    default: return fx_val_int(*w);
    }
}

static FxOffloadStatus cleanup(Marshal *m, FxOffloadStatus st)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->owned[i]);
    return st;
}

/* The neighbour cells of the list a grid sum runs over (clgrid.h), as the
 * kernel's last arguments; false with why (a coordinate not finite). */
static bool grid_args(Marshal *m, const FxClPlan *p, FxValue list, FxClCells *cells,
                      FxOffloadNote *note)
{
    const FxClRecord *rec = &p->params[p->grid_list].record;
    size_t n = fx_val_list_len(list);
    double *coords[3] = {NULL, NULL, NULL};
    bool ok = true;
    for (uint32_t d = 0; d < p->grid_dims; d++) {
        coords[d] = fx_xmalloc((n ? n : 1) * sizeof(double));
        for (size_t i = 0; i < n && ok; i++) {
            FxValue x = fx_val_record_field(fx_val_list_at(list, i), rec->fields[p->grid_field[d]]);
            ok = x.kind == FX_VAL_FLOAT;
            coords[d][i] = ok ? x.u.f : 0;
        }
    }
    char why[200] = "a coordinate is not a float";
    ok = ok && fx_clgrid_cells((const double *const *)coords, p->grid_dims, n, p->grid_k, cells,
                               why, sizeof(why));
    for (uint32_t d = 0; d < 3; d++)
        free(coords[d]);
    if (!ok) {
        snprintf(note->why, sizeof(note->why), "%s: the CPU runs it", why);
        return false;
    }
    push(m, (FxClArg){FX_CL_IN, cells->start, (cells->cells + 1) * 8});
    push(m, (FxClArg){FX_CL_IN, cells->items, (n ? n : 1) * 8});
    for (int d = 0; d < 3; d++)
        push(m, (FxClArg){FX_CL_LONG, .i = cells->n[d]});
    for (int d = 0; d < 3; d++)
        push(m, (FxClArg){FX_CL_DOUBLE, .f = cells->o[d]});
    push(m, (FxClArg){FX_CL_DOUBLE, .f = cells->h});
    m->bytes += (cells->cells + 1 + n) * 8;
    return true;
}

bool fx_offload_items(const FxGraph *g, const FxClPlan *p, const FxValue *args, size_t *items)
{
    int64_t a, b;
    switch (p->shape) {
    case FX_CL_SHAPE_LIST:
        *items = fx_val_list_len(args[p->list]);
        return args[p->list].kind == FX_VAL_LIST;
    case FX_CL_SHAPE_MATRIX:
        if (!fx_clgen_size(g, p->rows, args, &a) || !fx_clgen_size(g, p->cols, args, &b) ||
            a < 0 || b < 0 || __builtin_mul_overflow(a, b, &a))
            return false;
        *items = (size_t)a;
        return true;
    case FX_CL_SHAPE_REDUCE:
        if (!p->over_range) {
            *items = fx_val_list_len(args[p->list]);
            return args[p->list].kind == FX_VAL_LIST;
        }
        /* fall through */
    case FX_CL_SHAPE_RANGE:
        if (!fx_clgen_size(g, p->lo, args, &a) || !fx_clgen_size(g, p->hi, args, &b))
            return false;
        *items = b > a ? (size_t)((uint64_t)b - (uint64_t)a) : 0;
        return true;
    }
    return false;
}

FxOffloadStatus fx_offload_run(FxRuntime *rt, const FxGraph *g, const FxClPlan *p,
                               const FxValue *args, FxValue *out, FxOffloadNote *note)
{
    (void)rt;
    *note = (FxOffloadNote){.what = "opencl"};
    FxClInfo info;
    if (!fx_cl_probe(&info)) {
        snprintf(note->why, sizeof(note->why), "no OpenCL device: %s", info.note);
        return FX_OFFLOAD_CPU;
    }
    if (p->uses_float && !info.fp64) {
        snprintf(note->why, sizeof(note->why), "%s has no doubles (cl_khr_fp64)", info.device);
        return FX_OFFLOAD_CPU;
    }
    size_t items;
    int64_t lo = 0, rows = 0, cols = 0;
    if (!fx_offload_items(g, p, args, &items)) {
        snprintf(note->why, sizeof(note->why), "a size of the call is past 64 bits");
        return FX_OFFLOAD_CPU;
    }
    if (p->shape == FX_CL_SHAPE_RANGE || (p->shape == FX_CL_SHAPE_REDUCE && p->over_range))
        fx_clgen_size(g, p->lo, args, &lo);
    if (p->shape == FX_CL_SHAPE_MATRIX) {
        fx_clgen_size(g, p->rows, args, &rows);
        fx_clgen_size(g, p->cols, args, &cols);
    }
    if (p->shape == FX_CL_SHAPE_REDUCE && p->float_sum) {
        /* the partial sums reorder the sum: any two orders of n terms differ
         * by at most 2 n u / (1 - n u) times the sum of their magnitudes */
        double u = ldexp(1.0, -53), nu = (double)items * u, bound = 2 * nu / (1 - nu);
        if (g->tolerance <= 0 || nu >= 1 || bound > g->tolerance || items == 0) {
            snprintf(note->why, sizeof(note->why), "a sum of %zu floats, reordered in parts, "
                     "needs a declared tolerance of at least %.2g", items, bound);
            return FX_OFFLOAD_CPU;
        }
    }
    char why[400];
    struct timespec b0, b1;
    clock_gettime(CLOCK_MONOTONIC, &b0);
    FxClKernel *k = fx_cl_kernel(p->source, "flux_parts", why, sizeof(why));
    clock_gettime(CLOCK_MONOTONIC, &b1);
    note->build_ms = (double)(b1.tv_sec - b0.tv_sec) * 1e3 + (double)(b1.tv_nsec - b0.tv_nsec) / 1e6;
    if (!k) {
        snprintf(note->why, sizeof(note->why), "%s", why);
        return FX_OFFLOAD_CPU;
    }
    Marshal m = {.ok = true};
    for (uint32_t i = 0; i < p->n_params && m.ok; i++)
        marshal(&m, &p->params[i], args[i]);
    int err_word = 0;
    size_t parts = p->shape == FX_CL_SHAPE_REDUCE ? (items + REDUCE_CHUNK - 1) / REDUCE_CHUNK
                                                  : items;
    push(&m, (FxClArg){FX_CL_INOUT, &err_word, sizeof(err_word)});
    push(&m, (FxClArg){FX_CL_LONG, .i = lo});
    push(&m, (FxClArg){FX_CL_LONG, .i = p->shape == FX_CL_SHAPE_MATRIX ? rows : (int64_t)items});
    push(&m, (FxClArg){FX_CL_LONG, .i = p->shape == FX_CL_SHAPE_MATRIX   ? cols
                                        : p->shape == FX_CL_SHAPE_REDUCE ? REDUCE_CHUNK
                                                                         : 0});
    uint32_t nf = p->out.kind == FX_CL_K_RECORD ? p->out.record.n : 1;
    int64_t *outs[FX_CL_MAX_FIELDS] = {0};
    for (uint32_t f = 0; f < nf && m.ok; f++) {
        outs[f] = array(&m, parts * 8);
        push(&m, (FxClArg){FX_CL_OUT, outs[f], parts * 8});
    }
    int *has = NULL;
    if (p->shape == FX_CL_SHAPE_REDUCE) {
        has = array(&m, parts * sizeof(int));
        push(&m, (FxClArg){FX_CL_OUT, has, parts * sizeof(int)});
    }
    FxClCells grid = {0};
    if (p->grid && m.ok && !grid_args(&m, p, args[p->grid_list], &grid, note))
        return cleanup(&m, FX_OFFLOAD_CPU);
    FxOffloadStatus st = FX_OFFLOAD_CPU;
    size_t charged = m.bytes;
    if (!m.ok) {
        snprintf(note->why, sizeof(note->why), "an argument holds a value the device cannot "
                 "(an integer past 64 bits, or an element of another kind)");
    } else if (!fx_meter_charge(charged)) {
        charged = 0;
        snprintf(note->why, sizeof(note->why), "its buffers pass the memory budget");
    } else if (parts > 0) {
        FxClLaunch l = {.dims = p->shape == FX_CL_SHAPE_MATRIX ? 2 : 1,
                        .global = {p->shape == FX_CL_SHAPE_MATRIX ? (size_t)rows : parts,
                                   p->shape == FX_CL_SHAPE_MATRIX ? (size_t)cols : 1}};
        if (!fx_cl_run(k, m.a, m.n, &l, why, sizeof(why))) {
            snprintf(note->why, sizeof(note->why), "%s", why);
        } else if (err_word) {
            snprintf(note->why, sizeof(note->why), "the kernel gave the call back (an integer "
                     "overflow, a division by a non-positive number, a NaN compared, an index "
                     "out of range or an empty float sum): the CPU runs it");
        } else {
            note->ms = l.ms;
            note->items = items;
            note->local[0] = l.local[0];
            note->local[1] = l.local[1];
            note->dims = l.dims;
            note->parts = parts;
            snprintf(note->device, sizeof(note->device), "%s", info.device);
            st = FX_OFFLOAD_DONE;
            char where[160];
            if (l.dims == 2)
                snprintf(where, sizeof(where), "work-groups of %zu x %zu items: cell [i, j] is "
                         "item [i %% %zu, j %% %zu] of group [i / %zu, j / %zu]", l.local[0],
                         l.local[1], l.local[0], l.local[1], l.local[0], l.local[1]);
            else if (p->shape == FX_CL_SHAPE_REDUCE)
                snprintf(where, sizeof(where), "%zu parts of %d numbers in work-groups of %zu: "
                         "number k is folded by item k / %d", parts, REDUCE_CHUNK, l.local[0],
                         REDUCE_CHUNK);
            else
                snprintf(where, sizeof(where), "work-groups of %zu items: element i is item "
                         "i %% %zu of group i / %zu", l.local[0], l.local[0], l.local[0]);
            snprintf(note->why, sizeof(note->why), "%s (%s): %zu %s in %.3f ms; %s", info.device,
                     info.platform, items, p->shape == FX_CL_SHAPE_MATRIX ? "cells" : "items",
                     l.ms, where);
        }
    } else {
        st = FX_OFFLOAD_DONE; /* nothing to compute: an empty result */
        snprintf(note->why, sizeof(note->why), "no items");
    }
    if (st == FX_OFFLOAD_DONE) {
        if (p->shape == FX_CL_SHAPE_REDUCE) {
            bool fl = p->out.kind == FX_CL_K_FLOAT, any = false;
            int64_t acc = 0;
            double facc = 0;
            for (size_t i = 0; i < parts && st == FX_OFFLOAD_DONE; i++) {
                if (!has[i])
                    continue;
                double f;
                memcpy(&f, &outs[0][i], 8);
                if (fl)
                    facc += f;
                else if (p->fold == FX_FOLD_SUM || p->fold == FX_FOLD_COUNT)
                    st = __builtin_add_overflow(acc, outs[0][i], &acc) ? FX_OFFLOAD_CPU : st;
                else if (!any || (p->fold == FX_FOLD_MIN ? outs[0][i] < acc : outs[0][i] > acc))
                    acc = outs[0][i];
                any = true;
            }
            if ((p->fold == FX_FOLD_MIN || p->fold == FX_FOLD_MAX) && !any)
                st = FX_OFFLOAD_CPU; /* the empty min's error is the CPU's to give */
            if (fl && !isfinite(facc))
                st = FX_OFFLOAD_CPU;
            if (st == FX_OFFLOAD_DONE)
                *out = fl ? fx_val_float(facc) : fx_val_int(acc);
            else
                snprintf(note->why, sizeof(note->why), "the parts' sum overflows 64 bits or is "
                         "not finite: the CPU runs it");
        } else if (p->out.kind == FX_CL_K_RECORD) {
            FxValue *cells = fx_xmalloc((items ? items : 1) * sizeof(FxValue));
            for (size_t i = 0; i < items; i++) {
                FxValue fields[FX_CL_MAX_FIELDS];
                for (uint32_t f = 0; f < nf; f++)
                    fields[f] = element(p->out.record.kinds[f], &outs[f][i]);
                cells[i] = fx_val_record(nf, p->out.record.fields, fields);
            }
            *out = fx_val_list_take(cells, items);
            free(cells);
        } else if (p->shape == FX_CL_SHAPE_MATRIX) {
            FxValue *cells = fx_xmalloc((items ? items : 1) * sizeof(FxValue));
            for (size_t i = 0; i < items; i++)
                cells[i] = element(p->out.kind, &outs[0][i]);
            *out = fx_val_matrix_adopt((size_t)rows, (size_t)cols, cells, items,
                                       p->out.kind != FX_CL_K_BOOL);
        } else if (p->out.kind == FX_CL_K_INT || p->out.kind == FX_CL_K_FLOAT) {
            int64_t *v = items ? outs[0] : NULL; /* the list keeps the array */
            for (size_t i = 0; i < m.n; i++)
                if (m.owned[i] == v)
                    m.owned[i] = NULL;
            *out = p->out.kind == FX_CL_K_INT ? fx_val_list_adopt_ints(v, items)
                                              : fx_val_list_adopt_floats((double *)v, items);
        } else {
            FxValue *cells = fx_xmalloc((items ? items : 1) * sizeof(FxValue));
            for (size_t i = 0; i < items; i++)
                cells[i] = element(p->out.kind, &outs[0][i]);
            *out = fx_val_list_take(cells, items);
            free(cells);
        }
    }
    if (st == FX_OFFLOAD_DONE && p->grid) {
        size_t len = strlen(note->why);
        snprintf(note->why + len, sizeof(note->why) - len, "; the sum over the list visits "
                 "the elements of the %d cells around each element's (%zu cells of side %.3g): "
                 "its other terms are exactly 0.0 (checked on the graph), and without them the "
                 "sum, in index order, keeps every bit", p->grid_dims == 1 ? 3
                 : p->grid_dims == 2 ? 9 : 27, grid.cells, grid.h);
    }
    fx_clgrid_cells_free(&grid);
    if (charged)
        fx_meter_sub(charged);
    return cleanup(&m, st);
}
