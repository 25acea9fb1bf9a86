/*
 * rule_hot.c: see rule_hot.h.
 */
#include "rule_hot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

static bool scalar(FxTypeId t)
{
    return fx_typeid_is_integer(t) || fx_typeid_kind(t) == FX_TK_BOOL;
}

bool fx_rule_hot_applies(const FxGraph *g, bool reads_data, const FxAnalysis *a,
                         const char **why)
{
    if (reads_data) {
        *why = "it reads a data source, which can change: its results are materialised instead";
        return false;
    }
    bool ok = scalar(g->ret_tid) && g->n_params > 0;
    for (uint32_t i = 0; ok && i < g->n_params; i++)
        ok = scalar(g->param_tids[i]);
    if (!ok) {
        *why = "a parameter or the result is not an integer or a boolean";
        return false;
    }
    if (a->n_hot == 0 || a->hot_share < 0.5) {
        *why = "no input recurs in half of the newest runs";
        return false;
    }
    return true;
}

bool fx_rule_hot_has_all(const FxGraph *g, uint32_t n, const char *const *rows)
{
    uint32_t w = g->n_params + 1;
    for (uint32_t r = 0; r < n; r++) {
        bool found = false;
        for (uint32_t t = 0; !found && t < g->n_table; t++) {
            found = true;
            for (uint32_t i = 0; found && i < g->n_params; i++)
                found = !strcmp(rows[r * g->n_params + i], g->table[t * w + i]);
        }
        if (!found)
            return false;
    }
    return true;
}

FxGraph *fx_rule_hot_candidate(const FxGraph *g, uint32_t n, const char *const *cells,
                               const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    fx_graph_set_table(c, n, cells);
    return c;
}

/* ---- the rule (rule.h) ---- */

/* The recurring inputs whose results could be computed: n rows of
 * n_params argument texts then the result's text. */
typedef struct HotRows {
    char **cells;
    uint32_t n;
} HotRows;

static bool hot_applies(FxRuleRun *r, FxBuf *why)
{
    const char *w;
    bool reads = r->host->reads_data(r->host->ctx, r->current);
    bool applies = fx_rule_hot_applies(r->current, reads, r->an, &w);
    if (!applies)
        fx_buf_puts(why, w);
    return applies;
}

static FxValue value_of(const char *cell)
{
    return !strcmp(cell, "true")    ? fx_val_bool(true)
           : !strcmp(cell, "false") ? fx_val_bool(false)
                                    : fx_val_int_text(cell);
}

/* Row h's arguments and their result by the running version (proved equal
 * to v1), an integer or a boolean; false with the row cleared otherwise. */
static bool hot_row(FxRuleRun *r, uint32_t h, char **row, FxValue *args)
{
    const FxGraph *g = r->current;
    uint32_t np = g->n_params;
    bool ok = fx_rule_hot_arguments(r, h, row);
    FxValue v = {0};
    for (uint32_t i = 0; i < np; i++)
        args[i] = ok ? value_of(row[i]) : fx_val_int(0);
    bool computed = ok && r->host->value(r->host->ctx, g, args, &v);
    ok = computed && (fx_val_is_integer(v) || v.kind == FX_VAL_BOOL);
    if (ok) {
        FxBuf text = {0};
        fx_val_print(v, &text);
        row[np] = fx_buf_take(&text);
    } else {
        for (uint32_t i = 0; i <= np; i++) {
            free(row[i]);
            row[i] = NULL;
        }
    }
    if (computed)
        fx_value_release(v);
    for (uint32_t i = 0; i < np; i++)
        fx_value_release(args[i]);
    return ok;
}

static FxGraph *hot_candidate(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    uint32_t np = g->n_params, w = np + 1;
    HotRows *t = r->state = fx_xcalloc(1, sizeof(*t));
    t->cells = fx_xcalloc((size_t)r->an->n_hot * w + 1, sizeof(char *));
    const char **args_only = fx_xcalloc((size_t)r->an->n_hot * np + 1, sizeof(char *));
    FxValue *args = fx_xcalloc(np + 1, sizeof(FxValue));
    for (uint32_t h = 0; h < r->an->n_hot; h++) {
        char **row = t->cells + (size_t)t->n * w;
        if (!hot_row(r, h, row, args))
            continue;
        for (uint32_t i = 0; i < np; i++)
            args_only[(size_t)t->n * np + i] = row[i];
        t->n++;
    }
    FxGraph *cand = NULL;
    if (t->n == 0)
        fx_buf_puts(why, "the recurring inputs' results could not be computed");
    else if (fx_rule_hot_has_all(g, t->n, args_only))
        fx_buf_puts(why, "the table holds the recurring inputs already");
    else
        cand = fx_rule_hot_candidate(g, t->n, (const char *const *)t->cells, r->label);
    free(args_only);
    free(args);
    return cand;
}

/* Timed on the hottest inputs: a lookup against a computation. */
static bool hot_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    const FxRuleHost *h = r->host;
    const FxGraph *g = r->current;
    const HotRows *t = r->state;
    double before = 0, after = 0;
    for (uint32_t i = 0; i < t->n && i < 4; i++) {
        char *call = fx_rule_call_text(g, t->cells + (size_t)i * (g->n_params + 1));
        before += fmax(h->best_time(h->ctx, g, call), 0);
        after += fmax(h->best_time(h->ctx, cand, call), 1e-6);
        free(call);
    }
    double gain = before / after, saved = (before - after) / (t->n < 4 ? t->n : 4);
    if (gain < FX_RULE_MIN_GAIN || saved < FX_RULE_MIN_SAVING_MS) {
        fx_buf_printf(why, "a table lookup is predicted %.2gx faster, saving %.3g ms a call (it "
                      "must be %gx and %g ms)", gain, saved, FX_RULE_MIN_GAIN,
                      FX_RULE_MIN_SAVING_MS);
        return false;
    }
    FxBuf table = {0};
    fx_graph_print_table(cand, &table);
    fx_buf_printf(evidence, "{\"window\": %zu, \"recurring\": %u, \"share\": %.2f, \"table\": ",
                  r->an->window, r->an->n_hot, r->an->hot_share);
    fx_rule_json_string(fx_buf_str(&table) + 9, evidence);
    fx_buf_printf(evidence, ", \"measured_ms\": %.4g, \"table_ms\": %.4g, "
                  "\"predicted_gain\": %.3g}", before, after, gain);
    fx_buf_free(&table);
    return true;
}

static FxProof *hot_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_printf(effect, "%s is pure, so the result %s computed for each of the table's %u "
                  "inputs is its result forever", r->intent, r->current->version,
                  ((HotRows *)r->state)->n);
    return fx_prove_same_function(r->current, cand, NULL, NULL, r->host->proof_cache, 5000);
}

static void hot_release(FxRuleRun *r)
{
    HotRows *t = r->state;
    if (!t)
        return;
    for (size_t i = 0; i < (size_t)r->an->n_hot * (r->current->n_params + 1); i++)
        free(t->cells[i]);
    free(t->cells);
    free(t);
}

const FxRule fx_rule_hot = {"hot inputs", hot_applies, hot_candidate, hot_measurement,
                            hot_obligations, hot_release};
