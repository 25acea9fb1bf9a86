/*
 * ast.h: the syntax tree of a .flux file, and the types the checker gives it.
 *
 * The parser builds the tree in an arena owned by the FxModule; nothing in it
 * is freed separately. Every node keeps the span of the source it came from,
 * so every later message, graph node and explanation can point back to it.
 * The checker fills in FxExpr.type and the resolution fields (marked
 * "checker") and never changes the shape of the tree.
 */
#ifndef FX_AST_H
#define FX_AST_H

#include "base/arena.h"
#include "base/diag.h"

typedef struct FxExpr FxExpr;
typedef struct FxType FxType;
typedef struct FxIntent FxIntent;
typedef struct FxTypeDecl FxTypeDecl;
typedef struct FxDataDecl FxDataDecl;

/* ---- types as written ---- */

/* `Natural`, `List[Int]`, `Matrix[M, K, Int]`, `{ name: String, age: Int }`.
 * Size arguments of Matrix are written as type expressions too (`M`, `3`);
 * the checker reads them by position. */
typedef struct FxTypeExpr {
    FxSpan span;
    const char *name; /* NULL for a record literal */
    size_t n_args;
    struct FxTypeExpr **args;
    size_t n_fields; /* record literal */
    const char **field_names;
    FxSpan *field_spans;
    struct FxTypeExpr **field_types;
    const char *len_of; /* a matrix size `len(NAME)`: NAME (name is then "len(NAME)") */
    FxSpan len_span;
} FxTypeExpr;

/* ---- types as checked ---- */

/* ORDER FX_TY: keep in sync with type names in types.c */
typedef enum {
    FX_TY_ERROR, /* already reported; compatible with everything */
    FX_TY_ANY,   /* the element of `[]`: unknown yet, compatible with everything */
    FX_TY_NATURAL,
    FX_TY_INT,
    FX_TY_BOOL,
    FX_TY_FLOAT,
    FX_TY_STRING,
    FX_TY_LIST,
    FX_TY_STREAM,
    FX_TY_MATRIX,
    FX_TY_RECORD,
} FxTypeKind;

struct FxType {
    FxTypeKind kind;
    FxType *elem;              /* LIST, STREAM, MATRIX */
    const char *rows, *cols;   /* MATRIX: size variable names, literal digits, or
                                * "len(p)": the length of parameter p */
    const FxTypeDecl *record;  /* RECORD */
};

/* ---- expressions ---- */

/* ORDER FX_EXPR */
typedef enum {
    FX_EXPR_INT,       /* text: decimal digits, no sign */
    FX_EXPR_FLOAT,     /* text: the literal */
    FX_EXPR_STRING,    /* text: the unescaped contents */
    FX_EXPR_BOOL,
    FX_EXPR_NAME,      /* text: the name */
    FX_EXPR_RESULT,
    FX_EXPR_UNARY,
    FX_EXPR_BINARY,
    FX_EXPR_COMPARE,   /* a chain: a < b <= c */
    FX_EXPR_IF,
    FX_EXPR_CALL,
    FX_EXPR_INDEX,
    FX_EXPR_FIELD,
    FX_EXPR_LIST,
    FX_EXPR_RECORD,
    FX_EXPR_RANGE,
    FX_EXPR_AGGREGATE, /* sum(e for k in R if c), [e for k in R if c] */
    FX_EXPR_QUANT,     /* forall d in R: body */
} FxExprKind;

/* ORDER FX_OP: keep in sync with op_names[] in ast.c */
typedef enum {
    FX_OP_ADD, FX_OP_SUB, FX_OP_MUL, FX_OP_DIV, FX_OP_IDIV, FX_OP_MOD, FX_OP_POW, FX_OP_CONCAT,
    FX_OP_AND, FX_OP_OR,
    FX_OP_NEG, FX_OP_NOT,
    FX_OP_EQ, FX_OP_NE, FX_OP_LT, FX_OP_LE, FX_OP_GT, FX_OP_GE, FX_OP_IN,
} FxOp;

/* ORDER FX_AGG */
typedef enum {
    FX_AGG_SUM, FX_AGG_PRODUCT, FX_AGG_MIN, FX_AGG_MAX, FX_AGG_COUNT,
    FX_AGG_LIST, /* [e for x in xs if c]: a map comprehension */
    FX_AGG_MEAN, /* sum / count, as a Float */
} FxAggKind;

/* `k in 0..K`: a variable bound over a range or a collection. */
typedef struct FxBinder {
    const char *name;
    FxSpan span;
    FxExpr *domain;
    FxType *type; /* checker: the element type */
    /* `for each particle:`: the domain is the collection the word names by
     * the plural rule (`particles`); the checker resolves domain's text */
    bool each;
} FxBinder;

/* One conjunct of a comprehension's condition that bounds its variable v:
 * `v OP e`, written either way round, with e not naming v (checker). OP is
 * one of > >= < <= = (normalised so that v is on the left), or `in` with a
 * range. */
typedef struct FxBound {
    FxOp op;
    const FxExpr *e;
} FxBound;

/* What a name or call refers to (checker). */
typedef enum {
    FX_REF_NONE,
    FX_REF_PARAM,     /* index: parameter number */
    FX_REF_SIZE,      /* a Matrix size variable */
    FX_REF_LOCAL,     /* a pattern, index, binder or comprehension variable */
    FX_REF_DATA,      /* data: the source */
    FX_REF_INTENT,    /* intent: the callee (including a recursive call) */
    FX_REF_BUILTIN,   /* len, min/max of two, sum of a list, ... */
    FX_REF_CONST,     /* a named constant: pi, e (fx_check_constant) */
    /* inside the body of a grouped comprehension (`[... for e in xs group by K]`): */
    FX_REF_GROUP_KEY, /* an expression the same as K: the group's key */
    FX_REF_GROUP,     /* a NAME the checker made: the group's elements, a list */
} FxRefKind;

struct FxExpr {
    FxExprKind kind;
    FxSpan span;
    FxType *type; /* checker */
    FxRefKind ref;
    size_t ref_index;
    const FxIntent *ref_intent;
    const FxDataDecl *ref_data;
    union {
        const char *text;
        bool boolean;
        struct {
            FxOp op;
            FxExpr *operand;
        } unary;
        struct {
            FxOp op;
            FxExpr *lhs, *rhs;
            FxSpan op_span;
        } binary;
        struct {
            size_t n; /* operands; n - 1 operators */
            FxOp *ops;
            FxSpan *op_spans;
            FxExpr **operands;
        } compare;
        struct {
            FxExpr *cond, *then_e, *else_e;
        } if_;
        struct {
            const char *name;
            FxSpan name_span;
            size_t n_args;
            FxExpr **args;
        } call;
        struct {
            FxExpr *base;
            size_t n;
            FxExpr **indices;
        } index;
        struct {
            FxExpr *base;
            const char *name;
            FxSpan name_span;
        } field;
        struct {
            size_t n;
            FxExpr **items;
        } list;
        struct {
            size_t n;
            const char **names;
            FxSpan *name_spans;
            FxExpr **values;
            FxExpr *base; /* `base with {f: v}`: the record updated; NULL for a literal */
        } record;
        struct {
            FxExpr *lo, *hi;
            bool inclusive;
        } range;
        struct {
            FxAggKind agg;
            FxSpan name_span;
            FxExpr *body;
            size_t n_binders;
            FxBinder *binders;
            FxExpr *filter; /* may be NULL */
            FxExpr *group_key; /* FX_AGG_LIST: `group by KEY`, or NULL */
        } aggregate;
        struct {
            bool is_forall;
            size_t n_binders;
            FxBinder *binders;
            FxExpr *body;
        } quant;
    } u;
};

/* ---- constraints ---- */

/* ORDER FX_CON */
typedef enum {
    FX_CON_EQUATION,      /* f(PATTERN, ...) = EXPR [when COND], result = EXPR, and
                           * `for each x in xs: EXPR`, read as result = [EXPR for x in xs] */
    FX_CON_ELEMENTWISE,   /* result[i, j] = EXPR */
    FX_CON_COMPREHENSION, /* result contains all [KIND] VAR where COND */
    FX_CON_ORDER,         /* result is sorted ascending|descending [by EXPR] */
    FX_CON_PERMUTATION,   /* result is a permutation of EXPR */
    FX_CON_POST,          /* any other boolean expression */
    FX_CON_CHOICE,        /* result is one of EXPR, EXPR, ...: implementations to choose from */
    FX_CON_ACCURACY,      /* accuracy > 95% on DATA: measured on labelled examples */
    FX_CON_LATENCY,       /* latency < 100ms [on DEVICE]: measured per call */
} FxConstraintKind;

/* How an equation's left side was classified (checker). */
typedef enum { FX_TIER_LITERAL = 1, FX_TIER_GUARDED = 2, FX_TIER_OTHERWISE = 3 } FxTier;

typedef struct FxConstraint {
    FxConstraintKind kind;
    FxSpan span;
    union {
        struct {
            const char *head; /* NULL for `result = EXPR` */
            FxSpan head_span;
            size_t n_patterns;
            FxExpr **patterns; /* INT, negated INT, FLOAT, STRING, BOOL or NAME */
            FxExpr *rhs;
            FxExpr *guard; /* may be NULL */
            FxTier tier;   /* checker */
            /* `g(x) = E` whose head may name another function: the same
             * tokens read as one boolean expression, which the line is when
             * the checker finds g is not the intent (NULL if they do not read) */
            FxExpr *as_post;
        } eq;
        struct {
            size_t n_indices;
            const char **indices;
            FxSpan *index_spans;
            FxExpr *rhs;
        } elem;
        struct {
            /* `all primes p where C`: first = primes, second = p;
             * `all users where C` and `all p where C`: first only. */
            const char *first, *second;
            FxSpan first_span, second_span;
            FxExpr *cond;
            /* checker: what the words turned out to be */
            const FxIntent *kind_pred;   /* the unary predicate, or NULL */
            const char *var;             /* the bound variable */
            FxSpan var_span;
            FxExpr *collection;          /* a NAME expr for the collection form, or NULL */
            FxType *var_type;
            /* checker, the variable form: the bounds lowering makes its range
             * of, exactly those the checker accepted; or `v in COLL`, COLL a
             * list, which v walks instead of a range (domain, else NULL) */
            size_t n_bounds;
            FxBound *bounds;
            FxExpr *domain;
        } comp;
        struct {
            bool descending;
            FxExpr *key; /* may be NULL */
            FxSpan key_span;
            /* checker: what the key turned out to be */
            enum { FX_KEY_NONE, FX_KEY_FIELD, FX_KEY_FUNCTION, FX_KEY_EXPR } key_form;
            const FxIntent *key_fn;  /* FX_KEY_FUNCTION */
            const char *key_var;     /* FX_KEY_EXPR: the name that stands for an element */
        } order;
        struct {
            FxExpr *of;
        } perm;
        struct {
            FxExpr *expr;
        } post;
        struct {
            size_t n;
            FxExpr **candidates;
        } choice;
        struct {
            FxOp op;        /* > >= (a bound from below) or < <= */
            double bound;   /* accuracy: a fraction in [0, 1]; latency: seconds */
            const char *bound_text; /* as written: "95%", "100ms" */
            FxSpan bound_span;
            const char *on; /* accuracy: the data source; latency: the device, or NULL */
            FxSpan on_span;
            const FxDataDecl *data; /* checker: accuracy's data source */
        } measure;
    } u;
} FxConstraint;

/* What the checker concluded about a property. */
typedef enum {
    FX_VERDICT_UNCHECKED,
    FX_VERDICT_HOLDS,   /* proved, by construction or by Z3 */
    FX_VERDICT_ASSUMED, /* undecided: kept as an assumption, never used alone */
    FX_VERDICT_FALSE,   /* refuted, with a counterexample */
} FxVerdict;

/* `- commutative`, `- parallelizable_over(i, j) (comment)` */
typedef struct FxProperty {
    FxSpan span, name_span;
    const char *name;
    size_t n_args;
    const char **args;
    FxSpan *arg_spans;
    FxVerdict verdict; /* checker */
    const char *reason; /* checker: why, in a sentence; arena-owned */
} FxProperty;

/* `- prefer_parallel`, `- latency < 100ms`, `- optimize_for energy`,
 * `- if GPU_available then prefer_parallel`. */
typedef struct FxHint {
    FxSpan span, name_span;
    const char *name;
    const char *condition; /* `if COND then`: NULL when unconditional */
    FxSpan condition_span;
    bool has_bound;        /* `latency < 100ms` */
    FxOp bound_op;
    const char *bound_value, *bound_unit; /* "100", "ms"; unit may be NULL */
    FxSpan bound_span;
    const char *arg; /* `optimize_for energy`: "energy" */
    FxSpan arg_span;
} FxHint;

/* ---- declarations ---- */

typedef struct FxParam {
    const char *name;
    FxSpan span;
    FxTypeExpr *type_expr;
    FxType *type; /* checker */
} FxParam;

/* ORDER FX_SECTION */
typedef enum { FX_SECTION_CONSTRAINTS, FX_SECTION_PROPERTIES, FX_SECTION_HINTS } FxSectionKind;

struct FxIntent {
    const char *name;
    FxSpan span, name_span;
    size_t n_params;
    FxParam *params;
    FxTypeExpr *ret_expr;
    FxType *ret; /* checker */
    FX_VEC(FxConstraint *) constraints;
    FX_VEC(FxProperty *) properties;
    FX_VEC(FxHint *) hints;
    bool has_section[3];
    FxSpan section_span[3];
    bool from_prelude;
    /* the name graphs and the runtime know it by: its name, or for a
     * prelude intent a user intent shadows, "prelude.NAME" (the prelude's
     * own calls keep reaching it, docs/language.md §2) */
    const char *key;
    bool has_syntax_errors; /* some lines were dropped: don't judge what is left */
    const char *alias; /* checker: the head of its defining equations when it differs */
    bool recursive;    /* checker: some equation calls the function itself */
};

/* `type User = { name: String, age: Int }` or `type Age = Int` */
struct FxTypeDecl {
    const char *name;
    FxSpan span, name_span;
    FxTypeExpr *def;
    FxType *type;         /* checker */
    FxType **field_types; /* checker: a record's fields, in order of def->field_names */
    bool resolving;       /* checker: to catch `type A = A` */
};

/* `data users: List[User] from "users.csv"` */
struct FxDataDecl {
    const char *name;
    FxSpan span, name_span;
    FxTypeExpr *type_expr;
    FxType *type; /* checker */
    const char *path; /* as written */
    FxSpan path_span;
    char *resolved_path; /* checker: relative to the declaring file; arena-owned */
};

typedef struct FxImport {
    const char *path; /* a file's path, or a library module's name (std.numbers) */
    FxSpan span;
    bool library;     /* `import std.numbers`: the standard library's (lib/std/) */
} FxImport;

/* One parsed file. */
typedef struct FxModule {
    const FxSource *src;
    FxArena arena;
    FX_VEC(FxImport) imports;
    FX_VEC(FxTypeDecl *) types;
    FX_VEC(FxDataDecl *) data;
    FX_VEC(FxIntent *) intents;
} FxModule;

/* How deep an expression may nest, and how deep the parser may recurse
 * (brackets, prefix operators, nested types): every pass over the tree is
 * recursive, so a deeper one is an error at its position rather than a
 * stack overflow (docs/language.md §5). */
#define FX_MAX_EXPR_DEPTH 1000

/* Calls fn on the address of each direct child of e (so that fn may
 * replace it), in source order. */
void fx_expr_each_slot(FxExpr *e, void (*fn)(FxExpr **slot, void *ctx), void *ctx);
/* Are a and b the same expression, spans and checked types aside? */
bool fx_expr_same(const FxExpr *a, const FxExpr *b);

/* Calls fn on each direct child of e (operands, arguments, items,
 * binders' domains, filter, body), in source order. */
void fx_expr_each_child(FxExpr *e, void (*fn)(FxExpr *child, void *ctx), void *ctx);
/* The first node of e deeper than FX_MAX_EXPR_DEPTH (the root is at depth
 * 1), or NULL when e is within the limit. Iterative: any depth is safe. */
const FxExpr *fx_expr_too_deep(FxExpr *e);

const char *fx_op_name(FxOp op);
const char *fx_agg_name(FxAggKind agg);

#endif
