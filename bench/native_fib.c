/*
 * native_fib.c: the naive recursion of bench/fib.flux written in C, for
 * bench/native.sh to compare the native tier with (compiled there with
 * gcc -O2). Two ways of writing it: as the intent reads (two base cases),
 * and as C programmers write it (n < 2). Prints the value and the best time
 * of RUNS calls in ms, of each.
 *
 *   native_fib N RUNS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__attribute__((noinline)) static long long as_written(long long n)
{
    if (n == 0)
        return 0;
    if (n == 1)
        return 1;
    return as_written(n - 1) + as_written(n - 2);
}

__attribute__((noinline)) static long long idiomatic(long long n)
{
    return n < 2 ? n : idiomatic(n - 1) + idiomatic(n - 2);
}

int main(int argc, char **argv)
{
    volatile long long n = argc > 1 ? atoll(argv[1]) : 30; /* read at run time: nothing folds */
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    double best_a = 1e30, best_b = 1e30;
    long long a = 0, b = 0;
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms();
        a = as_written(n);
        double t1 = now_ms();
        b = idiomatic(n);
        double t2 = now_ms();
        best_a = t1 - t0 < best_a ? t1 - t0 : best_a;
        best_b = t2 - t1 < best_b ? t2 - t1 : best_b;
    }
    printf("%lld %.4f %lld %.4f\n", a, best_a, b, best_b);
    return 0;
}
