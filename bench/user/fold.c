/* bench/user/fold.flux in C. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long long n = argc > 1 ? atoll(argv[1]) : 1000000, s = 0;
    for (long long i = 0; i < n; i++)
        s += (i * i) % 7 * (i % 3) + i / 5;
    printf("%lld\n", s);
    return 0;
}
