/*
 * data.c: loading a `data` source (a CSV file with a header, or an SQLite
 * table) into a list of records of the declared record type.
 *
 * DESIGN
 *
 * Both readers fill the same Load: the declared record type, one row of
 * fields under construction, and the finished records in file order. A
 * row's fields are converted one cell at a time into ld->fields; when the
 * row is complete, push_row() makes the record and drops the row's own
 * references. On any error the fields made so far and every finished
 * record are released, so a failed load leaks nothing and *out stays UNIT.
 *
 * Cells are converted by the declared field type, never guessed: Int and
 * Natural are exact integers of any size (a BIG when past int64), Float is
 * strtod over the whole cell, Bool is true/false/1/0, String is the cell
 * as is. Numeric and boolean cells may carry surrounding spaces; strings
 * keep theirs. The text rules are shared: an SQLite value that is not
 * already of the declared kind goes through the same conversion as a CSV
 * cell, so "abc" in an Int column fails the same way in both.
 *
 * CSV follows RFC 4180: the whole file is read into memory and cut into
 * rows by a small state machine (csv_row). Quoted cells may hold commas,
 * "" escapes and line breaks; rows end in LF or CRLF; a UTF-8 BOM and
 * blank lines at the end are ignored. Columns are matched to fields by
 * name from the header, so their order is free and extra columns are
 * skipped. Every message names the file and the line the row starts on.
 * The file is UTF-8 throughout, as every Flux string and JSON output is
 * (base/utf8.h): the first byte that is not is refused at its line and
 * column before any row is read, so no value of a run holds such bytes.
 *
 * A load is part of a run and spends its budgets (meter.h): the file's
 * bytes and the list of rows are charged before they grow, and the clock is
 * looked at after each chunk read, so a source that never ends (a symlink
 * to /dev/zero, a pipe) stops at the run's memory or time budget; the rows
 * are adopted by the list, not copied.
 *
 * SQLite sources are opened read-only and read with one prepared SELECT
 * naming the fields, every identifier quoted; the database is never
 * written and nothing is interpolated unquoted into SQL. Messages name the
 * file, the table and the row. SQLite keeps whatever bytes a TEXT was given,
 * so every text read is checked to be UTF-8 as a CSV file is.
 *
 * Reading changes nothing beside the file either (fx_data_sqlite_uri). A
 * read-only connection to a WAL-mode database still makes its `-wal` and
 * `-shm` files (and cannot read at all where it may not make them), so a
 * WAL database whose log is absent or empty, which holds every commit in
 * the file itself, is opened `immutable`: no lock, no log, no shared
 * memory. Immutable is wrong while another process writes; a writer
 * that starts during the read writes its log first and the file only at
 * a checkpoint, so the file's stamp is compared after the read, and a
 * change is an error that asks to run again. A database with a log that
 * holds frames is in use or was left so: it is opened `mode=ro`, as a
 * reader among its writers, with `readonly_shm` when `-shm` exists, so
 * that SQLite reads the log itself rather than write its read marks into
 * the shared memory. (The store opens its database the same way before it
 * knows it may change it: trace/guard.c.)
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "data.h"
#include "meter.h"
#include "table.h"

#include "hw/device.h"

#include "base/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <sys/stat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

// The one include of sqlite3.h outside src/trace/store.c: `data x from
// "file.db:table"` reads the user's data, not the trace store.
#include <sqlite3.h>

/* A bad cell shows at most this many bytes of itself in a message. */
#define CELL_SHOWN 40

/* The bytes of a String column that one part of the rows wrote. */
typedef struct Strs {
    char *bytes;
    size_t len, cap;
} Strs;

/* One load in progress. */
typedef struct Load {
    const FxDataDecl *dd;
    const FxTypeDecl *rec; /* the element type: a record of scalars */
    size_t n_fields;
    const char *file;      /* the file read: dd->resolved_path */
    char *where;           /* what messages name: the file, or "file:table" */
    FxValue *fields;       /* the row being built; UNIT where not yet set */
    FxColumn *cols;        /* a column per field, room for `cap` rows */
    size_t n_rows, cap;    /* rows read; rows the columns have room for */
    size_t charged;        /* bytes charged to the meter for the columns */
    size_t expect_rows;    /* rows a large file will hold, guessed from its first window */
    FxError *err;
} Load;

/* A run of rows written by one reader (a thread, for a large CSV): rows
 * [row, row_end), and the String columns' bytes it wrote. A String
 * column's offsets[i + 1] is where row i ends, counted from the start of
 * its part's bytes until the parts are joined (join_parts). */
typedef struct Part {
    Load *ld;
    size_t first, row, row_end; /* its first row, the next, and the end */
    Strs *strs; /* one per field; used by String fields */
} Part;

static FxStatus fail(Load *ld, const char *fmt, ...) FX_PRINTF(2, 3);

/* Writes the message into ld->err, placed at the `data` declaration;
 * returns FX_ERR_RUNTIME for the caller to pass on. */
static FxStatus fail(Load *ld, const char *fmt, ...)
{
    fx_error_clear(ld->err);
    ld->err->status = FX_ERR_RUNTIME;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ld->err->message, sizeof(ld->err->message), fmt, ap);
    va_end(ap);
    fx_error_at_span(ld->err, ld->dd->span);
    return FX_ERR_RUNTIME;
}

/* A file that cannot be read at all: placed at its `data` declaration
 * (FILE:LINE:COL first, as every run-time error; a cell's error names its
 * own place in the data file instead). */
static FxStatus cannot_read(Load *ld, const char *reason)
{
    FxSpan at = ld->dd->span;
    if (!at.src)
        return fail(ld, "cannot read data file `%s` for `%s`: %s", ld->file, ld->dd->name, reason);
    size_t line, col;
    fx_diag_position(at.src, at.offset, &line, &col);
    return fail(ld, "%.200s:%zu:%zu: cannot read data file `%.300s` for `%.100s`: %.300s",
                at.src->path, line, col, ld->file, ld->dd->name, reason);
}

/* ------------------------------------------------------------ cell values */

static FxTypeKind field_kind(const Load *ld, size_t i)
{
    return ld->rec->field_types[i]->kind;
}

static const char *field_name(const Load *ld, size_t i)
{
    return ld->rec->def->field_names[i];
}

/* The type with its article, as messages say it: "an Int". */
static const char *kind_phrase(FxTypeKind kind)
{
    switch (kind) {
    case FX_TY_NATURAL: return "a Natural";
    case FX_TY_INT: return "an Int";
    case FX_TY_FLOAT: return "a Float";
    case FX_TY_BOOL: return "a Bool";
    case FX_TY_STRING: return "a String";
    default: return "a scalar";
    }
}

/* Narrows s[0..*len) past spaces and tabs at both ends. */
static const char *trim(const char *s, size_t *len)
{
    while (*len > 0 && (s[0] == ' ' || s[0] == '\t')) {
        s++;
        (*len)--;
    }
    while (*len > 0 && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
        (*len)--;
    return s;
}

/* int = [+-] digit+, of any size. */
static bool parse_int(const char *s, size_t len, FxValue *out)
{
    s = trim(s, &len);
    size_t digits = len > 0 && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (digits == len)
        return false;
    for (size_t i = digits; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    // fx_val_int_text wants NUL-terminated text with at most a '-'.
    size_t plus = s[0] == '+';
    char *text = fx_xstrndup(s + plus, len - plus);
    *out = fx_val_int_text(text);
    free(text);
    return true;
}

/* Float: all of the cell is one strtod number that does not overflow. */
static bool parse_float(const char *s, size_t len, FxValue *out)
{
    s = trim(s, &len);
    if (len == 0)
        return false;
    char *text = fx_xstrndup(s, len), *end;
    errno = 0;
    double f = strtod(text, &end);
    bool ok = end == text + len && !(errno == ERANGE && isinf(f));
    free(text);
    if (ok)
        *out = fx_val_float(f);
    return ok;
}

/* Bool: true or false in any case, or 1 or 0. */
static bool parse_bool(const char *s, size_t len, FxValue *out)
{
    s = trim(s, &len);
    if ((len == 4 && strncasecmp(s, "true", 4) == 0) || (len == 1 && s[0] == '1'))
        *out = fx_val_bool(true);
    else if ((len == 5 && strncasecmp(s, "false", 5) == 0) || (len == 1 && s[0] == '0'))
        *out = fx_val_bool(false);
    else
        return false;
    return true;
}

/* Converts the text of a cell to field i, into ld->fields[i]. False when
 * the text is not a value of the field's type. */
static bool field_from_text(Load *ld, size_t i, const char *s, size_t len)
{
    FxValue *out = &ld->fields[i];
    switch (field_kind(ld, i)) {
    case FX_TY_NATURAL:
        if (!parse_int(s, len, out))
            return false;
        if (fx_val_int_sign(*out) >= 0)
            return true;
        fx_value_release(*out);
        *out = (FxValue){.kind = FX_VAL_UNIT};
        return false;
    case FX_TY_INT: return parse_int(s, len, out);
    case FX_TY_FLOAT: return parse_float(s, len, out);
    case FX_TY_BOOL: return parse_bool(s, len, out);
    case FX_TY_STRING: *out = fx_val_string(s, len); return true;
    default: return false;
    }
}

/* "WHERE: column `age`: `abc` is not an Int"; a long cell is cut short. */
static FxStatus bad_cell(Load *ld, const char *where, size_t i, const char *s, size_t len)
{
    int shown = len > CELL_SHOWN ? CELL_SHOWN : (int)len;
    return fail(ld, "%s: column `%s`: `%.*s%s` is not %s", where, field_name(ld, i), shown, s,
                len > CELL_SHOWN ? "..." : "", kind_phrase(field_kind(ld, i)));
}

/* Drops the references of the row under construction. */
static void drop_fields(Load *ld)
{
    for (size_t i = 0; i < ld->n_fields; i++) {
        fx_value_release(ld->fields[i]);
        ld->fields[i] = (FxValue){.kind = FX_VAL_UNIT};
    }
}

/* The run's budget refused a load: its message. */
static FxStatus over_budget(Load *ld)
{
    ld->err->status = FX_ERR_RUNTIME;
    fx_meter_message(NULL, ld->err->message, sizeof(ld->err->message));
    return FX_ERR_RUNTIME;
}

/* ---------------------------------------------------------------- columns */

static FxColKind column_kind(FxTypeKind kind)
{
    switch (kind) {
    case FX_TY_FLOAT: return FX_COL_FLOAT;
    case FX_TY_BOOL: return FX_COL_BOOL;
    case FX_TY_STRING: return FX_COL_STRING;
    default: return FX_COL_INT; /* Int, Natural */
    }
}

/* Room for cap rows in every column, charged first. A String column's
 * offsets take one more (offsets[0] = 0). */
static FxStatus grow_columns(Load *ld, size_t cap)
{
    size_t more = 0;
    for (size_t i = 0; i < ld->n_fields; i++)
        more += (cap - ld->cap + (ld->cap ? 0 : 1)) * fx_table_cell_bytes(ld->cols[i].kind);
    if (!fx_meter_charge(more))
        return over_budget(ld);
    ld->charged += more;
    for (size_t i = 0; i < ld->n_fields; i++) {
        FxColumn *c = &ld->cols[i];
        size_t size = fx_table_cell_bytes(c->kind), extra = c->kind == FX_COL_STRING;
        size_t had = ld->cap ? ld->cap + extra : 0, has = cap + extra;
        char *cells = fx_xrealloc(c->u.ints, has * size);
        fx_hint_huge_pages(cells, has * size);
        // Cells are written before they are read, but for FxValues, which
        // a failed load releases all of, and a String column's offsets[0].
        if (c->kind == FX_COL_VALUES)
            memset(cells + had * size, 0, (has - had) * size);
        else if (extra && !had)
            memset(cells, 0, size);
        c->u.ints = (int64_t *)cells;
    }
    ld->cap = cap;
    return FX_OK;
}

/* An Int column that meets an integer past int64 keeps FxValues from then
 * on; every cell is converted, written or not (an unwritten one becomes
 * some Int, to be written over, and never a reference). */
static void column_to_values(Load *ld, FxColumn *c)
{
    FxValue *values = fx_xmalloc(ld->cap * sizeof(FxValue));
    for (size_t r = 0; r < ld->cap; r++)
        values[r] = fx_val_int(c->u.ints[r]);
    fx_meter_add(ld->cap * (sizeof(FxValue) - sizeof(int64_t)));
    ld->charged += ld->cap * (sizeof(FxValue) - sizeof(int64_t));
    free(c->u.ints);
    c->u.values = values;
    c->kind = FX_COL_VALUES;
}

/* Appends len bytes to a part's String column, charged first when it
 * grows (reader threads write into room charged before they start). */
static bool strs_append(Load *ld, Strs *s, const char *bytes, size_t len)
{
    if (s->cap - s->len < len) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        while (cap - s->len < len)
            cap *= 2;
        if (!fx_meter_charge(cap - s->cap))
            return false;
        ld->charged += cap - s->cap;
        s->bytes = fx_xrealloc(s->bytes, cap);
        s->cap = cap;
    }
    if (len) // (no block yet for an empty first cell)
        memcpy(s->bytes + s->len, bytes, len);
    s->len += len;
    return true;
}

/* A part read by one reader from row ld->n_rows to the end. */
static Part whole_begin(Load *ld)
{
    return (Part){.ld = ld, .first = ld->n_rows, .row = ld->n_rows, .row_end = SIZE_MAX,
                  .strs = fx_xcalloc(ld->n_fields, sizeof(Strs))};
}

/* Appends part's String bytes to the columns' and makes its offsets count
 * from their start; frees them. */
static void join_part(Load *ld, Part *pt)
{
    for (size_t f = 0; f < ld->n_fields; f++) {
        FxColumn *c = &ld->cols[f];
        Strs *s = &pt->strs[f];
        if (c->kind == FX_COL_STRING) {
            uint64_t base = c->u.offsets[pt->first];
            if (!base) { // the first bytes: taken over
                free(c->bytes);
                c->bytes = s->bytes;
                s->bytes = NULL;
            } else {
                c->bytes = fx_xrealloc(c->bytes, base + s->len + 1);
                if (s->len)
                    memcpy(c->bytes + base, s->bytes, s->len);
                for (size_t r = pt->first; r < pt->row; r++)
                    c->u.offsets[r + 1] += base;
            }
        }
        free(s->bytes);
        *s = (Strs){0};
    }
}

/* Its String bytes join the columns' (ok), or are dropped. */
static void whole_end(Load *ld, Part *pt, bool ok)
{
    if (ok)
        join_part(ld, pt);
    for (size_t f = 0; f < ld->n_fields; f++)
        free(pt->strs[f].bytes);
    free(pt->strs);
}

/* Moves the completed row's fields (ld->fields) into the columns at row
 * part->row, and steps to the next row. */
static FxStatus push_row(Load *ld, Part *part)
{
    size_t r = part->row;
    if (r == ld->cap) {
        FxStatus st = grow_columns(ld, ld->cap ? 2 * ld->cap : 64);
        if (st != FX_OK)
            return st;
    }
    for (size_t i = 0; i < ld->n_fields; i++) {
        FxColumn *c = &ld->cols[i];
        FxValue v = ld->fields[i];
        if (c->kind == FX_COL_INT && v.kind == FX_VAL_BIG)
            column_to_values(ld, c);
        switch (c->kind) {
        case FX_COL_INT: c->u.ints[r] = v.u.i; break;
        case FX_COL_FLOAT: c->u.floats[r] = v.u.f; break;
        case FX_COL_BOOL: c->u.bools[r] = v.u.b; break;
        case FX_COL_VALUES: c->u.values[r] = v; ld->fields[i].kind = FX_VAL_UNIT; break;
        case FX_COL_STRING: {
            size_t len;
            const char *s = fx_val_string_data(v, &len);
            if (!strs_append(ld, &part->strs[i], s, len))
                return over_budget(ld);
            c->u.offsets[r + 1] = part->strs[i].len;
            break;
        }
        }
    }
    drop_fields(ld);
    part->row++;
    if (part->row > ld->n_rows)
        ld->n_rows = part->row;
    return FX_OK;
}

/* -------------------------------------------------------------------- CSV */

/* A cell of the current row: a slice of Csv.text. */
typedef struct Cell {
    size_t off, len;
} Cell;

typedef struct Csv {
    const char *p, *end;
    size_t line;        /* the line p is on, from 1 */
    FxBuf text;         /* the current row's unescaped cells, back to back */
    FX_VEC(Cell) cells; /* the current row's cells */
} Csv;

/* Is p at the end of a row: LF, or CR before LF or the end of the file?
 * (A CR anywhere else is data.) */
static bool at_line_end(const Csv *c)
{
    if (c->p == c->end)
        return true;
    return *c->p == '\n' || (*c->p == '\r' && (c->p + 1 == c->end || c->p[1] == '\n'));
}

static void skip_line_end(Csv *c)
{
    if (c->p < c->end && *c->p == '\r')
        c->p++;
    if (c->p < c->end && *c->p == '\n') {
        c->p++;
        c->line++;
    }
}

/* plain = (any byte but `,` and a line end)* ; a stray quote is data */
static void csv_plain(Csv *c)
{
    const char *s = c->p;
    while (c->p < c->end && *c->p != ',' && !at_line_end(c))
        c->p++;
    fx_buf_append(&c->text, s, (size_t)(c->p - s));
}

/* quoted = '"' (any byte but '"' | '""')* '"' ; it may span lines */
static FxStatus csv_quoted(Load *ld, Csv *c)
{
    size_t first_line = c->line;
    c->p++;
    for (;;) {
        const char *s = c->p;
        for (; c->p < c->end && *c->p != '"'; c->p++)
            if (*c->p == '\n')
                c->line++;
        fx_buf_append(&c->text, s, (size_t)(c->p - s));
        if (c->p == c->end)
            return fail(ld, "%s:%zu: a quoted cell is not closed", ld->where, first_line);
        c->p++; // the closing quote, or the first of ""
        if (c->p == c->end || *c->p != '"')
            break;
        fx_buf_putc(&c->text, '"');
        c->p++;
    }
    if (!at_line_end(c) && *c->p != ',')
        return fail(ld, "%s:%zu: text after the closing quote of a cell", ld->where, c->line);
    return FX_OK;
}

/* row = cell ("," cell)* line-end ; cell = quoted | plain
 * Reads the next row into c->text and c->cells; *out_got is false at the
 * end of the file. */
static FxStatus csv_row(Load *ld, Csv *c, bool *out_got)
{
    c->text.len = 0;
    c->cells.len = 0;
    *out_got = false;
    if (c->p == c->end) // the end: blank lines after the last row are not rows (data_end)
        return FX_OK;
    for (;;) {
        Cell cell = {.off = c->text.len};
        if (c->p < c->end && *c->p == '"') {
            FxStatus st = csv_quoted(ld, c);
            if (st != FX_OK)
                return st;
        } else {
            csv_plain(c);
        }
        cell.len = c->text.len - cell.off;
        fx_vec_push(&c->cells, cell);
        if (c->p == c->end || *c->p != ',')
            break;
        c->p++;
    }
    skip_line_end(c);
    *out_got = true;
    return FX_OK;
}

/* Is header cell j the name `name` (spaces around it ignored)? */
static bool header_is(const Csv *c, size_t j, const char *name)
{
    size_t len = c->cells.data[j].len;
    const char *s = trim(fx_buf_str(&c->text) + c->cells.data[j].off, &len);
    return len == strlen(name) && memcmp(s, name, len) == 0;
}

/* Reads the header and finds each field's column: col_of[i] for field i. */
static FxStatus csv_header(Load *ld, Csv *c, size_t *col_of)
{
    bool got;
    FxStatus st = csv_row(ld, c, &got);
    if (st != FX_OK)
        return st;
    if (!got)
        return fail(ld, "%s: the file is empty, but its first line should name the columns",
                    ld->where);
    for (size_t i = 0; i < ld->n_fields; i++) {
        col_of[i] = SIZE_MAX;
        for (size_t j = 0; j < c->cells.len; j++) {
            if (!header_is(c, j, field_name(ld, i)))
                continue;
            if (col_of[i] != SIZE_MAX)
                return fail(ld, "%s:1: column `%s` appears twice in the header", ld->where,
                            field_name(ld, i));
            col_of[i] = j;
        }
        if (col_of[i] == SIZE_MAX)
            return fail(ld, "%s:1: no column `%s` in the header, but `%s` has that field",
                        ld->where, field_name(ld, i), ld->rec->name);
    }
    return FX_OK;
}

/* Converts the row read last, which started on `line`, into row
 * part->row of the columns. */
static FxStatus csv_record(Load *ld, Part *part, const Csv *c, const size_t *col_of,
                           size_t n_cols, size_t line)
{
    if (c->cells.len != n_cols)
        return fail(ld, "%s:%zu: %zu cell%s, but the header has %zu", ld->where, line,
                    c->cells.len, c->cells.len == 1 ? "" : "s", n_cols);
    const char *text = fx_buf_str(&c->text);
    for (size_t i = 0; i < ld->n_fields; i++) {
        const Cell *cell = &c->cells.data[col_of[i]];
        if (field_from_text(ld, i, text + cell->off, cell->len))
            continue;
        char *where = fx_xasprintf("%s:%zu", ld->where, line);
        FxStatus st = bad_cell(ld, where, i, text + cell->off, cell->len);
        free(where);
        return st;
    }
    return push_row(ld, part);
}

/* A file read a window at a time: buf holds len bytes, and after them a
 * NUL and zeros for fast_int's 8-byte reads. The block is charged to the
 * run's meter as it grows. */
typedef struct Reader {
    FILE *f;
    char *buf;
    size_t len, cap, charged;
    bool eof;
} Reader;

#define READ_PAD 16

/* Reads until buf holds `want` bytes or the file ends. Returns 0, an errno,
 * or -1 when the run's budget stopped the read: the block grows by what is
 * asked, charged first, or by what the memory budget still allows; the
 * clock is looked at every MB. */
/* Room for `want` bytes in rd's block, charged first: false when the
 * run's budget refused it. */
static bool reader_room(Reader *rd, size_t want)
{
    if (want + READ_PAD <= rd->cap)
        return true;
    size_t more = want + READ_PAD - rd->cap, room = fx_meter_room();
    more = more > room && room > (1 << 14) ? room : more;
    if (!fx_meter_charge(more))
        return false;
    rd->charged += more;
    rd->buf = fx_xrealloc(rd->buf, rd->cap + more);
    rd->cap += more;
    fx_hint_huge_pages(rd->buf, rd->cap);
    return true;
}

/* Reads until the block is full or the file ends: 0 or an errno. With
 * `poll`, the run's clock is looked at every MB (-1: the run stopped);
 * without, nothing of the run is touched, so another thread may read. */
static int reader_read(Reader *rd, bool poll)
{
    int err = 0;
    while (!rd->eof && rd->len + READ_PAD < rd->cap) {
        size_t ask = rd->cap - READ_PAD - rd->len, n;
        ask = ask < (1 << 20) ? ask : 1 << 20;
        if ((n = fread(rd->buf + rd->len, 1, ask, rd->f)) == 0) {
            rd->eof = true;
            if (ferror(rd->f))
                err = errno ? errno : EIO;
        }
        rd->len += n;
        if (poll && !fx_meter_poll()) {
            err = -1;
            break;
        }
    }
    memset(rd->buf + rd->len, 0, READ_PAD);
    return err;
}

static int reader_fill(Reader *rd, size_t want)
{
    return reader_room(rd, want) ? reader_read(rd, true) : -1;
}

/* The next window read on a thread of its own while this one is parsed. */
typedef struct Ahead {
    Reader *rd;
    int err;
} Ahead;

static void *read_ahead(void *arg)
{
    Ahead *a = arg;
    a->err = reader_read(a->rd, false);
    return NULL;
}

/* Every Flux string is UTF-8, and JSON output must be: the first byte of
 * the file that is not is refused at its line and column (counted in code
 * points, as the compiler counts them), before anything is read from it. */
static FxStatus csv_utf8(Load *ld, const char *text, size_t len, size_t line)
{
    const char *why = NULL;
    size_t bad = fx_utf8_check(text, len, &why), col = 1;
    if (bad == len)
        return FX_OK;
    for (size_t i = 0; i < bad; i++) {
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    return fail(ld, "%s:%zu:%zu: invalid UTF-8 byte 0x%02x: %s", ld->where, line, col,
                (unsigned char)text[bad], why);
}

/* ------------------------------------------------------ CSV: the fast path
 *
 * Most rows of most files are plain: no quotes, no spaces around numbers,
 * integers within int64. fast_row reads such a row straight from the
 * file's bytes into the columns, eight digits of an integer at a time, and
 * gives up (NULL) on anything else, for the general reader above to read
 * that row, with its messages. Both give the same cells for a plain row.
 */

#define ONES  0x0101010101010101u
#define HIGHS 0x8080808080808080u

/* Eight ASCII digits, the first (the lowest byte) the most significant. */
static uint64_t eight_digits(uint64_t w)
{
    w = (w & 0x0F0F0F0F0F0F0F0Fu) * 2561 >> 8;
    w = (w & 0x00FF00FF00FF00FFu) * 6553601 >> 16;
    return (w & 0x0000FFFF0000FFFFu) * 42949672960001u >> 32;
}

/* An int64 in plain decimal at p (`-`? digit+), up to the first byte that
 * is not a digit, into *out; NULL when there is no digit or the number
 * does not fit int64 (or has over 19 digits: the general reader takes
 * those, as big integers). Reads 8 bytes at a time: the file is followed
 * by at least 8 readable bytes (read_file). */
static const char *fast_int(const char *p, int64_t *out)
{
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    bool neg = *p == '-';
    p += neg;
    uint64_t v = 0;
    unsigned digits = 0;
    for (;;) {
        uint64_t w;
        memcpy(&w, p, 8);
        // The first byte below '0' or above '9' (a borrow or carry only
        // spoils the bytes after it).
        uint64_t stop = (((w - ONES * '0') & ~w) | ((w + ONES * (127 - '9')) | w)) & HIGHS;
        unsigned k = stop ? (unsigned)__builtin_ctzll(stop) / 8 : 8;
        if (digits + k > 19)
            return NULL;
        if (k == 0)
            break;
        if (k < 8) // the k digits to the top, '0's below them
            w = w << (8 * (8 - k)) | (ONES * '0') >> (8 * k);
        v = v * pow10[k] + eight_digits(w);
        digits += k;
        p += k;
        if (k < 8)
            break;
    }
    if (digits == 0 || v > (uint64_t)INT64_MAX + neg)
        return NULL;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return p;
}

/* The closing quote of the quoted cell at p, when the cell is simple: no
 * `""` in it and no line end; else NULL (the general reader reads it). */
static const char *quoted_end(const char *p, const char *end)
{
    const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q || (q + 1 < end && q[1] == '"') || memchr(p + 1, '\n', (size_t)(q - p - 1)))
        return NULL;
    return q;
}

/* Does every quoted cell of the rows [p, end) end on the line it starts
 * on? Then every LF still ends a row, and the rows may be split at LFs. A
 * quote opens a cell only where a cell starts (at a line's start or after
 * a comma); any other is data. */
static bool quotes_stay_on_lines(const char *p, const char *end)
{
    for (const char *q = p; q < end && (q = memchr(q, '"', (size_t)(end - q)));) {
        if (q > p && q[-1] != ',' && q[-1] != '\n') { // a quote in a plain cell
            q++;
            continue;
        }
        for (q++;; q += 2) { // to the closing quote, past any ""
            const char *close = memchr(q, '"', (size_t)(end - q));
            if (!close || memchr(q, '\n', (size_t)(close - q)))
                return false;
            q = close;
            if (q + 1 >= end || q[1] != '"')
                break;
        }
        q++;
    }
    return true;
}

/* The end of the plain cell at p: the next `,`, LF or CR. */
static const char *cell_end(const char *p, const char *end)
{
    while (p < end && *p != ',' && *p != '\n' && *p != '\r')
        p++;
    return p;
}

/* A cell of field f of the row part->row, at p; the end of the cell, or
 * NULL when the general reader must read it. */
static const char *fast_cell(Part *pt, size_t f, const char *p, const char *end)
{
    Load *ld = pt->ld;
    FxColumn *c = &ld->cols[f];
    size_t r = pt->row;
    switch (c->kind) {
    case FX_COL_INT:
    case FX_COL_VALUES: {
        int64_t v;
        if (!(p = fast_int(p, &v)) || (v < 0 && field_kind(ld, f) == FX_TY_NATURAL))
            return NULL;
        if (c->kind == FX_COL_INT)
            c->u.ints[r] = v;
        else
            c->u.values[r] = fx_val_int(v);
        return p;
    }
    case FX_COL_FLOAT: { // strtod skips leading space (even a line break): not here
        if (p == end || strchr(" \t\r\n,\"", *p))
            return NULL;
        char *e;
        errno = 0;
        double d = strtod(p, &e);
        if (e == p || e > end || (errno == ERANGE && isinf(d)))
            return NULL;
        c->u.floats[r] = d;
        return e;
    }
    case FX_COL_BOOL: {
        const char *e = cell_end(p, end);
        FxValue b;
        if (!parse_bool(p, (size_t)(e - p), &b))
            return NULL;
        c->u.bools[r] = b.u.b;
        return e;
    }
    case FX_COL_STRING: {
        const char *from = p, *e, *after;
        if (p < end && *p == '"') { // "text": the text, when simple (quoted_end)
            if (!(e = quoted_end(p, end)))
                return NULL;
            from = p + 1;
            after = e + 1;
        } else {
            after = e = cell_end(p, end);
        }
        Strs *s = &pt->strs[f];
        if (s->cap - s->len < (size_t)(e - from))
            return NULL; // no room made yet: the general reader
        if (e > from)
            memcpy(s->bytes + s->len, from, (size_t)(e - from));
        s->len += (size_t)(e - from);
        c->u.offsets[r + 1] = s->len;
        return after;
    }
    }
    return NULL;
}

/* Reads the plain row at p (see above) into row part->row; returns the end
 * of the row, past its line end, or NULL (nothing written that counts)
 * when the general reader must read it. */
static const char *fast_row(Part *pt, const char *p, const char *end, const int *field_of,
                            size_t n_cols)
{
    Load *ld = pt->ld;
    for (size_t j = 0; j < n_cols; j++) {
        if (field_of[j] >= 0)
            p = fast_cell(pt, (size_t)field_of[j], p, end);
        else if (p < end && *p == '"')
            p = (p = quoted_end(p, end)) ? p + 1 : NULL;
        else
            p = cell_end(p, end);
        if (!p)
            break;
        if (j + 1 < n_cols) {
            if (p == end || *p != ',')
                p = NULL;
            else
                p++;
        } else if (p < end) { // LF, CRLF, or a CR that ends the file
            if (*p == '\r' && (p + 1 == end || p[1] == '\n'))
                p++;
            if (p < end && *p != '\n')
                p = NULL;
            else if (p < end)
                p++;
        }
        if (!p)
            break;
    }
    if (!p) // the row's String cells are taken back
        for (size_t f = 0; f < ld->n_fields; f++)
            if (ld->cols[f].kind == FX_COL_STRING)
                pt->strs[f].len = pt->row == pt->first ? 0 : ld->cols[f].u.offsets[pt->row];
    return p;
}

/* Reads the rows of [c->p, c->end) into part, the fast way where it can,
 * else row by row through the general reader; c->line is the line of
 * c->p. The columns grow as needed (one reader only). */
static FxStatus csv_rows(Load *ld, Part *pt, Csv *c, const size_t *col_of, size_t n_cols,
                         const int *field_of)
{
    FxStatus st = FX_OK;
    for (size_t n = 1; st == FX_OK && c->p < c->end; n++) {
        if (pt->row == ld->cap && (st = grow_columns(ld, 2 * ld->cap)) != FX_OK)
            break;
        const char *q = fast_row(pt, c->p, c->end, field_of, n_cols);
        if (q) {
            c->p = q;
            c->line++;
            if (++pt->row > ld->n_rows)
                ld->n_rows = pt->row;
        } else {
            size_t line = c->line;
            bool got;
            st = csv_row(ld, c, &got);
            if (st != FX_OK || !got)
                break;
            st = csv_record(ld, pt, c, col_of, n_cols, line);
        }
        if (n % 65536 == 0 && !fx_meter_poll())
            st = over_budget(ld);
    }
    return st;
}

/* --------------------------------------------------- CSV: across threads
 *
 * A large file with no quote in it is cut at line ends into a part per
 * thread: then every LF ends a row, so each part knows how many rows it
 * holds, and where they go, from its LFs alone. The threads read their
 * parts the fast way into the shared columns, each stopping at a row it
 * cannot read so; the calling thread then finishes each part in file
 * order (the general reader, messages, budgets), so the first bad row of
 * the file is the one reported, and joins the parts' String bytes.
 */

/* Splitting pays from about this many bytes. Test builds split and cut
 * windows (below) at a few KB, so that every CSV of the tests crosses
 * windows and parts. */
#ifdef FX_SMALL_CHUNKS
#define CSV_PARALLEL_FROM ((size_t)1 << 10)
#else
#define CSV_PARALLEL_FROM ((size_t)8 << 20)
#endif
#define CSV_MAX_PARTS     64

typedef struct Piece {
    Part part;
    const char *p, *end; /* the rows still to read */
    size_t rows;         /* LFs in [p, end) (+1 for the file's last row) */
    bool ascii, quotes;  /* every byte below 0x80; a quote somewhere */
} Piece;

typedef struct Split {
    Piece *pieces;
    const int *field_of;
    size_t n_cols;
} Split;

/* The LFs in [p, end), 8 bytes at a time: a byte of w ^ LFs is zero
 * exactly where w holds an LF, where the sum below alone leaves its high
 * bit clear; the multiply adds up the bytes' marks in the top byte. */
static size_t count_lines(const char *p, const char *end)
{
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Fu;
    size_t n = 0;
    for (; end - p >= 8; p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= ONES * '\n';
        n += (size_t)(((~(((w & low7) + low7) | w | low7) >> 7) * ONES) >> 56);
    }
    for (; p < end; p++)
        n += *p == '\n';
    return n;
}

/* One pass over a piece: its LFs, whether every byte is ASCII, and
 * whether it holds a quote (the UTF-8 check and the look for quotes were
 * two more passes, on one thread). SSE2 (every x86-64) takes 16 bytes a
 * step, the LFs summed in byte counters emptied every 255 steps; other
 * machines take 8, as count_lines does. */
static void scan_task(void *arg, size_t t)
{
    Piece *pc = &((Split *)arg)->pieces[t];
    const char *p = pc->p;
    size_t n = 0;
    bool high = false, quote = false;
#ifdef __SSE2__
    const __m128i lf = _mm_set1_epi8('\n'), qt = _mm_set1_epi8('"');
    __m128i any_q = _mm_setzero_si128(), any_hi = _mm_setzero_si128();
    while (pc->end - p >= 16) {
        size_t steps = (size_t)(pc->end - p) / 16;
        steps = steps < 255 ? steps : 255;
        __m128i count = _mm_setzero_si128();
        for (size_t k = 0; k < steps; k++, p += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            count = _mm_sub_epi8(count, _mm_cmpeq_epi8(v, lf));
            any_q = _mm_or_si128(any_q, _mm_cmpeq_epi8(v, qt));
            any_hi = _mm_or_si128(any_hi, v);
        }
        __m128i sums = _mm_sad_epu8(count, _mm_setzero_si128());
        n += (size_t)_mm_cvtsi128_si64(sums) + (size_t)_mm_extract_epi16(sums, 4);
    }
    high = _mm_movemask_epi8(any_hi) != 0;
    quote = _mm_movemask_epi8(any_q) != 0;
#else
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Fu;
    uint64_t hi = 0, qs = 0;
    for (; pc->end - p >= 8; p += 8) {
        uint64_t w, q;
        memcpy(&w, p, 8);
        hi |= w;
        q = w ^ ONES * '"';
        qs |= ~(((q & low7) + low7) | q | low7);
    }
    n = count_lines(pc->p, p);
    high = (hi & HIGHS) != 0;
    quote = qs != 0;
#endif
    for (; p < pc->end; p++) {
        n += *p == '\n';
        high |= (unsigned char)*p >= 0x80;
        quote |= *p == '"';
    }
    pc->rows = n;
    pc->ascii = !high;
    pc->quotes = quote;
}

static void read_task(void *arg, size_t t)
{
    Split *sp = arg;
    Piece *pc = &sp->pieces[t];
    while (pc->p < pc->end && pc->part.row < pc->part.row_end) {
        const char *q = fast_row(&pc->part, pc->p, pc->end, sp->field_of, sp->n_cols);
        if (!q)
            break;
        pc->p = q;
        pc->part.row++;
    }
}

/* Cuts the rows of [c->p, c->end) into n pieces just past an LF, and
 * scans them on n threads (scan_task). */
static void csv_scan(Csv *c, Piece *pieces, unsigned n)
{
    Split sp = {pieces, NULL, 0};
    size_t size = (size_t)(c->end - c->p);
    const char *p = c->p;
    for (unsigned k = 0; k < n; k++) {
        const char *e = k + 1 == n ? c->end : c->p + size / n * (k + 1);
        if (e < p)
            e = p;
        while (e < c->end && e[-1] != '\n')
            e++;
        pieces[k] = (Piece){.p = p, .end = e};
        p = e;
    }
    fx_device_launch(fx_device_cpu(), n, scan_task, &sp, NULL);
    pieces[n - 1].rows += c->end > c->p && c->end[-1] != '\n'; // the last line has no LF
}

/* Reads the rows of [c->p, c->end), scanned into n pieces (csv_scan),
 * whose quoted cells all end on their line, on n threads. */
static FxStatus csv_split(Load *ld, Csv *c, const size_t *col_of, size_t n_cols,
                          const int *field_of, Piece *pieces, unsigned n)
{
    FxStatus st = FX_OK;
    Split sp = {pieces, field_of, n_cols};
    size_t size = (size_t)(c->end - c->p), first_line = c->line, row0 = ld->n_rows;
    size_t rows = row0;
    for (unsigned k = 0; k < n; k++) {
        Part *pt = &pieces[k].part;
        *pt = (Part){.ld = ld, .first = rows, .row = rows, .row_end = rows + pieces[k].rows,
                     .strs = fx_xcalloc(ld->n_fields, sizeof(Strs))};
        rows += pieces[k].rows;
    }
    // Columns grown once to the rows expected, not doubled window by
    // window: a copy of all rows so far each time, into pages never touched.
    size_t want = rows > ld->expect_rows ? rows : ld->expect_rows;
    if (rows > ld->cap && (st = grow_columns(ld, want > 2 * ld->cap ? want : 2 * ld->cap)) != FX_OK)
        goto out;
    // Room for every String cell of a part, charged as one: a part's
    // cells are fewer bytes than the part (malloc maps it, untouched).
    bool strings = false;
    for (size_t f = 0; f < ld->n_fields; f++)
        strings |= ld->cols[f].kind == FX_COL_STRING;
    if (strings && !fx_meter_charge(size)) {
        st = over_budget(ld);
        goto out;
    }
    ld->charged += strings ? size : 0;
    for (unsigned k = 0; k < n; k++)
        for (size_t f = 0; f < ld->n_fields; f++)
            if (ld->cols[f].kind == FX_COL_STRING) {
                Strs *s = &pieces[k].part.strs[f];
                s->cap = (size_t)(pieces[k].end - pieces[k].p) + 1;
                s->bytes = fx_xmalloc(s->cap);
            }
    fx_device_launch(fx_device_cpu(), n, read_task, &sp, NULL);
    ld->n_rows = rows;
    for (unsigned k = 0; k < n && st == FX_OK; k++) { // the rest of each part, in order
        Piece *pc = &pieces[k];
        if (pc->p == pc->end)
            continue;
        Csv part_csv = {.p = pc->p, .end = pc->end,
                        .line = first_line + (pc->part.row - row0)};
        st = csv_rows(ld, &pc->part, &part_csv, col_of, n_cols, field_of);
        fx_buf_free(&part_csv.text);
        fx_vec_free(&part_csv.cells);
        // Without quotes a row is a line: the LFs counted every row.
        FX_ASSERT(st != FX_OK || pc->part.row == pc->part.row_end);
    }
    for (unsigned k = 0; k < n && st == FX_OK; k++)
        join_part(ld, &pieces[k].part);
    if (st == FX_OK && strings) { // charged now: the bytes kept, for the room made
        fx_meter_sub(size);
        ld->charged -= size;
        size_t kept = 0;
        for (size_t f = 0; f < ld->n_fields; f++)
            if (ld->cols[f].kind == FX_COL_STRING)
                kept += ld->cols[f].u.offsets[rows] - ld->cols[f].u.offsets[row0];
        fx_meter_add(kept);
        ld->charged += kept;
    }
    c->line = first_line + (rows - row0);
out:
    for (unsigned k = 0; k < n; k++) {
        if (pieces[k].part.strs)
            for (size_t f = 0; f < ld->n_fields; f++)
                free(pieces[k].part.strs[f].bytes);
        free(pieces[k].part.strs);
    }
    c->p = c->end;
    return st;
}

/* Where the file's data ends: before its last line ends and any blank
 * lines after them, which are not rows. */
static const char *data_end(const char *p, const char *end)
{
    while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    return end;
}

/* A file is read a window of CSV_WINDOW bytes at a time, cut after its
 * last line end, so that a large file is never held whole: its rows go
 * into the columns as each window is read. A window with a quote in it
 * may hold a cell that goes on past the window: from there the rest of
 * the file is read whole, and one reader reads it. */
#ifdef FX_SMALL_CHUNKS
#define CSV_WINDOW ((size_t)4 << 10)
#else
#define CSV_WINDOW ((size_t)16 << 20)
#endif

/* The header, and which field each column is (-1: none). */
static FxStatus csv_columns(Load *ld, Csv *c, size_t *col_of, int **out_field_of, size_t *n_cols)
{
    FxStatus st = csv_header(ld, c, col_of);
    if (st != FX_OK)
        return st;
    *n_cols = c->cells.len;
    int *field_of = *out_field_of = fx_xmalloc(*n_cols * sizeof(*field_of));
    for (size_t j = 0; j < *n_cols; j++)
        field_of[j] = -1;
    for (size_t i = 0; i < ld->n_fields; i++)
        field_of[col_of[i]] = (int)i;
    return FX_OK;
}

/* The pieces to scan and read [c->p, c->end) in: as many as threads its
 * size pays for. */
static unsigned csv_pieces(const Csv *c)
{
    size_t size = (size_t)(c->end - c->p);
    unsigned n = fx_device_threads(fx_device_cpu(), (double)size, (double)CSV_PARALLEL_FROM);
    return n > CSV_MAX_PARTS ? CSV_MAX_PARTS : n;
}

/* The file at path opened for reading when it is a regular file, else
 * NULL (errno EINVAL for a FIFO, a device or a socket: a read of one may
 * wait past any budget, and it is never opened for real: O_NONBLOCK makes
 * opening a FIFO return at once). */
static FILE *open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat info;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    return f;
}

static FxStatus csv_load(Load *ld)
{
    FxStatus st = FX_OK;
    Reader readers[2] = {{.f = open_regular(ld->file)}, {0}}, *rd = &readers[0];
    size_t *col_of = fx_xcalloc(ld->n_fields, sizeof(*col_of)), n_cols = 0;
    int *field_of = NULL, err = 0;
    Csv c = {.line = 1};
    if (!rd->f) {
        st = cannot_read(ld, errno == EINVAL ? "it is not a regular file (a FIFO, a device or "
                                               "a socket), whose reads could wait past any budget"
                                             : strerror(errno));
        goto out;
    }
    // A file smaller than a window is read in one (and charged its size).
    struct stat info = {0};
    size_t skip = 0, window = 1 << 16, read_bytes = 0;
    if (fstat(fileno(rd->f), &info) == 0 && S_ISREG(info.st_mode))
        window = (size_t)info.st_size < CSV_WINDOW ? (size_t)info.st_size + 1 : CSV_WINDOW;
    for (;;) {
        if ((err = reader_fill(rd, window)) != 0)
            break;
        if (!field_of && rd->len >= 3 && memcmp(rd->buf, "\xEF\xBB\xBF", 3) == 0)
            skip = 3; // a UTF-8 byte-order mark, as spreadsheets write
        const char *p = rd->buf + skip, *end = rd->buf + rd->len;
        if (!rd->eof) { // cut after the line end of the last line that is not blank
            while (end > p && end[-1] != '\n') // (blank lines may be the file's last: data_end)
                end--;
            const char *q = end;
            while (q > p && (q[-1] == '\n' || q[-1] == '\r'))
                q--;
            const char *lf = q > p ? memchr(q, '\n', (size_t)(end - q)) : NULL;
            if (!lf) { // no such line yet: a larger window
                window *= 2;
                continue;
            }
            end = lf + 1;
        }
        if (!field_of) { // the header first: quoted names do not make the rows slow
            const char *lf = memchr(p, '\n', (size_t)(end - p));
            if ((st = csv_utf8(ld, p, lf ? (size_t)(lf + 1 - p) : (size_t)(end - p), c.line)) !=
                FX_OK) // before its names are matched
                goto out;
            c.p = p;
            c.end = rd->eof ? data_end(p, end) : end;
            if ((st = csv_columns(ld, &c, col_of, &field_of, &n_cols)) != FX_OK)
                goto out;
            p = c.p;
        }
        // One pass over the rows, on the threads: their lines, and whether
        // any byte is not ASCII (then the UTF-8 check) or a quote.
        c.p = p;
        c.end = rd->eof ? data_end(p, end) : end;
        Piece pieces[CSV_MAX_PARTS];
        unsigned n = c.p < c.end ? csv_pieces(&c) : 0;
        bool ascii = true, quotes = false;
        if (n)
            csv_scan(&c, pieces, n);
        for (unsigned k = 0; k < n; k++) {
            ascii &= pieces[k].ascii;
            quotes |= pieces[k].quotes;
        }
        if (!ascii && (st = csv_utf8(ld, p, (size_t)(end - p), c.line)) != FX_OK)
            goto out;
        if (quotes && !quotes_stay_on_lines(p, end)) { // the rest whole, one reader
            size_t from = (size_t)(p - rd->buf), checked = (size_t)(end - rd->buf);
            size_t line = c.line + count_lines(p, end); // the line at `checked`
            while (!rd->eof && (err = reader_fill(rd, rd->cap * 2)) == 0)
                ; // (the block moves: offsets from here)
            if (err)
                break;
            p = rd->buf + from;
            if ((st = csv_utf8(ld, rd->buf + checked, rd->len - checked, line)) != FX_OK)
                goto out;
            c.p = p;
            c.end = data_end(p, rd->buf + rd->len);
            Part pt = whole_begin(ld);
            st = csv_rows(ld, &pt, &c, col_of, n_cols, field_of);
            whole_end(ld, &pt, st == FX_OK);
            goto out;
        }
        // The next window is read meanwhile, into the other block, after
        // the part line that follows this one.
        Reader *next = rd == &readers[0] ? &readers[1] : &readers[0];
        Ahead ahead = {next, 0};
        pthread_t reader;
        bool reading = false;
        if (!rd->eof) {
            if (!reader_room(next, window)) {
                err = -1;
                break;
            }
            next->f = rd->f;
            next->len = rd->len - (size_t)(end - rd->buf);
            next->eof = false;
            memcpy(next->buf, end, next->len);
            reading = pthread_create(&reader, NULL, read_ahead, &ahead) == 0;
        }
        if (n)
            st = csv_split(ld, &c, col_of, n_cols, field_of, pieces, n);
        if (reading)
            pthread_join(reader, NULL);
        else if (!rd->eof)
            ahead.err = reader_read(next, false);
        if (st != FX_OK)
            goto out;
        if (rd->eof)
            break;
        if ((err = ahead.err) != 0 || !fx_meter_poll()) {
            err = err ? err : -1;
            break;
        }
        read_bytes += (size_t)(end - rd->buf);
        if (!ld->expect_rows && S_ISREG(info.st_mode)) // this window's rows a byte, and 1/16 more
            ld->expect_rows = (size_t)((double)ld->n_rows / (double)read_bytes *
                                       (double)info.st_size * (17.0 / 16.0));
        rd = next;
        skip = 0;
    }
    if (err)
        st = err < 0 ? over_budget(ld) : cannot_read(ld, strerror(err));
out:
    if (readers[0].f)
        fclose(readers[0].f);
    fx_buf_free(&c.text);
    fx_vec_free(&c.cells);
    free(col_of);
    free(field_of);
    for (int k = 0; k < 2; k++) {
        free(readers[k].buf);
        fx_meter_sub(readers[k].charged);
    }
    return st;
}

/* ----------------------------------------------------------------- SQLite */

/* An SQL identifier in double quotes, with any '"' inside doubled. */
static void put_ident(FxBuf *b, const char *name)
{
    fx_buf_putc(b, '"');
    for (const char *s = name; *s; s++) {
        if (*s == '"')
            fx_buf_putc(b, '"');
        fx_buf_putc(b, *s);
    }
    fx_buf_putc(b, '"');
}

/* SELECT "f1", "f2" FROM "table"; caller frees. */
static char *select_sql(const Load *ld, const char *table)
{
    FxBuf b = {0};
    fx_buf_puts(&b, "SELECT ");
    for (size_t i = 0; i < ld->n_fields; i++) {
        if (i > 0)
            fx_buf_puts(&b, ", ");
        put_ident(&b, field_name(ld, i));
    }
    fx_buf_puts(&b, " FROM ");
    put_ident(&b, table);
    return fx_buf_take(&b);
}

/* Field i of the current row of stmt, the row'th of the table. */
static FxStatus sqlite_field(Load *ld, sqlite3_stmt *stmt, size_t i, size_t row)
{
    FxTypeKind kind = field_kind(ld, i);
    int col = (int)i, type = sqlite3_column_type(stmt, col);
    if (type == SQLITE_NULL)
        return fail(ld, "%s: row %zu: column `%s` is NULL", ld->where, row, field_name(ld, i));
    // Values already of the declared kind need no text round trip; a REAL
    // in particular would lose digits as text.
    if (type == SQLITE_INTEGER) {
        sqlite3_int64 v = sqlite3_column_int64(stmt, col);
        if (kind == FX_TY_INT || (kind == FX_TY_NATURAL && v >= 0)) {
            ld->fields[i] = fx_val_int(v);
            return FX_OK;
        }
        if (kind == FX_TY_FLOAT) {
            ld->fields[i] = fx_val_float((double)v);
            return FX_OK;
        }
    }
    if (type == SQLITE_FLOAT && kind == FX_TY_FLOAT) {
        ld->fields[i] = fx_val_float(sqlite3_column_double(stmt, col));
        return FX_OK;
    }
    // Everything else is read as a CSV cell would be: big integers stored
    // as TEXT, booleans as 0/1, numbers for a String field.
    const char *s = (const char *)sqlite3_column_text(stmt, col);
    size_t len = (size_t)sqlite3_column_bytes(stmt, col);
    if (!s) { // a zero-length BLOB
        s = "";
        len = 0;
    }
    const char *why = NULL;
    size_t bad = fx_utf8_check(s, len, &why);
    if (bad < len) // SQLite keeps whatever bytes a TEXT was given
        return fail(ld, "%s: row %zu: column `%s`: invalid UTF-8 byte 0x%02x at byte %zu of "
                    "the value: %s", ld->where, row, field_name(ld, i),
                    (unsigned char)s[bad], bad + 1, why);
    if (field_from_text(ld, i, s, len))
        return FX_OK;
    char *where = fx_xasprintf("%s: row %zu", ld->where, row);
    FxStatus st = bad_cell(ld, where, i, s, len);
    free(where);
    return st;
}

/* The path as a file: URI (percent-encoding what a URI would read as
 * its own: '?', '#', '%' and bytes outside printable ASCII). */
static void put_uri_path(FxBuf *b, const char *path)
{
    fx_buf_puts(b, path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '?' || *p == '#' || *p == '%' || *p <= ' ' || *p >= 0x7f)
            fx_buf_printf(b, "%%%02X", *p);
        else
            fx_buf_putc(b, (char)*p);
    }
}

/* Whether the file's header says WAL mode (bytes 18 and 19 are 2). */
static bool wal_mode(const char *path)
{
    unsigned char head[20];
    FILE *f = open_regular(path);
    bool wal = f && fread(head, 1, sizeof(head), f) == sizeof(head) && head[18] == 2 &&
               head[19] == 2;
    if (f)
        fclose(f);
    return wal;
}

char *fx_data_sqlite_uri(const char *path, bool *immutable)
{
    FxBuf b = {0};
    char *wal = fx_xasprintf("%s-wal", path), *shm = fx_xasprintf("%s-shm", path);
    struct stat st;
    *immutable = wal_mode(path) && (stat(wal, &st) != 0 || st.st_size == 0);
    put_uri_path(&b, path);
    if (*immutable)
        fx_buf_puts(&b, "?immutable=1");
    else /* the readers' marks in -shm are not written: SQLite reads the log itself */
        fx_buf_puts(&b, access(shm, F_OK) == 0 ? "?mode=ro&readonly_shm=1" : "?mode=ro");
    free(wal);
    free(shm);
    return fx_buf_take(&b);
}

/* Whether a file stat()ed twice is the same file, unwritten between. */
static bool unchanged(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static FxStatus sqlite_load(Load *ld, const char *table)
{
    FxStatus st = FX_OK;
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    char *sql = NULL, *uri = NULL;
    bool immutable;
    struct stat before, after;
    Part pt = {0};

    // SQLite's own message for a missing file is vaguer than errno's.
    if (access(ld->file, R_OK) != 0) {
        st = cannot_read(ld, strerror(errno));
        goto out;
    }
    uri = fx_data_sqlite_uri(ld->file, &immutable);
    if (stat(ld->file, &before) != 0) {
        st = cannot_read(ld, strerror(errno));
        goto out;
    }
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        st = cannot_read(ld, db ? sqlite3_errmsg(db) : "out of memory");
        goto out;
    }
    // Else SQLite reads a quoted name that matches no column as a string
    // literal, and a missing column would load as its own name.
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
    sql = select_sql(ld, table);
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        st = fail(ld, "%s: %s", ld->where, sqlite3_errmsg(db));
        goto out;
    }
    pt = whole_begin(ld);
    for (size_t row = 1;; row++) {
        int rc = sqlite3_step(stmt);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            st = fail(ld, "%s: row %zu: %s", ld->where, row, sqlite3_errmsg(db));
            goto out;
        }
        for (size_t i = 0; i < ld->n_fields && st == FX_OK; i++)
            st = sqlite_field(ld, stmt, i, row);
        if (st == FX_OK)
            st = push_row(ld, &pt);
        if (st != FX_OK)
            goto out;
    }
    if (immutable) { // read without locks: a writer that came meanwhile shows in the stamp
        if (stat(ld->file, &after) != 0 || !unchanged(&before, &after))
            st = fail(ld, "%s: the file changed while it was read; run again", ld->where);
    }
out:
    if (pt.strs)
        whole_end(ld, &pt, st == FX_OK);
    sqlite3_finalize(stmt); // both NULL-safe
    sqlite3_close(db);
    free(sql);
    free(uri);
    return st;
}

/* ------------------------------------------------------------------- load */

/* Checks what the checker should have: a List or Stream of a record whose
 * fields are all scalars. Sets ld->rec. */
static FxStatus check_shape(Load *ld)
{
    const FxType *t = ld->dd->type;
    if (!t || (t->kind != FX_TY_LIST && t->kind != FX_TY_STREAM) || !t->elem ||
        t->elem->kind != FX_TY_RECORD || !t->elem->record || !t->elem->record->field_types)
        return fail(ld, "data source `%s` is not a checked List or Stream of records",
                    ld->dd->name);
    ld->rec = t->elem->record;
    ld->n_fields = ld->rec->def->n_fields;
    for (size_t i = 0; i < ld->n_fields; i++) {
        const FxType *ft = ld->rec->field_types[i];
        if (!ft || ft->kind < FX_TY_NATURAL || ft->kind > FX_TY_STRING)
            return fail(ld, "field `%s` of `%s` is not a number, string or boolean",
                        field_name(ld, i), ld->rec->name);
    }
    return FX_OK;
}

/* The file dd reads: the checker's resolved path, or for an unchecked
 * declaration (tests, embedders) the path as written, less any `:table`.
 * Caller frees. */
static char *source_file(const FxDataDecl *dd)
{
    if (dd->resolved_path)
        return fx_xstrdup(dd->resolved_path);
    const char *colon = strrchr(dd->path, ':');
    return fx_xstrndup(dd->path, colon ? (size_t)(colon - dd->path) : strlen(dd->path));
}

/* Is the real path `real` root or below it? */
static bool lies_in(const char *root, const char *real)
{
    size_t n = strlen(root);
    if (n > 0 && root[n - 1] == '/') // "/" itself
        n--;
    return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

char *fx_data_folder(const char *file)
{
    const char *slash = strrchr(file, '/');
    char *dir = slash ? fx_xstrndup(file, slash == file ? 1 : (size_t)(slash - file))
                      : fx_xstrdup(".");
    char *real = realpath(dir, NULL);
    free(dir);
    return real;
}

char *fx_data_outside(const FxDataDecl *dd, const char *root)
{
    char *file = source_file(dd), *real = realpath(file, NULL);
    if (!real) { // not there (yet): placed by its folder
        char *dir = fx_data_folder(file);
        const char *slash = strrchr(file, '/');
        if (dir)
            real = fx_xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", slash ? slash + 1 : file);
        free(dir);
    }
    free(file);
    if (real && lies_in(root, real)) {
        free(real);
        real = NULL;
    }
    return real;
}

/* Reads the source into ld->rows: `file.db:table` names an SQLite table
 * (the checker resolved only the file part), any other path a CSV file. */
static FxStatus load_rows(Load *ld)
{
    const char *colon = strrchr(ld->dd->path, ':');
    if (!colon) {
        ld->where = fx_xstrdup(ld->file);
        return csv_load(ld);
    }
    ld->where = fx_xasprintf("%s:%s", ld->file, colon + 1);
    return sqlite_load(ld, colon + 1);
}

/* The columns, shrunk to the rows read, as a list; the load keeps none. */
static FxValue take_table(Load *ld)
{
    size_t n = ld->n_rows;
    for (size_t f = 0; f < ld->n_fields; f++) {
        FxColumn *c = &ld->cols[f];
        size_t extra = c->kind == FX_COL_STRING;
        size_t cells = n + extra ? n + extra : 1;
        c->u.ints = fx_xrealloc(c->u.ints, cells * fx_table_cell_bytes(c->kind));
        if (extra)
            c->bytes = fx_xrealloc(c->bytes, c->u.offsets[n] ? c->u.offsets[n] : 1);
    }
    FxTable *t = fx_xmalloc(sizeof(*t));
    *t = (FxTable){n, ld->n_fields, (const char *const *)ld->rec->def->field_names, ld->cols};
    ld->cols = NULL;
    fx_meter_sub(ld->charged);
    ld->charged = 0;
    return fx_val_list_of_table(t);
}

/* Frees the columns of a load that failed. */
static void drop_columns(Load *ld)
{
    for (size_t f = 0; ld->cols && f < ld->n_fields; f++) {
        FxColumn *c = &ld->cols[f];
        if (c->kind == FX_COL_VALUES)
            for (size_t r = 0; r < ld->cap; r++)
                fx_value_release(c->u.values[r]);
        free(c->u.ints);
        free(c->bytes);
    }
    free(ld->cols);
    fx_meter_sub(ld->charged);
}

FxStatus fx_data_load(const FxDataDecl *dd, const char *root, FxValue *out, FxError *err)
{
    Load ld = {.dd = dd, .err = err};
    char *file = source_file(dd), *outside = NULL;
    *out = (FxValue){.kind = FX_VAL_UNIT};
    fx_error_clear(err);

    FxStatus st = check_shape(&ld);
    if (st != FX_OK)
        goto out;
    ld.fields = fx_xcalloc(ld.n_fields, sizeof(*ld.fields)); // zeroed: all UNIT
    ld.cols = fx_xcalloc(ld.n_fields, sizeof(*ld.cols));
    for (size_t i = 0; i < ld.n_fields; i++)
        ld.cols[i].kind = column_kind(field_kind(&ld, i));
    ld.file = file;
    // Checked again here, not only at load: a link may have changed since.
    if (root && (outside = fx_data_outside(dd, root))) {
        st = fail(&ld, "data source `%s` reads `%s`, outside the program's folder `%s`, "
                  "where its sources must lie", dd->name, outside, root);
        goto out;
    }
    struct stat info; /* an SQLite file is opened by SQLite: looked at first */
    if (stat(file, &info) == 0 && !S_ISREG(info.st_mode)) {
        st = cannot_read(&ld, "it is not a regular file (a FIFO, a device or a socket), whose "
                         "reads could wait past any budget");
        goto out;
    }
    st = grow_columns(&ld, 16); // columns from the start: a source may have no row
    if (st == FX_OK)
        st = load_rows(&ld);
    if (st == FX_OK)
        *out = take_table(&ld);
out:
    if (ld.fields)
        drop_fields(&ld);
    drop_columns(&ld);
    free(ld.fields);
    free(ld.where);
    free(file);
    free(outside);
    return st;
}

/* ---- stamps: has the file changed since it was read? ---- */

/* A hash of the file's bytes, 8 at a time; 0 when it cannot be read. */
static uint64_t file_hash(const char *path)
{
    FILE *f = open_regular(path);
    if (!f)
        return 0;
    uint64_t h = 0x9E3779B97F4A7C15ULL, block[512];
    size_t got;
    while ((got = fread(block, 1, sizeof(block), f)) > 0) {
        memset((char *)block + got, 0, sizeof(block) - got);
        for (size_t i = 0; i < (got + 7) / 8; i++) {
            h ^= block[i] + got;
            h *= 0xBF58476D1CE4E5B9ULL;
            h ^= h >> 31;
        }
    }
    fclose(f);
    return h;
}

/* Within this many seconds of a change, file times cannot tell a second
 * change from the first: coarse clocks tick in milliseconds, and some file
 * systems keep whole seconds. */
#define RACY_SECONDS 2

static FxFileStamp file_stamp(const char *path, bool hash)
{
    struct stat st;
    FxFileStamp s = {0};
    if (stat(path, &st) != 0)
        return s;
    s.exists = true;
    s.dev = (unsigned long long)st.st_dev;
    s.ino = (unsigned long long)st.st_ino;
    s.size = (long long)st.st_size;
    s.mtime = st.st_mtim;
    s.ctime = st.st_ctim;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    // only a regular file's bytes can be hashed: a device or a pipe may never end
    s.racy = S_ISREG(st.st_mode) && (now.tv_sec - st.st_mtim.tv_sec <= RACY_SECONDS ||
                                     now.tv_sec - st.st_ctim.tv_sec <= RACY_SECONDS);
    s.hashed = S_ISREG(st.st_mode) && (s.racy || hash);
    if (s.hashed)
        s.hash = file_hash(path);
    return s;
}

FxDataStamp fx_data_stamp_against(const FxDataDecl *dd, const FxDataStamp *then)
{
    char *file = source_file(dd);
    FxDataStamp s = {.file = file_stamp(file, then && then->file.racy)};
    if (strrchr(dd->path, ':')) { /* SQLite: a commit may sit in the log, not yet in the file */
        char *wal = fx_xasprintf("%s-wal", file);
        s.wal = file_stamp(wal, then && then->wal.racy);
        free(wal);
    }
    free(file);
    return s;
}

FxDataStamp fx_data_stamp(const FxDataDecl *dd)
{
    return fx_data_stamp_against(dd, NULL);
}

static bool file_stamp_equal(const FxFileStamp *a, const FxFileStamp *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec &&
           (!(a->racy || b->racy) || (a->hashed && b->hashed && a->hash == b->hash));
}

bool fx_data_stamp_equal(const FxDataStamp *a, const FxDataStamp *b)
{
    return file_stamp_equal(&a->file, &b->file) && file_stamp_equal(&a->wal, &b->wal);
}
