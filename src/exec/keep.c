/*
 * keep.c: see keep.h.
 */
#include "keep.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

#define MAGIC "FXK1"

/* ---- writing ---- */

static void put_u64(FxBuf *b, uint64_t v)
{
    char w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (char)(v >> (8 * i));
    fx_buf_append(b, w, 8);
}

static void put_varint(FxBuf *b, uint64_t v)
{
    char w[10];
    int n = 0;
    do {
        w[n++] = (char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
    fx_buf_append(b, w, (size_t)n);
}

static void put_bytes(FxBuf *b, const char *s, size_t len)
{
    put_varint(b, len);
    fx_buf_append(b, s, len);
}

static void put_file_stamp(FxBuf *b, const FxFileStamp *s)
{
    put_u64(b, (uint64_t)s->exists | (uint64_t)s->racy << 1 | (uint64_t)s->hashed << 2);
    put_u64(b, s->dev);
    put_u64(b, s->ino);
    put_u64(b, (uint64_t)s->size);
    put_u64(b, (uint64_t)s->mtime.tv_sec);
    put_u64(b, (uint64_t)s->mtime.tv_nsec);
    put_u64(b, (uint64_t)s->ctime.tv_sec);
    put_u64(b, (uint64_t)s->ctime.tv_nsec);
    put_u64(b, s->hash);
}

static const char *source_path(const FxDataDecl *dd)
{
    return dd->resolved_path ? dd->resolved_path : dd->path;
}

/* Is record r the record type decl's, fields in its order? */
static bool record_fits(FxValue r, const FxTypeDecl *decl)
{
    size_t n = decl->def->n_fields;
    if (r.kind != FX_VAL_RECORD || fx_val_record_size(r) != n || !decl->field_types)
        return false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(fx_val_record_name(r, i), decl->def->field_names[i]) != 0)
            return false;
    return true;
}

static bool put_value(FxBuf *b, FxValue v, const FxType *t)
{
    if (!t || b->len > FX_KEEP_MAX_BYTES)
        return false;
    switch (t->kind) {
    case FX_TY_NATURAL:
    case FX_TY_INT:
        if (!fx_val_is_integer(v) || (t->kind == FX_TY_NATURAL && fx_val_int_sign(v) < 0))
            return false;
        if (v.kind == FX_VAL_INT) {
            fx_buf_putc(b, 'i');
            put_varint(b, ((uint64_t)v.u.i << 1) ^ (uint64_t)(v.u.i >> 63)); /* zigzag */
            return true;
        }
        FxBuf digits = {0};
        fx_val_print(v, &digits);
        fx_buf_putc(b, 'b');
        put_bytes(b, fx_buf_str(&digits), digits.len);
        fx_buf_free(&digits);
        return true;
    case FX_TY_FLOAT: {
        if (v.kind != FX_VAL_FLOAT)
            return false;
        uint64_t bits;
        memcpy(&bits, &v.u.f, 8);
        put_u64(b, bits);
        return true;
    }
    case FX_TY_BOOL:
        if (v.kind != FX_VAL_BOOL)
            return false;
        fx_buf_putc(b, v.u.b ? 1 : 0);
        return true;
    case FX_TY_STRING: {
        if (v.kind != FX_VAL_STRING)
            return false;
        size_t len;
        const char *s = fx_val_string_data(v, &len);
        put_bytes(b, s, len);
        return true;
    }
    case FX_TY_LIST:
    case FX_TY_STREAM: {
        if (v.kind != FX_VAL_LIST)
            return false;
        size_t n = fx_val_list_len(v);
        put_varint(b, n);
        for (size_t i = 0; i < n; i++)
            if (!put_value(b, fx_val_list_at(v, i), t->elem))
                return false;
        return true;
    }
    case FX_TY_RECORD:
        if (!t->record || !record_fits(v, t->record))
            return false;
        for (size_t i = 0; i < t->record->def->n_fields; i++)
            if (!put_value(b, fx_val_record_at(v, i), t->record->field_types[i]))
                return false;
        return true;
    default: return false; /* a Matrix, or a type the checker left open */
    }
}

/* A digest of type t as declared (kinds, and records' field names, to the
 * depth the checker allows): bytes written for another type, say a record
 * that has since gained a field, are not read as this one. */
static uint64_t type_digest(uint64_t h, const FxType *t, int depth)
{
    if (!t || depth > 64)
        return fx_fnv_step(h, 0xFF);
    h = fx_fnv_step(h, (uint64_t)t->kind + 1);
    if (t->kind == FX_TY_LIST || t->kind == FX_TY_STREAM)
        return type_digest(h, t->elem, depth + 1);
    if (t->kind != FX_TY_RECORD || !t->record || !t->record->field_types)
        return h;
    h = fx_fnv_step(h, t->record->def->n_fields);
    for (size_t i = 0; i < t->record->def->n_fields; i++) {
        const char *name = t->record->def->field_names[i];
        h = fx_fnv1a(h, name, strlen(name) + 1);
        h = type_digest(h, t->record->field_types[i], depth + 1);
    }
    return h;
}

/* The hash the bytes end with: 8 bytes at a time, then the rest. */
static uint64_t checksum(const char *p, size_t len)
{
    uint64_t h = fx_fnv_step(FX_FNV_BASIS, len);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = fx_fnv_step(h, w);
        h ^= h >> 29;
    }
    return fx_fnv1a(h, p + i, len - i);
}

bool fx_keep_encode(FxValue v, const FxType *t, const FxKeepSource *src, size_t n, FxBuf *out)
{
    fx_buf_free(out);
    fx_buf_append(out, MAGIC, 4);
    put_u64(out, type_digest(FX_FNV_BASIS, t, 0));
    put_varint(out, n);
    for (size_t i = 0; i < n; i++) {
        const char *path = source_path(src[i].dd);
        put_bytes(out, path, strlen(path));
        put_file_stamp(out, &src[i].stamp.file);
        put_file_stamp(out, &src[i].stamp.wal);
    }
    if (!put_value(out, v, t) || out->len > FX_KEEP_MAX_BYTES) {
        fx_buf_free(out);
        return false;
    }
    put_u64(out, checksum(out->data, out->len));
    return true;
}

/* ---- reading: every read is bounded by the bytes left ---- */

typedef struct Reader {
    const unsigned char *p, *end;
    bool ok;
} Reader;

static uint64_t get_u64(Reader *r)
{
    if (r->end - r->p < 8) {
        r->ok = false;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return v;
}

static uint64_t get_varint(Reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
        unsigned char c = *r->p++;
        v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->ok = false;
    return 0;
}

static int get_byte(Reader *r)
{
    if (r->p == r->end) {
        r->ok = false;
        return 0;
    }
    return *r->p++;
}

/* A length-prefixed run of bytes, borrowed; NULL when it overruns. */
static const char *get_bytes(Reader *r, size_t *len)
{
    uint64_t n = get_varint(r);
    if (!r->ok || n > (uint64_t)(r->end - r->p)) {
        r->ok = false;
        return NULL;
    }
    const char *s = (const char *)r->p;
    r->p += n;
    *len = (size_t)n;
    return s;
}

static FxFileStamp get_file_stamp(Reader *r)
{
    FxFileStamp s;
    uint64_t flags = get_u64(r);
    s.exists = flags & 1;
    s.racy = flags >> 1 & 1;
    s.hashed = s.racy || (flags >> 2 & 1);
    s.dev = get_u64(r);
    s.ino = get_u64(r);
    s.size = (long long)get_u64(r);
    s.mtime.tv_sec = (time_t)get_u64(r);
    s.mtime.tv_nsec = (long)get_u64(r);
    s.ctime.tv_sec = (time_t)get_u64(r);
    s.ctime.tv_nsec = (long)get_u64(r);
    s.hash = get_u64(r);
    return s;
}

/* An integer's decimal digits, with a sign at most. */
static bool decimal(const char *s, size_t len)
{
    size_t i = len > 0 && s[0] == '-';
    if (i == len)
        return false;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static bool get_value(Reader *r, const FxType *t, FxValue *out);

static bool get_int(Reader *r, bool natural, FxValue *out)
{
    int tag = get_byte(r);
    if (tag == 'i') {
        uint64_t z = get_varint(r);
        *out = fx_val_int((int64_t)(z >> 1) ^ -(int64_t)(z & 1));
    } else if (tag == 'b') {
        size_t len;
        const char *s = get_bytes(r, &len);
        if (!s || !decimal(s, len))
            return false;
        char *text = fx_xstrndup(s, len);
        *out = fx_val_int_text(text);
        free(text);
    } else {
        return false;
    }
    if (r->ok && (!natural || fx_val_int_sign(*out) >= 0))
        return true;
    fx_value_release(*out);
    return false;
}

static bool get_list(Reader *r, const FxType *elem, FxValue *out)
{
    uint64_t n = get_varint(r);
    if (!r->ok || n > (uint64_t)(r->end - r->p)) /* each element takes a byte at least */
        return false;
    FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    size_t got = 0;
    while (got < n && get_value(r, elem, &items[got]))
        got++;
    bool ok = got == n;
    if (ok)
        *out = fx_val_list_take(items, got);
    else
        for (size_t i = 0; i < got; i++)
            fx_value_release(items[i]);
    free(items);
    return ok;
}

static bool get_record(Reader *r, const FxTypeDecl *decl, FxValue *out)
{
    if (!decl || !decl->field_types)
        return false;
    size_t n = decl->def->n_fields, got = 0;
    FxValue *fields = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    while (got < n && get_value(r, decl->field_types[got], &fields[got]))
        got++;
    bool ok = got == n;
    if (ok) /* the program's names outlive every value, as fx_val_record requires */
        *out = fx_val_record(n, (const char *const *)decl->def->field_names, fields);
    for (size_t i = 0; i < got; i++)
        fx_value_release(fields[i]);
    free(fields);
    return ok;
}

static bool get_value(Reader *r, const FxType *t, FxValue *out)
{
    if (!t)
        return false;
    switch (t->kind) {
    case FX_TY_NATURAL:
    case FX_TY_INT: return get_int(r, t->kind == FX_TY_NATURAL, out);
    case FX_TY_FLOAT: {
        uint64_t bits = get_u64(r);
        double f;
        memcpy(&f, &bits, 8);
        *out = fx_val_float(f);
        return r->ok;
    }
    case FX_TY_BOOL: {
        int c = get_byte(r);
        *out = fx_val_bool(c == 1);
        return r->ok && (c == 0 || c == 1);
    }
    case FX_TY_STRING: {
        size_t len = 0;
        const char *s = get_bytes(r, &len);
        if (s)
            *out = fx_val_string(s, len);
        return s != NULL;
    }
    case FX_TY_LIST:
    case FX_TY_STREAM: return get_list(r, t->elem, out);
    case FX_TY_RECORD: return get_record(r, t->record, out);
    default: return false;
    }
}

FxKeepRead fx_keep_decode(const char *bytes, size_t len, const FxType *t,
                          const FxKeepSource *src, size_t n, FxValue *out)
{
    if (len < 12 || memcmp(bytes, MAGIC, 4) != 0)
        return FX_KEEP_CORRUPT;
    Reader tail = {(const unsigned char *)bytes + len - 8, (const unsigned char *)bytes + len,
                   true};
    if (get_u64(&tail) != checksum(bytes, len - 8))
        return FX_KEEP_CORRUPT;
    Reader r = {(const unsigned char *)bytes + 4, (const unsigned char *)bytes + len - 8, true};
    uint64_t typed = get_u64(&r), kept_n = get_varint(&r);
    if (r.ok && typed != type_digest(FX_FNV_BASIS, t, 0))
        return FX_KEEP_STALE; /* written for another declaration of the result */
    bool same = r.ok && kept_n == n;
    for (size_t i = 0; same && i < n; i++) {
        size_t plen = 0;
        const char *path = get_bytes(&r, &plen), *want = source_path(src[i].dd);
        FxDataStamp s = {.file = get_file_stamp(&r)};
        s.wal = get_file_stamp(&r);
        /* kept within its file's tick: the bytes now must hash alike,
         * though the file has aged (and so the runtime's stamp, too) */
        FxDataStamp now = fx_data_stamp_against(src[i].dd, &s);
        same = r.ok && path && plen == strlen(want) && memcmp(path, want, plen) == 0 &&
               fx_data_stamp_equal(&s, &now) && fx_data_stamp_equal(&now, &src[i].stamp);
    }
    if (!r.ok)
        return FX_KEEP_CORRUPT;
    if (!same)
        return FX_KEEP_STALE;
    if (!get_value(&r, t, out))
        return FX_KEEP_CORRUPT;
    if (r.p != r.end) { /* bytes left over: not what was written */
        fx_value_release(*out);
        return FX_KEEP_CORRUPT;
    }
    return FX_KEEP_OK;
}
