/* bench/user/nbody.flux in C: the same operations in the same order. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double x, y, z, vx, vy, vz, m; } Body;
enum { N = 5 };

static double dist(const Body *a, const Body *b)
{
    return sqrt((a->x - b->x) * (a->x - b->x) + (a->y - b->y) * (a->y - b->y) +
                (a->z - b->z) * (a->z - b->z));
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    Body u[N] = {{0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 39.47},
                 {4.84, -1.16, -0.10, 0.60, 2.81, -0.02, 0.037},
                 {8.34, 4.12, -0.40, -1.01, 1.82, 0.008, 0.011},
                 {12.89, -15.11, -0.22, 1.08, 0.86, -0.01, 0.0017},
                 {15.37, -25.91, 0.17, 0.97, 0.59, -0.03, 0.002}},
         v[N];
    const double dt = 0.01;
    for (long k = 0; k < n; k++) {
        for (int i = 0; i < N; i++) {
            double ax = 0, ay = 0, az = 0;
            for (int j = 0; j < N; j++) {
                if (j == i) {
                    ax += 0.0;
                    continue;
                }
                double d = dist(&u[i], &u[j]);
                ax += u[j].m * (u[j].x - u[i].x) / (d * d * d);
            }
            for (int j = 0; j < N; j++) {
                if (j == i) {
                    ay += 0.0;
                    continue;
                }
                double d = dist(&u[i], &u[j]);
                ay += u[j].m * (u[j].y - u[i].y) / (d * d * d);
            }
            for (int j = 0; j < N; j++) {
                if (j == i) {
                    az += 0.0;
                    continue;
                }
                double d = dist(&u[i], &u[j]);
                az += u[j].m * (u[j].z - u[i].z) / (d * d * d);
            }
            Body b = u[i];
            b.vx = u[i].vx + dt * ax;
            b.vy = u[i].vy + dt * ay;
            b.vz = u[i].vz + dt * az;
            b.x = b.x + dt * b.vx;
            b.y = b.y + dt * b.vy;
            b.z = b.z + dt * b.vz;
            v[i] = b;
        }
        for (int i = 0; i < N; i++)
            u[i] = v[i];
    }
    double kin = 0, pot = 0;
    for (int i = 0; i < N; i++)
        kin += 0.5 * u[i].m * (u[i].vx * u[i].vx + u[i].vy * u[i].vy + u[i].vz * u[i].vz);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            pot += u[i].m * u[j].m / dist(&u[i], &u[j]);
    printf("%.9f\n", kin - pot);
    return 0;
}
