/*
 * check_memo.c: the solver's part of a check, remembered (check_memo.h).
 *
 * A memo is JSON: an array with one entry per intent of the program, in
 * module order (null for an intent the solver did not look at):
 *
 *     {"v": [[VERDICT, REASON or null], ... one per property],
 *      "d": [[LEVEL, MODULE, OFFSET, LEN, MESSAGE, [[MODULE, OFFSET, LEN,
 *             MESSAGE], ... its notes]], ... the solver's diagnostics]}
 *
 * MODULE is the index of a span's source among prog->modules (-1: no
 * position). Replaying an entry sets the verdicts and reports the
 * diagnostics again, at the point of the check where the solver would have
 * reported them, so that the output is the same. A recalled memo is used
 * only when all of it fits the program (an entry per intent, a verdict per
 * property, every span inside its source): a text that does not (a
 * damaged row) is as good as none, and the solver runs. An intent whose
 * entry is null is given to the solver too.
 */
#include "check_memo.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "check.h"

struct FxCheckMemo {
    json_t *entries;
    bool recalled;
    bool broken; /* a diagnostic had a span outside the program's sources */
};

/* Two 64-bit lanes, FNV-1a and FNV-1, over the same bytes: a key stays
 * cheap to compute and two sources that differ collide in both lanes
 * only by accident (it is not a defence against a forged store). */
typedef struct {
    uint64_t a, b;
} Key;

static void fold(Key *k, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        k->a = fx_fnv_step(k->a, p[i]);
        k->b = (k->b * FX_FNV_PRIME) ^ p[i];
    }
}

static void fold_str(Key *k, const char *s)
{
    fold(k, s, strlen(s) + 1);
}

void fx_check_memo_key(const FxProgram *prog, const FxCheckOptions *options, char out[33])
{
    Key k = {FX_FNV_BASIS, FX_FNV_BASIS};
    fold_str(&k, "flux check memo 1");
    fold_str(&k, options->salt ? options->salt : "");
    uint64_t timeout = options->smt_timeout_ms;
    fold(&k, &timeout, sizeof(timeout));
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        uint64_t len = (*m)->src->len;
        fold_str(&k, (*m)->src->path);
        fold(&k, &len, sizeof(len));
        fold(&k, (*m)->src->text, (*m)->src->len);
    }
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)k.a, (unsigned long long)k.b);
}

/* ---- spans ---- */

static int module_of(const FxProgram *prog, const FxSource *src)
{
    for (size_t i = 0; src && i < prog->modules.len; i++)
        if (prog->modules.data[i]->src == src)
            return (int)i;
    return src ? -2 : -1;
}

static bool span_fits(const FxProgram *prog, json_t *module, json_t *offset, json_t *len)
{
    if (!json_is_integer(module) || !json_is_integer(offset) || !json_is_integer(len))
        return false;
    json_int_t m = json_integer_value(module), o = json_integer_value(offset),
               n = json_integer_value(len);
    if (m < -1 || m >= (json_int_t)prog->modules.len || o < 0 || n < 0)
        return false;
    return m == -1 || (size_t)(o + n) <= prog->modules.data[m]->src->len;
}

static FxSpan span_of(const FxProgram *prog, json_t *a, size_t at)
{
    json_int_t m = json_integer_value(json_array_get(a, at));
    FxSpan s = {m < 0 ? NULL : prog->modules.data[m]->src,
                (uint32_t)json_integer_value(json_array_get(a, at + 1)),
                (uint32_t)json_integer_value(json_array_get(a, at + 2))};
    return s;
}

static json_t *span_json(FxCheckMemo *m, const FxProgram *prog, FxSpan s)
{
    int module = module_of(prog, s.src);
    m->broken |= module < -1;
    return json_pack("[iii]", module, (int)s.offset, (int)s.len);
}

/* ---- checking that a recalled memo fits ---- */

static bool note_fits(const FxProgram *prog, json_t *n)
{
    return json_is_array(n) && json_array_size(n) == 4 &&
           span_fits(prog, json_array_get(n, 0), json_array_get(n, 1), json_array_get(n, 2)) &&
           json_is_string(json_array_get(n, 3));
}

static bool diag_fits(const FxProgram *prog, json_t *d)
{
    if (!json_is_array(d) || json_array_size(d) != 6)
        return false;
    json_t *level = json_array_get(d, 0), *notes = json_array_get(d, 5);
    if (!json_is_integer(level) || (json_integer_value(level) != FX_DIAG_ERROR &&
                                    json_integer_value(level) != FX_DIAG_WARNING) ||
        !span_fits(prog, json_array_get(d, 1), json_array_get(d, 2), json_array_get(d, 3)) ||
        !json_is_string(json_array_get(d, 4)) || !json_is_array(notes))
        return false;
    size_t i;
    json_t *n;
    json_array_foreach(notes, i, n) if (!note_fits(prog, n)) return false;
    return true;
}

static bool entry_fits(const FxProgram *prog, const FxIntent *in, json_t *e)
{
    if (json_is_null(e)) /* an intent the solver did not look at */
        return true;
    json_t *v = json_object_get(e, "v"), *d = json_object_get(e, "d");
    if (!json_is_array(v) || json_array_size(v) != in->properties.len || !json_is_array(d))
        return false;
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x)
    {
        json_t *verdict = json_array_get(x, 0), *reason = json_array_get(x, 1);
        if (!json_is_array(x) || json_array_size(x) != 2 || !json_is_integer(verdict) ||
            json_integer_value(verdict) < FX_VERDICT_UNCHECKED ||
            json_integer_value(verdict) > FX_VERDICT_FALSE ||
            !(json_is_string(reason) || json_is_null(reason)))
            return false;
    }
    json_array_foreach(d, i, x) if (!diag_fits(prog, x)) return false;
    return true;
}

static size_t count_intents(const FxProgram *prog)
{
    size_t n = 0;
    fx_vec_foreach(FxModule *, m, &prog->modules) n += (*m)->intents.len;
    return n;
}

static bool memo_fits(const FxProgram *prog, json_t *entries)
{
    size_t index = 0;
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxIntent *, in, &(*m)->intents)
        {
            if (!entry_fits(prog, *in, json_array_get(entries, index++)))
                return false;
        }
    }
    return json_is_array(entries) && json_array_size(entries) == index;
}

FxCheckMemo *fx_check_memo_new(const FxProgram *prog, const char *text)
{
    FxCheckMemo *m = fx_xcalloc(1, sizeof(*m));
    json_t *recalled = text ? json_loads(text, 0, NULL) : NULL;
    if (recalled && memo_fits(prog, recalled)) {
        m->entries = recalled;
        m->recalled = true;
    } else {
        json_decref(recalled);
        m->entries = json_array();
        for (size_t i = count_intents(prog); i > 0; i--)
            json_array_append_new(m->entries, json_null());
    }
    return m;
}

bool fx_check_memo_recalled(const FxCheckMemo *m)
{
    return m->recalled;
}

/* ---- replaying and recording ---- */

static void replay(FxProgram *prog, FxIntent *in, json_t *e)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(e, "v"), i, x)
    {
        FxProperty *pr = in->properties.data[i];
        json_t *reason = json_array_get(x, 1);
        pr->verdict = (FxVerdict)json_integer_value(json_array_get(x, 0));
        pr->reason = reason ? fx_arena_strdup(&prog->arena, json_string_value(reason)) : NULL;
    }
    json_array_foreach(json_object_get(e, "d"), i, x)
    {
        FxSpan span = span_of(prog, x, 1);
        const char *msg = json_string_value(json_array_get(x, 4));
        FxDiagItem *it = json_integer_value(json_array_get(x, 0)) == FX_DIAG_ERROR
                                 ? fx_diag_error(prog->diag, span, "%s", msg)
                                 : fx_diag_warning(prog->diag, span, "%s", msg);
        size_t j;
        json_t *n;
        json_array_foreach(json_array_get(x, 5), j, n)
                fx_diag_note(prog->diag, it, span_of(prog, n, 0), "%s",
                             json_string_value(json_array_get(n, 3)));
    }
}

static json_t *record(FxCheckMemo *m, const FxProgram *prog, const FxIntent *in, size_t first)
{
    json_t *v = json_array(), *d = json_array();
    fx_vec_foreach(FxProperty *, pp, &in->properties)
            json_array_append_new(v, json_pack("[is?]", (int)(*pp)->verdict, (*pp)->reason));
    for (size_t i = first; i < prog->diag->items.len; i++) {
        const FxDiagItem *it = prog->diag->items.data[i];
        json_t *item = span_json(m, prog, it->span), *notes = json_array();
        json_array_insert_new(item, 0, json_integer(it->level));
        json_array_append_new(item, json_string(it->message));
        for (const FxDiagItem *n = it->notes; n; n = n->next_note) {
            json_t *note = span_json(m, prog, n->span);
            json_array_append_new(note, json_string(n->message));
            json_array_append_new(notes, note);
        }
        json_array_append_new(item, notes);
        json_array_append_new(d, item);
    }
    return json_pack("{s:o, s:o}", "v", v, "d", d);
}

void fx_check_memo_solve(FxCheckMemo *m, FxProgram *prog, size_t index, FxIntent *in,
                         const FxCheckOptions *options)
{
    json_t *e = json_array_get(m->entries, index);
    if (m->recalled && !json_is_null(e)) {
        replay(prog, in, e);
        return;
    }
    size_t first = prog->diag->items.len;
    fx_check_intent_smt(prog, in, options); /* and a recalled memo without it is not kept */
    if (!m->recalled)
        json_array_set_new(m->entries, index, record(m, prog, in, first));
}

char *fx_check_memo_text(const FxCheckMemo *m)
{
    return m->recalled || m->broken ? NULL : json_dumps(m->entries, JSON_COMPACT);
}

void fx_check_memo_free(FxCheckMemo *m)
{
    if (!m)
        return;
    json_decref(m->entries);
    free(m);
}
