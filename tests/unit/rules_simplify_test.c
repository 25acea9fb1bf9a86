/*
 * rules_simplify_test.c: constant folding, common sub-expression
 * elimination and dead code elimination on the intents of
 * tests/prove/simplify.flux: each changes what it should (node counts,
 * calls made), leaves alone what it must (a division by zero in a branch
 * that may not run, a division in a loop body), computes what the original
 * computes, and is proved the same function by the checker. Then every rule
 * over every intent of the examples and of tests/lang/ok: the result
 * verifies, evaluates nothing the original did not always evaluate, and
 * computes the same on a few arguments.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "exec/interp.h"
#include "fx_test.h"
#include "lang/program.h"
#include "graph/lower.h"
#include "opt/rule_cse.h"
#include "opt/rule_dce.h"
#include "opt/rule_fold.h"
#include "opt/rule_memo.h"
#include "proof/prove.h"

/* ---- graphs ---- */

static FxProgram *prog; /* the program the current test works on */

static FxGraph *v1(const char *intent)
{
    const FxIntent *in = fx_program_find_intent(prog, intent);
    FX_CHECK(in, "no intent %s", intent);
    return fx_lower_intent(prog, in);
}

/* Nodes the root reaches. */
static bool *reached(const FxGraph *g)
{
    bool *r = fx_xcalloc(g->n_nodes + 1, sizeof(bool));
    r[g->root.v] = true;
    for (uint32_t i = g->n_nodes; i >= 1; i--) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        for (uint32_t k = 0; r[i] && k < n->n_inputs; k++)
            r[n->inputs[k].v] = true;
    }
    return r;
}

/* How many nodes of op the root reaches (all ops: FX_NODE__COUNT). */
static int count(const FxGraph *g, FxNodeOp op)
{
    bool *r = reached(g);
    int c = 0;
    for (uint32_t i = 1; i <= g->n_nodes; i++)
        c += r[i] && (op == FX_NODE__COUNT || g->nodes[i - 1].op == op);
    free(r);
    return c;
}

static const FxNode *root_node(const FxGraph *g)
{
    return fx_graph_node(g, g->root);
}

/* A rule's result is a well-formed version of g. */
static void expect_version_of(const FxGraph *g, const FxGraph *r, const char *label)
{
    char why[256] = "";
    bool ok = fx_graph_verify(r, why, sizeof(why));
    if (!ok)
        fprintf(stderr, "%s %s: %s\n", r->intent, label, why);
    EXPECT(ok);
    EXPECT(r->frozen);
    EXPECT_STR_EQ(r->intent, g->intent);
    EXPECT_STR_EQ(r->version, label);
    EXPECT_STR_EQ(r->ret_type, g->ret_type);
    EXPECT_EQ(r->n_params, g->n_params);
    for (uint32_t i = 0; i < g->n_params && i < r->n_params; i++)
        EXPECT_STR_EQ(r->param_types[i], g->param_types[i]);
    EXPECT_EQ(g->kernel, r->kernel);
}

/* Applies a rule and checks its result; the result replaces *g (freed)
 * when there is one. Returns whether the rule changed anything. */
typedef FxGraph *(*Rule)(const FxGraph *, const char *);
static bool apply(Rule rule, FxGraph **g)
{
    FxGraph *r = rule(*g, "candidate");
    if (!r)
        return false;
    expect_version_of(*g, r, "candidate");
    fx_graph_free(*g);
    *g = r;
    return true;
}

/* Folding, then CSE, each followed by DCE; *changed (when not NULL) says
 * whether any of them changed anything. */
static FxGraph *simplify(const FxGraph *g, bool *changed)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, "candidate");
    bool any = apply(fx_rule_fold, &c);
    any |= apply(fx_rule_dce, &c);
    any |= apply(fx_rule_cse, &c);
    any |= apply(fx_rule_dce, &c);
    if (changed)
        *changed = any;
    return c;
}

static FxGraph *simplified(const FxGraph *g)
{
    return simplify(g, NULL);
}

/* ---- running ---- */

typedef struct Outcome {
    FxStatus st;
    char text[256]; /* the value, or the error */
    uint64_t calls;
} Outcome;

/* Runs intent g->intent as graph g (a copy: the runtime takes it). */
static Outcome run(const FxGraph *g, const FxValue *args, size_t n)
{
    Outcome o = {0};
    FxRuntime *rt = fx_runtime_new(prog);
    fx_runtime_set_runaway_protection(rt, false); /* count the calls the graph makes */
    FxBudgets b = fx_budgets_default();
    b.max_steps = 2000000;
    fx_runtime_set_budgets(rt, b);
    FX_CHECK(fx_runtime_use_graph(rt, fx_graph_copy_as(g, g->intent, g->version)), "use_graph");
    FxValue out;
    o.st = fx_runtime_call(rt, g->intent, args, n, &out);
    if (o.st == FX_OK) {
        FxBuf b2 = {0};
        fx_val_print(out, &b2);
        snprintf(o.text, sizeof(o.text), "%s", fx_buf_str(&b2));
        fx_buf_free(&b2);
        fx_value_release(out);
    } else {
        snprintf(o.text, sizeof(o.text), "%s", fx_runtime_error(rt));
    }
    o.calls = fx_runtime_stats(rt).calls;
    fx_runtime_free(rt);
    return o;
}

/* Both graphs give the same value, or both fail. */
static void expect_same_run(const FxGraph *a, const FxGraph *b, const FxValue *args, size_t n)
{
    Outcome x = run(a, args, n), y = run(b, args, n);
    if (x.st != y.st || (x.st == FX_OK && strcmp(x.text, y.text))) {
        fprintf(stderr, "%s: %s (%d) but the rewrite gives %s (%d)\n", a->intent, x.text, x.st,
                y.text, y.st);
        EXPECT(false);
    }
}

static void expect_same_on_ints(const FxGraph *a, const FxGraph *b, const int64_t *xs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FxValue v = fx_val_int(xs[i]);
        expect_same_run(a, b, &v, 1);
    }
}

static int64_t int_result(const FxGraph *g, int64_t arg)
{
    FxValue v = fx_val_int(arg);
    Outcome o = run(g, &v, 1);
    EXPECT_EQ(o.st, FX_OK);
    return strtoll(o.text, NULL, 10);
}

/* ---- proving ---- */

static const FxGraph *lookup(void *ctx, const char *intent)
{
    (void)ctx;
    static FX_VEC(FxGraph *) made;
    static const FxProgram *made_for;
    if (!intent || made_for != prog) { /* NULL: cleanup; another program: start afresh */
        fx_vec_foreach(FxGraph *, g, &made) fx_graph_free(*g);
        made.len = 0;
        made_for = prog;
        if (!intent) {
            fx_vec_free(&made);
            return NULL;
        }
    }
    fx_vec_foreach(FxGraph *, g, &made) if (!strcmp((*g)->intent, intent)) return *g;
    const FxIntent *in = fx_program_find_intent(prog, intent);
    if (!in)
        return NULL;
    FxGraph *g = fx_lower_intent(prog, in);
    fx_vec_push(&made, g);
    return g;
}

static FxProofVerdict prove(const FxGraph *cur, const FxGraph *cand)
{
    FxProof *p = fx_prove_same_function(cur, cand, lookup, NULL, NULL, 5000);
    FxProofVerdict v = p->verdict;
    if (v != FX_PROOF_PROVED)
        fx_vec_foreach(FxObligation, o, &p->obligations) fprintf(
            stderr, "  %s %s: %s\n", cand->intent, o->kind,
            o->counterexample ? o->counterexample : o->reason ? o->reason : "proved");
    fx_proof_free(p);
    return v;
}

/* ---- evaluating nothing earlier ---- */

static bool small_int(const FxGraph *g, FxNodeId id, long long *out)
{
    const FxNode *n = fx_graph_node(g, id);
    char *end;
    if (n->op != FX_NODE_CONST || (strcmp(n->type, "Int") && strcmp(n->type, "Natural")) ||
        strlen(n->text) > 17)
        return false;
    *out = strtoll(n->text, &end, 10);
    return *end == '\0';
}

/* The value of a condition made of constants alone: booleans, comparisons
 * of small integers, not, and, or. */
static bool const_bool(const FxGraph *g, FxNodeId id, bool *out)
{
    const FxNode *n = fx_graph_node(g, id);
    bool a, b;
    long long x, y;
    switch (n->op) {
    case FX_NODE_CONST:
        *out = !strcmp(n->text, "true");
        return !strcmp(n->type, "Bool");
    case FX_NODE_NOT:
        if (!const_bool(g, n->inputs[0], &a))
            return false;
        *out = !a;
        return true;
    case FX_NODE_AND:
    case FX_NODE_OR:
        if (!const_bool(g, n->inputs[0], &a) || !const_bool(g, n->inputs[1], &b))
            return false;
        *out = n->op == FX_NODE_AND ? a && b : a || b;
        return true;
    case FX_NODE_EQ: case FX_NODE_NE: case FX_NODE_LT:
    case FX_NODE_LE: case FX_NODE_GT: case FX_NODE_GE:
        if (!small_int(g, n->inputs[0], &x) || !small_int(g, n->inputs[1], &y))
            return false;
        *out = n->op == FX_NODE_EQ ? x == y : n->op == FX_NODE_NE ? x != y
             : n->op == FX_NODE_LT ? x < y : n->op == FX_NODE_LE ? x <= y
             : n->op == FX_NODE_GT ? x > y : x >= y;
        return true;
    default:
        return false;
    }
}

/* Nodes every run of g evaluates: the root, the eager inputs of those, and
 * the branch an `if`, `and` or `or` takes on a condition of constants. */
static bool *must_run(const FxGraph *g)
{
    bool *m = fx_xcalloc(g->n_nodes + 1, sizeof(bool));
    m[g->root.v] = true;
    for (uint32_t i = g->n_nodes; i >= 1; i--) {
        const FxNode *n = fx_graph_node(g, (FxNodeId){i});
        bool c, decided = m[i] && n->n_inputs && const_bool(g, n->inputs[0], &c);
        for (uint32_t k = 0; m[i] && k < n->n_inputs; k++) {
            bool eager = !fx_graph_input_is_lazy(n->op, k);
            if (n->op == FX_NODE_IF && k > 0)
                eager = decided && c == (k == 1);
            if (n->op == FX_NODE_AND || n->op == FX_NODE_OR)
                eager |= decided && c == (n->op == FX_NODE_AND);
            if (eager && n->inputs[k].v)
                m[n->inputs[k].v] = true;
        }
    }
    return m;
}

/* Everything the rewrite r evaluates on every run, g evaluated on every run:
 * each such node of r that has a source position (what folding makes has
 * none, and leaves cost nothing) is a node of the same op and position that
 * every run of g evaluated. A division moved out of a branch fails this. */
static bool evaluates_nothing_earlier(const FxGraph *g, const FxGraph *r)
{
    bool *mg = must_run(g), *mr = must_run(r), ok = true;
    for (uint32_t i = 1; i <= r->n_nodes && ok; i++) {
        const FxNode *n = &r->nodes[i - 1];
        if (!mr[i] || !n->origin.file || n->op == FX_NODE_CONST || n->op == FX_NODE_PARAM ||
            n->op == FX_NODE_VAR)
            continue;
        bool found = false;
        for (uint32_t j = 1; j <= g->n_nodes && !found; j++) {
            const FxNode *m = &g->nodes[j - 1];
            found = mg[j] && m->op == n->op && m->origin.file &&
                    !strcmp(m->origin.file, n->origin.file) && m->origin.line == n->origin.line &&
                    m->origin.col == n->origin.col;
        }
        if (!found)
            fprintf(stderr, "%s: %%%u (%s, line %u) runs always, but did not\n", r->intent, i,
                    fx_graph_op_name(n->op), n->origin.line);
        ok = found;
    }
    free(mg);
    free(mr);
    return ok;
}

/* ---- the tests ---- */

static FxDiag diag; /* of every program loaded: prog->diag points here */
static const char *loaded;

static void load(const char *path)
{
    if (loaded && !strcmp(loaded, path))
        return;
    fx_program_free(prog);
    size_t errors = fx_diag_errors(&diag);
    prog = fx_program_load(&diag, path, NULL);
    loaded = path;
    EXPECT_EQ(fx_diag_errors(&diag), errors);
}

static void load_simplify(void)
{
    load("tests/prove/simplify.flux");
}

/* The text of the constants the root reaches, comma separated. */
static void const_texts(const FxGraph *g, char *out, size_t len)
{
    bool *r = reached(g);
    out[0] = '\0';
    for (uint32_t i = 1; i <= g->n_nodes; i++) {
        if (r[i] && g->nodes[i - 1].op == FX_NODE_CONST) {
            size_t at = strlen(out);
            snprintf(out + at, len - at, "%s%s", at ? "," : "", g->nodes[i - 1].text);
        }
    }
    free(r);
}

FX_TEST(folding_makes_one_constant)
{
    load_simplify();
    FxGraph *g = v1("seconds"), *c = fx_graph_copy_as(g, "seconds", "candidate");
    EXPECT_EQ(count(g, FX_NODE_MUL), 3);
    EXPECT(apply(fx_rule_fold, &c));
    EXPECT((int)c->n_nodes > count(c, FX_NODE__COUNT)); /* the 60s and the 1 are left unread */
    EXPECT(apply(fx_rule_dce, &c));
    /* hours * 3600, nothing else */
    EXPECT_EQ(c->n_nodes, 3);
    EXPECT_EQ(count(c, FX_NODE_MUL), 1);
    EXPECT_EQ(count(c, FX_NODE_ADD), 0);
    char consts[256];
    const_texts(c, consts, sizeof(consts));
    EXPECT_STR_EQ(consts, "3600");
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        const FxNode *n = &c->nodes[i];
        if (n->op == FX_NODE_CONST)
            EXPECT_STR_EQ(n->origin.rewrite, "constant folding");
        else
            EXPECT(n->origin.file != NULL && n->origin.rewrite == NULL); /* survivors keep theirs */
    }
    EXPECT(fx_rule_fold(c, "again") == NULL); /* nothing left to fold */
    EXPECT(fx_rule_dce(c, "again") == NULL);
    int64_t args[] = {0, 2, -3};
    expect_same_on_ints(g, c, args, 3);
    EXPECT_EQ(int_result(c, 2), 7200);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(folding_is_exact_beyond_64_bits)
{
    load_simplify();
    FxGraph *g = v1("big"), *c = simplified(g);
    char consts[256];
    const_texts(c, consts, sizeof(consts));
    /* (x + 2^96) - 3 * 5^16 */
    EXPECT_STR_EQ(consts, "79228162514264337593543950336,457763671875");
    EXPECT_EQ(count(c, FX_NODE_POW), 0);
    FxValue x = fx_val_int(1);
    Outcome o = run(c, &x, 1);
    EXPECT_STR_EQ(o.text, "79228162514264337135780278462");
    int64_t args[] = {1, -7};
    expect_same_on_ints(g, c, args, 2);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(an_untaken_branch_is_dropped_with_its_division)
{
    load_simplify();
    FxGraph *g = v1("dead_branch"), *c = fx_graph_copy_as(g, g->intent, "candidate");
    EXPECT(apply(fx_rule_fold, &c));
    EXPECT_EQ(count(c, FX_NODE_IF), 0);
    EXPECT_EQ(count(c, FX_NODE_IDIV), 0);
    /* the division is still there, unread, with 1 and 0 (not folded into an error) */
    bool idiv_left = false;
    for (uint32_t i = 0; i < c->n_nodes; i++)
        idiv_left |= c->nodes[i].op == FX_NODE_IDIV;
    EXPECT(idiv_left);
    EXPECT(apply(fx_rule_dce, &c));
    EXPECT_EQ(c->n_nodes, 3); /* n + 1000 */
    char consts[64];
    const_texts(c, consts, sizeof(consts));
    EXPECT_STR_EQ(consts, "1000");
    EXPECT_EQ(root_node(c)->op, FX_NODE_ADD);
    int64_t args[] = {5, -1000};
    expect_same_on_ints(g, c, args, 2);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(a_division_by_zero_that_may_run_stays)
{
    load_simplify();
    FxGraph *g = v1("guarded"), *c = simplified(g);
    EXPECT_EQ(count(g, FX_NODE_ADD), 1);
    EXPECT_EQ(count(c, FX_NODE_ADD), 0); /* n + 0 */
    EXPECT_EQ(count(c, FX_NODE_IDIV), 1);
    EXPECT_EQ(count(c, FX_NODE_IF), 1);
    EXPECT(evaluates_nothing_earlier(g, c));
    FxValue v = fx_val_int(3);
    EXPECT_STR_EQ(run(c, &v, 1).text, "3");
    v = fx_val_int(7);
    Outcome o = run(c, &v, 1);
    EXPECT_EQ(o.st, FX_ERR_RUNTIME);
    EXPECT(strstr(o.text, "division by zero") != NULL);
    int64_t args[] = {3, 5, 6, 7};
    expect_same_on_ints(g, c, args, 4);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(and_or_with_a_constant_side)
{
    load_simplify();
    FxGraph *g = v1("logic"), *c = simplified(g);
    /* (true and a) or (false and ...): a */
    EXPECT_EQ(c->n_nodes, 1);
    EXPECT_EQ(root_node(c)->op, FX_NODE_PARAM);
    EXPECT_EQ(root_node(c)->num, 0);
    for (int a = 0; a < 2; a++) {
        FxValue args[2] = {fx_val_bool(a), fx_val_int(0)};
        expect_same_run(g, c, args, 2);
    }
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(times_zero_only_for_what_cannot_fail)
{
    load_simplify();
    FxGraph *g = v1("times_zero"), *c = simplified(g);
    /* n * 0 is 0, and 0 + x is x: pred(n) * 0 is what remains */
    EXPECT_EQ(root_node(c)->op, FX_NODE_MUL);
    EXPECT_EQ(count(c, FX_NODE_CALL), 1);
    EXPECT_EQ(count(c, FX_NODE_ADD), 0);
    FxValue v = fx_val_int(0);
    Outcome o = run(c, &v, 1);
    EXPECT_EQ(o.st, FX_ERR_RUNTIME); /* pred(0) breaks its postcondition */
    EXPECT(strstr(o.text, "postcondition") != NULL);
    int64_t args[] = {0, 4};
    expect_same_on_ints(g, c, args, 2);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(cse_merges_a_repeated_self_call)
{
    load_simplify();
    FxGraph *g = v1("doubling"), *c = fx_graph_copy_as(g, g->intent, "candidate");
    EXPECT_EQ(count(g, FX_NODE_CALL), 2);
    EXPECT(fx_rule_fold(c, "x") == NULL); /* nothing to fold */
    EXPECT(apply(fx_rule_cse, &c));
    EXPECT(fx_rule_dce(c, "x") == NULL); /* the second call and its `n - 1` are gone whole */
    EXPECT_EQ(count(c, FX_NODE_CALL), 1);
    EXPECT_EQ(count(c, FX_NODE_SUB), 1);
    /* the surviving call keeps its source position */
    for (uint32_t i = 0; i < c->n_nodes; i++)
        if (c->nodes[i].op == FX_NODE_CALL)
            EXPECT(c->nodes[i].origin.file != NULL);
    const FxNode *add = NULL;
    for (uint32_t i = 0; i < c->n_nodes; i++)
        if (c->nodes[i].op == FX_NODE_ADD)
            add = &c->nodes[i];
    EXPECT(add && add->inputs[0].v == add->inputs[1].v);
    /* 2^17 - 2 calls below doubling(16) before, 16 after */
    FxValue v = fx_val_int(16);
    Outcome before = run(g, &v, 1), after = run(c, &v, 1);
    EXPECT_STR_EQ(before.text, "65536");
    EXPECT_STR_EQ(after.text, "65536");
    EXPECT_EQ(before.calls, 131070);
    EXPECT_EQ(after.calls, 16);
    EXPECT(fx_rule_cse(c, "again") == NULL);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

/* A call's arguments sit in the callee's frame, which the call takes
 * over: a shared node computed there must be computed once all the same
 * (exec/compile.c, call_arguments). */
FX_TEST(cse_shares_a_call_computed_among_arguments)
{
    load_simplify();
    FxGraph *g = v1("shared_argument"), *c = fx_graph_copy_as(g, g->intent, "candidate");
    EXPECT(apply(fx_rule_cse, &c));
    apply(fx_rule_dce, &c); /* nothing left, or the dropped call */
    EXPECT_EQ(count(c, FX_NODE_CALL), 2);
    FxValue v = fx_val_int(7);
    Outcome before = run(g, &v, 1), after = run(c, &v, 1);
    EXPECT_STR_EQ(before.text, "148");
    EXPECT_STR_EQ(after.text, "148");
    EXPECT_EQ(before.calls, 4);
    EXPECT_EQ(after.calls, 2); /* plus_one and one square_of */
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(cse_keeps_the_kernel)
{
    load_simplify();
    FxGraph *g = v1("doubling");
    FxGraph *memo = fx_rule_memo_candidate(g, "v2");
    FxGraph *c = fx_rule_cse(memo, "v3");
    EXPECT(c != NULL);
    if (c) {
        expect_version_of(memo, c, "v3");
        EXPECT_EQ(c->kernel, FX_KERNEL_MEMO);
        int64_t args[] = {0, 5, 30};
        expect_same_on_ints(memo, c, args, 3);
    }
    fx_graph_free(c);
    /* a recurrence's certificate travels with its kernel: doubling(n) = 2 doubling(n-1) */
    FxGraph *rg = fx_rule_new_version(g, "v2");
    FxNodeId *map = fx_xcalloc(g->n_nodes + 1, sizeof(FxNodeId));
    for (uint32_t i = 1; i <= g->n_nodes; i++)
        map[i] = fx_rule_copy_node(rg, fx_graph_node(g, (FxNodeId){i}), map);
    rg->root = map[g->root.v];
    FxRecurrence rec = {.order = 1, .coeffs = {2}, .initial = {"1"}};
    fx_graph_set_recurrence(rg, &rec, FX_VARIANT_LOOP);
    fx_graph_freeze(rg);
    free(map);
    c = fx_rule_cse(rg, "v3");
    EXPECT(c && c->kernel == FX_KERNEL_RECURRENCE);
    EXPECT(c && c->rec.order == 1 && c->rec.coeffs[0] == 2 && !strcmp(c->rec.initial[0], "1"));
    EXPECT(c && c->variants == FX_VARIANT_LOOP);
    fx_graph_free(c);
    fx_graph_free(rg);
    fx_graph_free(memo);
    fx_graph_free(g);
}

FX_TEST(cse_reads_an_outer_value_in_a_branch)
{
    load_simplify();
    const char *names[] = {"outer_first", "branch_first"};
    for (int k = 0; k < 2; k++) {
        FxGraph *g = v1(names[k]), *c = simplified(g);
        EXPECT_EQ(count(g, FX_NODE_MUL), 2);
        EXPECT_EQ(count(c, FX_NODE_MUL), 1);
        EXPECT(evaluates_nothing_earlier(g, c));
        int64_t args[] = {-2, 0, 3};
        expect_same_on_ints(g, c, args, 3);
        EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
        fx_graph_free(c);
        fx_graph_free(g);
    }
}

FX_TEST(cse_leaves_sibling_branches_apart)
{
    load_simplify();
    FxGraph *g = v1("siblings"), *c = simplified(g);
    EXPECT_EQ(count(c, FX_NODE_EQ), 1); /* n = 0, tested at the root twice */
    EXPECT_EQ(count(c, FX_NODE_IDIV), 2);
    EXPECT_EQ(count(c, FX_NODE_IF), 2);
    EXPECT(evaluates_nothing_earlier(g, c));
    int64_t args[] = {0, 5, -3};
    expect_same_on_ints(g, c, args, 3);
    EXPECT_EQ(int_result(c, 0), 1);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(cse_merges_equal_conditionals_whole)
{
    load_simplify();
    FxGraph *g = v1("twin_ifs"), *c = simplified(g);
    EXPECT_EQ(count(c, FX_NODE_IF), 1);
    EXPECT_EQ(count(c, FX_NODE_IDIV), 1);
    EXPECT_EQ(count(c, FX_NODE_GT), 1);
    const FxNode *mul = root_node(c);
    EXPECT(mul->op == FX_NODE_MUL && mul->inputs[0].v == mul->inputs[1].v);
    int64_t args[] = {2, 10};
    expect_same_on_ints(g, c, args, 2);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(folding_uncovers_a_common_sub_expression)
{
    load_simplify();
    FxGraph *g = v1("fold_then_cse"), *c = simplified(g);
    /* (n + 7) * (n + 7), the sum once */
    EXPECT_EQ(c->n_nodes, 4);
    EXPECT_EQ(count(c, FX_NODE_ADD), 1);
    const FxNode *mul = root_node(c);
    EXPECT(mul->op == FX_NODE_MUL && mul->inputs[0].v == mul->inputs[1].v);
    int64_t args[] = {2, -7};
    expect_same_on_ints(g, c, args, 2);
    EXPECT_EQ(int_result(c, 2), 81);
    EXPECT_EQ(prove(g, c), FX_PROOF_PROVED);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(nothing_leaves_a_loop_body)
{
    load_simplify();
    FxGraph *g = v1("loop_body"), *c = simplified(g);
    EXPECT_EQ(count(c, FX_NODE_FOLD), 2); /* two loops, two slots: not equal */
    EXPECT_EQ(count(c, FX_NODE_IDIV), 2);
    bool *m = must_run(c);
    for (uint32_t i = 1; i <= c->n_nodes; i++)
        if (c->nodes[i - 1].op == FX_NODE_IDIV)
            EXPECT(!m[i]); /* each division only in its loop's body */
    free(m);
    EXPECT(evaluates_nothing_earlier(g, c));
    /* no element: no division by d = 0 */
    FxValue args[2] = {fx_val_list(NULL, 0), fx_val_int(0)};
    Outcome o = run(c, args, 2);
    EXPECT_EQ(o.st, FX_OK);
    EXPECT_STR_EQ(o.text, "0");
    expect_same_run(g, c, args, 2);
    FxValue items[3] = {fx_val_int(1), fx_val_int(6), fx_val_int(-4)};
    fx_value_release(args[0]);
    args[0] = fx_val_list(items, 3);
    args[1] = fx_val_int(2);
    expect_same_run(g, c, args, 2);
    fx_value_release(args[0]);
    fx_graph_free(c);
    fx_graph_free(g);
}

FX_TEST(rules_that_find_nothing_say_so)
{
    load_simplify();
    FxGraph *g = v1("pred");
    EXPECT(fx_rule_fold(g, "x") == NULL);
    EXPECT(fx_rule_cse(g, "x") == NULL);
    EXPECT(fx_rule_dce(g, "x") == NULL);
    fx_graph_free(g);
}

/* ---- every intent of the examples ---- */

/* A few arguments of the given type, or 0 when the type is not one made here. */
static size_t sample_args(const char *type, FxValue out[3])
{
    if (!strcmp(type, "Natural") || !strcmp(type, "Int")) {
        out[0] = fx_val_int(0);
        out[1] = fx_val_int(1);
        out[2] = fx_val_int(5);
        return 3;
    }
    if (!strcmp(type, "Bool")) {
        out[0] = fx_val_bool(false);
        out[1] = fx_val_bool(true);
        return 2;
    }
    if (!strcmp(type, "String")) {
        out[0] = fx_val_string("", 0);
        out[1] = fx_val_string("ab", 2);
        return 2;
    }
    if (!strcmp(type, "List[Int]") || !strcmp(type, "List[Natural]")) {
        FxValue items[3] = {fx_val_int(3), fx_val_int(1), fx_val_int(2)};
        out[0] = fx_val_list(NULL, 0);
        out[1] = fx_val_list(items, 3);
        return 2;
    }
    return 0;
}

/* Runs g and r on sample arguments (the k-th sample of every parameter,
 * for each k); false when some parameter type has no samples. */
static bool compare_on_samples(const FxGraph *g, const FxGraph *r)
{
    FxValue samples[8][3];
    size_t n_samples[8] = {0}, most = 1;
    bool all = g->n_params <= 8;
    for (uint32_t p = 0; all && p < g->n_params; p++) {
        n_samples[p] = sample_args(g->param_types[p], samples[p]);
        all = n_samples[p] > 0;
        most = n_samples[p] > most ? n_samples[p] : most;
    }
    for (size_t k = 0; all && k < most; k++) {
        FxValue args[8];
        for (uint32_t p = 0; p < g->n_params; p++)
            args[p] = samples[p][k < n_samples[p] ? k : 0];
        expect_same_run(g, r, args, g->n_params);
    }
    for (uint32_t p = 0; p < g->n_params && p < 8; p++)
        for (size_t k = 0; k < n_samples[p]; k++)
            fx_value_release(samples[p][k]);
    return all;
}

typedef struct Tally {
    int graphs, changed, ran, proved, unknown;
    int by_rule[4]; /* graphs changed by folding, CSE, DCE, and all three */
} Tally;

static void check_rewrite(const FxGraph *g, FxGraph *r, Tally *t, int rule)
{
    if (!r)
        return;
    t->changed++;
    t->by_rule[rule]++;
    expect_version_of(g, r, r->version);
    EXPECT(evaluates_nothing_earlier(g, r));
    t->ran += compare_on_samples(g, r);
    FxProof *p = fx_prove_same_function(g, r, lookup, NULL, NULL, 5000);
    if (p->verdict == FX_PROOF_REFUTED) {
        fprintf(stderr, "%s: the rewrite is refuted\n", g->intent);
        EXPECT(false);
    }
    t->proved += p->verdict == FX_PROOF_PROVED;
    t->unknown += p->verdict == FX_PROOF_UNKNOWN;
    fx_proof_free(p);
    fx_graph_free(r);
}

static void every_rule_on_file(const char *path, Tally *t)
{
    load(path);
    fx_vec_foreach(FxIntent *, in, &prog->root->intents)
    {
        FxGraph *g = fx_lower_intent(prog, *in);
        t->graphs++;
        check_rewrite(g, fx_rule_fold(g, "fold"), t, 0);
        check_rewrite(g, fx_rule_cse(g, "cse"), t, 1);
        check_rewrite(g, fx_rule_dce(g, "dce"), t, 2);
        bool changed;
        FxGraph *s = simplify(g, &changed);
        EXPECT(fx_rule_dce(s, "x") == NULL); /* the pipeline ends compact */
        check_rewrite(g, changed ? s : NULL, t, 3);
        if (!changed)
            fx_graph_free(s);
        fx_graph_free(g);
    }
}

FX_TEST(every_rule_on_every_example)
{
    const char *dirs[] = {"examples", "tests/lang/ok", "tests/prove"};
    Tally t = {0};
    for (size_t k = 0; k < FX_ARRAY_LEN(dirs); k++) {
        DIR *dir = opendir(dirs[k]);
        EXPECT(dir != NULL);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            size_t n = strlen(e->d_name);
            if (n < 6 || strcmp(e->d_name + n - 5, ".flux") != 0)
                continue;
            if (k == 2 && strcmp(e->d_name, "simplify.flux") != 0)
                continue;
            char path[512];
            snprintf(path, sizeof(path), "%s/%s", dirs[k], e->d_name);
            every_rule_on_file(path, &t);
            loaded = NULL; /* path is about to change under it */
        }
        if (dir)
            closedir(dir);
    }
    printf("%d graphs; changed by folding %d, CSE %d, DCE %d, all three %d; of the %d rewrites "
           "%d run on samples, %d proved, %d not decided\n",
           t.graphs, t.by_rule[0], t.by_rule[1], t.by_rule[2], t.by_rule[3], t.changed, t.ran,
           t.proved, t.unknown);
    EXPECT(t.graphs >= 40);
    EXPECT(t.by_rule[0] >= 7);
    EXPECT(t.by_rule[1] >= 25); /* lowering reads a parameter once per use: CSE merges them */
    EXPECT(t.ran >= t.changed / 2);
    EXPECT(t.proved >= 20);
}

int main(void)
{
    int rc = fx_test_run();
    lookup(NULL, NULL);
    fx_program_free(prog);
    fx_diag_free(&diag);
    return rc;
}
