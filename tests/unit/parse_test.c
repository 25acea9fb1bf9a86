/*
 * parse_test.c: the shapes the parser builds: precedence, chains, the
 * constraint forms, properties and hints, and recovery after errors.
 */
#include <stdlib.h>

#include "fx_test.h"
#include "lang/parse.h"

typedef struct {
    FxDiag diag;
    FxModule *mod;
} Parsed;

static Parsed *parse(const char *text)
{
    Parsed *p = calloc(1, sizeof(*p));
    FxSource *src = fx_diag_add_source(&p->diag, "t.flux", text, strlen(text));
    p->mod = fx_parse(&p->diag, src);
    return p;
}

static void done(Parsed *p)
{
    fx_module_free(p->mod);
    fx_diag_free(&p->diag);
    free(p);
}

/* One intent with the given constraint lines. */
static Parsed *constraints(const char *lines)
{
    char buf[2048];
    snprintf(buf, sizeof(buf), "intent f(n: Int) -> Int:\n    constraints:\n%s", lines);
    return parse(buf);
}

static const FxConstraint *first(const Parsed *p)
{
    return p->mod->intents.data[0]->constraints.data[0];
}

FX_TEST(power_binds_tighter_than_minus)
{
    Parsed *p = constraints("        - result = -2 ^ 3 ^ 2\n");
    const FxExpr *e = first(p)->u.eq.rhs;
    EXPECT_EQ(e->kind, FX_EXPR_UNARY);
    const FxExpr *pw = e->u.unary.operand;
    EXPECT_EQ(pw->kind, FX_EXPR_BINARY);
    EXPECT_EQ(pw->u.binary.op, FX_OP_POW);
    EXPECT_EQ(pw->u.binary.rhs->kind, FX_EXPR_BINARY); /* right associative */
    done(p);
}

FX_TEST(chained_comparison)
{
    Parsed *p = constraints("        - 2 <= n < 10 or n = 0\n");
    const FxConstraint *k = first(p);
    EXPECT_EQ(k->kind, FX_CON_POST);
    const FxExpr *e = k->u.post.expr;
    EXPECT_EQ(e->u.binary.op, FX_OP_OR);
    EXPECT_EQ(e->u.binary.lhs->kind, FX_EXPR_COMPARE);
    EXPECT_EQ(e->u.binary.lhs->u.compare.n, 3);
    done(p);
}

FX_TEST(equation_with_guard)
{
    Parsed *p = constraints("        - fib(n) = fib(n - 1) + 1 when n > 0 and n < 5\n");
    const FxConstraint *k = first(p);
    EXPECT_EQ(k->kind, FX_CON_EQUATION);
    EXPECT_STR_EQ(k->u.eq.head, "fib");
    EXPECT_EQ(k->u.eq.n_patterns, 1);
    EXPECT(k->u.eq.guard != NULL);
    EXPECT_EQ(k->u.eq.guard->u.binary.op, FX_OP_AND);
    done(p);
}

FX_TEST(result_equation_takes_whole_right_side)
{
    Parsed *p = constraints("        - result = n >= 2 and n < 9\n");
    const FxConstraint *k = first(p);
    EXPECT_EQ(k->kind, FX_CON_EQUATION);
    EXPECT(k->u.eq.head == NULL);
    EXPECT_EQ(k->u.eq.rhs->u.binary.op, FX_OP_AND);
    done(p);
}

FX_TEST(constraint_forms)
{
    Parsed *p = constraints("        - result contains all primes p where 2 ≤ p ≤ n\n"
                            "        - result is sorted descending by abs\n"
                            "        - result is a permutation of [n]\n"
                            "        - result[i, j] = i + j\n");
    const FxIntent *in = p->mod->intents.data[0];
    EXPECT_EQ(in->constraints.len, 4);
    const FxConstraint *c = in->constraints.data[0];
    EXPECT_EQ(c->kind, FX_CON_COMPREHENSION);
    EXPECT_STR_EQ(c->u.comp.first, "primes");
    EXPECT_STR_EQ(c->u.comp.second, "p");
    EXPECT_EQ(in->constraints.data[1]->kind, FX_CON_ORDER);
    EXPECT(in->constraints.data[1]->u.order.descending);
    EXPECT(in->constraints.data[1]->u.order.key != NULL);
    EXPECT_EQ(in->constraints.data[2]->kind, FX_CON_PERMUTATION);
    EXPECT_EQ(in->constraints.data[3]->kind, FX_CON_ELEMENTWISE);
    EXPECT_EQ(in->constraints.data[3]->u.elem.n_indices, 2);
    EXPECT_EQ(fx_diag_errors(&p->diag), 0);
    done(p);
}

FX_TEST(aggregates_and_quantifiers)
{
    Parsed *p = constraints("        - result = sum(k * k for k in 0..n if k mod 2 = 0)\n"
                            "        - forall d in 2..n: n mod d != 0\n");
    const FxIntent *in = p->mod->intents.data[0];
    const FxExpr *agg = in->constraints.data[0]->u.eq.rhs;
    EXPECT_EQ(agg->kind, FX_EXPR_AGGREGATE);
    EXPECT_EQ(agg->u.aggregate.agg, FX_AGG_SUM);
    EXPECT_EQ(agg->u.aggregate.n_binders, 1);
    EXPECT(agg->u.aggregate.filter != NULL);
    const FxExpr *q = in->constraints.data[1]->u.post.expr;
    EXPECT_EQ(q->kind, FX_EXPR_QUANT);
    EXPECT(q->u.quant.is_forall);
    EXPECT_EQ(q->u.quant.binders[0].domain->kind, FX_EXPR_RANGE);
    done(p);
}

FX_TEST(properties_args_versus_comments)
{
    Parsed *p = parse("intent f(n: Int) -> Int:\n"
                      "    constraints:\n        - result = n\n"
                      "    properties:\n"
                      "        - parallelizable_over(i, j) (rows, then columns)\n"
                      "        - pure (no side effects; it's fine: 100%!)\n"
                      "    performance_hints:\n"
                      "        - latency < 100ms\n"
                      "        - if GPU_available then prefer_parallel (when we can)\n");
    const FxIntent *in = p->mod->intents.data[0];
    EXPECT_EQ(fx_diag_errors(&p->diag), 0);
    EXPECT_EQ(in->properties.len, 2);
    EXPECT_EQ(in->properties.data[0]->n_args, 2);
    EXPECT_EQ(in->properties.data[1]->n_args, 0);
    EXPECT_EQ(in->hints.len, 2);
    EXPECT(in->hints.data[0]->has_bound);
    EXPECT_STR_EQ(in->hints.data[0]->bound_unit, "ms");
    EXPECT_STR_EQ(in->hints.data[1]->condition, "GPU_available");
    done(p);
}

FX_TEST(every_broken_line_is_reported)
{
    Parsed *p = constraints("        - result = (n +\n"
                            "        - result = n n\n"
                            "        - result = n\n"
                            "        - = 3\n");
    /* line 1 swallows line 2 through the open bracket; line 4 is its own error */
    EXPECT(fx_diag_errors(&p->diag) >= 2);
    done(p);

    p = parse("intent f(n: Int) -> Int\n    constraints:\n        - result = n\n"
              "intent g(n Int) -> Int:\n    constraints:\n        - result = n\n");
    EXPECT_EQ(fx_diag_errors(&p->diag), 2);
    EXPECT_EQ(p->mod->intents.len, 2);
    done(p);
}

FX_TEST(duplicate_section)
{
    Parsed *p = parse("intent f(n: Int) -> Int:\n"
                      "    constraints:\n        - result = n\n"
                      "    constraints:\n        - result = n\n");
    EXPECT_EQ(fx_diag_errors(&p->diag), 1);
    EXPECT(p->diag.items.data[0]->notes != NULL);
    done(p);
}

FX_TEST(top_level_declarations)
{
    Parsed *p = parse("import \"other.flux\"\n"
                      "type User = { name: String, age: Int }\n"
                      "data users: List[User] from \"users.csv\"\n");
    EXPECT_EQ(fx_diag_errors(&p->diag), 0);
    EXPECT_EQ(p->mod->imports.len, 1);
    EXPECT_EQ(p->mod->types.len, 1);
    EXPECT_EQ(p->mod->types.data[0]->def->n_fields, 2);
    EXPECT_EQ(p->mod->data.len, 1);
    EXPECT_STR_EQ(p->mod->data.data[0]->path, "users.csv");
    done(p);
}

int main(void)
{
    return fx_test_run();
}
