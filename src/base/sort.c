/*
 * sort.c: a bottom-up merge sort through one buffer: each pass merges runs
 * of width w from one array into the other, so an element moves once a
 * pass; the result is copied back when it ends in the buffer.
 */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "base.h"

/* One element moved; the sizes callers use are copied inline. */
static inline void move(char *dst, const char *src, size_t size)
{
    switch (size) {
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    case 24: memcpy(dst, src, 24); break;
    default: memcpy(dst, src, size); break;
    }
}

bool fx_merge_sort(void *base, size_t n, size_t size, FxSortCompare cmp, void *ctx)
{
    if (n < 2)
        return true;
    char *src = base, *dst = fx_xmalloc(n * size), *buf = dst;
    bool ok = true;
    for (size_t w = 1; ok && w < n; w *= 2) {
        for (size_t lo = 0; ok && lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int c = cmp(ctx, src + j * size, src + i * size);
                if (c == FX_SORT_UNORDERED) {
                    ok = false;
                    break;
                }
                size_t from = c < 0 ? j++ : i++; /* strictly: equal keys stay in order */
                move(dst + k++ * size, src + from * size, size);
            }
            memcpy(dst + k * size, src + i * size, (mid - i) * size);
            memcpy(dst + (k + mid - i) * size, src + j * size, (hi - j) * size);
        }
        if (ok) { /* the merged pass becomes the source of the next */
            char *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != base) /* src holds a whole permutation, sorted or not */
        memcpy(base, src, n * size);
    free(buf);
    return ok;
}
