/*
 * rule.c: see rule.h: the steps several rules share.
 */
#include "rule.h"

#include <stdlib.h>
#include <string.h>

void fx_rule_json_string(const char *s, FxBuf *out)
{
    FxValue v = fx_val_string(s, strlen(s));
    fx_val_print_json(v, out);
    fx_value_release(v);
}

void fx_rule_expr_json(const char *expr, FxBuf *out)
{
    size_t len = strlen(expr);
    char *cut = len > 120 ? fx_xasprintf("%.100s...", expr) : NULL;
    fx_rule_json_string(cut ? cut : expr, out); /* EXPR may hold quotes: strings */
    free(cut);
}

bool fx_rule_measured_gain(FxRuleRun *r, const FxGraph *cand, const char *extra,
                           FxBuf *evidence, FxBuf *why)
{
    const FxRuleHost *h = r->host;
    double before = h->best_time(h->ctx, r->current, r->expr);
    double after = h->best_time(h->ctx, cand, r->expr);
    double gain = before > 0 && after > 0 ? before / after : 0;
    if (gain < FX_RULE_MIN_GAIN || before - after < FX_RULE_MIN_SAVING_MS) {
        fx_buf_printf(why, "`%.60s%s` measured %.3g ms with the rewrite against %.3g ms (a "
                      "gain must be %gx and %g ms)", r->expr, strlen(r->expr) > 60 ? "..." : "",
                      after, before, FX_RULE_MIN_GAIN, FX_RULE_MIN_SAVING_MS);
        return false;
    }
    fx_buf_puts(evidence, "{\"expr\": ");
    fx_rule_expr_json(r->expr, evidence);
    fx_buf_printf(evidence, ", %s\"measured_ms\": %.4g, \"candidate_ms\": %.4g, "
                  "\"predicted_gain\": %.3g}", extra ? extra : "", before, after, gain);
    return true;
}

/* A table cell from an input's JSON field: an integer or a boolean. */
static char *cell_of(const FxRuleHost *h, const char *input, const char *param)
{
    char *raw = h->json_field(input, param);
    if (!raw)
        return NULL;
    if (fx_is_decimal(raw) || !strcmp(raw, "true") || !strcmp(raw, "false"))
        return raw;
    free(raw);
    return NULL;
}

bool fx_rule_hot_arguments(const FxRuleRun *r, uint32_t h, char **row)
{
    const FxGraph *g = r->current;
    bool ok = true;
    for (uint32_t i = 0; ok && i < g->n_params; i++)
        ok = (row[i] = cell_of(r->host, r->an->hot[h].example->input, g->param_names[i])) !=
             NULL;
    for (uint32_t i = 0; !ok && i < g->n_params; i++) {
        free(row[i]);
        row[i] = NULL;
    }
    return ok;
}

char *fx_rule_call_text(const FxGraph *g, char *const *row)
{
    FxBuf b = {0};
    fx_buf_printf(&b, "%s(", g->intent);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(&b, "%s%s", i ? ", " : "", row[i]);
    fx_buf_putc(&b, ')');
    return fx_buf_take(&b);
}
