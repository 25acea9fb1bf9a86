/*
 * linrec_test.c: the linear-recurrence kernels against a reference that
 * steps the definition naively in GMP: both kernels, for n from 0 to 300
 * and a few large n, over recurrences chosen to reach every path (order 1
 * to 8, coefficients 1, 0, -1, large and extreme, the order-2 norm path
 * and the generic one, huge and negative initial values); fibonacci
 * against mpz_fib_ui; where the int64 path gives up; and cancellation.
 * Leaks are caught by LeakSanitizer in the asan build.
 */
#include <stdlib.h>

#include "exec/linrec.h"
#include "fx_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct Rec {
    const char *name;
    uint32_t order;
    int64_t coeffs[FX_LINREC_MAX_ORDER];
    const char *initial[FX_LINREC_MAX_ORDER];
} Rec;

#define HUGE60  "123456789012345678901234567890123456789012345678901234567890"
#define NHUGE60 "-987654321098765432109876543210987654321098765432109876543210"

static const Rec recs[] = {
        {"fibonacci", 2, {1, 1}, {"0", "1"}},
        {"lucas", 2, {1, 1}, {"2", "1"}},
        {"tribonacci", 3, {1, 1, 1}, {"0", "0", "1"}},
        {"tetranacci", 4, {1, 1, 1, 1}, {"0", "0", "0", "1"}},
        {"pell", 2, {2, 1}, {"0", "1"}},
        {"linear", 2, {2, -1}, {"3", "7"}},
        {"jacobsthal", 2, {1, 2}, {"0", "1"}},
        {"alternating", 2, {-1, 1}, {"1", "-1"}},
        {"neg-pell", 2, {-2, -1}, {"1", "1"}},
        {"odd-c1", 2, {3, -1}, {"0", "1"}},
        {"even-c1", 2, {-4, 1}, {"2", "-3"}},
        {"no-c1", 2, {0, 1}, {"5", "-6"}},
        {"no-c2", 2, {3, 0}, {"5", "-6"}},
        {"all-zero", 2, {0, 0}, {"7", "8"}},
        {"negative", 3, {-3, 5, -2}, {"1", "-4", "9"}},
        {"period-3", 3, {0, 0, 1}, {"4", "-5", "6"}},
        {"gap", 3, {1, 0, 2}, {"1", "0", "-1"}},
        {"geometric", 1, {3}, {"5"}},
        {"alternating-1", 1, {-1}, {"-9"}},
        {"big-ratio", 1, {-1000000007}, {"2"}},
        {"huge-fib", 2, {1, 1}, {HUGE60, NHUGE60}},
        {"huge-3", 3, {2, -1, 3}, {NHUGE60, "0", HUGE60}},
        {"extreme", 2, {INT64_MAX, INT64_MIN}, {"1", "-1"}},
        {"extreme-1", 1, {INT64_MIN}, {"-1"}},
        {"order-8", 8, {1, -2, 0, 3, -1, 0, 1, 2}, {"1", "0", "-1", "2", "0", "0", "3", "-5"}},
        {"octanacci", 8, {1, 1, 1, 1, 1, 1, 1, 1}, {"0", "0", "0", "0", "0", "0", "0", "1"}},
};

static const Rec *find(const char *name)
{
    for (size_t i = 0; i < COUNT(recs); i++) {
        if (strcmp(recs[i].name, name) == 0)
            return &recs[i];
    }
    abort();
}

static void spec_of(const Rec *r, FxLinRecSpec *s)
{
    bool ok = fx_linrec_init(s, r->order, r->coeffs, r->initial);
    if (!ok) {
        fprintf(stderr, "cannot init %s\n", r->name);
        abort();
    }
}

/* f(0) .. f(last) by the definition, into a new array of mpz_t. */
static mpz_t *reference(const Rec *r, uint64_t last)
{
    mpz_t *f = malloc((last + 1 + r->order) * sizeof(*f));
    for (uint64_t m = 0; m <= last || m < r->order; m++) {
        if (m < r->order) {
            mpz_init_set_str(f[m], r->initial[m], 10);
            continue;
        }
        mpz_init(f[m]);
        for (uint32_t i = 1; i <= r->order; i++) {
            mpz_t t;
            mpz_init(t);
            mpz_mul_si(t, f[m - i], r->coeffs[i - 1]);
            mpz_add(f[m], f[m], t);
            mpz_clear(t);
        }
    }
    return f;
}

static void free_reference(const Rec *r, mpz_t *f, uint64_t last)
{
    for (uint64_t m = 0; m <= last || m < r->order; m++)
        mpz_clear(f[m]);
    free(f);
}

/* f(ns[j]) into out[j] (initialised here), ns increasing, by the
 * definition over a window of the last order + 1 values. */
static void reference_at(const Rec *r, const uint64_t *ns, size_t count, mpz_t *out)
{
    uint32_t k = r->order;
    mpz_t w[FX_LINREC_MAX_ORDER + 1], t;
    mpz_init(t);
    for (uint32_t i = 0; i <= k; i++)
        mpz_init(w[i]);
    size_t j = 0;
    for (uint64_t m = 0; j < count; m++) {
        mpz_ptr fm = w[m % (k + 1)];
        if (m < k) {
            mpz_set_str(fm, r->initial[m], 10);
        } else {
            mpz_set_ui(fm, 0);
            for (uint32_t i = 1; i <= k; i++) {
                mpz_mul_si(t, w[(m - i) % (k + 1)], r->coeffs[i - 1]);
                mpz_add(fm, fm, t);
            }
        }
        for (; j < count && ns[j] == m; j++)
            mpz_init_set(out[j], fm);
    }
    for (uint32_t i = 0; i <= k; i++)
        mpz_clear(w[i]);
    mpz_clear(t);
}

/* Both kernels give want for f(n); prints the recurrence and n if not. */
static void expect_both(const FxLinRecSpec *s, const char *name, uint64_t n, const mpz_t want)
{
    mpz_t got;
    mpz_init_set_si(got, 424242);
    bool ok = fx_linrec_loop(s, n, got, NULL, NULL);
    if (!ok || mpz_cmp(got, want) != 0) {
        fprintf(stderr, "loop: %s(%llu) wrong\n", name, (unsigned long long)n);
        EXPECT(ok && mpz_cmp(got, want) == 0);
    }
    mpz_set_si(got, 424242);
    ok = fx_linrec_power(s, n, got, NULL, NULL);
    if (!ok || mpz_cmp(got, want) != 0) {
        fprintf(stderr, "power: %s(%llu) wrong\n", name, (unsigned long long)n);
        EXPECT(ok && mpz_cmp(got, want) == 0);
    }
    mpz_clear(got);
}

/* ---- against the reference ---- */

FX_TEST(small_n_all_recurrences)
{
    for (size_t i = 0; i < COUNT(recs); i++) {
        const Rec *r = &recs[i];
        FxLinRecSpec s;
        spec_of(r, &s);
        mpz_t *f = reference(r, 300);
        for (uint64_t n = 0; n <= 300; n++)
            expect_both(&s, r->name, n, f[n]);
        free_reference(r, f, 300);
        fx_linrec_clear(&s);
    }
}

FX_TEST(large_n_all_recurrences)
{
    const uint64_t ns[] = {1000, 1001, 4095, 4096, 4097, 12344, 12345, 99999, 100000};
    mpz_t want[COUNT(ns)];
    for (size_t i = 0; i < COUNT(recs); i++) {
        const Rec *r = &recs[i];
        // order 2 to 100000; the others, and 63 bits a step, not as far
        size_t count = r->order == 2 ? COUNT(ns) : COUNT(ns) - 2;
        if (r->coeffs[0] == INT64_MAX || r->coeffs[0] == INT64_MIN || r->order == 8)
            count = 5;
        FxLinRecSpec s;
        spec_of(r, &s);
        reference_at(r, ns, count, want);
        for (size_t j = 0; j < count; j++) {
            expect_both(&s, r->name, ns[j], want[j]);
            mpz_clear(want[j]);
        }
        fx_linrec_clear(&s);
    }
}

FX_TEST(fibonacci_against_gmp)
{
    FxLinRecSpec s;
    spec_of(find("fibonacci"), &s);
    const uint64_t ns[] = {0,   1,   2,    3,    90,    92,    93,    94,
                           127, 128, 1000, 4097, 65535, 65536, 99999, 100000};
    mpz_t want;
    mpz_init(want);
    for (size_t j = 0; j < COUNT(ns); j++) {
        mpz_fib_ui(want, ns[j]);
        expect_both(&s, "fib", ns[j], want);
    }
    // the power alone further on
    mpz_t got;
    mpz_init(got);
    const uint64_t far[] = {1000000, 1000001, 3141593};
    for (size_t j = 0; j < COUNT(far); j++) {
        mpz_fib_ui(want, far[j]);
        EXPECT(fx_linrec_power(&s, far[j], got, NULL, NULL));
        EXPECT(mpz_cmp(got, want) == 0);
    }
    // lucas too: L(n) = F(n-1) + F(n+1)
    FxLinRecSpec lucas;
    spec_of(find("lucas"), &lucas);
    mpz_lucnum_ui(want, 1000001);
    EXPECT(fx_linrec_power(&lucas, 1000001, got, NULL, NULL));
    EXPECT(mpz_cmp(got, want) == 0);
    mpz_clear(got);
    mpz_clear(want);
    fx_linrec_clear(&lucas);
    fx_linrec_clear(&s);
}

/* Bounded sequences let the power take any n. */
FX_TEST(power_at_the_largest_n)
{
    FxLinRecSpec s;
    spec_of(find("period-3"), &s); // period-3: 4, -5, 6
    mpz_t got, want;
    mpz_init(got);
    mpz_init(want);
    EXPECT(fx_linrec_power(&s, UINT64_MAX, got, NULL, NULL)); // 2^64 - 1 = 0 mod 3
    EXPECT(mpz_cmp_si(got, 4) == 0);
    EXPECT(fx_linrec_power(&s, UINT64_MAX - 1, got, NULL, NULL));
    EXPECT(mpz_cmp_si(got, 6) == 0);
    fx_linrec_clear(&s);

    // f(n) = 2 f(n-1) - f(n-2), f = 0, 1: f(n) = n
    const Rec line = {"n", 2, {2, -1}, {"0", "1"}};
    spec_of(&line, &s);
    EXPECT(fx_linrec_power(&s, UINT64_MAX, got, NULL, NULL));
    mpz_set_str(want, "18446744073709551615", 10);
    EXPECT(mpz_cmp(got, want) == 0);
    EXPECT(fx_linrec_power(&s, (uint64_t)1 << 62, got, NULL, NULL));
    mpz_set_str(want, "4611686018427387904", 10);
    EXPECT(mpz_cmp(got, want) == 0);
    fx_linrec_clear(&s);
    mpz_clear(got);
    mpz_clear(want);
}

/* ---- the int64 path ---- */

FX_TEST(loop_small_stops_where_int64_does)
{
    FxLinRecSpec s;
    spec_of(find("fibonacci"), &s);
    int64_t x = -1;
    EXPECT(fx_linrec_loop_small(&s, 92, &x));
    EXPECT_EQ(x, 7540113804746346429LL);
    EXPECT(fx_linrec_loop_small(&s, 90, &x));
    EXPECT_EQ(x, 2880067194370816120LL);
    EXPECT(fx_linrec_loop_small(&s, 0, &x));
    EXPECT_EQ(x, 0);
    x = -1;
    EXPECT(!fx_linrec_loop_small(&s, 93, &x));
    EXPECT(!fx_linrec_loop_small(&s, 1000, &x));
    EXPECT_EQ(x, -1); // untouched
    fx_linrec_clear(&s);

    // 5 * 3^n: 5 * 3^38 fits, 5 * 3^39 does not
    spec_of(find("geometric"), &s);
    EXPECT(fx_linrec_loop_small(&s, 38, &x));
    EXPECT_EQ(x, 6754258588364960445LL);
    EXPECT(!fx_linrec_loop_small(&s, 39, &x));
    fx_linrec_clear(&s);

    // a huge f(0): f(0 .. n) never all fit
    spec_of(find("huge-fib"), &s);
    EXPECT(!fx_linrec_loop_small(&s, 0, &x));
    EXPECT(!fx_linrec_loop_small(&s, 5, &x));
    fx_linrec_clear(&s);
}

/* A partial sum or a product may overflow while f(m) itself fits: the
 * int64 path redoes the step exactly and goes on. */
FX_TEST(loop_small_exact_past_partial_overflow)
{
    FxLinRecSpec s;
    const Rec partial = {"partial", 3, {INT64_MAX, INT64_MAX, -INT64_MAX}, {"1", "1", "1"}};
    spec_of(&partial, &s);
    int64_t x = 0;
    EXPECT(fx_linrec_loop_small(&s, 3, &x)); // MAX + MAX - MAX
    EXPECT_EQ(x, INT64_MAX);
    EXPECT(!fx_linrec_loop_small(&s, 4, &x)); // MAX^2
    fx_linrec_clear(&s);

    const Rec products = {"products", 2, {(int64_t)1 << 62, -((int64_t)1 << 62)}, {"4", "4"}};
    spec_of(&products, &s);
    EXPECT(fx_linrec_loop_small(&s, 2, &x)); // 2^64 - 2^64
    EXPECT_EQ(x, 0);
    EXPECT(!fx_linrec_loop_small(&s, 3, &x)); // -2^64
    fx_linrec_clear(&s);
}

/* ---- the spec ---- */

FX_TEST(init_rejects_bad_input)
{
    FxLinRecSpec s;
    const int64_t c[FX_LINREC_MAX_ORDER + 1] = {1, 1};
    const char *good[FX_LINREC_MAX_ORDER + 1] = {"0", "1", "0", "0", "0", "0", "0", "0", "0"};
    EXPECT(!fx_linrec_init(&s, 0, c, good));
    EXPECT(!fx_linrec_init(&s, FX_LINREC_MAX_ORDER + 1, c, good));
    const char *bad[][2] = {{"0", "1x"}, {"", "1"},   {"-", "1"},   {"+1", "1"},
                            {" 1", "1"}, {"0", "1 "}, {"--1", "1"}, {"0", NULL}};
    for (size_t i = 0; i < COUNT(bad); i++)
        EXPECT(!fx_linrec_init(&s, 2, c, bad[i]));
    EXPECT(fx_linrec_init(&s, FX_LINREC_MAX_ORDER, c, good));
    EXPECT_EQ(s.small_count, FX_LINREC_MAX_ORDER);
    fx_linrec_clear(&s);
    const char *neg[] = {"-0", "-12"};
    EXPECT(fx_linrec_init(&s, 2, c, neg));
    EXPECT(mpz_cmp_si(s.initial[1], -12) == 0);
    fx_linrec_clear(&s);
}

/* ---- cancellation ---- */

typedef struct Poll {
    int calls;
    int allow; /* calls that answer "keep going" */
} Poll;

static bool poll_cb(void *ctx)
{
    Poll *p = ctx;
    return p->calls++ < p->allow;
}

FX_TEST(keep_going_stops_the_loop)
{
    FxLinRecSpec s;
    spec_of(find("fibonacci"), &s);
    mpz_t out;
    mpz_init_set_si(out, 77);
    Poll p = {0, 0};
    EXPECT(!fx_linrec_loop(&s, 1000000, out, poll_cb, &p));
    EXPECT_EQ(p.calls, 1);
    EXPECT(mpz_cmp_si(out, 77) == 0);
    p = (Poll){0, 3};
    EXPECT(!fx_linrec_loop(&s, 1000000, out, poll_cb, &p));
    EXPECT_EQ(p.calls, 4);
    EXPECT(mpz_cmp_si(out, 77) == 0);
    fx_linrec_clear(&s);

    // f(n) = n stays in int64 for ever: the int64 loop polls too
    const Rec line = {"n", 2, {2, -1}, {"0", "1"}};
    spec_of(&line, &s);
    p = (Poll){0, 2};
    EXPECT(!fx_linrec_loop(&s, UINT64_MAX, out, poll_cb, &p));
    EXPECT_EQ(p.calls, 3);
    EXPECT(mpz_cmp_si(out, 77) == 0);
    p = (Poll){0, 1000000};
    EXPECT(fx_linrec_loop(&s, 3 * 4096 + 7, out, poll_cb, &p));
    EXPECT(mpz_cmp_si(out, 3 * 4096 + 7) == 0);
    EXPECT(p.calls >= 3);
    fx_linrec_clear(&s);
    mpz_clear(out);
}

/* In GMP the loop polls by work done, not only by steps: fib(200000)
 * is 49 polls by steps, some 800 by limbs touched. */
FX_TEST(loop_polls_by_work)
{
    FxLinRecSpec s;
    spec_of(find("fibonacci"), &s);
    mpz_t out, want;
    mpz_init(out);
    mpz_init(want);
    Poll p = {0, 1 << 30};
    EXPECT(fx_linrec_loop(&s, 200000, out, poll_cb, &p));
    mpz_fib_ui(want, 200000);
    EXPECT(mpz_cmp(out, want) == 0);
    EXPECT(p.calls > 200);
    mpz_clear(out);
    mpz_clear(want);
    fx_linrec_clear(&s);
}

FX_TEST(keep_going_stops_the_power)
{
    const char *names[] = {"fibonacci", "tribonacci", "jacobsthal"}; // norm, generic k = 3, 2
    for (size_t i = 0; i < COUNT(names); i++) {
        FxLinRecSpec s;
        spec_of(find(names[i]), &s);
        mpz_t out;
        mpz_init_set_si(out, 77);
        Poll p = {0, 0};
        EXPECT(!fx_linrec_power(&s, 1000000, out, poll_cb, &p));
        EXPECT_EQ(p.calls, 1);
        EXPECT(mpz_cmp_si(out, 77) == 0);
        p = (Poll){0, 5};
        EXPECT(!fx_linrec_power(&s, 1000000, out, poll_cb, &p));
        EXPECT_EQ(p.calls, 6);
        EXPECT(mpz_cmp_si(out, 77) == 0);
        p = (Poll){0, 1000};
        EXPECT(fx_linrec_power(&s, 1000000, out, poll_cb, &p));
        EXPECT(p.calls >= 10); // 20 bits, fewer than 10 of them in int64
        // the last poll (before the last multiplication) stops it too
        int all = p.calls;
        mpz_set_si(out, 77);
        p = (Poll){0, all - 1};
        EXPECT(!fx_linrec_power(&s, 1000000, out, poll_cb, &p));
        EXPECT_EQ(p.calls, all);
        EXPECT(mpz_cmp_si(out, 77) == 0);
        mpz_clear(out);
        fx_linrec_clear(&s);
    }
}

int main(void)
{
    return fx_test_run();
}
