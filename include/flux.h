/*
 * flux.h: the public C API of Flux, for embedders (the CLI, the web server
 * and language bindings are its clients).
 *
 * Everything returns an exit-code-like status (FLUX_OK, ...) that matches
 * the `flux` command's exit codes, so a client can pass it straight through.
 * Diagnostics are written to the FILE the caller names, in the form
 * `FILE:LINE:COL: error: message` with the source line and a caret.
 *
 * This header is self-contained. Inside src/, only src/api/api.c (its
 * implementation) includes it.
 */
#ifndef FLUX_H
#define FLUX_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLUX_API __attribute__((visibility("default")))

enum {
    FLUX_OK = 0,
    FLUX_ERR_RUNTIME = 1,  /* a run-time error, a budget exceeded, a bad data file */
    FLUX_ERR_USAGE = 2,    /* a malformed request */
    FLUX_ERR_REJECTED = 3, /* the program is rejected: syntax, types, contradictions, false properties */
    FLUX_ERR_STORE = 4,    /* the store is unusable */
};

typedef struct FluxProgram FluxProgram;

typedef struct FluxLoadOptions {
    unsigned smt_timeout_ms; /* per solver query; 0 for the default (2000) */
    int types_only;          /* nonzero: skip the solver checks */
} FluxLoadOptions;

/* Reads, parses and checks the .flux file at `path` (with its imports and
 * the prelude). Writes every diagnostic to `diagnostics` (NULL: discard).
 * Returns FLUX_OK, or FLUX_ERR_REJECTED when there were errors, or
 * FLUX_ERR_USAGE when the file can't be read. On FLUX_OK, *out is a new
 * program that the caller frees with flux_program_free(); otherwise NULL.
 * options may be NULL. */
FLUX_API int flux_program_load(const char *path, const FluxLoadOptions *options,
                               FILE *diagnostics, FluxProgram **out);

/* Warnings reported while loading. */
FLUX_API size_t flux_program_warnings(const FluxProgram *prog);

/* Writes a readable summary of what Flux understood of the program: each
 * intent, how its result is constructed, and each property's verdict. */
FLUX_API void flux_program_describe(const FluxProgram *prog, FILE *out);

FLUX_API void flux_program_free(FluxProgram *prog);

/* "0.1.0" */
FLUX_API const char *flux_version(void);

#ifdef __cplusplus
}
#endif

#endif
