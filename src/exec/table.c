/*
 * table.c: lists of records kept by column (table.h).
 */
#include "table.h"

#include <stdlib.h>
#include <string.h>

size_t fx_table_cell_bytes(FxColKind kind)
{
    switch (kind) {
    case FX_COL_INT: return sizeof(int64_t);
    case FX_COL_FLOAT: return sizeof(double);
    case FX_COL_BOOL: return 1;
    case FX_COL_STRING: return sizeof(uint64_t);
    case FX_COL_VALUES: return sizeof(FxValue);
    }
    return 0;
}

size_t fx_table_bytes(const FxTable *t)
{
    size_t bytes = sizeof(*t) + t->n_cols * sizeof(FxColumn);
    for (size_t c = 0; c < t->n_cols; c++) {
        const FxColumn *col = &t->cols[c];
        bytes += t->n_rows * fx_table_cell_bytes(col->kind);
        if (col->kind == FX_COL_STRING)
            bytes += sizeof(uint64_t) + col->u.offsets[t->n_rows];
    }
    return bytes;
}

void fx_table_free(FxTable *t)
{
    if (!t)
        return;
    for (size_t c = 0; c < t->n_cols; c++) {
        FxColumn *col = &t->cols[c];
        if (col->kind == FX_COL_VALUES)
            for (size_t i = 0; i < t->n_rows; i++)
                fx_value_release(col->u.values[i]);
        free(col->u.ints); /* any member: one block */
        free(col->bytes);
    }
    free(t->cols);
    free(t);
}

int fx_table_column(const FxTable *t, const char *name)
{
    for (size_t c = 0; c < t->n_cols; c++)
        if (strcmp(t->names[c], name) == 0)
            return (int)c;
    return -1;
}

FxValue fx_table_cell(const FxTable *t, size_t col, size_t row)
{
    const FxColumn *c = &t->cols[col];
    switch (c->kind) {
    case FX_COL_INT: return fx_val_int(c->u.ints[row]);
    case FX_COL_FLOAT: return fx_val_float(c->u.floats[row]);
    case FX_COL_BOOL: return fx_val_bool(c->u.bools[row]);
    case FX_COL_STRING: {
        uint64_t at = c->u.offsets[row];
        return fx_val_string(c->bytes + at, (size_t)(c->u.offsets[row + 1] - at));
    }
    case FX_COL_VALUES: fx_value_retain(c->u.values[row]); return c->u.values[row];
    }
    return fx_val_bool(false); /* not reached: every kind returns above */
}

FxValue fx_table_row(const FxTable *t, size_t row)
{
    FxValue small[8], *fields = t->n_cols <= 8 ? small : fx_xmalloc(t->n_cols * sizeof(FxValue));
    for (size_t c = 0; c < t->n_cols; c++)
        fields[c] = fx_table_cell(t, c, row);
    FxValue r = fx_val_record(t->n_cols, t->names, fields);
    for (size_t c = 0; c < t->n_cols; c++)
        fx_value_release(fields[c]);
    if (fields != small)
        free(fields);
    return r;
}
