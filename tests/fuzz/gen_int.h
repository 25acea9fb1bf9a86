/*
 * gen_int.h: the generator's private types, shared by gen_src.c,
 * gen_types.c, gen_expr.c and gen_prog.c (gen.h is the public side).
 *
 * The generator builds program text directly: an expression is a string
 * together with its precedence level, and a parent wraps a child in
 * parentheses only where the grammar of docs/language.md §5 needs it, so
 * the parser's precedence is exercised without the generator ever meaning
 * one tree and writing another. Every string lives in the Gen's arena,
 * dropped when the program is done.
 *
 * Types are the language's own (GType), and every production is chosen by
 * the type it must produce, with the typing rules of src/lang/check.c:
 * Natural and Int mix, an integer goes where a Float does, `/` needs a
 * Float operand, `div`/`mod` need integers, `<` needs two numbers or two
 * strings, and so on. Whatever the generator writes, it believes the
 * checker accepts; a rejection is either a generator bug or a checker bug.
 */
#ifndef FLUX_TESTS_GEN_INT_H
#define FLUX_TESTS_GEN_INT_H

#include <stdarg.h>

#include "gen.h"

/* ---- strings ---- */

typedef struct GenChunk GenChunk;
typedef struct GenArena {
    GenChunk *head;
} GenArena;

void *ga_alloc(GenArena *a, size_t n);
char *ga_strdup(GenArena *a, const char *s);
char *ga_printf(GenArena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ga_free(GenArena *a);

/* A growable string (malloc'd), for building files. */
typedef struct GenBuf {
    char *s;
    size_t len, cap;
} GenBuf;

void gb_puts(GenBuf *b, const char *s);
void gb_printf(GenBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *gb_take(GenBuf *b); /* the string (never NULL); b is empty after */

/* ---- types ---- */

typedef enum {
    GT_ANY, /* the element of `[]`: goes anywhere */
    GT_NAT,
    GT_INT,
    GT_BOOL,
    GT_FLOAT,
    GT_STRING,
    GT_LIST,
    GT_STREAM,
    GT_MATRIX,
    GT_RECORD,
} GTKind;

typedef struct GType {
    GTKind k;
    const struct GType *elem; /* LIST, STREAM, MATRIX (NAT, INT or FLOAT) */
    const char *rows, *cols;  /* MATRIX: a size variable or a literal number */
    int rec;                  /* RECORD: index into Gen.recs */
} GType;

extern const GType gt_any, gt_nat, gt_int, gt_bool, gt_float, gt_string;

#define GEN_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define GEN_MAX_FIELDS 6
typedef struct GRecord {
    const char *name;
    size_t n;
    const char *fields[GEN_MAX_FIELDS];
    const GType *types[GEN_MAX_FIELDS];
    bool scalar; /* every field a number, string or boolean: a data source can hold it */
} GRecord;

typedef struct GAlias {
    const char *name;
    const GType *t;
} GAlias;

#define GEN_MAX_PARAMS 4
typedef struct GParam {
    const char *name;
    const GType *t;
    const char *text; /* its type as the signature writes it (maybe an alias) */
} GParam;

typedef struct GIntent {
    const char *name;
    size_t n;
    GParam params[GEN_MAX_PARAMS];
    const GType *ret;
    bool prelude;
    bool hidden;        /* a prelude intent a user intent of the same name shadows */
    bool elementwise;   /* constructed element-wise (parallelizable_over applies) */
    const char *eindex[2]; /* its index names */
} GIntent;

typedef struct GData {
    const char *name;
    int rec; /* element record */
    bool missing; /* its file is not written: reading it fails at run time */
} GData;

typedef struct GVar {
    const char *name;
    const GType *t;
} GVar;

/* ---- expressions ---- */

/* Precedence, low to high (docs/language.md §5). */
enum {
    P_IF,    /* if-then-else, quantifiers: they run to the end */
    P_OR,
    P_AND,
    P_NOT,
    P_CMP,   /* a chain of comparisons */
    P_RANGE, /* a..b */
    P_ADD,   /* + - ++ */
    P_MUL,   /* * / div mod % */
    P_UNARY, /* -x */
    P_POW,   /* x ^ y */
    P_POST,  /* primaries, calls, x[i], x.f */
};

/* An expression: its text, its precedence, and the type the checker
 * infers for it (which may be narrower than the type asked for: `[1, 2]`
 * asked as a List[Float] is a List[Natural]). */
typedef struct GExp {
    const char *s;
    int prec;
    const GType *t;
} GExp;

#define GEN_MAX_RECS 8
#define GEN_MAX_ALIASES 6
#define GEN_MAX_GINTENTS 24
#define GEN_MAX_DATA 3
#define GEN_MAX_VARS 64
#define GEN_MAX_SIZES 8

typedef struct Gen {
    GenSource *src;
    const GenOptions *opt;
    GenArena arena;
    unsigned fresh; /* counter for fresh names */

    GRecord recs[GEN_MAX_RECS];
    size_t n_recs;
    GAlias aliases[GEN_MAX_ALIASES];
    size_t n_aliases;
    GIntent intents[GEN_MAX_GINTENTS]; /* the prelude's first, then the user's */
    size_t n_intents, n_prelude;
    GData data[GEN_MAX_DATA];
    size_t n_data;

    /* the scope of the expression being generated, innermost last */
    GVar vars[GEN_MAX_VARS];
    size_t n_vars;
    const char *sizes[GEN_MAX_SIZES]; /* size variables of the current intent */
    size_t n_sizes;

    /* the intent whose constraints are being generated, or NULL (an EXPR) */
    const GIntent *cur;
    size_t callable;       /* intents [0, callable) may be called (no cycles) */
    const char *self_name; /* the name or alias its equations define */
    int dec_param;         /* a Natural parameter that decreases, or -1 */
    const char *dec_name;  /* its name in this equation's scope */
    const char *eq_names[GEN_MAX_PARAMS]; /* each parameter's name in this equation, or NULL */
    bool recurse;          /* self-calls allowed (only where dec_name is > 0) */
    int no_self;           /* > 0: no self-calls here (see tame() in gen_expr.c) */
    bool wild_recursion;   /* self-calls without a decreasing argument */
    bool result_ok;        /* `result` may appear (postconditions) */
    bool newlines;         /* line breaks inside brackets are allowed */
    bool in_expr;          /* an EXPR for flux_run: no scope, no newlines */
    const char *comp_var;  /* avoiding GEN_KNOWN_COMP_EQ_VAR: the comprehension's variable */
    const char *comp_int;  /* the variable of a comprehension over integers */
    int budget;            /* nodes left for the current expression */
    /* numbers only: no records, strings, matrices or data; the shapes the
     * native tier translates today (docs/native.md), one program in 5 */
    bool numeric;
} Gen;

/* gen_src.c: decisions */
uint32_t gx(Gen *g, uint32_t n);           /* gen_choose */
bool gchance(Gen *g, uint32_t one_in);     /* true about once in one_in (never with bytes at 0) */
size_t gpickw(Gen *g, const unsigned *w, size_t n); /* by weight; 0 first */
const char *gfresh(Gen *g, const char *stem); /* a fresh name: stem + counter */

/* gen_types.c */
const GType *gt_list(Gen *g, const GType *elem);
const GType *gt_stream(Gen *g, const GType *elem);
const GType *gt_matrix(Gen *g, const char *rows, const char *cols, const GType *elem);
const GType *gt_record(Gen *g, int rec);
const GType *gt_join(Gen *g, const GType *a, const GType *b); /* as fx_type_join; NULL if none */
bool gt_is_int(const GType *t);
bool gt_is_num(const GType *t);
bool gt_is_ordered(const GType *t);
bool gt_is_coll(const GType *t);
bool gt_is_scalar(const GType *t);
bool gt_assignable(const GType *from, const GType *to); /* as fx_type_assignable */
bool gt_same(const GType *a, const GType *b);
const char *gt_text(Gen *g, const GType *t); /* as written in a signature (maybe an alias) */
/* A random type; depth bounds nesting; sizes lets matrices name size variables. */
const GType *gt_random(Gen *g, int depth);
const GType *gt_random_scalar(Gen *g);
void gen_records(Gen *g, GenBuf *out);
int gen_scalar_record(Gen *g, GenBuf *out); /* a new record of scalars, for data; -1 if full */
/* A literal value of type t, in the syntax of docs/language.md §10: for
 * call arguments. sizes gives the value of each size variable. */
const char *gen_value(Gen *g, const GType *t, const char *const *size_names,
                      const unsigned *size_vals, size_t n_sizes, int depth);
const char *gen_int_literal(Gen *g, bool natural, bool small);
const char *gen_float_literal(Gen *g);
const char *gen_string_literal(Gen *g);

/* gen_prog.c: intents; plans are opaque (gen_plan_size bytes each) */
void gen_add_prelude(Gen *g);
size_t gen_plan_size(void);
size_t gen_plan_intents(Gen *g, size_t n, void *plans);
void gen_plan_set_file(void *plans, size_t k, size_t file);
size_t gen_plan_file(const void *plans, size_t k);
size_t gen_plan_sizes(const void *plans, size_t k, const char *const **out);
void gen_write_intent(Gen *g, size_t k, const void *plans, GenProgram *p, GenBuf *out);

/* Is the prelude's intent name still the prelude's (not shadowed)? */
bool gen_prelude_visible(const Gen *g, const char *name);

/* gen_expr.c */
GExp gen_expr(Gen *g, const GType *t, int depth);
const char *gen_wrap(Gen *g, GExp e, int need); /* e's text, in parentheses when e.prec < need */
GExp gen_bool_about(Gen *g, const char *var, const GType *vt, int depth);
GExp gen_key_about(Gen *g, const char *var, const GType *et, int depth);
/* `base with {f: v, ...}` for base of a record type (base itself otherwise). */
GExp gen_with(Gen *g, GExp base, int depth);
void gen_push(Gen *g, const char *name, const GType *t);
void gen_pop(Gen *g, size_t mark);
const GType *gen_lookup(Gen *g, const char *name);
bool gen_name_taken(Gen *g, const char *name);

#endif
