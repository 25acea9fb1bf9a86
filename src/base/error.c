/*
 * error.c: the error record (error.h) and its JSON form, built with
 * jansson like every JSON Flux writes.
 */
#include "error.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

void fx_error_set(FxError *e, FxStatus status, const char *fmt, ...)
{
    fx_error_clear(e);
    e->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
}

void fx_error_clear(FxError *e)
{
    e->status = FX_OK;
    e->message[0] = '\0';
    e->file = e->graph = NULL;
    e->line = e->col = e->len = e->node = 0;
}

void fx_error_at_span(FxError *e, FxSpan span)
{
    if (!span.src)
        return;
    size_t line, col;
    fx_diag_position(span.src, span.offset, &line, &col);
    e->file = span.src->path;
    e->line = (uint32_t)line;
    e->col = (uint32_t)col;
    e->len = span.len;
}

const char *fx_status_name(FxStatus s)
{
    switch (s) {
    case FX_OK: return "ok";
    case FX_ERR_RUNTIME: return "runtime";
    case FX_ERR_USAGE: return "usage";
    case FX_ERR_REJECTED: return "rejected";
    case FX_ERR_STORE: return "store";
    }
    return "unknown";
}

json_t *fx_error_json(const FxError *e)
{
    json_t *j = json_pack("{s:s, s:i, s:s}", "status", fx_status_name(e->status), "code",
                          (int)e->status, "message", e->message);
    if (e->file)
        json_object_set_new(j, "at",
                            json_pack("{s:s, s:i, s:i, s:i}", "file", e->file, "line", (int)e->line,
                                      "col", (int)e->col, "len", (int)e->len));
    if (e->graph)
        json_object_set_new(j, "node", json_pack("{s:s, s:i}", "graph", e->graph, "id",
                                                 (int)e->node));
    return j;
}
