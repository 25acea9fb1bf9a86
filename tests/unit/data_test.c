/*
 * data_test.c: loading `data` sources. CSV fixtures live in tests/unit/data/
 * (the runner starts test binaries in the repository root); the SQLite
 * databases are built here at run time in /tmp, so no binary file is
 * committed. A declaration is put together by hand, as the checker would
 * leave it, so the test needs only value.c and data.c.
 *
 * Every test releases what it loads: under the asan build LeakSanitizer
 * fails the binary on any leak, including on the error paths.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "exec/data.h"
#include "fx_test.h"

#define MAX_FIELDS 8

/* A checked `data NAME: List[TYPE] from "PATH"` and the record it reads. */
typedef struct Decl {
    const char *names[MAX_FIELDS];
    FxTypeExpr def;
    FxType field_types[MAX_FIELDS];
    FxType *field_ptrs[MAX_FIELDS];
    FxTypeDecl rec;
    FxType elem, list;
    char resolved[256];
    FxDataDecl dd;
} Decl;

/* One field of a record type: `name: Kind`. */
typedef struct Field {
    const char *name;
    FxTypeKind kind;
} Field;

/* Fills d as the checker would for `data users: List[User] from path`,
 * with the file found at `resolved`. */
static void make_decl(Decl *d, const char *path, const char *resolved, const Field *fields,
                      size_t n)
{
    memset(d, 0, sizeof(*d));
    for (size_t i = 0; i < n; i++) {
        d->names[i] = fields[i].name;
        d->field_types[i].kind = fields[i].kind;
        d->field_ptrs[i] = &d->field_types[i];
    }
    d->def.n_fields = n;
    d->def.field_names = d->names;
    d->rec = (FxTypeDecl){.name = "User", .def = &d->def, .field_types = d->field_ptrs};
    d->elem = (FxType){.kind = FX_TY_RECORD, .record = &d->rec};
    d->list = (FxType){.kind = FX_TY_LIST, .elem = &d->elem};
    snprintf(d->resolved, sizeof(d->resolved), "%s", resolved);
    d->dd = (FxDataDecl){.name = "users", .type = &d->list, .path = path,
                         .resolved_path = d->resolved};
}

static const Field USER[] = {{"name", FX_TY_STRING}, {"age", FX_TY_NATURAL}};

/* Loads a fixture that must load, and returns its printed form (caller
 * frees), or the error message prefixed with "ERROR: ". */
static char *load_shown(const char *path, const char *resolved, const Field *fields, size_t n)
{
    Decl d;
    make_decl(&d, path, resolved, fields, n);
    FxValue v;
    FxError why;
    FxStatus st = fx_data_load(&d.dd, NULL, &v, &why);
    if (st != FX_OK) {
        EXPECT_EQ(st, FX_ERR_RUNTIME);
        EXPECT_EQ(v.kind, FX_VAL_UNIT);
        return fx_xasprintf("ERROR: %s", why.message);
    }
    FxBuf b = {0};
    fx_val_print(v, &b);
    fx_value_release(v);
    return fx_buf_take(&b);
}

#define EXPECT_LOADS(path, resolved, fields, want)                                                \
    do {                                                                                           \
        char *s_ = load_shown(path, resolved, fields, FX_ARRAY_LEN(fields));                       \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
    } while (0)

/* Writes text to a fresh file under /tmp; returns its path (caller
 * unlinks and frees). */
static char *tmp_file(const char *text)
{
    char *path = fx_xstrdup("/tmp/flux_data_test_XXXXXX");
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Loads CSV text as `User` fields and checks the printed result. */
static void expect_csv(const char *text, const Field *fields, size_t n, const char *want)
{
    char *path = tmp_file(text);
    char *s = load_shown("t.csv", path, fields, n);
    // Messages name the file as given; put the test's own name in its place.
    char *got = s;
    const char *at = strstr(s, path);
    if (at)
        got = fx_xasprintf("%.*st.csv%s", (int)(at - s), s, at + strlen(path));
    EXPECT_STR_EQ(got, want);
    if (got != s)
        free(got);
    free(s);
    unlink(path);
    free(path);
}

/* ------------------------------------------------------------------- CSV */

FX_TEST(csv_users)
{
    EXPECT_LOADS("users.csv", "tests/unit/data/users.csv", USER,
                 "[{name: \"Ada\", age: 36}, {name: \"Grace\", age: 17}, {name: \"Alan\", age: "
                 "41}, {name: \"Edsger\", age: 18}, {name: \"Barbara\", age: 12}, {name: "
                 "\"Donald\", age: 88}]");
}

FX_TEST(csv_fields_are_found_by_name)
{
    // Columns in another order, one extra, a header trimmed of spaces.
    static const Field age_first[] = {{"age", FX_TY_INT}, {"name", FX_TY_STRING}};
    expect_csv(" name , note,age\nAda,x,36\n", age_first, 2, "[{age: 36, name: \"Ada\"}]");
}

/* BOM, CRLF, quotes with "" and commas, cells across lines, an extra
 * column, blank lines at the end. */
FX_TEST(csv_quoted_crlf_bom)
{
    static const Field f[] = {{"name", FX_TY_STRING},
                              {"id", FX_TY_INT},
                              {"score", FX_TY_FLOAT},
                              {"active", FX_TY_BOOL}};
    Decl d;
    make_decl(&d, "quoted.csv", "tests/unit/data/quoted.csv", f, 4);
    FxValue v;
    FxError why;
    EXPECT_EQ(fx_data_load(&d.dd, NULL, &v, &why), FX_OK);
    if (v.kind != FX_VAL_LIST)
        return;
    EXPECT_EQ(fx_val_list_len(v), 3);
    FxBuf b = {0};
    fx_val_print(fx_val_list_at(v, 0), &b);
    fx_buf_puts(&b, " ");
    fx_val_print(fx_val_list_at(v, 1), &b);
    EXPECT_STR_EQ(fx_buf_str(&b), "{name: \"Lovelace, Ada\", id: 123456789012345678901234567890, "
                                  "score: 1.5, active: true} {name: \"say \\\"hi\\\"\", id: -7, "
                                  "score: -2.25, active: false}");
    fx_buf_free(&b);
    // The line break inside a quoted cell is kept as written (CRLF).
    FxValue third = fx_val_list_at(v, 2);
    const char *name = fx_val_string_data(fx_val_record_field(third, "name"), NULL);
    EXPECT_STR_EQ(name, "two\r\nlines");
    int64_t id = 0;
    EXPECT(fx_val_to_int64(fx_val_record_field(third, "id"), &id) && id == 42);
    EXPECT(fx_val_record_field(third, "score").u.f == 1000.0);
    EXPECT(!fx_val_record_field(third, "active").u.b);
    fx_value_release(v);
}

FX_TEST(csv_edges)
{
    static const Field s[] = {{"a", FX_TY_STRING}};
    expect_csv("a", s, 1, "[]");                      // header only, no newline
    expect_csv("a\nx", s, 1, "[{a: \"x\"}]");         // no final newline
    expect_csv("a\n\"\"\n\n", s, 1, "[{a: \"\"}]");   // an empty quoted cell
    /* a lone CR is data, printed as the control character it is */
    expect_csv("a\nx\ry\n", s, 1, "[{a: \"x\\u000dy\"}]");
    EXPECT_LOADS("header_only.csv", "tests/unit/data/header_only.csv", USER, "[]");
}

FX_TEST(csv_numbers)
{
    static const Field n[] = {{"n", FX_TY_NATURAL}, {"f", FX_TY_FLOAT}, {"b", FX_TY_BOOL}};
    expect_csv("n,f,b\n-0,2,1\n007,-1e-3,True\n9223372036854775808,.5,0\n", n, 3,
               "[{n: 0, f: 2.0, b: true}, {n: 7, f: -0.001, b: true}, "
               "{n: 9223372036854775808, f: 0.5, b: false}]");
    static const Field i[] = {{"i", FX_TY_INT}};
    expect_csv("i\n-123456789012345678901234567890\n -9223372036854775808 \n", i, 1,
               "[{i: -123456789012345678901234567890}, {i: -9223372036854775808}]");
}

/* ----------------------------------------------------------- CSV errors */

FX_TEST(csv_bad_cell)
{
    static const Field f[] = {{"name", FX_TY_STRING}, {"age", FX_TY_INT}};
    EXPECT_LOADS("bad_cell.csv", "tests/unit/data/bad_cell.csv", f,
                 "ERROR: tests/unit/data/bad_cell.csv:4: column `age`: `abc` is not an Int");
}

FX_TEST(csv_wrong_cell_count)
{
    EXPECT_LOADS("short_row.csv", "tests/unit/data/short_row.csv", USER,
                 "ERROR: tests/unit/data/short_row.csv:5: 1 cell, but the header has 2");
    EXPECT_LOADS("long_row.csv", "tests/unit/data/long_row.csv", USER,
                 "ERROR: tests/unit/data/long_row.csv:5: 3 cells, but the header has 2");
}

FX_TEST(csv_negative_natural)
{
    EXPECT_LOADS("negative.csv", "tests/unit/data/negative.csv", USER,
                 "ERROR: tests/unit/data/negative.csv:3: column `age`: `-3` is not a Natural");
}

FX_TEST(csv_missing_column)
{
    static const Field f[] = {{"name", FX_TY_STRING}, {"email", FX_TY_STRING}};
    EXPECT_LOADS("users.csv", "tests/unit/data/users.csv", f,
                 "ERROR: tests/unit/data/users.csv:1: no column `email` in the header, but "
                 "`User` has that field");
}

FX_TEST(csv_missing_file)
{
    EXPECT_LOADS("nope.csv", "tests/unit/data/nope.csv", USER,
                 "ERROR: cannot read data file `tests/unit/data/nope.csv` for `users`: No such "
                 "file or directory");
}

FX_TEST(csv_malformed)
{
    static const Field f[] = {{"a", FX_TY_STRING}, {"b", FX_TY_FLOAT}};
    // Line numbers count the lines inside quoted cells.
    expect_csv("a,b\n\"x\ny\",1\nz,1.5x\n", f, 2,
               "ERROR: t.csv:4: column `b`: `1.5x` is not a Float");
    expect_csv("a,b\nx,\n", f, 2, "ERROR: t.csv:2: column `b`: `` is not a Float");
    expect_csv("a,b\nx,1e999\n", f, 2, "ERROR: t.csv:2: column `b`: `1e999` is not a Float");
    expect_csv("a,b\n\"x,1\n", f, 2, "ERROR: t.csv:2: a quoted cell is not closed");
    expect_csv("a,b\n\"x\"y,1\n", f, 2, "ERROR: t.csv:2: text after the closing quote of a cell");
    expect_csv("", f, 2, "ERROR: t.csv: the file is empty, but its first line should name the "
                         "columns");
    expect_csv("a,b,a\n", f, 2, "ERROR: t.csv:1: column `a` appears twice in the header");
    static const Field b[] = {{"b", FX_TY_BOOL}};
    expect_csv("b\nyes\n", b, 1, "ERROR: t.csv:2: column `b`: `yes` is not a Bool");
    static const Field i[] = {{"i", FX_TY_INT}};
    expect_csv("i\n1 2\n", i, 1, "ERROR: t.csv:2: column `i`: `1 2` is not an Int");
    expect_csv("i\n-\n", i, 1, "ERROR: t.csv:2: column `i`: `-` is not an Int");
    expect_csv("i\n1.0\n", i, 1, "ERROR: t.csv:2: column `i`: `1.0` is not an Int");
}

/* ---------------------------------------------------------------- SQLite */

/* Runs sql on a new database file under /tmp; returns its path (caller
 * unlinks and frees). */
static char *tmp_db(const char *sql)
{
    char *path = tmp_file("");
    sqlite3 *db = NULL;
    EXPECT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fprintf(stderr, "tmp_db: %s\n", err);
    sqlite3_free(err);
    sqlite3_close(db);
    return path;
}

static const char PEOPLE_SQL[] =
    "CREATE TABLE \"order\" (id INTEGER, name TEXT, age INTEGER, big TEXT, score REAL, "
    "  active INTEGER);"
    "INSERT INTO \"order\" VALUES (1, 'Ada', 36, '123456789012345678901234567890', 0.1, 1);"
    "INSERT INTO \"order\" VALUES (2, 'Grace', 17, '-5', 2, 0);"
    "INSERT INTO \"order\" VALUES (3, 'Alan', 41, 9223372036854775807, 1e300, 'true');"
    "CREATE TABLE holes (name TEXT, age INTEGER);"
    "INSERT INTO holes VALUES ('Ada', 36), ('Grace', NULL);"
    "CREATE TABLE minus (name TEXT, age INTEGER);"
    "INSERT INTO minus VALUES ('Ada', 36), ('Grace', -1);"
    "CREATE TABLE words (name TEXT, age TEXT);"
    "INSERT INTO words VALUES ('Ada', 'old');";

/* Loads table of the database at db as `fields`; the printed result, or
 * the error with db's path replaced by "t.db". */
static char *load_table(const char *db, const char *table, const Field *fields, size_t n)
{
    char *path = fx_xasprintf("t.db:%s", table);
    char *s = load_shown(path, db, fields, n);
    free(path);
    const char *at = strstr(s, db);
    if (!at)
        return s;
    char *got = fx_xasprintf("%.*st.db%s", (int)(at - s), s, at + strlen(db));
    free(s);
    return got;
}

#define EXPECT_TABLE(db, table, fields, want)                                                     \
    do {                                                                                           \
        char *s_ = load_table(db, table, fields, FX_ARRAY_LEN(fields));                            \
        EXPECT_STR_EQ(s_, want);                                                                   \
        free(s_);                                                                                  \
    } while (0)

FX_TEST(sqlite_table)
{
    char *db = tmp_db(PEOPLE_SQL);
    static const Field f[] = {{"name", FX_TY_STRING}, {"age", FX_TY_NATURAL},
                              {"big", FX_TY_INT},     {"score", FX_TY_FLOAT},
                              {"active", FX_TY_BOOL}, {"id", FX_TY_STRING}};
    // A keyword as table name: identifiers are quoted. A big integer kept
    // as TEXT, an INTEGER for a Float, text `true` for a Bool.
    EXPECT_TABLE(db, "order", f,
                 "[{name: \"Ada\", age: 36, big: 123456789012345678901234567890, score: 0.1, "
                 "active: true, id: \"1\"}, {name: \"Grace\", age: 17, big: -5, score: 2.0, "
                 "active: false, id: \"2\"}, {name: \"Alan\", age: 41, big: "
                 "9223372036854775807, score: 1e+300, active: true, id: \"3\"}]");
    unlink(db);
    free(db);
}

FX_TEST(sqlite_errors)
{
    char *db = tmp_db(PEOPLE_SQL);
    EXPECT_TABLE(db, "holes", USER, "ERROR: t.db:holes: row 2: column `age` is NULL");
    EXPECT_TABLE(db, "minus", USER,
                 "ERROR: t.db:minus: row 2: column `age`: `-1` is not a Natural");
    EXPECT_TABLE(db, "words", USER,
                 "ERROR: t.db:words: row 1: column `age`: `old` is not a Natural");
    EXPECT_TABLE(db, "nothing", USER, "ERROR: t.db:nothing: no such table: nothing");
    static const Field f[] = {{"name", FX_TY_STRING}, {"email", FX_TY_STRING}};
    EXPECT_TABLE(db, "holes", f, "ERROR: t.db:holes: no such column: email");
    unlink(db);
    free(db);
    EXPECT_LOADS("nope.db:users", "/tmp/flux_data_test_nope.db", USER,
                 "ERROR: cannot read data file `/tmp/flux_data_test_nope.db` for `users`: No "
                 "such file or directory");
    // A file that is not a database, and is left as it was.
    EXPECT_LOADS("users.csv:users", "tests/unit/data/users.csv", USER,
                 "ERROR: tests/unit/data/users.csv:users: file is not a database");
}

FX_TEST(unchecked_declaration)
{
    Decl d;
    make_decl(&d, "users.csv", "", USER, 2);
    d.dd.type = NULL;
    FxValue v;
    FxError why;
    EXPECT_EQ(fx_data_load(&d.dd, NULL, &v, &why), FX_ERR_RUNTIME);
    EXPECT_EQ(why.status, FX_ERR_RUNTIME);
    EXPECT_STR_EQ(why.message, "data source `users` is not a checked List or Stream of records");
}

int main(void)
{
    return fx_test_run();
}
