/* fannkuch-redux with bench/user/fannkuch.flux's algorithm: each
 * permutation made afresh from its number (idx in the factorial number
 * system: digit k, from n - 1 down to 1, rotates the first k + 1 elements
 * left by it), then its flips counted on it. The same order, checksum and
 * output as the game's (bench/game/fannkuch_redux.c). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 7;
    long fact[16] = {1};
    for (int k = 1; k < 16; k++)
        fact[k] = fact[k - 1] * k;
    long checksum = 0;
    int max_flips = 0, p[16], t[16];
    for (long idx = 0; idx < fact[n]; idx++) {
        for (int i = 0; i < n; i++)
            p[i] = i;
        long rest = idx;
        for (int k = n - 1; k > 0; k--) {
            int d = (int)(rest / fact[k]);
            rest %= fact[k];
            for (int i = d; i <= k; i++) /* p[d..k+1] ++ p[0..d] */
                t[i - d] = p[i];
            for (int i = 0; i < d; i++)
                t[k + 1 - d + i] = p[i];
            for (int i = 0; i <= k; i++)
                p[i] = t[i];
        }
        int flips = 0;
        while (p[0] != 0) {
            for (int i = 0, j = p[0]; i < j; i++, j--) {
                int s = p[i];
                p[i] = p[j];
                p[j] = s;
            }
            flips++;
        }
        if (flips > max_flips)
            max_flips = flips;
        checksum += idx % 2 == 0 ? flips : -flips;
    }
    printf("%ld\nPfannkuchen(%d) = %d\n", checksum, n, max_flips);
    return 0;
}
