/*
 * table.h: a list of records kept by column, as data sources are loaded.
 *
 * A `data` source of 10^7 rows is one list value. Kept as 10^7 record
 * objects it costs about 100 bytes a row and a malloc each; kept by column
 * it costs what its cells do: 8 bytes an Int or Float, one a Bool, and a
 * String its bytes and an 8-byte offset. The list value (value.h) holds
 * the table; whoever asks for a row gets a record made from the columns
 * (fx_table_row), and whoever reads one field of a row reads its column
 * (fx_table_cell), so a scan over one field touches that column alone.
 * Code that wants the records themselves, borrowed (fx_val_list_at), gets
 * them made once and kept beside the columns.
 *
 * An Int column holds int64 cells; a column with an integer past int64
 * keeps FxValues (FX_COL_VALUES) instead, so integers stay exact.
 */
#ifndef FX_TABLE_H
#define FX_TABLE_H

#include <stdint.h>

#include "exec/value.h"

/* ORDER FX_COL */
typedef enum {
    FX_COL_INT,    /* int64_t ints[n] */
    FX_COL_FLOAT,  /* double floats[n] */
    FX_COL_BOOL,   /* uint8_t bools[n], 0 or 1 */
    FX_COL_STRING, /* offsets[n + 1] into bytes: cell i is bytes[offsets[i] .. offsets[i+1]) */
    FX_COL_VALUES, /* FxValue values[n], owned references */
} FxColKind;

typedef struct FxColumn {
    FxColKind kind;
    union {
        int64_t *ints;
        double *floats;
        uint8_t *bools;
        FxValue *values;
        uint64_t *offsets;
    } u;
    char *bytes; /* FX_COL_STRING: the cells back to back, valid UTF-8 */
} FxColumn;

/* n_rows rows of n_cols columns named names[] (borrowed: the program's
 * field names, which outlive every value of a run). Every array is a block
 * of malloc's of exactly its size, taken over by the table. */
typedef struct FxTable {
    size_t n_rows, n_cols;
    const char *const *names;
    FxColumn *cols; /* n_cols of them, malloc'd */
} FxTable;

/* The bytes a cell of a column of that kind takes (a String's offset). */
size_t fx_table_cell_bytes(FxColKind kind);
/* The bytes t holds, for the meter: its columns and their cells. */
size_t fx_table_bytes(const FxTable *t);
/* Frees t, its columns, and the references its VALUES columns hold. */
void fx_table_free(FxTable *t);

/* The column named name, or -1. */
int fx_table_column(const FxTable *t, const char *name);
/* Cell (row, col) as a new value. */
FxValue fx_table_cell(const FxTable *t, size_t col, size_t row);
/* Row `row` as a new record. */
FxValue fx_table_row(const FxTable *t, size_t row);

#endif
