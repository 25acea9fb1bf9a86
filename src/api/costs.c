/*
 * costs.c: the kernels' cost models between the store and the runtimes.
 *
 * The sort kernels' model (exec/sortcost.h) is kept in the store's
 * cost_models table, a row per variant (fx_sortk_name), keyed too by the
 * device the kernels run on (hw/device.h) and the hardware's fingerprint
 * (fx_hw_fingerprint), so that machines sharing a store keep their own
 * costs. The rows are read with the installed versions (when a store is
 * attached or refreshed) into the program, which gives them to each
 * runtime it makes; without a row a runtime keeps the defaults. After a
 * run, the variants its runtime refitted are written back, and kept in the
 * program for the runtimes made later. A store error here loses a refit,
 * nothing else: the run and its record stand, so it is not reported.
 */
#include <stdlib.h>

#include "api_int.h"
#include "exec/devcost.h"
#include "hw/mpi.h"
#include "hw/device.h"
#include "hw/hw.h"

#define SORT_KERNEL "sort"

/* The key of the sort model's row for variant k; hardware is the caller's
 * buffer. */
static FxCostKey sort_key(FxSortKind k, FxBuf *hardware)
{
    FxHardware hw = fx_hw_detect();
    fx_hw_fingerprint(&hw, hardware);
    return (FxCostKey){SORT_KERNEL, fx_sortk_name(k), fx_device_cpu()->name,
                       fx_buf_str(hardware)};
}

/* The device model's rows (exec/devcost.h): kernel "device", variant
 * "INTENT:cpu", "INTENT:opencl" or "INTENT:mpi-N" (N ranks: the points of
 * 2 ranks say nothing of 3), the device, the fingerprint; the parameters
 * are the version's number, then (items, ms) a point. False for MPI's rows
 * outside an MPI job. */
static bool device_key(const char *intent, int dev, FxBuf *variant, FxBuf *hardware,
                       FxCostKey *key)
{
    static const char *const names[FX_DEVCOST__COUNT] = {"cpu", "opencl", "mpi"};
    if (dev == FX_DEVCOST_MPI && !fx_mpi_running())
        return false;
    FxHardware hw = fx_hw_detect();
    fx_hw_fingerprint(&hw, hardware);
    fx_buf_printf(variant, "%s:%s", intent, names[dev]);
    if (dev == FX_DEVCOST_MPI)
        fx_buf_printf(variant, "-%d", fx_mpi_size());
    *key = (FxCostKey){"device", fx_buf_str(variant), names[dev], fx_buf_str(hardware)};
    return true;
}

/* An intent's rows may hold points of several versions (a device not
 * used since a newer version was installed): only the newest version's
 * are read, and the model measures the others afresh. */
static void device_costs_read(FluxProgram *fp)
{
    free(fp->dev_costs);
    fp->dev_costs = fp->store ? fx_xcalloc(1, sizeof(*fp->dev_costs)) : NULL;
    if (!fp->store)
        return;
    fx_vec_foreach(FxIntent *, in, &fp->prog->root->intents)
    {
        FxCostParams rows[FX_DEVCOST__COUNT];
        bool found[FX_DEVCOST__COUNT] = {false};
        double newest = 0;
        for (int d = 0; d < FX_DEVCOST__COUNT; d++) {
            FxBuf variant = {0}, hardware = {0};
            FxCostKey key;
            if (device_key((*in)->name, d, &variant, &hardware, &key) &&
                fx_store_cost_model(fp->store->store, &key, &rows[d], &found[d]) == FX_OK &&
                found[d] && rows[d].n == 1 + 2 * FX_DEVCOST_POINTS) {
                if (rows[d].v[0] > newest)
                    newest = rows[d].v[0];
            } else {
                found[d] = false;
            }
            fx_buf_free(&variant);
            fx_buf_free(&hardware);
        }
        for (int d = 0; d < FX_DEVCOST__COUNT; d++) {
            if (!found[d] || rows[d].v[0] != newest)
                continue;
            FxDevCost *c = fx_devcosts_get(fp->dev_costs, (*in)->name, true);
            c->version = (int64_t)newest;
            for (int i = 0; i < FX_DEVCOST_POINTS; i++)
                if (rows[d].v[1 + 2 * i] >= 1)
                    fx_devcost_observe(c, d, rows[d].v[1 + 2 * i], rows[d].v[2 + 2 * i]);
            c->dev[d].observed = rows[d].observed;
        }
    }
}

void fx_api_costs_read(FluxProgram *fp)
{
    device_costs_read(fp);
    fx_sortcost_defaults(&fp->sort_costs);
    fp->sort_costs_kept = fp->store != NULL;
    if (!fp->store)
        return;
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        FxBuf hardware = {0};
        FxCostKey key = sort_key((FxSortKind)k, &hardware);
        FxCostParams p;
        bool found = false;
        if (fx_store_cost_model(fp->store->store, &key, &p, &found) == FX_OK && found &&
            p.n == FX_SORTCOST_LEVELS) {
            for (int l = 0; l < FX_SORTCOST_LEVELS; l++)
                fp->sort_costs.ns_per_unit[k][l] = p.v[l];
            fp->sort_costs.observed[k] = p.observed;
        }
        fx_buf_free(&hardware);
    }
}

void fx_api_costs_give(FluxProgram *fp, FxRuntime *rt)
{
    if (fp->dev_costs)
        *fx_runtime_dev_costs(rt) = *fp->dev_costs;
    if (fp->sort_costs_kept)
        *fx_runtime_sort_costs(rt) = fp->sort_costs;
}

/* Writes variant k of c back to the store; true when it was kept. */
static bool keep(FluxProgram *fp, const FxSortCosts *c, FxSortKind k)
{
    FxBuf hardware = {0};
    FxCostKey key = sort_key(k, &hardware);
    FxCostParams p = {.n = FX_SORTCOST_LEVELS, .observed = c->observed[k]};
    for (int l = 0; l < FX_SORTCOST_LEVELS; l++)
        p.v[l] = c->ns_per_unit[k][l];
    bool ok = fx_store_set_cost_model(fp->store->store, &key, &p) == FX_OK;
    fx_buf_free(&hardware);
    return ok;
}

/* The device model's entries the run refitted, written back and kept in
 * the program for the runtimes made later. Called with the locks held. */
static void device_costs_save(FluxProgram *fp, FxRuntime *rt)
{
    FxDevCosts *t = fx_runtime_dev_costs(rt);
    for (uint32_t i = 0; i < t->n; i++) {
        if (!t->e[i].refitted)
            continue;
        t->e[i].refitted = false;
        const FxDevCost *c = &t->e[i].cost;
        for (int d = 0; d < FX_DEVCOST__COUNT; d++) {
            FxBuf variant = {0}, hardware = {0};
            FxCostKey key;
            if (!c->dev[d].n || !device_key(t->e[i].key, d, &variant, &hardware, &key))
                continue;
            FxCostParams p = {.n = 1 + 2 * FX_DEVCOST_POINTS, .observed = c->dev[d].observed};
            p.v[0] = (double)c->version;
            for (uint32_t k = 0; k < c->dev[d].n; k++) {
                p.v[1 + 2 * k] = c->dev[d].items[k];
                p.v[2 + 2 * k] = c->dev[d].ms[k];
            }
            (void)!fx_store_set_cost_model(fp->store->store, &key, &p); /* a lost point */
            fx_buf_free(&variant);
            fx_buf_free(&hardware);
        }
        if (fp->dev_costs)
            *fx_devcosts_get(fp->dev_costs, t->e[i].key, true) = *c;
    }
}

void fx_api_costs_save(FluxProgram *fp, FxRuntime *rt)
{
    FxSortCosts *c = fx_runtime_sort_costs(rt);
    bool any = false;
    for (int k = 0; k < FX_SORTK__COUNT; k++)
        any |= c->refitted[k];
    FxDevCosts *t = fx_runtime_dev_costs(rt);
    for (uint32_t i = 0; i < t->n; i++)
        any |= t->e[i].refitted;
    if (!any)
        return;
    pthread_mutex_lock(&fp->lock);
    if (!fp->store) {
        pthread_mutex_unlock(&fp->lock);
        return;
    }
    pthread_mutex_lock(&fp->store->lock);
    device_costs_save(fp, rt);
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        if (!c->refitted[k] || !keep(fp, c, (FxSortKind)k))
            continue;
        c->refitted[k] = false;
        for (int l = 0; l < FX_SORTCOST_LEVELS; l++)
            fp->sort_costs.ns_per_unit[k][l] = c->ns_per_unit[k][l];
        fp->sort_costs.observed[k] = c->observed[k];
    }
    pthread_mutex_unlock(&fp->store->lock);
    pthread_mutex_unlock(&fp->lock);
}
