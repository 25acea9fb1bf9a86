/*
 * clgrid.h: neighbour cells for a sum whose far terms are exactly zero
 * (docs/devices.md, "Neighbour cells").
 *
 * The particle step sums, for each particle p, a force term over every q
 * of the list; the term is `if (p and q overlap) then ... else 0.0`, so
 * all but the few q near p add an exact zero. Visiting every q is n^2
 * work (10^10 a step for 10^5 particles). The kernel instead visits the q
 * of the cells next to p's and adds their terms in index order, which is
 * the same sum to the bit:
 *
 *   - the sum starts from +0.0 and adds its terms left to right, so its
 *     partial sums are never -0.0 (x + y is -0.0 only when both are), and
 *     adding +0.0 or -0.0 to a value that is not -0.0 leaves it unchanged:
 *     dropping terms that are exactly zero changes no bit;
 *   - the terms dropped are zero: fx_clgrid_far proves it on the graph.
 *     The term, as a function of p and q, is zero (and its evaluation
 *     raises no error) wherever D = sum over some coordinate fields f of
 *     (p.f - q.f) * (p.f - q.f), computed in floats, exceeds a constant K
 *     that every distance test of the term compares D with;
 *   - a q outside the 3^d cells around p's has |p.f - q.f| >= c in some
 *     field, with fl(c * c) > K, so D >= fl(c * c) > K (rounding is
 *     monotonic and the other squares are >= 0): fx_clgrid_cells sizes the
 *     cells so (h = c (1 + 2^-20), the margin covering the rounding of a
 *     cell's computed coordinate).
 *
 * The host builds the cells per call (a counting sort: each cell's
 * indices stay ascending); coordinates that are not finite keep the call
 * on the CPU.
 */
#ifndef FX_CLGRID_H
#define FX_CLGRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clgen.h"
#include "graph/graph.h"
#include "interp.h"

/* What an expression is when p and q are far apart. */
typedef enum {
    FX_FAR_OTHER,
    FX_FAR_Q,     /* the element q of the sum */
    FX_FAR_P,     /* a record fixed while the sum runs (the C variable p) */
    FX_FAR_QF,    /* q.field */
    FX_FAR_PF,    /* p.field */
    FX_FAR_DIFF,  /* p.field - q.field (either way) */
    FX_FAR_DIST,  /* a sum of squared DIFFs of p's fields: D, >= fl(c * c) when far */
    FX_FAR_CONST, /* a number literal, value */
    FX_FAR_ZERO,  /* exactly +0.0 or -0.0 when far */
    FX_FAR_FALSE, /* false when far */
    FX_FAR_BOOL,  /* a boolean that raises no error when far */
} FxFarKind;

typedef struct FxFarSym {
    FxFarKind kind;
    bool safe;        /* its evaluation raises no error when far */
    char p[24];       /* P, PF, DIFF, DIST: p's C variable */
    uint32_t field;   /* QF, PF, DIFF: the field's index in q's record */
    uint32_t mask;    /* DIST: the fields summed */
    double value;     /* CONST */
} FxFarSym;

/* The region where the terms vanish: D over mask, of p, > k. */
typedef struct FxFarRegion {
    bool found;
    char p[24];
    uint32_t mask;
    double k;
} FxFarRegion;

/* Is the term body (of graph g, whose parameters and slots are the syms
 * given) exactly zero, and free of errors, when far? rec is q's record
 * type; rt finds the callees' graphs. On true, *out is the region. */
bool fx_clgrid_far(FxRuntime *rt, const FxGraph *g, FxNodeId body, const FxFarSym *params,
                   const FxFarSym *slots, const FxClRecord *rec, FxFarRegion *out);

/* The cells of n points (coords[d][i], d < dims) for the distance test
 * D > k: start[cell] .. start[cell + 1] index items (the points' indices,
 * ascending in each cell); cells n[0] x n[1] x n[2] (1 past dims) of side
 * h from origin o. False with why when a coordinate is not finite. */
typedef struct FxClCells {
    int64_t *start, *items;
    int64_t n[3];
    double o[3], h;
    size_t cells;
} FxClCells;
bool fx_clgrid_cells(const double *const coords[3], uint32_t dims, size_t n, double k,
                     FxClCells *out, char *why, size_t why_len);
void fx_clgrid_cells_free(FxClCells *c);

#endif
