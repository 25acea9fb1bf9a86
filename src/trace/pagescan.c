/*
 * pagescan.c: a damaged SQLite file's rows, read from its pages
 * (pagescan.h). The layout is SQLite's file format
 * (https://www.sqlite.org/fileformat2.html): a 100-byte header on page 1,
 * B-tree pages of four kinds, cells of varints and records, payloads that
 * spill onto overflow pages. Every read is bounded by the bytes there are:
 * a page past the end of the file, a cell pointer or a varint that points
 * out of its page, a record whose header lies make the row (or the page)
 * unreadable, never a read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "pagescan.h"

enum { TABLE_LEAF = 13, TABLE_INTERIOR = 5, INDEX_LEAF = 10, INDEX_INTERIOR = 2 };

/* A table of the schema found among the pages. */
typedef struct Root {
    char *name;
    uint32_t page;
} Root;

struct FxPageScan {
    unsigned char *file; /* the database file's bytes */
    size_t file_len;
    unsigned char **wal_page; /* by page number: the newest frame's, or NULL */
    size_t n_wal_pages;
    unsigned char *wal;
    uint32_t page_size, usable, n_pages;
    unsigned char *owned; /* by page number: reached from a root (or the schema's) */
    Root *roots;
    size_t n_roots;
};

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *b = fx_xmalloc(cap);
    while ((got = fread(b + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap)
            b = fx_xrealloc(b, cap *= 2);
    fclose(f);
    *len = n;
    return b;
}

static uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Page pgno (1-based), whole, or NULL. */
static const unsigned char *page(const FxPageScan *s, uint32_t pgno)
{
    if (pgno == 0)
        return NULL;
    if (pgno < s->n_wal_pages && s->wal_page[pgno])
        return s->wal_page[pgno];
    size_t at = (size_t)(pgno - 1) * s->page_size;
    return at + s->page_size <= s->file_len ? s->file + at : NULL;
}

/* A varint at p (at most end), into *v; its length, or 0 past end. */
static size_t varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < 9; i++) {
        if (p + i >= end)
            return 0;
        if (i == 8) {
            *v = x << 8 | p[i];
            return 9;
        }
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* The WAL's frames whose salts are its header's, the newest of each page
 * kept: what a reader of the damaged file would have seen. */
static void read_wal(FxPageScan *s, const char *path)
{
    char *wal_path = fx_xasprintf("%s-wal", path);
    size_t len = 0;
    s->wal = read_all(wal_path, &len);
    free(wal_path);
    if (!s->wal || len < 32 || be32(s->wal + 8) != s->page_size)
        return;
    uint32_t salt1 = be32(s->wal + 16), salt2 = be32(s->wal + 20);
    for (size_t at = 32; at + 24 + s->page_size <= len; at += 24 + s->page_size) {
        const unsigned char *h = s->wal + at;
        uint32_t pgno = be32(h);
        if (be32(h + 8) != salt1 || be32(h + 12) != salt2 || pgno == 0 || pgno > (1u << 30))
            break; /* frames of an older round of the log, or not frames */
        if (pgno >= s->n_wal_pages) {
            size_t n = (size_t)pgno * 2;
            s->wal_page = fx_xrealloc(s->wal_page, n * sizeof(*s->wal_page));
            memset(s->wal_page + s->n_wal_pages, 0, (n - s->n_wal_pages) * sizeof(*s->wal_page));
            s->n_wal_pages = n;
        }
        s->wal_page[pgno] = s->wal + at + 24;
        if (pgno > s->n_pages)
            s->n_pages = pgno;
    }
}

/* ---- cells and records ---- */

/* The payload of the cell at c (a leaf's: table or index) on page p, whole
 * (overflow pages followed) into a new buffer, its size in *len; NULL when
 * part of it cannot be read. *rowid gets a table leaf's rowid. */
static unsigned char *payload(const FxPageScan *s, const unsigned char *p, uint32_t c, int type,
                              size_t *len, int64_t *rowid)
{
    const unsigned char *end = p + s->usable, *q = p + c;
    uint64_t size = 0, id = 0;
    size_t n;
    if (type == INDEX_INTERIOR)
        q += 4;
    if (q >= end || !(n = varint(q, end, &size)))
        return NULL;
    q += n;
    if (type == TABLE_LEAF) {
        if (!(n = varint(q, end, &id)))
            return NULL;
        q += n;
    }
    *rowid = (int64_t)id;
    uint64_t u = s->usable, x = type == TABLE_LEAF ? u - 35 : (u - 12) * 64 / 255 - 23;
    uint64_t m = (u - 12) * 32 / 255 - 23, local = size;
    if (size > x) {
        uint64_t k = m + (size - m) % (u - 4);
        local = k <= x ? k : m;
    }
    if (size > (1u << 30) || q + local > end || (local < size && q + local + 4 > end))
        return NULL;
    unsigned char *out = fx_xmalloc(size + 1);
    memcpy(out, q, local);
    size_t have = local;
    uint32_t next = local < size ? be32(q + local) : 0;
    for (uint32_t hops = 0; have < size; hops++) { /* the overflow chain */
        const unsigned char *o = page(s, next);
        if (!o || hops > s->n_pages) {
            free(out);
            return NULL;
        }
        size_t take = size - have < u - 4 ? size - have : u - 4;
        memcpy(out + have, o + 4, take);
        have += take;
        next = be32(o);
    }
    *len = size;
    return out;
}

/* The columns of a record (the payload at r, len bytes) into cells (at
 * most max); their number, or -1 when the record is not one. The cells
 * point into r. */
static int record(const unsigned char *r, size_t len, FxCell *cells, int max)
{
    const unsigned char *end = r + len, *h = r;
    uint64_t hsize, t;
    size_t n = varint(h, end, &hsize);
    if (!n || hsize > len || hsize < n)
        return -1;
    const unsigned char *hend = r + hsize, *body = hend;
    int k = 0;
    for (h += n; h < hend; h += n) {
        if (!(n = varint(h, hend, &t)) || k == max)
            return -1;
        FxCell *c = &cells[k++];
        memset(c, 0, sizeof(*c));
        static const int widths[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
        size_t w = t < 10 ? (size_t)widths[t] : t >= 12 ? (size_t)(t - 12) / 2 : 0;
        if (t == 10 || t == 11 || body + w > end)
            return -1;
        if (t == 0) {
            c->kind = FX_CELL_NULL;
        } else if (t <= 6 || t == 8 || t == 9) {
            int64_t v = t == 8 ? 0 : t == 9 ? 1 : (int8_t)body[0]; /* sign from the first byte */
            for (size_t i = 1; i < w; i++)
                v = (int64_t)((uint64_t)v << 8 | body[i]);
            c->kind = FX_CELL_INT;
            c->i = v;
        } else if (t == 7) {
            uint64_t bits = 0;
            for (size_t i = 0; i < 8; i++)
                bits = bits << 8 | body[i];
            c->kind = FX_CELL_FLOAT;
            memcpy(&c->f, &bits, sizeof(c->f));
        } else {
            c->kind = t % 2 ? FX_CELL_TEXT : FX_CELL_BLOB;
            c->p = body;
            c->len = w;
        }
        body += w;
    }
    return body == end ? k : -1;
}

/* ---- trees ---- */

#define MAX_COLS 64

/* Called for each page of a tree that holds rows: a leaf, or an index's
 * interior page (a WITHOUT ROWID table keeps rows there too). */
typedef void (*LeafFn)(FxPageScan *s, const unsigned char *p, uint32_t pgno, void *ctx);

/* The pages the tree at pgno reaches, each once (seen), marked owned;
 * leaf called for those that hold rows. */
static void walk(FxPageScan *s, uint32_t pgno, uint32_t depth, unsigned char *seen, LeafFn leaf,
                 void *ctx)
{
    const unsigned char *p = pgno <= s->n_pages ? page(s, pgno) : NULL;
    if (!p || depth > 64 || seen[pgno])
        return;
    seen[pgno] = s->owned[pgno] = 1;
    const unsigned char *h = p + (pgno == 1 ? 100 : 0);
    int type = h[0];
    if (type == TABLE_LEAF || type == INDEX_LEAF || type == INDEX_INTERIOR) {
        leaf(s, p, pgno, ctx);
        if (type != INDEX_INTERIOR)
            return;
    }
    if (type != TABLE_INTERIOR && type != INDEX_INTERIOR)
        return;
    uint32_t cells = be16(h + 3);
    for (uint32_t i = 0; i < cells; i++) {
        const unsigned char *ptr = h + 12 + 2 * i;
        uint32_t c = ptr + 2 <= p + s->usable ? be16(ptr) : 0;
        if (c && c + 4 <= s->usable)
            walk(s, be32(p + c), depth + 1, seen, leaf, ctx);
    }
    walk(s, be32(h + 8), depth + 1, seen, leaf, ctx);
}

/* walk from root with a fresh record of the pages seen. */
static void walk_tree(FxPageScan *s, uint32_t root, LeafFn leaf, void *ctx)
{
    unsigned char *seen = fx_xcalloc((size_t)s->n_pages + 2, 1);
    walk(s, root, 0, seen, leaf, ctx);
    free(seen);
}

typedef struct Rows {
    FxScanRowFn fn;
    void *ctx;
    size_t given;
} Rows;

/* Each readable row of the leaf at p to r->fn. */
static void leaf_rows(FxPageScan *s, const unsigned char *p, uint32_t pgno, void *ctx)
{
    Rows *r = ctx;
    const unsigned char *h = p + (pgno == 1 ? 100 : 0);
    int type = h[0];
    uint32_t cells = be16(h + 3);
    for (uint32_t i = 0; i < cells; i++) {
        const unsigned char *ptr = h + (type == INDEX_INTERIOR ? 12 : 8) + 2 * i;
        if (ptr + 2 > p + s->usable)
            break;
        size_t len = 0;
        int64_t rowid = 0;
        unsigned char *bytes = payload(s, p, be16(ptr), type, &len, &rowid);
        FxCell cols[MAX_COLS];
        int n = bytes ? record(bytes, len, cols, MAX_COLS) : -1;
        if (n >= 0) {
            r->fn(r->ctx, type == TABLE_LEAF ? rowid : 0, cols, n);
            r->given++;
        }
        free(bytes);
    }
}

/* A row of sqlite_master: type, name, tbl_name, rootpage, sql. */
static void schema_row(void *ctx, int64_t rowid, const FxCell *c, int n)
{
    (void)rowid;
    FxPageScan *s = ctx;
    if (n != 5 || c[0].kind != FX_CELL_TEXT || c[1].kind != FX_CELL_TEXT ||
        c[3].kind != FX_CELL_INT || c[0].len != 5 || memcmp(c[0].p, "table", 5) != 0 ||
        c[3].i <= 0 || c[3].i > (int64_t)s->n_pages)
        return;
    s->roots = fx_xrealloc(s->roots, (s->n_roots + 1) * sizeof(*s->roots));
    s->roots[s->n_roots++] = (Root){fx_xstrndup((const char *)c[1].p, c[1].len), (uint32_t)c[3].i};
}

FxPageScan *fx_pagescan_open(const char *path)
{
    FxPageScan *s = fx_xcalloc(1, sizeof(*s));
    s->file = read_all(path, &s->file_len);
    if (!s->file || s->file_len < 100 || memcmp(s->file, "SQLite format 3", 16) != 0) {
        fx_pagescan_free(s);
        return NULL;
    }
    uint32_t size = be16(s->file + 16);
    s->page_size = size == 1 ? 65536 : size;
    if (s->page_size < 512 || (s->page_size & (s->page_size - 1)) || s->file[20] >= 64 ||
        s->page_size > 65536) {
        fx_pagescan_free(s);
        return NULL;
    }
    s->usable = s->page_size - s->file[20];
    s->n_pages = (uint32_t)(s->file_len / s->page_size);
    read_wal(s, path);
    s->owned = fx_xcalloc((size_t)s->n_pages + 2, 1);
    /* the schema: sqlite_master's tree from page 1, then its rows wherever
     * they lie (a page of it whose parent is lost is still found) */
    Rows schema = {schema_row, s, 0};
    walk_tree(s, 1, leaf_rows, &schema);
    for (uint32_t pg = 2; pg <= s->n_pages; pg++) {
            const unsigned char *p = page(s, pg);
        if (p && p[0] == TABLE_LEAF && !s->owned[pg])
            leaf_rows(s, p, pg, &schema);
    }
    return s;
}

void fx_pagescan_free(FxPageScan *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_roots; i++)
        free(s->roots[i].name);
    free(s->roots);
    free(s->owned);
    free(s->wal_page);
    free(s->wal);
    free(s->file);
    free(s);
}

size_t fx_pagescan_rows(FxPageScan *s, const char *table, FxScanRowFn fn, void *ctx)
{
    Rows r = {fn, ctx, 0};
    for (size_t i = 0; i < s->n_roots; i++)
        if (!strcmp(s->roots[i].name, table))
            walk_tree(s, s->roots[i].page, leaf_rows, &r);
    return r.given;
}
