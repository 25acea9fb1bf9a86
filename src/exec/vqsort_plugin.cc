// vqsort_plugin.cc: the plugin libflux_vqsort.so of vqsort.h: the only object that
// links Highway.
#include "vqsort.h"

#include <stdint.h>
#include <string.h>

#include "hwy/contrib/sort/vqsort.h"

namespace {

// A Sorter holds a buffer that a sort uses, so one a thread: the kernels
// are called from many threads at once.
const hwy::Sorter &sorter()
{
    static thread_local hwy::Sorter s;
    return s;
}

const uint64_t kSignBit = uint64_t{1} << 63;

void sort_i64(int64_t *a, size_t n, bool descending)
{
    if (n < 2)
        return;
    if (descending)
        sorter()(a, n, hwy::SortDescending());
    else
        sorter()(a, n, hwy::SortAscending());
}

// A pair becomes the 128-bit number (hi: the key, made unsigned by
// flipping its sign bit, all its bits flipped for descending; lo: the
// index), so that ascending 128-bit order is the key's order, then the
// input's. The conversion is in place (both are 16 bytes), through memcpy,
// which lets the two types share the memory.
bool sort_pairs(FxSortPair *p, size_t n, bool descending)
{
    static_assert(sizeof(FxSortPair) == sizeof(hwy::uint128_t), "a pair is 128 bits");
    if (n < 2)
        return true;
    if (reinterpret_cast<uintptr_t>(p) % alignof(hwy::uint128_t) != 0)
        return false;
    for (size_t i = 1; i < n; i++)
        if (p[i].index <= p[i - 1].index)
            return false;
    uint64_t flip = descending ? ~kSignBit : kSignBit;
    hwy::uint128_t *u = reinterpret_cast<hwy::uint128_t *>(p);
    for (size_t i = 0; i < n; i++) {
        hwy::uint128_t x = {p[i].index, static_cast<uint64_t>(p[i].key) ^ flip};
        memcpy(&u[i], &x, sizeof x);
    }
    sorter()(u, n, hwy::SortAscending());
    for (size_t i = 0; i < n; i++) {
        hwy::uint128_t x;
        memcpy(&x, &u[i], sizeof x);
        FxSortPair y = {static_cast<int64_t>(x.hi ^ flip), x.lo};
        memcpy(&p[i], &y, sizeof y);
    }
    return true;
}

const FxVqsortPlugin kPlugin = {FX_VQSORT_PLUGIN_VERSION, sort_i64, sort_pairs};

} // namespace

extern "C" __attribute__((visibility("default"))) const FxVqsortPlugin *fx_vqsort_plugin(void)
{
    return &kPlugin;
}
