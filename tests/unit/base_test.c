/*
 * base_test.c: what src/base/ gives every layer: the one hash (FNV-1a, with
 * its published test vectors), the one general stable sort, and the error
 * record with its JSON form.
 */
#include <stdlib.h>

#include "base/hash.h"
#include "base/sort.h"
#include "fx_test.h"

FX_TEST(fnv1a_matches_the_published_vectors)
{
    EXPECT(fx_fnv1a(FX_FNV_BASIS, "", 0) == 0xcbf29ce484222325ULL);
    EXPECT(fx_fnv1a(FX_FNV_BASIS, "a", 1) == 0xaf63dc4c8601ec8cULL);
    EXPECT(fx_fnv1a(FX_FNV_BASIS, "foobar", 6) == 0x85944171f73967e8ULL);
    /* folding in pieces is folding the whole */
    EXPECT(fx_fnv1a(fx_fnv1a(FX_FNV_BASIS, "foo", 3), "bar", 3) ==
           fx_fnv1a(FX_FNV_BASIS, "foobar", 6));
}

typedef struct Item {
    int key, order; /* order: where it was, to see stability */
} Item;

static int by_key(void *ctx, const void *a, const void *b)
{
    int ka = ((const Item *)a)->key, kb = ((const Item *)b)->key;
    if (ctx && (ka < 0 || kb < 0))
        return FX_SORT_UNORDERED;
    return (ka > kb) - (ka < kb);
}

FX_TEST(merge_sort_is_stable_for_every_length)
{
    for (size_t n = 0; n < 70; n++) {
        Item *it = malloc((n + 1) * sizeof(Item));
        for (size_t i = 0; i < n; i++)
            it[i] = (Item){(int)((i * 7919) % 5), (int)i};
        EXPECT(fx_merge_sort(it, n, sizeof(Item), by_key, NULL));
        for (size_t i = 1; i < n; i++) {
            EXPECT(it[i - 1].key <= it[i].key);
            if (it[i - 1].key == it[i].key)
                EXPECT(it[i - 1].order < it[i].order);
        }
        free(it);
    }
}

FX_TEST(merge_sort_stops_on_elements_without_an_order)
{
    Item it[9];
    for (int i = 0; i < 9; i++)
        it[i] = (Item){i == 6 ? -1 : 9 - i, i};
    EXPECT(!fx_merge_sort(it, 9, sizeof(Item), by_key, &(int){1}));
    int seen = 0; /* still a permutation of what it held */
    for (int i = 0; i < 9; i++)
        seen |= 1 << it[i].order;
    EXPECT_EQ(seen, 0x1ff);
}

int main(void)
{
    return fx_test_run();
}
