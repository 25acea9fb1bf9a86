/*
 * devcost.h: the device cost model (docs/devices.md): for each intent's
 * version, measured points (work-items, milliseconds) of its calls on the
 * CPU, on the OpenCL device and split across the ranks of an MPI job, and
 * the choice they predict between the CPU and one of the others.
 *
 * A prediction reads the point nearest in log(items): on the CPU the time
 * scales with the items; on the device a point's time is also the least a
 * call costs (copies, launch), so a smaller call is never predicted
 * cheaper there than the point itself: small calls stay on the CPU. With
 * no CPU point the CPU runs the call. With no device point, the device is
 * tried once (not with FLUX_EXPLORE=off) when the CPU's calls so far, each
 * at this call's prediction, come to EXPLORE_MS: a ski rental, so a call
 * the device runs far faster never stays on the CPU for more than about
 * a second and one call, and a try costs no more than the CPU spent.
 */
#ifndef FX_DEVCOST_H
#define FX_DEVCOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FX_DEVCOST_POINTS 3 /* with the version: 7 numbers, a cost_models row */
/* The CPU time after which the device is tried once: a first use pays
 * the driver's start and the kernel's build (0.1-0.5 s here, seconds with
 * a cold cache). */
#define FX_DEVCOST_EXPLORE_MS 1000.0

/* The devices a model has points for; MPI's are for the number of ranks
 * of this process's job (the store keys them by it). */
enum { FX_DEVCOST_CPU, FX_DEVCOST_OPENCL, FX_DEVCOST_MPI, FX_DEVCOST__COUNT };

typedef struct FxDevCost {
    int64_t version; /* the version (its number) the points were measured on */
    struct {
        double items[FX_DEVCOST_POINTS], ms[FX_DEVCOST_POINTS];
        uint32_t n;
        uint32_t observed;
    } dev[FX_DEVCOST__COUNT];
} FxDevCost;

/* Keeps the point, replacing the one nearest in log(items) when full. */
void fx_devcost_observe(FxDevCost *c, int dev, double items, double ms);

/* The predicted time on dev, false when dev has no point. */
bool fx_devcost_predict(const FxDevCost *c, int dev, double items, double *ms);

/* dev (OPENCL or MPI) or FX_DEVCOST_CPU for a call of this many items,
 * with the reason, device naming dev ("OpenCL on NAME: predicted 8.1 ms
 * against 95 ms on the CPU"). */
int fx_devcost_choose(const FxDevCost *c, int dev, double items, const char *device, char *why,
                      size_t why_len);

/* A kernel's build from the driver's cache, as measured here (PoCL: 0.1 to
 * 0.15 s): what every new process pays. A longer build is a first compile,
 * paid once, so a device point keeps only this much of it. */
#define FX_DEVCOST_WARM_BUILD_MS 150.0

/* The smallest call the model is asked about: below it the CPU runs. */
#define FX_DEVCOST_MIN_ITEMS 1024

/* The costs of the intents a runtime runs, keyed by the intent's name:
 * given by the program from the store before a run, and read back after
 * it (refitted: a point was added). */
#define FX_DEVCOST_KEYS 32
typedef struct FxDevCosts {
    struct {
        char key[120];
        FxDevCost cost;
        bool refitted;
    } e[FX_DEVCOST_KEYS];
    uint32_t n;
} FxDevCosts;

/* The entry for key, made when missing (the oldest dropped when full). */
FxDevCost *fx_devcosts_get(FxDevCosts *t, const char *key, bool make);

#endif
