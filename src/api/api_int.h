/*
 * api_int.h: what the files of src/api share: the structs behind the
 * public handles of include/flux.h. Private to src/api.
 */
#ifndef FX_API_INT_H
#define FX_API_INT_H

#include <pthread.h>

#include "exec/interp.h"
#include "exec/sortcost.h"
#include "flux.h"
#include "opt/analyze.h"
#include "opt/cost.h"
#include "lang/program.h"
#include "trace/store.h"

/* One set of codes: the library's statuses are the public ones. */
_Static_assert((int)FX_OK == FLUX_OK && (int)FX_ERR_RUNTIME == FLUX_ERR_RUNTIME &&
                   (int)FX_ERR_USAGE == FLUX_ERR_USAGE &&
                   (int)FX_ERR_REJECTED == FLUX_ERR_REJECTED && (int)FX_ERR_STORE == FLUX_ERR_STORE,
               "FxStatus and FLUX_* differ");

struct FluxStore {
    FxStore *store;
    pthread_mutex_t lock; /* one connection: one thread at a time uses it */
};

/* The store's ids of a version, by intent and label (not by graph: every
 * context has its own copy of an installed graph). */
typedef struct FxKnownVersion {
    char *intent, *label;
    int64_t lineage, version;
} FxKnownVersion;

/* A version the store installed, as read (context.c): each context's
 * runtime reads its own graph from it. */
/* The reason the newest stored version of intent was refused, or NULL. */
const char *fx_api_refused(const FluxProgram *fp, const char *intent);

typedef struct FxInstalled {
    FxGraph *graph;    /* read back from the store once; runtimes get copies */
    char *models_json; /* the variant models of a version with a choice, or NULL */
    int64_t version;   /* its store row */
} FxInstalled;

/* One variant's cost model (variants.c): the class fitted on the points
 * it keeps (a ladder timed at install, the recorded runs, and the calls
 * that ran slower than predicted: demotions), and the growth classes the
 * rewrite's certificate bounds it by, which a prediction past the points
 * keeps within. */
#define FX_MODEL_POINTS 48
typedef struct FxModelPoint {
    double size, ms;
    bool demoted; /* measured over twice its prediction: a floor for larger sizes */
    bool run;     /* from a recorded run (else the install's ladder) */
} FxModelPoint;

typedef struct FxVariantModel {
    FxCostModel fit;
    bool has;
    FxCostClass floor, ceiling; /* the certificate's least and most growth class */
    FxModelPoint pts[FX_MODEL_POINTS];
    uint32_t n_pts;
} FxVariantModel;

/* The cost models of a version's kernel variants ([0] loop, [1] power). */
typedef struct FxVariantModels {
    const FxGraph *graph;   /* the installed version they belong to */
    int64_t version;        /* its store row, 0 when unknown */
    int64_t merged_through; /* the newest recorded run merged into the points */
    FxVariantModel v[2];
    int8_t bucket[65]; /* per bit length of n: the variant predicted faster over
                        * the whole range, or -1: ask the models */
} FxVariantModels;

typedef struct FxMeasure FxMeasure;

/* One call's context (context.c): its own runtime, holding the installed
 * versions and their models, and what the call decided. A context serves
 * one call at a time. */
typedef struct FxCallCtx {
    FluxProgram *fp;
    FxRuntime *rt;
    FX_VEC(FxVariantModels) models; /* of its runtime's versions with variants */
    bool explored;                  /* this run has explored a variant already */
    bool explore_read;              /* FLUX_EXPLORE read for this run, into explore_mode */
    int explore_mode;
    unsigned seed;                  /* the exploration's draws */
    unsigned generation;            /* of the installed versions its runtime has */
    struct FxOutputCheck *check;    /* check_output.c: its last run's validation */
} FxCallCtx;

struct FluxProgram {
    /* Guards what concurrent flux_run calls share: diag and the checker's
     * use of prog, measures, versions, installed, the idle contexts and
     * the last run; then store->lock guards the store. */
    pthread_mutex_t lock;
    FxDiag diag;
    FX_VEC(FxMeasure *) measures; /* measure.c: the measured intents, once each */
    FxProgram *prog;
    char *path, *source; /* what it was loaded from (a file, or text), for a copy */
    FluxLoadOptions load_options;
    FluxStore *store;   /* where runs are recorded, or NULL */
    bool keep_values;   /* record large values whole */
    bool taking_callees; /* running a callee's call for learning: no call profile (callees.c) */
    /* the store's version id of each intent recorded so far: lineage and
     * version are made once, not at every run */
    FX_VEC(FxKnownVersion) versions;
    struct FxProofCache *proof_cache; /* verdicts by obligation, for this program's life */
    FX_VEC(FxInstalled) installed;    /* the newest versions the store holds, but v1 */
    /* the newest stored versions that do not read back (a kernel whose shape
     * no longer matches, a damaged graph): "version v2 of `f` is refused:
     * why", one per intent, for the record of a run that falls back to v1 */
    FX_VEC(char *) refused;
    unsigned generation;              /* bumped each time installed is read afresh */
    FxCallCtx main;                   /* the single-threaded API's context (its runtime
                                       * made on first use; keeps compiled intents) */
    bool main_busy;                   /* a flux_run is using main */
    FX_VEC(FxCallCtx *) idle, all;    /* further contexts, for concurrent calls */
    FxSortCosts sort_costs;           /* the sort kernels' model as the store keeps it */
    bool sort_costs_kept;             /* read from the store: given to each new runtime */
    struct FxDevCosts *dev_costs;     /* the device cost model (exec/devcost.h), read with
                                       * the sort's; NULL without a store */
    /* the last successful run, for flux_record_last */
    char *last_expr;
    FxValue last_value;
    double last_ms;
    long long last_id; /* the last execution recorded */
};

/* ---- FluxLoadOptions.sources_inside (sources.c) ---- */

/* Confines fp's data sources to the folder of its file: sets
 * prog->data_root, and reports each source already outside it as an error
 * at its declaration. */
void fx_api_confine_sources(FluxProgram *fp);

/* ---- the checker's verdicts kept in the store (verdicts.c) ---- */

/* The GNU build id of the object holding this library, in hex, or NULL. */
const char *fx_api_build_id(void);
/* Sets opts to remember the solver's part of a check, recalling from fs
 * (NULL: record only). */
void fx_api_verdicts_options(FluxStore *fs, FxCheckOptions *opts);
/* Keeps fp's fresh memo in fs (under fs->lock), once. */
void fx_api_verdicts_keep(FluxProgram *fp, FluxStore *fs);

/* ---- the hardware profile kept in the store (hardware.c) ---- */

/* Adopts the profile fs keeps for this machine, or detects it and keeps
 * it there; under fs->lock, before anything detects. */
void fx_api_hardware_recall(FluxStore *fs);

/* ---- the kernels' cost models (costs.c) ---- */

/* Reads the models the store keeps (none without a store) into the
 * program: with fx_api_read_installed, under fp->lock and the store's. */
void fx_api_costs_read(FluxProgram *fp);
/* Gives a runtime just made the program's models (context.c's build). */
void fx_api_costs_give(FluxProgram *fp, FxRuntime *rt);
/* After a run on rt (a context's, not shared): writes back the kernels'
 * costs the run refitted and keeps them for the runtimes made later. Takes
 * fp->lock and the store's when there is something to write. */
void fx_api_costs_save(FluxProgram *fp, FxRuntime *rt);

/* ---- materialised results between processes (keep.c) ---- */

/* Gives a runtime just made the store's kept results (context.c's build):
 * read when a version's node first needs one, written when computed. */
void fx_api_keep_give(FluxProgram *fp, FxRuntime *rt);
/* One version (a row of fx_store_versions) of in's lineage judged by its
 * seal and its proof checked again by the prover: its verdict printed, a
 * line; false when it does not hold (verify.c). */
bool fx_api_verify_version(FluxProgram *fp, FxStore *st, const FxIntent *in, int64_t lineage,
                           const char *row, FILE *out);
/* The native objects fs's rows call "ok": *rows of them, *bad whose
 * object is there and whose MAC does not hold (each named on out). */
FxStatus fx_api_native_audit(FluxStore *fs, FILE *out, size_t *rows, size_t *bad) FX_MUST_CHECK;
/* The kept results of st: *rows of them, *bad whose MAC does not hold
 * (each named on out, when out is not NULL). */
FxStatus fx_api_keep_audit(FxStore *st, FILE *out, size_t *rows, size_t *bad) FX_MUST_CHECK;

/* ---- contexts (context.c) ---- */

/* A new, empty program handle (its lock initialised). */
FluxProgram *fx_api_program_new(void);
/* The main context's runtime, made (with the installed versions) when
 * missing or older than the installed versions. Single-threaded API. */
FxRuntime *fx_api_runtime(FluxProgram *fp);
/* A context for one call: main when free, else an idle or a new one; its
 * runtime has the newest installed versions. Thread-safe. */
FxCallCtx *fx_api_call_begin(FluxProgram *fp);
void fx_api_call_end(FluxProgram *fp, FxCallCtx *cx);
/* A context of a forced run's own (force.c), never shared: a fresh runtime
 * running g (taken over; NULL: none) for its intent, with the models of
 * its store row `version`, and the installed versions for the others.
 * fx_api_context_drop frees it. */
FxCallCtx *fx_api_context_forced(FluxProgram *fp, FxGraph *g, int64_t version,
                                 const char *models_json);
void fx_api_context_drop(FluxProgram *fp, FxCallCtx *cx);
/* Rebuilds cx's runtime when the installed versions changed since it was
 * built (a rollback in the call). Thread-safe. */
void fx_api_call_refresh(FxCallCtx *cx);
/* Reads the newest versions from fp->store (NULL: none) for the contexts
 * to use from their next call. Caller holds fp->lock. */
void fx_api_read_installed(FluxProgram *fp);
void fx_api_contexts_free(FluxProgram *fp);

/* measure.c: measures the intents with an `accuracy` that EXPR may call
 * (once in the program's life) and tells the runtime rt which
 * implementation of each runs (flux_run's context, or the learning
 * round's). Beside concurrent calls, the caller holds fp->lock. */
void fx_api_measure(FluxProgram *fp, FxRuntime *rt, const FxExpr *expr);
/* The measure of an intent, or NULL when it has none (yet). */
const FxMeasure *fx_api_measured(const FluxProgram *fp, const char *intent);
/* The decision and the figures of each implementation, a line each. */
char *fx_measure_report(const FxMeasure *m);
void fx_measure_free(FxMeasure *m);
FxBudgets fx_api_budgets(const FluxRunOptions *o);

/* Parses and checks EXPR against the program; NULL after writing the
 * diagnostics. The expression lives in arena. Takes fp->lock. */
FxExpr *fx_api_parse_expr(FluxProgram *fp, const char *expr, const char *name, FxArena *arena,
                          FILE *diagnostics);

/* Records the run that just ended (value v of expression graph g, which
 * took ms) when a store is in use; returns its id, or 0 when nothing was
 * recorded (no store, or EXPR called no intent). A store error is written
 * to diagnostics and returned as -1. */
/* v as the store records it (run.c): its JSON, or past 64 KiB (unless
 * keep) a summary; big integers are summarised without their digits. */
void fx_api_value_json(FxValue v, bool keep, FxBuf *out);
long long fx_api_record(FluxProgram *fp, FxRuntime *rt, const char *expr, double ms,
                        FILE *diagnostics);

/* The lineage and version ids of an intent's graph in the store, made on
 * first use. */
FxStatus fx_api_version_of(FluxProgram *fp, const FxIntent *in, const FxGraph *g,
                           int64_t *out_lineage, int64_t *out_version);

/* ---- learning over the call tree (callees.c) ---- */

/* After a recorded run of top (its EXPR, execution and time): keeps the
 * run's call profile, each intent it called with its share of the time and
 * its first call, for learning. */
void fx_api_note_callees(FluxProgram *fp, FxRuntime *rt, const FxGraph *top, const char *expr,
                         long long execution, double run_ms);
/* A callee whose call was taken: run alone and recorded as execution. */
typedef struct FxCalleeTaken {
    const FxIntent *intent;
    double total_ms; /* its time within the caller's run */
    long long execution;
} FxCalleeTaken;
/* Would fx_api_callees_take take a call after run `after` (0: the newest)? */
bool fx_api_callees_due(FluxProgram *fp, FluxStore *fs, long long after);
/* Runs alone the significant callees' calls of the profiles due (every
 * profile not taken yet with `all`), each recorded; says which intents
 * were considered and why on out. Fills taken[0..max), returns how many. */
size_t fx_api_callees_take(FluxProgram *fp, FluxStore *fs, long long after, bool all,
                           FxCalleeTaken *taken, size_t max, FILE *out);
/* The file's intents in the order their rounds run, callees taken first
 * (the least time first); order has room for every intent. */
size_t fx_api_round_order(FluxProgram *fp, const FxCalleeTaken *taken, size_t n_taken,
                          const FxIntent **order);
/* The line explain gives the callees of caller's run `execution`: each
 * one's share, version and tier, and whether learning considers it; NULL
 * when that run kept no profile. Caller frees. */
char *fx_api_callees_told(FluxProgram *fp, const FxIntent *caller, long long execution);
/* Is a round due for `in` after run `after` (learn.c)? */
bool fx_api_round_due(FluxProgram *fp, FluxStore *fs, const FxIntent *in, long long after);

/* The lineage key of an intent: the hash of its normalised text. */
void fx_api_lineage_hash(const FxIntent *in, char out[17]);
/* Is the lineage's v1 the graph lowered from in's constraints now, node
 * for node (origins aside)? Its versions' proofs start from its v1, and a
 * lineage row is one UPDATE from naming another intent's versions. */
bool fx_api_lineage_bound(FxStore *st, const FxProgram *prog, const FxIntent *in,
                          int64_t lineage);

/* A monotonic clock, in ms. */
double fx_api_now_ms(void);
/* Evaluates g in rt into *v; *ms gets the evaluation's time, the
 * process's one-time setup left out (hw/setup.h). Every version's time,
 * recorded or measured by a rule, is taken this way. */
FxStatus fx_api_eval_timed(FxRuntime *rt, const FxGraph *g, FxValue *v, double *ms);

/* The hardware line, "2 cores, x86_64, avx2"; borrowed, static. */
const char *fx_api_hardware(void);
/* Its fingerprint (fx_hw_fingerprint), found once a process too. */
const char *fx_api_fingerprint(void);

/* The JSON of a value into out (exact integers). */
void fx_api_json_string(const char *s, FxBuf *out);

/* A top-level field of a JSON object as its raw text, or NULL; caller frees. */
char *fx_api_json_field(const char *json, const char *key);
/* The same without the quotes of a string; "-" when absent. Caller frees. */
char *fx_api_json_text(const char *json, const char *key);

/* Where a running version came from, as its store row says: the rewrite
 * that made it from its parent, and the proof that let it in. All NULL for
 * a naive v1, or without a store. */
typedef struct FxVersionOrigin {
    char *parent, *rewrite, *proof_id, *evidence;
} FxVersionOrigin;
FxVersionOrigin fx_api_origin(FluxProgram *fp, const FxIntent *in, const FxGraph *g);
void fx_api_origin_free(FxVersionOrigin *o);

/* The rows of a listing (`traces`, `history`, `proofs`): kept while the
 * store is read, then printed. */
typedef struct FxRows {
    FX_VEC(char *) json;
} FxRows;
void fx_api_keep_row(void *ctx, const char *json);
/* Prints and frees the rows: as JSON lines, or through print_row; writes
 * `empty` when there are none; a store error st becomes exit 4. */
int fx_api_print_rows(FxRows *rows, FxStatus st, FluxStore *fs, int json,
                      void (*print_row)(const char *json, FILE *out), const char *empty,
                      FILE *out, FILE *diagnostics);

/* ---- proofs checked again (verify.c) ---- */

/* The proof of g, a version of intent's lineage that verifies (its seals,
 * trace/seal.h), checked again by the prover from its parent's graph and
 * its own: NULL when it holds, else why (caller frees). */
char *fx_api_proof_again(FluxProgram *fp, FxStore *st, const char *intent, int64_t lineage,
                         const FxGraph *g, const char *parent);

/* ---- forced runs (force.c) ---- */

/* For a run whose options force a version or a variant: *out gets a
 * context of its own (drop it with fx_api_context_drop), its runtime
 * running the version asked for the intent EXPR calls and told the
 * variant. *out NULL when nothing is forced. FLUX_ERR_USAGE, the reason
 * written, for an unknown variant, an EXPR that calls no intent or
 * several, or a version the store does not hold. */
int fx_api_forced_begin(FluxProgram *fp, FxExpr *e, const FluxRunOptions *o, FILE *diagnostics,
                        FxCallCtx **out);
/* After the forced run on rt succeeded: did a choice point take the
 * variant forced? If not, false with the reason written. */
bool fx_api_forced_honoured(const FxRuntime *rt, const FluxRunOptions *o, FILE *diagnostics);

/* ---- run-time validation (check_output.c) ---- */

/* After a run (status st, its value *v, *ms long) of EXPR e (graph g) in
 * context cx: when its own call ran a rewritten version, checks that
 * call's output; a failure rolls the version back and runs EXPR again,
 * replacing *v (cx's runtime is then a new one) and *ms (the time of the
 * evaluation that answered: the checks are never in it). Returns the
 * run's status. */
FxStatus fx_api_check_output(FxCallCtx *cx, const FxExpr *e, const FxGraph *g,
                             const FluxRunOptions *o, FxStatus st, double *ms, FxValue *v);
/* The validation of the last run of the context whose runtime is rt:
 * "checked", "skipped" or "failed", and what was checked, version by
 * version; false when none ran (v1 answered). The caller holds fp->lock
 * (or is the single-threaded API). */
bool fx_api_check_outcome(const FluxProgram *fp, const FxRuntime *rt, const char **result,
                          const char **reason);
/* The same as one more entry of a decision tree: `, {"decision": ...}`. */
void fx_api_check_decision(const FluxProgram *fp, const FxRuntime *rt, FxBuf *out);
void fx_api_check_free(struct FxOutputCheck *c);

/* The op of counted node `node` (1-based, as the store's node counters
 * number them) of g when running it is work; FX_NODE_CONST otherwise (no
 * such node, or a constant, parameter or variable: free to read, not
 * where time goes). */
FxNodeOp fx_api_counted_work(const FxGraph *g, uint32_t node);

/* ---- learning rounds (learn.c, optimize.c) ---- */
/* Takes the store's learning lock (DIR/learn.lock), waiting for the round
 * that holds it; a wait of more than 2 s is said on diagnostics (NULL:
 * quietly). Returns what fx_api_learn_unlock releases, or -1 (said). */
int fx_api_learn_lock(FluxStore *fs, FILE *diagnostics);
void fx_api_learn_unlock(int lock);
/* flux_optimize_with under a learning lock the caller holds. */
int fx_api_optimize(FluxProgram *fp, FluxStore *fs, const char *intent,
                    const FluxOptimizeOptions *options, FILE *out, FILE *diagnostics);

/* ---- counterexamples (reproduce.c) ---- */
struct FxProof;
/* Runs cur and cand on the arguments of each of p's refuted obligations
 * that has them: a counterexample the runs confirm is rewritten from them;
 * one they do not makes its obligation unknown ("unproved: the solver's
 * model did not reproduce"). p's verdict follows. */
void fx_api_reproduce(FluxProgram *fp, const FxGraph *cur, const FxGraph *cand,
                      struct FxProof *p);

/* ---- traces (traces.c) ---- */

typedef struct FxTraces {
    FX_VEC(FxTrace) v; /* newest first */
    /* no run in the window finished: v holds the runs a budget stopped
     * (their times are the budget's, a lower bound; their EXPRs are real) */
    bool stopped_only;
} FxTraces;
/* The newest `limit` runs of a lineage. */
FxStatus fx_api_traces(FluxStore *fs, const char *intent, int64_t lineage, size_t limit,
                       FxTraces *out);
/* The same with the id, version, size and input of each run only (no
 * time, variant or EXPR): cheap enough for every `flux run` to ask. */
FxStatus fx_api_recent_traces(FluxStore *fs, const char *intent, int64_t lineage, size_t limit,
                              FxTraces *out);
void fx_api_traces_free(FxTraces *t);

/* ---- variants (variants.c) ---- */

/* The data kernels' choice in the last run, "DECISION: REASON", or NULL;
 * when an intent g called made it, the reason begins with that intent's
 * version and proof ("in `sort` v2, proved by proof #1: ...") and
 * *proof_id gets the proof's id ("null" for none). Caller frees both. */
char *fx_api_data_choice(FluxProgram *fp, FxRuntime *rt, const FxGraph *g, char **proof_id);

/* Loads a version's models (its store JSON) for the chooser of cx's runtime. */
void fx_api_models_attach(FxCallCtx *cx, const FxGraph *g, int64_t version, const char *json);
/* "power model: n (a = ..., b = ...) on 12 points: n = 16: 0.0002 ms (ladder),
 * ...": variant k's model of g in cx, for explain; NULL without one. */
char *fx_api_models_points(FxCallCtx *cx, const FxGraph *g, int k);
/* Models to and from their JSON (caller frees the text); reading fills the
 * floors from g's certificate. */
char *fx_api_models_json(const FxVariantModels *vm);
bool fx_api_models_read(const char *text, const FxGraph *g, FxVariantModels *vm);
/* Variant k's predicted time at size n, in ms (variants.c: past its points,
 * never below its floor class's growth). */
double fx_api_models_predict(const FxVariantModels *vm, int k, double n);
/* The models of version (row) of g as this machine keeps them: the learned
 * row for its hardware, else the version's own (fitted at install); a row
 * that does not parse is skipped with a warning on stderr. Caller frees;
 * NULL when there are none. */
char *fx_api_models_load(FluxStore *fs, int64_t version, const FxGraph *g);
/* The version `version` of intent (NULL: the newest trusted one), its row
 * in *t (freed by the caller on FLUX_OK); FLUX_ERR_USAGE, with the reason
 * on diagnostics, for an unknown intent or version. */
int fx_api_find_version(FluxStore *fs, FluxProgram *fp, const char *intent, const char *version,
                        FxTrusted *t, FILE *diagnostics);
/* A round's refit: the version's recorded runs (tr, newest first) merged
 * into its models' points, each model refitted and kept for this machine;
 * a line on out says so. */
FxStatus fx_api_models_refit(FluxStore *fs, int64_t version, const FxGraph *g,
                             const FxTraces *tr, FILE *out);
/* After a run in cx: when its own call ran a variant measured over twice
 * its prediction, that variant is demoted for sizes from n on (a point kept,
 * its model refitted, written to the store at once), so the next call
 * takes the other. */
void fx_api_models_observe(FxCallCtx *cx);
/* The best of a few timings of g's kernel variant at n, in ms; -1 when it
 * did not finish within cap_ms. */
double fx_api_time_kernel(const FxGraph *g, uint32_t variant, uint64_t n, double cap_ms);
/* Fits both variants' models by timing them on sizes 16, 32, ... up to
 * 4 * max_size (at least 1024); false when one could not be fitted. */
bool fx_api_measure_kernels(const FxGraph *g, double max_size, FxVariantModels *out);

/* The store folder a command names: dir, or $FLUX_STORE, or ./.flux. */
const char *fx_api_store_dir(const char *dir);

/* ---- the native tier (native.c, docs/native.md) ---- */

#define FX_NATIVE_RULE "native code" /* the name `flux optimize --rule` takes */
/* Makes rt ask the store for a function's native code at its first call. */
void fx_api_native_give(FluxProgram *fp, FxRuntime *rt);
/* Did a run find a validated object missing or corrupt (so that learning
 * is due, to build it again)? */
bool fx_api_native_rebuild_due(void);
/* A learning round's step for the intent's running version `label`:
 * compiles it when its newest run was hot (tcc first, then cc -O2), tests
 * it against the interpreter, checks a validated one again on the newest
 * recorded inputs, and says what it did on out. */
int fx_api_native_round(FluxProgram *fp, FluxStore *fs, const char *intent, const char *label,
                        const FxTraces *tr, FILE *out);
/* The same for an intent no round is due for: its records read here. */
int fx_api_native_repair(FluxProgram *fp, FluxStore *fs, const FxIntent *in, FILE *out);

#endif
