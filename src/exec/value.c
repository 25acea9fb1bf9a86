/*
 * value.c: the run-time values of Flux and the arithmetic, comparison and
 * printing on them.
 *
 * DESIGN
 *
 * Scalars (UNIT, BOOL, INT, FLOAT) live inside the 16-byte FxValue. Every
 * other value points at one FxHeapObj: a plain (not atomic) reference count,
 * the kind, and a kind-specific header. The variable-length part (string
 * bytes, list items, matrix cells, record fields and names) trails the
 * header in the same allocation, so a value costs one malloc and one free.
 *
 * Integers have one representation. A result that fits int64 is an INT, and
 * only a result outside int64 is a BIG (a GMP mpz_t). Every integer
 * operation has an int64 fast path guarded by __builtin_*_overflow; on
 * overflow, or when an operand is already BIG, it recomputes in GMP and
 * demotes the result through int_take_mpz(). Hence an INT and a BIG are
 * never equal, and a BIG's sign alone orders it against any INT.
 *
 * Releasing is iterative: an object whose count drops to zero releases its
 * children, and children that die in turn are pushed on a local work list
 * rather than freed by recursion, so neither a list of 10^6 strings nor a
 * list nested 10^5 deep grows the C stack. Comparison, hashing and printing
 * do recurse, on nesting depth only, which programs keep small.
 *
 * Numbers of different kinds meet in two ways. Arithmetic converts the
 * integer to a double (IEEE semantics then apply). Equality, ordering and
 * hashing are exact instead: 2^53 + 1 is not equal to the double 2^53, and
 * an integral double hashes like the integer it equals, so that values that
 * compare equal always hash equal.
 *
 * A string knows its length in code points, counted once when it is made,
 * and a long non-ASCII one keeps marks to find a position quickly (see
 * string_new), so `s[i]` costs O(1) on ASCII and a bounded scan otherwise.
 *
 * Every heap value is charged to the run's meter (meter.h) when it is made
 * and credited when it is freed, by obj_bytes(): the header, the trailing
 * part, and malloc's own overhead. A big integer's limbs are charged by GMP
 * itself, through the allocation functions the meter installs. The
 * constructors cannot fail, so they only count (fx_meter_add); a value
 * whose size the program decides is asked for first: a concatenation, and
 * every big-number operation, whose result and scratch are predicted from
 * the operands' sizes and whose cost is estimated (cost_of, below) before
 * GMP runs. A list or matrix built element by element is adopted, not
 * copied (fx_val_list_adopt), so it is never held twice.
 *
 * The meter is the only global state used here (thread-local, see
 * meter.h); GMP temporaries are locals.
 */
#include "value.h"
#include "base/hash.h"
#include "base/utf8.h"
#include "value_gmp.h"

#include "meter.h"
#include "table.h"
#include "heapobj.h"

#include <errno.h>
#include <gmp.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* GMP's *_si accessors take a long; Flux targets LP64 POSIX systems, where a
 * long is exactly an int64, so mpz_fits_slong_p is "fits int64". */
_Static_assert(sizeof(long) == sizeof(int64_t), "value.c assumes a 64-bit long (LP64)");

/* The largest exponent fx_val_pow accepts for an integer base (value.h). */
#define POW_MAX_EXP ((uint64_t)1 << 32)

/* struct FxHeapObj: heapobj.h */

/* Trailing FxValue arrays start right after the header. */
_Static_assert(sizeof(FxHeapObj) % _Alignof(FxValue) == 0, "FxHeapObj tail misaligned");

typedef FX_VEC(FxHeapObj *) ObjStack;

/* ---------------------------------------------------------------- helpers */

static bool is_heap(FxValue v)
{
    return v.kind == FX_VAL_BIG || v.kind == FX_VAL_STRING || v.kind == FX_VAL_LIST ||
           v.kind == FX_VAL_MATRIX || v.kind == FX_VAL_RECORD;
}

static bool is_number(FxValue v)
{
    return v.kind == FX_VAL_INT || v.kind == FX_VAL_BIG || v.kind == FX_VAL_FLOAT;
}

/* The kind as the language names it, for error messages. */
static const char *kind_name(FxValue v)
{
    /* ORDER FX_VAL */
    static const char *const names[] = {"()",     "Bool", "Int",    "Int",   "Float",
                                        "String", "List", "Matrix", "record"};
    return names[v.kind];
}

static FX_PRINTF(2, 3) void set_error(FxError *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

static bool type_error(FxError *err, const char *op, const char *want, FxValue a, FxValue b)
{
    set_error(err, "`%s` needs %s, not %s and %s", op, want, kind_name(a), kind_name(b));
    return false;
}

/* n * size bytes, where n comes from a value: overflow means corrupt state. */
static size_t tail_size(size_t n, size_t size)
{
    size_t total;
    FX_CHECK(!__builtin_mul_overflow(n, size, &total), "value of %zu elements is too large", n);
    return total;
}

/*
 * Small objects (a record, a short list or string: up to CACHE_MAX_BYTES)
 * come from a cache of freed blocks of the thread, one chain a size class
 * of 16 bytes, and go back to it when they die, up to CACHE_KEEP a class.
 * A program that makes and drops millions of them (a list sliced and
 * joined at each step) paid a fifth of its time to malloc and free, whose
 * own per-thread cache keeps 7 blocks a size. A thread's blocks are freed
 * when it ends (a key's destructor); the process's at its end by the
 * system. The meter counts an object from obj_new to obj_free as before.
 * Not under the sanitizers, which must see every block come and go.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CACHE_CLASSES 0
#else
#define CACHE_CLASSES 16
#endif
#define CACHE_MAX_BYTES (CACHE_CLASSES * 16)
#define CACHE_KEEP 512

typedef struct CachedBlock {
    struct CachedBlock *next;
} CachedBlock;

typedef struct BlockCache {
    CachedBlock *head[CACHE_CLASSES + 1];
    uint32_t n[CACHE_CLASSES + 1];
    bool registered; /* the key's destructor will empty it */
} BlockCache;

static _Thread_local BlockCache block_cache;
static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

static void cache_empty(void *unused)
{
    (void)unused;
    for (int c = 0; c <= CACHE_CLASSES; c++) {
        while (block_cache.head[c]) {
            CachedBlock *b = block_cache.head[c];
            block_cache.head[c] = b->next;
            free(b);
        }
        block_cache.n[c] = 0;
    }
}

static void cache_key_make(void)
{
    FX_CHECK(pthread_key_create(&cache_key, cache_empty) == 0, "no thread key for the cache");
}

static FxHeapObj *obj_alloc(size_t bytes)
{
    if (bytes > CACHE_MAX_BYTES) {
        FxHeapObj *o = fx_xmalloc(bytes);
        o->size_class = 0;
        return o;
    }
    unsigned c = (unsigned)((bytes + 15) / 16);
    CachedBlock *b = block_cache.head[c];
    FxHeapObj *o;
    if (b) {
        block_cache.head[c] = b->next;
        block_cache.n[c]--;
        o = (FxHeapObj *)b;
    } else {
        o = fx_xmalloc((size_t)c * 16);
    }
    o->size_class = (uint8_t)c;
    return o;
}

static void obj_dealloc(FxHeapObj *o)
{
    unsigned c = o->size_class;
    if (c == 0 || block_cache.n[c] >= CACHE_KEEP) {
        free(o);
        return;
    }
    if (!block_cache.registered) { /* the thread's first: empty the cache at its end */
        pthread_once(&cache_key_once, cache_key_make);
        pthread_setspecific(cache_key, &block_cache);
        block_cache.registered = true;
    }
    CachedBlock *b = (CachedBlock *)o;
    b->next = block_cache.head[c];
    block_cache.head[c] = b;
    block_cache.n[c]++;
}

/* A new object with `tail` bytes after its header, counted on the meter:
 * the callers whose tail the program sizes have asked fx_meter_fits first. */
static FxHeapObj *obj_new(FxValKind kind, size_t tail)
{
    FxHeapObj *o = obj_alloc(sizeof(*o) + tail);
    fx_meter_add(sizeof(*o) + tail + FX_METER_BLOCK_OVERHEAD);
    o->refs = 1;
    o->kind = kind;
    o->adopted = o->flat = false;
    if (kind == FX_VAL_LIST)
        o->u.list.base = NULL;
    return o;
}

/*
 * Strings count positions in code points (docs/language.md §5): a code point
 * starts at byte 0 and at every byte that is not a UTF-8 continuation byte
 * (10xxxxxx), so any bytes, valid UTF-8 or not, cut the same way. A string
 * whose code points are all one byte (chars == len: ASCII) finds position i
 * at byte i. Any other string longer than MARK_STEP code points keeps marks
 * after its bytes: the byte offset of code point k * MARK_STEP for k = 1, 2,
 * ..., so finding a position scans at most MARK_STEP - 1 code points and
 * `s[i]` in a loop stays linear. The marks cost 4 bytes per MARK_STEP code
 * points (at most 1/16 of the bytes), and a string over 4 GiB has none.
 */
#define MARK_STEP 64

static size_t n_marks(size_t len, size_t chars)
{
    if (chars == len || chars <= MARK_STEP || len > UINT32_MAX)
        return 0;
    return (chars - 1) / MARK_STEP;
}

/* A string's bytes after its header: the text, its NUL (4-byte aligned),
 * and its marks. */
static size_t string_tail(size_t len, size_t chars)
{
    return ((len + 4) & ~(size_t)3) + n_marks(len, chars) * sizeof(uint32_t);
}

/* Is list object o kept unboxed: int64s or doubles, 8 bytes an element? */
static inline bool packed(const FxHeapObj *o)
{
    return o->u.list.ints || o->u.list.floats;
}

/* What o was charged, header and payload: an adopted array of items is
 * charged as if it trailed the header. */
static size_t obj_bytes(const FxHeapObj *o)
{
    size_t payload = 0;
    switch (o->kind) {
    case FX_VAL_STRING:
        payload = string_tail(o->u.str.len, o->u.str.chars);
        break;
    case FX_VAL_LIST:
        if (o->u.list.base) /* a view: its base pays for the elements */
            payload = 0;
        else if (o->u.list.table)
            payload = fx_table_bytes(o->u.list.table) +
                      (o->u.list.items ? o->u.list.n * sizeof(FxValue) : 0);
        else
            payload = o->u.list.n * (packed(o) ? sizeof(int64_t) : sizeof(FxValue));
        break;
    case FX_VAL_MATRIX:
        payload = o->u.mat.rows * o->u.mat.cols * sizeof(FxValue);
        break;
    case FX_VAL_RECORD:
        payload = o->u.rec.n * (sizeof(FxValue) + sizeof(char *));
        break;
    default: /* BIG: GMP counts its limbs */
        break;
    }
    return sizeof(*o) + payload + FX_METER_BLOCK_OVERHEAD;
}

size_t fx_val_string_bytes(size_t len)
{
    return sizeof(FxHeapObj) + string_tail(len, len) + FX_METER_BLOCK_OVERHEAD;
}

static FxValue heap_value(FxHeapObj *o)
{
    FxValue v = {.kind = o->kind, .u.obj = o};
    return v;
}

static FxValue unit_value(void)
{
    FxValue v = {.kind = FX_VAL_UNIT, .u.i = 0};
    return v;
}

/* ---------------------------------------------------------- construction */

FxValue fx_val_bool(bool b)
{
    FxValue v = {.kind = FX_VAL_BOOL, .u.b = b};
    return v;
}

FxValue fx_val_int(int64_t i)
{
    FxValue v = {.kind = FX_VAL_INT, .u.i = i};
    return v;
}

FxValue fx_val_float(double f)
{
    FxValue v = {.kind = FX_VAL_FLOAT, .u.f = f};
    return v;
}

/*
 * Turns z into a value and clears it: an INT when it fits int64 (the
 * demotion that keeps one representation per integer), else a BIG that
 * takes over z's limbs by swapping rather than copying.
 */
static FxValue int_take_mpz(mpz_t z)
{
    if (mpz_fits_slong_p(z)) {
        FxValue v = fx_val_int(mpz_get_si(z));
        mpz_clear(z);
        return v;
    }
    FxHeapObj *o = obj_new(FX_VAL_BIG, 0);
    mpz_init(o->u.big);
    mpz_swap(o->u.big, z);
    mpz_clear(z);
    return heap_value(o);
}

/* Initialises out to the integer v (INT or BIG). */
static void mpz_init_from(mpz_t out, FxValue v)
{
    if (v.kind == FX_VAL_BIG)
        mpz_init_set(out, v.u.obj->u.big);
    else
        mpz_init_set_si(out, v.u.i);
}

FxValue fx_val_int_take_mpz(mpz_t z)
{
    return int_take_mpz(z);
}

void fx_val_mpz_init_from(mpz_t out, FxValue v)
{
    mpz_init_from(out, v);
}

FxValue fx_val_int_text(const char *decimal)
{
    // Most literals fit; strtoll avoids a GMP round trip for them.
    char *end;
    errno = 0;
    long long i = strtoll(decimal, &end, 10);
    if (errno == 0 && end != decimal && *end == '\0')
        return fx_val_int(i);
    mpz_t z;
    int rc = mpz_init_set_str(z, decimal, 10);
    FX_ASSERT(rc == 0); // the caller validated the text
    (void)rc;
    return int_take_mpz(z);
}


static bool is_continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

static size_t count_points(const char *s, size_t len)
{
    size_t n = len && is_continuation(s[0]); /* byte 0 always starts one */
    for (size_t i = 0; i < len; i++)
        n += !is_continuation(s[i]);
    return n;
}

/* The marks trail the bytes and their NUL, 4-byte aligned. */
static uint32_t *str_marks(const FxHeapObj *o)
{
    return (uint32_t *)(o->u.str.bytes + ((o->u.str.len + 4) & ~(size_t)3));
}

/* The string a ++ b of `chars` code points, its marks made. */
static FxValue string_new(const char *a, size_t la, const char *b, size_t lb, size_t chars)
{
    size_t len;
    FX_CHECK(!__builtin_add_overflow(la, lb, &len) && len < SIZE_MAX / 2,
             "string of %zu + %zu bytes is too large", la, lb);
    size_t marks = n_marks(len, chars);
    FxHeapObj *o = obj_new(FX_VAL_STRING, string_tail(len, chars));
    o->u.str.len = len;
    o->u.str.chars = chars;
    o->u.str.bytes = (char *)(o + 1);
    if (la)
        memcpy(o->u.str.bytes, a, la);
    if (lb)
        memcpy(o->u.str.bytes + la, b, lb);
    o->u.str.bytes[len] = '\0';
    if (marks) {
        uint32_t *m = str_marks(o);
        size_t point = 0;
        for (size_t i = 0; i < len; i++) {
            if (i > 0 && is_continuation(o->u.str.bytes[i]))
                continue;
            if (point > 0 && point % MARK_STEP == 0 && point / MARK_STEP <= marks)
                m[point / MARK_STEP - 1] = (uint32_t)i;
            point++;
        }
    }
    return heap_value(o);
}

FxValue fx_val_string(const char *s, size_t len)
{
    return string_new(s, len, NULL, 0, count_points(s, len));
}

/* A list of n slots the caller fills with owned references. */
static FxHeapObj *list_new(size_t n)
{
    FxHeapObj *o = obj_new(FX_VAL_LIST, tail_size(n, sizeof(FxValue)));
    o->u.list.n = n;
    o->u.list.items = (FxValue *)(o + 1);
    o->u.list.ints = NULL;
    o->u.list.floats = NULL;
    o->u.list.table = NULL;
    return o;
}

/* A list of n 64-bit integers, unboxed, that the caller fills. A kernel's
 * list (primes, a sorted column) takes half the memory of FxValues and is
 * written with one copy. */
static FxHeapObj *ints_new(size_t n)
{
    FxHeapObj *o = obj_new(FX_VAL_LIST, tail_size(n, sizeof(int64_t)));
    o->flat = true;
    o->u.list.n = n;
    o->u.list.items = NULL;
    o->u.list.ints = (int64_t *)(o + 1);
    o->u.list.floats = NULL;
    o->u.list.table = NULL;
    return o;
}

/* The rows of a table as records, made the first time someone borrows an
 * element and kept (they are the list's from then on). */
static FxValue *box_rows(FxHeapObj *o)
{
    size_t n = o->u.list.n;
    FxValue *items = fx_xmalloc(tail_size(n ? n : 1, sizeof(FxValue)));
    fx_meter_add(n * sizeof(FxValue));
    for (size_t i = 0; i < n; i++)
        items[i] = fx_table_row(o->u.list.table, i);
    return o->u.list.items = items;
}

/* The elements of a list that is not kept unboxed, borrowed. */
static inline const FxValue *boxed(const FxHeapObj *o)
{
    return o->u.list.items ? o->u.list.items : box_rows((FxHeapObj *)o);
}

/* Element i of list object o, borrowed. */
static inline FxValue item(const FxHeapObj *o, size_t i)
{
    if (o->u.list.ints)
        return fx_val_int(o->u.list.ints[i]);
    return o->u.list.floats ? fx_val_float(o->u.list.floats[i]) : boxed(o)[i];
}

FxValue fx_val_list_of_u64(const uint64_t *v, size_t n)
{
    FxHeapObj *o = ints_new(n);
    if (n) /* each below 2^63: the same bits as int64 */
        memcpy(o->u.list.ints, v, n * sizeof(int64_t));
    return heap_value(o);
}

FxValue fx_val_list_of_f64(const double *v, size_t n)
{
    FxHeapObj *o = ints_new(n); /* a double takes an int64's slot */
    if (n)
        memcpy(o->u.list.ints, v, n * sizeof(double));
    o->u.list.floats = (double *)o->u.list.ints;
    o->u.list.ints = NULL;
    return heap_value(o);
}

FxValue fx_val_list_of_i64(const int64_t *v, size_t n)
{
    FxHeapObj *o = ints_new(n);
    if (n)
        memcpy(o->u.list.ints, v, n * sizeof(int64_t));
    return heap_value(o);
}

/* A list that takes over a block of n int64s (ints) or doubles (floats). */
static FxValue adopt_packed(int64_t *ints, double *floats, size_t n)
{
    FxHeapObj *o = obj_new(FX_VAL_LIST, 0);
    fx_meter_add(n * 8);
    o->adopted = o->flat = true;
    o->u.list.n = n;
    o->u.list.items = NULL;
    o->u.list.ints = ints;
    o->u.list.floats = floats;
    o->u.list.table = NULL;
    return heap_value(o);
}

FxValue fx_val_list_adopt_ints(int64_t *v, size_t n)
{
    return adopt_packed(v, NULL, n);
}

FxValue fx_val_list_adopt_floats(double *v, size_t n)
{
    return adopt_packed(NULL, v, n);
}

const double *fx_val_list_floats(FxValue list)
{
    FX_ASSERT(list.kind == FX_VAL_LIST);
    return list.u.obj->u.list.floats;
}

/* Elements from..to (to <= n) of list object o, in order or reversed, in
 * its own kind: unboxed stays unboxed (a slice of a list of Natural is one
 * copy, not a box an element), boxed gets references. */
/* A slice at least this long, and at least half of the list its elements
 * live in, is a view of it, not a copy: a recursion on xs[1..len(xs)] then
 * holds O(n) memory, not O(n^2) (a 30,000-element sum took 3.5 GB), and a
 * copy is made only once the views have shrunk to half, so they never keep
 * more than twice what they show alive. */
#define VIEW_MIN 32

static FxValue list_view(FxHeapObj *o, size_t from, size_t n)
{
    FxHeapObj *base = o->u.list.base ? o->u.list.base : o;
    FxHeapObj *r = obj_new(FX_VAL_LIST, 0);
    base->refs++;
    r->flat = o->flat;
    r->u.list.n = n;
    r->u.list.items = o->u.list.items ? o->u.list.items + from : NULL;
    r->u.list.ints = o->u.list.ints ? o->u.list.ints + from : NULL;
    r->u.list.floats = o->u.list.floats ? o->u.list.floats + from : NULL;
    r->u.list.table = NULL;
    r->u.list.base = base;
    return heap_value(r);
}

static FxValue list_range(FxHeapObj *o, size_t from, size_t to, bool reversed)
{
    size_t n = to - from;
    const FxHeapObj *base = o->u.list.base ? o->u.list.base : o;
    if (!reversed && !o->u.list.table && n >= VIEW_MIN && 2 * n >= base->u.list.n)
        return list_view(o, from, n);
    if (o->u.list.ints || o->u.list.floats) {
        FxHeapObj *r = ints_new(n); /* floats share the int64 slots' size */
        int64_t *dst = r->u.list.ints;
        const int64_t *src = o->u.list.ints ? o->u.list.ints : (const int64_t *)o->u.list.floats;
        for (size_t i = 0; i < n; i++)
            dst[i] = src[reversed ? to - 1 - i : from + i];
        if (o->u.list.floats) {
            r->u.list.floats = (double *)r->u.list.ints;
            r->u.list.ints = NULL;
        }
        return heap_value(r);
    }
    const FxValue *items = boxed(o);
    FxHeapObj *r = list_new(n);
    r->flat = o->flat;
    for (size_t i = 0; i < n; i++) {
        FxValue v = items[reversed ? to - 1 - i : from + i];
        fx_value_retain(v);
        r->u.list.items[i] = v;
    }
    return heap_value(r);
}

FxValue fx_val_list_slice(FxValue list, size_t from, size_t to)
{
    FX_ASSERT(list.kind == FX_VAL_LIST && from <= to && to <= list.u.obj->u.list.n);
    return list_range(list.u.obj, from, to, false);
}

FxValue fx_val_list_reversed(FxValue list)
{
    FX_ASSERT(list.kind == FX_VAL_LIST);
    return list_range(list.u.obj, 0, list.u.obj->u.list.n, true);
}

FxValue fx_val_list_of_table(FxTable *t)
{
    FxHeapObj *o = obj_new(FX_VAL_LIST, 0);
    fx_meter_add(fx_table_bytes(t));
    o->adopted = true;
    o->u.list.n = t->n_rows;
    o->u.list.items = NULL;
    o->u.list.ints = NULL;
    o->u.list.floats = NULL;
    o->u.list.table = t;
    return heap_value(o);
}

const FxTable *fx_val_list_table(FxValue list)
{
    FX_ASSERT(list.kind == FX_VAL_LIST);
    return list.u.obj->u.list.table;
}

FxValue fx_val_list_get(FxValue list, size_t i)
{
    FX_ASSERT(list.kind == FX_VAL_LIST && i < list.u.obj->u.list.n);
    const FxHeapObj *o = list.u.obj;
    if (o->u.list.table && !o->u.list.items)
        return fx_table_row(o->u.list.table, i);
    FxValue v = item(o, i);
    fx_value_retain(v);
    return v;
}

const int64_t *fx_val_list_ints(FxValue list)
{
    FX_ASSERT(list.kind == FX_VAL_LIST);
    return list.u.obj->u.list.ints;
}

FxValue fx_val_list_take(FxValue *items, size_t n)
{
    FxHeapObj *o = list_new(n);
    if (n)
        memcpy(o->u.list.items, items, n * sizeof(FxValue));
    return heap_value(o);
}

/* Takes over an array charged for cap values, shrunk to n of them. */
static FxValue *adopt_items(FxValue *items, size_t n, size_t cap)
{
    FX_ASSERT(n <= cap);
    if (n < cap) {
        fx_meter_sub((cap - n) * sizeof(FxValue));
        items = n ? fx_xrealloc(items, n * sizeof(FxValue)) : (free(items), NULL);
    }
    return items;
}

FxValue fx_val_list_adopt(FxValue *items, size_t n, size_t cap, bool flat)
{
    FxHeapObj *o = obj_new(FX_VAL_LIST, 0);
    o->adopted = true;
    o->flat = flat;
    o->u.list.n = n;
    o->u.list.items = adopt_items(items, n, cap);
    o->u.list.ints = NULL;
    o->u.list.floats = NULL;
    o->u.list.table = NULL;
    return heap_value(o);
}

FxValue fx_val_matrix_adopt(size_t rows, size_t cols, FxValue *cells, size_t cap, bool flat)
{
    FxHeapObj *o = obj_new(FX_VAL_MATRIX, 0);
    o->adopted = true;
    o->flat = flat;
    o->u.mat.rows = rows;
    o->u.mat.cols = cols;
    o->u.mat.cells = adopt_items(cells, tail_size(rows, cols), cap);
    return heap_value(o);
}

FxValue fx_val_list(const FxValue *items, size_t n)
{
    FxHeapObj *o = list_new(n);
    for (size_t i = 0; i < n; i++) {
        fx_value_retain(items[i]);
        o->u.list.items[i] = items[i];
    }
    return heap_value(o);
}

FxValue fx_val_matrix(size_t rows, size_t cols, const FxValue *cells)
{
    size_t n = tail_size(rows, cols);
    FxHeapObj *o = obj_new(FX_VAL_MATRIX, tail_size(n, sizeof(FxValue)));
    o->u.mat.rows = rows;
    o->u.mat.cols = cols;
    o->u.mat.cells = (FxValue *)(o + 1);
    for (size_t i = 0; i < n; i++) {
        fx_value_retain(cells[i]);
        o->u.mat.cells[i] = cells[i];
    }
    return heap_value(o);
}

FxValue fx_val_record(size_t n, const char *const *names, const FxValue *fields)
{
    // Fields first: FxValue needs the stricter alignment of the two arrays.
    size_t tail = tail_size(n, sizeof(FxValue) + sizeof(char *));
    FxHeapObj *o = obj_new(FX_VAL_RECORD, tail);
    o->u.rec.n = n;
    o->u.rec.fields = (FxValue *)(o + 1);
    o->u.rec.names = (const char **)(o->u.rec.fields + n);
    for (size_t i = 0; i < n; i++) {
        fx_value_retain(fields[i]);
        o->u.rec.fields[i] = fields[i];
        o->u.rec.names[i] = names[i];
    }
    return heap_value(o);
}

/* ------------------------------------------------------- reference counts */

void fx_value_retain(FxValue v)
{
    if (is_heap(v))
        v.u.obj->refs++;
}

/* Drops one reference to child; a child that dies waits on the stack. */
static void drop_child(FxValue child, ObjStack *dead)
{
    if (is_heap(child) && --child.u.obj->refs == 0)
        fx_vec_push(dead, child.u.obj);
}

static void drop_children(const FxValue *vals, size_t n, ObjStack *dead)
{
    for (size_t i = 0; i < n; i++)
        drop_child(vals[i], dead);
}

/* Frees o, whose count is zero, handing its dying children to dead. */
static void obj_free(FxHeapObj *o, ObjStack *dead)
{
    size_t bytes = obj_bytes(o); /* before a table goes */
    switch (o->kind) {
    case FX_VAL_BIG:
        mpz_clear(o->u.big);
        break;
    case FX_VAL_LIST:
        if (o->u.list.base) { /* a view: the base holds the block and the elements */
            drop_child(heap_value(o->u.list.base), dead);
            break;
        }
        if (o->u.list.table) {
            if (o->u.list.items)
                drop_children(o->u.list.items, o->u.list.n, dead);
            free(o->u.list.items);
            fx_table_free(o->u.list.table);
            break;
        }
        if (!o->flat)
            drop_children(o->u.list.items, o->u.list.n, dead);
        if (o->adopted && o->u.list.ints)
            free(o->u.list.ints);
        else if (o->adopted && o->u.list.floats)
            free(o->u.list.floats);
        else if (o->adopted)
            free(o->u.list.items);
        break;
    case FX_VAL_MATRIX:
        if (!o->flat)
            drop_children(o->u.mat.cells, o->u.mat.rows * o->u.mat.cols, dead);
        if (o->adopted)
            free(o->u.mat.cells);
        break;
    case FX_VAL_RECORD:
        drop_children(o->u.rec.fields, o->u.rec.n, dead);
        break;
    default: // STRING: its bytes go with the object
        break;
    }
    fx_meter_sub(bytes);
    obj_dealloc(o);
}

void fx_value_release(FxValue v)
{
    if (is_heap(v) && --v.u.obj->refs == 0)
        fx_heap_free(v.u.obj);
}

void fx_heap_free(FxHeapObj *obj)
{
    // The stack allocates only when a container takes heap children with it
    // (an object alone, the common case, frees without a malloc).
    ObjStack dead = {0};
    for (FxHeapObj *o = obj;; o = dead.data[--dead.len]) {
        obj_free(o, &dead);
        if (dead.len == 0)
            break;
    }
    fx_vec_free(&dead);
}

/* ----------------------------------------------------------------- access */

size_t fx_val_list_len(FxValue list)
{
    FX_ASSERT(list.kind == FX_VAL_LIST);
    return list.u.obj->u.list.n;
}

FxValue fx_val_list_at(FxValue list, size_t i)
{
    FX_ASSERT(list.kind == FX_VAL_LIST && i < list.u.obj->u.list.n);
    return item(list.u.obj, i);
}

size_t fx_val_matrix_rows(FxValue m)
{
    FX_ASSERT(m.kind == FX_VAL_MATRIX);
    return m.u.obj->u.mat.rows;
}

size_t fx_val_matrix_cols(FxValue m)
{
    FX_ASSERT(m.kind == FX_VAL_MATRIX);
    return m.u.obj->u.mat.cols;
}

FxValue fx_val_matrix_at(FxValue m, size_t r, size_t c)
{
    FX_ASSERT(m.kind == FX_VAL_MATRIX);
    FX_ASSERT(r < m.u.obj->u.mat.rows && c < m.u.obj->u.mat.cols);
    return m.u.obj->u.mat.cells[r * m.u.obj->u.mat.cols + c];
}

const char *fx_val_string_data(FxValue s, size_t *out_len)
{
    FX_ASSERT(s.kind == FX_VAL_STRING);
    if (out_len)
        *out_len = s.u.obj->u.str.len;
    return s.u.obj->u.str.bytes;
}

size_t fx_val_string_length(FxValue s)
{
    FX_ASSERT(s.kind == FX_VAL_STRING);
    return s.u.obj->u.str.chars;
}

size_t fx_val_string_offset(FxValue s, size_t i)
{
    FX_ASSERT(s.kind == FX_VAL_STRING && i <= s.u.obj->u.str.chars);
    const FxHeapObj *o = s.u.obj;
    if (o->u.str.chars == o->u.str.len)
        return i;
    if (i == o->u.str.chars)
        return o->u.str.len;
    size_t pos = 0, point = 0, marks = n_marks(o->u.str.len, o->u.str.chars);
    if (marks && i >= MARK_STEP) {
        size_t k = i / MARK_STEP <= marks ? i / MARK_STEP : marks;
        pos = str_marks(o)[k - 1];
        point = k * MARK_STEP;
    }
    for (; point < i; point++)
        do
            pos++;
        while (pos < o->u.str.len && is_continuation(o->u.str.bytes[pos]));
    return pos;
}

FxValue fx_val_record_field(FxValue r, const char *name)
{
    FX_ASSERT(r.kind == FX_VAL_RECORD);
    // Records have a handful of fields: a linear scan beats any index.
    for (size_t i = 0; i < r.u.obj->u.rec.n; i++)
        if (strcmp(r.u.obj->u.rec.names[i], name) == 0)
            return r.u.obj->u.rec.fields[i];
    return unit_value();
}

size_t fx_val_record_size(FxValue r)
{
    FX_ASSERT(r.kind == FX_VAL_RECORD);
    return r.u.obj->u.rec.n;
}

const char *fx_val_record_name(FxValue r, size_t i)
{
    FX_ASSERT(r.kind == FX_VAL_RECORD && i < r.u.obj->u.rec.n);
    return r.u.obj->u.rec.names[i];
}

FxValue fx_val_record_at(FxValue r, size_t i)
{
    FX_ASSERT(r.kind == FX_VAL_RECORD && i < r.u.obj->u.rec.n);
    return r.u.obj->u.rec.fields[i];
}

bool fx_val_is_integer(FxValue v)
{
    return v.kind == FX_VAL_INT || v.kind == FX_VAL_BIG;
}

bool fx_val_to_int64(FxValue v, int64_t *out)
{
    // A BIG never fits: demotion would have made it an INT.
    if (v.kind != FX_VAL_INT)
        return false;
    *out = v.u.i;
    return true;
}

int fx_val_int_sign(FxValue v)
{
    FX_ASSERT(fx_val_is_integer(v));
    if (v.kind == FX_VAL_BIG)
        return mpz_sgn(v.u.obj->u.big);
    return (v.u.i > 0) - (v.u.i < 0);
}

uint64_t fx_val_int_bits(FxValue v)
{
    FX_ASSERT(fx_val_is_integer(v));
    if (v.kind == FX_VAL_BIG)
        return mpz_sizeinbase(v.u.obj->u.big, 2);
    uint64_t mag = v.u.i < 0 ? -(uint64_t)v.u.i : (uint64_t)v.u.i;
    return mag ? 64 - (uint64_t)__builtin_clzll(mag) : 0;
}

size_t fx_val_int_digits(FxValue v)
{
    FX_ASSERT(fx_val_is_integer(v));
    if (v.kind == FX_VAL_BIG)
        return mpz_sizeinbase(v.u.obj->u.big, 10);
    char text[24];
    return (size_t)snprintf(text, sizeof(text), "%llu",
                            v.u.i < 0 ? -(unsigned long long)v.u.i : (unsigned long long)v.u.i);
}

void fx_val_int_last_digits(FxValue v, char *out, size_t len)
{
    FX_ASSERT(fx_val_is_integer(v) && len >= 21);
    if (v.kind != FX_VAL_BIG) {
        snprintf(out, len, "%llu",
                 v.u.i < 0 ? -(unsigned long long)v.u.i : (unsigned long long)v.u.i);
        return;
    }
    /* |z| mod 10^20 from |z| mod 2^20 (its low bits) and |z| mod 5^20 (one
     * pass, nothing allocated: a division by 10^20 copied the whole
     * number, 40 MB for 10^8 digits), joined by the Chinese remainder
     * theorem: x = b + 5^20 t with t = (a - b) / 5^20 mod 2^20. */
    const uint64_t five20 = 95367431640625ULL, low20 = (1u << 20) - 1;
    mpz_srcptr z = v.u.obj->u.big;
    uint64_t a = (uint64_t)mpz_getlimbn(z, 0) & low20, b = mpz_tdiv_ui(z, five20);
    uint64_t inv = five20; /* the inverse of 5^20 mod 2^20, by Newton's steps */
    for (int i = 0; i < 5; i++)
        inv *= 2 - five20 * inv;
    uint64_t t = ((a - b) * inv) & low20;
    unsigned __int128 x = (unsigned __int128)five20 * t + b;
    const uint64_t ten10 = 10000000000ULL;
    snprintf(out, len, "%010llu%010llu", (unsigned long long)(uint64_t)(x / ten10),
             (unsigned long long)(uint64_t)(x % ten10));
}

/* ------------------------------------------------------------- arithmetic */

/* The double nearest to z, ties to even, as (double) does for an int64
 * and strtod for its digits; mpz_get_d truncates instead. Past the
 * doubles' range: an infinity. */
static double big_to_double(mpz_srcptr z)
{
    size_t bits = mpz_sizeinbase(z, 2);
    if (bits <= 53)
        return mpz_get_d(z); /* exact */
    if (bits > 1024)
        return mpz_sgn(z) < 0 ? -INFINITY : INFINITY;
    mpz_t top;
    mpz_init(top);
    mpz_tdiv_q_2exp(top, z, bits - 54); /* 53 bits and the first one dropped */
    mpz_abs(top, top);
    uint64_t q = mpz_get_ui(top);
    mpz_clear(top);
    bool sticky = mpz_scan1(z, 0) < bits - 54; /* a one below them (|z|'s bits: the same) */
    uint64_t mant = q >> 1;
    if ((q & 1) && (sticky || (mant & 1)))
        mant++;
    double d = ldexp((double)mant, (int)(bits - 53));
    return mpz_sgn(z) < 0 ? -d : d;
}

double fx_val_int_to_double(FxValue v)
{
    return v.kind == FX_VAL_BIG ? big_to_double(v.u.obj->u.big) : (double)v.u.i;
}

/* A number as a double: how an integer meets a float in arithmetic. */
static double to_double(FxValue v)
{
    return v.kind == FX_VAL_FLOAT ? v.u.f : fx_val_int_to_double(v);
}

/* ---- what big-number work costs ----
 *
 * Before GMP runs, an operation on big integers is priced from its
 * operands' sizes in limbs (64 bits): its work, in units of about a
 * nanosecond, and the bytes it may hold at its peak (the result and GMP's
 * scratch). The meter refuses it when the bytes do not fit the memory
 * budget or when it would end past the deadline (fx_meter_afford); else the
 * work counts in the step budget. Measured with GMP 6.2 on the development
 * machine (x86-64), balanced products from 10^3 to 1.6 * 10^7 limbs took
 * 11 to 22 ns times n log2 n, and their scratch was 6.2 times an operand;
 * a division 2n by n limbs took about 2.5 products and 11 n limbs of
 * scratch. The estimates sit at or above those figures:
 *
 *   a + b, a - b, -a         max(la, lb)                units, the result's limbs
 *   a * b (s <= l limbs)     l * min(s / 2, 25 log2 s)  units; l + s limbs, and
 *                            6.4 s of scratch above 32 limbs
 *   a div b, a mod b         3 * (product of the quotient by b) + la units;
 *                            quotient + lb limbs, and 6 la of scratch
 *   a ^ e                    the squarings that make it (pow_cost)
 */

/* Limbs of an integer value. */
static uint64_t limbs_of(FxValue v)
{
    return v.kind == FX_VAL_BIG ? (uint64_t)mpz_size(v.u.obj->u.big) : 1;
}

static uint64_t log2_ceil(uint64_t x)
{
    return x <= 1 ? 0 : 64 - (uint64_t)__builtin_clzll(x - 1);
}

/* Units of a product of an la-limb by an lb-limb integer. */
static uint64_t mul_units(uint64_t la, uint64_t lb)
{
    uint64_t l = la > lb ? la : lb, s = la > lb ? lb : la;
    uint64_t per = s / 2 < 25 * log2_ceil(s) ? s / 2 : 25 * log2_ceil(s);
    return l * (per ? per : 1);
}

/* Bytes a product may hold at its peak: the result and the scratch. */
static uint64_t mul_bytes(uint64_t la, uint64_t lb)
{
    uint64_t s = la > lb ? lb : la;
    return 8 * (la + lb + (s > 32 ? s * 64 / 10 : 0)) + 64;
}

void fx_val_mul_cost(uint64_t la, uint64_t lb, uint64_t *out_units, uint64_t *out_bytes)
{
    *out_units = mul_units(la, lb);
    *out_bytes = mul_bytes(la, lb);
}

/* ORDER BigOp: keep in sync with big_binop's names[] */
typedef enum { BIG_ADD, BIG_SUB, BIG_MUL, BIG_FDIV_Q, BIG_FDIV_R } BigOp;

static void cost_of(BigOp op, uint64_t la, uint64_t lb, uint64_t *units, uint64_t *bytes)
{
    uint64_t most = la > lb ? la : lb;
    switch (op) {
    case BIG_MUL:
        *units = mul_units(la, lb);
        *bytes = mul_bytes(la, lb);
        break;
    case BIG_FDIV_Q:
    case BIG_FDIV_R: {
        uint64_t q = la >= lb ? la - lb + 1 : 1;
        *units = 3 * mul_units(q, lb) + la;
        *bytes = 8 * (q + lb + 6 * la) + 64;
        break;
    }
    default:
        *units = most;
        *bytes = 8 * (most + 1) + 64;
        break;
    }
}

/* The message of the budget that stopped an operation. */
static bool refused(FxError *err)
{
    if (err)
        fx_meter_message(NULL, err->message, sizeof(err->message));
    return false;
}

/* Asks the meter before an operation `op` of `units` and `bytes` whose
 * result has about `bits` bits. When the operation alone is more than the
 * whole budget allows (not merely more than what is left of it), the
 * message says what it would have cost. */
static bool afford(const char *op, uint64_t bits, uint64_t units, uint64_t bytes,
                   FxError *err)
{
    if (fx_meter_afford(units, bytes))
        return true;
    if (!err)
        return false;
    const FxMeter *m = &fx_meter_state;
    bool alone;
    switch (m->stop) {
    case FX_STOP_MEMORY: alone = (int64_t)bytes > m->limit - m->start_live; break;
    case FX_STOP_TIME: alone = (double)units * 1e-9 > m->max_seconds; break;
    case FX_STOP_STEPS: alone = units / FX_METER_UNITS_PER_STEP > m->max_steps; break;
    default: alone = false; break;
    }
    char detail[160] = "";
    if (alone && fx_meter_state.stop == FX_STOP_MEMORY)
        snprintf(detail, sizeof(detail), "`%s` would need about %llu MB for a result of %llu bits",
                 op, (unsigned long long)((bytes + (1 << 20) - 1) >> 20),
                 (unsigned long long)bits);
    else if (alone && fx_meter_state.stop == FX_STOP_TIME)
        snprintf(detail, sizeof(detail), "`%s` is estimated at %.2g s for a result of %llu bits",
                 op, (double)units * 1e-9, (unsigned long long)bits);
    else if (alone && fx_meter_state.stop == FX_STOP_STEPS)
        snprintf(detail, sizeof(detail), "`%s` is estimated at %llu steps for a result of %llu "
                 "bits", op, (unsigned long long)(units / FX_METER_UNITS_PER_STEP),
                 (unsigned long long)bits);
    fx_meter_message(detail, err->message, sizeof(err->message));
    return false;
}

/* v as a GMP integer, without copying: a BIG's own; an INT in *tmp, one
 * limb on the caller's stack (nothing allocated). */
static mpz_srcptr as_mpz(FxValue v, mpz_t tmp, mp_limb_t *limb)
{
    if (v.kind == FX_VAL_BIG)
        return v.u.obj->u.big;
    uint64_t mag = v.u.i < 0 ? -(uint64_t)v.u.i : (uint64_t)v.u.i;
    *limb = (mp_limb_t)mag;
    return mpz_roinit_n(tmp, limb, v.u.i < 0 ? -1 : v.u.i > 0);
}

/* a op b computed in GMP, for integers that overflowed or were BIG: priced
 * first; false with the budget's message when the meter refuses it. */
static bool big_binop(FxValue a, FxValue b, BigOp op, FxValue *out, FxError *err)
{
    mpz_t xt, yt;
    mp_limb_t xl, yl;
    mpz_srcptr x = as_mpz(a, xt, &xl), y = as_mpz(b, yt, &yl);
    static const char *const names[] = {"+", "-", "*", "div", "mod"}; /* ORDER BigOp */
    uint64_t units, bytes, la = limbs_of(a), lb = limbs_of(b);
    cost_of(op, la, lb, &units, &bytes);
    uint64_t bits = 64 * (op == BIG_MUL                               ? la + lb
                          : op == BIG_FDIV_Q                          ? (la >= lb ? la - lb + 1 : 1)
                          : op == BIG_FDIV_R                          ? lb
                          : la > lb ? la + 1 : lb + 1);
    if (!afford(names[op], bits, units, bytes, err))
        return false;
    mpz_t r;
    mpz_init(r);
    switch (op) {
    case BIG_ADD: mpz_add(r, x, y); break;
    case BIG_SUB: mpz_sub(r, x, y); break;
    case BIG_MUL: mpz_mul(r, x, y); break;
    case BIG_FDIV_Q: mpz_fdiv_q(r, x, y); break;
    case BIG_FDIV_R: mpz_fdiv_r(r, x, y); break;
    }
    *out = int_take_mpz(r);
    return true;
}

static bool need_numbers(const char *op, FxValue a, FxValue b, FxError *err)
{
    if (is_number(a) && is_number(b))
        return true;
    return type_error(err, op, "two numbers", a, b);
}

static bool any_float(FxValue a, FxValue b)
{
    return a.kind == FX_VAL_FLOAT || b.kind == FX_VAL_FLOAT;
}

bool fx_val_add(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    if (!need_numbers("+", a, b, err))
        return false;
    int64_t r;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && !__builtin_add_overflow(a.u.i, b.u.i, &r))
        *out = fx_val_int(r);
    else if (any_float(a, b))
        *out = fx_val_float(to_double(a) + to_double(b));
    else
        return big_binop(a, b, BIG_ADD, out, err);
    return true;
}

bool fx_val_sub(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    if (!need_numbers("-", a, b, err))
        return false;
    int64_t r;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && !__builtin_sub_overflow(a.u.i, b.u.i, &r))
        *out = fx_val_int(r);
    else if (any_float(a, b))
        *out = fx_val_float(to_double(a) - to_double(b));
    else
        return big_binop(a, b, BIG_SUB, out, err);
    return true;
}

bool fx_val_mul(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    if (!need_numbers("*", a, b, err))
        return false;
    int64_t r;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && !__builtin_mul_overflow(a.u.i, b.u.i, &r))
        *out = fx_val_int(r);
    else if (any_float(a, b))
        *out = fx_val_float(to_double(a) * to_double(b));
    else
        return big_binop(a, b, BIG_MUL, out, err);
    return true;
}

/*
 * `/` always divides as doubles, integers included: the checker rejects
 * `/` on two integers, and should one arrive anyway a float quotient is
 * the only sensible answer. Division by a float zero is IEEE (inf, nan).
 */
bool fx_val_div_float(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    if (!need_numbers("/", a, b, err))
        return false;
    *out = fx_val_float(to_double(a) / to_double(b));
    return true;
}

/* Floor division of int64s, b != 0 and b != -1 (the one overflow case). */
static void floor_divmod(int64_t a, int64_t b, int64_t *out_q, int64_t *out_r)
{
    int64_t q = a / b, r = a % b;
    // C truncates toward zero; a remainder whose sign differs from the
    // divisor's means the floor is one below.
    if (r != 0 && (r < 0) != (b < 0)) {
        q--;
        r += b;
    }
    *out_q = q;
    *out_r = r;
}

/* `div` (want_mod false) or `mod`, both flooring, on two integers. */
static bool int_divmod(const char *op, bool want_mod, FxValue a, FxValue b, FxValue *out,
                       FxError *err)
{
    if (!fx_val_is_integer(a) || !fx_val_is_integer(b))
        return type_error(err, op, "two integers", a, b);
    if (fx_val_int_sign(b) == 0) {
        set_error(err, "division by zero");
        return false;
    }
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT) {
        // x div -1 is -x, which overflows for INT64_MIN: let neg promote.
        if (b.u.i == -1 && !want_mod)
            return fx_val_neg(a, out, err);
        if (b.u.i == -1) {
            *out = fx_val_int(0);
            return true;
        }
        int64_t q, r;
        floor_divmod(a.u.i, b.u.i, &q, &r);
        *out = fx_val_int(want_mod ? r : q);
        return true;
    }
    return big_binop(a, b, want_mod ? BIG_FDIV_R : BIG_FDIV_Q, out, err);
}

bool fx_val_idiv(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    return int_divmod("div", false, a, b, out, err);
}

bool fx_val_mod(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    return int_divmod("mod", true, a, b, out, err);
}

/* base^e in int64 by squaring; false when the result does not fit. */
static bool pow_i64(int64_t base, uint64_t e, int64_t *out)
{
    int64_t r = 1;
    for (;;) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r))
            return false;
        e >>= 1;
        if (e == 0)
            break;
        // Squaring only while bits remain: an overflowing square then means
        // the result itself overflows.
        if (__builtin_mul_overflow(base, base, &base))
            return false;
    }
    *out = r;
    return true;
}

/* The work of the squarings that make an r-limb power: the last squares
 * r/2 limbs, the one before r/4, and so on, under twice the last; a
 * squaring costs about 0.65 of a product (measured: 0.58 to 0.65). */
static uint64_t pow_units(uint64_t r)
{
    uint64_t h = r / 2 + 1;
    return 2 * (mul_units(h, h) / 20 * 13) + r;
}

/* Its peak, for a result of r limbs whose odd part has odd limbs: the last
 * squaring's operand, result and scratch (5.1 times the operand, measured),
 * or the odd part and the result when the factor 2^k is shifted in. */
static uint64_t pow_bytes(uint64_t r, uint64_t odd)
{
    uint64_t h = odd / 2 + 1, squaring = 8 * (h + 2 * h + h * 51 / 10);
    return (squaring > 8 * (r + odd) ? squaring : 8 * (r + odd)) + 64;
}

/* A power estimated above this many units (about 16 ms) is computed a
 * squaring at a time, with a look at the clock between squarings. */
#define POW_SPLIT_UNITS ((uint64_t)1 << 24)

/* z = x^e by squaring from the top bit of e, polling the meter between
 * squarings; the factor 2^k of x is shifted in at the end, so a power of
 * ten squares only powers of five. False when the meter stopped it. */
static bool pow_by_squaring(mpz_t z, mpz_srcptr x, uint64_t e)
{
    mp_bitcnt_t k = mpz_scan1(x, 0);
    mpz_t odd;
    mpz_init(odd);
    mpz_tdiv_q_2exp(odd, x, k); /* exact: keeps the sign */
    mpz_set(z, odd);
    bool ok = true;
    for (int bit = 62 - __builtin_clzll(e); ok && bit >= 0; bit--) {
        ok = fx_meter_poll();
        if (ok) {
            mpz_mul(z, z, z);
            if ((e >> bit) & 1)
                mpz_mul(z, z, odd);
        }
    }
    mpz_clear(odd);
    if (ok)
        mpz_mul_2exp(z, z, (mp_bitcnt_t)(k * e));
    return ok;
}

/* a^e for an integer a, 0 <= e <= POW_MAX_EXP: its size predicted from
 * e log2|a| and priced before any digit is computed. */
static bool int_pow(FxValue a, uint64_t e, FxValue *out, FxError *err)
{
    int64_t r;
    if (e == 0) {
        *out = fx_val_int(1);
        return true;
    }
    if (a.kind == FX_VAL_INT && pow_i64(a.u.i, e, &r)) {
        *out = fx_val_int(r);
        return true;
    }
    mpz_t xt;
    mp_limb_t xl;
    mpz_srcptr x = as_mpz(a, xt, &xl);
    // |a| >= 2 here, so the result has at least (bits(a) - 1) * e bits.
    if ((uint64_t)(mpz_sizeinbase(x, 2) - 1) > POW_MAX_EXP / e) {
        set_error(err, "integer power too large: the result would exceed 2^32 bits");
        return false;
    }
    long exp2;
    double mant = mpz_get_d_2exp(&exp2, x); /* |x| = |mant| 2^exp2, 1/2 <= |mant| < 1 */
    double log2x = (double)exp2 + log2(fabs(mant));
    uint64_t bits = (uint64_t)((double)e * log2x) + 1, limbs = bits / 64 + 1;
    /* the squarings work on the odd part: 10^e squares 5^e */
    uint64_t odd_limbs = (uint64_t)((double)e * (log2x - (double)mpz_scan1(x, 0))) / 64 + 1;
    if (!afford("^", bits, pow_units(odd_limbs) + limbs, pow_bytes(limbs, odd_limbs), err))
        return false;
    uint64_t units = pow_units(odd_limbs);
    mpz_t z;
    mpz_init(z);
    if (units < POW_SPLIT_UNITS) {
        mpz_pow_ui(z, x, (unsigned long)e);
    } else if (!pow_by_squaring(z, x, e)) {
        mpz_clear(z);
        return refused(err);
    }
    *out = int_take_mpz(z);
    return true;
}

/* Bases 0, 1 and -1 take any exponent: their powers never grow. */
static bool small_base_pow(FxValue a, FxValue b, FxValue *out)
{
    if (a.kind != FX_VAL_INT || a.u.i < -1 || a.u.i > 1)
        return false;
    int odd = b.kind == FX_VAL_BIG ? mpz_odd_p(b.u.obj->u.big) : (int)(b.u.i & 1);
    if (a.u.i == -1)
        *out = fx_val_int(odd ? -1 : 1);
    else if (a.u.i == 0)
        *out = fx_val_int(fx_val_int_sign(b) == 0 ? 1 : 0);
    else
        *out = fx_val_int(1);
    return true;
}

bool fx_val_pow(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    if (!need_numbers("^", a, b, err))
        return false;
    if (any_float(a, b)) {
        *out = fx_val_float(pow(to_double(a), to_double(b)));
        return true;
    }
    if (fx_val_int_sign(b) < 0) {
        set_error(err, "negative exponent on an integer; use a Float base");
        return false;
    }
    if (small_base_pow(a, b, out))
        return true;
    if (b.kind == FX_VAL_BIG || (uint64_t)b.u.i > POW_MAX_EXP) {
        set_error(err, "exponent too large: an integer power takes exponents up to 2^32");
        return false;
    }
    return int_pow(a, (uint64_t)b.u.i, out, err);
}

bool fx_val_neg(FxValue a, FxValue *out, FxError *err)
{
    if (a.kind == FX_VAL_FLOAT) {
        *out = fx_val_float(-a.u.f);
    } else if (a.kind == FX_VAL_INT && a.u.i != INT64_MIN) {
        *out = fx_val_int(-a.u.i);
    } else if (fx_val_is_integer(a)) {
        // INT64_MIN promotes; -(2^63) as a BIG demotes back to INT64_MIN.
        if (!afford("-", 64 * limbs_of(a), limbs_of(a), 8 * limbs_of(a) + 64, err))
            return false;
        mpz_t z;
        mpz_init_from(z, a);
        mpz_neg(z, z);
        *out = int_take_mpz(z);
    } else {
        set_error(err, "unary `-` needs a number, not %s", kind_name(a));
        return false;
    }
    return true;
}

static FxValue concat_strings(const FxHeapObj *x, const FxHeapObj *y)
{
    /* y's first byte starts a code point of y, but not of x ++ y when it
     * is a continuation byte (bytes that are not UTF-8) */
    size_t glued = x->u.str.len && y->u.str.len && is_continuation(y->u.str.bytes[0]);
    return string_new(x->u.str.bytes, x->u.str.len, y->u.str.bytes, y->u.str.len,
                      x->u.str.chars + y->u.str.chars - glued);
}

static FxValue concat_lists(const FxHeapObj *x, const FxHeapObj *y)
{
    size_t nx = x->u.list.n, ny = y->u.list.n;
    if (x->u.list.ints && y->u.list.ints) {
        FxHeapObj *o = ints_new(nx + ny);
        if (nx)
            memcpy(o->u.list.ints, x->u.list.ints, nx * sizeof(int64_t));
        if (ny)
            memcpy(o->u.list.ints + nx, y->u.list.ints, ny * sizeof(int64_t));
        return heap_value(o);
    }
    if (x->u.list.floats && y->u.list.floats) {
        double *f = fx_xmalloc((nx + ny ? nx + ny : 1) * sizeof(double));
        if (nx)
            memcpy(f, x->u.list.floats, nx * sizeof(double));
        if (ny)
            memcpy(f + nx, y->u.list.floats, ny * sizeof(double));
        return fx_val_list_adopt_floats(f, nx + ny);
    }
    FxHeapObj *o = list_new(nx + ny);
    FxValue *dst = o->u.list.items;
    for (size_t i = 0; i < nx; i++)
        fx_value_retain(*dst++ = item(x, i));
    for (size_t i = 0; i < ny; i++)
        fx_value_retain(*dst++ = item(y, i));
    return heap_value(o);
}

bool fx_val_concat(FxValue a, FxValue b, FxValue *out, FxError *err)
{
    bool strings = a.kind == FX_VAL_STRING && b.kind == FX_VAL_STRING;
    if (!strings && !(a.kind == FX_VAL_LIST && b.kind == FX_VAL_LIST))
        return type_error(err, "++", "two lists or two strings", a, b);
    // the result is the program's to size: asked for before it is made
    size_t n = strings ? a.u.obj->u.str.len + b.u.obj->u.str.len
                       : a.u.obj->u.list.n + b.u.obj->u.list.n;
    size_t bytes = strings ? n + 1 : tail_size(n, sizeof(FxValue));
    if (!fx_meter_afford(n, bytes + sizeof(FxHeapObj)))
        return refused(err); /* the size is the message's, not an estimate's */
    *out = strings ? concat_strings(a.u.obj, b.u.obj) : concat_lists(a.u.obj, b.u.obj);
    return true;
}

/* ------------------------------------------------------------- comparison */

/* Exact order of an int64 and a double that is not NaN. */
static int cmp_int_float(int64_t i, double d)
{
    if (d >= 0x1p63)
        return -1;
    if (d < -0x1p63)
        return 1;
    // d is now within int64, so its integral part converts exactly.
    double t = trunc(d);
    int64_t ti = (int64_t)t;
    if (i != ti)
        return i < ti ? -1 : 1;
    return d > t ? -1 : d < t ? 1 : 0;
}

/* Exact order of an integer and a double that is not NaN. */
static int cmp_integer_float(FxValue a, double d)
{
    if (a.kind == FX_VAL_INT)
        return cmp_int_float(a.u.i, d);
    int c = mpz_cmp_d(a.u.obj->u.big, d); // exact, and defined for infinities
    return (c > 0) - (c < 0);
}

/* Two integers. An INT lies strictly between the negative and positive BIGs. */
static int cmp_integers(FxValue a, FxValue b)
{
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT)
        return (a.u.i > b.u.i) - (a.u.i < b.u.i);
    if (a.kind == FX_VAL_INT)
        return -mpz_sgn(b.u.obj->u.big);
    if (b.kind == FX_VAL_INT)
        return mpz_sgn(a.u.obj->u.big);
    int c = mpz_cmp(a.u.obj->u.big, b.u.obj->u.big);
    return (c > 0) - (c < 0);
}

/* Two numbers; *ok is false when either is NaN. */
static int cmp_numbers(FxValue a, FxValue b, bool *ok)
{
    *ok = true;
    if (!any_float(a, b))
        return cmp_integers(a, b);
    if ((a.kind == FX_VAL_FLOAT && isnan(a.u.f)) || (b.kind == FX_VAL_FLOAT && isnan(b.u.f))) {
        *ok = false;
        return 0;
    }
    if (a.kind == FX_VAL_FLOAT && b.kind == FX_VAL_FLOAT)
        return (a.u.f > b.u.f) - (a.u.f < b.u.f);
    if (b.kind == FX_VAL_FLOAT)
        return cmp_integer_float(a, b.u.f);
    return -cmp_integer_float(b, a.u.f);
}

static int cmp_bytes(const FxHeapObj *x, const FxHeapObj *y)
{
    size_t n = x->u.str.len < y->u.str.len ? x->u.str.len : y->u.str.len;
    int c = n ? memcmp(x->u.str.bytes, y->u.str.bytes, n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return (x->u.str.len > y->u.str.len) - (x->u.str.len < y->u.str.len);
}

static bool equal_values(const FxValue *xs, const FxValue *ys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!fx_val_equal(xs[i], ys[i]))
            return false;
    return true;
}

/* Records are equal field by field, matched by name (order may differ). */
static bool equal_records(const FxHeapObj *x, const FxHeapObj *y)
{
    if (x->u.rec.n != y->u.rec.n)
        return false;
    for (size_t i = 0; i < x->u.rec.n; i++) {
        FxValue f = fx_val_record_field(heap_value((FxHeapObj *)y), x->u.rec.names[i]);
        if (f.kind == FX_VAL_UNIT || !fx_val_equal(x->u.rec.fields[i], f))
            return false;
    }
    return true;
}

/* Two heap values of one kind, not numbers. */
static bool equal_objects(const FxHeapObj *x, const FxHeapObj *y)
{
    if (x == y)
        return true;
    switch (x->kind) {
    case FX_VAL_STRING:
        return x->u.str.len == y->u.str.len && cmp_bytes(x, y) == 0;
    case FX_VAL_LIST:
        if (x->u.list.n != y->u.list.n)
            return false;
        if (x->u.list.ints && y->u.list.ints)
            return !x->u.list.n ||
                   !memcmp(x->u.list.ints, y->u.list.ints, x->u.list.n * sizeof(int64_t));
        if (!packed(x) && !packed(y))
            return equal_values(boxed(x), boxed(y), x->u.list.n);
        for (size_t i = 0; i < x->u.list.n; i++)
            if (!fx_val_equal(item(x, i), item(y, i)))
                return false;
        return true;
    case FX_VAL_MATRIX:
        return x->u.mat.rows == y->u.mat.rows && x->u.mat.cols == y->u.mat.cols &&
               equal_values(x->u.mat.cells, y->u.mat.cells, x->u.mat.rows * x->u.mat.cols);
    case FX_VAL_RECORD:
        return equal_records(x, y);
    default:
        FX_UNREACHABLE();
    }
}

bool fx_val_equal(FxValue a, FxValue b)
{
    if (is_number(a) && is_number(b)) {
        bool ok;
        int c = cmp_numbers(a, b, &ok);
        return ok && c == 0; // NaN equals nothing, as in IEEE
    }
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case FX_VAL_UNIT:
        return true;
    case FX_VAL_BOOL:
        return a.u.b == b.u.b;
    default:
        return equal_objects(a.u.obj, b.u.obj);
    }
}

static int cmp_lists(const FxHeapObj *x, const FxHeapObj *y, bool *ok)
{
    size_t n = x->u.list.n < y->u.list.n ? x->u.list.n : y->u.list.n;
    for (size_t i = 0; i < n; i++) {
        int c = fx_val_compare(item(x, i), item(y, i), ok);
        if (!*ok || c != 0)
            return c;
    }
    *ok = true;
    return (x->u.list.n > y->u.list.n) - (x->u.list.n < y->u.list.n);
}

int fx_val_compare(FxValue a, FxValue b, bool *ok)
{
    if (is_number(a) && is_number(b))
        return cmp_numbers(a, b, ok);
    *ok = a.kind == b.kind;
    if (!*ok)
        return 0;
    switch (a.kind) {
    case FX_VAL_BOOL:
        return (int)a.u.b - (int)b.u.b;
    case FX_VAL_STRING:
        return cmp_bytes(a.u.obj, b.u.obj);
    case FX_VAL_LIST:
        return cmp_lists(a.u.obj, b.u.obj, ok);
    default: // UNIT, MATRIX, RECORD have no order
        *ok = false;
        return 0;
    }
}

/* ---------------------------------------------------------------- hashing */

static uint64_t hash_bytes(const char *s, size_t len)
{
    return fx_mix64(fx_fnv1a(FX_FNV_BASIS, s, len));
}

static uint64_t hash_double_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    return fx_mix64(bits ^ 0x5bd1e995u);
}

/* An integral double within int64 hashes as that integer (1.0 like 1,
 * -0.0 like 0); any other double by its bits. */
static uint64_t hash_float(double d)
{
    if (d == trunc(d) && d >= -0x1p63 && d < 0x1p63)
        return fx_mix64((uint64_t)(int64_t)d);
    return hash_double_bits(d);
}

/* A BIG equal to some double hashes as that double, so that 1e20 and
 * 10^20 agree; other BIGs hash their magnitude and sign. */
static uint64_t hash_big(mpz_srcptr z)
{
    double d = mpz_get_d(z);
    if (mpz_cmp_d(z, d) == 0)
        return hash_double_bits(d);
    size_t n = mpz_size(z);
    uint64_t h = (uint64_t)mpz_sgn(z);
    for (size_t i = 0; i < n; i++)
        h = fx_mix64(h ^ (uint64_t)mpz_getlimbn(z, (mp_size_t)i));
    return h;
}

static uint64_t hash_values(uint64_t seed, const FxValue *vs, size_t n)
{
    uint64_t h = fx_mix64(seed ^ n);
    for (size_t i = 0; i < n; i++)
        h = fx_mix64(h ^ fx_val_hash(vs[i])) + i;
    return h;
}

/* hash_values of the same integers as FxValues: fx_val_hash of an INT is
 * mix of it, so a list hashes alike unboxed or not. */
static uint64_t hash_ints(uint64_t seed, const int64_t *v, size_t n)
{
    uint64_t h = fx_mix64(seed ^ n);
    for (size_t i = 0; i < n; i++)
        h = fx_mix64(h ^ fx_mix64((uint64_t)v[i])) + i;
    return h;
}

/* Order-free, as record equality matches fields by name. */
/* hash_values of the same floats boxed. */
static uint64_t hash_floats(uint64_t seed, const double *v, size_t n)
{
    uint64_t h = fx_mix64(seed ^ n);
    for (size_t i = 0; i < n; i++)
        h = fx_mix64(h ^ fx_val_hash(fx_val_float(v[i]))) + i;
    return h;
}

static uint64_t hash_record(const FxHeapObj *o)
{
    uint64_t h = fx_mix64(0x7265636fu ^ o->u.rec.n);
    for (size_t i = 0; i < o->u.rec.n; i++) {
        const char *name = o->u.rec.names[i];
        h += fx_mix64(hash_bytes(name, strlen(name)) ^ fx_val_hash(o->u.rec.fields[i]));
    }
    return h;
}

uint64_t fx_val_hash(FxValue v)
{
    switch (v.kind) {
    case FX_VAL_UNIT:
        return 0x756e6974u;
    case FX_VAL_BOOL:
        return v.u.b ? 0x74727565u : 0x66616c73u;
    case FX_VAL_INT:
        return fx_mix64((uint64_t)v.u.i);
    case FX_VAL_BIG:
        return hash_big(v.u.obj->u.big);
    case FX_VAL_FLOAT:
        return hash_float(v.u.f);
    case FX_VAL_STRING:
        return hash_bytes(v.u.obj->u.str.bytes, v.u.obj->u.str.len);
    case FX_VAL_LIST:
        if (v.u.obj->u.list.ints)
            return hash_ints(0x6c697374u, v.u.obj->u.list.ints, v.u.obj->u.list.n);
        if (v.u.obj->u.list.floats)
            return hash_floats(0x6c697374u, v.u.obj->u.list.floats, v.u.obj->u.list.n);
        return hash_values(0x6c697374u, boxed(v.u.obj), v.u.obj->u.list.n);
    case FX_VAL_MATRIX:
        return fx_mix64(v.u.obj->u.mat.cols) ^ hash_values(0x6d617472u, v.u.obj->u.mat.cells,
                                                      v.u.obj->u.mat.rows * v.u.obj->u.mat.cols);
    case FX_VAL_RECORD:
        return hash_record(v.u.obj);
    }
    FX_UNREACHABLE();
}

/* --------------------------------------------------------------- printing */

/*
 * Writes a finite d in the shortest %g form that reads back as d, with
 * ".0" added when the digits alone would read as an integer. %.17g always
 * round-trips; the shorter tries avoid printing 0.1 as 0.10000000000000001.
 */
static void put_finite_float(FxBuf *out, double d)
{
    char text[40];
    // a normal double's shortest form has at most 15 digits when any form
    // that short reads back (DBL_DIG); a subnormal has fewer digits of its
    // own, so 4.94e-324 is searched from 1 digit, as 5e-324
    for (int prec = fpclassify(d) == FP_SUBNORMAL ? 1 : 15; prec <= 17; prec++) {
        snprintf(text, sizeof(text), "%.*g", prec, d);
        if (strtod(text, NULL) == d)
            break;
    }
    fx_buf_puts(out, text);
    if (!strpbrk(text, ".e"))
        fx_buf_puts(out, ".0");
}

static void put_float(FxBuf *out, double d, bool json)
{
    if (isfinite(d))
        put_finite_float(out, d);
    else if (json)
        fx_buf_puts(out, "null"); // JSON has no inf or nan
    else if (isnan(d))
        fx_buf_puts(out, "nan");
    else
        fx_buf_puts(out, d < 0 ? "-inf" : "inf");
}

uint64_t fx_val_decimal_work(FxValue v)
{
    if (v.kind == FX_VAL_BIG) {
        /* GMP's conversion takes about 3 log2(limbs)^2 ns a limb or more
         * (240 ns at 250 limbs, 2,000 at 250,000, measured): a lower
         * bound, so that no run the budget would see finish is stopped */
        double limbs = (double)mpz_size(v.u.obj->u.big), l = log2(limbs + 1);
        return limbs < 64 ? 0 : (uint64_t)(3.0 * limbs * l * l);
    }
    if (v.kind != FX_VAL_LIST || v.u.obj->u.list.ints || v.u.obj->u.list.floats ||
        !v.u.obj->u.list.items)
        return 0;
    uint64_t w = 0;
    for (size_t i = 0; i < v.u.obj->u.list.n; i++)
        w += fx_val_decimal_work(v.u.obj->u.list.items[i]);
    return w;
}

static void put_big(FxBuf *out, mpz_srcptr z)
{
    // sizeinbase may overstate by one; add room for the sign and the NUL.
    char *digits = fx_xmalloc(mpz_sizeinbase(z, 10) + 2);
    mpz_get_str(digits, 10, z);
    fx_buf_puts(out, digits);
    free(digits);
}

/* The escape for byte c in a string, or NULL when it goes out as is. */
static const char *escape_for(unsigned char c, bool json)
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\t':
        return "\\t";
    case '\r':
        return json ? "\\r" : NULL;
    default:
        return NULL;
    }
}

/* An integer's digits, without printf's cost (every recorded value is printed). */
static void put_int(FxBuf *out, int64_t i)
{
    char text[24], *p = text + sizeof(text);
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (i < 0)
        *--p = '-';
    fx_buf_append(out, p, (size_t)(text + sizeof(text) - p));
}

/* Flux strings take \" \\ \n \t; other characters are written as they
 * are, except the control characters (C0, DEL and C1: a NUL, or an escape
 * sequence from a CSV field, would act on the terminal), which become
 * \u00XX, as JSON writes them. JSON must be UTF-8: every source of strings
 * checks that they are (utf8.h), and should a byte that is not reach here,
 * it is written as U+FFFD, so the output stays JSON whatever a string
 * holds. */
static void put_string(FxBuf *out, const char *s, size_t len, bool json)
{
    fx_buf_putc(out, '"');
    for (size_t i = 0; i < len; i++) {
        /* a run of printable ASCII that needs no escape, in one append */
        size_t plain = i;
        while (plain < len && (unsigned char)s[plain] >= 0x20 && (unsigned char)s[plain] < 0x7f &&
               s[plain] != '"' && s[plain] != '\\')
            plain++;
        if (plain > i) {
            fx_buf_append(out, s + i, plain - i);
            i = plain - 1;
            continue;
        }
        unsigned char c = (unsigned char)s[i];
        const char *esc = escape_for(c, json);
        size_t n = json && c >= 0x80 ? fx_utf8_next(s + i, len - i, NULL) : 1;
        /* U+0080..U+009F, the C1 controls: C2 80..C2 9F in UTF-8 */
        bool c1 = c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
                  (unsigned char)s[i + 1] < 0xa0;
        if (esc)
            fx_buf_puts(out, esc);
        else if (c < 0x20 || c == 0x7f)
            fx_buf_printf(out, "\\u%04x", c);
        else if (c1) {
            fx_buf_printf(out, "\\u%04x", (unsigned char)s[i + 1]);
            n = 2;
        }
        else if (n == 0)
            fx_buf_puts(out, "\\ufffd");
        else
            fx_buf_append(out, s + i, n);
        i += n ? n - 1 : 0;
    }
    fx_buf_putc(out, '"');
}

static void put_value(FxBuf *out, FxValue v, bool json);

static void put_array(FxBuf *out, const FxValue *vs, size_t n, bool json)
{
    fx_buf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fx_buf_puts(out, ", ");
        put_value(out, vs[i], json);
    }
    fx_buf_putc(out, ']');
}

/* An unboxed list of integers: the same text as put_array's of INTs. */
static void put_ints(FxBuf *out, const int64_t *v, size_t n)
{
    fx_buf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fx_buf_puts(out, ", ");
        put_int(out, v[i]);
    }
    fx_buf_putc(out, ']');
}

/* An unboxed list of floats: the same text as put_array's of FLOATs. */
static void put_floats(FxBuf *out, const double *v, size_t n, bool json)
{
    fx_buf_putc(out, '[');
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            fx_buf_puts(out, ", ");
        put_value(out, fx_val_float(v[i]), json);
    }
    fx_buf_putc(out, ']');
}

static void put_matrix(FxBuf *out, const FxHeapObj *m, bool json)
{
    fx_buf_putc(out, '[');
    for (size_t r = 0; r < m->u.mat.rows; r++) {
        if (r > 0)
            fx_buf_puts(out, ", ");
        put_array(out, m->u.mat.cells + r * m->u.mat.cols, m->u.mat.cols, json);
    }
    fx_buf_putc(out, ']');
}

static void put_record(FxBuf *out, const FxHeapObj *rec, bool json)
{
    fx_buf_putc(out, '{');
    for (size_t i = 0; i < rec->u.rec.n; i++) {
        const char *name = rec->u.rec.names[i];
        if (i > 0)
            fx_buf_puts(out, ", ");
        if (json)
            put_string(out, name, strlen(name), true);
        else
            fx_buf_puts(out, name);
        fx_buf_puts(out, ": ");
        put_value(out, rec->u.rec.fields[i], json);
    }
    fx_buf_putc(out, '}');
}

/* One walker for both syntaxes: they differ only in strings, non-finite
 * floats, record keys and UNIT. */
static void put_value(FxBuf *out, FxValue v, bool json)
{
    switch (v.kind) {
    case FX_VAL_UNIT:
        fx_buf_puts(out, json ? "null" : "()");
        break;
    case FX_VAL_BOOL:
        fx_buf_puts(out, v.u.b ? "true" : "false");
        break;
    case FX_VAL_INT:
        put_int(out, v.u.i);
        break;
    case FX_VAL_BIG:
        put_big(out, v.u.obj->u.big);
        break;
    case FX_VAL_FLOAT:
        put_float(out, v.u.f, json);
        break;
    case FX_VAL_STRING:
        put_string(out, v.u.obj->u.str.bytes, v.u.obj->u.str.len, json);
        break;
    case FX_VAL_LIST:
        if (v.u.obj->u.list.ints)
            put_ints(out, v.u.obj->u.list.ints, v.u.obj->u.list.n);
        else if (v.u.obj->u.list.floats)
            put_floats(out, v.u.obj->u.list.floats, v.u.obj->u.list.n, json);
        else
            put_array(out, boxed(v.u.obj), v.u.obj->u.list.n, json);
        break;
    case FX_VAL_MATRIX:
        put_matrix(out, v.u.obj, json);
        break;
    case FX_VAL_RECORD:
        put_record(out, v.u.obj, json);
        break;
    }
}

void fx_val_print(FxValue v, FxBuf *out)
{
    put_value(out, v, false);
}

static size_t decimal_width(uint64_t x)
{
    static const uint64_t ten[] = {10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                   100000000u, 1000000000u, 10000000000u, 100000000000u,
                                   1000000000000u, 10000000000000u, 100000000000000u,
                                   1000000000000000u, 10000000000000000u,
                                   100000000000000000u, 1000000000000000000u,
                                   10000000000000000000u};
    size_t n = 1;
    while (n <= 19 && x >= ten[n - 1])
        n++;
    return n;
}

static size_t json_items(const FxValue *v, size_t n, size_t cap, size_t *big)
{
    size_t len = 2 + (n ? 2 * (n - 1) : 0);
    for (size_t i = 0; i < n && len <= cap; i++)
        len += fx_val_json_at_least(v[i], cap, big);
    return len;
}

size_t fx_val_json_at_least(FxValue v, size_t cap, size_t *big_digits)
{
    size_t digits, len;
    switch (v.kind) {
    case FX_VAL_UNIT: return 4; /* null */
    case FX_VAL_BOOL: return v.u.b ? 4 : 5;
    case FX_VAL_INT:
        return (v.u.i < 0) + decimal_width(v.u.i < 0 ? 0 - (uint64_t)v.u.i : (uint64_t)v.u.i);
    case FX_VAL_BIG:
        digits = mpz_sizeinbase(v.u.obj->u.big, 10);
        if (big_digits)
            *big_digits += digits;
        return digits - 1 + (mpz_sgn(v.u.obj->u.big) < 0);
    case FX_VAL_FLOAT: return 3;
    case FX_VAL_STRING: return v.u.obj->u.str.len + 2;
    case FX_VAL_LIST:
        if (v.u.obj->u.list.ints) {
            const int64_t *x = v.u.obj->u.list.ints;
            len = 2 + (v.u.obj->u.list.n ? 2 * (v.u.obj->u.list.n - 1) : 0);
            for (size_t i = 0; i < v.u.obj->u.list.n && len <= cap; i++)
                len += (x[i] < 0) + decimal_width(x[i] < 0 ? 0 - (uint64_t)x[i] : (uint64_t)x[i]);
            return len;
        }
        if (v.u.obj->u.list.floats) /* 3 a float, as json_at_least counts one */
            return 2 + (v.u.obj->u.list.n ? 5 * v.u.obj->u.list.n - 2 : 0);
        return json_items(boxed(v.u.obj), v.u.obj->u.list.n, cap, big_digits);
    case FX_VAL_MATRIX: {
        size_t rows = v.u.obj->u.mat.rows, cols = v.u.obj->u.mat.cols;
        len = 2 + (rows ? 2 * (rows - 1) : 0);
        for (size_t i = 0; i < rows && len <= cap; i++)
            len += json_items(v.u.obj->u.mat.cells + i * cols, cols, cap, big_digits);
        return len;
    }
    case FX_VAL_RECORD:
        len = json_items(v.u.obj->u.rec.fields, v.u.obj->u.rec.n, cap, big_digits);
        for (size_t i = 0; i < v.u.obj->u.rec.n; i++) /* "name": */
            len += strlen(v.u.obj->u.rec.names[i]) + 4;
        return len;
    }
    FX_UNREACHABLE();
}

void fx_val_print_json(FxValue v, FxBuf *out)
{
    put_value(out, v, true);
}

void fx_val_print_json_text(const char *s, size_t len, FxBuf *out)
{
    put_string(out, s, len, true);
}
