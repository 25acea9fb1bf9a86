/*
 * hash.h: the one hash of Flux, 64-bit FNV-1a: stable across runs and
 * machines (it names stored texts and proof obligations), cheap, and not
 * cryptographic. fx_fnv_step folds one unit (a byte, or a whole word that a
 * caller has already mixed) into a running hash; fx_fnv1a folds bytes;
 * fx_mix64 mixes a word.
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

/* A word's bits spread over all 64 (splitmix64's finalizer): for hashes
 * of values and blocks built a word at a time. */
static inline uint64_t fx_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
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
