/*
 * typeid.h: a node's type as the rules, the prover and the executor read
 * it, without comparing strings.
 *
 * A graph keeps each type's text ("List[Int]", "Matrix[n, n, Int]",
 * "Particle") because the store and the printouts show it. Decisions read
 * the FxTypeId parsed from that text once, when the node, parameter or
 * result type is set: a small value, no table, safe to copy between graphs
 * and threads. It holds the kinds from the outside in, 4 bits each, the
 * outermost in the low bits: List[List[Int]] is LIST, LIST, INT. Eight
 * levels fit; deeper nesting reads as UNKNOWN below the eighth (the
 * decisions made on types never look that deep). A record's name is not in
 * the id: two record types compare equal by id and differ by text
 * (fx_typeid_same_text decides when both matter).
 *
 * Machine types. What the executor holds for each kind: Natural and Int are
 * exact integers, an int64 that becomes a GMP bignum past 2^63 (value.c),
 * Float a double, Bool a bool, String UTF-8 bytes, and List, Stream,
 * Matrix and records hold values of their element types.
 */
#ifndef FX_TYPEID_H
#define FX_TYPEID_H

#include <stdbool.h>
#include <stdint.h>

/* ORDER FX_TK: keep in sync with kind_names[] in typeid.c */
typedef enum FxTypeIdKind {
    FX_TK_UNKNOWN, /* "?", or deeper than an id holds */
    FX_TK_NATURAL,
    FX_TK_INT,
    FX_TK_BOOL,
    FX_TK_FLOAT,
    FX_TK_STRING,
    FX_TK_LIST,
    FX_TK_STREAM,
    FX_TK_MATRIX, /* its element follows: Float unless the text names one */
    FX_TK_RECORD,
    FX_TK_UNIT,   /* "()" */
} FxTypeIdKind;

typedef enum FxMachineType {
    FX_MT_UNKNOWN,
    FX_MT_INTEGER, /* int64, a bignum past it */
    FX_MT_DOUBLE,
    FX_MT_BOOL,
    FX_MT_STRING,
    FX_MT_SEQUENCE, /* a list or a stream of the element */
    FX_MT_MATRIX,
    FX_MT_RECORD,
    FX_MT_UNIT,
} FxMachineType;

typedef uint32_t FxTypeId;

/* The id of a type's text as graphs write it (lang/types.c prints it). */
FxTypeId fx_typeid_parse(const char *text);

static inline FxTypeIdKind fx_typeid_kind(FxTypeId t)
{
    return (FxTypeIdKind)(t & 0xFu);
}
/* The element of a list, stream or matrix (UNKNOWN for other kinds). */
static inline FxTypeId fx_typeid_elem(FxTypeId t)
{
    return t >> 4;
}
static inline bool fx_typeid_is_integer(FxTypeId t)
{
    return fx_typeid_kind(t) == FX_TK_NATURAL || fx_typeid_kind(t) == FX_TK_INT;
}
/* Does a Float occur anywhere in t (itself, or an element at any depth)? */
bool fx_typeid_has_float(FxTypeId t);
/* Do values of t hash and compare exactly: an integer, a Bool or a String? */
bool fx_typeid_is_exact_key(FxTypeId t);
FxMachineType fx_typeid_machine(FxTypeId t);
const char *fx_typeid_kind_name(FxTypeIdKind k);

#endif
