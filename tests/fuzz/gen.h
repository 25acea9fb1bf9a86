/*
 * gen.h: a generator of random, well-typed Flux programs, and the harness
 * that runs one through check, lower and run (docs/testing.md).
 *
 * Every decision the generator makes is drawn from a GenSource: either the
 * bytes of a libFuzzer input (tests/fuzz/fuzz_gen.c: the input *is* the
 * list of decisions, so coverage guides them) or a seeded PRNG (the
 * standalone driver tests/fuzz/gen_main.c, built as build/tests/gen_fuzz).
 * The same source and options always give the same program, with one
 * compiler: a few decisions are drawn inside the arguments of one call,
 * whose order C leaves to the compiler, so a seed of the gcc build
 * (gen_fuzz) may mean another program in the clang one (fuzz_gen).
 *
 * The generator is in pieces: gen_src.c (the source of decisions, the
 * string arena), gen_types.c (types, records, literal values), gen_expr.c
 * (expressions of a given type), gen_prog.c (declarations, intents,
 * constraints, properties, calls); the harness is gen_run.c.
 *
 * Ownership: gen_program fills a GenProgram whose strings it allocates;
 * gen_program_free frees them. Nothing here is thread-safe: one GenProgram
 * and one GenSource per thread.
 */
#ifndef FLUX_TESTS_GEN_H
#define FLUX_TESTS_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- the source of decisions ---- */

typedef struct GenSource {
    const uint8_t *data; /* fuzz input: one or two bytes a decision */
    size_t len, pos;
    uint64_t state; /* PRNG state (splitmix64) */
    bool prng;
} GenSource;

/* Decisions from bytes; once they run out every decision is 0, and 0 is
 * always the simplest choice, so a short input gives a small program. */
void gen_source_bytes(GenSource *s, const uint8_t *data, size_t len);
/* Decisions from a PRNG seeded with seed. */
void gen_source_seed(GenSource *s, uint64_t seed);
/* A decision in [0, n); 0 when n <= 1. */
uint32_t gen_choose(GenSource *s, uint32_t n);

/* ---- programs ---- */

/* Language forms that are being added in parallel: each is a production of
 * the generator that stays off until its feature bit is set (and its syntax
 * settled in docs/language.md). Each bit's hook is a `case` in gen_expr.c
 * or gen_prog.c that names it. The first three have landed and are always
 * generated now; their bits are kept (and ignored) so that old command
 * lines still replay. */
enum {
    GEN_FEAT_MAP_COMPREHENSION = 1u << 0, /* [f(x) for x in xs if c]: always on now */
    GEN_FEAT_STRING_FNS = 1u << 1,        /* the string built-ins: always on now */
    GEN_FEAT_GROUP_BY = 1u << 2,          /* [E for x in XS group by K]: always on now */
    GEN_FEAT_MATRIX_LEN = 1u << 3,        /* a result Matrix[len(u), len(v)] */
};

/* Bugs known and not yet fixed here: each has a reproducer in
 * tests/fuzz/found/ whose `# avoid:` line names it, and with its bit set in
 * GenOptions.avoid the generator steers clear of the form, so that a run
 * finds something new. gen_probe_found() sets the bits of the reproducers
 * that still fail, so that a bit turns itself off once its bug is fixed.
 * ORDER GEN_KNOWN: keep in sync with known_names[] in gen_run.c. */
enum {
    GEN_KNOWN_COMP_EQ_VAR = 1u << 0,  /* comp-eq-var: `all x where ... E = x`, E mentions x */
    GEN_KNOWN_COMP_IN_LIST = 1u << 1, /* comp-in-list: `all x where x in xs and ...` */
    GEN_KNOWN_DEEP_STACK = 1u << 2,   /* deep-stack: nesting past ~10^4 levels overflows */
    GEN_KNOWN_MINMAX_EMPTY = 1u << 3, /* minmax-empty: max over nested generators, empty slice */
    GEN_KNOWN_POST_CALL_EQ = 1u << 4, /* post-call-eq: `- f(x) = 1 or b` read as an equation */
    GEN_KNOWN_ANY_CONCAT = 1u << 5,   /* any-concat: `max([]) ++ s` rejected */
    GEN_KNOWN_ALIAS_EMPTY_REC = 1u << 6, /* alias-empty-record: `{}` takes a record's alias */
    GEN_KNOWN_MATRIX_FROM_LIST = 1u << 7, /* matrix-from-list: a Matrix result from `[[1]]` */
    GEN_KNOWN_BUDGET_POLL = 1u << 8,  /* budget-poll: growing steps outrun the budgets */
    GEN_KNOWN_BIG_POWER = 1u << 9,    /* big-power: recording `2 ^ n` ignores the budgets */
    GEN_KNOWN_RANGE_BUDGET = 1u << 10, /* range-budget: `0..n` built whatever the budget */
    GEN_KNOWN_PRELUDE_SEES_USER = 1u << 11, /* prelude-sees-user: `lcm` calls a user `gcd` */
    GEN_KNOWN_LEN_SIZE_ALIAS = 1u << 12, /* len-size-alias: Matrix[len(u), ..] with u an alias */
    GEN_KNOWN_OPTIMIZE_IMPORTED = 1u << 13, /* optimize-imported: no root intents: exit 2 */
    GEN_KNOWN_ALL = 0xffffffffu,
};

/* The bit a found file's `# avoid: NAME` names, or 0. */
unsigned gen_known_bit(const char *name);
/* Runs each reproducer in dir (tests/fuzz/found) in a child process, as its
 * `# probe:` line says, and returns the bits of those that still fail.
 * Writes one line per reproducer to log when it is not NULL. */
unsigned gen_probe_found(const char *dir, FILE *log);

typedef struct GenOptions {
    unsigned avoid;    /* GEN_KNOWN_*: steer clear of these known bugs */
    unsigned features; /* GEN_FEAT_* */
} GenOptions;

enum { GEN_FILE_FLUX, GEN_FILE_CSV, GEN_FILE_SQL };

typedef struct GenFile {
    int kind;   /* GEN_FILE_*; an SQL file is run by the harness into NAME.db */
    char *name; /* relative to the program's directory */
    char *text;
} GenFile;

#define GEN_MAX_FILES 8
#define GEN_MAX_INTENTS 16
#define GEN_MAX_CALLS 12

typedef struct GenProgram {
    GenFile files[GEN_MAX_FILES]; /* files[0] is the root .flux file */
    size_t n_files;
    char *intents[GEN_MAX_INTENTS]; /* the user intents, to graph */
    size_t n_intents;
    char *calls[GEN_MAX_CALLS]; /* EXPRs for flux_run */
    size_t n_calls;
    bool may_refute; /* claims a property that may be false: a refutation is fine */
    bool very_deep;  /* nests near or past the limit: a "too deep" rejection is fine */
    bool too_deep;   /* nests past the limit of 1000 levels: it must be rejected */
    int too_deep_call; /* 1 + the index of a call past the limit, which must be refused */
    bool types_only; /* load without the solver */
    unsigned smt_timeout_ms;
    bool learn;     /* also run with no_learn off, and compare */
    bool want_json; /* ask flux_run for the JSON record too */
    bool explain;   /* also flux_explain the first call */
    unsigned long long max_depth; /* the depth budget of the calls; 0: the default */
    bool optimize; /* also: with a store, record the calls, run an optimization
                    * round, and run them again on what it installed */
} GenProgram;

void gen_program(GenSource *s, const GenOptions *o, GenProgram *out);
/* The files and the calls, as a person reads them. */
void gen_program_print(const GenProgram *p, FILE *out);
void gen_program_free(GenProgram *p);

/* ---- the harness (gen_run.c) ---- */

typedef struct GenStats {
    unsigned long programs, accepted, rejected_expected, graphs;
    unsigned long calls, values, errors;
    unsigned long err_budget, err_div, err_index, err_post, err_cover, err_natural, err_data,
            err_other;
    unsigned long roundtrips;
    unsigned long optimized; /* programs that went through an optimization round */
    /* the native comparison (GenRunOptions.native) */
    unsigned long native_programs; /* programs compared */
    unsigned long native_objects;  /* objects built (one per intent made native) */
    unsigned long native_calls;    /* calls run again after the round */
    unsigned long native_ran;      /* of those, calls whose record says native code ran */
    unsigned long native_stayed;   /* intents left interpreted, by reason below */
#define GEN_MAX_REASONS 24
    char reasons[GEN_MAX_REASONS][72];
    unsigned long reason_n[GEN_MAX_REASONS];
} GenStats;

typedef struct GenRunOptions {
    unsigned long long max_steps;
    /* The memory budget counts the whole process's resident size, which
     * ASan's quarantine and libFuzzer's corpus make large and growing: the
     * harness gives each program this much above what is resident when it
     * starts. */
    unsigned long long max_memory_mb;
    double max_seconds;
    FILE *log; /* non-NULL: each call's outcome is written here */
    /* Nonzero: the native comparison. The calls, recorded in a new store,
     * teach a round of flux_optimize_with(rule "native code") with every
     * intent hot (FLUX_NATIVE_HOT_MS=0, tcc only: a few ms an intent), and
     * then run again with the native code it built: each answer must be the
     * interpreter's, to the character (the same value, the same float
     * printed, the same error or step-budget stop). An object the round
     * itself rejects (it differed from the interpreter on an input) or
     * cannot compile is a finding too. */
    bool native;
} GenRunOptions;

/* Writes p's files into dir (an existing directory), loads the root file,
 * graphs every intent and runs every call. Returns 0 when nothing was
 * found; otherwise 1, with what was found in why (a false rejection, a
 * malformed call, a nondeterministic result, an internal error message).
 * Crashes, sanitizer reports and leaks are found by the caller's process. */
int gen_run(const GenProgram *p, const char *dir, const GenRunOptions *o, GenStats *st,
            char *why, size_t why_len);
/* The call being run now (for a signal handler), or NULL. */
extern const char *volatile gen_run_current;

#endif
