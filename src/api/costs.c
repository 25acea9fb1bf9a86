/*
 * costs.c: the kernels' cost models between the store and a runtime.
 *
 * The sort kernels' model (exec/sortcost.h) is kept in the store's
 * cost_models table, a row per variant (fx_sortk_name), keyed too by the
 * device the kernels run on (hw/device.h) and the hardware's fingerprint
 * (fx_hw_fingerprint), so that machines sharing a store keep their own
 * costs. It is read when a runtime is made for a store (fx_api_runtime),
 * and a variant's row is written after a run that refitted it. Without a
 * row the runtime keeps the defaults. A store error here loses a refit,
 * nothing else: the run and its record stand, so it is not reported.
 */
#include "api_int.h"
#include "exec/sortcost.h"
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

void fx_api_costs_load(FluxProgram *fp)
{
    if (!fp->store || !fp->rt)
        return;
    FxSortCosts *c = fx_runtime_sort_costs(fp->rt);
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        FxBuf hardware = {0};
        FxCostKey key = sort_key((FxSortKind)k, &hardware);
        FxCostParams p;
        bool found = false;
        if (fx_store_cost_model(fp->store->store, &key, &p, &found) == FX_OK && found &&
            p.n == FX_SORTCOST_LEVELS) {
            for (int l = 0; l < FX_SORTCOST_LEVELS; l++)
                c->ns_per_unit[k][l] = p.v[l];
            c->observed[k] = p.observed;
        }
        fx_buf_free(&hardware);
    }
}

void fx_api_costs_save(FluxProgram *fp)
{
    if (!fp->store || !fp->rt)
        return;
    FxSortCosts *c = fx_runtime_sort_costs(fp->rt);
    for (int k = 0; k < FX_SORTK__COUNT; k++) {
        if (!c->refitted[k])
            continue;
        FxBuf hardware = {0};
        FxCostKey key = sort_key((FxSortKind)k, &hardware);
        FxCostParams p = {.n = FX_SORTCOST_LEVELS, .observed = c->observed[k]};
        for (int l = 0; l < FX_SORTCOST_LEVELS; l++)
            p.v[l] = c->ns_per_unit[k][l];
        if (fx_store_set_cost_model(fp->store->store, &key, &p) == FX_OK)
            c->refitted[k] = false;
        fx_buf_free(&hardware);
    }
}
