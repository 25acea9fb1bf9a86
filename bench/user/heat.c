/* bench/user/heat.flux in C: the same operations in the same order. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    double *u = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double));
    for (long i = 0; i < n; i++)
        u[i] = i == n / 2 ? 100.0 : 0.0;
    for (int k = 0; k < 200; k++) {
        for (long i = 0; i < n; i++)
            v[i] = i == 0 || i + 1 == n ? u[i] : u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        double *t = u;
        u = v;
        v = t;
    }
    double s = 0;
    for (long i = 0; i < n; i++)
        s += u[i] * u[i];
    printf("%.9f\n", s);
    return 0;
}
