/*
 * cgen_flow.c: what native code's generator (cgen.c) knows of a function's
 * bytecode before it writes C: which registers are read where (liveness),
 * which may own a block at each point, which slices may view their list,
 * which reverses a `++` may do, and which maps may build in their list's
 * block or run a range alone (docs/native.md, "Lists in place").
 */
#include <stdlib.h>
#include <string.h>

#include "cgen_int.h"

static void find_live(Func *F);
static void find_owners(Func *F);
static void mark_maps(Func *F);
static void mark_range_update(Func *F, uint32_t b, uint32_t fi);
static void mark_reversals(Func *F, const uint32_t *n_reads, const bool *target);

/* Operand k of a library call: its register, or a constant (OP_BUILTINR's
 * FX_CONST_OPERAND) as FX_NO_REG with *k_const set. */
uint32_t fx_cgen_operand(const FxInstr *I, uint32_t k, const FxValue **k_const,
                                const FxFunc *f)
{
    uint32_t x = I->op == OP_BUILTIN ? I->b + k : k == 0 ? I->b : k == 1 ? I->c : I->fb;
    *k_const = NULL;
    if (I->op == OP_BUILTINR && (x & FX_CONST_OPERAND)) {
        *k_const = &f->consts[x & ~FX_CONST_OPERAND];
        return FX_NO_REG;
    }
    return x;
}

/* Does the op write d (and so have a result_type)? */
bool fx_cgen_writes(FxOpcode op)
{
    switch (op) {
    case OP_CONST: case OP_MOVE: case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_IDIV: case OP_MOD: case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT:
    case OP_GE: case OP_NEG: case OP_NOT: case OP_ADDK: case OP_SUBK: case OP_CMPK:
    case OP_CALL: case OP_END: case OP_LEN: case OP_INDEX: case OP_BUILTIN: case OP_BUILTINR:
    case OP_POW: case OP_FIELD: case OP_INDEXF: case OP_RECORD: case OP_MINMAX:
    case OP_LIST: case OP_CONCAT:
        return true;
    default:
        return false;
    }
}

/* ---- slices that view their list ---- */

static bool is_slice(const FxInstr *I)
{
    return (I->op == OP_BUILTIN || I->op == OP_BUILTINR) &&
           (I->a == FX_BUILTIN_SLICE || I->a == FX_BUILTIN_SLICE_CLOSED);
}


/* Does I read register x? */
bool fx_cgen_reads_reg(const FxInstr *I, const FxFunc *f, uint32_t x)
{
    uint32_t r[4], base = 0, n = 0, k = fx_cgen_reads(I, f, r, &base, &n);
    for (uint32_t i = 0; i < k; i++)
        if (r[i] == x)
            return true;
    return x >= base && x < base + n;
}

/* May the value of d, read by I, be a view: I copies it into a new block
 * (a `++`, a reverse) and keeps nothing of it? */
static bool copies_it(const FxInstr *I, const FxFunc *f, uint32_t d)
{
    if (I->op == OP_CONCAT)
        return I->a == d || I->b == d;
    const FxValue *v;
    return (I->op == OP_BUILTIN || I->op == OP_BUILTINR) && I->a == FX_BUILTIN_REVERSE &&
           fx_cgen_operand(I, 0, &v, f) == d && !v;
}

/* May a list register other than keep be read after instruction u, on
 * some path? Every jump may be taken or not (a superset of the paths). */
static bool lists_read_after(const Func *F, uint32_t u, uint32_t keep)
{
    const FxFunc *f = F->f;
    bool *seen = fx_xcalloc(f->n_code + 1, sizeof(bool));
    uint32_t *todo = fx_xcalloc(2 * (size_t)f->n_code + 2, sizeof(uint32_t)), n = 0;
    bool read = false;
    todo[n++] = u + 1;
    while (n && !read) {
        uint32_t k = todo[--n];
        if (k >= f->n_code || seen[k])
            continue;
        seen[k] = true;
        const FxInstr *I = &f->code[k];
        for (uint32_t x = 0; x < f->n_regs && !read; x++)
            read = x != keep && is_list(F->reg[x]) && fx_cgen_reads_reg(I, f, x);
        switch ((FxOpcode)I->op) {
        case OP_BRK: case OP_BR: case OP_JMP: case OP_JMPF: case OP_JMPT: case OP_FORI:
        case OP_FORL:
            todo[n++] = I->a;
            todo[n++] = k + 1;
            break;
        case OP_RET: case OP_FAIL:
            break;
        default:
            todo[n++] = k + 1;
            break;
        }
    }
    free(seen);
    free(todo);
    return read;
}

/* The instructions control may go to after `at`: *n of them into next. */
static uint32_t successors(const FxFunc *f, uint32_t at, uint32_t next[2])
{
    const FxInstr *I = &f->code[at];
    switch ((FxOpcode)I->op) {
    case OP_BRK: case OP_BR: case OP_JMPF: case OP_JMPT: case OP_FORI: case OP_FORL:
        next[0] = I->a;
        next[1] = at + 1;
        return 2;
    case OP_JMP:
        next[0] = I->a;
        return 1;
    case OP_RET: case OP_FAIL: case OP_CHECKF:
        return 0;
    default:
        next[0] = at + 1;
        return 1;
    }
}

/* Liveness: F->live holds, by instruction, the registers some path from
 * it reads before writing them. A block that only dead registers view is
 * read by no one: ownership never passes to them (emit_release), and a
 * block may be given to a callee, or written in place, while no live
 * register views it. A self tail call's jump to the top reads its
 * arguments alone, as the CALL and RET after it say. */
static void find_live(Func *F)
{
    const FxFunc *f = F->f;
    uint32_t w = F->live_words = (f->n_regs + 63) / 64 ? (f->n_regs + 63) / 64 : 1;
    F->live = fx_xcalloc((size_t)(f->n_code ? f->n_code : 1) * w, sizeof(uint64_t));
    uint64_t *in = fx_xcalloc(w, sizeof(uint64_t));
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t at = f->n_code; at-- > 0;) {
            uint64_t *out = &F->live[(size_t)at * w];
            uint32_t next[2], k = successors(f, at, next);
            for (uint32_t j = 0; j < k; j++) {
                if (next[j] >= f->n_code)
                    continue;
                /* in of the successor: its reads, and what is live after it unless it writes it */
                const FxInstr *J = &f->code[next[j]];
                memcpy(in, &F->live[(size_t)next[j] * w], w * sizeof(uint64_t));
                if (fx_cgen_writes((FxOpcode)J->op) && J->d < f->n_regs)
                    in[J->d / 64] &= ~(UINT64_C(1) << (J->d % 64));
                uint32_t r[4], base = 0, n = 0, m = fx_cgen_reads(J, f, r, &base, &n);
                for (uint32_t i = 0; i < m + n; i++) {
                    uint32_t x = i < m ? r[i] : base + i - m;
                    if (x < f->n_regs)
                        in[x / 64] |= UINT64_C(1) << (x % 64);
                }
                for (uint32_t i = 0; i < w; i++) {
                    changed |= (in[i] & ~out[i]) != 0;
                    out[i] |= in[i];
                }
            }
        }
    }
    free(in);
}

/* Is register x read after instruction at, on some path, before it is written? */
bool fx_cgen_live_after(const Func *F, uint32_t at, uint32_t x)
{
    return (F->live[(size_t)at * F->live_words + x / 64] >> (x % 64)) & 1;
}

/* Is the call at `at` the function's own tail call, a jump to its top
 * (emit_tail_call)? acc: accumulated_call's. */
static bool self_tail_call(const FxFunc *f, uint32_t at, uint32_t acc)
{
    const FxInstr *I = &f->code[at];
    return I->op == OP_CALL && f->callees[I->a] == f &&
           ((at + 1 < f->n_code && f->code[at + 1].op == OP_RET && f->code[at + 1].a == I->d) ||
            at == acc);
}

/* Does the instruction make a block its register owns (o<d> = 1)? */
static bool owning_write(const Func *F, const FxInstr *I)
{
    if (!fx_cgen_writes((FxOpcode)I->op) || I->d >= F->f->n_regs || !is_list(F->reg[I->d]) ||
        F->view[I->d])
        return false;
    return I->op != OP_MOVE;
}

static bool has_bit(const uint64_t *set, uint32_t x)
{
    return (set[x / 64] >> (x % 64)) & 1;
}

/* Which registers may own a block (o<r> may be 1) before each instruction:
 * the parameters at the top (given, or handed on by a tail call), a
 * register once it makes a block, and one a block may pass to as another
 * is written (emit_release's candidates). Only those are asked who owns a
 * block, and freed, where lists are handed on or let go: a loop over a
 * frame of twenty list registers asked each of them at every step. A
 * superset: a flag outside it is 0 there. */
static void find_owners(Func *F)
{
    const FxFunc *f = F->f;
    uint32_t w = F->live_words, code = f->n_code, acc = fx_cgen_accumulated_call(F);
    F->owns = fx_xcalloc((size_t)(code + 1) * w, sizeof(uint64_t));
    uint64_t *s = fx_xcalloc(w, sizeof(uint64_t)), *params = fx_xcalloc(w, sizeof(uint64_t));
    for (uint32_t i = 0; i < f->g->n_params; i++)
        if (is_list(F->reg[i]))
            params[i / 64] |= UINT64_C(1) << (i % 64);
    if (!code) {
        free(s);
        free(params);
        return;
    }
    memcpy(F->owns, params, w * sizeof(uint64_t));
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t at = 0; at < code; at++) {
            const FxInstr *I = &f->code[at];
            memcpy(s, &F->owns[(size_t)at * w], w * sizeof(uint64_t));
            uint32_t next[2], n = successors(f, at, next);
            if (self_tail_call(f, at, acc)) { /* to the top, with the parameters' blocks */
                memcpy(s, params, w * sizeof(uint64_t));
                next[0] = 0;
                n = 1;
            } else if (fx_cgen_writes((FxOpcode)I->op) && I->d < f->n_regs && is_list(F->reg[I->d]) &&
                       !F->view[I->d]) {
                uint32_t d = I->d;
                if (has_bit(s, d)) /* its block may pass to another */
                    for (uint32_t x = 0; x < f->n_regs; x++)
                        if (x != d && F->reg[x] == F->reg[d] && !F->view[x] &&
                            (fx_cgen_live_after(F, at, x) || fx_cgen_reads_reg(I, f, x)))
                            s[x / 64] |= UINT64_C(1) << (x % 64);
                s[d / 64] &= ~(UINT64_C(1) << (d % 64));
                if (owning_write(F, I))
                    s[d / 64] |= UINT64_C(1) << (d % 64);
            }
            for (uint32_t j = 0; j < n; j++) {
                if (next[j] >= code)
                    continue;
                uint64_t *to = &F->owns[(size_t)next[j] * w];
                for (uint32_t k = 0; k < w; k++) {
                    changed |= (s[k] & ~to[k]) != 0;
                    to[k] |= s[k];
                }
            }
        }
    }
    uint64_t *any = &F->owns[(size_t)code * w]; /* a stop's: every list register, as cold */
    for (uint32_t x = 0; x < f->n_regs; x++)
        if (is_list(F->reg[x]))
            any[x / 64] |= UINT64_C(1) << (x % 64);
    free(s);
    free(params);
}

/* May register x own a block before instruction at (at = n_code: anywhere)? */
bool fx_cgen_may_own(const Func *F, uint32_t at, uint32_t x)
{
    return has_bit(&F->owns[(size_t)at * F->live_words], x);
}

/* The list whose length register lim holds, set by a LEN of it (through
 * moves) in the straight code [from, to), or FX_NO_REG; *at: that LEN. */
static uint32_t length_of(const FxFunc *f, uint32_t from, uint32_t to, uint32_t lim, uint32_t *at)
{
    for (uint32_t k = to; k-- > from;) {
        const FxInstr *I = &f->code[k];
        if (!fx_cgen_writes((FxOpcode)I->op) || I->d != lim)
            continue;
        const FxValue *v;
        *at = k;
        if (I->op == OP_MOVE)
            lim = I->a;
        else if (I->op == OP_LEN)
            return I->a;
        else if ((I->op == OP_BUILTIN || I->op == OP_BUILTINR) && I->a == FX_BUILTIN_LEN) {
            uint32_t x = fx_cgen_operand(I, 0, &v, f);
            return v ? FX_NO_REG : x;
        } else
            return FX_NO_REG;
    }
    return FX_NO_REG;
}

/* A map in its list's block (mark_maps) whose turn is `if i CMP k then E
 * else xs[i]` (or the identity first) leaves every position the guard
 * does not pick as it is: in place, the turns of those positions write
 * each element onto itself, so only the range the guard picks runs (i = k:
 * one position, a point update; i < k: a prefix; ...), the others' steps
 * counted at once. F->map_mask[b]: the positions changed, i MASK k (bit 0
 * less, 1 equal, 2 greater), an interval. */
static void mark_range_update(Func *F, uint32_t b, uint32_t fi)
{
    const FxFunc *f = F->f;
    uint32_t xs = F->map_src[b] - 1, e = F->map_end[b], fl = e - 1, g = fi + 1;
    const FxInstr *FI = &f->code[fi], *GI = &f->code[g], *P = &f->code[fl - 1];
    uint32_t i = FI->d, lim = FI->b, mask = GI->c & 7, el = GI->a;
    if ((GI->op != OP_BR && GI->op != OP_BRK) || el <= g + 1 || el >= fl ||
        fx_cgen_live_after(F, e, i) || fx_cgen_live_after(F, e, lim))
        return;
    if (GI->op == OP_BR && GI->d != i) { /* k CMP i: as i CMP' k */
        if (GI->b != i)
            return;
        mask = (mask & 2) | ((mask & 1) << 2) | ((mask & 4) >> 2);
    } else if (GI->d != i || (GI->op == OP_BR && GI->b == i)) {
        return;
    }
    uint32_t k = GI->op == OP_BR ? (GI->d == i ? GI->b : GI->d) : FX_NO_REG;
    for (uint32_t at = g; at < fl - 1; at++) { /* k, lim kept; lim read by the FORL alone; */
        const FxInstr *I = &f->code[at];         /* every turn appends (no jump past the push) */
        uint32_t next[2], n = successors(f, at, next);
        for (uint32_t j = 0; j < n; j++)
            if (next[j] == fl)
                return;
        if ((fx_cgen_writes((FxOpcode)I->op) && I->d == k) || (at > g && fx_cgen_reads_reg(I, f, lim)))
            return;
    }
    /* the identity: `v = xs[i]`, then the push of v */
    #define IDENTITY(at) (f->code[at].op == OP_INDEX && f->code[at].a == xs && \
                          f->code[at].b == i && f->code[at].d == P->a)
    #define JUMP_TO_PUSH(at) (f->code[at].op == OP_JMP && f->code[at].a == fl - 1)
    if (el == fl - 2 && IDENTITY(el) && JUMP_TO_PUSH(el - 1))
        ; /* changed where the guard holds */
    else if (el == g + 3 && IDENTITY(g + 1) && JUMP_TO_PUSH(g + 2))
        mask ^= 7; /* where it does not */
    else
        return;
    #undef IDENTITY
    #undef JUMP_TO_PUSH
    if (mask == 0 || mask == 5 || mask == 7) /* none, two ranges, all */
        return;
    F->map_guard[b] = g + 1;
    F->map_mask[b] = mask;
}

/* A map over a list's positions, `[E for i in 0..len(xs)]`, whose turn
 * reads xs at i alone and appends once, as its last act, may build its
 * result in xs's own block where the frame owns it and nothing reads it
 * after (decided as it runs, at the loop's FORI): element k is written
 * when the turns from k on still have to read theirs (k <= i), so no turn
 * reads what another wrote. A point update (`[if i = r then ... else
 * xs[i] for i in 0..len(xs)]`) then copies nothing and allocates nothing:
 * in a tail recursion that hands its list on, each step was a copy. */
static void mark_maps(Func *F)
{
    const FxFunc *f = F->f;
    uint32_t nb = F->n_builders ? F->n_builders : 1;
    F->map_src = fx_xcalloc(nb, sizeof(uint32_t));
    F->map_end = fx_xcalloc(nb, sizeof(uint32_t));
    F->map_at = fx_xcalloc(f->n_code ? f->n_code : 1, sizeof(uint32_t));
    F->map_guard = fx_xcalloc(nb, sizeof(uint32_t));
    F->map_mask = fx_xcalloc(nb, sizeof(uint32_t));
    uint32_t *into = fx_xcalloc(f->n_code + 1, sizeof(uint32_t)); /* jumps into each, + 1 */
    for (uint32_t k = 0; k < f->n_code; k++) {
        uint32_t next[2], n = successors(f, k, next);
        for (uint32_t j = 0; j < n; j++)
            if (next[j] != k + 1 && next[j] <= f->n_code)
                into[next[j]]++;
    }
    for (uint32_t e = 2; e < f->n_code; e++) {
        const FxInstr *E = &f->code[e], *L = &f->code[e - 1];
        uint32_t b = F->build[e], fl = e - 1;
        if (E->op != OP_END || L->op != OP_FORL || L->a < 1 || L->a >= fl)
            continue;
        uint32_t fi = L->a - 1, s = fi, i = L->d, lim = L->b, len_at = 0;
        const FxInstr *FI = &f->code[fi];
        if (FI->op != OP_FORI || FI->a != e || FI->d != i || FI->b != lim || into[fi] ||
            into[L->a] != 1 || f->code[fl - 1].op != OP_PUSH || F->build[fl - 1] != b)
            continue;
        while (s-- > 0 && !(f->code[s].op == OP_BEGIN && F->build[s] == b))
            ;
        if (s >= fi)
            continue;
        bool ok = true; /* straight code from the BEGIN to the FORI */
        for (uint32_t k = s; k < fi && ok; k++) {
            uint32_t next[2];
            ok = successors(f, k, next) == 1 && next[0] == k + 1 && (k == s || !into[k]);
        }
        uint32_t xs = ok ? length_of(f, s, fi, lim, &len_at) : FX_NO_REG;
        if (xs >= f->n_regs || !is_list(F->reg[xs]) || F->view[xs] || xs == i || xs == lim ||
            F->reg[E->d] != F->reg[xs] || F->elem[b] != elem_of(F->reg[xs]) ||
            fx_cgen_live_after(F, e, xs))
            continue;
        for (uint32_t k = len_at + 1; k < e && ok; k++) /* xs kept from its length on */
            ok = !(fx_cgen_writes((FxOpcode)f->code[k].op) && f->code[k].d == xs);
        for (uint32_t k = fi + 1; k < fl && ok; k++) { /* the turn */
            const FxInstr *I = &f->code[k];
            uint32_t next[2], n = successors(f, k, next);
            for (uint32_t j = 0; j < n; j++) /* within the turn, whose push ends it */
                ok &= next[j] > fi + 1 && next[j] <= fl;
            if (k > fi + 1 && into[k]) /* and no jump from outside it into it */
                for (uint32_t m = 0; m < f->n_code; m++) {
                    uint32_t nx[2], nn = successors(f, m, nx);
                    for (uint32_t j = 0; j < nn; j++)
                        ok &= nx[j] != k || (m > fi && m < fl);
                }
            if (fx_cgen_writes((FxOpcode)I->op) && (I->d == xs || I->d == i || I->d == lim))
                ok = false;
            if ((I->op == OP_PUSH || I->op == OP_END) && F->build[k] == b && k != fl - 1)
                ok = false;
            if (fx_cgen_reads_reg(I, f, xs) &&
                !((I->op == OP_INDEX || I->op == OP_INDEXF) && I->a == xs && I->b == i))
                ok = false;
        }
        if (!ok)
            continue;
        F->map_src[b] = xs + 1;
        F->map_end[b] = e;
        F->map_at[fi] = b + 1;
        mark_range_update(F, b, fi);
    }
    free(into);
}

/* A reverse of a viewing slice of xs, read once, a few instructions on, as
 * the left of a `++` (`reverse(p[0..k]) ++ p[k..n]`, a flip), is no copy
 * of its own: its register views the slice, and the `++` makes the one
 * block, reversing as it copies. Where the frame owns xs's block, the two
 * sides are its prefix and the rest of it (checked as it runs), and no list
 * but the result is read after the `++`, the prefix is reversed in place
 * and the block passes to the result: no copy and no allocation. Between
 * the two, as for a view, nothing writes xs or the reverse's register,
 * calls or jumps. */
static void mark_reversals(Func *F, const uint32_t *n_reads, const bool *target)
{
    const FxFunc *f = F->f;
    uint32_t code = f->n_code ? f->n_code : 1;
    F->rev_at = fx_xcalloc(code, sizeof(bool));
    F->rev_src = fx_xcalloc(code, sizeof(uint32_t));
    F->in_place = fx_xcalloc(code, sizeof(bool));
    uint32_t *writers = fx_xcalloc(f->n_regs ? f->n_regs : 1, sizeof(uint32_t));
    for (uint32_t at = 0; at < f->n_code; at++)
        if (fx_cgen_writes((FxOpcode)f->code[at].op) && f->code[at].d < f->n_regs)
            writers[f->code[at].d]++;
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        const FxValue *v;
        if ((I->op != OP_BUILTIN && I->op != OP_BUILTINR) || I->a != FX_BUILTIN_REVERSE)
            continue;
        uint32_t s = fx_cgen_operand(I, 0, &v, f), d = I->d, x = FX_NO_REG;
        if (v || s >= f->n_regs || !F->view[s] || d < f->g->n_params || writers[d] != 1 ||
            n_reads[d] != 1 || F->reg[d] != F->reg[s])
            continue;
        for (uint32_t k = 0; k < at; k++) /* the slice that s views, and its list */
            if (F->view_at[k] && F->view_use[k] == at && f->code[k].d == s && is_slice(&f->code[k]))
                x = fx_cgen_operand(&f->code[k], 0, &v, f);
        if (x >= f->n_regs || F->reg[x] != F->reg[d])
            continue;
        for (uint32_t u = at + 1; u < f->n_code && u <= at + 8 && !target[u]; u++) {
            const FxInstr *J = &f->code[u];
            if (fx_cgen_reads_reg(J, f, d)) {
                if (J->op == OP_CONCAT && J->a == d && J->b != d) {
                    F->rev_at[at] = true;
                    F->view[d] = true;
                    F->rev_src[u] = x + 1;
                    F->in_place[u] = !lists_read_after(F, u, J->d);
                }
                break;
            }
            if (!fx_cgen_writes((FxOpcode)J->op) || J->op == OP_CALL || J->op == OP_END || J->d == x ||
                J->d == d)
                break;
        }
    }
    free(writers);
}

/* A slice `xs[a..b]` read once, a few instructions on, by a `++` or a
 * reverse that copies it, need not copy it first: it can view xs's block
 * (a pointer into it and a length), as long as nothing writes xs or jumps
 * in between, and its register holds nothing else. `reverse(p[0..k]) ++
 * p[k..n]` then makes one block and one copy where it made three: the
 * allocations are most of a flip's time in native code. The view's
 * register is not an owner and is never one, so the ownership of blocks
 * (emit_release, emit_free_owned) never passes to it. A list literal of
 * up to 16 elements read so is likewise a view, of a C array of the frame
 * (`xs ++ [x]`: no block for the literal). */
static void mark_views(Func *F)
{
    const FxFunc *f = F->f;
    uint32_t regs = f->n_regs ? f->n_regs : 1, code = f->n_code ? f->n_code : 1;
    F->view = fx_xcalloc(regs, sizeof(bool));
    F->view_at = fx_xcalloc(code, sizeof(bool));
    F->view_use = fx_xcalloc(code, sizeof(uint32_t));
    bool *target = fx_xcalloc(f->n_code + 1, sizeof(bool));
    uint32_t *n_reads = fx_xcalloc(regs, sizeof(uint32_t));
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        switch ((FxOpcode)I->op) {
        case OP_BRK: case OP_BR: case OP_JMP: case OP_JMPF: case OP_JMPT: case OP_FORI:
        case OP_FORL:
            target[I->a] = true;
            break;
        default:
            break;
        }
        for (uint32_t x = 0; x < f->n_regs; x++)
            n_reads[x] += fx_cgen_reads_reg(I, f, x);
    }
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        const FxValue *v;
        /* a slice views its list; a small literal, a C array of the frame */
        bool literal = I->op == OP_LIST && I->b > 0 && I->b <= 16;
        uint32_t d = I->d, x = is_slice(I) ? fx_cgen_operand(I, 0, &v, f) : literal ? FX_NO_REG : d;
        if ((!is_slice(I) && !literal) || x == d || n_reads[d] != 1 || !is_list(F->reg[d]))
            continue;
        for (uint32_t k = at + 1; k < f->n_code && k <= at + 8 && !target[k]; k++) {
            const FxInstr *J = &f->code[k];
            if (fx_cgen_reads_reg(J, f, d)) {
                if (copies_it(J, f, d)) {
                    F->view_at[at] = true;
                    F->view_use[at] = k;
                }
                break;
            }
            if (!fx_cgen_writes((FxOpcode)J->op) || J->op == OP_CALL || J->op == OP_END || J->d == x ||
                J->d == d)
                break;
        }
    }
    /* a register is a view's when a viewing slice writes it and nothing else
     * does; the slices writing other registers copy */
    bool *other = fx_xcalloc(regs, sizeof(bool)), *sliced = fx_xcalloc(regs, sizeof(bool));
    for (uint32_t at = 0; at < f->n_code; at++) {
        const FxInstr *I = &f->code[at];
        if (F->view_at[at])
            sliced[I->d] = true;
        else if (fx_cgen_writes((FxOpcode)I->op))
            other[I->d] = true;
    }
    for (uint32_t x = f->g->n_params; x < f->n_regs; x++)
        F->view[x] = sliced[x] && !other[x];
    for (uint32_t at = 0; at < f->n_code; at++)
        F->view_at[at] &= F->view[f->code[at].d];
    mark_reversals(F, n_reads, target);
    free(other);
    free(sliced);
    free(n_reads);
    free(target);
}


/* The call that "tail recursion modulo an associative operation" turns
 * into a loop, or UINT32_MAX: a call of the function itself whose result
 * only an integer addition (or multiplication) with a value known before
 * it reads, whose result is returned (`f(n-1) + f(n-2)`, `n * f(n-1)`).
 * The sum is then built in another order (acc), each partial sum checked:
 * exact when no partial sum overflows, and a bail when one does, so the
 * native code returns the exact value or none. The last such call is the
 * one taken (the operand computed before it: the other call's result). */
uint32_t fx_cgen_accumulated_call(const Func *F)
{
    const FxFunc *f = F->f;
    uint32_t found = UINT32_MAX;
    bool *target = fx_xcalloc(f->n_code + 1, sizeof(bool)); /* the J and K below are reached */
    for (uint32_t at = 0; at < f->n_code; at++) {           /* from the call alone */
        switch ((FxOpcode)f->code[at].op) {
        case OP_BRK: case OP_BR: case OP_JMP: case OP_JMPF: case OP_JMPT: case OP_FORI:
        case OP_FORL:
            target[f->code[at].a] = true;
            break;
        default:
            break;
        }
    }
    for (uint32_t at = 0; at + 2 < f->n_code; at++) {
        const FxInstr *I = &f->code[at], *J = &f->code[at + 1], *K = &f->code[at + 2];
        if (I->op != OP_CALL || f->callees[I->a] != f || (J->op != OP_ADD && J->op != OP_MUL) ||
            F->reg[J->d] != T_INT || (J->a == I->d) == (J->b == I->d) || K->op != OP_RET ||
            K->a != J->d || target[at + 1] || target[at + 2])
            continue;
        if (found != UINT32_MAX && f->code[found + 1].op != J->op) {
            free(target);
            return UINT32_MAX; /* a sum here, a product there: neither */
        }
        bool read_elsewhere = false; /* the call's result, read by J alone */
        for (uint32_t k = 0; k < f->n_code; k++) {
            const FxInstr *X = &f->code[k];
            if (k != at + 1 && X->op != OP_CONST && X->op != OP_UNIT &&
                (X->a == I->d || X->b == I->d || (X->op == OP_BR && X->d == I->d) ||
                 ((X->op == OP_JMPF || X->op == OP_JMPT || X->op == OP_BRK) && X->d == I->d)))
                read_elsewhere = true;
        }
        if (!read_elsewhere)
            found = at;
    }
    free(target);
    return found;
}

/* The registers an instruction reads (at most 4 listed; a call's and a
 * record's operands through *base and *n). */
uint32_t fx_cgen_reads(const FxInstr *I, const FxFunc *f, uint32_t *r, uint32_t *base, uint32_t *n)
{
    *n = 0;
    switch ((FxOpcode)I->op) {
    case OP_MOVE: case OP_NEG: case OP_NOT: case OP_ADDK: case OP_SUBK: case OP_CMPK:
    case OP_RET: case OP_PUSH: case OP_FIELD: case OP_LEN:
        r[0] = I->a; return 1;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_IDIV: case OP_MOD: case OP_POW:
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_INDEX:
    case OP_INDEXF: case OP_CONCAT:
        r[0] = I->a; r[1] = I->b; return 2;
    case OP_MINMAX: r[0] = I->a; r[1] = I->d; return 2;
    case OP_BRK: case OP_JMPF: case OP_JMPT: case OP_INC: r[0] = I->d; return 1;
    case OP_BR: case OP_FORI: case OP_FORL: r[0] = I->d; r[1] = I->b; return 2;
    case OP_CALL: case OP_BUILTIN: *base = I->b; *n = I->c; return 0;
    case OP_RECORD: case OP_LIST: *base = I->a; *n = I->b; return 0;
    case OP_BUILTINR: {
        uint32_t k = 0;
        for (uint32_t j = 0; j < I->tb; j++) {
            const FxValue *v;
            uint32_t x = fx_cgen_operand(I, j, &v, f);
            if (!v)
                r[k++] = x;
        }
        return k;
    }
    default: return 0;
    }
}

void fx_cgen_analyse(Func *F)
{
    mark_views(F);
    find_live(F);
    find_owners(F);
    mark_maps(F);
}
