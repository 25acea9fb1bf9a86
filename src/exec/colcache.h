/*
 * colcache.h: a CSV source's columns kept on disk next to the store, so
 * that a later process reads them instead of parsing the file again.
 *
 * A file `DIR/HASH.cols` per source (HASH: of the file's path and the
 * declared record type) holds the stamp the file had when it was read
 * (data.h: identity, size, times), the record type, and the columns as
 * they lie in memory (table.h), with a hash of it all at the end. It is
 * used only when the file's stamp now is that stamp, the type is the
 * declared one, and the hash holds; else the file is parsed, and its
 * columns written again. A file changed within its clock's tick (a racy
 * stamp) is not kept, nor a column of integers past int64, nor a file
 * below FX_COLCACHE_MIN bytes, which parses in about the time its cache
 * would take to read.
 *
 * The columns are written at the second read of a file with the same
 * stamp (the first leaves a small `HASH.cols.seen` with the header), so
 * that a file read once, or changed between reads, costs no write.
 *
 * Writing goes to a temporary file renamed over the old one, so a reader
 * sees a whole file or none, and a crash leaves at most a stray
 * temporary. Nothing here may fail a run: a cache that cannot be read or
 * written is no cache.
 */
#ifndef FX_COLCACHE_H
#define FX_COLCACHE_H

#include "exec/data.h"

#define FX_COLCACHE_MIN ((long long)1 << 20)

/* The columns of dd's file kept in dir, read as a new list into *out, when
 * they are there and were read from the file as it is now (`now`). */
bool fx_colcache_load(const char *dir, const FxDataDecl *dd, const FxDataStamp *now,
                      FxValue *out);

/* Keeps list (a table just read from dd's file, whose stamp before the read
 * was `before`) in dir, made when missing. */
void fx_colcache_save(const char *dir, const FxDataDecl *dd, const FxDataStamp *before,
                      FxValue list);

#endif
