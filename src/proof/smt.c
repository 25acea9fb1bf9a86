/*
 * smt.c: the term language of smt.h, decided by Z3 through its C API.
 *
 * Each FxSmt owns one reference-counted Z3 context (Z3_mk_context_rc). Every
 * term a caller can name lives in s->terms: handle v is index + 1, and the
 * entry holds one Z3 reference to its ast, its sort, and whether fx_smt_var
 * made it (only those may be bound by a quantifier). Semantics that Flux
 * defines differently from SMT-LIB (floor division) are composed from other
 * terms through the same table, so every intermediate ast is owned too.
 *
 * A check builds a fresh Z3 solver with the context's rlimit, asserts the
 * terms, keeps the SMT-LIB text of the query, and runs the solver while a
 * watchdog thread holds the wall-clock budget (see timed_check: Z3's own
 * timeout can deadlock). When satisfiable, it keeps the model.
 *
 * Errors: Z3's default error handler prints and calls exit(1). Ours returns,
 * and Z3 keeps the code and message in the context until its next API call,
 * so each Z3 call that can fail is followed at once by z3_error(). Failures
 * become the invalid term {0} or FX_SMT_ERROR, with the message as reason.
 *
 * Invariants:
 *   - an ast is used only while s->terms, s->model or a local reference owns
 *     it, or while it is the result of the immediately preceding Z3 call (an
 *     rc context keeps only its last result alive);
 *   - entries are well sorted: constructors check sorts themselves, so Z3
 *     never sees an ill-sorted application;
 *   - s->model is the model of the last check, NULL unless it was SAT.
 */
#include "proof/smt.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <z3.h>

#include "base/buf.h"
#include "base/dynlib.h"

/* ---- Z3, loaded when the first FxSmt is made ---- */

#ifndef FX_Z3_SONAME /* the Makefile names the one it links against */
#define FX_Z3_SONAME "libz3.so.4"
#endif

/* Every Z3 function this file calls, resolved by fx_dynlib_load: a process
 * that never asks the solver (a warm `flux run`) never maps Z3. */
// clang-format off
#define Z3_FUNCTIONS(X)                                                                            \
    X(dec_ref) X(del_config) X(del_context) X(get_app_arg) X(get_app_decl) X(get_app_num_args)     \
    X(get_ast_kind) X(get_bool_value) X(get_decl_kind) X(get_error_code) X(get_error_msg)          \
    X(get_numeral_string) X(get_version) X(inc_ref) X(interrupt) X(is_numeral_ast) X(mk_add)       \
    X(mk_and) X(mk_app) X(mk_bool_sort) X(mk_config) X(mk_context_rc) X(mk_distinct) X(mk_div)     \
    X(mk_eq) X(mk_exists_const) X(mk_false) X(mk_forall_const) X(mk_fresh_const) X(mk_func_decl)   \
    X(mk_ge) X(mk_gt) X(mk_implies) X(mk_int_sort) X(mk_ite) X(mk_le) X(mk_lt) X(mk_mod)           \
    X(mk_mul) X(mk_not) X(mk_numeral) X(mk_or) X(mk_params) X(mk_solver) X(mk_string_symbol)       \
    X(mk_sub) X(mk_true) X(mk_unary_minus) X(model_dec_ref) X(model_eval) X(model_inc_ref)         \
    X(param_descrs_dec_ref) X(param_descrs_get_kind) X(param_descrs_inc_ref) X(params_dec_ref)     \
    X(params_inc_ref) X(params_set_uint) X(set_error_handler) X(solver_assert) X(solver_check)     \
    X(solver_dec_ref) X(solver_get_model) X(solver_get_param_descrs)                               \
    X(solver_get_reason_unknown) X(solver_inc_ref) X(solver_set_params) X(solver_to_string)        \
    X(sort_to_ast) X(to_app)
// clang-format on

static struct {
#define FIELD(f) __typeof__(Z3_##f) *f;
    Z3_FUNCTIONS(FIELD)
#undef FIELD
} z3lib;

static char z3_missing[256]; /* why Z3 could not be loaded; "" when it was */
static pthread_once_t z3_once = PTHREAD_ONCE_INIT;

static void load_z3(void)
{
#define NAME(f) "Z3_" #f,
    static const char *const names[] = {Z3_FUNCTIONS(NAME)};
#undef NAME
    void *fns[FX_ARRAY_LEN(names)];
    if (!fx_dynlib_load("Z3", FX_Z3_SONAME, names, fns, FX_ARRAY_LEN(names), z3_missing,
                        sizeof(z3_missing)))
        return;
    size_t i = 0;
#define SET(f) memcpy(&z3lib.f, &fns[i++], sizeof(void *));
    Z3_FUNCTIONS(SET)
#undef SET
}

const char *fx_smt_missing(void)
{
    pthread_once(&z3_once, load_z3);
    return z3_missing[0] ? z3_missing : NULL;
}

enum { DEFAULT_TIMEOUT_MS = 2000, DEFAULT_RLIMIT = 5000000, INTERRUPT_RETRY_MS = 10 };

typedef struct {
    Z3_ast ast;
    FxSmtSort sort;
    bool is_var;
} Entry;

struct FxSmt {
    Z3_context z3;
    Z3_sort sorts[2]; /* indexed by FxSmtSort */
    FX_VEC(Entry) terms;
    Z3_model model;
    char *reason;      /* what fx_smt_reason says; NULL means "" */
    char *build_error; /* the last constructor failure, for a later check */
    char *query;       /* SMT-LIB text of the last check; NULL before one */
    unsigned timeout_ms, rlimit;
    int seed_known; /* does the solver take random_seed? -1: not asked yet */
};

static const FxSmtTerm NO_TERM = {0};

/* ---- errors ---- */

/* Z3 has already stored the code and message in the context when it calls
 * this; returning (rather than exiting, as the default handler does) lets the
 * failed call return NULL so that z3_error() can report it. */
static void keep_going(Z3_context c, Z3_error_code code)
{
    (void)c;
    (void)code;
}

static void set_reason(FxSmt *s, char *owned)
{
    free(s->reason);
    s->reason = owned;
}

/* The error of the last Z3 call as a new string, or NULL if it succeeded. */
static char *z3_error(FxSmt *s)
{
    Z3_error_code code = z3lib.get_error_code(s->z3);
    if (code == Z3_OK)
        return NULL;
    const char *msg = z3lib.get_error_msg(s->z3, code);
    /* First line only: e.g. for an unknown parameter Z3 appends the list of
     * all several hundred legal ones. */
    return fx_xstrndup(msg, strcspn(msg, "\n"));
}

/* A constructor failed: says why, now and to a later check. */
static FxSmtTerm no_term(FxSmt *s, char *owned)
{
    free(s->build_error);
    s->build_error = fx_xstrdup(owned);
    set_reason(s, owned);
    return NO_TERM;
}

static const char *sort_name(FxSmtSort sort)
{
    return sort == FX_SMT_SORT_BOOL ? "Bool" : "Int";
}

static bool valid_sort(FxSmtSort sort)
{
    return sort == FX_SMT_SORT_INT || sort == FX_SMT_SORT_BOOL;
}

/* ---- the term table ---- */

/* Takes the result of the last Z3 call as a new term. */
static FxSmtTerm keep(FxSmt *s, Z3_ast a, FxSmtSort sort)
{
    char *err = z3_error(s);
    if (err)
        return no_term(s, err);
    if (!a)
        return no_term(s, fx_xstrdup("Z3 returned no term"));
    if (s->terms.len >= UINT32_MAX)
        return no_term(s, fx_xstrdup("too many terms"));
    z3lib.inc_ref(s->z3, a);
    fx_vec_push(&s->terms, ((Entry){.ast = a, .sort = sort}));
    return (FxSmtTerm){(uint32_t)s->terms.len};
}

/* Copies t's entry (by value: a push may move the table). False for the
 * invalid term, which propagates silently since its maker said why, and for
 * a handle this context never gave out. */
static bool lookup(FxSmt *s, FxSmtTerm t, Entry *out)
{
    if (t.v == 0)
        return false;
    if (t.v > s->terms.len) {
        no_term(s, fx_xasprintf("no term %" PRIu32 " in this context", t.v));
        return false;
    }
    *out = s->terms.data[t.v - 1];
    return true;
}

static bool has_sort(FxSmt *s, const Entry *e, FxSmtSort sort, const char *what)
{
    if (e->sort == sort)
        return true;
    no_term(s, fx_xasprintf("sort mismatch: %s wants %s, got %s", what, sort_name(sort),
                            sort_name(e->sort)));
    return false;
}

/* ---- lifecycle ---- */

FxSmt *fx_smt_new(unsigned timeout_ms, unsigned rlimit)
{
    FxSmt *s = fx_xcalloc(1, sizeof *s);
    s->timeout_ms = timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS;
    s->rlimit = rlimit ? rlimit : DEFAULT_RLIMIT;
    s->seed_known = -1;
    if (fx_smt_missing()) /* every constructor then fails with the reason */
        return s;
    Z3_config cfg = z3lib.mk_config();
    FX_CHECK(cfg, "cannot create a Z3 config");
    s->z3 = z3lib.mk_context_rc(cfg);
    z3lib.del_config(cfg);
    FX_CHECK(s->z3, "cannot create a Z3 context");
    z3lib.set_error_handler(s->z3, keep_going);
    s->sorts[FX_SMT_SORT_INT] = z3lib.mk_int_sort(s->z3);
    z3lib.inc_ref(s->z3, z3lib.sort_to_ast(s->z3, s->sorts[FX_SMT_SORT_INT]));
    s->sorts[FX_SMT_SORT_BOOL] = z3lib.mk_bool_sort(s->z3);
    z3lib.inc_ref(s->z3, z3lib.sort_to_ast(s->z3, s->sorts[FX_SMT_SORT_BOOL]));
    return s;
}

static void drop_model(FxSmt *s)
{
    if (s->model)
        z3lib.model_dec_ref(s->z3, s->model);
    s->model = NULL;
}

void fx_smt_free(FxSmt *s)
{
    if (!s)
        return;
    drop_model(s);
    fx_vec_foreach (Entry, e, &s->terms)
        z3lib.dec_ref(s->z3, e->ast);
    for (size_t i = 0; s->z3 && i < FX_ARRAY_LEN(s->sorts); i++)
        z3lib.dec_ref(s->z3, z3lib.sort_to_ast(s->z3, s->sorts[i]));
    if (s->z3)
        z3lib.del_context(s->z3);
    fx_vec_free(&s->terms);
    free(s->reason);
    free(s->build_error);
    free(s->query);
    free(s);
}

/* ---- atoms ---- */

/* Z3 was loaded for s; otherwise s says why it was not. */
static bool loaded(FxSmt *s)
{
    if (!s->z3)
        no_term(s, fx_xstrdup(fx_smt_missing()));
    return s->z3 != NULL;
}

FxSmtTerm fx_smt_var(FxSmt *s, const char *name, FxSmtSort sort)
{
    if (!valid_sort(sort))
        return no_term(s, fx_xstrdup("fx_smt_var: no such sort"));
    if (!loaded(s))
        return NO_TERM;
    /* Fresh: Z3 appends a counter, so equal names stay distinct constants. */
    FxSmtTerm t = keep(s, z3lib.mk_fresh_const(s->z3, name ? name : "v", s->sorts[sort]), sort);
    if (t.v)
        s->terms.data[t.v - 1].is_var = true;
    return t;
}

FxSmtTerm fx_smt_int(FxSmt *s, const char *decimal)
{
    /* Checked here because Z3 would also take "1/2" or "1.5". */
    if (!decimal || !fx_is_decimal(decimal))
        return no_term(s, fx_xasprintf("not a decimal integer: \"%s\"", decimal ? decimal : ""));
    if (!loaded(s))
        return NO_TERM;
    return keep(s, z3lib.mk_numeral(s->z3, decimal, s->sorts[FX_SMT_SORT_INT]), FX_SMT_SORT_INT);
}

FxSmtTerm fx_smt_int64(FxSmt *s, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%" PRId64, v);
    return fx_smt_int(s, text);
}

FxSmtTerm fx_smt_bool(FxSmt *s, bool v)
{
    if (!loaded(s))
        return NO_TERM;
    return keep(s, v ? z3lib.mk_true(s->z3) : z3lib.mk_false(s->z3), FX_SMT_SORT_BOOL);
}

/* ---- operators ---- */

typedef Z3_ast (*Mk2)(Z3_context, Z3_ast, Z3_ast);

static Z3_ast mk_add(Z3_context c, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return z3lib.mk_add(c, 2, args);
}

static Z3_ast mk_sub(Z3_context c, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return z3lib.mk_sub(c, 2, args);
}

static Z3_ast mk_mul(Z3_context c, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return z3lib.mk_mul(c, 2, args);
}

static Z3_ast mk_ne(Z3_context c, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return z3lib.mk_distinct(c, 2, args);
}

static Z3_ast mk_and(Z3_context c, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return z3lib.mk_and(c, 2, args);
}

static Z3_ast mk_or(Z3_context c, Z3_ast a, Z3_ast b)
{
    Z3_ast args[2] = {a, b};
    return z3lib.mk_or(c, 2, args);
}

#define TWO(name, z3_fn)                                                                           \
    static Z3_ast name(Z3_context c, Z3_ast a, Z3_ast b)                                           \
    {                                                                                              \
        return z3lib.z3_fn(c, a, b);                                                               \
    }
TWO(mk_lt, mk_lt)
TWO(mk_le, mk_le)
TWO(mk_gt, mk_gt)
TWO(mk_ge, mk_ge)
TWO(mk_eq, mk_eq)
TWO(mk_implies, mk_implies)

#define SAME_SORT (-1) /* operands of one sort, either */

/* ORDER FX_SMT_OP. DIV and MOD have no mk: they floor, see floor_op. */
static const struct {
    const char *name;
    int operands; /* an FxSmtSort, or SAME_SORT */
    FxSmtSort result;
    Mk2 mk;
} ops[] = {
        [FX_SMT_ADD] = {"+", FX_SMT_SORT_INT, FX_SMT_SORT_INT, mk_add},
        [FX_SMT_SUB] = {"-", FX_SMT_SORT_INT, FX_SMT_SORT_INT, mk_sub},
        [FX_SMT_MUL] = {"*", FX_SMT_SORT_INT, FX_SMT_SORT_INT, mk_mul},
        [FX_SMT_DIV] = {"div", FX_SMT_SORT_INT, FX_SMT_SORT_INT, NULL},
        [FX_SMT_MOD] = {"mod", FX_SMT_SORT_INT, FX_SMT_SORT_INT, NULL},
        [FX_SMT_LT] = {"<", FX_SMT_SORT_INT, FX_SMT_SORT_BOOL, mk_lt},
        [FX_SMT_LE] = {"<=", FX_SMT_SORT_INT, FX_SMT_SORT_BOOL, mk_le},
        [FX_SMT_GT] = {">", FX_SMT_SORT_INT, FX_SMT_SORT_BOOL, mk_gt},
        [FX_SMT_GE] = {">=", FX_SMT_SORT_INT, FX_SMT_SORT_BOOL, mk_ge},
        [FX_SMT_EQ] = {"=", SAME_SORT, FX_SMT_SORT_BOOL, mk_eq},
        [FX_SMT_NE] = {"distinct", SAME_SORT, FX_SMT_SORT_BOOL, mk_ne},
        [FX_SMT_AND] = {"and", FX_SMT_SORT_BOOL, FX_SMT_SORT_BOOL, mk_and},
        [FX_SMT_OR] = {"or", FX_SMT_SORT_BOOL, FX_SMT_SORT_BOOL, mk_or},
        [FX_SMT_IMPLIES] = {"=>", FX_SMT_SORT_BOOL, FX_SMT_SORT_BOOL, mk_implies},
};
_Static_assert(FX_ARRAY_LEN(ops) == FX_SMT_IMPLIES + 1, "ORDER FX_SMT_OP");

/* mk applied to two valid, well-sorted terms. */
static FxSmtTerm apply2(FxSmt *s, Mk2 mk, FxSmtTerm a, FxSmtTerm b, FxSmtSort result)
{
    Entry x, y;
    if (!lookup(s, a, &x) || !lookup(s, b, &y))
        return NO_TERM;
    return keep(s, mk(s->z3, x.ast, y.ast), result);
}

/* Z3's div and mod are Euclidean (0 <= r < |b|); Flux floors. The two differ
 * exactly when b < 0 and r != 0: there floor's quotient is one less, and its
 * remainder r + b (which keeps mod linear in r, unlike a - b * q). Division
 * by zero stays Z3's unconstrained div and mod. */
static FxSmtTerm floor_op(FxSmt *s, FxSmtOp op, FxSmtTerm a, FxSmtTerm b)
{
    FxSmtTerm zero = fx_smt_int64(s, 0);
    FxSmtTerm r = apply2(s, z3lib.mk_mod, a, b, FX_SMT_SORT_INT);
    FxSmtTerm b_neg = fx_smt_binop(s, FX_SMT_LT, b, zero);
    FxSmtTerm adjust = fx_smt_binop(s, FX_SMT_AND, b_neg, fx_smt_binop(s, FX_SMT_NE, r, zero));
    if (op == FX_SMT_MOD)
        return fx_smt_binop(s, FX_SMT_ADD, r, fx_smt_ite(s, adjust, b, zero));
    FxSmtTerm q = apply2(s, z3lib.mk_div, a, b, FX_SMT_SORT_INT);
    return fx_smt_binop(s, FX_SMT_SUB, q, fx_smt_ite(s, adjust, fx_smt_int64(s, 1), zero));
}

static bool operands_fit(FxSmt *s, FxSmtOp op, const Entry *x, const Entry *y)
{
    int want = ops[op].operands;
    if (want == SAME_SORT ? x->sort == y->sort : (int)x->sort == want && (int)y->sort == want)
        return true;
    no_term(s, fx_xasprintf("sort mismatch: (%s %s %s)", ops[op].name, sort_name(x->sort),
                            sort_name(y->sort)));
    return false;
}

FxSmtTerm fx_smt_binop(FxSmt *s, FxSmtOp op, FxSmtTerm a, FxSmtTerm b)
{
    Entry x, y;
    if (!lookup(s, a, &x) || !lookup(s, b, &y))
        return NO_TERM;
    if ((unsigned)op >= FX_ARRAY_LEN(ops))
        return no_term(s, fx_xasprintf("no operator %d", (int)op));
    if (!operands_fit(s, op, &x, &y))
        return NO_TERM;
    if (!ops[op].mk)
        return floor_op(s, op, a, b);
    return apply2(s, ops[op].mk, a, b, ops[op].result);
}

FxSmtTerm fx_smt_not(FxSmt *s, FxSmtTerm a)
{
    Entry x;
    if (!lookup(s, a, &x) || !has_sort(s, &x, FX_SMT_SORT_BOOL, "not"))
        return NO_TERM;
    return keep(s, z3lib.mk_not(s->z3, x.ast), FX_SMT_SORT_BOOL);
}

FxSmtTerm fx_smt_neg(FxSmt *s, FxSmtTerm a)
{
    Entry x;
    if (!lookup(s, a, &x) || !has_sort(s, &x, FX_SMT_SORT_INT, "negation"))
        return NO_TERM;
    return keep(s, z3lib.mk_unary_minus(s->z3, x.ast), FX_SMT_SORT_INT);
}

FxSmtTerm fx_smt_ite(FxSmt *s, FxSmtTerm cond, FxSmtTerm then_t, FxSmtTerm else_t)
{
    Entry c, x, y;
    if (!lookup(s, cond, &c) || !lookup(s, then_t, &x) || !lookup(s, else_t, &y))
        return NO_TERM;
    if (!has_sort(s, &c, FX_SMT_SORT_BOOL, "ite condition") ||
        !has_sort(s, &y, x.sort, "ite else branch"))
        return NO_TERM;
    return keep(s, z3lib.mk_ite(s->z3, c.ast, x.ast, y.ast), x.sort);
}

/* ---- uninterpreted functions and quantifiers ---- */

/* Fills asts and domain from the arguments; false if one is invalid or not of
 * its declared sort. */
static bool collect_args(FxSmt *s, size_t n, const FxSmtTerm *args, const FxSmtSort *arg_sorts,
                         Z3_ast *asts, Z3_sort *domain)
{
    for (size_t i = 0; i < n; i++) {
        Entry e;
        if (!lookup(s, args[i], &e))
            return false;
        if (!valid_sort(arg_sorts[i])) {
            no_term(s, fx_xasprintf("argument %zu: no such sort", i));
            return false;
        }
        if (!has_sort(s, &e, arg_sorts[i], "function argument"))
            return false;
        asts[i] = e.ast;
        domain[i] = s->sorts[arg_sorts[i]];
    }
    return true;
}

FxSmtTerm fx_smt_apply(FxSmt *s, const char *name, FxSmtSort result, size_t n_args,
                       const FxSmtTerm *args, const FxSmtSort *arg_sorts)
{
    if (!name || !valid_sort(result) || n_args > UINT_MAX)
        return no_term(s, fx_xstrdup("fx_smt_apply: malformed call"));
    if (!loaded(s))
        return NO_TERM;
    Z3_ast *asts = fx_xmalloc((n_args + 1) * sizeof *asts);
    Z3_sort *domain = fx_xmalloc((n_args + 1) * sizeof *domain);
    FxSmtTerm t = NO_TERM;
    if (collect_args(s, n_args, args, arg_sorts, asts, domain)) {
        Z3_context c = s->z3;
        /* Z3 identifies functions by symbol and signature, as smt.h wants. */
        Z3_func_decl f = z3lib.mk_func_decl(c, z3lib.mk_string_symbol(c, name),
                                            (unsigned)n_args, domain, s->sorts[result]);
        char *err = z3_error(s);
        t = err ? no_term(s, err) : keep(s, z3lib.mk_app(c, f, (unsigned)n_args, asts), result);
    }
    free(asts);
    free(domain);
    return t;
}

static FxSmtTerm quantify(FxSmt *s, bool forall, FxSmtTerm var, FxSmtTerm body)
{
    Entry v, b;
    if (!lookup(s, var, &v) || !lookup(s, body, &b))
        return NO_TERM;
    if (!v.is_var)
        return no_term(s, fx_xstrdup("a quantifier binds a term that is not a variable"));
    if (!has_sort(s, &b, FX_SMT_SORT_BOOL, "quantifier body"))
        return NO_TERM;
    Z3_app bound = z3lib.to_app(s->z3, v.ast);
    Z3_ast q = forall ? z3lib.mk_forall_const(s->z3, 0, 1, &bound, 0, NULL, b.ast)
                      : z3lib.mk_exists_const(s->z3, 0, 1, &bound, 0, NULL, b.ast);
    return keep(s, q, FX_SMT_SORT_BOOL);
}

FxSmtTerm fx_smt_forall(FxSmt *s, FxSmtTerm var, FxSmtTerm body)
{
    return quantify(s, true, var, body);
}

FxSmtTerm fx_smt_exists(FxSmt *s, FxSmtTerm var, FxSmtTerm body)
{
    return quantify(s, false, var, body);
}

/* Int for the invalid term: the header has no third sort to say "none". */
FxSmtSort fx_smt_sort_of(FxSmt *s, FxSmtTerm t)
{
    Entry e;
    return lookup(s, t, &e) ? e.sort : FX_SMT_SORT_INT;
}

/* ---- checking ---- */

static bool assertions_ok(FxSmt *s, size_t n, const FxSmtTerm *assertions)
{
    for (size_t i = 0; i < n; i++) {
        Entry e;
        if (!lookup(s, assertions[i], &e)) {
            const char *why = s->build_error ? s->build_error : "none";
            set_reason(s, fx_xasprintf("assertion %zu is the invalid term; "
                                       "the last construction error: %s",
                                       i, why));
            return false;
        }
        if (e.sort != FX_SMT_SORT_BOOL) {
            set_reason(s, fx_xasprintf("assertion %zu is an Int, not a Bool", i));
            return false;
        }
    }
    return true;
}

/* Does this solver take the parameter? Z3 checks names only when the solver
 * first runs, so an unknown one would fail the query rather than be skipped. */
static bool knows_param(FxSmt *s, Z3_solver solver, const char *name)
{
    Z3_param_descrs d = z3lib.solver_get_param_descrs(s->z3, solver);
    if (!d || z3lib.get_error_code(s->z3) != Z3_OK)
        return false;
    z3lib.param_descrs_inc_ref(s->z3, d);
    Z3_symbol symbol = z3lib.mk_string_symbol(s->z3, name);
    bool known = z3lib.param_descrs_get_kind(s->z3, d, symbol) != Z3_PK_INVALID;
    z3lib.param_descrs_dec_ref(s->z3, d);
    return known;
}

/* The deterministic budget. The wall-clock one is the watchdog's, below. */
static void set_budgets(FxSmt *s, Z3_solver solver)
{
    Z3_context c = s->z3;
    Z3_params p = z3lib.mk_params(c);
    z3lib.params_inc_ref(c, p);
    z3lib.params_set_uint(c, p, z3lib.mk_string_symbol(c, "rlimit"), s->rlimit);
    /* A fixed seed, so that a query's outcome does not vary between runs.
     * Asked once: Z3 takes about 10 ms to list a solver's parameters. */
    if (s->seed_known < 0)
        s->seed_known = knows_param(s, solver, "random_seed");
    if (s->seed_known)
        z3lib.params_set_uint(c, p, z3lib.mk_string_symbol(c, "random_seed"), 0);
    z3lib.solver_set_params(c, solver, p);
    z3lib.params_dec_ref(c, p);
}

/* Keeps the query text: the declarations and assertions, as Z3 prints them. */
static void save_query(FxSmt *s, Z3_solver solver)
{
    const char *text = z3lib.solver_to_string(s->z3, solver);
    if (z3lib.get_error_code(s->z3) != Z3_OK || !text)
        text = "";
    FxBuf b = {0};
    fx_buf_puts(&b, text);
    fx_buf_puts(&b, "(check-sat)\n");
    free(s->query);
    s->query = fx_buf_take(&b);
}

static FxSmtResult result_of(FxSmt *s, Z3_solver solver, Z3_lbool r)
{
    if (r == Z3_L_FALSE)
        return FX_SMT_UNSAT;
    if (r == Z3_L_UNDEF) {
        const char *why = z3lib.solver_get_reason_unknown(s->z3, solver);
        set_reason(s, fx_xstrdup(why && z3lib.get_error_code(s->z3) == Z3_OK ? why : "unknown"));
        return FX_SMT_UNKNOWN;
    }
    s->model = z3lib.solver_get_model(s->z3, solver);
    char *err = z3_error(s);
    if (err || !s->model) {
        s->model = NULL;
        set_reason(s, err ? err : fx_xstrdup("Z3 gave no model"));
        return FX_SMT_ERROR;
    }
    z3lib.model_inc_ref(s->z3, s->model);
    return FX_SMT_SAT;
}

/*
 * The wall-clock budget. Z3's own "timeout" parameter is not used: in 4.8.12
 * its timers share a pool of worker threads whose bookkeeping breaks once a
 * timer has fired (cf. Z3 PR #5371, issue #5990), and a later check can then
 * block forever on a mutex inside Z3_solver_check. Seen here: a few checks
 * that timed out hung the process in about one run in twenty. So each check
 * gets its own watchdog thread, which calls Z3_interrupt at the deadline.
 * (Tactics still start timers of their own, e.g. QF_NIA's try_for; repeated
 * timed-out nonlinear checks that fire those did not hang without ours.)
 */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct timespec deadline; /* CLOCK_MONOTONIC */
    bool done;                /* the check returned: never interrupt now */
    bool fired;               /* the deadline passed first */
    Z3_context z3;
} Watchdog;

static void add_ms(struct timespec *t, unsigned ms)
{
    t->tv_sec += ms / 1000;
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static void *watch(void *arg)
{
    Watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->done) {
        int rc = pthread_cond_timedwait(&w->wake, &w->lock, &w->deadline);
        /* Interrupting under the lock: once done is set, nothing fires. */
        if (rc == ETIMEDOUT && !w->done) {
            /* And again every few ms: Z3 resets its cancel flag as a check
             * starts, so an interrupt that lands before that is lost (seen:
             * a 1 ms budget, then a check running on for over half a minute). */
            w->fired = true;
            z3lib.interrupt(w->z3);
            add_ms(&w->deadline, INTERRUPT_RETRY_MS);
        } else if (rc != 0 && rc != ETIMEDOUT) {
            break; /* a bad deadline: better no budget than a spinning thread */
        }
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static bool watchdog_start(Watchdog *w, pthread_t *thread, Z3_context z3, unsigned ms)
{
    *w = (Watchdog){.z3 = z3};
    clock_gettime(CLOCK_MONOTONIC, &w->deadline);
    add_ms(&w->deadline, ms);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(thread, NULL, watch, w) == 0)
        return true;
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    return false;
}

/* Stops the watchdog; true if it interrupted the check. */
static bool watchdog_stop(Watchdog *w, pthread_t thread)
{
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    return w->fired;
}

/* Z3_solver_check under the watchdog. A check the watchdog interrupted is
 * "timeout" whatever it returned: the interrupt leaves the context cancelled
 * until the next check, so not even its model could be read. */
static FxSmtResult timed_check(FxSmt *s, Z3_solver solver)
{
    Watchdog w;
    pthread_t thread;
    if (!watchdog_start(&w, &thread, s->z3, s->timeout_ms)) {
        set_reason(s, fx_xstrdup("cannot start the timeout thread"));
        return FX_SMT_ERROR;
    }
    Z3_lbool r = z3lib.solver_check(s->z3, solver);
    char *err = z3_error(s);
    if (watchdog_stop(&w, thread)) {
        free(err);
        set_reason(s, fx_xstrdup("timeout"));
        return FX_SMT_UNKNOWN;
    }
    if (err) {
        set_reason(s, err);
        return FX_SMT_ERROR;
    }
    return result_of(s, solver, r);
}

/* Runs the query on a solver that already has its budgets. */
static FxSmtResult solve(FxSmt *s, Z3_solver solver, size_t n, const FxSmtTerm *assertions)
{
    for (size_t i = 0; i < n; i++) {
        z3lib.solver_assert(s->z3, solver, s->terms.data[assertions[i].v - 1].ast);
        char *err = z3_error(s);
        if (err) {
            set_reason(s, err);
            return FX_SMT_ERROR;
        }
    }
    save_query(s, solver);
    return timed_check(s, solver);
}

FxSmtResult fx_smt_check(FxSmt *s, size_t n, const FxSmtTerm *assertions)
{
    drop_model(s);
    free(s->query);
    s->query = NULL;
    if (!loaded(s) || !assertions_ok(s, n, assertions))
        return FX_SMT_ERROR;
    set_reason(s, NULL);
    Z3_solver solver = z3lib.mk_solver(s->z3);
    char *err = z3_error(s);
    if (err || !solver) {
        set_reason(s, err ? err : fx_xstrdup("Z3 gave no solver"));
        return FX_SMT_ERROR;
    }
    z3lib.solver_inc_ref(s->z3, solver);
    set_budgets(s, solver);
    FxSmtResult r = solve(s, solver, n, assertions);
    z3lib.solver_dec_ref(s->z3, solver);
    return r;
}

/* ---- reading results ---- */

/* The decimal text of an evaluated Int, or NULL if it is not a literal.
 * Z3 4.8 prints negative numerals as "-7"; a unary minus over a numeral is
 * accepted as well in case evaluation leaves one. */
static char *int_text(FxSmt *s, Z3_ast v)
{
    Z3_context c = s->z3;
    if (z3lib.is_numeral_ast(c, v))
        return fx_xstrdup(z3lib.get_numeral_string(c, v));
    if (z3lib.get_ast_kind(c, v) != Z3_APP_AST)
        return NULL;
    Z3_app app = z3lib.to_app(c, v);
    if (z3lib.get_decl_kind(c, z3lib.get_app_decl(c, app)) != Z3_OP_UMINUS ||
        z3lib.get_app_num_args(c, app) != 1)
        return NULL;
    Z3_ast arg = z3lib.get_app_arg(c, app, 0); /* v, which we hold, holds arg */
    if (!z3lib.is_numeral_ast(c, arg))
        return NULL;
    const char *digits = z3lib.get_numeral_string(c, arg);
    if (digits[0] == '-')
        return fx_xstrdup(digits + 1);
    return strcmp(digits, "0") == 0 ? fx_xstrdup("0") : fx_xasprintf("-%s", digits);
}

static char *bool_text(FxSmt *s, Z3_ast v)
{
    switch (z3lib.get_bool_value(s->z3, v)) {
    case Z3_L_TRUE:
        return fx_xstrdup("true");
    case Z3_L_FALSE:
        return fx_xstrdup("false");
    default:
        return NULL;
    }
}

char *fx_smt_model_value(FxSmt *s, FxSmtTerm t)
{
    Entry e;
    if (!s->model || !lookup(s, t, &e))
        return NULL;
    Z3_ast v = NULL;
    bool ok = z3lib.model_eval(s->z3, s->model, e.ast, true, &v);
    char *err = z3_error(s);
    if (err || !ok || !v) {
        if (err)
            set_reason(s, err);
        return NULL;
    }
    z3lib.inc_ref(s->z3, v);
    char *text = e.sort == FX_SMT_SORT_BOOL ? bool_text(s, v) : int_text(s, v);
    z3lib.dec_ref(s->z3, v);
    return text;
}

const char *fx_smt_reason(const FxSmt *s)
{
    return s->reason ? s->reason : "";
}

char *fx_smt_last_query(FxSmt *s)
{
    return fx_xstrdup(s->query ? s->query : "");
}

static char version[64];
static pthread_once_t version_once = PTHREAD_ONCE_INIT;

static void make_version(void)
{
    unsigned major, minor, build, revision;
    if (fx_smt_missing()) {
        snprintf(version, sizeof version, "Z3 (not installed)");
        return;
    }
    z3lib.get_version(&major, &minor, &build, &revision);
    snprintf(version, sizeof version, "Z3 %u.%u.%u.%u", major, minor, build, revision);
}

const char *fx_smt_solver_version(void)
{
    /* Once, so that threads with their own FxSmt may all ask. */
    pthread_once(&version_once, make_version);
    return version;
}
