/*
 * index.h: a key to a number, by open addressing: strings compared by their
 * text, or pointers by their address. The index borrows the keys; they must
 * outlive it. Used where a runtime looks a function up by its intent's name
 * or its graph, once per call of a program of thousands of intents.
 */
#ifndef FX_BASE_INDEX_H
#define FX_BASE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#define FX_INDEX_NONE UINT32_MAX

typedef struct FxIndex {
    const void **keys; /* NULL: an empty slot */
    uint32_t *values;
    uint32_t cap, n;   /* cap a power of two, or 0 */
    bool strings;      /* keys are NUL-terminated strings, else addresses */
} FxIndex;

/* Sets key's value (a new key, or a new value for one there). */
void fx_index_put(FxIndex *x, const void *key, uint32_t value);
/* key's value, or FX_INDEX_NONE. */
uint32_t fx_index_get(const FxIndex *x, const void *key);
void fx_index_free(FxIndex *x);

#endif
