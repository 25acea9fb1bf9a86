/*
 * colcache.c: a CSV source's columns kept on disk (colcache.h).
 *
 * The file: the header block (below), then each column's blocks as they
 * lie in memory (its cells; a String column's offsets, then its bytes),
 * then the hash of every block before it. Each block is hashed on its own
 * 8 bytes at a time and the block hashes chained, so that writing and
 * reading hash the same bytes in the same blocks without holding them
 * twice. The header: the magic, this machine's word order, the stamp, the
 * path, the record type (each field's name and kind), the rows, and each
 * column's kind and block sizes.
 */
#include "colcache.h"
#include "meter.h"
#include "table.h"

#include "base/buf.h"
#include "base/hash.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "FXCOLS1\n"
#define ORDER 0x0102030405060708u

/* A block's hash, 8 bytes at a time (the last ones zero-padded). */
static uint64_t block_hash(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = fx_mix64(n ^ 0x636f6c73u), w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15u;
        h ^= h >> 29;
    }
    w = 0;
    if (n)
        memcpy(&w, s, n);
    return fx_mix64(h ^ w);
}

static const char *source_path(const FxDataDecl *dd)
{
    return dd->resolved_path ? dd->resolved_path : dd->path;
}

static const FxTypeDecl *record_of(const FxDataDecl *dd)
{
    return dd->type->elem->record;
}

static void put_u64(FxBuf *b, uint64_t v)
{
    fx_buf_append(b, (const char *)&v, sizeof(v));
}

static void put_text(FxBuf *b, const char *s)
{
    put_u64(b, strlen(s));
    fx_buf_puts(b, s);
}

static void put_stamp(FxBuf *b, const FxFileStamp *s)
{
    uint64_t v[] = {s->exists, s->dev, s->ino, (uint64_t)s->size,
                    (uint64_t)s->mtime.tv_sec, (uint64_t)s->mtime.tv_nsec,
                    (uint64_t)s->ctime.tv_sec, (uint64_t)s->ctime.tv_nsec};
    fx_buf_append(b, (const char *)v, sizeof(v));
}

/* The header for dd's file with that stamp, up to the columns' kinds (the
 * part a reader compares), and the file's name in dir. */
static void header_start(const FxDataDecl *dd, const FxDataStamp *stamp, FxBuf *b)
{
    fx_buf_append(b, MAGIC, 8);
    put_u64(b, ORDER);
    put_stamp(b, &stamp->file);
    put_text(b, source_path(dd));
    const FxTypeDecl *rec = record_of(dd);
    put_u64(b, rec->def->n_fields);
    for (size_t i = 0; i < rec->def->n_fields; i++) {
        put_text(b, rec->def->field_names[i]);
        put_u64(b, (uint64_t)rec->field_types[i]->kind);
    }
}

static char *cache_path(const char *dir, const FxDataDecl *dd)
{
    FxBuf key = {0};
    fx_buf_puts(&key, source_path(dd));
    const FxTypeDecl *rec = record_of(dd);
    for (size_t i = 0; i < rec->def->n_fields; i++)
        fx_buf_printf(&key, ",%s:%d", rec->def->field_names[i], (int)rec->field_types[i]->kind);
    uint64_t h = fx_fnv1a(0xcbf29ce484222325u, key.data, key.len);
    fx_buf_free(&key);
    return fx_xasprintf("%s/%016llx.cols", dir, (unsigned long long)h);
}

/* Column c's blocks: its cells (n rows; offsets n + 1), and its bytes. */
static size_t cells_bytes(const FxColumn *c, size_t n)
{
    return (n + (c->kind == FX_COL_STRING)) * fx_table_cell_bytes(c->kind);
}

static size_t string_bytes(const FxColumn *c, size_t n)
{
    return c->kind == FX_COL_STRING ? c->u.offsets[n] : 0;
}

static bool write_block(FILE *f, const void *p, size_t n, uint64_t *h)
{
    *h = fx_mix64(*h ^ block_hash(p, n));
    return n == 0 || fwrite(p, 1, n, f) == n;
}

/* Was dd's file, as it is now (the header `head`), read before? Says so
 * for next time when not: the columns are kept from the second read of
 * an unchanged file on, so that a file read once costs no write. */
static bool seen_before(const char *path, const FxBuf *head)
{
    char *seen = fx_xasprintf("%s.seen", path), buf[4096];
    FILE *f = fopen(seen, "rb");
    size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
    if (f)
        fclose(f);
    bool was = n == head->len && memcmp(buf, head->data, n) == 0;
    if (!was && head->len <= sizeof(buf) && (f = fopen(seen, "wb"))) {
        bool ok = fwrite(head->data, 1, head->len, f) == head->len;
        if (fclose(f) != 0 || !ok)
            unlink(seen);
    }
    free(seen);
    return was;
}

void fx_colcache_save(const char *dir, const FxDataDecl *dd, const FxDataStamp *before,
                      FxValue list)
{
    const FxTable *t = fx_val_list_table(list);
    if (!dir || !t || !before->file.exists || before->file.racy ||
        before->file.size < FX_COLCACHE_MIN)
        return;
    for (size_t c = 0; c < t->n_cols; c++)
        if (t->cols[c].kind == FX_COL_VALUES)
            return; /* integers past int64: not kept */
    FxBuf head = {0};
    header_start(dd, before, &head);
    char *path = cache_path(dir, dd);
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || !seen_before(path, &head)) {
        fx_buf_free(&head);
        free(path);
        return;
    }
    put_u64(&head, t->n_rows);
    for (size_t c = 0; c < t->n_cols; c++) {
        put_u64(&head, t->cols[c].kind);
        put_u64(&head, cells_bytes(&t->cols[c], t->n_rows));
        put_u64(&head, string_bytes(&t->cols[c], t->n_rows));
    }
    char *tmp = fx_xasprintf("%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    uint64_t h = 0, len = head.len;
    bool ok = f && fwrite(&len, sizeof(len), 1, f) == 1 && write_block(f, head.data, head.len, &h);
    for (size_t c = 0; ok && c < t->n_cols; c++) {
        const FxColumn *col = &t->cols[c];
        ok = write_block(f, col->u.ints, cells_bytes(col, t->n_rows), &h) &&
             (col->kind != FX_COL_STRING ||
              write_block(f, col->bytes, string_bytes(col, t->n_rows), &h));
    }
    ok = ok && fwrite(&h, sizeof(h), 1, f) == 1;
    if (f)
        ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
    fx_buf_free(&head);
    free(tmp);
    free(path);
}

/* Reads n bytes into a new block (at least 1 byte), hashing them. */
static void *read_block(FILE *f, size_t n, uint64_t *h)
{
    char *p = fx_xmalloc(n ? n : 1);
    fx_hint_huge_pages(p, n);
    if (n && fread(p, 1, n, f) != n) {
        free(p);
        return NULL;
    }
    *h = fx_mix64(*h ^ block_hash(p, n));
    return p;
}

/* Do the offsets rise from 0 to the bytes' end? (Then no cell reads past
 * them, whatever the file held.) */
static bool offsets_ok(const uint64_t *o, size_t n, uint64_t bytes)
{
    bool ok = o[0] == 0 && o[n] == bytes;
    for (size_t i = 0; ok && i < n; i++)
        ok = o[i] <= o[i + 1];
    return ok;
}

static uint64_t take_u64(const char **p)
{
    uint64_t v;
    memcpy(&v, *p, sizeof(v));
    *p += sizeof(v);
    return v;
}

bool fx_colcache_load(const char *dir, const FxDataDecl *dd, const FxDataStamp *now,
                      FxValue *out)
{
    if (!dir || !now->file.exists || now->file.racy || now->file.size < FX_COLCACHE_MIN)
        return false;
    char *path = cache_path(dir, dd);
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f)
        return false;
    FxBuf want = {0};
    header_start(dd, now, &want);
    const FxTypeDecl *rec = record_of(dd);
    size_t n_cols = rec->def->n_fields;
    uint64_t len = 0, h = 0, stored;
    char *head = NULL;
    FxTable *t = NULL;
    bool ok = fread(&len, sizeof(len), 1, f) == 1 && len >= want.len + 8 + 24 * n_cols &&
              len < ((uint64_t)1 << 24) && (head = read_block(f, len, &h)) &&
              memcmp(head, want.data, want.len) == 0; /* this file, as it is now, this type */
    if (ok) {
        const char *p = head + want.len;
        t = fx_xcalloc(1, sizeof(*t));
        t->n_rows = take_u64(&p);
        t->n_cols = n_cols;
        t->names = (const char *const *)rec->def->field_names;
        t->cols = fx_xcalloc(n_cols, sizeof(FxColumn));
        uint64_t sizes[2 * 64];
        ok = n_cols <= 64;
        uint64_t total = 0;
        for (size_t c = 0; ok && c < n_cols; c++) {
            t->cols[c].kind = (FxColKind)take_u64(&p);
            sizes[2 * c] = take_u64(&p);
            sizes[2 * c + 1] = take_u64(&p);
            ok = t->cols[c].kind <= FX_COL_STRING &&
                 sizes[2 * c] == cells_bytes(&t->cols[c], t->n_rows);
            total += sizes[2 * c] + sizes[2 * c + 1];
        }
        ok = ok && fx_meter_room() >= total; /* else the file is read, and the budget says */
        for (size_t c = 0; ok && c < n_cols; c++) {
            FxColumn *col = &t->cols[c];
            ok = (col->u.ints = read_block(f, sizes[2 * c], &h)) != NULL;
            if (ok && col->kind == FX_COL_STRING)
                ok = (col->bytes = read_block(f, sizes[2 * c + 1], &h)) != NULL &&
                     offsets_ok(col->u.offsets, t->n_rows, sizes[2 * c + 1]);
        }
        ok = ok && fread(&stored, sizeof(stored), 1, f) == 1 && stored == h && fgetc(f) == EOF;
    }
    fclose(f);
    free(head);
    fx_buf_free(&want);
    if (!ok) {
        if (t)
            fx_table_free(t);
        return false;
    }
    *out = fx_val_list_of_table(t);
    return true;
}
