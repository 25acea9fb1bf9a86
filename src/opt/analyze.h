/*
 * analyze.h: the analyzer: what a lineage's recorded runs say, as the
 * features the rules, the cost model and the learning schedule use.
 */
#ifndef FX_ANALYZE_H
#define FX_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One recorded run, as the analyzer sees it. */
typedef struct FxTrace {
    int64_t id;          /* the execution's id */
    char version[16];    /* "v2" */
    double size;         /* of the input: the sum of |x| for integers, lengths for lists
                          * and strings, cells for matrices */
    double ms;
    uint32_t variant;    /* the FX_VARIANT_* a kernel ran, or 0 */
    double kernel_ms;    /* that kernel's own time in the call, or -1: not measured */
    uint64_t input_hash;
    char *input, *expr;  /* the input as JSON ({"n": 30}) and the EXPR */
} FxTrace;

#define FX_HOT_WINDOW 64 /* the newest runs where recurring inputs are counted */
#define FX_HOT_MIN 3     /* runs an input needs in the window to be hot */
#define FX_HOT_MAX 64    /* the most entries a hot-input table holds */

typedef struct FxHotInput {
    const FxTrace *example; /* its newest run */
    uint32_t count;         /* runs with it in the window */
} FxHotInput;

typedef struct FxAnalysis {
    size_t runs;           /* all the traces given */
    size_t runs_current;   /* of the version running now */
    bool newest_is_current;
    double newest_size, largest_size, largest_before_newest;
    size_t window, distinct_in_window;
    FxHotInput hot[FX_HOT_MAX]; /* most frequent first */
    uint32_t n_hot;
    double hot_share;      /* of the window's runs, those with a hot input */
} FxAnalysis;

/* Analyzes t[0..n), newest first, for the version labelled `current`. */
void fx_analyze(const FxTrace *t, size_t n, const char *current, FxAnalysis *out);

#endif
