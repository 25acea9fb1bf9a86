/*
 * flux.h: the public C API of Flux, for embedders (the CLI, the web server
 * and language bindings are its clients).
 *
 * Everything returns an exit-code-like status (FLUX_OK, ...) that matches
 * the `flux` command's exit codes, so a client can pass it straight through.
 * Diagnostics are written to the FILE the caller names, in the form
 * `FILE:LINE:COL: error: message` with the source line and a caret.
 *
 * This header is self-contained. Inside src/, only src/api/ (its
 * implementation) includes it.
 *
 * Threads. A loaded FluxProgram is not changed by running it: each
 * flux_run takes a context of its own (its own runtime), so any number of
 * threads may call flux_run on one program at once, and
 * flux_program_refresh, flux_store_flush and the learner (FluxLearner)
 * may run beside them. Every other function that takes a FluxProgram
 * (use_store, record_last, explain, optimize, learn, graph, proofs,
 * traces, history) wants the program to itself: no other call on it at
 * the same time. A FluxStore is one SQLite connection: flux_run,
 * flux_program_refresh and flux_store_flush take turns on it; give each
 * thread that learns, lists or replays its own (flux_store_open again on
 * the same folder). flux_record_last records the main context's last run:
 * use it only without concurrent calls. Nothing in the library forks:
 * learning runs in a thread of the library (FluxLearner) or in the
 * caller's (flux_learn), and the prover runs each solver query in a
 * thread of its own. What a call returns (text, JSON) is the caller's.
 */
#ifndef FLUX_H
#define FLUX_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FLUX_API __attribute__((visibility("default")))

enum {
    FLUX_OK = 0,
    FLUX_ERR_RUNTIME = 1,  /* a run-time error, a budget exceeded, a bad data file */
    FLUX_ERR_USAGE = 2,    /* a malformed request */
    FLUX_ERR_REJECTED = 3, /* the program is rejected: syntax, types, contradictions, false properties */
    FLUX_ERR_STORE = 4,    /* the store is unusable */
    FLUX_DIFFERENT = 5,    /* flux_replay: it ran, and its result differs from the record */
};

typedef struct FluxProgram FluxProgram;
typedef struct FluxStore FluxStore; /* the store's section, below */

typedef struct FluxLoadOptions {
    unsigned smt_timeout_ms; /* per solver query; 0 for the default (2000) */
    int types_only;          /* nonzero: skip the solver checks */
    int quiet_warnings;      /* nonzero: write warnings only when the program is rejected */
    /* nonzero: a data source whose file, symlinks followed, lies outside the
     * folder of the program's file is refused: at load, as an error at its
     * declaration (FLUX_ERR_REJECTED), and again when a run reads it
     * (FLUX_ERR_RUNTIME), for a link changed since. For anything that runs
     * programs on another's request: docs/language.md, "Data sources". */
    int sources_inside;
} FluxLoadOptions;

/* Reads, parses and checks the .flux file at `path` (with its imports and
 * the prelude). Writes every diagnostic to `diagnostics` (NULL: discard);
 * with quiet_warnings, an accepted program's warnings are not written
 * (flux_program_warnings still counts them).
 * Returns FLUX_OK, or FLUX_ERR_REJECTED when there were errors, or
 * FLUX_ERR_USAGE when the file can't be read. On FLUX_OK, *out is a new
 * program that the caller frees with flux_program_free(); otherwise NULL.
 * options may be NULL. */
FLUX_API int flux_program_load(const char *path, const FluxLoadOptions *options,
                               FILE *diagnostics, FluxProgram **out);
/* The same from text in memory; name is what diagnostics and the store
 * call the file (NULL: "<source>"); imports are read from disk. */
FLUX_API int flux_program_load_source(const char *name, const char *text,
                                      const FluxLoadOptions *options, FILE *diagnostics,
                                      FluxProgram **out);

/* flux_program_load, recalling the checker's verdicts from store (NULL:
 * none): a program whose sources (the prelude, the file, its imports) this
 * build of Flux checked before, without errors, is not given to the solver
 * again; its warnings are printed as they were. A program's fresh verdicts
 * are kept in the store it is given with flux_program_use_store. */
FLUX_API int flux_program_load_remembered(const char *path, const FluxLoadOptions *options,
                                          FluxStore *store, FILE *diagnostics,
                                          FluxProgram **out);

/* Warnings reported while loading. */
FLUX_API size_t flux_program_warnings(const FluxProgram *prog);

/* Writes a readable summary of what Flux understood of the program: each
 * intent, how its result is constructed, and each property's verdict. */
FLUX_API void flux_program_describe(const FluxProgram *prog, FILE *out);
/* The intents of prog's file (not of the files it imports), in source
 * order: how many, and the name of the i-th (NULL past the end). */
FLUX_API size_t flux_program_intent_count(const FluxProgram *prog);
FLUX_API const char *flux_program_intent_name(const FluxProgram *prog, size_t i);

FLUX_API void flux_program_free(FluxProgram *prog);

/* Limits on one evaluation; zero fields take the defaults (10^10 steps,
 * depth 10^7, 4096 MB, 600 s). */
/* FluxRunOptions.want_json for a caller that reads the record's other
 * fields, not its output (a 10^8-digit output is not turned into decimal). */
#define FLUX_JSON_SUMMARY 2

typedef struct FluxRunOptions {
    unsigned long long max_steps, max_depth, max_memory_mb;
    double max_seconds;
    int want_json;    /* nonzero: also fill FluxResult.json; FLUX_JSON_SUMMARY: with a
                       * large output summarised as the store keeps it */
    int record_later; /* nonzero: do not record now; the caller calls flux_record_last */
    int no_learn;     /* nonzero: run the installed versions exactly: no mid-run memoization */
    /* Forcing, for benchmarks and tests (flux_run only: flux_explain
     * ignores it). A forced run is
     * never recorded and teaches nothing: no execution, no budget stop, no
     * kernel cost model written; it runs in a runtime of its own, made for
     * it (as a new process would), with the same run-time validation as
     * any run. version: the intent EXPR calls (it must call exactly one)
     * runs its lineage's stored version of that label ("v1", "v3", a
     * rolled-back one too) instead of the newest; FLUX_ERR_USAGE when the
     * store holds no such version. variant: every choice point of a kernel
     * that has a variant of that name takes it, and the record's decision
     * says "forced by the caller": "loop" or "power" (a recurrence kernel
     * holding both), "insertion", "pdq", "radix" or "parallel" (the sort
     * kernels), "trial", "eratosthenes" or "segmented" (the sieve);
     * FLUX_ERR_USAGE for another name, or when no choice point of the run
     * has it (FluxResult.variants lists those the run reached). NULL: not
     * forced. */
    const char *version;
    const char *variant;
    /* The name EXPR's error messages give as its file (the path it was
     * read from); NULL: "<expr>". */
    const char *expr_name;
    /* When set, the value is written there as it is printed, then a line
     * break, and FluxResult.text stays NULL: a large result streams
     * instead of being held whole as text. */
    FILE *print_to;
} FluxRunOptions;

typedef struct FluxResult {
    long long execution_id; /* the recorded execution (exec_<id>), or 0 without a store */
    char *text; /* the value in the syntax of docs/language.md §10 */
    char *json; /* the execution record of docs/cli.md `--json`, when asked for; else NULL */
    double duration_ms;
    char *value_json; /* the value as JSON (integers exact), when want_json is 1; else NULL */
    /* With want_json, the record's own fields, when EXPR called an intent
     * (else NULL): the intent called last, the version that ran ("v3"),
     * and the rewrites that version rests on, joined by ", " ("" for none). */
    char *intent, *version, *rewrites;
    /* With want_json: the variants of the kernels with a choice that the run
     * reached, joined by ", " ("loop, power"; "" for none: the names
     * FluxRunOptions.variant takes), and the one its own call's kernel
     * took ("power", "radix"; "" for none). */
    char *variants, *variant;
} FluxResult;

/* Evaluates EXPR (a call such as `fibonacci(100)`, possibly indexed or
 * composed) in the program. Returns FLUX_OK and fills *out (free it with
 * flux_result_free); FLUX_ERR_USAGE when EXPR is malformed (diagnostics
 * written); FLUX_ERR_RUNTIME with the message written to diagnostics. */
FLUX_API int flux_run(FluxProgram *prog, const char *expr, const FluxRunOptions *options,
                      FILE *diagnostics, FluxResult *out);
/* Stops every flux_run and flux_explain in progress in this process (not
 * a learner's measurements) at its next look at its budgets, within
 * about a millisecond: it returns FLUX_ERR_RUNTIME with the message
 * `interrupted`, and is not recorded. Runs that begin later are not
 * touched. Async-signal-safe: a SIGINT handler may call it (`flux repl`
 * does, so that Ctrl-C stops a run and not the session). */
FLUX_API void flux_interrupt(void);
FLUX_API void flux_result_free(FluxResult *r);


/* ---- the store: every run recorded, every result explained ---- */

/* Opens the store in dir, or when dir is NULL in $FLUX_STORE, else ./.flux
 * (created when missing). Returns FLUX_OK, or FLUX_ERR_STORE with the reason
 * written to diagnostics (locked, corrupt, a newer schema). */
FLUX_API int flux_store_open(const char *dir, FILE *diagnostics, FluxStore **out);
/* The same for a store that exists already: FLUX_OK with *out NULL when
 * there is none in that folder (nothing is created). */
FLUX_API int flux_store_open_existing(const char *dir, FILE *diagnostics, FluxStore **out);
/* `flux store check`: PRAGMA integrity_check of the store in dir (NULL as
 * above), which is only read; prints "ok" or each problem to out. FLUX_OK
 * when it is whole, FLUX_ERR_STORE when damaged or missing. */
FLUX_API int flux_store_check(const char *dir, FILE *out, FILE *diagnostics);
/* `flux store recover`: a new store in new_dir (which must not hold one)
 * of every row of the store in dir that can be read, which is only read;
 * prints the rows kept per table to out. FLUX_ERR_STORE when nothing can be
 * read or new_dir cannot be made. */
FLUX_API int flux_store_recover(const char *dir, const char *new_dir, FILE *out,
                                FILE *diagnostics);
/* Writes what is queued and closes; FLUX_ERR_STORE if the last write failed. */
FLUX_API int flux_store_close(FluxStore *store, FILE *diagnostics);
/* Writes every queued execution now: once this returns FLUX_OK they are
 * recorded, whatever happens to the process next. */
FLUX_API int flux_store_flush(FluxStore *store, FILE *diagnostics);

/* The program files whose intents the store records, as it keeps them:
 * fn(ctx, path, text) for each path, with the text of its newest recorded
 * lineage (load it with flux_program_load_source). FLUX_ERR_STORE when the
 * store cannot be read. */
typedef void (*FluxSourceFn)(void *ctx, const char *path, const char *text);
FLUX_API int flux_store_sources(FluxStore *store, FluxSourceFn fn, void *ctx, FILE *diagnostics);

/* From now on every flux_run of prog is recorded in store (queued: see
 * flux_store_flush), and each intent of prog's file runs the newest
 * version its lineage has in the store (v1 until the optimizer installs
 * another). Values longer than 64 KiB as text are kept as a summary (size
 * and hash) unless keep_values is nonzero. Calling it again re-reads the
 * newest versions (after flux_learn or flux_optimize installed one). */
FLUX_API void flux_program_use_store(FluxProgram *prog, FluxStore *store, int keep_values);
/* Re-reads the newest versions of prog's intents from the store it uses;
 * calls that start afterwards run them, calls running finish on theirs.
 * Safe beside flux_run on other threads. */
FLUX_API void flux_program_refresh(FluxProgram *prog);

/* Records the last successful flux_run of prog (made without another
 * thread's flux_run beside it) in the store prog now uses
 * (for a caller that printed the answer before opening the store). Returns
 * FLUX_OK (also when there was nothing to record) or FLUX_ERR_STORE. */
FLUX_API int flux_record_last(FluxProgram *prog, FILE *diagnostics);

/* Checks that the intent `candidate` of prog is a correct rewrite of
 * `intent` (same function: the prover's obligations, discharged with Z3),
 * records the proof and the proposal (accepted or rejected, with the
 * counterexample) in store, and writes the verdict. Returns FLUX_OK when
 * proved, FLUX_ERR_REJECTED when not, FLUX_ERR_USAGE for unknown intents. */
FLUX_API int flux_prove_rewrite(FluxProgram *prog, FluxStore *store, const char *intent,
                                const char *candidate, FILE *out, FILE *diagnostics);
/* `flux proofs`: the proofs and proposals of prog's intents; with an id,
 * that proof's obligations, as SMT-LIB (smt) or with the Coq lemmas it
 * cites (coq). */
FLUX_API int flux_proofs(FluxStore *store, FluxProgram *prog, long long id, int smt, int coq,
                         int json, FILE *out, FILE *diagnostics);
/* `flux proofs --verify`: each version of prog's intents judged by the
 * seals that bind its proofs to it (docs/store.md, "Trust"), and each proof
 * checked again by the prover from the parent's graph and the version's;
 * a line a version. FLUX_OK when every one holds, FLUX_ERR_REJECTED when
 * one does not, FLUX_ERR_STORE for an unusable store. */
FLUX_API int flux_proofs_verify(FluxStore *store, FluxProgram *prog, FILE *out,
                                FILE *diagnostics);

/* `flux optimize`: one optimization round for prog's intents (or one):
 * from each intent's newest recorded run, the evidence the rules need
 * (here: calls against distinct arguments), each applicable rule's
 * candidate, the prover's check, and, when proved, the candidate installed
 * as the lineage's next version with its proof and evidence. Like
 * flux_learn's rounds, it holds the store's learning lock (DIR/learn.lock),
 * waiting for a round in progress (a wait past 2 s is said on
 * diagnostics); a version, its cost model and its accepted proposal are
 * written in one transaction, refused when another writer took the label.
 * Writes what happened. Returns FLUX_OK, or FLUX_ERR_STORE. */
FLUX_API int flux_optimize(FluxProgram *prog, FluxStore *store, const char *intent, FILE *out,
                           FILE *diagnostics);

/* flux_optimize with options (NULL: none). The round tries the applicable
 * rules in the learned proposer's order (docs/optimizer.md). */
typedef struct FluxOptimizeOptions {
    /* after each intent's round, print the proposer's ranking (each
     * applicable rule's score and predicted gain, which were tried and
     * what happened) and its reward history */
    int explain;
    /* try this rule alone (a name the ranking shows), or NULL: all */
    const char *rule;
} FluxOptimizeOptions;
FLUX_API int flux_optimize_with(FluxProgram *prog, FluxStore *store, const char *intent,
                                const FluxOptimizeOptions *options, FILE *out,
                                FILE *diagnostics);

/* `flux traces`: recorded executions of prog's intents (or of one), newest
 * first, at most last (0: all), as a table or one JSON object per line. */
/* Learning after runs: for each intent of the program whose recorded runs
 * warrant a round (docs/optimizer.md: the first runs of a version, then at
 * 2, 4, 8, ... runs, and whenever an input is more than twice the largest
 * before it), runs one round of flux_optimize. The records are read as they
 * stood when execution `after` was recorded (its id: flux_last_execution;
 * 0 for the newest; FLUX_LEARN_NOW: a round for every intent now, due
 * or not), so that runs made at once each count once. Rounds of
 * one store never overlap: a round waits for the one running. Writes the
 * rounds' lines to out (NULL: silent). Callers run it after the answer is
 * out (`flux run` in a detached `flux` process of its own, or in-process
 * with FLUX_LEARN=wait), or let a FluxLearner run it. */
#define FLUX_LEARN_NOW (-1LL)
FLUX_API int flux_learn(FluxProgram *prog, FluxStore *store, long long after, FILE *out);
/* Nonzero when flux_learn(prog, store, after, ...) would run a round for
 * some intent (after > 0 or 0, not FLUX_LEARN_NOW): a caller that learns in
 * another process starts one only then. */
FLUX_API int flux_learn_due(FluxProgram *prog, FluxStore *store, long long after);

/* A learner: a thread of the library that runs flux_learn for a program
 * while other threads run it. It works on its own copy of the program
 * (loaded again from the same file or text) and its own connection to the
 * store's folder. Before a round it flushes the runs queued in `store`
 * (they are its evidence); after it, it calls flux_program_refresh(prog).
 * prog must use `store` (use_store) and
 * outlive the learner. Returns FLUX_OK, or the status of loading the copy
 * or opening the store (written to diagnostics). */
typedef struct FluxLearner FluxLearner;
FLUX_API int flux_learner_start(FluxProgram *prog, FluxStore *store, FILE *diagnostics,
                                FluxLearner **out);
/* Asks for a round after execution `after` (0: the newest;
 * FLUX_LEARN_NOW: every intent, due or not); requests made while one is
 * pending are merged into it. Returns at once. */
FLUX_API void flux_learner_request(FluxLearner *l, long long after);
/* Waits until no round is pending or running; the number of rounds run so
 * far, and of those that ended in FLUX_ERR_STORE in *failed (may be NULL). */
FLUX_API unsigned flux_learner_wait(FluxLearner *l, unsigned *failed);
/* Finishes the round running (a pending one is dropped), joins the thread,
 * closes its program and store. */
FLUX_API void flux_learner_stop(FluxLearner *l);
/* The id of the last execution prog recorded, or 0. */
FLUX_API long long flux_last_execution(const FluxProgram *prog);

FLUX_API int flux_traces(FluxStore *store, FluxProgram *prog, const char *intent, long last,
                         int json, FILE *out, FILE *diagnostics);
/* `flux traces --format chrome`: the executions of prog's intents (or of
 * one), the newest `last` of each (0: all), as one Chrome trace event
 * document (Perfetto, chrome://tracing): an intent a process, a graph
 * version a thread, an execution a complete event named by its EXPR with
 * its record in args. */
FLUX_API int flux_traces_chrome(FluxStore *store, FluxProgram *prog, const char *intent,
                                long last, FILE *out, FILE *diagnostics);
/* One page of flux_traces as JSON lines: the executions of prog's intents
 * (or of one) with an id below `before` (0: the newest), at most last
 * (0: all), newest first; nothing for an empty page. */
FLUX_API int flux_traces_page(FluxStore *store, FluxProgram *prog, const char *intent,
                              long long before, long last, FILE *out, FILE *diagnostics);
/* The running per-node counters of a version of intent (NULL: the newest
 * trusted one), as one JSON line: {"intent": I, "version": V, "counts":
 * [{"node": N, "count": C, "ms": T}, ...]} (the nodes of `flux graph`, the
 * times each ran in the recorded runs, and the time the VM's sampler found
 * it running, its own and not its callees': docs/web.md, "Profiler").
 * FLUX_ERR_USAGE for an unknown intent or version. */
/* The cost models of the kernel variants of a version of intent (NULL: the
 * newest trusted one), as one JSON line: {"intent", "version", "here": the
 * models as this machine measured them (refitted on its runs), "at_install":
 * the version's own, fitted when it was installed}, each null when there
 * are none (a version without variants), else {"loop": MODEL, "power":
 * MODEL, "merged_through": N}, a MODEL {"class", "a", "b", "error",
 * "points", "max_size", "floor", "ceiling", "fitted_on": [[size, ms,
 * "ladder" | "run" | "run, demoted"], ...]} (docs/optimizer.md, "Variants
 * and the cost model"). FLUX_ERR_USAGE for an unknown intent or version. */
FLUX_API int flux_cost_models(FluxStore *store, FluxProgram *prog, const char *intent,
                              const char *version, FILE *out, FILE *diagnostics);
/* The learning round that came last before execution `execution` on its
 * lineage (what the optimizer had weighed by then), as one JSON line:
 * {"id", "version" (the version it examined), "after_execution" (the
 * newest execution then), "turns": [{"rule", "applies", "outcome", "why"},
 * ...], "outcome", "created_at"}, or null when no round came before it. */
FLUX_API int flux_round_before(FluxStore *store, long long execution, FILE *out,
                               FILE *diagnostics);
FLUX_API int flux_node_counts(FluxStore *store, FluxProgram *prog, const char *intent,
                              const char *version, FILE *out, FILE *diagnostics);
/* `flux history`: the versions of each lineage of prog's intents (or one). */
FLUX_API int flux_history(FluxStore *store, FluxProgram *prog, const char *intent, int json,
                          FILE *out, FILE *diagnostics);
/* `flux explain`: evaluates EXPR (recording it when a store is in use) and
 * writes its provenance tree: version and why, decisions, proofs, how the
 * result was verified, where it came from. */
FLUX_API int flux_explain(FluxProgram *prog, const char *expr, const FluxRunOptions *options,
                          int json, FILE *out, FILE *diagnostics);
/* `flux replay`: re-runs a recorded execution on the version it used, or on
 * `version`, and writes the comparison. FLUX_OK when the result is the
 * recorded one, FLUX_DIFFERENT when it is not (a data file changed since,
 * another version's wrong result), with the comparison written either way.
 * It reads the store through a connection of its own that writes nothing,
 * so other threads may use store meanwhile; with FLUX_SOURCES_INSIDE set,
 * the program's data sources are confined to its folder (FLUX_ERR_REJECTED
 * otherwise). */
FLUX_API int flux_replay(FluxStore *store, long long execution_id, const char *version,
                         const FluxRunOptions *options, int json, FILE *out, FILE *diagnostics);

/* Writes the execution graph of an intent: format is "text", "dot" or
 * "json"; version "v1" (or NULL for the current one). Returns FLUX_OK, or
 * FLUX_ERR_USAGE with a message for an unknown intent, version or format. */
FLUX_API int flux_graph(FluxProgram *prog, const char *intent, const char *version,
                        const char *format, FILE *out, FILE *diagnostics);

/* ---- the MPI device (docs/devices.md, "MPI") ----
 *
 * Under `mpirun -np N` every rank runs the same command: rank 0 runs the
 * program, the others serve the jobs rank 0 splits across them (a count
 * of primes, a sort of integers, an element-wise map). Outside mpirun
 * none of this starts anything. */

/* Where the kernels that can split across ranks run (`--device`). */
enum {
    FLUX_DEVICE_AUTO = 0, /* under mpirun, across the ranks where the device cost model says */
    FLUX_DEVICE_CPU = 1,  /* this process alone, even under mpirun */
    FLUX_DEVICE_MPI = 2,  /* across the ranks, every call that can split */
};
/* What flux_cluster_start says this process is to do. */
enum {
    FLUX_CLUSTER_RUN = 0,   /* run the program: rank 0, or no cluster */
    FLUX_CLUSTER_SERVE = 1, /* a rank > 0: call flux_cluster_serve */
    FLUX_CLUSTER_IDLE = 2,  /* a rank > 0 with nothing to do (FLUX_DEVICE_CPU, or no MPI) */
};
/* Starts the MPI device for this process as `device` asks, and sets *role:
 * under mpirun with more than one rank MPI is initialised (0.1 to 0.5 s),
 * elsewhere nothing happens. AUTO where MPI cannot start (Flux built
 * without Open MPI) lets rank 0 run alone, with a warning. Returns FLUX_OK;
 * for FLUX_DEVICE_MPI where the device is absent, FLUX_ERR_USAGE outside
 * mpirun and FLUX_ERR_RUNTIME under it, with why on diagnostics. Call it
 * from the main thread before the program runs; flux_cluster_stop ends it
 * (it also runs at exit, so that no worker waits for ever). */
FLUX_API int flux_cluster_start(int device, FILE *diagnostics, int *role);
/* A rank > 0: serves rank 0's jobs until rank 0 is done, loading the
 * program at path (every rank was started with the same arguments) when
 * a job first needs it, types checked only (rank 0 made the rest). It
 * prints nothing and opens no store. Returns the exit code. */
FLUX_API int flux_cluster_serve(const char *path);
/* Rank 0: tells every rank that it is done, and ends MPI. Idempotent. */
FLUX_API void flux_cluster_stop(void);
/* `flux run --ranks N`: runs `mpirun -np ranks` of this very program with
 * argv (the command and its arguments), with what mpirun needs here (as
 * root OMPI_ALLOW_RUN_AS_ROOT, --oversubscribe past the cores, shared
 * memory between the ranks), waits, and returns the exit code: rank 0's,
 * or 1 with a message naming the rank when one died or failed. */
FLUX_API int flux_cluster_launch(unsigned ranks, int argc, char *const argv[]);

/* "0.1.0" */
/* The hardware profile Flux plans for (cores, caches, NUMA, SIMD, the
 * thread pool's size, the line recorded with each execution), for people
 * or, when json is nonzero, as one JSON object; written to out. */
FLUX_API void flux_hw_report(int json, FILE *out);

FLUX_API const char *flux_version(void);

#ifdef __cplusplus
}
#endif

#endif
