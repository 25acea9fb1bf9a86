/*
 * keep.h: a materialised result as the store keeps it between processes.
 *
 * A version that materialises results (opt/rule_materialise.h) keeps, in
 * the runtime, the result of each recurring call while its data sources
 * are unchanged. A later process gains from it only if the result outlives
 * the process: these are the bytes the store keeps for one such call, read
 * back only while every source the intent may read has the stamp (data.h)
 * it had when it was read for the result. The bytes are checked whole (a
 * checksum) and read by the intent's declared result type, so a damaged or
 * foreign row reads as corrupt, never as a value.
 *
 * Layout (little-endian): "FXK1"; a digest of the declared type (kinds
 * and field names); the number of sources, then each one's
 * path and stamp (file and write-ahead log); the value, by its type (an
 * integer as a zigzag varint, or its decimal digits past int64; a Float's
 * 8 bytes; a Bool's byte; a String's length and bytes; a List's or
 * Stream's length and elements; a record's fields in declared order); a
 * 64-bit hash of everything before it.
 */
#ifndef FX_KEEP_H
#define FX_KEEP_H

#include "base/buf.h"
#include "exec/data.h"
#include "exec/value.h"
#include "lang/ast.h"

/* What is kept at most: a larger result is not kept (the next process
 * computes it again). Reading back 4 MiB costs a few milliseconds, still
 * well under reading the data it spares. */
#define FX_KEEP_MAX_BYTES (4u << 20)

/* A source an intent may read, with its stamp. */
typedef struct FxKeepSource {
    const FxDataDecl *dd;
    FxDataStamp stamp;
} FxKeepSource;

/* Writes v, a value of type t computed from the sources src[0..n) (their
 * stamps when read), into out; false (out empty) when it cannot be kept:
 * a Matrix, a value that does not match t, or past FX_KEEP_MAX_BYTES. */
bool fx_keep_encode(FxValue v, const FxType *t, const FxKeepSource *src, size_t n, FxBuf *out);

typedef enum FxKeepRead {
    FX_KEEP_OK,      /* *out holds the value, a new reference */
    FX_KEEP_STALE,   /* a source is not the same (path or stamp) as when it was kept,
                      * or the result's type is declared otherwise */
    FX_KEEP_CORRUPT, /* the bytes do not read back as a value of the type */
} FxKeepRead;

/* Reads bytes written by fx_keep_encode for a value of type t, to be used
 * while the sources src[0..n) have the stamps given. */
FxKeepRead fx_keep_decode(const char *bytes, size_t len, const FxType *t,
                          const FxKeepSource *src, size_t n, FxValue *out);

#endif
