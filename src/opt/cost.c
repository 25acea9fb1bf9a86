/*
 * cost.c: see cost.h.
 */
#include "cost.h"

#include <math.h>
#include <string.h>

static const char *const class_names[FX_COST__COUNT] = {
    "1", "log n", "n", "n log n", "n^1.6", "n^2", "n^3", "exponential",
};

const char *fx_cost_class_name(FxCostClass k)
{
    return k < FX_COST__COUNT ? class_names[k] : "?";
}

bool fx_cost_class_from_name(const char *name, FxCostClass *out)
{
    for (int k = 0; k < FX_COST__COUNT; k++)
        if (name && !strcmp(name, class_names[k])) {
            *out = (FxCostClass)k;
            return true;
        }
    return false;
}

double fx_cost_shape(FxCostClass k, double n)
{
    double x = n < 1 ? 1 : n;
    switch (k) {
    case FX_COST_CONST: return 1;
    case FX_COST_LOG: return log2(x + 1);
    case FX_COST_LINEAR: return x;
    case FX_COST_NLOGN: return x * log2(x + 1);
    case FX_COST_N1_6: return pow(x, 1.585);
    case FX_COST_SQUARE: return x * x;
    case FX_COST_CUBE: return x * x * x;
    default: return x;
    }
}

double fx_cost_predict(const FxCostModel *m, double size)
{
    double t = m->klass == FX_COST_EXP ? exp(fmin(m->a + m->b * size, 700.0))
                                       : m->a + m->b * fx_cost_shape(m->klass, size);
    return t > 1e-6 ? t : 1e-6;
}

/* Weighted least squares of y = a + b x with weights w. */
static bool line_fit(const double *x, const double *y, const double *w, size_t n, double *a,
                     double *b)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sw += w[i];
        sx += w[i] * x[i];
        sy += w[i] * y[i];
        sxx += w[i] * x[i] * x[i];
        sxy += w[i] * x[i] * y[i];
    }
    double det = sw * sxx - sx * sx;
    if (sw <= 0 || fabs(det) < 1e-300 * (sw * sxx + 1))
        return false;
    *b = (sw * sxy - sx * sy) / det;
    *a = (sy - *b * sx) / sw;
    return true;
}

bool fx_cost_fit(const FxCostPoint *pts, size_t n, FxCostModel *out)
{
    return fx_cost_fit_upto(pts, n, FX_COST_EXP, out);
}

bool fx_cost_fit_upto(const FxCostPoint *pts, size_t n, FxCostClass steepest, FxCostModel *out)
{
    if (n < 2 || n > 4096)
        return false;
    double x[4096], y[4096], w[4096], max_size = 0;
    bool distinct = false;
    for (size_t i = 0; i < n; i++) {
        distinct |= pts[i].size != pts[0].size;
        if (pts[i].size > max_size)
            max_size = pts[i].size;
    }
    if (!distinct)
        return false;
    bool have = false;
    double best = INFINITY; /* the least error of any class so far */
    for (int k = 0; k <= (int)steepest; k++) {
        FxCostModel m = {.klass = (FxCostClass)k, .points = (uint32_t)n, .max_size = max_size};
        for (size_t i = 0; i < n; i++) {
            double t = pts[i].ms > 1e-6 ? pts[i].ms : 1e-6;
            x[i] = k == FX_COST_EXP ? pts[i].size : fx_cost_shape((FxCostClass)k, pts[i].size);
            y[i] = k == FX_COST_EXP ? log(t) : t;
            w[i] = k == FX_COST_EXP ? 1 : 1 / (t * t);
        }
        if (k == FX_COST_CONST) { /* the weighted mean: a + b * 1 with a = 0 */
            double sw = 0, sy = 0;
            for (size_t i = 0; i < n; i++) {
                sw += w[i];
                sy += w[i] * y[i];
            }
            m.b = sy / sw;
        } else if (!line_fit(x, y, w, n, &m.a, &m.b) || m.b < 0) {
            continue; /* time that falls with size is noise, not a class */
        }
        double err = 0;
        for (size_t i = 0; i < n; i++) {
            double t = pts[i].ms > 1e-6 ? pts[i].ms : 1e-6;
            double r = (fx_cost_predict(&m, pts[i].size) - t) / t;
            err += r * r;
        }
        m.error = sqrt(err / (double)n);
        /* Classes that fit equally (within 10%): the steeper one, since a
         * prediction past the points must not be optimistic; but only one
         * whose growth term carries weight at the largest point (at least
         * a tenth of the time there), else it is the constant class with
         * a negligible slope, and its extrapolation says nothing. */
        bool grows = k == FX_COST_CONST || k == FX_COST_EXP ||
                     m.b * fx_cost_shape(m.klass, max_size) >= 0.1 * fx_cost_predict(&m, max_size);
        if (!have || m.error < out->error * 0.9 || (grows && m.error <= best * 1.1)) {
            *out = m;
            have = true;
        }
        if (m.error < best)
            best = m.error;
    }
    return have;
}
