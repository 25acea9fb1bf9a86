/*
 * keep_test.c: a materialised result's bytes in the store (exec/keep.h):
 * they read back as the same value, typed by the declared result, only
 * while the sources have the stamps written, and any damage reads as
 * corrupt, never as another value. Types are put together by hand, as the
 * checker leaves them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/keep.h"
#include "fx_test.h"

/* List[{name: String, age: Natural, score: Float, ok: Bool}] */
typedef struct Shape {
    const char *names[4];
    FxTypeExpr def;
    FxType fields[4];
    FxType *field_ptrs[4];
    FxTypeDecl rec;
    FxType elem, list, integer, natural;
} Shape;

static void make_shape(Shape *s)
{
    memset(s, 0, sizeof(*s));
    const char *names[] = {"name", "age", "score", "ok"};
    FxTypeKind kinds[] = {FX_TY_STRING, FX_TY_NATURAL, FX_TY_FLOAT, FX_TY_BOOL};
    for (int i = 0; i < 4; i++) {
        s->names[i] = names[i];
        s->fields[i].kind = kinds[i];
        s->field_ptrs[i] = &s->fields[i];
    }
    s->def = (FxTypeExpr){.n_fields = 4, .field_names = s->names};
    s->rec = (FxTypeDecl){.name = "Row", .def = &s->def, .field_types = s->field_ptrs};
    s->elem = (FxType){.kind = FX_TY_RECORD, .record = &s->rec};
    s->list = (FxType){.kind = FX_TY_LIST, .elem = &s->elem};
    s->integer = (FxType){.kind = FX_TY_INT};
    s->natural = (FxType){.kind = FX_TY_NATURAL};
}

static FxValue row(const Shape *s, const char *name, const char *age, double score, bool ok)
{
    FxValue f[4] = {fx_val_string(name, strlen(name)), fx_val_int_text(age), fx_val_float(score),
                    fx_val_bool(ok)};
    FxValue r = fx_val_record(4, s->names, f);
    for (int i = 0; i < 4; i++)
        fx_value_release(f[i]);
    return r;
}

/* A source over a fresh file; caller unlinks src->dd->resolved_path. */
static void make_source(FxDataDecl *dd, char *path, FxKeepSource *src)
{
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    EXPECT_EQ(write(fd, "name,age\n", 9), 9);
    close(fd);
    *dd = (FxDataDecl){.name = "rows", .path = path, .resolved_path = path};
    *src = (FxKeepSource){dd, fx_data_stamp(dd)};
}

FX_TEST(a_kept_value_reads_back_the_same)
{
    Shape s;
    make_shape(&s);
    char path[] = "/tmp/keep_testXXXXXX";
    FxDataDecl dd;
    FxKeepSource src;
    make_source(&dd, path, &src);
    FxValue rows[3] = {row(&s, "ann", "41", 0.1, true),
                       row(&s, "b\"o,b\n", "123456789012345678901234567890", -2.5e300, false),
                       row(&s, "", "0", 0.0, true)};
    FxValue v = fx_val_list(rows, 3);
    FxBuf bytes = {0};
    EXPECT(fx_keep_encode(v, &s.list, &src, 1, &bytes));
    FxValue back;
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.list, &src, 1, &back), FX_KEEP_OK);
    EXPECT(fx_val_equal(v, back));
    fx_value_release(back);

    /* the source changed: stale, whatever the bytes */
    FxKeepSource other = src;
    other.stamp.file.size++;
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.list, &other, 1, &back), FX_KEEP_STALE);
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.list, &src, 0, &back), FX_KEEP_STALE);

    /* every single byte flipped, and every cut, reads as damage */
    for (size_t i = 0; i < bytes.len; i++) {
        bytes.data[i] ^= 0x20;
        EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.list, &src, 1, &back),
                  FX_KEEP_CORRUPT);
        bytes.data[i] ^= 0x20;
        EXPECT_EQ(fx_keep_decode(bytes.data, i, &s.list, &src, 1, &back), FX_KEEP_CORRUPT);
    }
    /* read as another type, or the record declared with another field:
     * not a value */
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.integer, &src, 1, &back), FX_KEEP_STALE);
    s.names[3] = "done";
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.list, &src, 1, &back), FX_KEEP_STALE);
    s.names[3] = "ok";
    s.def.n_fields = 3;
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.list, &src, 1, &back), FX_KEEP_STALE);
    s.def.n_fields = 4;

    fx_buf_free(&bytes);
    fx_value_release(v);
    for (int i = 0; i < 3; i++)
        fx_value_release(rows[i]);
    unlink(path);
}

FX_TEST(what_cannot_be_kept_is_not_written)
{
    Shape s;
    make_shape(&s);
    char path[] = "/tmp/keep_testXXXXXX";
    FxDataDecl dd;
    FxKeepSource src;
    make_source(&dd, path, &src);
    FxBuf bytes = {0};
    FxValue neg = fx_val_int(-3), text = fx_val_string("3", 1);
    EXPECT(!fx_keep_encode(neg, &s.natural, &src, 1, &bytes)); /* not a Natural */
    EXPECT(!fx_keep_encode(text, &s.integer, &src, 1, &bytes)); /* not its type */
    EXPECT_EQ(bytes.len, 0u);
    EXPECT(fx_keep_encode(neg, &s.integer, &src, 1, &bytes));
    FxValue back;
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.natural, &src, 1, &back), FX_KEEP_STALE);
    EXPECT_EQ(fx_keep_decode(bytes.data, bytes.len, &s.integer, &src, 1, &back), FX_KEEP_OK);
    EXPECT(fx_val_equal(back, neg));
    fx_value_release(text);

    /* past the bound: not kept */
    size_t n = FX_KEEP_MAX_BYTES / 1000 + 1;
    char *big = malloc(1000);
    memset(big, 'x', 1000);
    FxValue one = fx_val_string(big, 1000);
    FxValue *items = malloc(n * sizeof(FxValue));
    for (size_t i = 0; i < n; i++)
        items[i] = one;
    FxValue list = fx_val_list(items, n);
    FxType strings = {.kind = FX_TY_LIST, .elem = &(FxType){.kind = FX_TY_STRING}};
    EXPECT(!fx_keep_encode(list, &strings, &src, 1, &bytes));
    EXPECT_EQ(bytes.len, 0u);
    fx_value_release(list);
    fx_value_release(one);
    free(items);
    free(big);
    fx_buf_free(&bytes);
    unlink(path);
}

int main(void)
{
    return fx_test_run();
}
