/*
 * arena.c: a linked list of chunks, newest first. A request larger than the
 * default chunk gets a chunk of its own, so large blocks waste nothing.
 */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

#ifdef FX_SMALL_CHUNKS
#define CHUNK_SIZE 256
#else
#define CHUNK_SIZE (64 * 1024)
#endif

struct FxArenaChunk {
    FxArenaChunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *fx_arena_alloc(FxArena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    FxArenaChunk *c = a->head;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = fx_xmalloc(sizeof(*c) + cap);
        c->used = 0;
        c->cap = cap;
        c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *fx_arena_strndup(FxArena *a, const char *s, size_t len)
{
    char *p = fx_arena_alloc(a, len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *fx_arena_strdup(FxArena *a, const char *s)
{
    return fx_arena_strndup(a, s, strlen(s));
}

void fx_arena_free(FxArena *a)
{
    FxArenaChunk *c = a->head;
    while (c) {
        FxArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}
