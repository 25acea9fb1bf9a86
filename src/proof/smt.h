/*
 * smt.h: a small, solver-neutral term language over integers and booleans,
 * decided by Z3. src/proof/smt.c is the only file that includes <z3.h>.
 *
 * Callers (the checker, later the prover) build terms through an FxSmt
 * context, then ask whether a conjunction of boolean terms is satisfiable.
 * A satisfiable answer keeps the model, from which the value of any term can
 * be read as decimal text: that is how counterexamples become Flux values.
 *
 * Semantics follow Flux, not SMT-LIB, where they differ: FX_SMT_DIV and
 * FX_SMT_MOD floor (Python's // and %), so `-7 div 2` is -4 and `-7 mod 2`
 * is 1. Division by zero is left unconstrained (the interpreter traps on it;
 * the checker compares values only where both sides are defined).
 *
 * Budgets: every check runs under a wall-clock timeout and a deterministic
 * resource limit (Z3's rlimit), whichever comes first; running out of either
 * is FX_SMT_UNKNOWN, never an error. Z3's own errors (it would otherwise
 * print and exit the process) are caught by a recording error handler and
 * turn into FX_SMT_ERROR with a message, and into invalid terms.
 *
 * Threads: an FxSmt is not thread-safe; use one per thread.
 */
#ifndef FX_SMT_H
#define FX_SMT_H

#include "base/base.h"

typedef struct FxSmt FxSmt;

/* A handle to a term of one context. The zero handle is "no term": built from
 * an invalid operand or after a solver error. Every constructor accepts it
 * and propagates it, so callers check once, at the end. */
typedef struct {
    uint32_t v;
} FxSmtTerm;

typedef enum { FX_SMT_SORT_INT, FX_SMT_SORT_BOOL } FxSmtSort;

/* ORDER FX_SMT_OP: keep in sync with the table in smt.c */
typedef enum {
    FX_SMT_ADD, FX_SMT_SUB, FX_SMT_MUL, FX_SMT_DIV, FX_SMT_MOD, /* Int x Int -> Int */
    FX_SMT_LT, FX_SMT_LE, FX_SMT_GT, FX_SMT_GE,                 /* Int x Int -> Bool */
    FX_SMT_EQ, FX_SMT_NE,                                       /* same sort -> Bool */
    FX_SMT_AND, FX_SMT_OR, FX_SMT_IMPLIES,                      /* Bool x Bool -> Bool */
} FxSmtOp;

typedef enum {
    FX_SMT_SAT,     /* satisfiable; a model is available */
    FX_SMT_UNSAT,   /* unsatisfiable */
    FX_SMT_UNKNOWN, /* the solver gave up: timeout, rlimit, incompleteness */
    FX_SMT_ERROR,   /* a malformed query or a solver error; see fx_smt_error */
} FxSmtResult;

/* Returns a new context; timeout_ms and rlimit of 0 mean the defaults
 * (2000 ms, 5,000,000). Caller frees with fx_smt_free(). */
FxSmt *fx_smt_new(unsigned timeout_ms, unsigned rlimit);
/* Z3 is loaded by the first fx_smt_new (or this call): NULL when it was,
 * else why not ("Z3 (libz3.so.4) is not installed: ..."). Without it an
 * FxSmt makes no terms, and each check is FX_SMT_ERROR with that reason. */
const char *fx_smt_missing(void);
void fx_smt_free(FxSmt *s);

/* A fresh constant. Names need not be unique: two calls make two distinct
 * constants even with the same name (the name is only for printing). */
FxSmtTerm fx_smt_var(FxSmt *s, const char *name, FxSmtSort sort);
/* An integer literal from decimal text, optionally with a leading '-'. */
FxSmtTerm fx_smt_int(FxSmt *s, const char *decimal);
FxSmtTerm fx_smt_int64(FxSmt *s, int64_t v);
FxSmtTerm fx_smt_bool(FxSmt *s, bool v);

FxSmtTerm fx_smt_binop(FxSmt *s, FxSmtOp op, FxSmtTerm a, FxSmtTerm b);
FxSmtTerm fx_smt_not(FxSmt *s, FxSmtTerm a);
FxSmtTerm fx_smt_neg(FxSmt *s, FxSmtTerm a);
FxSmtTerm fx_smt_ite(FxSmt *s, FxSmtTerm cond, FxSmtTerm then_t, FxSmtTerm else_t);

/* Application of the uninterpreted function `name` with the given signature.
 * The same name and signature denote the same function within a context. */
FxSmtTerm fx_smt_apply(FxSmt *s, const char *name, FxSmtSort result, size_t n_args,
                       const FxSmtTerm *args, const FxSmtSort *arg_sorts);

/* Quantifiers: `var` must be a term made by fx_smt_var. */
FxSmtTerm fx_smt_forall(FxSmt *s, FxSmtTerm var, FxSmtTerm body);
FxSmtTerm fx_smt_exists(FxSmt *s, FxSmtTerm var, FxSmtTerm body);

FxSmtSort fx_smt_sort_of(FxSmt *s, FxSmtTerm t);

/* Is the conjunction of the n boolean terms satisfiable? Replaces the model
 * of any earlier check. */
FxSmtResult fx_smt_check(FxSmt *s, size_t n, const FxSmtTerm *assertions);

/* After FX_SMT_SAT: the value of t in the model (completed where the model
 * leaves it free) as "42", "-7", "true" or "false". Returns a new string that
 * the caller frees, or NULL when there is no model or t has no literal value. */
char *fx_smt_model_value(FxSmt *s, FxSmtTerm t);

/* The last solver error or reason for FX_SMT_UNKNOWN ("timeout",
 * "max. resource limit exceeded", ...); "" when there is none. Borrowed. */
const char *fx_smt_reason(const FxSmt *s);

/* The query of the last fx_smt_check as SMT-LIB 2 text; caller frees. */
char *fx_smt_last_query(FxSmt *s);

/* The solver's name and version, e.g. "Z3 4.8.12.0". Borrowed, static. */
const char *fx_smt_solver_version(void);

#endif
