/*
 * program.h: loading a program: a root file, the files it imports, and the
 * prelude, each parsed into an FxModule and checked together (the program
 * itself, as the layers above read it, is resolved.h's).
 */
#ifndef FX_PROGRAM_H
#define FX_PROGRAM_H

#include "resolved.h"

/* Reads, parses and checks `path` with its imports and the prelude. Problems
 * are reported to d. Returns the program (never NULL) for inspection even
 * when there are errors; check fx_diag_errors(d). Caller frees with
 * fx_program_free(). `options` may be NULL for the defaults. */
typedef struct FxCheckOptions {
    unsigned smt_timeout_ms; /* per query; 0 for the default */
    bool skip_smt;           /* types only: no contradiction or property proofs */
    /* The solver's part remembered (check_memo.h), when salt names the
     * checker's build: recall returns the memo kept under a key (malloc'd)
     * or NULL; the program's check_key and check_memo say what to keep. */
    const char *salt;
    char *(*recall)(void *ctx, const char *key);
    void *recall_ctx;
} FxCheckOptions;

FxProgram *fx_program_load(FxDiag *d, const char *path, const FxCheckOptions *options);
/* The same from text in memory (for the fuzzer, the REPL and tests). */
FxProgram *fx_program_load_text(FxDiag *d, const char *name, const char *text, size_t len,
                                const FxCheckOptions *options);

void fx_program_free(FxProgram *prog);

/* The prelude's source text, embedded at build time. */
extern const char fx_prelude_source[];
extern const unsigned long fx_prelude_source_len;

/* The standard library, the modules of lib/std/, embedded (tools/embed.c --modules):
 * `import std.NAME` reads the module NAME. */
typedef struct FxEmbedded {
    const char *name, *text;
    unsigned long len;
} FxEmbedded;
extern const FxEmbedded fx_stdlib[];
extern const unsigned long fx_stdlib_count;

#endif
