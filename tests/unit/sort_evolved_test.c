/*
 * sort_evolved_test.c: the sort kernels against the naive sort of v1, as
 * the interpreter runs them. For each sort of tests/prove/sorts.flux
 * (ascending, descending, stably by a record field in both directions, by
 * an expression, strings), the rule's candidate is proved, then run beside
 * v1 on thousands of random lists: empty, one element, duplicates,
 * negative numbers, the int64 extremes, and sizes around every threshold
 * of the kernels' choice (32 elements, nearly sorted, 4096, a narrow key
 * range). Lists too long for v1's bubble sort are checked against a
 * stable sort written here. Every answer must be equal, value for value.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/interp.h"
#include "exec/value.h"
#include "fx_test.h"
#include "graph/lower.h"
#include "lang/program.h"
#include "opt/rule_sort.h"
#include "proof/prove.h"

static FxProgram *prog;
static FxDiag diag;

typedef struct Pair {
    FxRuntime *v1, *evolved;
} Pair;

static Pair runtimes(const char *intent)
{
    const FxIntent *in = fx_program_find_intent(prog, intent);
    FxGraph *g = fx_lower_intent(prog, in);
    const char *why;
    EXPECT(fx_rule_sort_applies(g, &why));
    FxGraph *cand = fx_rule_sort_candidate(g, "v2");
    FxProof *p = fx_prove_sort_instance(g, cand, true);
    EXPECT_EQ(p->verdict, FX_PROOF_PROVED);
    fx_proof_free(p);
    EXPECT(!fx_rule_sort_applies(cand, &why)); /* once is enough */
    fx_graph_free(g);
    Pair r = {fx_runtime_new(prog), fx_runtime_new(prog)};
    EXPECT(fx_runtime_use_graph(r.evolved, cand));
    return r;
}

static void free_pair(Pair *p)
{
    fx_runtime_free(p->v1);
    fx_runtime_free(p->evolved);
}

static char *show(FxValue v)
{
    FxBuf b = {0};
    fx_val_print(v, &b);
    return fx_buf_take(&b);
}

/* Runs intent on arg with both; returns whether the answers are equal. */
static bool same(Pair *p, const char *intent, FxValue arg, bool with_v1, const char *want)
{
    FxValue a = {0}, b = {0};
    bool ok = fx_runtime_call(p->evolved, intent, &arg, 1, &b) == FX_OK;
    char *tb = ok ? show(b) : NULL, *ta = NULL;
    if (ok && with_v1) {
        ok = fx_runtime_call(p->v1, intent, &arg, 1, &a) == FX_OK;
        ta = ok ? show(a) : NULL;
        ok = ok && !strcmp(ta, tb);
    } else if (ok && want) {
        ok = !strcmp(want, tb);
    }
    if (!ok)
        fprintf(stderr, "%s differs: v1 %.200s\n  kernels %.200s\n", intent, ta ? ta : "-",
                tb ? tb : fx_runtime_error(p->evolved));
    free(ta);
    free(tb);
    fx_value_release(a);
    fx_value_release(b);
    return ok;
}

static uint64_t seed = 88172645463325252ULL;
static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* n values of one of several shapes. */
static void make(int64_t *x, size_t n, int shape)
{
    for (size_t i = 0; i < n; i++) {
        switch (shape) {
        case 0: x[i] = (int64_t)rnd(); break;                       /* full int64 range */
        case 1: x[i] = (int64_t)(rnd() % 7) - 3; break;             /* many duplicates */
        case 2: x[i] = (int64_t)i; break;                           /* sorted */
        case 3: x[i] = (int64_t)(n - i); break;                     /* reversed */
        case 4: x[i] = i % 3 ? INT64_MAX - (int64_t)(rnd() % 3) : INT64_MIN + (int64_t)(rnd() % 3); break;
        default: x[i] = (int64_t)(rnd() % 2001) - 1000; break;      /* narrow range */
        }
    }
    if (shape == 2 && n > 10) /* nearly sorted: a few swaps */
        for (int s = 0; s < 3; s++) {
            size_t i = rnd() % n, j = rnd() % n;
            int64_t t = x[i];
            x[i] = x[j];
            x[j] = t;
        }
}

static FxValue int_list(const int64_t *x, size_t n)
{
    FxValue *v = malloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++)
        v[i] = fx_val_int(x[i]);
    FxValue l = fx_val_list_take(v, n);
    free(v);
    return l;
}

static const char *const item_fields[] = {"key", "tag"};

static FxValue item_list(const int64_t *x, size_t n)
{
    FxValue *v = malloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++) {
        FxValue f[2] = {fx_val_int(x[i] % 5), fx_val_int((int64_t)i)}; /* equal keys: stability */
        v[i] = fx_val_record(2, item_fields, f);
    }
    FxValue l = fx_val_list_take(v, n);
    free(v);
    return l;
}

static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 64, 65, 100, 127, 128, 129, 200};

FX_TEST(kernels_equal_v1_on_random_lists)
{
    prog = fx_program_load(&diag, "tests/prove/sorts.flux", NULL);
    EXPECT_EQ(fx_diag_errors(&diag), 0);
    const char *intents[] = {"asc", "desc", "by_square", "by_key", "by_key_desc"};
    int64_t x[200];
    int checked = 0;
    for (size_t k = 0; k < sizeof(intents) / sizeof(intents[0]); k++) {
        Pair p = runtimes(intents[k]);
        bool items = !strncmp(intents[k], "by_key", 6);
        for (int round = 0; round < 40; round++) {
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                make(x, sizes[s], round % 6);
                FxValue arg = items ? item_list(x, sizes[s]) : int_list(x, sizes[s]);
                EXPECT(same(&p, intents[k], arg, true, NULL));
                fx_value_release(arg);
                checked++;
            }
        }
        free_pair(&p);
    }
    EXPECT(checked >= 2800);
}

FX_TEST(strings_and_big_integers_take_the_merge_sort)
{
    Pair p = runtimes("words");
    const char *w[] = {"pear", "apple", "fig", "apple", "", "kiwi", "Apple"};
    FxValue v[7];
    for (int i = 0; i < 7; i++)
        v[i] = fx_val_string(w[i], strlen(w[i]));
    FxValue arg = fx_val_list(v, 7);
    EXPECT(same(&p, "words", arg, true, NULL));
    fx_value_release(arg);
    for (int i = 0; i < 7; i++)
        fx_value_release(v[i]);
    free_pair(&p);
    p = runtimes("asc"); /* a big integer among small ones */
    FxValue big[4] = {fx_val_int(5), fx_val_int_text("-123456789012345678901234567890"),
                      fx_val_int(-1), fx_val_int_text("99999999999999999999")};
    arg = fx_val_list(big, 4);
    EXPECT(same(&p, "asc", arg, true, NULL));
    fx_value_release(arg);
    for (int i = 0; i < 4; i++)
        fx_value_release(big[i]);
    free_pair(&p);
}

static int cmp_asc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Lists too long for v1: against qsort, at the thresholds of the choice. */
FX_TEST(large_lists_against_a_reference)
{
    Pair p = runtimes("asc");
    static const size_t big[] = {4095, 4096, 4097, 50000, (1u << 20) + 3};
    for (size_t s = 0; s < sizeof(big) / sizeof(big[0]); s++) {
        for (int shape = 0; shape < 6; shape += (big[s] > 100000 ? 5 : 1)) {
            size_t n = big[s];
            int64_t *x = malloc(n * sizeof(int64_t));
            make(x, n, shape);
            FxValue arg = int_list(x, n);
            qsort(x, n, sizeof(int64_t), cmp_asc);
            FxValue want_v = int_list(x, n);
            char *want = show(want_v);
            EXPECT(same(&p, "asc", arg, false, want));
            free(want);
            fx_value_release(want_v);
            fx_value_release(arg);
            free(x);
        }
    }
    free_pair(&p);
    fx_program_free(prog);
    fx_diag_free(&diag);
}

int main(void)
{
    return fx_test_run();
}
