/* examples/particles.flux's step, written again in C: the same operations
 * in the same order; the forces of each particle summed over the others
 * in index order (the 9 cells' lists, ascending each, merged), visiting
 * the particles of the 9 cells of side 0.0201 around its own (the others are farther than 0.02, where the force is
 * the literal 0.0, and adding 0.0 to a sum that starts at +0.0 changes no
 * bit). Prints x y vx vy of each particle, %a. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double x, y, vx, vy; } P;

static double dist2(P p, P q) { return (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y); }
static double overlap(P p, P q)
{
    return dist2(p, q) > 0.0 && dist2(p, q) < 0.0004 ? 0.02 - sqrt(dist2(p, q)) : 0.0;
}
static double force_x(P p, P q)
{
    return overlap(p, q) > 0.0 ? 50.0 * overlap(p, q) * (p.x - q.x) / sqrt(dist2(p, q)) : 0.0;
}
static double force_y(P p, P q)
{
    return overlap(p, q) > 0.0 ? 50.0 * overlap(p, q) * (p.y - q.y) / sqrt(dist2(p, q)) : 0.0;
}
static double reflect(double c) { return c < 0.0 ? 0.0 - c : c > 1.0 ? 2.0 - c : c; }
static int outside(double c) { return c < 0.0 || c > 1.0; }

int main(int argc, char **argv)
{
    long n = atol(argv[1]), steps = atol(argv[2]);
    double dt = 0.01, side = 0.0201;
    P *ps = malloc(n * sizeof(P)), *next = malloc(n * sizeof(P));
    for (long i = 0; i < n; i++)
        ps[i] = (P){(double)((i * 7919) % 1000) / 1000.0, (double)((i * 104729) % 997) / 997.0,
                    (double)(i % 13) / 13.0 - 0.5, (double)(i % 7) / 7.0 - 0.5};
    long *cand = malloc(n * sizeof(long));
    for (long s = 0; s < steps; s++) {
        double lo = 1e300, hi = -1e300;
        for (long i = 0; i < n; i++) {
            lo = fmin(lo, fmin(ps[i].x, ps[i].y));
            hi = fmax(hi, fmax(ps[i].x, ps[i].y));
        }
        long m = (long)((hi - lo) / side) + 1;
        long *count = calloc(m * m + 1, sizeof(long)), *item = malloc(n * sizeof(long));
        long *cell = malloc(n * sizeof(long));
        for (long i = 0; i < n; i++) {
            long cx = (long)((ps[i].x - lo) / side), cy = (long)((ps[i].y - lo) / side);
            cell[i] = cx * m + cy;
            count[cell[i] + 1]++;
        }
        for (long c = 0; c < m * m; c++)
            count[c + 1] += count[c];
        long *at = malloc((m * m + 1) * sizeof(long));
        for (long c = 0; c <= m * m; c++)
            at[c] = count[c];
        for (long i = 0; i < n; i++)
            item[at[cell[i]]++] = i;
        for (long i = 0; i < n; i++) {
            P p = ps[i];
            long cx = cell[i] / m, cy = cell[i] % m, k = 0, cur[9], end[9], nc = 0;
            for (long a = cx - 1; a <= cx + 1; a++)
                for (long b = cy - 1; b <= cy + 1; b++)
                    if (a >= 0 && a < m && b >= 0 && b < m) {
                        cur[nc] = count[a * m + b];
                        end[nc++] = count[a * m + b + 1];
                    }
            for (;;) {
                long best = -1, at = -1;
                for (long c = 0; c < nc; c++)
                    if (cur[c] < end[c] && (best < 0 || item[cur[c]] < best))
                        best = item[cur[c]], at = c;
                if (at < 0)
                    break;
                cur[at]++;
                cand[k++] = best;
            }
            double fx = 0, fy = 0;
            for (long j = 0; j < k; j++)
                fx = fx + force_x(p, ps[cand[j]]);
            for (long j = 0; j < k; j++)
                fy = fy + force_y(p, ps[cand[j]]);
            P q = {p.x, p.y, p.vx + dt * fx, p.vy + dt * fy};
            q.x = q.x + q.vx * dt;
            q.y = q.y + q.vy * dt;
            next[i] = (P){reflect(q.x), reflect(q.y), outside(q.x) ? 0.0 - q.vx : q.vx,
                          outside(q.y) ? 0.0 - q.vy : q.vy};
        }
        P *t = ps;
        ps = next;
        next = t;
        free(count), free(item), free(cell), free(at);
    }
    for (long i = 0; i < n; i++)
        printf("%a %a %a %a\n", ps[i].x, ps[i].y, ps[i].vx, ps[i].vy);
    return 0;
}
