/*
 * rule_dce.c: see rule_dce.h.
 *
 * DESIGN. Inputs have smaller ids than their users, so one walk from the
 * last node down to the first marks everything the root reaches: when the
 * walk arrives at a node, every user of it has been seen. A second walk
 * upwards copies the marked nodes in their order, mapping old ids to new.
 * Lazy inputs are followed like any other: a branch that may run is alive,
 * and one that can never run is no longer an input of anything once
 * folding has replaced its `if` (rule_fold.c).
 *
 * Nothing is evaluated differently afterwards: the compiler (exec/compile.c)
 * walks from the root and never looks at a node the root does not reach,
 * and every surviving node keeps its inputs, attributes and origin.
 * Binder slots are not renumbered; a slot whose binder died stays unused.
 */
#include "rule_dce.h"

#include <stdlib.h>
#include <string.h>

FxGraph *fx_rule_new_version(const FxGraph *g, const char *label)
{
    FxGraph *c = fx_graph_new(g->intent, label);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_graph_add_param(c, g->param_names[i], g->param_types[i]);
    c->n_slots = g->n_slots;
    fx_graph_set_ret_type(c, g->ret_type);
    fx_graph_copy_kernel(c, g);
    return c;
}

FxNodeId fx_rule_copy_node(FxGraph *into, const FxNode *n, const FxNodeId *map)
{
    FxNodeId small[8] = {{0}}, *in = small;
    if (n->n_inputs > FX_ARRAY_LEN(small)) /* a call or a list with many arguments */
        in = fx_xmalloc(n->n_inputs * sizeof(FxNodeId));
    for (uint32_t k = 0; k < n->n_inputs; k++)
        in[k] = map[n->inputs[k].v];
    FxNodeId id = fx_graph_add(into, n->op, n->type, in, n->n_inputs, n->origin);
    if (in != small)
        free(in);
    FxNode *m = fx_graph_node(into, id);
    m->text = fx_graph_intern(into, n->text);
    m->num = n->num;
    m->num2 = n->num2;
    return id;
}

FxGraph *fx_rule_dce(const FxGraph *g, const char *label)
{
    bool *alive = fx_xcalloc(g->n_nodes + 1, sizeof(bool));
    uint32_t n_alive = 0;
    alive[g->root.v] = true;
    for (uint32_t i = g->n_nodes; i >= 1; i--) {
        if (!alive[i])
            continue;
        n_alive++;
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        for (uint32_t k = 0; k < n->n_inputs; k++)
            alive[n->inputs[k].v] = true; /* alive[0], "no input", is never read */
    }
    if (n_alive == g->n_nodes) {
        free(alive);
        return NULL;
    }
    FxGraph *c = fx_rule_new_version(g, label);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId)); /* map[0] = {0}: none */
    for (uint32_t i = 1; i <= g->n_nodes; i++)
        if (alive[i])
            map[i] = fx_rule_copy_node(c, fx_graph_node(g, (FxNodeId){i}), map);
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    free(alive);
    return c;
}
