/* spectral-norm as the Benchmarks Game's C programs compute it (the same
 * algorithm as examples/benchmarks/spectral_norm.flux). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double a(int i, int j)
{
    return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1);
}

static void times(int n, const double *u, double *v, int transposed)
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += (transposed ? a(j, i) : a(i, j)) * u[j];
        v[i] = s;
    }
}

static void times_ata(int n, const double *u, double *v, double *tmp)
{
    times(n, u, tmp, 0);
    times(n, tmp, v, 1);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        u[i] = 1;
    for (int i = 0; i < 10; i++) {
        times_ata(n, u, v, t);
        times_ata(n, v, u, t);
    }
    double vbv = 0, vv = 0;
    for (int i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    printf("%0.9f\n", sqrt(vbv / vv));
    free(u);
    free(v);
    free(t);
    return 0;
}
