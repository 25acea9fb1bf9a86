/*
 * fx_test.h: the unit-test harness, small enough to read in a minute.
 *
 *   FX_TEST(name) { EXPECT_EQ(1 + 1, 2); EXPECT_STR_EQ(s, "x"); }
 *   int main(void) { return fx_test_run(); }
 *
 * Each test registers itself through a constructor. fx_test_run runs them all
 * and ends with the plain closing line "N passed, N failed" that the test
 * runner (tests/run-tests.sh) adds up.
 */
#ifndef FX_TEST_H
#define FX_TEST_H

#include <stdio.h>
#include <string.h>

typedef void (*FxTestFn)(void);

static struct {
    const char *names[512];
    FxTestFn fns[512];
    int count;
    int failed_checks;
} fx_tests;

#define FX_TEST(name)                                                                              \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void register_##name(void)                                 \
    {                                                                                              \
        fx_tests.names[fx_tests.count] = #name;                                                    \
        fx_tests.fns[fx_tests.count++] = name;                                                     \
    }                                                                                              \
    static void name(void)

#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c);                       \
            fx_tests.failed_checks++;                                                              \
        }                                                                                          \
    } while (0)

#define EXPECT_EQ(a, b)                                                                            \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_);  \
            fx_tests.failed_checks++;                                                              \
        }                                                                                          \
    } while (0)

#define EXPECT_STR_EQ(a, b)                                                                        \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                   \
            fprintf(stderr, "%s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a,       \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                       \
            fx_tests.failed_checks++;                                                              \
        }                                                                                          \
    } while (0)

static inline int fx_test_run(void)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < fx_tests.count; i++) {
        int before = fx_tests.failed_checks;
        fx_tests.fns[i]();
        if (fx_tests.failed_checks == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", fx_tests.names[i]);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
