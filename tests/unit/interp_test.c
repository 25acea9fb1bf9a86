/*
 * interp_test.c: the interpreter through its C API: values of calls, the
 * hooks at every call and decision, per-node counters, budgets.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/interp.h"
#include "fx_test.h"
#include "lang/program.h"

typedef struct Seen {
    size_t calls, decisions, taken;
} Seen;

static void on_call(void *ctx, const FxGraph *g, const FxValue *args, size_t n, size_t depth)
{
    (void)depth;
    (void)g;
    (void)args;
    (void)n;
    ((Seen *)ctx)->calls++;
}

static void on_decision(void *ctx, const FxGraph *g, FxNodeId node, bool taken, size_t depth)
{
    (void)depth;
    (void)g;
    (void)node;
    ((Seen *)ctx)->decisions++;
    ((Seen *)ctx)->taken += taken;
}

static FxProgram *load(FxDiag *d)
{
    FxProgram *prog = fx_program_load(d, "examples/fibonacci.flux", NULL);
    EXPECT_EQ(fx_diag_errors(d), 0);
    return prog;
}

FX_TEST(hooks_see_every_call_and_decision)
{
    FxDiag d = {0};
    FxProgram *prog = load(&d);
    FxRuntime *rt = fx_runtime_new(prog);
    Seen seen = {0};
    FxHooks hooks = {&seen, on_call, on_decision};
    fx_runtime_set_hooks(rt, &hooks);
    FxValue arg = fx_val_int(10), out;
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 1, &out), FX_OK);
    EXPECT_EQ(out.u.i, 55);
    /* fib(10) calls itself 2 * fib(11) - 2 = 176 times below the entry */
    EXPECT_EQ(seen.calls, 176);
    EXPECT_EQ(fx_runtime_stats(rt).calls, 176);
    /* each of the 177 activations tests n = 0, and those with n != 0 test n = 1 */
    EXPECT_EQ(seen.decisions, 177 + (177 - 34));
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

FX_TEST(node_counters_follow_execution)
{
    FxDiag d = {0};
    FxProgram *prog = load(&d);
    FxRuntime *rt = fx_runtime_new(prog);
    FxValue arg = fx_val_int(10), out;
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 1, &out), FX_OK);
    const FxGraph *g = fx_runtime_graph(rt, "fibonacci");
    uint64_t adds = 0, calls = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        FxNodeId id = {i + 1};
        if (g->nodes[i].op == FX_NODE_ADD)
            adds = fx_runtime_node_count(rt, g, id);
        if (g->nodes[i].op == FX_NODE_CALL)
            calls += fx_runtime_node_count(rt, g, id);
    }
    EXPECT_EQ(adds, 88);   /* the activations with n >= 2 */
    EXPECT_EQ(calls, 176); /* two calls each */
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

FX_TEST(budgets_stop_runs_cleanly)
{
    FxDiag d = {0};
    FxProgram *prog = load(&d);
    FxRuntime *rt = fx_runtime_new(prog);
    FxBudgets b = fx_budgets_default();
    b.max_steps = 1000;
    fx_runtime_set_budgets(rt, b);
    FxValue arg = fx_val_int(25), out;
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 1, &out), FX_ERR_RUNTIME);
    EXPECT(strstr(fx_runtime_error(rt), "--max-steps") != NULL);
    /* the runtime is usable again after an error */
    b.max_steps = 0;
    fx_runtime_set_budgets(rt, b);
    arg = fx_val_int(12);
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 1, &out), FX_OK);
    EXPECT_EQ(out.u.i, 144);
    arg = fx_val_int(-1);
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 1, &out), FX_ERR_RUNTIME);
    EXPECT(strstr(fx_runtime_error(rt), "parameter `n` is a Natural") != NULL);
    /* the same error as a record: refused on entry, at no node */
    const FxError *e = fx_runtime_last_error(rt);
    EXPECT_EQ(e->status, FX_ERR_RUNTIME);
    EXPECT_STR_EQ(e->message, fx_runtime_error(rt));
    EXPECT_STR_EQ(e->graph, "fibonacci");
    EXPECT_EQ(e->node, 0);
    arg = fx_val_int(5);
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 1, &out), FX_OK);
    EXPECT_EQ(fx_runtime_last_error(rt)->status, FX_OK);
    EXPECT_EQ(fx_runtime_call(rt, "fibonacci", &arg, 2, &out), FX_ERR_USAGE);
    EXPECT_EQ(fx_runtime_last_error(rt)->status, FX_ERR_USAGE);
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

FX_TEST(a_failing_node_is_named_in_the_error_record)
{
    const char *text = "intent f(n: Int) -> Int:\n"
                       "    constraints:\n"
                       "        - result = 10 div n\n";
    FxDiag d = {0};
    FxProgram *prog = fx_program_load_text(&d, "t.flux", text, strlen(text), NULL);
    EXPECT_EQ(fx_diag_errors(&d), 0);
    FxRuntime *rt = fx_runtime_new(prog);
    FxValue arg = fx_val_int(0), out;
    EXPECT_EQ(fx_runtime_call(rt, "f", &arg, 1, &out), FX_ERR_RUNTIME);
    const FxError *e = fx_runtime_last_error(rt);
    EXPECT_EQ(e->status, FX_ERR_RUNTIME);
    EXPECT_STR_EQ(e->message, "t.flux:3:20: in `f`: division by zero");
    EXPECT_STR_EQ(e->graph, "f");
    EXPECT(e->node > 0);
    EXPECT_STR_EQ(e->file, "t.flux");
    EXPECT_EQ(e->line, 3);
    EXPECT_EQ(e->col, 20);
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

int main(void)
{
    return fx_test_run();
}
