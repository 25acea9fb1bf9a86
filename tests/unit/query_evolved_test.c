/*
 * query_evolved_test.c: the query kernel against v1's interpreted scan.
 * Each selection of tests/prove/queries.flux (>=, >, <=, <, = on an Int
 * field, >= on a String field) is proved, then both versions answer the
 * same queries on random collections: empty, tiny, with many duplicates,
 * with values below, inside and above the keys. Each collection is asked
 * several times, so the kernel's second query onwards goes through its
 * sorted index; the answers, rows in the collection's order, must be the
 * same every time.
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
static const char *const fields[] = {"name", "age"};

static uint64_t seed = 0xD1B54A32D192ED03ULL;
static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static FxValue rows(size_t n)
{
    FxValue *v = malloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++) {
        char name[8] = {(char)('a' + rnd() % 5), (char)('a' + rnd() % 3), 0};
        FxValue f[2] = {fx_val_string(name, strlen(name)), fx_val_int((int64_t)(rnd() % 20))};
        v[i] = fx_val_record(2, fields, f);
        fx_value_release(f[0]);
    }
    FxValue l = fx_val_list_take(v, n);
    free(v);
    return l;
}

static char *ask(FxRuntime *rt, const char *intent, FxValue list, FxValue k)
{
    FxValue args[2] = {list, k}, v;
    if (fx_runtime_call(rt, intent, args, 2, &v) != FX_OK)
        return fx_xstrdup(fx_runtime_error(rt));
    FxBuf b = {0};
    fx_val_print(v, &b);
    fx_value_release(v);
    return fx_buf_take(&b);
}

FX_TEST(the_kernel_answers_as_v1)
{
    prog = fx_program_load(&diag, "tests/prove/queries.flux", NULL);
    EXPECT_EQ(fx_diag_errors(&diag), 0);
    const char *intents[] = {"at_least", "above", "at_most", "below", "aged", "named_from"};
    static const size_t sizes[] = {0, 1, 2, 5, 50, 300};
    int asked = 0;
    for (size_t q = 0; q < sizeof(intents) / sizeof(intents[0]); q++) {
        FxGraph *g = fx_lower_intent(prog, fx_program_find_intent(prog, intents[q]));
        uint32_t fold = 0;
        const char *why;
        EXPECT(fx_kernel_find(g, FX_KERNEL_INDEX, &fold, &why));
        FxGraph *cand = fx_kernel_candidate(g, fold, FX_KERNEL_INDEX, "v2");
        FxProof *p = fx_prove_kernel_rewrite(g, cand, (FxNodeId){fold}, FX_KERNEL_INDEX, NULL, 5000);
        EXPECT_EQ(p->verdict, FX_PROOF_PROVED);
        fx_proof_free(p);
        fx_graph_free(g);
        FxRuntime *v1 = fx_runtime_new(prog), *ev = fx_runtime_new(prog);
        EXPECT(fx_runtime_use_graph(ev, cand));
        bool strings = !strcmp(intents[q], "named_from");
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            for (int round = 0; round < 4; round++) {
                FxValue list = rows(sizes[s]);
                for (int k = -2; k <= 22; k += 3) { /* the same list, query after query */
                    char key[4] = {(char)('a' + (k + 2) % 6), 0};
                    FxValue kv = strings ? fx_val_string(key, 1) : fx_val_int(k);
                    char *a = ask(v1, intents[q], list, kv), *b = ask(ev, intents[q], list, kv);
                    if (strcmp(a, b))
                        fprintf(stderr, "%s k=%d: v1 %.120s\n  kernel %.120s\n", intents[q], k, a,
                                b);
                    EXPECT_STR_EQ(a, b);
                    free(a);
                    free(b);
                    fx_value_release(kv);
                    asked++;
                }
                fx_value_release(list);
            }
        }
        fx_runtime_free(v1);
        fx_runtime_free(ev);
    }
    EXPECT(asked >= 1200);
    fx_program_free(prog);
    fx_diag_free(&diag);
}

int main(void)
{
    return fx_test_run();
}
