/*
 * diag.h: source files, spans, and diagnostics with positions.
 *
 * Every token, AST node and graph node carries an FxSpan: the source it came
 * from and a byte range in it. Stages report problems with fx_diag_error and
 * keep going; a stage stops at its boundary when fx_diag_errors() > 0. The
 * collected diagnostics are rendered once, sorted by position, in the form
 * compilers use:
 *
 *     fib.flux:3:15: error: unknown type `Nat`
 *         3 |     intent f(n: Nat) -> Int:
 *           |                 ^~~
 *
 * Lines are 1-based; columns are 1-based and count Unicode code points, so a
 * caret lands under the right character in a UTF-8 terminal.
 */
#ifndef FX_DIAG_H
#define FX_DIAG_H

#include <stdio.h>

#include "base.h"

typedef struct FxSource {
    char *path;       /* as the user named it; used in messages */
    char *text;       /* NUL-terminated contents */
    size_t len;
    uint32_t *line_starts; /* byte offset of each line */
    size_t n_lines;
    uint32_t *cols; /* the column of every FX_DIAG_COL_STEP-th byte: positions in O(1) */
} FxSource;

#define FX_DIAG_COL_STEP 64

typedef struct FxSpan {
    const FxSource *src; /* NULL for a span with no position (e.g. command line) */
    uint32_t offset, len;
} FxSpan;

typedef enum { FX_DIAG_ERROR, FX_DIAG_WARNING, FX_DIAG_NOTE } FxDiagLevel;

typedef struct FxDiagItem {
    FxDiagLevel level;
    FxSpan span;
    char *message;
    size_t seq;           /* emission order, to keep sorting stable */
    struct FxDiagItem *notes; /* notes attached to this item, in order */
    struct FxDiagItem *next_note;
} FxDiagItem;

typedef struct FxDiag {
    FX_VEC(FxDiagItem *) items;
    FX_VEC(FxSource *) sources; /* owned */
    size_t n_errors, n_warnings;
    size_t seq;
} FxDiag;

/* Reads a file into a new FxSource owned by d. Returns NULL (and reports
 * an error without position) when it can't be read. */
FxSource *fx_diag_load_file(FxDiag *d, const char *path);
/* Makes a source from memory (copied), owned by d. */
FxSource *fx_diag_add_source(FxDiag *d, const char *path, const char *text, size_t len);

/* Report an error/warning at span. Returns the item, so that notes can be
 * attached with fx_diag_note. */
FxDiagItem *fx_diag_error(FxDiag *d, FxSpan span, const char *fmt, ...) FX_PRINTF(3, 4);
FxDiagItem *fx_diag_warning(FxDiag *d, FxSpan span, const char *fmt, ...) FX_PRINTF(3, 4);
void fx_diag_note(FxDiag *d, FxDiagItem *parent, FxSpan span, const char *fmt, ...)
        FX_PRINTF(4, 5);

size_t fx_diag_errors(const FxDiag *d);
size_t fx_diag_warnings(const FxDiag *d);

/* 1-based line and column of a byte offset. */
void fx_diag_position(const FxSource *src, uint32_t offset, size_t *out_line, size_t *out_col);

/* Prints every diagnostic, sorted by source and position, with the source
 * line and a caret under the span. */
void fx_diag_render(const FxDiag *d, FILE *out);

/* Every diagnostic as a new JSON array of error records (error.h), in the
 * order fx_diag_render prints them, each with "level": "error", "warning"
 * or "note", its notes under "notes" (caller releases with json_decref). */
struct json_t *fx_diag_json(const FxDiag *d);

/* A span covering a through b (same source; b after a). */
FxSpan fx_span_join(FxSpan a, FxSpan b);

void fx_diag_free(FxDiag *d);

#endif
