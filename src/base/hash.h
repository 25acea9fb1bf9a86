/*
 * hash.h: the one hash of Flux, 64-bit FNV-1a: stable across runs and
 * machines (it names stored texts and proof obligations), cheap, and not
 * cryptographic. fx_fnv_step folds one unit (a byte, or a whole word that a
 * caller has already mixed) into a running hash; fx_fnv1a folds bytes.
 */
#ifndef FX_HASH_H
#define FX_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FX_FNV_BASIS 0xcbf29ce484222325ULL
#define FX_FNV_PRIME 0x100000001b3ULL

static inline uint64_t fx_fnv_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * FX_FNV_PRIME;
}

/* The len bytes at data folded into h (FX_FNV_BASIS to start). */
static inline uint64_t fx_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = fx_fnv_step(h, p[i]);
    return h;
}

#endif
