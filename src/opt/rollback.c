/*
 * rollback.c: see rollback.h.
 */
#include "rollback.h"

#include <math.h>
#include <stdlib.h>

#include "base/base.h"

static int by_size(const void *a, const void *b)
{
    const FxCostPoint *x = a, *y = b;
    return x->size < y->size ? -1 : x->size > y->size ? 1 : (x->ms > y->ms) - (x->ms < y->ms);
}

/* The parent's time at `size`: the median of its runs there, or between
 * the nearest sizes it has runs at, the log-log line through their
 * medians; false outside its sizes. g holds one point a size, sorted. */
static bool parent_time(const FxCostPoint *g, size_t n, double size, double *ms, bool *exact)
{
    if (!n || size < g[0].size || size > g[n - 1].size)
        return false;
    size_t j = 0;
    while (g[j].size < size)
        j++;
    *exact = g[j].size == size;
    if (*exact) {
        *ms = g[j].ms;
        return true;
    }
    double x0 = log(g[j - 1].size + 1), x1 = log(g[j].size + 1), x = log(size + 1);
    double y0 = log(fmax(g[j - 1].ms, 1e-6)), y1 = log(fmax(g[j].ms, 1e-6));
    *ms = exp(y0 + (y1 - y0) * (x - x0) / (x1 - x0));
    return true;
}

/* Student's t, two-sided 95% (so one-sided 97.5%), for dof >= 1. */
static double student_t(size_t dof)
{
    static const double t[] = {12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23};
    return dof <= FX_ARRAY_LEN(t) ? t[dof - 1] : 1.96 + 2.4 / (double)dof;
}

void fx_rollback_judge(const FxCostPoint *mine, size_t n_mine, const FxCostPoint *theirs,
                       size_t n_theirs, FxRollbackVerdict *out)
{
    *out = (FxRollbackVerdict){.parent_runs = n_theirs};
    if (!n_theirs || !n_mine)
        return;
    /* the parent's runs, one point a size: the median there */
    FxCostPoint *g = fx_xmalloc(n_theirs * sizeof(FxCostPoint));
    for (size_t i = 0; i < n_theirs; i++)
        g[i] = theirs[i];
    qsort(g, n_theirs, sizeof(FxCostPoint), by_size);
    out->parent_lo = g[0].size;
    out->parent_hi = g[n_theirs - 1].size;
    size_t n_g = 0;
    for (size_t i = 0; i < n_theirs;) {
        size_t j = i;
        while (j < n_theirs && g[j].size == g[i].size)
            j++;
        g[n_g++] = g[i + (j - i) / 2];
        i = j;
    }
    double *r = fx_xmalloc(n_mine * sizeof(double)), plain = 0, mean = 0;
    size_t k = 0;
    for (size_t i = 0; i < n_mine; i++) {
        double ref;
        bool exact;
        if (!parent_time(g, n_g, mine[i].size, &ref, &exact))
            continue;
        double t = fmax(mine[i].ms, 1e-6);
        r[k] = log(t / (ref + FX_ROLLBACK_SLACK_MS));
        mean += r[k];
        plain += log(t / fmax(ref, 1e-6));
        out->lo = k ? fmin(out->lo, mine[i].size) : mine[i].size;
        out->hi = k ? fmax(out->hi, mine[i].size) : mine[i].size;
        out->exact += exact;
        k++;
    }
    out->compared = k;
    if (k >= 2) {
        mean /= (double)k;
        double var = 0;
        for (size_t i = 0; i < k; i++)
            var += (r[i] - mean) * (r[i] - mean);
        var /= (double)(k - 1);
        out->ratio = exp(plain / (double)k);
        out->bound = exp(mean - student_t(k - 1) * sqrt(var / (double)k));
        out->slower = k >= FX_ROLLBACK_RUNS && n_theirs >= FX_ROLLBACK_PARENT_RUNS &&
                      out->bound > FX_ROLLBACK_RATIO;
    }
    free(r);
    free(g);
}

bool fx_rollback_retry(double judged_hi, double largest)
{
    return largest >= FX_ROLLBACK_RETRY * fmax(judged_hi, 1);
}
