/*
 * natrec.h: records as native code holds them, and every argument and
 * result between the VM and native code (docs/native.md).
 *
 * A record type whose fields are all numbers or Bools is a C struct in
 * native code: its fields in the type's order (the order every record of
 * the type has: compile.c builds them from the type's declaration), each in
 * an 8-byte slot, `long long` for an Int, a Natural or a Bool (0 or 1),
 * `double` for a Float. No padding, so the layout is the slots alone and
 * cgen.c's struct and the marshalling below cannot disagree. A list of
 * records is an array of such structs.
 *
 * The VM hands native code a record argument as a word whose list pointer
 * points at its slots, and a list of records as an array of them; a record
 * result is written to slots the VM provides, a list of records comes back
 * as a block native code grew (FxNatCtx.grow), which the VM turns into
 * boxed records and frees.
 */
#ifndef FX_NATREC_H
#define FX_NATREC_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/native.h"
#include "exec/value.h"
#include "graph/typeid.h"
#include "lang/resolved.h"

#define FX_NATREC_MAX_FIELDS 32

typedef struct FxNatRec {
    const char *name;          /* the type's name */
    const char *const *names;  /* the fields, in the type's order (the program's pointers) */
    FxTypeIdKind kind[FX_NATREC_MAX_FIELDS]; /* FX_TK_NATURAL, _INT, _FLOAT or _BOOL */
    uint32_t n;
} FxNatRec;

/* The record type that `type` names, itself or as a list's element
 * ("Body", "List[Body]"): false when it names none, an alias or a record
 * with no field, or one with a field native code does not hold (a string,
 * a list, another record) or more than FX_NATREC_MAX_FIELDS of them. */
bool fx_natrec_find(const FxProgram *prog, const char *type, FxNatRec *out);

/* The record v into r->n slots at out: false when v is not a record of
 * r's fields in r's order, or holds a value of another kind (a big
 * integer: the interpreter holds those). */
bool fx_natrec_pack(const FxNatRec *r, FxValue v, void *out);
/* A record value from r->n slots (a new reference). */
FxValue fx_natrec_unpack(const FxNatRec *r, const void *slots);

/* The word of an argument of type t (type: its text) for native code:
 * false when the value has none (a big integer, a boxed list of another
 * kind, a record of another shape); *tmp gets a block made for it, which
 * the caller frees. Scalars, lists of numbers, records, lists of records. */
bool fx_natrec_word(const FxProgram *prog, FxValue v, FxTypeId t, const char *type,
                    FxNatWord *w, void **tmp);
/* The value of a result of a list or record type from its word (a list:
 * the block, adopted or freed here; a record: the slots at w.l.p). */
FxValue fx_natrec_result(const FxProgram *prog, FxTypeId t, const char *type, FxNatWord w);

/* Blocks native code let go of, kept for its next list of the same size
 * while its call runs (a list a loop's turn builds and drops: pulls in
 * n-body): malloc's fast bins do not take an array of records, and
 * consolidating them cost as much as the n-body step. The bytes stay
 * credited to the meter while kept; the call's end frees them. */
#define FX_NATCACHE_SLOTS 8
typedef struct FxNatCache {
    void *p[FX_NATCACHE_SLOTS];
    size_t bytes[FX_NATCACHE_SLOTS];
    uint32_t n;
} FxNatCache;
/* A kept block of exactly bytes, or NULL. */
void *fx_natcache_take(FxNatCache *k, size_t bytes);
/* Keeps p (bytes long), or frees it when the cache is full. */
void fx_natcache_put(FxNatCache *k, void *p, size_t bytes);
/* Frees every block kept. */
void fx_natcache_clear(FxNatCache *k);

#endif
