/*
 * clgrid_test.c: the host's neighbour cells (exec/clgrid.h). For random
 * points, clustered, spread over many magnitudes, and on the cutoff's
 * edge, every pair whose squared distance, computed in floats as the
 * kernel's term computes it, is k or less lies in cells at most one apart
 * in each dimension (computed as the kernel computes a cell); each cell's
 * indices ascend; a coordinate that is not finite is refused.
 */
#include <math.h>
#include <stdlib.h>

#include "exec/clgrid.h"
#include "fx_test.h"

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* The kernel's cell coordinate of x (clgen.c's grid_loop, unclamped). */
static double cell(double x, double o, double h)
{
    return floor((x - o) / h);
}

static void check(uint32_t dims, size_t n, double k, double scale, double offset)
{
    double *c[3] = {NULL, NULL, NULL};
    for (uint32_t d = 0; d < dims; d++) {
        c[d] = malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++)
            c[d][i] = offset + scale * uniform();
    }
    /* pairs right on the edge: q = p + sqrt(k) along one axis */
    for (size_t i = 0; i + 1 < n; i += 7) {
        c[0][i + 1] = c[0][i] + sqrt(k) * (1 - 0x1p-30);
        for (uint32_t d = 1; d < dims; d++)
            c[d][i + 1] = c[d][i];
    }
    FxClCells g;
    char why[200];
    EXPECT(fx_clgrid_cells((const double *const *)c, dims, n, k, &g, why, sizeof(why)));
    EXPECT(g.cells <= (n < 16 ? 64 : 4 * n) && g.start[g.cells] == (int64_t)n);
    for (size_t j = 0; j < g.cells; j++)
        for (int64_t a = g.start[j] + 1; a < g.start[j + 1]; a++)
            EXPECT(g.items[a - 1] < g.items[a]);
    size_t near = 0, bad = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double dist = 0;
            for (uint32_t d = 0; d < dims; d++)
                dist = dist + (c[d][i] - c[d][j]) * (c[d][i] - c[d][j]);
            if (!(dist <= k))
                continue;
            near++;
            for (uint32_t d = 0; d < dims; d++)
                bad += fabs(cell(c[d][i], g.o[d], g.h) - cell(c[d][j], g.o[d], g.h)) > 1;
        }
    EXPECT(near >= n); /* each point and itself at least */
    EXPECT_EQ(bad, (size_t)0);
    fx_clgrid_cells_free(&g);
    for (uint32_t d = 0; d < dims; d++)
        free(c[d]);
}

FX_TEST(near_pairs_are_in_neighbour_cells)
{
    check(2, 1500, 0.0004, 1.0, 0.0);   /* the particles' box */
    check(1, 1000, 1e-6, 1.0, 1e6);     /* far from the origin: coarse floats */
    check(3, 800, 0.01, 1.0, -0.5);
    check(2, 600, 0.0004, 1e9, 0.0);    /* spread wide: cells grown to the cap */
    check(2, 10, 2.0, 0.001, 0.0);      /* all in one cell */
}

FX_TEST(a_coordinate_not_finite_is_refused)
{
    double x[3] = {0.0, NAN, 1.0}, y[3] = {0.0, 0.0, INFINITY};
    const double *c[3] = {x, y, NULL};
    FxClCells g;
    char why[200];
    EXPECT(!fx_clgrid_cells(c, 2, 3, 0.1, &g, why, sizeof(why)));
    x[1] = 0.5;
    EXPECT(!fx_clgrid_cells(c, 2, 3, 0.1, &g, why, sizeof(why)));
    y[2] = 0.5;
    EXPECT(fx_clgrid_cells(c, 2, 3, 0.1, &g, why, sizeof(why)));
    fx_clgrid_cells_free(&g);
}

int main(void)
{
    return fx_test_run();
}
