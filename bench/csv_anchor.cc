// csv_anchor.cc: the C anchor of bench/csv.sh, and the generator of its input.
//
//   csv_anchor gen FILE N     writes FILE: a header `x` and N random int64
//                             over the full range, one a line (splitmix64,
//                             a fixed seed)
//   csv_anchor sort FILE      reads FILE as a C programmer would (fgets and
//                             strtoll a line), sorts with Highway's vqsort
//                             and prints the middle element: what
//                             `sort(values())[N/2]` prints in Flux
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hwy/contrib/sort/vqsort.h"

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "gen")) {
        FILE *f = fopen(argv[2], "w");
        if (!f)
            return 1;
        uint64_t seed = 16, n = strtoull(argv[3], nullptr, 10);
        fputs("x\n", f);
        for (uint64_t i = 0; i < n; i++)
            fprintf(f, "%lld\n", (long long)(int64_t)next(&seed));
        return fclose(f) != 0;
    }
    if (argc != 3 || strcmp(argv[1], "sort")) {
        fprintf(stderr, "usage: csv_anchor gen FILE N | csv_anchor sort FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "r");
    char line[256];
    if (!f || !fgets(line, sizeof(line), f)) // the header
        return 1;
    std::vector<int64_t> v;
    while (fgets(line, sizeof(line), f))
        v.push_back(strtoll(line, nullptr, 10));
    fclose(f);
    hwy::Sorter sorter;
    sorter(v.data(), v.size(), hwy::SortAscending());
    printf("%lld\n", v.empty() ? 0LL : (long long)v[v.size() / 2]);
    return 0;
}
