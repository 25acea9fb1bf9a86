/*
 * value.h: run-time values of Flux: exact integers, booleans, floats,
 * strings, lists, matrices and records.
 *
 * An FxValue is 16 bytes passed by value. Integers that fit in int64 live
 * inline (FX_VAL_INT); arithmetic checks for overflow and promotes to a GMP
 * integer (FX_VAL_BIG), and results that fit again are demoted, so an
 * integer has exactly one representation: equal integers are bitwise equal
 * in kind and payload, whatever path computed them. No operation wraps.
 *
 * Heap values (BIG, STRING, LIST, MATRIX, RECORD) are reference counted and
 * immutable once shared. fx_value_retain/release manage the count; every
 * function that returns an FxValue returns a new reference the caller owns;
 * every FxValue argument is borrowed unless the name says "take". Values
 * are not shared between threads without a retain on the owning thread.
 *
 * Errors (division by zero, a type mismatch that the checker could not
 * rule out, an index out of range) are reported through the error record
 * (base/error.h) rather than by aborting: an operation writes its message,
 * the interpreter adds the node and its place, and it becomes exit 1.
 *
 * Budgets: every heap value is counted on the run's meter (meter.h), and an
 * operation whose size or work the program decides (big-number arithmetic,
 * `++`) is priced first; when the meter refuses it, the operation returns
 * false with the budget's message and fx_meter_state.stop says which.
 * Outside a run nothing is refused.
 */
#ifndef FX_VALUE_H
#define FX_VALUE_H

#include <stdio.h>

#include "base/buf.h"
#include "base/error.h"

/* ORDER FX_VAL */
typedef enum {
    FX_VAL_UNIT,   /* no value (an empty slot) */
    FX_VAL_BOOL,
    FX_VAL_INT,    /* int64 inline */
    FX_VAL_BIG,    /* GMP integer outside int64 */
    FX_VAL_FLOAT,
    FX_VAL_STRING,
    FX_VAL_LIST,
    FX_VAL_MATRIX,
    FX_VAL_RECORD,
} FxValKind;

typedef struct FxHeapObj FxHeapObj;

typedef struct FxValue {
    /* kind is read as a whole word by the VM: writing all 8 bytes keeps a
     * later 16-byte copy of the value from stalling on a partial store */
    union {
        FxValKind kind;
        uint64_t kind_word;
    };
    union {
        bool b;
        int64_t i;
        double f;
        FxHeapObj *obj; /* BIG, STRING, LIST, MATRIX, RECORD */
    } u;
} FxValue;

/* ---- construction ---- */
FxValue fx_val_bool(bool b);
FxValue fx_val_int(int64_t i);
FxValue fx_val_float(double f);
/* From decimal text with an optional leading '-'; any size. */
FxValue fx_val_int_text(const char *decimal);
FxValue fx_val_string(const char *s, size_t len);
/* A list of n elements, each retained (the caller keeps its references). */
FxValue fx_val_list(const FxValue *items, size_t n);
/* A list of the integers v[0..n), each below 2^63 (a kernel's output),
 * written in place. */
FxValue fx_val_list_of_u64(const uint64_t *v, size_t n);
/* A list of the n integers v[0..n). Both are kept unboxed, 8 bytes an
 * element (fx_val_list_ints); every other function sees INT elements. */
FxValue fx_val_list_of_i64(const int64_t *v, size_t n);
/* A list of n doubles, unboxed, copied from v. */
FxValue fx_val_list_of_f64(const double *v, size_t n);
/* A list kept unboxed that takes over v itself (a malloc'd block of n
 * integers, nothing copied: a kernel's output), charged to the meter now.
 * A kernel's uint64 array of values below 2^63 may be passed as it is. */
FxValue fx_val_list_adopt_ints(int64_t *v, size_t n);
/* The elements of a list kept unboxed (made by fx_val_list_of_u64 or _i64,
 * or the concatenation of two such), borrowed; NULL for any other list. */
const int64_t *fx_val_list_ints(FxValue list);
/* The work (in the meter's units, about ns) of writing v's big integers in
 * decimal, a lower bound; 0 for values without one. */
uint64_t fx_val_decimal_work(FxValue v);
/* A list of floats kept unboxed that takes over v (a malloc'd block of n
 * doubles), charged to the meter now; every other function sees FLOAT
 * elements. */
FxValue fx_val_list_adopt_floats(double *v, size_t n);
/* Its elements, borrowed; NULL for any other list. */
const double *fx_val_list_floats(FxValue list);
/* A list of records kept by column (table.h) that takes over t. Its
 * elements are made from the columns when asked for. */
typedef struct FxTable FxTable;
FxValue fx_val_list_of_table(FxTable *t);
/* The table a list is kept as, borrowed; NULL for any other list. */
const FxTable *fx_val_list_table(FxValue list);
/* Elements from..to of a list (from <= to <= its length), and all of them
 * reversed: new lists of the same kind (unboxed stays unboxed). */
FxValue fx_val_list_slice(FxValue list, size_t from, size_t to);
FxValue fx_val_list_reversed(FxValue list);
/* A list that takes ownership of the n references in items (no retain);
 * the array is copied. */
FxValue fx_val_list_take(FxValue *items, size_t n);
/* A list that takes over the array itself as well as its n references:
 * items is a block from fx_xmalloc with room for cap values, whose
 * cap * sizeof(FxValue) bytes the caller charged to the meter (meter.h).
 * It is shrunk to n, the rest credited; nothing is copied, so a list built
 * element by element is never held twice. */
FxValue fx_val_list_adopt(FxValue *items, size_t n, size_t cap, bool flat);
/* The same for a rows x cols matrix of row-major cells. flat: the caller
 * knows that no item is a heap value (numbers, booleans), so that freeing
 * the value need not look at them one by one. */
FxValue fx_val_matrix_adopt(size_t rows, size_t cols, FxValue *cells, size_t cap, bool flat);
/* A rows x cols matrix from row-major cells (each retained). */
FxValue fx_val_matrix(size_t rows, size_t cols, const FxValue *cells);
/* A record with n fields; names are borrowed pointers that must outlive the
 * value (field names come from the program, which outlives every run). */
FxValue fx_val_record(size_t n, const char *const *names, const FxValue *fields);

void fx_value_retain(FxValue v);
void fx_value_release(FxValue v);

/* What a string of len bytes costs the meter, header and all: for an
 * operation to ask for the strings it will make before it makes them. */
size_t fx_val_string_bytes(size_t len);

/* ---- access ---- */
size_t fx_val_list_len(FxValue list);
/* Borrowed element i of a list (no bounds check: the caller checks). A
 * table's rows are made into records, all of them, the first time. */
FxValue fx_val_list_at(FxValue list, size_t i);
/* Element i as a new reference: a table's row is made alone, so a scan
 * over a table holds one row at a time. */
FxValue fx_val_list_get(FxValue list, size_t i);
size_t fx_val_matrix_rows(FxValue m);
size_t fx_val_matrix_cols(FxValue m);
FxValue fx_val_matrix_at(FxValue m, size_t r, size_t c); /* borrowed */
const char *fx_val_string_data(FxValue s, size_t *out_len);
/* The length of a string in code points, as `len` counts them: byte 0 and
 * every byte that is not a UTF-8 continuation byte start one. O(1). */
size_t fx_val_string_length(FxValue s);
/* The byte offset of code point i, for i <= length (the length gives the
 * byte length): O(1) for ASCII, at most 63 code points scanned otherwise. */
size_t fx_val_string_offset(FxValue s, size_t i);
/* Borrowed field by name, or a UNIT value when there is none. */
FxValue fx_val_record_field(FxValue r, const char *name);
size_t fx_val_record_size(FxValue r);
const char *fx_val_record_name(FxValue r, size_t i);
FxValue fx_val_record_at(FxValue r, size_t i); /* borrowed */

/* Is v an integer (INT or BIG)? Does it fit int64 (then *out is set)? */
bool fx_val_is_integer(FxValue v);
bool fx_val_to_int64(FxValue v, int64_t *out);
/* The double nearest to an integer (INT or BIG), ties to even, as
 * `float(n)` and arithmetic with a float convert it; an infinity past the
 * doubles' range. */
double fx_val_int_to_double(FxValue v);
/* Sign of an integer: -1, 0, 1. */
int fx_val_int_sign(FxValue v);
/* The bits of |v| (0 for 0), and its decimal digits (GMP's sizeinbase: exact
 * or one too many), both without converting it to decimal. */
uint64_t fx_val_int_bits(FxValue v);
size_t fx_val_int_digits(FxValue v);
/* The last (up to 20) decimal digits of |v|, into out (at least 21 bytes):
 * one division by 10^20, not a conversion of the whole. */
void fx_val_int_last_digits(FxValue v, char *out, size_t len);

/* ---- arithmetic: exact on integers, IEEE on floats; an integer mixed
 * with a float is converted to the float ---- */
bool fx_val_add(FxValue a, FxValue b, FxValue *out, FxError *err);
bool fx_val_sub(FxValue a, FxValue b, FxValue *out, FxError *err);
bool fx_val_mul(FxValue a, FxValue b, FxValue *out, FxError *err);
bool fx_val_div_float(FxValue a, FxValue b, FxValue *out, FxError *err); /* `/` */
bool fx_val_idiv(FxValue a, FxValue b, FxValue *out, FxError *err);      /* floor */
bool fx_val_mod(FxValue a, FxValue b, FxValue *out, FxError *err);       /* floor */
/* a ^ b with b >= 0 for integers (a negative exponent of an integer is an
 * error); exponents beyond 2^32 are an error (the result would not fit). */
bool fx_val_pow(FxValue a, FxValue b, FxValue *out, FxError *err);
bool fx_val_neg(FxValue a, FxValue *out, FxError *err);
/* xs ++ ys for lists and strings */
bool fx_val_concat(FxValue a, FxValue b, FxValue *out, FxError *err);

/* ---- comparison ---- */
/* Structural equality; 1 and 1.0 are equal. */
bool fx_val_equal(FxValue a, FxValue b);
/* Total order on numbers (exact between integers and floats where
 * possible), strings (bytewise), booleans, and lists (lexicographic).
 * *ok is false when the two values have no order. */
int fx_val_compare(FxValue a, FxValue b, bool *ok);
/* A hash consistent with fx_val_equal. */
uint64_t fx_val_hash(FxValue v);

/* ---- text: the syntax of docs/language.md §10 ---- */
/* Integers in decimal, true/false, floats in shortest round-trip form
 * (always with a '.' or an exponent, e.g. 1.0, 1e+100), strings quoted with
 * \" \\ \n \t escapes, lists [a, b], matrices [[1.0, 2.0], [3.0, 4.0]],
 * records {name: "Ann", age: 31}. */
void fx_val_print(FxValue v, FxBuf *out);
/* The same as JSON: integers written exactly however large, strings with
 * JSON escapes, lists and matrices as arrays, records as objects. */
void fx_val_print_json(FxValue v, FxBuf *out);
/* The length of fx_val_print_json's text of v, at least, from the value
 * alone (no printing): exact for integers, booleans and their lists,
 * matrices and records; a float counts 3 bytes, a string its bytes and
 * quotes, a big integer its digits less one. The walk stops once past
 * `cap`. *big_digits (when not NULL) gets the decimal digits of the big
 * integers walked, at most (sizeinbase's). */
size_t fx_val_json_at_least(FxValue v, size_t cap, size_t *big_digits);
/* Text as fx_val_print_json writes a string value holding it, without making one. */
void fx_val_print_json_text(const char *s, size_t len, FxBuf *out);

#endif
