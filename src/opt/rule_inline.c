/*
 * rule_inline.c: inline expansion: a call of a small intent that calls
 * nothing becomes the callee's nodes, its parameters read as the call's
 * arguments, so the call's frame, argument passing and return go. In
 * `sumsq(n) = sumsq(n-1) + sq(n) - sq(n-1)` with `sq(x) = x * x` each level
 * of the recursion makes one call instead of three.
 *
 * The rule matches structure: every call of an intent (not the caller
 * itself) whose graph has at most MAX_NODES nodes, binds no variable, calls
 * nothing and cannot fail by itself (no uncovered case, data source or
 * choice), and whose parameters take the arguments' types as they are (an
 * Int parameter takes a Natural too; a Natural one only a Natural: the call
 * would otherwise check the sign). It proposes what the prover decides: the
 * caller and the callee compute integers and booleans only, without
 * loops. The prover sees the callee through the round's lookup and encodes
 * it in place of the call (fx_prove_same_function), so validity,
 * definedness and termination are proved as for any rewrite; the gain is
 * measured on the newest EXPR.
 */
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "rule_dce.h"

#define REWRITE "inline expansion"
#define MAX_NODES 32 /* a larger body repeated at every call site costs more than the call */

static bool scalar(FxTypeId t)
{
    return fx_typeid_is_integer(t) || fx_typeid_kind(t) == FX_TK_BOOL;
}

/* Integers and booleans, computed without a loop: what the prover encodes. */
static bool plain(const FxGraph *g)
{
    for (uint32_t i = 0; i < g->n_params; i++)
        if (!scalar(g->param_tids[i]))
            return false;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        switch (n->op) {
        case FX_NODE_FOLD: case FX_NODE_MAP: case FX_NODE_SORT: case FX_NODE_GROUP:
        case FX_NODE_LET: case FX_NODE_DATA: case FX_NODE_CHOOSE:
            return false;
        default:
            if (!scalar(n->tid))
                return false;
        }
    }
    return scalar(g->ret_tid) && !g->kernel && !g->n_table && !g->n_materialised;
}

/* The graph of the intent call n calls when it may be inlined, or NULL. */
static const FxGraph *inlinable(const FxRuleRun *r, const FxGraph *g, const FxNode *n)
{
    if (n->op != FX_NODE_CALL || !strcmp(n->text, g->intent))
        return NULL;
    const FxGraph *callee = r->host->lower(r->host->ctx, n->text);
    if (!callee || callee->n_nodes > MAX_NODES || callee->n_slots != callee->n_params ||
        callee->n_params != n->n_inputs || n->n_inputs > 16 || !plain(callee))
        return NULL;
    for (uint32_t i = 0; i < callee->n_nodes; i++)
        if (callee->nodes[i].op == FX_NODE_CALL || callee->nodes[i].op == FX_NODE_FAIL)
            return NULL;
    for (uint32_t k = 0; k < n->n_inputs; k++) {
        FxTypeIdKind arg = fx_typeid_kind(fx_graph_node(g, n->inputs[k])->tid);
        FxTypeIdKind param = fx_typeid_kind(callee->param_tids[k]);
        if (arg != param && !(param == FX_TK_INT && arg == FX_TK_NATURAL))
            return NULL;
    }
    return callee;
}

static bool inline_applies(FxRuleRun *r, FxBuf *why)
{
    const FxGraph *g = r->current;
    if (!plain(g)) {
        fx_buf_puts(why, "the version computes more than integers and booleans without loops");
        return false;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (inlinable(r, g, &g->nodes[i]))
            return true;
    fx_buf_puts(why, "no call of a small intent that calls nothing");
    return false;
}

/* Appends callee's nodes to c, its parameters read as args (ids in c);
 * returns the id of its result. */
static FxNodeId expand(FxGraph *c, const FxGraph *callee, const FxNodeId *args)
{
    FxNodeId *map = fx_xcalloc(callee->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= callee->n_nodes; i++) {
        const FxNode *n = fx_graph_node(callee, (FxNodeId){i});
        if (n->op == FX_NODE_PARAM || n->op == FX_NODE_VAR) { /* slots are the parameters */
            map[i] = args[n->num];
            continue;
        }
        map[i] = fx_rule_copy_node(c, n, map);
        fx_graph_node(c, map[i])->origin.rewrite = fx_graph_intern(c, REWRITE);
    }
    FxNodeId root = map[callee->root.v];
    free(map);
    return root;
}

static FxGraph *inline_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    const FxGraph *g = r->current;
    FxGraph *c = fx_rule_new_version(g, r->label);
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        const FxGraph *callee = inlinable(r, g, n);
        if (!callee) {
            map[i] = fx_rule_copy_node(c, n, map);
            continue;
        }
        FxNodeId args[16]; /* inlinable: at most 16 */
        for (uint32_t k = 0; k < n->n_inputs; k++)
            args[k] = map[n->inputs[k].v];
        map[i] = expand(c, callee, args);
    }
    c->root = map[g->root.v];
    fx_graph_freeze(c);
    free(map);
    return c;
}

static bool inline_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    return fx_rule_measured_gain(r, cand, NULL, evidence, why);
}

static FxProof *inline_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "every intent is pure, so a call is its callee's value on the "
                "arguments, computed in place");
    return fx_prove_same_function(r->current, cand, r->host->lower, r->host->ctx,
                                  r->host->proof_cache, 5000);
}

const FxRule fx_rule_inline = {REWRITE, inline_applies, inline_candidate, inline_measurement,
                               inline_obligations, NULL};
