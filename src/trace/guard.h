/*
 * guard.h: what the store looks at before it changes anything (guard.c):
 * the first bytes of flux.db, a read-only connection that writes nothing
 * beside it, the stamp its files had when the last flux process closed the
 * store, and a bounded integrity check.
 */
#ifndef FX_TRACE_GUARD_H
#define FX_TRACE_GUARD_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* What flux.db's first bytes say. */
typedef struct FxDbHead {
    bool exists;    /* a file of at least one byte */
    bool is_sqlite; /* starting with SQLite's magic string */
} FxDbHead;
FxDbHead fx_guard_head(const char *db_path);

/* Opens db_path read-only so that nothing beside it is made or changed
 * (exec/data.h, fx_data_sqlite_uri); SQLite's code, *out to close even on
 * failure. The connection never checkpoints at close. */
int fx_guard_open_reader(const char *db_path, sqlite3 **out);

/* The stamp of DIR/flux.db and DIR/flux.db-wal now (identity, size,
 * modification and change times) and the schema version this flux writes,
 * as text; caller frees. */
char *fx_guard_stamp(const char *dir);
/* Whether DIR/closed holds stamp: the files are as a flux process of this
 * schema left them when it closed the store. */
bool fx_guard_closed_as(const char *dir, const char *stamp);
/* Whether another process has DIR/flux.db open now (its shared memory's
 * lock): its writes explain stamps that differ. */
bool fx_guard_in_use(const char *dir);
/* Writes stamp into DIR/closed with the newest execution id recorded then
 * (-1: none said), a failure only costing the next open a check;
 * fx_guard_forget removes it, so that the next open checks. */
void fx_guard_mark_closed(const char *dir, const char *stamp, int64_t last_execution);
/* The newest execution id DIR/closed says was recorded when a flux
 * process last closed the store, or -1 (no marker, or an older flux's). */
int64_t fx_guard_last_execution(const char *dir);
void fx_guard_forget(const char *dir);

/* PRAGMA integrity_check, stopped after `seconds`: SQLITE_OK when it found
 * nothing (in all, or in what it read in time), SQLITE_CORRUPT with the
 * first problem in msg, or the error that stopped it. */
int fx_guard_integrity(sqlite3 *db, double seconds, char *msg, size_t len);

#endif
