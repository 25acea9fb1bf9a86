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

#include "base/utf8.h"

#include <errno.h>
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

/* One load in progress. */
typedef struct Load {
    const FxDataDecl *dd;
    const FxTypeDecl *rec; /* the element type: a record of scalars */
    size_t n_fields;
    const char *file;     /* the file read: dd->resolved_path */
    char *where;          /* what messages name: the file, or "file:table" */
    FxValue *fields;      /* the row being built; UNIT where not yet set */
    FX_VEC(FxValue) rows; /* finished records, owned */
    FxError *err;
} Load;

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

static FxStatus cannot_read(Load *ld, const char *reason)
{
    return fail(ld, "cannot read data file `%s` for `%s`: %s", ld->file, ld->dd->name, reason);
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

/* Makes a record of the completed row and appends it; the list of rows
 * doubles, charged first. */
static FxStatus push_row(Load *ld)
{
    if (ld->rows.len == ld->rows.cap) {
        size_t cap = ld->rows.cap ? 2 * ld->rows.cap : 64;
        if (!fx_meter_charge((cap - ld->rows.cap) * sizeof(FxValue)))
            return over_budget(ld);
        ld->rows.data = fx_xrealloc(ld->rows.data, cap * sizeof(FxValue));
        ld->rows.cap = cap;
    }
    // The names are the program's, which outlives every value of a run.
    FxValue r = fx_val_record(ld->n_fields, (const char *const *)ld->rec->def->field_names,
                              ld->fields);
    drop_fields(ld); // the record retained what it keeps
    ld->rows.data[ld->rows.len++] = r;
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

/* Is the rest of the file empty or blank lines only? Then it is consumed:
 * an editor's trailing newlines are not rows. */
static bool at_blank_tail(Csv *c)
{
    const char *q = c->p;
    while (q < c->end && (*q == '\r' || *q == '\n'))
        q++;
    if (q < c->end)
        return false;
    c->p = c->end;
    return true;
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
    if (at_blank_tail(c))
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

/* Converts the row read last, which started on `line`, into a record. */
static FxStatus csv_record(Load *ld, const Csv *c, const size_t *col_of, size_t n_cols,
                           size_t line)
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
    return push_row(ld);
}

/* Reads all of path into *out, NUL-terminated (caller frees, and credits
 * *out_charged to the meter); returns 0, an errno, or -1 when the run's
 * budget stopped the read. The buffer doubles, charged first, or grows by
 * what the memory budget still allows, and the clock is looked at after
 * every chunk. */
static int read_file(const char *path, char **out, size_t *out_len, size_t *out_charged)
{
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    int err = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno;
    for (;;) {
        if (cap - len < (1 << 14) + 1) {
            size_t more = cap ? cap : 1 << 16, room = fx_meter_room();
            more = more > room && room > (1 << 14) + 1 ? room : more;
            if (!fx_meter_charge(more)) {
                err = -1;
                break;
            }
            buf = fx_xrealloc(buf, cap + more);
            cap += more;
        }
        size_t want = cap - len - 1 < (1 << 20) ? cap - len - 1 : 1 << 20; /* a look a MB */
        if ((n = fread(buf + len, 1, want, f)) == 0)
            break;
        len += n;
        if (!fx_meter_poll()) {
            err = -1;
            break;
        }
    }
    if (!err && ferror(f))
        err = errno ? errno : EIO;
    fclose(f);
    if (buf)
        buf[len] = '\0';
    *out_len = len;
    *out = buf;
    *out_charged = cap;
    return err;
}

/* Every Flux string is UTF-8, and JSON output must be: the first byte of
 * the file that is not is refused at its line and column (counted in code
 * points, as the compiler counts them), before anything is read from it. */
static FxStatus csv_utf8(Load *ld, const char *text, size_t len)
{
    const char *why = NULL;
    size_t bad = fx_utf8_check(text, len, &why), line = 1, col = 1;
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

static FxStatus csv_load(Load *ld)
{
    FxStatus st = FX_OK;
    char *data = NULL;
    size_t len = 0, charged = 0;
    size_t *col_of = fx_xcalloc(ld->n_fields, sizeof(*col_of));
    Csv c = {0};

    int err = read_file(ld->file, &data, &len, &charged);
    if (err) {
        st = err < 0 ? over_budget(ld) : cannot_read(ld, strerror(err));
        goto out;
    }
    c = (Csv){.p = data, .end = data + len, .line = 1};
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        c.p += 3; // a UTF-8 byte-order mark, as spreadsheets write
    st = csv_utf8(ld, c.p, (size_t)(c.end - c.p));
    if (st == FX_OK)
        st = csv_header(ld, &c, col_of);
    size_t n_cols = c.cells.len;
    while (st == FX_OK) {
        size_t line = c.line;
        bool got;
        st = csv_row(ld, &c, &got);
        if (st != FX_OK || !got)
            break;
        st = csv_record(ld, &c, col_of, n_cols, line);
    }
out:
    fx_buf_free(&c.text);
    fx_vec_free(&c.cells);
    free(col_of);
    free(data);
    fx_meter_sub(charged);
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
    FILE *f = fopen(path, "rb");
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
            st = push_row(ld);
        if (st != FX_OK)
            goto out;
    }
    if (immutable) { // read without locks: a writer that came meanwhile shows in the stamp
        if (stat(ld->file, &after) != 0 || !unchanged(&before, &after))
            st = fail(ld, "%s: the file changed while it was read; run again", ld->where);
    }
out:
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
    ld.file = file;
    // Checked again here, not only at load: a link may have changed since.
    if (root && (outside = fx_data_outside(dd, root))) {
        st = fail(&ld, "data source `%s` reads `%s`, outside the program's folder `%s`, "
                  "where its sources must lie", dd->name, outside, root);
        goto out;
    }
    st = load_rows(&ld);
    if (st == FX_OK) { // the list takes the rows, array and references
        *out = fx_val_list_adopt(ld.rows.data, ld.rows.len, ld.rows.cap, false);
        ld.rows.data = NULL;
        ld.rows.len = ld.rows.cap = 0;
    }
out:
    if (ld.fields)
        drop_fields(&ld);
    fx_vec_foreach(FxValue, r, &ld.rows) fx_value_release(*r);
    fx_meter_sub(ld.rows.cap * sizeof(FxValue));
    fx_vec_free(&ld.rows);
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
    FILE *f = fopen(path, "rb");
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

static FxFileStamp file_stamp(const char *path)
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
    if (s.racy)
        s.hash = file_hash(path);
    return s;
}

FxDataStamp fx_data_stamp(const FxDataDecl *dd)
{
    char *file = source_file(dd);
    FxDataStamp s = {.file = file_stamp(file)};
    if (strrchr(dd->path, ':')) { /* SQLite: a commit may sit in the log, not yet in the file */
        char *wal = fx_xasprintf("%s-wal", file);
        s.wal = file_stamp(wal);
        free(wal);
    }
    free(file);
    return s;
}

static bool file_stamp_equal(const FxFileStamp *a, const FxFileStamp *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec &&
           (!(a->racy || b->racy) || (a->racy && b->racy && a->hash == b->hash));
}

bool fx_data_stamp_equal(const FxDataStamp *a, const FxDataStamp *b)
{
    return file_stamp_equal(&a->file, &b->file) && file_stamp_equal(&a->wal, &b->wal);
}
