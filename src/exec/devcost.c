/*
 * devcost.c: the device cost model (devcost.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcost.h"

static double distance(double a, double b)
{
    return fabs(log(a > 1 ? a : 1) - log(b > 1 ? b : 1));
}

void fx_devcost_observe(FxDevCost *c, int dev, double items, double ms)
{
    if (dev < 0 || dev >= FX_DEVCOST__COUNT || !(ms >= 0) || !(items >= 1) || !isfinite(ms))
        return;
    __typeof__(c->dev[0]) *d = &c->dev[dev];
    d->observed++;
    uint32_t at = d->n;
    if (d->n) { /* full, or the same size again: the nearest point is replaced */
        uint32_t near = 0;
        for (uint32_t i = 1; i < d->n; i++)
            if (distance(d->items[i], items) < distance(d->items[near], items))
                near = i;
        if (d->n == FX_DEVCOST_POINTS || distance(d->items[near], items) < 0.1)
            at = near;
    }
    if (at == d->n)
        d->n++;
    d->items[at] = items;
    d->ms[at] = ms;
}

bool fx_devcost_predict(const FxDevCost *c, int dev, double items, double *ms)
{
    const __typeof__(c->dev[0]) *d = &c->dev[dev];
    if (!d->n)
        return false;
    uint32_t near = 0;
    for (uint32_t i = 1; i < d->n; i++)
        if (distance(d->items[i], items) < distance(d->items[near], items))
            near = i;
    double scaled = d->ms[near] * items / d->items[near];
    /* another device's point is also its least cost: copies and a launch,
     * or the ranks' messages */
    *ms = dev != FX_DEVCOST_CPU && scaled < d->ms[near] ? d->ms[near] : scaled;
    return true;
}

int fx_devcost_choose(const FxDevCost *c, int dev, double items, const char *device, char *why,
                      size_t why_len)
{
    double cpu, there;
    bool has_cpu = fx_devcost_predict(c, FX_DEVCOST_CPU, items, &cpu);
    bool has_dev = fx_devcost_predict(c, dev, items, &there);
    const char *costs = dev == FX_DEVCOST_MPI ? "the ranks' messages" : "copies and launch";
    if (!has_cpu) {
        snprintf(why, why_len, "the CPU: no measured call of this version yet (%.0f items)",
                 items);
        return FX_DEVCOST_CPU;
    }
    if (!has_dev) {
        /* ski rental: the CPU until the calls it has run would have paid for
         * a try of the device, then the try, once (a regret of at most 2x) */
        const char *explore = getenv("FLUX_EXPLORE");
        uint32_t calls = c->dev[FX_DEVCOST_CPU].observed ? c->dev[FX_DEVCOST_CPU].observed : 1;
        double spent = cpu * calls;
        if (spent >= FX_DEVCOST_EXPLORE_MS && !(explore && !strcmp(explore, "off"))) {
            snprintf(why, why_len, "%s, once, to measure it: the CPU is predicted %.3g ms for "
                     "%.0f items, and its %u call%s so far took about %.3g ms", device, cpu,
                     items, calls, calls == 1 ? "" : "s", spent);
            return dev;
        }
        if (spent >= FX_DEVCOST_EXPLORE_MS)
            snprintf(why, why_len, "the CPU: predicted %.3g ms for %.0f items; %s is not "
                     "measured, and exploring is off (FLUX_EXPLORE=off)", cpu, items, device);
        else
            snprintf(why, why_len, "the CPU: predicted %.3g ms for %.0f items; its %u call%s so "
                     "far took about %.3g ms, under the %.0f ms after which %s is tried", cpu,
                     items, calls, calls == 1 ? "" : "s", spent, FX_DEVCOST_EXPLORE_MS, device);
        return FX_DEVCOST_CPU;
    }
    if (there < cpu) {
        snprintf(why, why_len, "%s: predicted %.3g ms against %.3g ms on the CPU (%.0f items)",
                 device, there, cpu, items);
        return dev;
    }
    snprintf(why, why_len, "the CPU: predicted %.3g ms against %.3g ms for %s (%.0f items, %s "
             "included)", cpu, there, device, items, costs);
    return FX_DEVCOST_CPU;
}

FxDevCost *fx_devcosts_get(FxDevCosts *t, const char *key, bool make)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].key, key))
            return &t->e[i].cost;
    if (!make)
        return NULL;
    if (t->n == FX_DEVCOST_KEYS) { /* drop the first */
        memmove(&t->e[0], &t->e[1], (FX_DEVCOST_KEYS - 1) * sizeof(t->e[0]));
        t->n--;
    }
    memset(&t->e[t->n], 0, sizeof(t->e[0]));
    snprintf(t->e[t->n].key, sizeof(t->e[t->n].key), "%s", key);
    return &t->e[t->n++].cost;
}
