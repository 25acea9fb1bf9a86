/*
 * recover.c: `flux store check` and `flux store recover` (store.h): a
 * damaged store's integrity check, and a new store keeping what of it is
 * readable.
 *
 * DESIGN
 *
 * Both read the damaged database through guard.c's reader, so neither
 * changes it. The B-trees are read as SQL first, table by table, in the
 * order of the new schema's tables, and every column the two tables share
 * is copied, so an older store's rows land in today's schema. A table SQL
 * could not read whole (a gap, or a schema that does not read) is then
 * read below its B-tree, from its pages (pagescan.h, as sqlite3's
 * `.recover` does, which is not in the C API): the rows its leaves hold
 * that the SQL copy did not keep are added.
 *
 * A damaged page stops a scan with SQLITE_CORRUPT at the rows it holds.
 * For a table with rowids the scan starts again past them: from the rowid
 * after the last one copied, scans from farther and farther (+1, +2, +4,
 * ...) are tried until one starts, then a binary search between the last
 * that failed and the first that started finds the first rowid a scan can
 * start from, so no readable row after the damage is passed over. A table
 * without rowids (its key is text) is read forward to the damage and
 * backward from its end to the damage. What a scan cannot reach is counted
 * as a gap; what could be read is kept whole or not at all (a row is one
 * step). The new store is written in one transaction, with foreign keys
 * off: an execution whose version was lost is kept (and counted), since a
 * row-by-row read of the old store sees it too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "guard.h"
#include "pagescan.h"
#include "store.h"

/* The copy of one table in progress. */
typedef struct Copy {
    sqlite3 *old, *new_db;
    const char *table;
    char *cols;         /* the shared columns, quoted, comma-separated */
    char *pk, *pk_desc; /* a table without rowid: its key columns, quoted, and descending */
    int n_cols;
    sqlite3_stmt *ins;  /* INSERT OR REPLACE of the shared columns */
    int64_t kept, gaps;
    int64_t last;       /* the last rowid copied */
    bool copied_any;
} Copy;

static void put_ident(FxBuf *b, const char *name)
{
    fx_buf_putc(b, '"');
    for (const char *p = name; *p; p++) {
        if (*p == '"')
            fx_buf_putc(b, '"');
        fx_buf_putc(b, *p);
    }
    fx_buf_putc(b, '"');
}

/* Whether the old table has a column of this name. */
static bool old_has(sqlite3 *old, const char *table, const char *col)
{
    sqlite3_stmt *st = NULL;
    bool has = false;
    if (sqlite3_prepare_v2(old, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
                           NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) == SQLITE_OK &&
        sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC) == SQLITE_OK)
        has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return has;
}

/* The new table's columns that the old one has too, in the order of cid
 * (key: false), or its key's in key order (key: true), quoted into out
 * with `suffix` after each; returns how many. */
static int shared_columns(Copy *c, bool key, const char *suffix, FxBuf *out)
{
    sqlite3_stmt *st = NULL;
    int n = 0;
    if (sqlite3_prepare_v2(c->new_db,
                           key ? "SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk"
                               : "SELECT name FROM pragma_table_info(?1) ORDER BY cid",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, c->table, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!name || !old_has(c->old, c->table, name))
            continue;
        if (n++)
            fx_buf_putc(out, ',');
        put_ident(out, name);
        fx_buf_puts(out, suffix);
    }
    sqlite3_finalize(st);
    return n;
}

/* The columns both tables have (c->cols) and, for a table without rowid,
 * its key (c->pk, read in key order: the scans follow the key's B-tree);
 * then the INSERT. */
static bool plan(Copy *c, bool without_rowid)
{
    FxBuf cols = {0}, pk = {0}, desc = {0}, sql = {0};
    c->n_cols = shared_columns(c, false, "", &cols);
    if (without_rowid) {
        shared_columns(c, true, "", &pk);
        shared_columns(c, true, " DESC", &desc);
    }
    c->cols = fx_buf_take(&cols);
    c->pk = without_rowid ? fx_buf_take(&pk) : NULL;
    c->pk_desc = without_rowid ? fx_buf_take(&desc) : NULL;
    fx_buf_puts(&sql, "INSERT OR REPLACE INTO ");
    put_ident(&sql, c->table);
    fx_buf_printf(&sql, "(%s) VALUES (", c->cols);
    for (int i = 0; i < c->n_cols; i++)
        fx_buf_printf(&sql, i ? ", ?%d" : "?%d", i + 1);
    fx_buf_putc(&sql, ')');
    bool ok = c->n_cols > 0 && (!without_rowid || c->pk[0]) &&
              sqlite3_prepare_v2(c->new_db, fx_buf_str(&sql), -1, &c->ins, NULL) == SQLITE_OK;
    fx_buf_free(&sql);
    return ok;
}

/* Copies the current row of sel (its columns from `first` on) into the new table. */
static void keep_row(Copy *c, sqlite3_stmt *sel, int first)
{
    for (int i = 0; i < c->n_cols; i++)
        sqlite3_bind_value(c->ins, i + 1, sqlite3_column_value(sel, first + i));
    if (sqlite3_step(c->ins) == SQLITE_DONE)
        c->kept++;
    sqlite3_reset(c->ins);
    sqlite3_clear_bindings(c->ins);
}

/* A scan of the old table: rowid tables from a rowid on, the others in key
 * order (desc: from the end). */
static sqlite3_stmt *scan(Copy *c, int64_t from, bool desc)
{
    FxBuf sql = {0};
    sqlite3_stmt *st = NULL;
    if (c->pk)
        fx_buf_printf(&sql, "SELECT %s FROM ", c->cols);
    else
        fx_buf_printf(&sql, "SELECT rowid, %s FROM ", c->cols);
    put_ident(&sql, c->table);
    if (c->pk)
        fx_buf_printf(&sql, " ORDER BY %s", desc ? c->pk_desc : c->pk);
    else
        fx_buf_puts(&sql, " WHERE rowid >= ?1 ORDER BY rowid");
    if (sqlite3_prepare_v2(c->old, fx_buf_str(&sql), -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        st = NULL;
    } else if (!c->pk) {
        sqlite3_bind_int64(st, 1, from);
    }
    fx_buf_free(&sql);
    return st;
}

/* Whether a scan from rowid `from` starts (a row or the end), not damage. */
static bool starts(Copy *c, int64_t from)
{
    sqlite3_stmt *st = scan(c, from, false);
    int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

/* Copies rows from a scan until its end (SQLITE_DONE) or damage. */
static int copy_scan(Copy *c, sqlite3_stmt *st)
{
    int rc;
    if (!st)
        return SQLITE_CORRUPT;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!c->pk) {
            c->last = sqlite3_column_int64(st, 0);
            c->copied_any = true;
        }
        keep_row(c, st, c->pk ? 0 : 1);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The first rowid past the damage that a scan starts from, found between
 * bad (a scan from it fails) and farther; false when none does. */
static bool past_damage(Copy *c, int64_t bad, int64_t *out)
{
    int64_t step = 1, lo = bad, hi;
    for (;;) {
        if (bad > INT64_MAX - step)
            return false;
        hi = bad + step;
        if (starts(c, hi))
            break;
        lo = hi;
        if (step > INT64_MAX / 2)
            return false;
        step *= 2;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (starts(c, mid))
            hi = mid;
        else
            lo = mid;
    }
    *out = hi;
    return true;
}

static void copy_rowid_table(Copy *c)
{
    int64_t from = INT64_MIN;
    while (copy_scan(c, scan(c, from, false)) != SQLITE_DONE) {
        c->gaps++;
        int64_t bad = c->copied_any && c->last >= from ? c->last + 1 : from;
        if (bad < 0) /* the first scan failed: flux's rowids are positive */
            bad = 0;
        if (!past_damage(c, bad, &from))
            break;
    }
}

static void copy_keyed_table(Copy *c)
{
    if (copy_scan(c, scan(c, 0, false)) == SQLITE_DONE)
        return;
    c->gaps++;
    copy_scan(c, scan(c, 0, true)); /* from the end back to the damage */
}

/* Whether the old store has no such table (an older schema's), rather
 * than one it cannot read. */
static bool missing(sqlite3 *old, const char *table)
{
    FxBuf sql = {0};
    sqlite3_stmt *st = NULL;
    fx_buf_puts(&sql, "SELECT * FROM ");
    put_ident(&sql, table);
    bool none = sqlite3_prepare_v2(old, fx_buf_str(&sql), -1, &st, NULL) != SQLITE_OK &&
                !strncmp(sqlite3_errmsg(old), "no such table", 13);
    sqlite3_finalize(st);
    fx_buf_free(&sql);
    return none;
}

/* ---- below the B-trees: the rows of a table's pages (pagescan.h) ---- */

/* The insert of rows as a table's pages hold them: a rowid table's record
 * has its columns in the table's order (an INTEGER PRIMARY KEY's as NULL:
 * the rowid), a WITHOUT ROWID table's its key's columns first. */
typedef struct PageCopy {
    sqlite3_stmt *ins;
    int n_cols, rowid_col; /* rowid_col: the INTEGER PRIMARY KEY's position, or -1 */
    int64_t kept;
} PageCopy;

static void page_row(void *ctx, int64_t rowid, const FxCell *cells, int n)
{
    PageCopy *pc = ctx;
    for (int i = 0; i < pc->n_cols; i++) {
        const FxCell *c = i < n ? &cells[i] : NULL;
        if (i == pc->rowid_col && (!c || c->kind == FX_CELL_NULL))
            sqlite3_bind_int64(pc->ins, i + 1, rowid);
        else if (!c || c->kind == FX_CELL_NULL)
            sqlite3_bind_null(pc->ins, i + 1);
        else if (c->kind == FX_CELL_INT)
            sqlite3_bind_int64(pc->ins, i + 1, c->i);
        else if (c->kind == FX_CELL_FLOAT)
            sqlite3_bind_double(pc->ins, i + 1, c->f);
        else if (c->kind == FX_CELL_TEXT)
            sqlite3_bind_text(pc->ins, i + 1, (const char *)c->p, (int)c->len, SQLITE_TRANSIENT);
        else
            sqlite3_bind_blob(pc->ins, i + 1, c->p, (int)c->len, SQLITE_TRANSIENT);
    }
    if (n <= pc->n_cols + 1 && sqlite3_step(pc->ins) == SQLITE_DONE)
        pc->kept += sqlite3_changes(sqlite3_db_handle(pc->ins));
    sqlite3_reset(pc->ins);
    sqlite3_clear_bindings(pc->ins);
}

/* The rows of table the pages hold that the SQL copy did not keep, added
 * (a row kept already is left as it is); how many. */
static int64_t copy_pages(FxPageScan *ps, sqlite3 *new_db, const char *table, bool without_rowid)
{
    sqlite3_stmt *st = NULL;
    FxBuf cols = {0}, sql = {0};
    PageCopy pc = {.rowid_col = -1};
    /* the record's order: a WITHOUT ROWID table's key first, in key order */
    const char *order = without_rowid
                                ? "SELECT name, pk, type FROM pragma_table_info(?1)"
                                  " ORDER BY pk = 0, CASE WHEN pk > 0 THEN pk ELSE cid END"
                                : "SELECT name, pk, type FROM pragma_table_info(?1) ORDER BY cid";
    int pks = 0;
    if (sqlite3_prepare_v2(new_db, order, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *type = (const char *)sqlite3_column_text(st, 2);
            if (sqlite3_column_int(st, 1) > 0) {
                pks++;
                if (!without_rowid && type && !strcasecmp(type, "INTEGER"))
                    pc.rowid_col = pc.n_cols;
            }
            if (pc.n_cols++)
                fx_buf_putc(&cols, ',');
            put_ident(&cols, (const char *)sqlite3_column_text(st, 0));
        }
    }
    sqlite3_finalize(st);
    if (pks != 1)
        pc.rowid_col = -1; /* a key of several columns is no rowid */
    fx_buf_puts(&sql, "INSERT OR IGNORE INTO ");
    put_ident(&sql, table);
    fx_buf_printf(&sql, "(%s) VALUES (", fx_buf_str(&cols));
    for (int i = 0; i < pc.n_cols; i++)
        fx_buf_printf(&sql, i ? ", ?%d" : "?%d", i + 1);
    fx_buf_putc(&sql, ')');
    if (pc.n_cols && sqlite3_prepare_v2(new_db, fx_buf_str(&sql), -1, &pc.ins, NULL) == SQLITE_OK)
        fx_pagescan_rows(ps, table, page_row, &pc);
    sqlite3_finalize(pc.ins);
    fx_buf_free(&cols);
    fx_buf_free(&sql);
    return pc.kept;
}

/* The tables of the new store, in the order they were made. */
typedef void (*TableFn)(void *ctx, const char *table, int64_t kept, int64_t gaps);

static FxStatus copy_tables(sqlite3 *old, sqlite3 *new_db, FxPageScan *ps, TableFn fn,
                            void *ctx)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(new_db,
                           "SELECT name, sql LIKE '%WITHOUT ROWID%' FROM sqlite_master"
                           " WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return FX_ERR_STORE;
    while (sqlite3_step(st) == SQLITE_ROW) {
        Copy c = {.old = old, .new_db = new_db, .table = (const char *)sqlite3_column_text(st, 0)};
        if (plan(&c, sqlite3_column_int(st, 1) != 0)) {
            if (c.pk)
                copy_keyed_table(&c);
            else
                copy_rowid_table(&c);
        } else if (!missing(old, c.table)) {
            c.gaps = 1; /* the old store has it, but not readably */
        }
        if (c.gaps && ps) /* what SQL could not reach: read from its pages */
            c.kept += copy_pages(ps, new_db, c.table, sqlite3_column_int(st, 1) != 0);
        fn(ctx, c.table, c.kept, c.gaps);
        sqlite3_finalize(c.ins);
        free(c.cols);
        free(c.pk);
        free(c.pk_desc);
    }
    sqlite3_finalize(st);
    return FX_OK;
}

static FxStatus fail(char *why, size_t len, const char *fmt, const char *a, const char *b)
{
    snprintf(why, len, fmt, a, b);
    return FX_ERR_STORE;
}

/* DIR/records.log (reclog.h), copied as it is into NEW_DIR: its frames
 * name executions and versions by the ids the copy keeps, and the new
 * store's first reader moves them into its database (a frame whose
 * version was lost is passed over there). Returns 0 or an errno. */
static int copy_log(const char *dir, const char *new_dir)
{
    char *from = fx_xasprintf("%s/records.log", dir), *to = fx_xasprintf("%s/records.log", new_dir);
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    int e = in && !out ? errno : 0;
    char buf[1 << 16];
    size_t n;
    while (out && !e && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            e = errno ? errno : EIO;
    if (in && ferror(in))
        e = EIO;
    if (out && fclose(out) != 0 && !e)
        e = errno;
    if (in)
        fclose(in);
    free(from);
    free(to);
    return e;
}

FxStatus fx_store_recover(const char *dir, const char *new_dir, TableFn fn, void *ctx, char *why,
                          size_t why_len)
{
    char *old_path = fx_xasprintf("%s/flux.db", dir), *new_path = fx_xasprintf("%s/flux.db", new_dir);
    sqlite3 *old = NULL, *new_db = NULL;
    FxStore *made = NULL;
    FxStatus r = FX_OK;
    if (access(new_path, F_OK) == 0) {
        r = fail(why, why_len, "%s already holds a store; recover into a new folder", new_dir, "");
    } else if (!fx_guard_head(old_path).is_sqlite) {
        r = fail(why, why_len, "%s is not a SQLite database: nothing can be read from it",
                 old_path, "");
    } else if (fx_guard_open_reader(old_path, &old) != SQLITE_OK) {
        r = fail(why, why_len, "cannot read %s: %s", old_path, sqlite3_errmsg(old));
    }
    if (r == FX_OK) /* a store of this flux's schema, empty */
        r = fx_store_open(new_dir, &made, why, why_len);
    if (r == FX_OK)
        r = fx_store_close(made);
    if (r == FX_OK &&
        (sqlite3_open_v2(new_path, &new_db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
         sqlite3_exec(new_db, "PRAGMA foreign_keys = OFF; BEGIN", NULL, NULL, NULL) != SQLITE_OK))
        r = fail(why, why_len, "cannot write %s: %s", new_path, sqlite3_errmsg(new_db));
    FxPageScan *ps = r == FX_OK ? fx_pagescan_open(old_path) : NULL;
    if (r == FX_OK)
        r = copy_tables(old, new_db, ps, fn, ctx);
    fx_pagescan_free(ps);
    if (r == FX_OK && sqlite3_exec(new_db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        r = fail(why, why_len, "cannot write %s: %s", new_path, sqlite3_errmsg(new_db));
    int e = r == FX_OK ? copy_log(dir, new_dir) : 0;
    if (e)
        r = fail(why, why_len, "cannot copy the record log into %s: %s", new_dir, strerror(e));
    sqlite3_close_v2(old);
    sqlite3_close_v2(new_db);
    free(old_path);
    free(new_path);
    return r;
}

FxStatus fx_store_check(const char *dir, FxRowFn fn, void *ctx, bool *ok, char *why,
                        size_t why_len)
{
    char *path = fx_xasprintf("%s/flux.db", dir);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    FxStatus r = FX_OK;
    int rc = SQLITE_OK;
    *ok = false;
    if (!fx_guard_head(path).exists)
        r = fail(why, why_len, "there is no store at %s%s", dir, "");
    else if (!fx_guard_head(path).is_sqlite)
        r = fail(why, why_len, "%s is not a SQLite database%s", path, "");
    else if (fx_guard_open_reader(path, &db) != SQLITE_OK ||
             sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK)
        rc = SQLITE_CORRUPT; /* its schema cannot be read */
    while (r == FX_OK && rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        *ok = line && !strcmp(line, "ok");
        if (!*ok)
            fn(ctx, line ? line : "");
        rc = SQLITE_OK;
    }
    if (r == FX_OK && rc != SQLITE_DONE && rc != SQLITE_OK) { /* the check itself failed */
        *ok = false;
        fn(ctx, db ? sqlite3_errmsg(db) : "cannot be opened");
    }
    sqlite3_finalize(st);
    sqlite3_close_v2(db);
    free(path);
    return r;
}
