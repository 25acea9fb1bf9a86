/* bench/user/spectral.flux in C, the iterated vector computed once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double entry(long i, long j) { return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1); }

static void times(const double *u, double *out, long n, int transposed)
{
    for (long i = 0; i < n; i++) {
        double s = 0;
        for (long j = 0; j < n; j++)
            s += (transposed ? entry(j, i) : entry(i, j)) * u[j];
        out[i] = s;
    }
}

static void ata(const double *u, double *out, double *tmp, long n)
{
    times(u, tmp, n, 0);
    times(tmp, out, n, 1);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    double *u = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double)),
           *t = malloc(n * sizeof(double));
    for (long i = 0; i < n; i++)
        u[i] = 1.0;
    for (int k = 0; k < 9; k++) {
        ata(u, v, t, n);
        double *x = u;
        u = v;
        v = x;
    }
    ata(u, v, t, n);
    double uv = 0, uu = 0;
    for (long i = 0; i < n; i++)
        uv += v[i] * u[i];
    for (long i = 0; i < n; i++)
        uu += u[i] * u[i];
    printf("%.9f\n", sqrt(uv / uu));
    return 0;
}
