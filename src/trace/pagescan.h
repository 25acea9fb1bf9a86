/*
 * pagescan.h: the rows of a damaged SQLite database read from its pages,
 * below the B-trees, for `flux store recover` (recover.c) where SQL cannot
 * reach them: a file cut short loses pages of the schema and of the trees'
 * interior pages, and then no SELECT starts, though most leaves are whole.
 *
 * The file (and its -wal log, whose newest frame of a page wins) is read
 * page by page. The schema's rows are found among the leaves by their
 * shape (type, name, table, root page, SQL); each table's pages are those
 * its root reaches through the interior pages that can be read. A leaf
 * no root reaches (its parent lost, or a freed page whose rows may be
 * stale) is not read. Nothing is written.
 */
#ifndef FX_PAGESCAN_H
#define FX_PAGESCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A column's value as a record holds it. */
typedef enum { FX_CELL_NULL, FX_CELL_INT, FX_CELL_FLOAT, FX_CELL_TEXT, FX_CELL_BLOB } FxCellKind;
typedef struct FxCell {
    FxCellKind kind;
    int64_t i;
    double f;
    const unsigned char *p; /* TEXT, BLOB: len bytes */
    size_t len;
} FxCell;

typedef struct FxPageScan FxPageScan;

/* Reads the database at path (and path-wal); NULL when it cannot be read
 * at all (no file, not SQLite). */
FxPageScan *fx_pagescan_open(const char *path);
void fx_pagescan_free(FxPageScan *s);

/* fn(ctx, rowid, cells, n) for each row of table found in its tree's
 * leaves (a WITHOUT ROWID table's rowid is 0). Returns the rows given. */
typedef void (*FxScanRowFn)(void *ctx, int64_t rowid, const FxCell *cells, int n);
size_t fx_pagescan_rows(FxPageScan *s, const char *table, FxScanRowFn fn, void *ctx);

#endif
