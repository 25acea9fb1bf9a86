/*
 * proposer_store.c: the learned proposer's state in the store's learned
 * table, as one JSON object (proposer_store.h):
 *   {"dim": 21, "total": R, "pulls": N,
 *    "arms": [{"name", "pulls", "total", "A": [D*D], "b": [D]}],
 *    "history": [{"arm", "intent", "what", "reward"}],
 *    "pending": [{"arm", "lineage", "version", "x": [D], "reward"}]}
 * Two processes that learn at once each write their whole state; the last
 * one wins, and the other's few pulls are lost: a bandit forgives that.
 */
#include "proposer_store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D FX_PROPOSER_DIM

static json_t *numbers(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static bool read_numbers(json_t *a, double *v, size_t n)
{
    if (!json_is_array(a) || json_array_size(a) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_number(e))
            return false;
        v[i] = json_number_value(e);
    }
    return true;
}

static bool read_text(json_t *o, const char *key, char *out, size_t cap)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || strlen(s) >= cap)
        return false;
    memcpy(out, s, strlen(s) + 1);
    return true;
}

static bool parse(const char *text, FxProposer *p)
{
    json_t *j = json_loads(text, 0, NULL);
    bool ok = json_is_object(j) && json_integer_value(json_object_get(j, "dim")) == D;
    size_t i;
    json_t *e;
    json_array_foreach(ok ? json_object_get(j, "arms") : NULL, i, e)
    {
        FxArm a = {0};
        ok = ok && read_text(e, "name", a.name, sizeof(a.name)) &&
             read_numbers(json_object_get(e, "A"), a.A, D * D) &&
             read_numbers(json_object_get(e, "b"), a.b, D);
        a.pulls = (uint32_t)json_integer_value(json_object_get(e, "pulls"));
        a.total = json_number_value(json_object_get(e, "total"));
        if (ok)
            fx_vec_push(&p->arms, a);
    }
    json_array_foreach(ok ? json_object_get(j, "history") : NULL, i, e)
    {
        FxReward r = {.reward = json_number_value(json_object_get(e, "reward"))};
        ok = ok && read_text(e, "arm", r.arm, sizeof(r.arm)) &&
             read_text(e, "intent", r.intent, sizeof(r.intent)) &&
             read_text(e, "what", r.what, sizeof(r.what));
        if (ok)
            fx_vec_push(&p->history, r);
    }
    json_array_foreach(ok ? json_object_get(j, "pending") : NULL, i, e)
    {
        FxPending q = {.lineage = json_integer_value(json_object_get(e, "lineage")),
                       .reward = json_number_value(json_object_get(e, "reward"))};
        ok = ok && read_text(e, "arm", q.arm, sizeof(q.arm)) &&
             read_text(e, "version", q.version, sizeof(q.version)) &&
             read_numbers(json_object_get(e, "x"), q.x, D);
        if (ok)
            fx_vec_push(&p->pending, q);
    }
    if (ok) {
        p->total = json_number_value(json_object_get(j, "total"));
        p->pulls = (uint32_t)json_integer_value(json_object_get(j, "pulls"));
    }
    json_decref(j);
    return ok;
}

void fx_api_proposer_load(FluxStore *fs, FxProposer *out)
{
    *out = (FxProposer){0};
    char *text = NULL;
    if (fx_store_learned(fs->store, FX_PROPOSER_KIND, FX_PROPOSER_KEY, "", &text, NULL) != FX_OK)
        fprintf(stderr, "flux: warning: the learned proposer's state could not be read (%s); "
                        "starting from the table's order\n",
                fx_store_error(fs->store));
    else if (text && !parse(text, out)) {
        fprintf(stderr, "flux: warning: the learned proposer's state in the store does not "
                        "parse; ignored, starting from the table's order\n");
        fx_proposer_free(out);
    }
    free(text);
}

FxStatus fx_api_proposer_save(FluxStore *fs, const FxProposer *p)
{
    json_t *j = json_object(), *arms = json_array(), *history = json_array(),
           *pending = json_array();
    json_object_set_new(j, "dim", json_integer(D));
    json_object_set_new(j, "total", json_real(p->total));
    json_object_set_new(j, "pulls", json_integer(p->pulls));
    fx_vec_foreach(const FxArm, a, &p->arms)
    {
        json_array_append_new(arms, json_pack("{s:s, s:I, s:f, s:o, s:o}", "name", a->name,
                                              "pulls", (json_int_t)a->pulls, "total", a->total,
                                              "A", numbers(a->A, D * D), "b", numbers(a->b, D)));
    }
    fx_vec_foreach(const FxReward, r, &p->history)
    {
        json_array_append_new(history, json_pack("{s:s, s:s, s:s, s:f}", "arm", r->arm, "intent",
                                                 r->intent, "what", r->what, "reward",
                                                 r->reward));
    }
    fx_vec_foreach(const FxPending, q, &p->pending)
    {
        json_array_append_new(pending,
                              json_pack("{s:s, s:I, s:s, s:o, s:f}", "arm", q->arm, "lineage",
                                        (json_int_t)q->lineage, "version", q->version, "x",
                                        numbers(q->x, D), "reward", q->reward));
    }
    json_object_set_new(j, "arms", arms);
    json_object_set_new(j, "history", history);
    json_object_set_new(j, "pending", pending);
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(10));
    FxStatus s = fx_store_set_learned(fs->store, FX_PROPOSER_KIND, FX_PROPOSER_KEY, "", text,
                                      strlen(text));
    free(text);
    json_decref(j);
    return s;
}

typedef struct Hot {
    const FxGraph *g;
    FxHotOps *out;
    double all;
} Hot;

static void count_op(void *ctx, uint32_t node, uint64_t count, uint64_t ns)
{
    (void)ns;
    Hot *h = ctx;
    FxNodeOp op = fx_api_counted_work(h->g, node);
    if (op == FX_NODE_CONST)
        return;
    h->all += (double)count;
    if (op == FX_NODE_CALL)
        h->out->calls += (double)count;
    else if (op == FX_NODE_FOLD || op == FX_NODE_MAP || op == FX_NODE_GROUP)
        h->out->loops += (double)count;
    else if (op == FX_NODE_SORT)
        h->out->sorts += (double)count;
}

void fx_api_proposer_hot(FluxStore *fs, int64_t version, const FxGraph *g, size_t runs,
                         FxHotOps *out)
{
    *out = (FxHotOps){0};
    Hot h = {g, out, 0};
    if (fx_store_node_counts(fs->store, version, count_op, &h) != FX_OK || h.all == 0) {
        *out = (FxHotOps){0};
        return;
    }
    out->calls_per_run = runs ? out->calls / (double)runs : 0;
    out->calls /= h.all;
    out->loops /= h.all;
    out->sorts /= h.all;
}
