/*
 * arena.h: bump allocation for data that dies all at once (ASTs, graphs).
 *
 * An FxArena hands out zeroed, 16-byte aligned blocks from chunks it owns;
 * fx_arena_free releases every block at once. There is no per-object free.
 * Test builds (FX_SMALL_CHUNKS) use tiny chunks so that code which keeps a
 * pointer across a chunk boundary by mistake is caught early (as Lua does).
 */
#ifndef FX_ARENA_H
#define FX_ARENA_H

#include "base.h"

typedef struct FxArenaChunk FxArenaChunk;

typedef struct FxArena {
    FxArenaChunk *head;
} FxArena;

/* Returns `size` zeroed bytes owned by the arena. */
void *fx_arena_alloc(FxArena *a, size_t size);
char *fx_arena_strndup(FxArena *a, const char *s, size_t len);
char *fx_arena_strdup(FxArena *a, const char *s);
void fx_arena_free(FxArena *a);

#define FX_NEW(arena, T) ((T *)fx_arena_alloc((arena), sizeof(T)))

#endif
