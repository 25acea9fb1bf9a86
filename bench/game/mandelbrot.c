/* mandelbrot as the Benchmarks Game's C programs iterate it (the same
 * algorithm as examples/benchmarks/mandelbrot.flux): 50 iterations, limit
 * 2; prints the number of points of the N x N grid in the set (the
 * benchmark writes them as a PBM bitmap; `pbm` as a second argument
 * writes that instead). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200, pbm = argc > 2 && !strcmp(argv[2], "pbm");
    long count = 0;
    int bits = 0, bit = 0;
    if (pbm)
        printf("P4\n%d %d\n", n, n);
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++) {
            double zr = 0, zi = 0, tr = 0, ti = 0;
            double cr = 2.0 * x / n - 1.5, ci = 2.0 * y / n - 1.0;
            for (int i = 0; i < 50 && tr + ti <= 4.0; i++) {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
            }
            int in = tr + ti <= 4.0;
            count += in;
            bits = bits << 1 | in;
            if (++bit == 8 || x == n - 1) {
                if (pbm)
                    putchar(bits << (8 - bit));
                bits = bit = 0;
            }
        }
    }
    if (!pbm)
        printf("%ld\n", count);
    return 0;
}
