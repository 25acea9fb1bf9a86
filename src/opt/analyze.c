/*
 * analyze.c: see analyze.h.
 */
#include "analyze.h"

#include <stdlib.h>
#include <string.h>

static int by_count(const void *a, const void *b)
{
    const FxHotInput *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count ? 1 : -1) : 0;
}

void fx_analyze(const FxTrace *t, size_t n, const char *current, FxAnalysis *out)
{
    memset(out, 0, sizeof(*out));
    out->runs = n;
    if (!n)
        return;
    out->newest_is_current = !strcmp(t[0].version, current);
    out->newest_size = t[0].size;
    for (size_t i = 0; i < n; i++) {
        out->runs_current += !strcmp(t[i].version, current);
        if (t[i].size > out->largest_size)
            out->largest_size = t[i].size;
        if (i > 0 && t[i].size > out->largest_before_newest)
            out->largest_before_newest = t[i].size;
    }
    /* recurring inputs: counted in the window, each at its newest run */
    out->window = n < FX_HOT_WINDOW ? n : FX_HOT_WINDOW;
    FxHotInput seen[FX_HOT_WINDOW];
    size_t distinct = 0;
    for (size_t i = 0; i < out->window; i++) {
        size_t j = 0;
        while (j < distinct && seen[j].example->input_hash != t[i].input_hash)
            j++;
        if (j == distinct)
            seen[distinct++] = (FxHotInput){&t[i], 0};
        seen[j].count++;
    }
    out->distinct_in_window = distinct;
    qsort(seen, distinct, sizeof(seen[0]), by_count);
    size_t covered = 0;
    for (size_t j = 0; j < distinct && seen[j].count >= FX_HOT_MIN; j++) {
        out->hot[out->n_hot++] = seen[j];
        covered += seen[j].count;
    }
    out->hot_share = (double)covered / (double)out->window;
}
