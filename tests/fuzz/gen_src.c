/*
 * gen_src.c: where the generator's decisions come from, and the strings it
 * builds programs in.
 *
 * A decision is a number in [0, n). From fuzz bytes it is one byte (two
 * when n > 256) modulo n, and 0 once the bytes run out; since every
 * production lists its simplest alternative first, a short input gives a
 * small program and libFuzzer's mutations of a byte change one decision.
 * From a seed it is splitmix64, which is small, fast and good enough here.
 *
 * The arena is a list of malloc'd chunks freed together: a program's
 * strings live exactly as long as its generation.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_int.h"

void gen_source_bytes(GenSource *s, const uint8_t *data, size_t len)
{
    memset(s, 0, sizeof(*s));
    s->data = data;
    s->len = len;
}

void gen_source_seed(GenSource *s, uint64_t seed)
{
    memset(s, 0, sizeof(*s));
    s->prng = true;
    s->state = seed;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t gen_choose(GenSource *s, uint32_t n)
{
    if (n <= 1)
        return 0;
    if (s->prng)
        return (uint32_t)(splitmix64(&s->state) % n);
    uint32_t v = 0;
    size_t bytes = n <= 256 ? 1 : n <= 65536 ? 2 : 4;
    for (size_t i = 0; i < bytes; i++) {
        if (s->pos >= s->len)
            return 0; // out of bytes: the simplest choice from here on
        v = (v << 8) | s->data[s->pos++];
    }
    return v % n;
}

uint32_t gx(Gen *g, uint32_t n)
{
    return gen_choose(g->src, n);
}

bool gchance(Gen *g, uint32_t one_in)
{
    return one_in <= 1 || gx(g, one_in) == 1;
}

size_t gpickw(Gen *g, const unsigned *w, size_t n)
{
    uint32_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += w[i];
    if (total == 0)
        return 0;
    uint32_t r = gx(g, total);
    for (size_t i = 0; i < n; i++) {
        if (r < w[i])
            return i;
        r -= w[i];
    }
    return n - 1;
}

const char *gfresh(Gen *g, const char *stem)
{
    return ga_printf(&g->arena, "%s%u", stem, ++g->fresh);
}

/* ---- the arena ---- */

struct GenChunk {
    GenChunk *next;
    size_t used, cap;
    max_align_t data[];
};

#define CHUNK_BYTES (64 * 1024)

void *ga_alloc(GenArena *a, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    GenChunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
        c = malloc(sizeof(*c) + cap);
        if (!c)
            abort();
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

char *ga_strdup(GenArena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = ga_alloc(a, n);
    memcpy(p, s, n);
    return p;
}

char *ga_printf(GenArena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = ga_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void ga_free(GenArena *a)
{
    for (GenChunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->head = NULL;
}

/* ---- growable strings ---- */

static void gb_reserve(GenBuf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + more + 1)
        cap *= 2;
    b->s = realloc(b->s, cap);
    if (!b->s)
        abort();
    b->cap = cap;
}

void gb_puts(GenBuf *b, const char *s)
{
    size_t n = strlen(s);
    gb_reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void gb_printf(GenBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    gb_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *gb_take(GenBuf *b)
{
    char *s = b->s ? b->s : calloc(1, 1);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}
