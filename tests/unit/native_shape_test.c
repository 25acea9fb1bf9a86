/*
 * native_shape_test.c: generated code calls the callees a kernel answers
 * by number, and which callees those are changes within a runtime
 * (runaway protection memoizes an exponential helper mid-run). Code
 * generated for one shape of a module is refused by a runtime whose module
 * has the other shape, both ways, and the refused intent runs interpreted
 * with the right answer (it used to call kernel 0 of an empty table: a
 * crash in `flux optimize`). Needs a C compiler (tcc or cc); without one
 * the test says so and checks nothing native.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/interp.h"
#include "exec/interp_int.h"
#include "exec/native.h"
#include "fx_test.h"
#include "hw/native.h"
#include "lang/program.h"

static const char source[] =
    "intent slow(n: Natural) -> Natural:\n"
    "    constraints:\n"
    "        - slow(0) = 0\n"
    "        - slow(1) = 1\n"
    "        - slow(n) = slow(n - 1) + slow(n - 2)\n"
    "intent wrap(n: Natural) -> Natural:\n"
    "    constraints:\n"
    "        - result = slow(n) + 1\n";

static char dir[] = "/tmp/flux-shape-XXXXXX";

/* wrap's module as rt has it now, built and loaded; NULL without a compiler */
static FxNatEntry build_wrap(FxRuntime *rt, FxBuf *src)
{
    FxBuf why = {0};
    EXPECT(fx_native_source(rt, "wrap", src, &why));
    fx_buf_free(&why);
    char err[640];
    for (int t = FX_CODE_FAST; t < FX_CODE__COUNT; t++) {
        FxNativeObject o;
        if (!fx_native_plan((FxCodeTier)t, fx_buf_str(src), dir, "test", &o, err, sizeof(err)))
            continue;
        EXPECT(fx_native_build(&o, fx_buf_str(src), err, sizeof(err)));
        return (FxNatEntry)fx_native_load(&o, FX_NAT_ENTRY, err, sizeof(err));
    }
    return NULL;
}

static int64_t call_wrap(FxRuntime *rt, int64_t n)
{
    FxValue arg = fx_val_int(n), out;
    EXPECT_EQ(fx_runtime_call(rt, "wrap", &arg, 1, &out), FX_OK);
    int64_t v = out.u.i;
    fx_value_release(out);
    return v;
}

FX_TEST(code_for_one_shape_is_refused_by_a_module_of_the_other)
{
    FxDiag d = {0};
    FxProgram *prog = fx_program_load_text(&d, "shape.flux", source, strlen(source), NULL);
    EXPECT_EQ(fx_diag_errors(&d), 0);
    EXPECT(mkdtemp(dir) != NULL);

    FxRuntime *fresh = fx_runtime_new(prog), *watched = fx_runtime_new(prog);
    fx_runtime_set_native(fresh, false);
    fx_runtime_set_native(watched, false);
    /* runaway protection memoizes slow in this runtime: a kernel now */
    EXPECT_EQ(call_wrap(watched, 32), 2178310);
    EXPECT(fx_func_answers_calls(fx_runtime_func(watched, "slow")));
    EXPECT(!fx_func_answers_calls(fx_runtime_func(fresh, "slow")));

    FxBuf plain = {0}, kerneled = {0};
    FxNatEntry a = build_wrap(fresh, &plain), b = build_wrap(watched, &kerneled);
    if (!a || !b) {
        printf("  (no C compiler: nothing native checked)\n");
    } else {
        EXPECT(strcmp(fx_buf_str(&plain), fx_buf_str(&kerneled)) != 0);
        EXPECT(fx_native_shape_holds(fx_runtime_func(fresh, "wrap"), a));
        EXPECT(!fx_native_shape_holds(fx_runtime_func(fresh, "wrap"), b));
        EXPECT(fx_native_shape_holds(fx_runtime_func(watched, "wrap"), b));
        EXPECT(!fx_native_shape_holds(fx_runtime_func(watched, "wrap"), a));

        fx_runtime_set_native(fresh, true);
        EXPECT(!fx_runtime_attach_native(fresh, "wrap", b, "test"));
        EXPECT(fx_runtime_native_of(fresh, "wrap") == NULL);
        EXPECT_EQ(call_wrap(fresh, 20), 6766); /* interpreted, not kernel 0 of nothing */
        EXPECT(fx_runtime_attach_native(fresh, "wrap", a, "test"));
        EXPECT_EQ(call_wrap(fresh, 20), 6766);

        fx_runtime_set_native(watched, true);
        EXPECT(!fx_runtime_attach_native(watched, "wrap", a, "test"));
        EXPECT(fx_runtime_attach_native(watched, "wrap", b, "test"));
        EXPECT_EQ(call_wrap(watched, 40), 102334156);
    }
    fx_buf_free(&plain);
    fx_buf_free(&kerneled);
    fx_runtime_free(fresh);
    fx_runtime_free(watched);
    fx_program_free(prog);
    fx_diag_free(&d);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    EXPECT_EQ(system(cmd), 0);
}

int main(void)
{
    return fx_test_run();
}
