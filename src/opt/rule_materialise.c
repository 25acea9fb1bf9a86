/*
 * rule_materialise.c: see rule_materialise.h.
 */
#include "rule_materialise.h"

#include <string.h>

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
