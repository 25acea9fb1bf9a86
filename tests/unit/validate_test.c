/*
 * validate_test.c: runtime validation catches wrong outputs (out of order,
 * a dropped duplicate, a non-member, a repeated member, a broken
 * postcondition) and accepts right ones.
 */
#include <stdlib.h>
#include <string.h>

#include "fx_test.h"
#include "lang/program.h"
#include "opt/validate.h"

static FxValue ints(const int64_t *xs, size_t n)
{
    FxValue items[64];
    for (size_t i = 0; i < n; i++)
        items[i] = fx_val_int(xs[i]);
    return fx_val_list(items, n);
}

static bool valid(FxRuntime *rt, FxProgram *prog, const char *intent, const FxValue *args,
                  FxValue out, const char *expect_in_message)
{
    FxValidation v = fx_validate_output(rt, prog, fx_program_find_intent(prog, intent), args, out,
                                        0);
    if (!v.ok && expect_in_message && !strstr(v.violation, expect_in_message))
        fprintf(stderr, "unexpected violation: %s\n", v.violation);
    bool ok = v.ok || (expect_in_message && strstr(v.violation, expect_in_message));
    ok = expect_in_message ? !v.ok && ok : v.ok;
    free(v.violation);
    return ok;
}

FX_TEST(sorted_permutations)
{
    FxDiag d = {0};
    FxProgram *prog = fx_program_load(&d, "examples/sort.flux", NULL);
    FxRuntime *rt = fx_runtime_new(prog);
    int64_t in[] = {5, -2, 5, 0}, good[] = {-2, 0, 5, 5}, unsorted[] = {-2, 5, 0, 5};
    int64_t dropped[] = {-2, 0, 5}, changed[] = {-2, 0, 5, 6};
    FxValue arg = ints(in, 4);
    FxValue a = ints(good, 4), b = ints(unsorted, 4), c = ints(dropped, 3), e = ints(changed, 4);
    EXPECT(valid(rt, prog, "sort", &arg, a, NULL));
    EXPECT(valid(rt, prog, "sort", &arg, b, "out of order: 5 then 0"));
    EXPECT(valid(rt, prog, "sort", &arg, c, "the output has 3 elements, the input 4"));
    EXPECT(valid(rt, prog, "sort", &arg, e, "multiset hashes differ"));
    fx_value_release(arg);
    fx_value_release(a);
    fx_value_release(b);
    fx_value_release(c);
    fx_value_release(e);
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

FX_TEST(comprehension_members)
{
    FxDiag d = {0};
    FxProgram *prog = fx_program_load(&d, "examples/primes.flux", NULL);
    FxRuntime *rt = fx_runtime_new(prog);
    FxValue n = fx_val_int(30);
    int64_t good[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29}, nine[] = {2, 3, 5, 7, 9};
    int64_t twice[] = {2, 3, 3, 5}, big[] = {2, 31};
    FxValue a = ints(good, 10), b = ints(nine, 5), c = ints(twice, 4), e = ints(big, 2);
    EXPECT(valid(rt, prog, "find_primes", &n, a, NULL));
    EXPECT(valid(rt, prog, "find_primes", &n, b, "9, does not pass"));
    EXPECT(valid(rt, prog, "find_primes", &n, c, "3 is in the output twice"));
    EXPECT(valid(rt, prog, "find_primes", &n, e, "31, does not pass `2 ≤ p ≤ n`"));
    fx_value_release(a);
    fx_value_release(b);
    fx_value_release(c);
    fx_value_release(e);
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

FX_TEST(postconditions)
{
    FxDiag d = {0};
    const char *text = "intent half(n: Natural) -> Natural:\n    constraints:\n"
                       "        - result = n div 2\n        - 2 * result <= n\n";
    FxProgram *prog = fx_program_load_text(&d, "half.flux", text, strlen(text), NULL);
    FxRuntime *rt = fx_runtime_new(prog);
    FxValue n = fx_val_int(9);
    EXPECT(valid(rt, prog, "half", &n, fx_val_int(4), NULL));
    EXPECT(valid(rt, prog, "half", &n, fx_val_int(5), "`2 * result <= n` fails on 5"));
    fx_runtime_free(rt);
    fx_program_free(prog);
    fx_diag_free(&d);
}

int main(void)
{
    return fx_test_run();
}
