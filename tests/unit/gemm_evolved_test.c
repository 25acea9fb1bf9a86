/*
 * gemm_evolved_test.c: the matrix kernel against the element-wise
 * definition run by v1. The rule finds the product of examples/matrix.flux
 * (Float and Int), the checker proves it, and both versions give the same
 * matrices on random sizes 1..13 in each dimension: Int exactly, also near
 * and past int64 (the kernel's overflow goes to the exact loop), Float bit
 * for bit. A look-alike (B[j,k] instead of B[k,j]) is not a product.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/interp.h"
#include "exec/value.h"
#include "fx_test.h"
#include "graph/lower.h"
#include "lang/program.h"
#include "proof/prove.h"

static FxProgram *prog;
static FxDiag diag;

static uint64_t seed = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static void versions(const char *intent, FxRuntime **v1, FxRuntime **evolved)
{
    const FxIntent *in = fx_program_find_intent(prog, intent);
    FxGraph *g = fx_lower_intent(prog, in);
    uint32_t map = 0;
    const char *why;
    EXPECT(fx_kernel_find(g, FX_KERNEL_GEMM, &map, &why));
    FxGraph *cand = fx_kernel_candidate(g, map, FX_KERNEL_GEMM, "v2");
    FxProofCache *cache = fx_proof_cache_new();
    FxProof *p = fx_prove_kernel_rewrite(g, cand, (FxNodeId){map}, FX_KERNEL_GEMM, cache, 5000);
    EXPECT_EQ(p->verdict, FX_PROOF_PROVED);
    fx_proof_free(p);
    fx_proof_cache_free(cache);
    EXPECT(!fx_kernel_find(cand, FX_KERNEL_GEMM, &map, &why));
    fx_graph_free(g);
    *v1 = fx_runtime_new(prog);
    *evolved = fx_runtime_new(prog);
    EXPECT(fx_runtime_use_graph(*evolved, cand));
}

/* An r x c matrix of random cells: ints of `bits` bits, or floats. */
static FxValue matrix(size_t r, size_t c, bool floats, int bits)
{
    FxValue *cells = malloc((r * c > 0 ? r * c : 1) * sizeof(FxValue));
    for (size_t i = 0; i < r * c; i++) {
        int64_t x = (int64_t)(rnd() >> (64 - bits)) - ((int64_t)1 << (bits - 1));
        cells[i] = floats ? fx_val_float((double)x / 7.0) : fx_val_int(x);
    }
    FxValue m = fx_val_matrix(r, c, cells);
    free(cells);
    return m;
}

static char *run(FxRuntime *rt, const char *intent, FxValue a, FxValue b)
{
    FxValue args[2] = {a, b}, v;
    if (fx_runtime_call(rt, intent, args, 2, &v) != FX_OK)
        return fx_xstrdup(fx_runtime_error(rt));
    FxBuf out = {0};
    fx_val_print(v, &out); /* floats print exactly (shortest round trip) */
    fx_value_release(v);
    return fx_buf_take(&out);
}

static void compare(const char *intent, bool floats, int bits, int rounds)
{
    FxRuntime *v1, *ev;
    versions(intent, &v1, &ev);
    for (int r = 0; r < rounds; r++) {
        size_t m = 1 + rnd() % 13, k = 1 + rnd() % 13, n = 1 + rnd() % 13;
        FxValue a = matrix(m, k, floats, bits), b = matrix(k, n, floats, bits);
        char *x = run(v1, intent, a, b), *y = run(ev, intent, a, b);
        if (strcmp(x, y))
            fprintf(stderr, "%s %zux%zux%zu:\n v1 %.200s\n kernel %.200s\n", intent, m, k, n, x,
                    y);
        EXPECT_STR_EQ(x, y);
        free(x);
        free(y);
        fx_value_release(a);
        fx_value_release(b);
    }
    fx_runtime_free(v1);
    fx_runtime_free(ev);
}

FX_TEST(int_products_are_exact)
{
    prog = fx_program_load(&diag, "examples/matrix.flux", NULL);
    EXPECT_EQ(fx_diag_errors(&diag), 0);
    compare("matrix_multiply_int", false, 12, 300);
    compare("matrix_multiply_int", false, 40, 100); /* products near 2^80: past int64 */
    compare("matrix_multiply_int", false, 63, 50);
}

FX_TEST(float_products_are_bit_identical)
{
    compare("matrix_multiply", true, 30, 300);
}

FX_TEST(a_transposed_look_alike_is_not_a_product)
{
    FxDiag d2 = {0};
    FxProgram *p2 = fx_program_load(&d2, "tests/prove/not_gemm.flux", NULL);
    EXPECT_EQ(fx_diag_errors(&d2), 0);
    FxGraph *g = fx_lower_intent(p2, fx_program_find_intent(p2, "abt"));
    uint32_t map;
    const char *why;
    EXPECT(!fx_kernel_find(g, FX_KERNEL_GEMM, &map, &why));
    fx_graph_free(g);
    fx_program_free(p2);
    fx_diag_free(&d2);
    fx_program_free(prog);
    fx_diag_free(&diag);
}

int main(void)
{
    return fx_test_run();
}
