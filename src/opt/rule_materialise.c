/*
 * rule_materialise.c: see rule_materialise.h.
 */
#include "rule_materialise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

static bool key_type(FxTypeId t)
{
    return fx_typeid_is_integer(t) || fx_typeid_kind(t) == FX_TK_BOOL;
}

bool fx_rule_materialise_applies(const FxGraph *g, bool reads_data, const FxAnalysis *a,
                                 const char **why)
{
    if (!reads_data) {
        *why = "it reads no data source";
        return false;
    }
    bool ok = g->n_params > 0;
    for (uint32_t i = 0; ok && i < g->n_params; i++)
        ok = key_type(g->param_tids[i]);
    if (!ok) {
        *why = "a parameter is not an integer or a boolean";
        return false;
    }
    if (a->n_hot == 0 || a->hot_share < 0.5) {
        *why = "no input recurs in half of the newest runs";
        return false;
    }
    return true;
}

bool fx_rule_materialise_has_all(const FxGraph *g, uint32_t n, const char *const *rows)
{
    for (uint32_t r = 0; r < n; r++) {
        bool found = false;
        for (uint32_t t = 0; !found && t < g->n_materialised; t++) {
            found = true;
            for (uint32_t i = 0; found && i < g->n_params; i++)
                found = !strcmp(rows[r * g->n_params + i], g->materialised[t * g->n_params + i]);
        }
        if (!found)
            return false;
    }
    return true;
}

FxGraph *fx_rule_materialise_candidate(const FxGraph *g, uint32_t n, const char *const *rows,
                                       const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    fx_graph_set_materialised(c, n, rows);
    return c;
}

/* ---- the rule (rule.h) ---- */

/* The recurring inputs' argument texts: n rows of n_params. */
typedef struct KeptRows {
    char **rows;
    uint32_t n;
} KeptRows;

static bool materialise_applies(FxRuleRun *r, FxBuf *why)
{
    const char *w;
    bool reads = r->host->reads_data(r->host->ctx, r->current);
    bool applies = fx_rule_materialise_applies(r->current, reads, r->an, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxGraph *materialise_candidate(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    uint32_t np = g->n_params;
    KeptRows *k = r->state = fx_xcalloc(1, sizeof(*k));
    k->rows = fx_xcalloc((size_t)r->an->n_hot * np + 1, sizeof(char *));
    for (uint32_t h = 0; h < r->an->n_hot; h++)
        k->n += fx_rule_hot_arguments(r, h, k->rows + (size_t)k->n * np);
    const char *const *rows = (const char *const *)k->rows;
    if (k->n == 0)
        fx_buf_puts(why, "the recurring inputs are not integers or booleans");
    else if (fx_rule_materialise_has_all(g, k->n, rows))
        fx_buf_puts(why, "the recurring inputs' results are materialised already");
    else
        return fx_rule_materialise_candidate(g, k->n, rows, r->label);
    return NULL;
}

/* The best of three second runs of EXPR, each in a runtime of its own. */
static double best_second_time(const FxRuleHost *h, const FxGraph *g, const char *expr)
{
    double best = -1;
    for (int i = 0; i < 3; i++) {
        double t = h->second_time(h->ctx, g, expr);
        if (t >= 0 && (best < 0 || t < best))
            best = t;
    }
    return best;
}

/* Timed on the hottest inputs, asked a second time: a kept result against
 * a computation. */
static bool materialise_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence,
                                    FxBuf *why)
{
    const FxGraph *g = r->current;
    const KeptRows *k = r->state;
    double before = 0, after = 0;
    uint32_t measured = k->n < 4 ? k->n : 4;
    for (uint32_t i = 0; i < measured; i++) {
        char *call = fx_rule_call_text(g, k->rows + (size_t)i * g->n_params);
        before += fmax(best_second_time(r->host, g, call), 0);
        after += fmax(best_second_time(r->host, cand, call), 1e-6);
        free(call);
    }
    double gain = before / after, saved = (before - after) / measured;
    if (gain < FX_RULE_MIN_GAIN || saved < FX_RULE_MIN_SAVING_MS) {
        fx_buf_printf(why, "a kept result is predicted %.2gx faster on a call asked again, "
                      "saving %.3g ms (it must be %gx and %g ms)", gain, saved,
                      FX_RULE_MIN_GAIN, FX_RULE_MIN_SAVING_MS);
        return false;
    }
    FxBuf list = {0};
    fx_graph_print_materialised(cand, &list);
    fx_buf_printf(evidence, "{\"window\": %zu, \"recurring\": %u, \"share\": %.2f, "
                  "\"materialised\": ", r->an->window, r->an->n_hot, r->an->hot_share);
    fx_rule_json_string(fx_buf_str(&list) + 16, evidence);
    fx_buf_printf(evidence, ", \"asked_again_ms\": %.4g, \"kept_ms\": %.4g, "
                  "\"predicted_gain\": %.3g}", before, after, gain);
    fx_buf_free(&list);
    return true;
}

static FxProof *materialise_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_printf(effect, "the nodes are %s's; a result is kept only with the stamps (size, "
                  "modification and change times) of the data files it was computed from, and "
                  "a changed file drops it, so a kept result is the nodes' value over the same "
                  "data", r->current->version);
    return fx_prove_same_function(r->current, cand, NULL, NULL, r->host->proof_cache, 5000);
}

static void materialise_release(FxRuleRun *r)
{
    KeptRows *k = r->state;
    if (!k)
        return;
    for (size_t i = 0; i < (size_t)r->an->n_hot * r->current->n_params; i++)
        free(k->rows[i]);
    free(k->rows);
    free(k);
}

const FxRule fx_rule_materialise = {"materialised results", materialise_applies,
                                    materialise_candidate, materialise_measurement,
                                    materialise_obligations, materialise_release};
