/* fannkuch-redux as the Benchmarks Game's C programs compute it (the same
 * permutation order and checksum as examples/benchmarks/fannkuch_redux.flux). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 7;
    int perm[16], perm1[16], count[16];
    int max_flips = 0, checksum = 0, r = n, index = 0;
    for (int i = 0; i < n; i++)
        perm1[i] = i;
    for (;;) {
        for (; r != 1; r--)
            count[r - 1] = r;
        for (int i = 0; i < n; i++)
            perm[i] = perm1[i];
        int flips = 0, k;
        while ((k = perm[0]) != 0) {
            for (int i = 0, j = k; i < j; i++, j--) {
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            flips++;
        }
        if (flips > max_flips)
            max_flips = flips;
        checksum += index % 2 == 0 ? flips : -flips;
        /* the next permutation: rotate the first r + 1 elements while counts run out */
        for (;;) {
            if (r == n) {
                printf("%d\nPfannkuchen(%d) = %d\n", checksum, n, max_flips);
                return 0;
            }
            int first = perm1[0];
            for (int i = 0; i < r; i++)
                perm1[i] = perm1[i + 1];
            perm1[r] = first;
            if (--count[r] > 0)
                break;
            r++;
        }
        index++;
    }
}
