/*
 * natrec.c: records between the VM and native code (natrec.h).
 *
 * The layout is decided here once, from the type's declaration, and both
 * sides read it from here: cgen.c writes the C struct of an FxNatRec field
 * by field, 8 bytes each, and the VM packs and unpacks values with the same
 * FxNatRec. A record whose fields come in another order than its type's, or
 * hold another kind of value than the type says (an integer past int64),
 * has no slots: its call runs in the interpreter.
 */
#include <stdlib.h>
#include <string.h>

#include "natrec.h"

/* The declaration of the record type named name[0..len), or NULL. */
static const FxTypeDecl *find_decl(const FxProgram *prog, const char *name, size_t len)
{
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, td, &(*m)->types)
        {
            if (strlen((*td)->name) == len && !memcmp((*td)->name, name, len))
                return *td;
        }
    }
    return NULL;
}

bool fx_natrec_find(const FxProgram *prog, const char *type, FxNatRec *out)
{
    size_t len = type ? strlen(type) : 0;
    if (len > 6 && !strncmp(type, "List[", 5) && type[len - 1] == ']') {
        type += 5;
        len -= 6;
    }
    const FxTypeDecl *td = prog ? find_decl(prog, type, len) : NULL;
    if (!td || !td->def || td->def->name || !td->field_types || !td->def->n_fields ||
        td->def->n_fields > FX_NATREC_MAX_FIELDS) /* an alias, an empty record: C has no such struct */
        return false;
    out->name = td->name;
    out->names = (const char *const *)td->def->field_names;
    out->n = (uint32_t)td->def->n_fields;
    for (uint32_t i = 0; i < out->n; i++) {
        switch (td->field_types[i]->kind) {
        case FX_TY_NATURAL: out->kind[i] = FX_TK_NATURAL; break;
        case FX_TY_INT: out->kind[i] = FX_TK_INT; break;
        case FX_TY_FLOAT: out->kind[i] = FX_TK_FLOAT; break;
        case FX_TY_BOOL: out->kind[i] = FX_TK_BOOL; break;
        default: return false;
        }
    }
    return true;
}

bool fx_natrec_pack(const FxNatRec *r, FxValue v, void *out)
{
    if (v.kind != FX_VAL_RECORD || fx_val_record_size(v) != r->n)
        return false;
    unsigned char *slot = out;
    for (uint32_t i = 0; i < r->n; i++, slot += 8) {
        const char *name = fx_val_record_name(v, i);
        if (name != r->names[i] && strcmp(name, r->names[i]))
            return false;
        FxValue x = fx_val_record_at(v, i);
        long long w;
        switch (r->kind[i]) {
        case FX_TK_FLOAT:
            if (x.kind != FX_VAL_FLOAT)
                return false;
            memcpy(slot, &x.u.f, 8);
            continue;
        case FX_TK_BOOL:
            if (x.kind != FX_VAL_BOOL)
                return false;
            w = x.u.b;
            break;
        default:
            if (x.kind != FX_VAL_INT)
                return false;
            w = x.u.i;
            break;
        }
        memcpy(slot, &w, 8);
    }
    return true;
}

FxValue fx_natrec_unpack(const FxNatRec *r, const void *slots)
{
    FxValue f[FX_NATREC_MAX_FIELDS];
    const unsigned char *slot = slots;
    for (uint32_t i = 0; i < r->n; i++, slot += 8) {
        long long w;
        double d;
        if (r->kind[i] == FX_TK_FLOAT) {
            memcpy(&d, slot, 8);
            f[i] = fx_val_float(d);
            continue;
        }
        memcpy(&w, slot, 8);
        f[i] = r->kind[i] == FX_TK_BOOL ? fx_val_bool(w != 0) : fx_val_int(w);
    }
    return fx_val_record(r->n, r->names, f);
}

/* A record or a list of records: their slots. */
static bool record_word(const FxProgram *prog, FxValue v, const char *type, FxNatWord *w,
                        void **tmp)
{
    FxNatRec r;
    if (!fx_natrec_find(prog, type, &r))
        return false;
    size_t size = 8 * (size_t)r.n;
    if (strncmp(type, "List[", 5)) { /* one record */
        *tmp = fx_xmalloc(size);
        w->l = (FxNatList){*tmp, 1};
        return fx_natrec_pack(&r, v, *tmp);
    }
    if (v.kind != FX_VAL_LIST)
        return false;
    size_t n = fx_val_list_len(v);
    unsigned char *a = n ? fx_xmalloc(n * size) : NULL;
    *tmp = a;
    for (size_t i = 0; i < n; i++) {
        FxValue e = fx_val_list_get(v, i); /* a table's row: made alone */
        bool ok = fx_natrec_pack(&r, e, a + i * size);
        fx_value_release(e);
        if (!ok)
            return false;
    }
    w->l = (FxNatList){a, (long long)n};
    return true;
}

/* A list of numbers: its own array when kept unboxed, else a copy. */
static bool numbers_word(FxValue v, bool ints, FxNatWord *w, void **tmp)
{
    if (v.kind != FX_VAL_LIST)
        return false;
    size_t n = fx_val_list_len(v);
    const void *p = ints ? (const void *)fx_val_list_ints(v) : (const void *)fx_val_list_floats(v);
    if (!p && n) {
        int64_t *a = fx_xmalloc(n * 8);
        *tmp = a;
        for (size_t i = 0; i < n; i++) {
            FxValue e = fx_val_list_at(v, i);
            if (e.kind != (ints ? FX_VAL_INT : FX_VAL_FLOAT))
                return false;
            memcpy(&a[i], &e.u, 8);
        }
        p = a;
    }
    w->l = (FxNatList){(void *)p, (long long)n};
    return true;
}

bool fx_natrec_word(const FxProgram *prog, FxValue v, FxTypeId t, const char *type,
                    FxNatWord *w, void **tmp)
{
    switch (fx_typeid_kind(t)) {
    case FX_TK_NATURAL:
    case FX_TK_INT: w->i = v.u.i; return v.kind == FX_VAL_INT;
    case FX_TK_FLOAT: w->f = v.u.f; return v.kind == FX_VAL_FLOAT;
    case FX_TK_BOOL: w->i = v.u.b; return v.kind == FX_VAL_BOOL;
    case FX_TK_RECORD: return record_word(prog, v, type, w, tmp);
    case FX_TK_LIST:
        if (fx_typeid_kind(fx_typeid_elem(t)) == FX_TK_RECORD)
            return record_word(prog, v, type, w, tmp);
        return numbers_word(v, fx_typeid_is_integer(fx_typeid_elem(t)), w, tmp);
    default: return false;
    }
}

FxValue fx_natrec_result(const FxProgram *prog, FxTypeId t, const char *type, FxNatWord w)
{
    size_t n = (size_t)w.l.n;
    if (fx_typeid_kind(t) == FX_TK_LIST && fx_typeid_kind(fx_typeid_elem(t)) != FX_TK_RECORD) {
        if (!n) {
            free(w.l.p);
            return fx_val_list(NULL, 0);
        }
        void *p = fx_xrealloc(w.l.p, n * 8); /* shrunk to its elements */
        return fx_typeid_is_integer(fx_typeid_elem(t)) ? fx_val_list_adopt_ints(p, n)
                                                       : fx_val_list_adopt_floats(p, n);
    }
    FxNatRec r;
    bool found = fx_natrec_find(prog, type, &r);
    FX_CHECK(found, "native code returned a `%s`, which it does not hold", type);
    if (fx_typeid_kind(t) == FX_TK_RECORD)
        return fx_natrec_unpack(&r, w.l.p);
    FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++)
        items[i] = fx_natrec_unpack(&r, (const unsigned char *)w.l.p + i * 8 * r.n);
    free(w.l.p);
    FxValue list = fx_val_list_take(items, n);
    free(items);
    return list;
}

void *fx_natcache_take(FxNatCache *k, size_t bytes)
{
    for (uint32_t i = k->n; i-- > 0;) {
        if (k->bytes[i] != bytes)
            continue;
        void *p = k->p[i];
        k->n--;
        k->p[i] = k->p[k->n];
        k->bytes[i] = k->bytes[k->n];
        return p;
    }
    return NULL;
}

void fx_natcache_put(FxNatCache *k, void *p, size_t bytes)
{
    if (!p)
        return;
    if (k->n == FX_NATCACHE_SLOTS) {
        free(p);
        return;
    }
    k->p[k->n] = p;
    k->bytes[k->n++] = bytes;
}

void fx_natcache_clear(FxNatCache *k)
{
    for (uint32_t i = 0; i < k->n; i++)
        free(k->p[i]);
    k->n = 0;
}
