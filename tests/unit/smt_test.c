/*
 * smt_test.c: the FxSmt term language against Z3: validity, models, Flux's
 * floor division, uninterpreted functions, quantifiers, budgets, and errors
 * that must become invalid terms or FX_SMT_ERROR instead of ending the process.
 */
#include <stdlib.h>

#include "fx_test.h"
#include "proof/smt.h"

#define I FX_SMT_SORT_INT
#define B FX_SMT_SORT_BOOL

/* The model value of t, compared and freed. */
#define EXPECT_VALUE(s, t, text)             \
    do {                                     \
        char *v_ = fx_smt_model_value(s, t); \
        EXPECT_STR_EQ(v_, text);             \
        free(v_);                            \
    } while (0)

static FxSmtTerm eq(FxSmt *s, FxSmtTerm a, FxSmtTerm b)
{
    return fx_smt_binop(s, FX_SMT_EQ, a, b);
}

static FxSmtTerm num(FxSmt *s, int64_t v)
{
    return fx_smt_int64(s, v);
}

FX_TEST(add_commutes)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtTerm a = fx_smt_var(s, "a", I), b = fx_smt_var(s, "b", I);
    FxSmtTerm claim = eq(s, fx_smt_binop(s, FX_SMT_ADD, a, b), fx_smt_binop(s, FX_SMT_ADD, b, a));
    FxSmtTerm negated = fx_smt_not(s, claim);
    EXPECT(negated.v != 0);
    EXPECT_EQ(fx_smt_check(s, 1, &negated), FX_SMT_UNSAT);
    EXPECT_STR_EQ(fx_smt_reason(s), "");
    /* No model after UNSAT. */
    EXPECT(fx_smt_model_value(s, a) == NULL);
    fx_smt_free(s);
}

FX_TEST(sub_does_not_commute)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtTerm a = fx_smt_var(s, "a", I), b = fx_smt_var(s, "b", I);
    FxSmtTerm ab = fx_smt_binop(s, FX_SMT_SUB, a, b), ba = fx_smt_binop(s, FX_SMT_SUB, b, a);
    FxSmtTerm negated = fx_smt_not(s, eq(s, ab, ba));
    EXPECT_EQ(fx_smt_check(s, 1, &negated), FX_SMT_SAT);
    char *va = fx_smt_model_value(s, a), *vb = fx_smt_model_value(s, b);
    char *vab = fx_smt_model_value(s, ab), *vba = fx_smt_model_value(s, ba);
    EXPECT(va && vb && vab && vba);
    if (va && vb && vab && vba) {
        EXPECT(strcmp(va, vb) != 0);
        EXPECT(strcmp(vab, vba) != 0);
        EXPECT_EQ(strtoll(vab, NULL, 10), strtoll(va, NULL, 10) - strtoll(vb, NULL, 10));
        EXPECT_EQ(strtoll(vba, NULL, 10), -strtoll(vab, NULL, 10));
    }
    free(va), free(vb), free(vab), free(vba);
    /* A term made after the check is evaluated in the same model. */
    FxSmtTerm gt = fx_smt_binop(s, FX_SMT_GT, a, b);
    char *vgt = fx_smt_model_value(s, gt);
    EXPECT(vgt && (strcmp(vgt, "true") == 0 || strcmp(vgt, "false") == 0));
    free(vgt);
    fx_smt_free(s);
}

/* Python's // and %: a == b * (a // b) + a % b, and a % b has b's sign. */
static const struct {
    int64_t a, b, div, mod;
} floor_cases[] = {
        {7, 2, 3, 1},    {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1},
        {6, -2, -3, 0},  {-6, -2, 3, 0}, {6, 2, 3, 0},    {0, -3, 0, 0},
        {1, -3, -1, -2}, {-1, 3, -1, 2}, {13, 5, 2, 3},   {-13, -5, 2, -3},
};

FX_TEST(floor_div_mod_of_literals)
{
    FxSmt *s = fx_smt_new(0, 0);
    for (size_t i = 0; i < FX_ARRAY_LEN(floor_cases); i++) {
        FxSmtTerm a = num(s, floor_cases[i].a), b = num(s, floor_cases[i].b);
        FxSmtTerm q = fx_smt_var(s, "q", I), r = fx_smt_var(s, "r", I);
        FxSmtTerm facts[2] = {eq(s, q, fx_smt_binop(s, FX_SMT_DIV, a, b)),
                              eq(s, r, fx_smt_binop(s, FX_SMT_MOD, a, b))};
        EXPECT_EQ(fx_smt_check(s, 2, facts), FX_SMT_SAT);
        char *vq = fx_smt_model_value(s, q), *vr = fx_smt_model_value(s, r);
        EXPECT(vq && vr);
        if (vq && vr) {
            if (strtoll(vq, NULL, 10) != floor_cases[i].div ||
                strtoll(vr, NULL, 10) != floor_cases[i].mod)
                fprintf(stderr, "  case %lld, %lld: got %s, %s\n", (long long)floor_cases[i].a,
                        (long long)floor_cases[i].b, vq, vr);
            EXPECT_EQ(strtoll(vq, NULL, 10), floor_cases[i].div);
            EXPECT_EQ(strtoll(vr, NULL, 10), floor_cases[i].mod);
        }
        free(vq), free(vr);
    }
    fx_smt_free(s);
}

/* The same through variables, and as a validity: no other answer exists. */
FX_TEST(floor_div_mod_of_variables)
{
    FxSmt *s = fx_smt_new(0, 0);
    for (size_t i = 0; i < FX_ARRAY_LEN(floor_cases); i++) {
        FxSmtTerm a = fx_smt_var(s, "a", I), b = fx_smt_var(s, "b", I);
        FxSmtTerm q = fx_smt_binop(s, FX_SMT_DIV, a, b), r = fx_smt_binop(s, FX_SMT_MOD, a, b);
        FxSmtTerm wrong = fx_smt_binop(s, FX_SMT_OR,
                                       fx_smt_binop(s, FX_SMT_NE, q, num(s, floor_cases[i].div)),
                                       fx_smt_binop(s, FX_SMT_NE, r, num(s, floor_cases[i].mod)));
        FxSmtTerm facts[3] = {eq(s, a, num(s, floor_cases[i].a)),
                              eq(s, b, num(s, floor_cases[i].b)), wrong};
        EXPECT_EQ(fx_smt_check(s, 3, facts), FX_SMT_UNSAT);
        EXPECT_EQ(fx_smt_check(s, 2, facts), FX_SMT_SAT);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)floor_cases[i].div);
        EXPECT_VALUE(s, q, buf);
        snprintf(buf, sizeof buf, "%lld", (long long)floor_cases[i].mod);
        EXPECT_VALUE(s, r, buf);
    }
    fx_smt_free(s);
}

/* Flux's law for b != 0: a == b * (a div b) + a mod b, with a mod b between 0
 * and b. Linear once b is a literal. */
FX_TEST(floor_law_holds)
{
    int64_t divisors[] = {3, -3};
    for (size_t i = 0; i < FX_ARRAY_LEN(divisors); i++) {
        FxSmt *s = fx_smt_new(0, 0);
        FxSmtTerm a = fx_smt_var(s, "a", I), b = num(s, divisors[i]);
        FxSmtTerm q = fx_smt_binop(s, FX_SMT_DIV, a, b), r = fx_smt_binop(s, FX_SMT_MOD, a, b);
        FxSmtTerm law = eq(s, a, fx_smt_binop(s, FX_SMT_ADD, fx_smt_binop(s, FX_SMT_MUL, b, q), r));
        FxSmtTerm zero = num(s, 0);
        FxSmtTerm range = divisors[i] > 0
                                  ? fx_smt_binop(s, FX_SMT_AND, fx_smt_binop(s, FX_SMT_LE, zero, r),
                                                 fx_smt_binop(s, FX_SMT_LT, r, b))
                                  : fx_smt_binop(s, FX_SMT_AND, fx_smt_binop(s, FX_SMT_LT, b, r),
                                                 fx_smt_binop(s, FX_SMT_LE, r, zero));
        FxSmtTerm bad = fx_smt_not(s, fx_smt_binop(s, FX_SMT_AND, law, range));
        EXPECT_EQ(fx_smt_check(s, 1, &bad), FX_SMT_UNSAT);
        fx_smt_free(s);
    }
}

FX_TEST(uninterpreted_function_is_a_function)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtSort dom[1] = {I};
    FxSmtTerm zero = num(s, 0);
    FxSmtTerm f0 = fx_smt_apply(s, "f", I, 1, &zero, dom);
    FxSmtTerm f0_again = fx_smt_apply(s, "f", I, 1, &zero, dom);
    FxSmtTerm facts[2] = {eq(s, f0, num(s, 0)), eq(s, f0_again, num(s, 1))};
    EXPECT_EQ(fx_smt_check(s, 2, facts), FX_SMT_UNSAT);
    EXPECT_EQ(fx_smt_check(s, 1, facts), FX_SMT_SAT);
    EXPECT_VALUE(s, f0_again, "0");
    /* Another signature is another function. */
    FxSmtSort bdom[1] = {B};
    FxSmtTerm t = fx_smt_bool(s, true);
    FxSmtTerm ft = fx_smt_apply(s, "f", I, 1, &t, bdom);
    FxSmtTerm other[2] = {facts[0], eq(s, ft, num(s, 1))};
    EXPECT_EQ(fx_smt_check(s, 2, other), FX_SMT_SAT);
    /* A nullary application is a named constant, the same on every call. */
    FxSmtTerm k1 = fx_smt_apply(s, "k", B, 0, NULL, NULL);
    FxSmtTerm k2 = fx_smt_apply(s, "k", B, 0, NULL, NULL);
    FxSmtTerm differ = fx_smt_binop(s, FX_SMT_NE, k1, k2);
    EXPECT_EQ(fx_smt_check(s, 1, &differ), FX_SMT_UNSAT);
    fx_smt_free(s);
}

FX_TEST(vars_with_one_name_are_distinct)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtTerm x1 = fx_smt_var(s, "x", I), x2 = fx_smt_var(s, "x", I);
    FxSmtTerm ne = fx_smt_binop(s, FX_SMT_NE, x1, x2);
    EXPECT_EQ(fx_smt_check(s, 1, &ne), FX_SMT_SAT);
    fx_smt_free(s);
}

/* i in [lo, hi) */
static FxSmtTerm in_range(FxSmt *s, FxSmtTerm i, int64_t lo, int64_t hi)
{
    return fx_smt_binop(s, FX_SMT_AND, fx_smt_binop(s, FX_SMT_LE, num(s, lo), i),
                        fx_smt_binop(s, FX_SMT_LT, i, num(s, hi)));
}

FX_TEST(forall_over_a_bounded_range)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtSort dom[1] = {I};
    FxSmtTerm i = fx_smt_var(s, "i", I);
    FxSmtTerm fi = fx_smt_apply(s, "f", I, 1, &i, dom);
    FxSmtTerm all = fx_smt_forall(s, i,
                                  fx_smt_binop(s, FX_SMT_IMPLIES, in_range(s, i, 0, 10),
                                               fx_smt_binop(s, FX_SMT_GT, fi, i)));
    EXPECT(all.v != 0);
    FxSmtTerm three = num(s, 3), twelve = num(s, 12);
    FxSmtTerm f3 = fx_smt_apply(s, "f", I, 1, &three, dom);
    FxSmtTerm f12 = fx_smt_apply(s, "f", I, 1, &twelve, dom);
    FxSmtTerm contradiction[2] = {all, fx_smt_binop(s, FX_SMT_LE, f3, three)};
    EXPECT_EQ(fx_smt_check(s, 2, contradiction), FX_SMT_UNSAT);
    /* Outside the range f is free. */
    FxSmtTerm outside[2] = {all, eq(s, f12, num(s, 0))};
    EXPECT_EQ(fx_smt_check(s, 2, outside), FX_SMT_SAT);
    EXPECT_VALUE(s, f12, "0");
    fx_smt_free(s);
}

FX_TEST(exists_over_a_bounded_range)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtSort dom[1] = {I};
    FxSmtTerm i = fx_smt_var(s, "i", I);
    FxSmtTerm gi = fx_smt_apply(s, "g", I, 1, &i, dom);
    FxSmtTerm some = fx_smt_exists(
            s, i, fx_smt_binop(s, FX_SMT_AND, in_range(s, i, 0, 3), eq(s, gi, num(s, 5))));
    FxSmtTerm facts[4] = {some};
    for (int k = 0; k < 3; k++) {
        FxSmtTerm kt = num(s, k);
        facts[k + 1] = fx_smt_binop(s, FX_SMT_NE, fx_smt_apply(s, "g", I, 1, &kt, dom), num(s, 5));
    }
    EXPECT_EQ(fx_smt_check(s, 4, facts), FX_SMT_UNSAT);
    EXPECT_EQ(fx_smt_check(s, 3, facts), FX_SMT_SAT);
    fx_smt_free(s);
}

FX_TEST(big_and_negative_literals_round_trip)
{
    const char *texts[] = {"354224848179261915075", "-354224848179261915075", "-7", "0",
                           "-9223372036854775808"};
    for (size_t k = 0; k < FX_ARRAY_LEN(texts); k++) {
        FxSmt *s = fx_smt_new(0, 0);
        FxSmtTerm x = fx_smt_var(s, "x", I);
        FxSmtTerm fact = eq(s, x, fx_smt_int(s, texts[k]));
        EXPECT_EQ(fx_smt_check(s, 1, &fact), FX_SMT_SAT);
        EXPECT_VALUE(s, x, texts[k]);
        fx_smt_free(s);
    }
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtTerm x = fx_smt_var(s, "x", I);
    FxSmtTerm fact = eq(s, x, fx_smt_neg(s, num(s, 7)));
    EXPECT_EQ(fx_smt_check(s, 1, &fact), FX_SMT_SAT);
    EXPECT_VALUE(s, x, "-7");
    EXPECT_VALUE(s, fx_smt_neg(s, x), "7");
    EXPECT_VALUE(s, num(s, INT64_MIN), "-9223372036854775808");
    EXPECT_VALUE(s, fx_smt_bool(s, false), "false");
    fx_smt_free(s);
}

FX_TEST(bool_vars_have_values)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtTerm p = fx_smt_var(s, "p", B), q = fx_smt_var(s, "q", B);
    FxSmtTerm facts[2] = {p, fx_smt_not(s, q)};
    EXPECT_EQ(fx_smt_check(s, 2, facts), FX_SMT_SAT);
    EXPECT_VALUE(s, p, "true");
    EXPECT_VALUE(s, q, "false");
    EXPECT_VALUE(s, fx_smt_ite(s, p, num(s, 1), num(s, 2)), "1");
    EXPECT_EQ(fx_smt_sort_of(s, p), B);
    EXPECT_EQ(fx_smt_sort_of(s, num(s, 1)), I);
    /* A free variable made after the check still gets a (completed) value. */
    char *free_value = fx_smt_model_value(s, fx_smt_var(s, "z", I));
    EXPECT(free_value != NULL);
    free(free_value);
    /* The empty conjunction is satisfiable. */
    EXPECT_EQ(fx_smt_check(s, 0, NULL), FX_SMT_SAT);
    fx_smt_free(s);
}

FX_TEST(sort_mismatch_is_the_invalid_term)
{
    FxSmt *s = fx_smt_new(0, 0);
    FxSmtTerm t = fx_smt_bool(s, true), one = num(s, 1);
    FxSmtTerm bad = fx_smt_binop(s, FX_SMT_ADD, t, t);
    EXPECT_EQ(bad.v, 0);
    EXPECT(strstr(fx_smt_reason(s), "sort mismatch") != NULL);
    EXPECT_EQ(fx_smt_binop(s, FX_SMT_EQ, t, one).v, 0);
    EXPECT_EQ(fx_smt_binop(s, FX_SMT_AND, one, one).v, 0);
    EXPECT_EQ(fx_smt_not(s, one).v, 0);
    EXPECT_EQ(fx_smt_neg(s, t).v, 0);
    EXPECT_EQ(fx_smt_ite(s, one, one, one).v, 0);
    EXPECT_EQ(fx_smt_ite(s, t, one, t).v, 0);
    EXPECT_EQ(fx_smt_binop(s, (FxSmtOp)99, one, one).v, 0);
    EXPECT_EQ(fx_smt_forall(s, one, t).v, 0);
    FxSmtTerm x = fx_smt_var(s, "x", I);
    EXPECT_EQ(fx_smt_forall(s, x, one).v, 0);
    FxSmtSort dom[1] = {B};
    EXPECT_EQ(fx_smt_apply(s, "f", I, 1, &one, dom).v, 0);
    EXPECT_EQ(fx_smt_int(s, "12a").v, 0);
    EXPECT_EQ(fx_smt_int(s, "-").v, 0);
    EXPECT_EQ(fx_smt_int(s, "1.5").v, 0);
    EXPECT_EQ(fx_smt_int(s, "").v, 0);
    EXPECT_EQ(fx_smt_binop(s, FX_SMT_ADD, one, (FxSmtTerm){12345}).v, 0);
    /* The invalid term propagates and the check reports it. */
    FxSmtTerm worse = fx_smt_not(s, fx_smt_binop(s, FX_SMT_EQ, bad, one));
    EXPECT_EQ(worse.v, 0);
    EXPECT_EQ(fx_smt_check(s, 1, &worse), FX_SMT_ERROR);
    EXPECT(strlen(fx_smt_reason(s)) > 0);
    EXPECT(fx_smt_model_value(s, worse) == NULL);
    /* An Int is no assertion. */
    EXPECT_EQ(fx_smt_check(s, 1, &one), FX_SMT_ERROR);
    EXPECT(strlen(fx_smt_reason(s)) > 0);
    /* The context still works. */
    FxSmtTerm fine = eq(s, x, one);
    EXPECT_EQ(fx_smt_check(s, 1, &fine), FX_SMT_SAT);
    EXPECT_STR_EQ(fx_smt_reason(s), "");
    EXPECT_VALUE(s, x, "1");
    fx_smt_free(s);
}

/* Fermat for n = 3 is beyond Z3's nonlinear integer arithmetic: a check of
 * it must give up inside the budget, not fail or hang. */
static FxSmtResult check_fermat(FxSmt *s)
{
    FxSmtTerm v[3], cube[3], facts[4];
    for (int k = 0; k < 3; k++) {
        v[k] = fx_smt_var(s, "v", I);
        cube[k] = fx_smt_binop(s, FX_SMT_MUL, v[k], fx_smt_binop(s, FX_SMT_MUL, v[k], v[k]));
        facts[k] = fx_smt_binop(s, FX_SMT_GT, v[k], num(s, 0));
    }
    facts[3] = eq(s, fx_smt_binop(s, FX_SMT_ADD, cube[0], cube[1]), cube[2]);
    return fx_smt_check(s, 4, facts);
}

FX_TEST(rlimit_gives_unknown)
{
    FxSmt *s = fx_smt_new(0, 1000);
    FxSmtResult r = check_fermat(s);
    EXPECT(r != FX_SMT_ERROR);
    EXPECT(r != FX_SMT_SAT); /* there is no solution */
    if (r == FX_SMT_UNKNOWN)
        EXPECT(strlen(fx_smt_reason(s)) > 0);
    fx_smt_free(s);
}

FX_TEST(timeout_gives_unknown_and_the_context_survives)
{
    FxSmt *s = fx_smt_new(1, 0);
    FxSmtResult r = check_fermat(s);
    EXPECT(r != FX_SMT_ERROR);
    EXPECT(r != FX_SMT_SAT);
    if (r == FX_SMT_UNKNOWN)
        EXPECT_STR_EQ(fx_smt_reason(s), "timeout");
    fx_smt_free(s);
    /* The deadline interrupts the context; the next check must not inherit
     * that: it answers, and its model can be read. */
    s = fx_smt_new(200, 0);
    r = check_fermat(s);
    EXPECT(r != FX_SMT_ERROR);
    EXPECT(r != FX_SMT_SAT);
    FxSmtTerm x = fx_smt_var(s, "x", I);
    FxSmtTerm fact = eq(s, x, num(s, 42));
    EXPECT_EQ(fx_smt_check(s, 1, &fact), FX_SMT_SAT);
    EXPECT_VALUE(s, x, "42");
    fx_smt_free(s);
}

FX_TEST(last_query_is_smtlib)
{
    FxSmt *s = fx_smt_new(0, 0);
    char *none = fx_smt_last_query(s);
    EXPECT_STR_EQ(none, "");
    free(none);
    FxSmtTerm x = fx_smt_var(s, "x", I);
    FxSmtTerm fact = fx_smt_binop(s, FX_SMT_GT, x, num(s, 41));
    EXPECT_EQ(fx_smt_check(s, 1, &fact), FX_SMT_SAT);
    char *q = fx_smt_last_query(s);
    EXPECT(strstr(q, "(assert") != NULL);
    EXPECT(strstr(q, "declare-fun") != NULL);
    EXPECT(strstr(q, "(check-sat)") != NULL);
    free(q);
    fx_smt_free(s);
}

FX_TEST(solver_version)
{
    const char *v = fx_smt_solver_version();
    EXPECT(strncmp(v, "Z3 4.", 5) == 0);
    EXPECT(fx_smt_solver_version() == v);
}

int main(void)
{
    return fx_test_run();
}
