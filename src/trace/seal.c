/*
 * seal.c: the seals of a lineage's versions, computed and judged (seal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "trace/seal.h"

/* Folds one field into h: its bytes, eight at a time as a little-endian
 * word (a run hashes every version's graph: a byte a step took half the
 * time of reading them), then a separator; or a NULL mark. So ("ab", "c")
 * and ("a", "bc") differ, and NULL is not "". */
static uint64_t field(uint64_t h, const char *text)
{
    if (!text)
        return fx_fnv_step(h, 0x100); /* no byte is 0x100 */
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text);
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | p[k];
        h = fx_fnv_step(h, w);
    }
    return fx_fnv_step(fx_fnv1a(h, p, n), 0x1f);
}

static void hex(uint64_t h, char out[17])
{
    for (int i = 15; i >= 0; i--, h >>= 4)
        out[i] = "0123456789abcdef"[h & 15];
    out[16] = '\0';
}

/* The root: v1, the naive graph, which no rewrite made. */
static bool is_root(const FxSealRow *r)
{
    return !r->parent && !r->proof_id && !r->rewrite && r->label && !strcmp(r->label, "v1");
}

/* The index of row id among rows[0..before), or -1. */
static long find(const FxSealRow *rows, size_t before, int64_t id)
{
    for (size_t i = 0; i < before; i++)
        if (rows[i].id == id)
            return (long)i;
    return -1;
}

void fx_seal_lineage(const FxSealRow *rows, size_t n, FxSeal *seals)
{
    for (size_t i = 0; i < n; i++) {
        const FxSealRow *r = &rows[i];
        FxSeal *s = &seals[i];
        memset(s, 0, sizeof(*s));
        hex(field(FX_FNV_BASIS, r->graph_json), s->after);
        long p = r->parent ? find(rows, i, r->parent) : -1;
        const char *parent_chain = p >= 0 ? seals[p].chain : NULL;
        if (p >= 0) /* each graph is hashed once: a run reads them all */
            memcpy(s->before, seals[p].after, sizeof(s->before));
        uint64_t c = field(FX_FNV_BASIS, r->rewrite);
        c = field(c, r->evidence);
        c = field(c, r->obligation);
        hex(field(c, r->result), s->certificate);
        uint64_t h = field(FX_FNV_BASIS, parent_chain);
        h = field(h, r->label);
        h = field(h, p >= 0 ? s->before : NULL);
        h = field(h, s->after);
        hex(field(h, is_root(r) ? NULL : s->certificate), s->chain);
    }
}

static bool same(const char *kept, const char *now)
{
    return kept && !strcmp(kept, now);
}

/* Why row i of n does not verify, or NULL; ok[] says which rows before it do. */
static char *judge_one(const FxSealRow *rows, const FxSeal *seals, size_t n, size_t i,
                       const bool *ok)
{
    const FxSealRow *r = &rows[i];
    const FxSeal *s = &seals[i];
    if (is_root(r))
        return NULL;
    long p = r->parent ? find(rows, i, r->parent) : -1;
    long long id = (long long)r->proof_id;
    if (p < 0)
        return fx_xstrdup("it has no parent version in its lineage, and only v1 has none");
    if (!ok[p])
        return fx_xasprintf("its parent %s is refused", rows[p].label);
    if (!r->proof_id)
        return fx_xasprintf("it is the %s rewrite of %s, and no proof covers it",
                            r->rewrite ? r->rewrite : "unnamed", rows[p].label);
    if (!r->proof_found)
        return fx_xasprintf("its proof #%lld is not in the store", id);
    if (!r->result || strcmp(r->result, "proved") != 0)
        return fx_xasprintf("its proof #%lld is %s, not proved", id,
                            r->result ? r->result : "without a result");
    if (!same(r->after, s->after)) {
        for (size_t j = 0; j < n; j++) /* another version's proof? */
            if (j != i && rows[j].proof_id == r->proof_id && same(r->after, seals[j].after))
                return fx_xasprintf("proof #%lld is the proof of %s, not of it", id,
                                    rows[j].label);
        return fx_xasprintf("its graph does not match proof #%lld, which covers another graph",
                            id);
    }
    if (!same(r->before, s->before))
        return fx_xasprintf("the graph of its parent %s does not match proof #%lld",
                            rows[p].label, id);
    if (!same(r->certificate, s->certificate))
        return fx_xasprintf("its rewrite, evidence or proof text does not match proof #%lld", id);
    if (!same(r->chain, s->chain))
        return fx_xasprintf("the chain of proofs of its lineage does not match proof #%lld", id);
    return NULL;
}

void fx_seal_judge(const FxSealRow *rows, size_t n, char **why)
{
    FxSeal *seals = fx_xcalloc(n ? n : 1, sizeof(*seals));
    bool *ok = fx_xcalloc(n ? n : 1, sizeof(*ok));
    fx_seal_lineage(rows, n, seals);
    for (size_t i = 0; i < n; i++) {
        why[i] = judge_one(rows, seals, n, i, ok);
        ok[i] = !why[i];
    }
    free(ok);
    free(seals);
}
