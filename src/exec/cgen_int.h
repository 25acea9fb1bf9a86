/*
 * cgen_int.h: the generator of native code's own types, shared by cgen.c
 * (which writes the C) and cgen_flow.c (what it knows of the bytecode
 * first). Private to src/exec.
 */
#ifndef FX_CGEN_INT_H
#define FX_CGEN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "interp_int.h"

/* A register's C type: a scalar, a list of numbers, or a record type
 * (natrec.h) or a list of them, numbered by the module's table of records
 * (Gen.recs): T_REC + k is record k, T_LISTR + k a list of them. */
#define MAX_RECS 8
typedef int CType;
enum { T_NONE, T_INT, T_FLOAT, T_BOOL, T_LISTI, T_LISTF, T_BAD, T_REC = 8,
       T_LISTR = T_REC + MAX_RECS };

typedef struct Func {
    FxFunc *f;
    CType *reg;      /* by register */
    uint32_t *build; /* by instruction: the builder a BEGIN/PUSH/END uses */
    CType *elem;     /* by builder: its elements' type */
    bool *has;       /* by register: a min/max fold's, whose "none yet" is h<r> */
    bool *wide;      /* by register: a Float that starts as an Int constant (z<r>: still it) */
    bool *view;      /* by register: written only by slices that view their list (mark_views) */
    bool *view_at;   /* by instruction: a slice that views its list; ... */
    uint32_t *view_use; /* ... and the instruction that reads it, once */
    bool *rev_at;    /* by instruction: a reverse left to the `++` that reads it (mark_views) */
    uint32_t *rev_src; /* by instruction: that `++`'s list reversed, + 1 (0: none) ... */
    bool *in_place;  /* ... and whether no list but its result is read after it */
    uint64_t *live;  /* by instruction: the registers read after it before written (find_live) */
    uint32_t live_words;
    uint64_t *owns;  /* by instruction: the registers that may own a block before it
                      * (find_owners); one more row: any that may, anywhere */
    uint32_t *map_src; /* by builder: the list it may build in the block of, + 1 (mark_maps) */
    uint32_t *map_end; /* by builder: its END there */
    uint32_t *map_at;  /* by instruction: the FORI that decides it, the builder + 1 */
    uint32_t *map_guard; /* by builder: a map that changes a range of positions alone: its
                          * guard's BR + 1 (mark_range_update) ... */
    uint32_t *map_mask;  /* ... and the positions it changes: i MASK k, k its guard's other side */
    uint32_t n_builders;
    CType ret;
} Func;

static inline bool is_rec(CType t)
{
    return t >= T_REC && t < T_REC + MAX_RECS;
}

static inline bool is_list(CType t)
{
    return t == T_LISTI || t == T_LISTF || (t >= T_LISTR && t < T_LISTR + MAX_RECS);
}

static inline CType list_of(CType e)
{
    return e == T_INT ? T_LISTI : e == T_FLOAT ? T_LISTF : is_rec(e) ? e - T_REC + T_LISTR
           : e == T_NONE ? T_NONE : T_BAD;
}

static inline CType elem_of(CType l)
{
    return l == T_LISTI ? T_INT : l == T_LISTF ? T_FLOAT : is_list(l) ? l - T_LISTR + T_REC
                                                                       : T_BAD;
}


/* Operand k of a library call: its register, or a constant (OP_BUILTINR's
 * FX_CONST_OPERAND) as FX_NO_REG with *k_const set. */
uint32_t fx_cgen_operand(const FxInstr *I, uint32_t k, const FxValue **k_const, const FxFunc *f);
/* Does the op write d (and so have a result_type)? */
bool fx_cgen_writes(FxOpcode op);
/* The registers an instruction reads (at most 4 listed; a call's and a
 * record's operands through *base and *n), and whether it reads x. */
uint32_t fx_cgen_reads(const FxInstr *I, const FxFunc *f, uint32_t *r, uint32_t *base, uint32_t *n);
bool fx_cgen_reads_reg(const FxInstr *I, const FxFunc *f, uint32_t x);
/* The self call turned into a loop with an accumulator, or UINT32_MAX. */
uint32_t fx_cgen_accumulated_call(const Func *F);
/* Is x read after instruction at, on some path, before it is written? */
bool fx_cgen_live_after(const Func *F, uint32_t at, uint32_t x);
/* May x own a block before instruction at (at = n_code: anywhere)? */
bool fx_cgen_may_own(const Func *F, uint32_t at, uint32_t x);
/* Fills F's views, reversals, liveness, owners and maps (F->reg typed). */
void fx_cgen_analyse(Func *F);

#endif
