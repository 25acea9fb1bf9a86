// sort_std.cpp: the C++ baselines for bench/sort.c (std::sort,
// std::stable_sort, Highway's vqsort called directly), behind C names.
// Built with g++; see bench/sort.c.
#include <algorithm>
#include <functional>

#include "hwy/contrib/sort/vqsort.h"

extern "C" {
#include "exec/sortk.h"

void bench_std_sort(int64_t *a, size_t n, bool descending);
void bench_std_stable_sort(FxSortPair *p, size_t n, bool descending);
void bench_hwy_vqsort(int64_t *a, size_t n, bool descending);
}

void bench_hwy_vqsort(int64_t *a, size_t n, bool descending)
{
    static hwy::Sorter sorter;
    if (descending)
        sorter(a, n, hwy::SortDescending());
    else
        sorter(a, n, hwy::SortAscending());
}

void bench_std_sort(int64_t *a, size_t n, bool descending)
{
    if (descending)
        std::sort(a, a + n, std::greater<int64_t>());
    else
        std::sort(a, a + n);
}

void bench_std_stable_sort(FxSortPair *p, size_t n, bool descending)
{
    if (descending)
        std::stable_sort(p, p + n,
                         [](const FxSortPair &x, const FxSortPair &y) { return x.key > y.key; });
    else
        std::stable_sort(p, p + n,
                         [](const FxSortPair &x, const FxSortPair &y) { return x.key < y.key; });
}
