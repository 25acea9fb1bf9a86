/*
 * index.c: see index.h. Linear probing, grown to keep the table at most
 * half full.
 */
#include "base/index.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/hash.h"

static uint64_t hash_of(const FxIndex *x, const void *key)
{
    return x->strings ? fx_fnv1a(FX_FNV_BASIS, key, strlen(key))
                      : fx_mix64((uint64_t)(uintptr_t)key);
}

static bool same(const FxIndex *x, const void *a, const void *b)
{
    return x->strings ? strcmp(a, b) == 0 : a == b;
}

/* The slot of key, or the empty slot where it would go. */
static uint32_t slot(const FxIndex *x, const void *key)
{
    uint32_t mask = x->cap - 1, i = (uint32_t)hash_of(x, key) & mask;
    while (x->keys[i] && !same(x, x->keys[i], key))
        i = (i + 1) & mask;
    return i;
}

static void grow(FxIndex *x)
{
    FxIndex old = *x;
    x->cap = old.cap ? 2 * old.cap : 64;
    x->keys = fx_xcalloc(x->cap, sizeof(*x->keys));
    x->values = fx_xcalloc(x->cap, sizeof(*x->values));
    for (uint32_t i = 0; i < old.cap; i++) {
        if (!old.keys[i])
            continue;
        uint32_t j = slot(x, old.keys[i]);
        x->keys[j] = old.keys[i];
        x->values[j] = old.values[i];
    }
    free(old.keys);
    free(old.values);
}

void fx_index_put(FxIndex *x, const void *key, uint32_t value)
{
    if (2 * (x->n + 1) > x->cap)
        grow(x);
    uint32_t i = slot(x, key);
    x->n += x->keys[i] == NULL;
    x->keys[i] = key;
    x->values[i] = value;
}

uint32_t fx_index_get(const FxIndex *x, const void *key)
{
    if (!x->cap || !key)
        return FX_INDEX_NONE;
    uint32_t i = slot(x, key);
    return x->keys[i] ? x->values[i] : FX_INDEX_NONE;
}

void fx_index_free(FxIndex *x)
{
    free(x->keys);
    free(x->values);
    x->keys = NULL;
    x->values = NULL;
    x->cap = x->n = 0;
}
