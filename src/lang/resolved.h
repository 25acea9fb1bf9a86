/*
 * resolved.h: a checked program as the layers above the front end read it:
 * its modules (the prelude, the root and its imports) with their checked
 * types, and the lookup of an intent by name. Loading (parsing and
 * checking) is program.h's; the executor runs a program through this
 * header alone and never reaches the parser or the checker.
 */
#ifndef FX_RESOLVED_H
#define FX_RESOLVED_H

#include "ast.h"

typedef struct FxProgram {
    FxDiag *diag;     /* borrowed: where every stage reports */
    FxModule *prelude;
    FxModule *root;
    FX_VEC(FxModule *) modules; /* every module, prelude first, root last; owned */
    FxArena arena;    /* checked types and other derived data */
    /* the solver's part of the check (check_memo.h): its key ("" when not
     * remembered), the memo to keep (malloc'd; NULL when recalled, or when
     * the program has errors), and whether it was recalled */
    char check_key[33];
    char *check_memo;
    bool check_recalled;
    /* set by the embedder: the folder (a real path) that data sources must
     * resolve inside (exec/data.h); NULL: anywhere. In arena. */
    const char *data_root;
} FxProgram;

/* The key of a prelude intent a user intent shadows: "prelude.gcd". A dot
 * is in no name a program can write. */
#define FX_PRELUDE_PREFIX "prelude."

/* The intent of that name visible from the root module (root and imports
 * first, then the prelude), or NULL. "prelude.NAME" finds the prelude's. */
const FxIntent *fx_program_find_intent(const FxProgram *prog, const char *name);

#endif
