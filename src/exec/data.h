/*
 * data.h: loading `data` sources: CSV files with a header, and SQLite
 * tables (`"file.db:table"`), into a list of records typed by the declared
 * record type.
 */
#ifndef FX_DATA_H
#define FX_DATA_H

#include <stdbool.h>
#include <time.h>

#include "exec/value.h"
#include "lang/ast.h"

/* Loads the source of dd (its resolved_path, relative to the declaring
 * file) into a new list of records. On failure returns FX_ERR_RUNTIME with
 * err set: a message naming the file, the line and the column or field,
 * placed at the `data` declaration. root: NULL, or a folder (a real path)
 * that the file, its symlinks followed, must lie in (fx_data_outside). */
FxStatus fx_data_load(const FxDataDecl *dd, const char *root, FxValue *out,
                      FxError *err) FX_MUST_CHECK;

/* The real path of the folder that holds `file`; NULL when it cannot be
 * resolved. Caller frees. */
char *fx_data_folder(const char *file);

/* NULL when the file of dd's source, its symlinks followed, lies in the
 * folder root (a real path) or below it, or cannot be found; else where it
 * lies, as a real path (caller frees). A file that does not exist yet is
 * placed by its folder's real path. */
char *fx_data_outside(const FxDataDecl *dd, const char *root);

/* The URI (sqlite3_open_v2 with SQLITE_OPEN_URI | SQLITE_OPEN_READONLY)
 * that reads the SQLite database at path without writing anything beside
 * it: `immutable=1` (set in *immutable) for a WAL-mode database whose log
 * is absent or empty, as a read-only connection would make the log and the
 * shared memory, else `mode=ro` (data.c, DESIGN). Caller frees. */
char *fx_data_sqlite_uri(const char *path, bool *immutable);

/* What a source's file looked like when read: its identity, size and
 * modification and change times, and for an SQLite source the same of its
 * write-ahead log. A write sets the change time to the clock, which no one
 * can set back, so an equal stamp means an unchanged file, except within
 * the clock's tick of the stamp (file times are kept to a coarse clock):
 * a file changed that recently is "racy" and also stamped by a hash of its
 * bytes, which must match too. */
typedef struct FxFileStamp {
    bool exists, racy, hashed; /* racy implies hashed */
    unsigned long long dev, ino;
    long long size;
    struct timespec mtime, ctime;
    uint64_t hash; /* hashed: of the bytes */
} FxFileStamp;

typedef struct FxDataStamp {
    FxFileStamp file, wal;
} FxDataStamp;

/* The stamp of dd's file now. */
FxDataStamp fx_data_stamp(const FxDataDecl *dd);
/* The same, to compare with THEN: a file racy in THEN is hashed now even
 * when it has aged since, or an unchanged file would look changed. */
FxDataStamp fx_data_stamp_against(const FxDataDecl *dd, const FxDataStamp *then);
/* Equal stamps: the same file, the same times and size, and where either
 * is racy, the same bytes. */
bool fx_data_stamp_equal(const FxDataStamp *a, const FxDataStamp *b);

#endif
