/*
 * cost.h: the cost model: a call's time as a function of its input size,
 * fitted per version and variant on measured points.
 *
 * What is fitted is the complexity class, not a mean: for each class g
 * (1, log n, n, n log n, n^1.6, n^2, n^3, 2^(b n)), time = a + b g(n) by least
 * squares weighted by 1/time^2 (so every point counts by its relative
 * error), and the class with the smallest relative error wins (of classes
 * within 10% of each other, the steeper, when its growth term is not
 * negligible: a prediction past the points must not be optimistic). Predictions outside the measured sizes
 * extrapolate the class, which is what lets a model say that the loop
 * will lose to the power at n = 10^6 after seeing n <= 10^4.
 */
#ifndef FX_COST_H
#define FX_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    FX_COST_CONST,
    FX_COST_LOG,
    FX_COST_LINEAR,
    FX_COST_NLOGN,
    FX_COST_N1_6,
    FX_COST_SQUARE,
    FX_COST_CUBE,
    FX_COST_EXP,
    FX_COST__COUNT
} FxCostClass;

typedef struct FxCostModel {
    FxCostClass klass;
    double a, b;   /* time_ms = a + b g(n); for EXP, ln time_ms = a + b n */
    double error;  /* root mean square relative error of the fit */
    uint32_t points;
    double max_size; /* the largest size measured */
} FxCostModel;

typedef struct FxCostPoint {
    double size, ms;
} FxCostPoint;

/* Fits a model on n points (n >= 2 with two distinct sizes); false when
 * the points cannot support one. */
bool fx_cost_fit(const FxCostPoint *pts, size_t n, FxCostModel *out);
/* The same among the classes up to `steepest` (a bound the algorithm is
 * known to stay within). */
bool fx_cost_fit_upto(const FxCostPoint *pts, size_t n, FxCostClass steepest, FxCostModel *out);
/* The predicted time in ms at size n (never below 1e-6). */
double fx_cost_predict(const FxCostModel *m, double size);
/* g(n) of class k (its shape, without constants; EXP: n). */
double fx_cost_shape(FxCostClass k, double n);
/* "n^2", "n log n", ...: the class in words. */
const char *fx_cost_class_name(FxCostClass k);
/* The class named (as fx_cost_class_name writes it); false when unknown. */
bool fx_cost_class_from_name(const char *name, FxCostClass *out);

#endif
