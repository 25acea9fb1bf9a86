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
 * There is no global mutable state; GMP temporaries are locals.
 */
#include "value.h"
#include "value_gmp.h"

#include <errno.h>
#include <gmp.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* GMP's *_si accessors take a long; Flux targets LP64 POSIX systems, where a
 * long is exactly an int64, so mpz_fits_slong_p is "fits int64". */
_Static_assert(sizeof(long) == sizeof(int64_t), "value.c assumes a 64-bit long (LP64)");

/* The largest exponent fx_val_pow accepts for an integer base (value.h). */
#define POW_MAX_EXP ((uint64_t)1 << 32)

struct FxHeapObj {
    size_t refs;
    FxValKind kind;
    union {
        mpz_t big;
        struct {
            size_t len;   /* bytes */
            size_t chars; /* code points; == len for ASCII, which makes positions bytes */
            char *bytes;  /* trails the object, NUL-terminated, then the marks */
        } str;
        struct {
            size_t n;
            FxValue *items;
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

static FX_PRINTF(2, 3) void set_error(FxValueError *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

static bool type_error(FxValueError *err, const char *op, const char *want, FxValue a, FxValue b)
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

static FxHeapObj *obj_new(FxValKind kind, size_t tail)
{
    FxHeapObj *o = fx_xmalloc(sizeof(*o) + tail);
    o->refs = 1;
    o->kind = kind;
    return o;
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

static size_t n_marks(size_t len, size_t chars)
{
    if (chars == len || chars <= MARK_STEP || len > UINT32_MAX)
        return 0;
    return (chars - 1) / MARK_STEP;
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
    FxHeapObj *o = obj_new(FX_VAL_STRING, ((len + 4) & ~(size_t)3) + marks * sizeof(uint32_t));
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
    return o;
}

FxValue fx_val_list_of_u64(const uint64_t *v, size_t n)
{
    FxHeapObj *o = list_new(n);
    for (size_t i = 0; i < n; i++) /* each below 2^63: an INT, nothing to retain */
        o->u.list.items[i] = fx_val_int((int64_t)v[i]);
    return heap_value(o);
}

FxValue fx_val_list_of_i64(const int64_t *v, size_t n)
{
    FxHeapObj *o = list_new(n);
    for (size_t i = 0; i < n; i++) /* INTs: nothing to retain */
        o->u.list.items[i] = fx_val_int(v[i]);
    return heap_value(o);
}

FxValue fx_val_list_take(FxValue *items, size_t n)
{
    FxHeapObj *o = list_new(n);
    if (n)
        memcpy(o->u.list.items, items, n * sizeof(FxValue));
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
    switch (o->kind) {
    case FX_VAL_BIG:
        mpz_clear(o->u.big);
        break;
    case FX_VAL_LIST:
        drop_children(o->u.list.items, o->u.list.n, dead);
        break;
    case FX_VAL_MATRIX:
        drop_children(o->u.mat.cells, o->u.mat.rows * o->u.mat.cols, dead);
        break;
    case FX_VAL_RECORD:
        drop_children(o->u.rec.fields, o->u.rec.n, dead);
        break;
    default: // STRING: its bytes go with the object
        break;
    }
    free(o);
}

void fx_value_release(FxValue v)
{
    if (!is_heap(v) || --v.u.obj->refs > 0)
        return;
    // The stack allocates only when a container takes heap children with it.
    ObjStack dead = {0};
    fx_vec_push(&dead, v.u.obj);
    while (dead.len > 0) {
        FxHeapObj *o = dead.data[--dead.len];
        obj_free(o, &dead);
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
    return list.u.obj->u.list.items[i];
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

/* ------------------------------------------------------------- arithmetic */

/* A number as a double: how an integer meets a float in arithmetic. */
static double to_double(FxValue v)
{
    if (v.kind == FX_VAL_FLOAT)
        return v.u.f;
    if (v.kind == FX_VAL_BIG)
        return mpz_get_d(v.u.obj->u.big);
    return (double)v.u.i;
}

typedef void (*MpzBinop)(mpz_ptr, mpz_srcptr, mpz_srcptr);

/* a op b computed in GMP, for integers that overflowed or were BIG. */
static FxValue big_binop(FxValue a, FxValue b, MpzBinop op)
{
    mpz_t x, y, r;
    mpz_init_from(x, a);
    mpz_init_from(y, b);
    mpz_init(r);
    op(r, x, y);
    mpz_clear(x);
    mpz_clear(y);
    return int_take_mpz(r);
}

static bool need_numbers(const char *op, FxValue a, FxValue b, FxValueError *err)
{
    if (is_number(a) && is_number(b))
        return true;
    return type_error(err, op, "two numbers", a, b);
}

static bool any_float(FxValue a, FxValue b)
{
    return a.kind == FX_VAL_FLOAT || b.kind == FX_VAL_FLOAT;
}

bool fx_val_add(FxValue a, FxValue b, FxValue *out, FxValueError *err)
{
    if (!need_numbers("+", a, b, err))
        return false;
    int64_t r;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && !__builtin_add_overflow(a.u.i, b.u.i, &r))
        *out = fx_val_int(r);
    else if (any_float(a, b))
        *out = fx_val_float(to_double(a) + to_double(b));
    else
        *out = big_binop(a, b, mpz_add);
    return true;
}

bool fx_val_sub(FxValue a, FxValue b, FxValue *out, FxValueError *err)
{
    if (!need_numbers("-", a, b, err))
        return false;
    int64_t r;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && !__builtin_sub_overflow(a.u.i, b.u.i, &r))
        *out = fx_val_int(r);
    else if (any_float(a, b))
        *out = fx_val_float(to_double(a) - to_double(b));
    else
        *out = big_binop(a, b, mpz_sub);
    return true;
}

bool fx_val_mul(FxValue a, FxValue b, FxValue *out, FxValueError *err)
{
    if (!need_numbers("*", a, b, err))
        return false;
    int64_t r;
    if (a.kind == FX_VAL_INT && b.kind == FX_VAL_INT && !__builtin_mul_overflow(a.u.i, b.u.i, &r))
        *out = fx_val_int(r);
    else if (any_float(a, b))
        *out = fx_val_float(to_double(a) * to_double(b));
    else
        *out = big_binop(a, b, mpz_mul);
    return true;
}

/*
 * `/` always divides as doubles, integers included: the checker rejects
 * `/` on two integers, and should one arrive anyway a float quotient is
 * the only sensible answer. Division by a float zero is IEEE (inf, nan).
 */
bool fx_val_div_float(FxValue a, FxValue b, FxValue *out, FxValueError *err)
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
                       FxValueError *err)
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
    *out = big_binop(a, b, want_mod ? mpz_fdiv_r : mpz_fdiv_q);
    return true;
}

bool fx_val_idiv(FxValue a, FxValue b, FxValue *out, FxValueError *err)
{
    return int_divmod("div", false, a, b, out, err);
}

bool fx_val_mod(FxValue a, FxValue b, FxValue *out, FxValueError *err)
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

/* a^e for an integer a, 0 <= e <= POW_MAX_EXP. */
static bool int_pow(FxValue a, uint64_t e, FxValue *out, FxValueError *err)
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
    mpz_t z;
    mpz_init_from(z, a);
    // |a| >= 2 here, so the result has at least (bits(a) - 1) * e bits.
    if ((uint64_t)(mpz_sizeinbase(z, 2) - 1) > POW_MAX_EXP / e) {
        mpz_clear(z);
        set_error(err, "integer power too large: the result would exceed 2^32 bits");
        return false;
    }
    mpz_pow_ui(z, z, (unsigned long)e);
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

bool fx_val_pow(FxValue a, FxValue b, FxValue *out, FxValueError *err)
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

bool fx_val_neg(FxValue a, FxValue *out, FxValueError *err)
{
    if (a.kind == FX_VAL_FLOAT) {
        *out = fx_val_float(-a.u.f);
    } else if (a.kind == FX_VAL_INT && a.u.i != INT64_MIN) {
        *out = fx_val_int(-a.u.i);
    } else if (fx_val_is_integer(a)) {
        // INT64_MIN promotes; -(2^63) as a BIG demotes back to INT64_MIN.
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
    FxHeapObj *o = list_new(x->u.list.n + y->u.list.n);
    FxValue *dst = o->u.list.items;
    for (size_t i = 0; i < x->u.list.n; i++)
        fx_value_retain(*dst++ = x->u.list.items[i]);
    for (size_t i = 0; i < y->u.list.n; i++)
        fx_value_retain(*dst++ = y->u.list.items[i]);
    return heap_value(o);
}

bool fx_val_concat(FxValue a, FxValue b, FxValue *out, FxValueError *err)
{
    if (a.kind == FX_VAL_STRING && b.kind == FX_VAL_STRING)
        *out = concat_strings(a.u.obj, b.u.obj);
    else if (a.kind == FX_VAL_LIST && b.kind == FX_VAL_LIST)
        *out = concat_lists(a.u.obj, b.u.obj);
    else
        return type_error(err, "++", "two lists or two strings", a, b);
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
        return x->u.list.n == y->u.list.n &&
               equal_values(x->u.list.items, y->u.list.items, x->u.list.n);
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
        int c = fx_val_compare(x->u.list.items[i], y->u.list.items[i], ok);
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

/* The splitmix64 finaliser: every input bit moves every output bit. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u; // FNV-1a
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3u;
    return mix(h);
}

static uint64_t hash_double_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    return mix(bits ^ 0x5bd1e995u);
}

/* An integral double within int64 hashes as that integer (1.0 like 1,
 * -0.0 like 0); any other double by its bits. */
static uint64_t hash_float(double d)
{
    if (d == trunc(d) && d >= -0x1p63 && d < 0x1p63)
        return mix((uint64_t)(int64_t)d);
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
        h = mix(h ^ (uint64_t)mpz_getlimbn(z, (mp_size_t)i));
    return h;
}

static uint64_t hash_values(uint64_t seed, const FxValue *vs, size_t n)
{
    uint64_t h = mix(seed ^ n);
    for (size_t i = 0; i < n; i++)
        h = mix(h ^ fx_val_hash(vs[i])) + i;
    return h;
}

/* Order-free, as record equality matches fields by name. */
static uint64_t hash_record(const FxHeapObj *o)
{
    uint64_t h = mix(0x7265636fu ^ o->u.rec.n);
    for (size_t i = 0; i < o->u.rec.n; i++) {
        const char *name = o->u.rec.names[i];
        h += mix(hash_bytes(name, strlen(name)) ^ fx_val_hash(o->u.rec.fields[i]));
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
        return mix((uint64_t)v.u.i);
    case FX_VAL_BIG:
        return hash_big(v.u.obj->u.big);
    case FX_VAL_FLOAT:
        return hash_float(v.u.f);
    case FX_VAL_STRING:
        return hash_bytes(v.u.obj->u.str.bytes, v.u.obj->u.str.len);
    case FX_VAL_LIST:
        return hash_values(0x6c697374u, v.u.obj->u.list.items, v.u.obj->u.list.n);
    case FX_VAL_MATRIX:
        return mix(v.u.obj->u.mat.cols) ^ hash_values(0x6d617472u, v.u.obj->u.mat.cells,
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
    for (int prec = 15; prec <= 17; prec++) {
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

/* Flux strings take \" \\ \n \t only, so other bytes are written as they
 * are; JSON also forbids raw control characters, which become \u00XX. */
static void put_string(FxBuf *out, const char *s, size_t len, bool json)
{
    fx_buf_putc(out, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = escape_for(c, json);
        if (esc)
            fx_buf_puts(out, esc);
        else if (json && c < 0x20)
            fx_buf_printf(out, "\\u%04x", c);
        else
            fx_buf_putc(out, (char)c);
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
        fx_buf_printf(out, "%lld", (long long)v.u.i);
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
        put_array(out, v.u.obj->u.list.items, v.u.obj->u.list.n, json);
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

void fx_val_print_json(FxValue v, FxBuf *out)
{
    put_value(out, v, true);
}
