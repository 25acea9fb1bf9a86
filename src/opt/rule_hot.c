/*
 * rule_hot.c: see rule_hot.h.
 */
#include "rule_hot.h"

#include <string.h>

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
