/*
 * rule_cse.c: see rule_cse.h.
 *
 * DESIGN. Equal nodes: the same op, type, text, num and num2, and equal
 * inputs, recursively. Every intent is pure, so equal nodes compute equal
 * values; a first walk in id order numbers their classes (value numbering:
 * a hash table of the op, the attributes and the classes of the inputs).
 *
 * Equal is not enough: where a node runs matters. Each lazy input opens a
 * *region* (a branch of an `if`, the right side of `and`/`or`, a loop's
 * filter or body, a sort key, a postcondition), entered only when its owner
 * asks; the root is the outermost region. A node's *scope* is the set of
 * regions whose entry reaches it through eager inputs only: it runs
 * whenever one of them is entered (unless the run fails first). Region k of
 * owner o is entered only while o runs, so its parent is the innermost
 * region that contains o's whole scope (the lowest common ancestor in the
 * tree of regions); a fold's body is inside its filter, since the body
 * runs only after the filter held. A node's *home* is the region of its
 * scope that contains all the others, when there is one: the node runs
 * whenever its home is entered, and only inside it.
 *
 * A node m is merged into an equal node r when r's home contains m's: r
 * ran, in g, whenever m did, so reading r's value where m was read
 * evaluates nothing that g did not, whatever a back end does with a node
 * read from several regions. (The compiler of exec/compile.c computes a
 * node at its first use in its walk and forgets the register on leaving
 * the lazy scope that computed it, so it shares r's value when r comes
 * first in the walk and computes it again otherwise; another back end
 * could compute it once, at the innermost region holding all its readers,
 * which here is r's home.) Of the equal nodes whose home contains m's, m
 * goes to the one with the outermost home (the smallest id among several
 * there), which is merged into nothing. So:
 *   - f(n-1) + f(n-1): both calls are in one region, one call remains;
 *   - x * x in a branch and x * x outside it: the branch reads the outer one;
 *   - two equal `if`s in one region become one, branches and all: the
 *     other's branches are left unread;
 *   - equal nodes in two sibling branches, or two loop bodies, stay apart:
 *     neither runs whenever the other does;
 *   - a node with no home (read from sibling regions only) stays as it is;
 *   - constants, parameters and bound variables are merged everywhere:
 *     reading one costs nothing and cannot fail.
 * Two loops are equal only when they bind the same slot (the slot is an
 * attribute): two equal comprehensions written twice are not merged.
 *
 * The result has one node per group of merged nodes: the representative's,
 * reading its own inputs' groups. A representative may come after nodes
 * that read its group (the outer x * x after the branch), so nodes are
 * emitted in id order of the representatives, each after its inputs (depth
 * first). Groups nothing reads any more stay (fx_rule_dce drops them).
 */
#include "rule_cse.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "rule_dce.h"

#define NONE UINT32_MAX
#define MAX_LAZY 3 /* lazy inputs are among a node's first three */

typedef struct Region {
    uint32_t parent; /* NONE for the root region, 0 */
    uint32_t depth;
} Region;

typedef struct Cse {
    const FxGraph *g;
    uint32_t *cls;  /* by node: its class, the smallest id of the nodes equal to it */
    FX_VEC(Region) regions;
    uint32_t *lca;  /* by node: the innermost region containing its scope; NONE: unreached */
    bool *lca_in;   /* is lca itself in the scope? */
    uint32_t *home; /* lca when lca_in, else NONE */
    uint32_t *rep;  /* by node: the node it is merged into (itself when none) */
    FxNodeId *out;  /* by node: its group's node in the result; out[0] = {0} */
    FxGraph *c;
} Cse;

/* ---- value numbering ---- */

static uint64_t mix_text(uint64_t h, const char *s)
{
    return fx_fnv_step(s ? fx_fnv1a(h, s, strlen(s)) : h, 0xff);
}

static uint64_t node_hash(const Cse *S, uint32_t i)
{
    const FxNode *n = fx_graph_node(S->g, (FxNodeId){i});
    uint64_t h = fx_fnv_step(FX_FNV_BASIS, n->op);
    h = mix_text(mix_text(h, n->type), n->text);
    h = fx_fnv_step(fx_fnv_step(h, (uint64_t)n->num), (uint64_t)n->num2);
    for (uint32_t k = 0; k < n->n_inputs; k++)
        h = fx_fnv_step(h, n->inputs[k].v ? S->cls[n->inputs[k].v] : 0);
    return h;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Equal, given the classes of their inputs? */
static bool same_node(const Cse *S, uint32_t i, uint32_t j)
{
    const FxNode *a = fx_graph_node(S->g, (FxNodeId){i}), *b = fx_graph_node(S->g, (FxNodeId){j});
    if (a->op != b->op || a->n_inputs != b->n_inputs || a->num != b->num || a->num2 != b->num2 ||
        !fx_graph_same_type(a, b) || !same_text(a->text, b->text))
        return false;
    for (uint32_t k = 0; k < a->n_inputs; k++) {
        uint32_t x = a->inputs[k].v, y = b->inputs[k].v;
        if ((x ? S->cls[x] : 0) != (y ? S->cls[y] : 0))
            return false;
    }
    return true;
}

static size_t table_size(uint32_t n)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    return cap;
}

static void number_classes(Cse *S)
{
    size_t cap = table_size(S->g->n_nodes);
    uint32_t *table = fx_xcalloc(cap, sizeof(uint32_t)); /* node ids; 0: empty */
    for (uint32_t i = 1; i <= S->g->n_nodes; i++) {
        size_t at = node_hash(S, i) & (cap - 1);
        while (table[at] && !same_node(S, table[at], i))
            at = (at + 1) & (cap - 1);
        if (!table[at])
            table[at] = i;
        S->cls[i] = table[at];
    }
    free(table);
}

/* ---- regions and scopes ---- */

static uint32_t new_region(Cse *S, uint32_t parent)
{
    Region r = {parent, parent == NONE ? 0 : S->regions.data[parent].depth + 1};
    fx_vec_push(&S->regions, r);
    return (uint32_t)S->regions.len - 1;
}

/* The innermost region containing both a and b. */
static uint32_t common(const Cse *S, uint32_t a, uint32_t b)
{
    while (a != b) {
        if (S->regions.data[a].depth < S->regions.data[b].depth) {
            uint32_t t = a;
            a = b;
            b = t;
        }
        a = S->regions.data[a].parent;
    }
    return a;
}

/* Adds to node x's scope a set of regions whose innermost container is r
 * (in the set when r_in): r and its flag summarise the set exactly enough,
 * for the container of the union and whether it belongs to the union. */
static void add_scope(Cse *S, uint32_t x, uint32_t r, bool r_in)
{
    if (S->lca[x] == NONE) {
        S->lca[x] = r;
        S->lca_in[x] = r_in;
        return;
    }
    uint32_t cur = S->lca[x], up = common(S, cur, r);
    if (up == cur) {
        S->lca_in[x] |= r == cur && r_in; /* r is inside cur */
    } else {
        S->lca[x] = up; /* the old set lies strictly inside up */
        S->lca_in[x] = up == r && r_in;
    }
}

/* Users come after their inputs, so a walk down from the last node sees
 * every user of a node before the node: its scope is complete by then. */
static void find_scopes(Cse *S)
{
    const FxGraph *g = S->g;
    new_region(S, NONE);
    add_scope(S, g->root.v, 0, true);
    for (uint32_t i = g->n_nodes; i >= 1; i--) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        uint32_t own[MAX_LAZY] = {NONE, NONE, NONE};
        if (S->lca[i] == NONE)
            continue;
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            uint32_t x = n->inputs[k].v;
            if (!x)
                continue;
            if (!fx_graph_input_is_lazy(n->op, k)) {
                add_scope(S, x, S->lca[i], S->lca_in[i]);
                continue;
            }
            FX_CHECK(k < MAX_LAZY, "lazy input %u of a %s", k, fx_graph_op_name(n->op));
            bool in_filter = n->op == FX_NODE_FOLD && k == 2 && own[1] != NONE;
            own[k] = new_region(S, in_filter ? own[1] : S->lca[i]);
            add_scope(S, x, own[k], true);
        }
    }
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        FxNodeOp op = fx_graph_node(g, (FxNodeId){i})->op;
        bool leaf = op == FX_NODE_CONST || op == FX_NODE_PARAM || op == FX_NODE_VAR;
        S->home[i] = leaf ? 0 : S->lca[i] != NONE && S->lca_in[i] ? S->lca[i] : NONE;
    }
}

/* ---- groups ---- */

static uint64_t home_hash(uint32_t cls, uint32_t region)
{
    return fx_fnv_step(fx_fnv_step(FX_FNV_BASIS, cls), region);
}

/* rep[i]: of the nodes equal to i whose home contains i's, the one with the
 * outermost home, the smallest id there. */
static bool find_groups(Cse *S)
{
    uint32_t n = S->g->n_nodes;
    size_t cap = table_size(n);
    uint32_t *table = fx_xcalloc(cap, sizeof(uint32_t)); /* the first node per class and home */
    for (uint32_t i = 1; i <= n; i++) {
        if (S->home[i] == NONE)
            continue;
        size_t at = home_hash(S->cls[i], S->home[i]) & (cap - 1);
        while (table[at] && !(S->cls[table[at]] == S->cls[i] && S->home[table[at]] == S->home[i]))
            at = (at + 1) & (cap - 1);
        if (!table[at])
            table[at] = i;
    }
    bool merged = false;
    for (uint32_t i = 1; i <= n; i++) {
        S->rep[i] = i;
        for (uint32_t r = S->home[i]; r != NONE; r = S->regions.data[r].parent) {
            size_t at = home_hash(S->cls[i], r) & (cap - 1);
            while (table[at] && !(S->cls[table[at]] == S->cls[i] && S->home[table[at]] == r))
                at = (at + 1) & (cap - 1);
            if (table[at])
                S->rep[i] = table[at];
        }
        merged |= S->rep[i] != i;
    }
    free(table);
    return merged;
}

/* The result's node for i's group, emitted after its inputs' groups. The
 * depth of the recursion is the height of the graph, not its size. */
static FxNodeId emit(Cse *S, uint32_t i)
{
    if (S->out[i].v)
        return S->out[i];
    uint32_t r = S->rep[i];
    if (r != i)
        return S->out[i] = emit(S, r);
    const FxNode *n = fx_graph_node(S->g, (FxNodeId){i});
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (n->inputs[k].v)
            emit(S, n->inputs[k].v);
    return S->out[i] = fx_rule_copy_node(S->c, n, S->out);
}

FxGraph *fx_rule_cse(const FxGraph *g, const char *label)
{
    uint32_t n = g->n_nodes;
    Cse S = {.g = g};
    S.cls = fx_xcalloc(n + 1, sizeof(uint32_t));
    S.lca = fx_xmalloc((n + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i <= n; i++)
        S.lca[i] = NONE;
    S.lca_in = fx_xcalloc(n + 1, sizeof(bool));
    S.home = fx_xcalloc(n + 1, sizeof(uint32_t));
    S.rep = fx_xcalloc(n + 1, sizeof(uint32_t));
    S.out = fx_xcalloc(n + 1, sizeof(FxNodeId));
    number_classes(&S);
    find_scopes(&S);
    if (find_groups(&S)) {
        S.c = fx_rule_new_version(g, label);
        for (uint32_t i = 1; i <= n; i++)
            if (S.rep[i] == i)
                emit(&S, i);
        S.c->root = emit(&S, g->root.v);
        fx_graph_freeze(S.c);
    }
    free(S.cls);
    fx_vec_free(&S.regions);
    free(S.lca);
    free(S.lca_in);
    free(S.home);
    free(S.rep);
    free(S.out);
    return S.c;
}
