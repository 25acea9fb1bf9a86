/*
 * heapobj.h: the layout of value.c's heap objects, for the VM's hot paths.
 *
 * Private to src/exec: value.c owns these objects and every other module
 * goes through value.h. vm.c reads them here so that the few operations
 * of every instruction (a reference taken or dropped, a list's element, a
 * record's field) are inlined instead of called across files: n-body spent
 * a fifth of its time in those calls. Whatever changes the layout changes
 * value.c and these helpers together.
 */
#ifndef FX_EXEC_HEAPOBJ_H
#define FX_EXEC_HEAPOBJ_H

#include <gmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "table.h"
#include "value.h"

struct FxHeapObj {
    size_t refs;
    FxValKind kind;
    bool adopted; /* LIST, MATRIX: the items are a block of their own */
    bool flat;    /* LIST, MATRIX: no item is a heap value: freed without a look */
    uint8_t size_class; /* a small object's block size / 16 (value.c's cache), else 0 */
    union {
        mpz_t big;
        struct {
            size_t len;   /* bytes */
            size_t chars; /* code points; == len for ASCII, which makes positions bytes */
            char *bytes;  /* trails the object, NUL-terminated, then the marks */
        } str;
        struct {
            size_t n;
            FxValue *items; /* NULL when ints or table holds the elements */
            int64_t *ints;  /* a list of 64-bit integers, unboxed: 8 bytes an element */
            double *floats; /* a list of floats, unboxed: 8 bytes an element */
            FxTable *table; /* a list of records kept by column (table.h); items
                             * then holds its rows boxed once someone borrowed one */
            FxHeapObj *base; /* a slice kept as a view: the list whose items (or
                              * ints, floats) these point into, retained; the
                              * view owns neither the block nor the elements */
        } list;
        struct {
            size_t rows, cols;
            FxValue *cells; /* row-major */
        } mat;
        struct {
            size_t n;
            FxValue *fields;
            const char **names; /* the pointers are ours, the strings borrowed */
        } rec;
    } u;
};

/* Frees obj, whose count has reached zero, and the children that die with it. */
void fx_heap_free(FxHeapObj *obj);

static inline bool fx_kind_is_heap(FxValKind k)
{
    return k == FX_VAL_BIG || k == FX_VAL_STRING || k == FX_VAL_LIST || k == FX_VAL_MATRIX ||
           k == FX_VAL_RECORD;
}

/* fx_value_retain and fx_value_release, inlined. */
static inline void fx_heap_retain(FxValue v)
{
    if (fx_kind_is_heap(v.kind))
        v.u.obj->refs++;
}

static inline void fx_heap_release(FxValue v)
{
    if (fx_kind_is_heap(v.kind) && --v.u.obj->refs == 0)
        fx_heap_free(v.u.obj);
}

/* Element i (< its length) of a list, owned, when it is at hand: boxed,
 * or an unboxed int or float. False for a table's row not yet boxed (the
 * caller then asks fx_val_list_get). */
static inline bool fx_heap_list_item(const FxHeapObj *o, size_t i, FxValue *out)
{
    if (o->u.list.ints) {
        *out = (FxValue){.kind_word = FX_VAL_INT, .u.i = o->u.list.ints[i]};
        return true;
    }
    if (o->u.list.floats) {
        *out = (FxValue){.kind_word = FX_VAL_FLOAT, .u.f = o->u.list.floats[i]};
        return true;
    }
    if (!o->u.list.items)
        return false;
    *out = o->u.list.items[i];
    fx_heap_retain(*out);
    return true;
}

#endif
