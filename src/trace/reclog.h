/*
 * reclog.h: the record log, DIR/records.log: an append-only file of
 * checksummed frames, each an opaque payload (reclog.c). The store appends
 * a flush's executions here, which costs one write, and moves them into
 * the database in batches (store.c, "Recording").
 */
#ifndef FX_TRACE_RECLOG_H
#define FX_TRACE_RECLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct FxRecLog FxRecLog;

/* Opens DIR/records.log, creating it when `create`; *out is NULL (and the
 * status 0) when it does not exist and create is false. Returns 0 or an
 * errno. */
int fx_reclog_open(const char *dir, bool create, FxRecLog **out);
void fx_reclog_close(FxRecLog *log);

/* Appends one frame holding payload [data, data + len) to *frames (built
 * in memory, so that a flush's frames reach the file in one write). */
void fx_reclog_frame(FxBuf *frames, const void *data, size_t len);

/* Writes frames at the end of the file in one write, under a shared lock
 * (appenders run side by side; fx_reclog_lock waits for them). Returns 0
 * or an errno; a failed or short write leaves at most a torn frame, which
 * readers skip. */
int fx_reclog_append(FxRecLog *log, const FxBuf *frames);

/* The exclusive lock: no append is under way while it is held, so a frame
 * that does not check is torn for good (its writer died or failed). */
int fx_reclog_lock(FxRecLog *log);
void fx_reclog_unlock(FxRecLog *log);

/* The file's size now, or -1. */
int64_t fx_reclog_size(FxRecLog *log);

/* Calls fn on every frame that checks in [from, end of file), in order,
 * while fn returns 0 (a nonzero return stops the read and is returned).
 * *end is the offset past the last frame read, *skipped the bytes passed
 * over that held no whole frame. Returns 0, an errno, or fn's value.
 * Hold the lock: a frame being appended would look torn. */
typedef int (*FxRecLogFn)(void *ctx, const unsigned char *payload, size_t len);
int fx_reclog_read(FxRecLog *log, int64_t from, FxRecLogFn fn, void *ctx, int64_t *end,
                   int64_t *skipped);

/* Empties the file (under the lock). Returns 0 or an errno. */
int fx_reclog_truncate(FxRecLog *log);

#endif
