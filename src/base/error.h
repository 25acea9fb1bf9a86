/*
 * error.h: the one error record of Flux.
 *
 * Every layer reports a failure the same way: a status (base.h's FxStatus,
 * whose values are the public FLUX_* codes and the `flux` command's exit
 * codes), a message a person reads, and where it happened when that is
 * known: a place in the source (file, line, column, length) and, for an
 * error found while running, the graph and node that failed. The parts a
 * layer does not know stay empty: a value operation fills the message, the
 * executor adds the node and its source place. fx_error_json turns a
 * record into the JSON object a web API returns:
 *
 *   {"status": "runtime", "code": 1, "message": "...",
 *    "at": {"file": "fib.flux", "line": 3, "col": 15, "len": 3},
 *    "node": {"graph": "fib", "id": 12}}
 *
 * ("at" and "node" are present only when known). A program's diagnostics
 * become an array of such objects through fx_diag_json (diag.h).
 */
#ifndef FX_ERROR_H
#define FX_ERROR_H

#include "base.h"
#include "diag.h"

typedef struct json_t json_t; /* jansson's */

typedef struct FxError {
    FxStatus status;        /* FX_OK: no error */
    char message[1024];     /* as the CLI prints it; "" when none */
    const char *file;       /* the source place (borrowed), or NULL */
    uint32_t line, col, len; /* 1-based line and column; len 0: unknown */
    const char *graph;      /* the graph (its intent) whose node failed (borrowed), or NULL */
    uint32_t node;          /* that node's id in it; 0: none */
} FxError;

/* Sets a whole record: status and message, with no place. */
void fx_error_set(FxError *e, FxStatus status, const char *fmt, ...) FX_PRINTF(3, 4);
/* Clears it to "no error". */
void fx_error_clear(FxError *e);
/* Places it at a span of a source (no change for a span without one). */
void fx_error_at_span(FxError *e, FxSpan span);

/* "ok", "runtime", "usage", "rejected" or "store". */
const char *fx_status_name(FxStatus s);

/* The record as a new JSON object (caller releases with json_decref). */
json_t *fx_error_json(const FxError *e);

#endif
