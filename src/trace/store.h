/*
 * store.h: the store: every lineage, version, execution, proof and
 * proposal of a program's life, in one SQLite database per store folder.
 *
 * A store folder (--store DIR, $FLUX_STORE, ./.flux/) holds `flux.db`
 * (SQLite, WAL mode, foreign keys on, a busy timeout so that several
 * processes can share it) and a `cache/` folder. The schema carries a
 * version (PRAGMA user_version): an older store is migrated forward when
 * opened; a newer one is refused, since this binary cannot know what it
 * holds. Nothing is written before the database proved to be a store this
 * binary can use: a refused one is left as it was. A store this process
 * cannot write is opened for reading (writes fail with FX_ERR_STORE); one
 * found damaged is not written into (see fx_store_check, fx_store_recover).
 *
 * Executions are queued in memory and written in batches: fx_store_flush
 * appends what is queued to DIR/records.log (reclog.h) or commits it into
 * the database, and an execution counts as recorded only once a flush
 * that included it has returned FX_OK. The log's frames move into the
 * database in batches, before any read of executions, and at close. A
 * crash or a kill loses at most the queued ones, never the database.
 *
 * Not thread-safe: one FxStore per thread (each has its own connection).
 */
#ifndef FX_STORE_H
#define FX_STORE_H

#include "base/base.h"

typedef struct FxStore FxStore;

/* The schema version this binary writes. */
#define FX_STORE_SCHEMA_VERSION 8

/* Opens (creating when missing) the store in dir. On failure returns
 * FX_ERR_STORE with a message in why: locked past the timeout, corrupt
 * (checked at open when its files are not as the last flux process left
 * them, guard.c), not a database, or a newer schema ("the store at DIR has schema version
 * 3, newer than this flux (2); use a newer flux or another --store").
 * Caller closes with fx_store_close(), which flushes first. */
FxStatus fx_store_open(const char *dir, FxStore **out, char *why, size_t why_len) FX_MUST_CHECK;
/* The same, read through a connection that writes nothing (as for a
 * store this process cannot write): no file of the store is changed. */
FxStatus fx_store_open_reading(const char *dir, FxStore **out, char *why,
                               size_t why_len) FX_MUST_CHECK;
FxStatus fx_store_close(FxStore *s); /* flushes; the store is freed even on error */
const char *fx_store_error(const FxStore *s);
/* What the open found to warn of, "" for nothing: executions recorded by
 * earlier runs lost with the store's log. */
const char *fx_store_warning(const FxStore *s);
/* The folder the store lives in. */
const char *fx_store_dir(const FxStore *s);

/* The lineage of an intent: (name, hash of its normalised text), made on
 * first use. source is the full text of the file that defines it (kept,
 * by hash, so that replay can rebuild the program even after the file
 * changed); path is where it was read from. */
FxStatus fx_store_lineage(FxStore *s, const char *intent, const char *hash, const char *path,
                          const char *source, int64_t *out_id) FX_MUST_CHECK;

/* A version of a lineage ("v1", "v2", ...): its graph as JSON, its parent
 * version (0 for none), the rewrite that made it, the proof id that covers
 * it (0 for none) and the evidence that triggered it (JSON or text, may be
 * NULL). Returns the existing id when that label exists already. A new
 * version with a proof seals it (seal.h): the proof row keeps the hashes
 * that bind it to this version and its lineage. */
typedef struct FxVersionInfo {
    const char *label;
    const char *graph_json;
    int64_t parent;
    const char *rewrite;
    int64_t proof_id;
    const char *evidence;
} FxVersionInfo;
FxStatus fx_store_version(FxStore *s, int64_t lineage, const FxVersionInfo *v,
                          int64_t *out_id) FX_MUST_CHECK;
/* Installs a proved rewrite in one transaction: the version v (its label
 * new in the lineage) with its proof sealed as fx_store_version seals it,
 * its cost model (NULL: none) and the proposal of v->rewrite, accepted,
 * citing v->proof_id. FX_ERR_REJECTED, with nothing written, when the
 * label exists (another round installed it first). */
FxStatus fx_store_install(FxStore *s, int64_t lineage, const FxVersionInfo *v, const char *model,
                          int64_t *out_version, int64_t *out_proposal) FX_MUST_CHECK;

/* One execution, every field of `flux run --json`. Strings are copied. */
typedef struct FxExecution {
    int64_t version;        /* version id */
    const char *intent;
    const char *expr;       /* the EXPR as written */
    const char *input_json; /* {"n": 100} */
    const char *output_json;  /* the value, or a summary (see fx_store_summarize) */
    const char *output_hash;  /* fx_store_hash of the full value text */
    int64_t output_bytes;     /* size of the full value text */
    const char *decisions_json; /* [{"decision": ..., "reason": ..., "proof_id": ...}] */
    const char *hardware;
    double duration_ms;
    const char *optimizations_json; /* ["memoization"] */
    const char *proof_ids_json;     /* [1847] */
    const char *verified;
    /* per-node counters of the version's graph, added to its running totals:
     * how often each node ran, and the time sampled there (ns; NULL: none) */
    size_t n_counts;
    const uint32_t *count_nodes;
    const uint64_t *counts;
    const uint64_t *node_ns;
    const char *kernels_json; /* the run's kernel calls, or NULL: none */
} FxExecution;

/* Queues an execution; its id is assigned now (ids are unique across
 * processes sharing the store). */
FxStatus fx_store_add_execution(FxStore *s, const FxExecution *e, int64_t *out_id) FX_MUST_CHECK;
/* Records every queued execution: appends them to the record log in one
 * write, or, for every 16th flush, the first, and one a second after the
 * last commit, commits the log, the queue and the node counters into the
 * database in one transaction (retrying while another process holds the
 * lock, up to the busy timeout). Either way they are recorded once this
 * returns FX_OK; reading them (fx_store_executions, ...) moves the log
 * into the database first. */
FxStatus fx_store_flush(FxStore *s) FX_MUST_CHECK;
/* Commits the log, the queue and the node counters into the database now,
 * so that SQL read from outside flux sees every recorded execution. */
FxStatus fx_store_commit(FxStore *s) FX_MUST_CHECK;

/* A proof or a proposal (accepted or rejected), for the optimizer and the
 * prover issues; kept minimal here. */
FxStatus fx_store_add_proof(FxStore *s, const char *obligation_smt, const char *result,
                            const char *solver, double ms, int64_t *out_id) FX_MUST_CHECK;

/* A rewrite the optimizer (or a person) proposed for a lineage, and what
 * became of it: status "accepted" or "rejected", the reason, the
 * counterexample when one refuted it, and the proof that checked it. */
FxStatus fx_store_add_proposal(FxStore *s, int64_t lineage, const char *rule, const char *status,
                               const char *reason, const char *counterexample, int64_t proof_id,
                               int64_t *out_id) FX_MUST_CHECK;

/* ---- reading ---- */

/* Calls fn for each stored execution, newest first, optionally of one
 * intent, with an id below `before` (0: any), at most `limit` (0: all). Each row is a JSON object with every
 * field of `flux run --json` plus "expr", "recorded_at", "lineage" and
 * "output_bytes"; borrowed for the call. */
typedef void (*FxRowFn)(void *ctx, const char *json);
FxStatus fx_store_executions(FxStore *s, const char *intent, int64_t before, int64_t limit,
                             FxRowFn fn, void *ctx) FX_MUST_CHECK;
/* The few fields of an intent's newest executions that deciding on a
 * learning round reads (fx_store_executions renders every field), newest
 * first, at most limit (0: all); the strings are borrowed for the call. */
typedef struct FxRecentRun {
    int64_t id, lineage;
    const char *label; /* of the version that ran */
    const char *input; /* JSON, as recorded */
    bool stopped;      /* a decision "stopped by the ... budget" */
} FxRecentRun;
typedef void (*FxRunFn)(void *ctx, const FxRecentRun *run);
FxStatus fx_store_recent_runs(FxStore *s, const char *intent, int64_t limit, FxRunFn fn,
                              void *ctx) FX_MUST_CHECK;
/* One execution by id, as the same JSON (caller frees); NULL and FX_ERR_USAGE when unknown. */
FxStatus fx_store_execution(FxStore *s, int64_t id, char **out_json) FX_MUST_CHECK;
/* The source text kept for an execution's lineage, and its path (caller frees both). */
FxStatus fx_store_execution_source(FxStore *s, int64_t id, char **out_path,
                                   char **out_source) FX_MUST_CHECK;
/* Every version of every lineage of an intent (or of all intents), oldest
 * first, as JSON rows: {"lineage", "intent", "hash", "version", "parent",
 * "rewrite", "proof_id", "evidence", "created_at", "executions", "rolled_back",
 * "model"}. */
FxStatus fx_store_versions(FxStore *s, const char *intent, FxRowFn fn, void *ctx) FX_MUST_CHECK;
/* The row of one version (label) of the lineage (intent, hash), as
 * fx_store_versions writes it but with "executions": null: one indexed
 * lookup by a cached statement, for what each recorded run reads. */
FxStatus fx_store_version_row(FxStore *s, const char *intent, const char *hash, const char *label,
                              FxRowFn fn, void *ctx) FX_MUST_CHECK;
/* A version's graph JSON by lineage and label (caller frees), or FX_ERR_USAGE. */
FxStatus fx_store_graph(FxStore *s, int64_t lineage, const char *label, char **out_json) FX_MUST_CHECK;
/* The lineage of (intent, hash) if the store has it (a read: nothing is
 * created); 0 in *out_id when it has none. */
FxStatus fx_store_find_lineage(FxStore *s, const char *intent, const char *hash,
                               int64_t *out_id) FX_MUST_CHECK;
/* A version of a lineage as the seals of its proofs judge it (seal.h):
 * its row id, label, graph JSON and its seal's chain as kept ("" for
 * none), and why it does not verify (NULL when it does). Free with
 * fx_trusted_free. */
typedef struct FxTrusted {
    int64_t id;
    char *label, *graph_json, *why;
    char chain[17];
} FxTrusted;
/* Called for each version refused on the way to the one chosen. */
typedef void (*FxRefusedFn)(void *ctx, const char *label, const char *why);
/* With label NULL: the newest version of a lineage not rolled back that
 * verifies (v1, the root, always does), refused(ctx, ...) called first for
 * each newer one that does not, newest first. With a label: that version,
 * verifying or not (out->why says). FX_ERR_USAGE when there is none. */
FxStatus fx_store_trusted_version(FxStore *s, int64_t lineage, const char *label, FxTrusted *out,
                                  FxRefusedFn refused, void *ctx) FX_MUST_CHECK;
void fx_trusted_free(FxTrusted *t);
/* Rolls a version back: it stays in the history with the reason, and the
 * newest version not rolled back runs instead. */
FxStatus fx_store_roll_back(FxStore *s, int64_t version, const char *reason) FX_MUST_CHECK;
/* A version's cost model (JSON text): set by a round, read before a run
 * (NULL in *out_json when none; caller frees). */
FxStatus fx_store_set_model(FxStore *s, int64_t version, const char *json) FX_MUST_CHECK;
FxStatus fx_store_model(FxStore *s, int64_t version, char **out_json) FX_MUST_CHECK;
/* The label the next version of a lineage gets: "v" and one more than the
 * number of versions it has (rolled back ones included). Caller frees. */
FxStatus fx_store_next_label(FxStore *s, int64_t lineage, char **out_label) FX_MUST_CHECK;

/* The program sources the store keeps, the newest kept for each path (by
 * its newest lineage): fn(ctx, path, text) for each, by path. */
FxStatus fx_store_sources(FxStore *s, void (*fn)(void *ctx, const char *path, const char *text),
                          void *ctx) FX_MUST_CHECK;
/* fn(ctx, id, intent, hash, path, text) for each lineage, oldest first,
 * with the source it was made from (path and text NULL when the store
 * keeps none). */
typedef void (*FxLineageFn)(void *ctx, int64_t id, const char *intent, const char *hash,
                            const char *path, const char *text);
FxStatus fx_store_lineages(FxStore *s, FxLineageFn fn, void *ctx) FX_MUST_CHECK;

/* Running per-node counters of a version: fn(ctx, node, count, ns) for
 * each, ns the time sampled at the node (docs/web.md, "Profiler"). */
typedef void (*FxCountFn)(void *ctx, uint32_t node, uint64_t count, uint64_t ns);
FxStatus fx_store_node_counts(FxStore *s, int64_t version, FxCountFn fn, void *ctx) FX_MUST_CHECK;

/* Records a learning round on a lineage: the version it examined (id),
 * what each rule said (turns_json: a JSON array) and what came of it. The
 * round is placed after the newest execution the store holds now. */
FxStatus fx_store_add_round(FxStore *s, int64_t lineage, int64_t version,
                            const char *turns_json, const char *outcome) FX_MUST_CHECK;
/* The newest round of the lineage of execution `execution` placed before
 * it, as one JSON row {"id", "version", "after_execution", "turns",
 * "outcome", "created_at"} (caller frees); *out_json NULL when none. */
FxStatus fx_store_round_before(FxStore *s, int64_t execution, char **out_json) FX_MUST_CHECK;

/* The proposals of an intent's lineages (all intents when NULL), newest
 * first, each with its proof, as JSON rows: {"proof_id", "proposal_id",
 * "intent", "rule", "status", "result", "reason", "counterexample",
 * "solver", "ms", "created_at"}. */
FxStatus fx_store_proposals(FxStore *s, const char *intent, FxRowFn fn, void *ctx) FX_MUST_CHECK;
/* One proof's obligation text (SMT-LIB), result and solver; caller frees
 * the strings. FX_ERR_USAGE when there is no such proof. */
FxStatus fx_store_proof(FxStore *s, int64_t id, char **out_smt, char **out_result,
                        char **out_solver) FX_MUST_CHECK;

/* ---- the kernels' cost models ---- */

/* Which model: a kernel ("sort"), its variant ("radix"), the device it runs
 * on (hw/device.h: "cpu") and the hardware's fingerprint
 * (fx_hw_fingerprint), so that machines sharing a store keep a model each. */
typedef struct FxCostKey {
    const char *kernel, *variant, *device, *hardware;
} FxCostKey;

/* A model's fitted parameters, whose meaning is the kernel's (the sort
 * kernels': ns a unit of work at each memory level, exec/sortcost.h), and
 * the runs that fitted them. */
#define FX_COST_PARAMS_MAX 8
typedef struct FxCostParams {
    double v[FX_COST_PARAMS_MAX];
    size_t n;
    uint32_t observed;
} FxCostParams;

/* Keeps the model under key (replacing the one there), written at once.
 * FX_ERR_USAGE for a key part missing, more than 8 parameters or one not
 * finite. */
FxStatus fx_store_set_cost_model(FxStore *s, const FxCostKey *key,
                                 const FxCostParams *p) FX_MUST_CHECK;
/* The model kept under key into *out, *found true; *found false (out left
 * alone) when there is none, or its row does not hold one. */
FxStatus fx_store_cost_model(FxStore *s, const FxCostKey *key, FxCostParams *out,
                             bool *found) FX_MUST_CHECK;

/* ---- what learning keeps across processes ---- */

/* The learned table (schema.sql): a value per kind (its owner: "proposer",
 * "variant_models", ...), key and hardware fingerprint ("" when it does not
 * depend on the machine). Keeps value (len bytes), replacing the row there,
 * written at once. */
FxStatus fx_store_set_learned(FxStore *s, const char *kind, const char *key,
                              const char *hardware, const void *value,
                              size_t len) FX_MUST_CHECK;
/* The value kept under (kind, key, hardware) into *out (malloc'd, with a
 * '\0' after its *len bytes; len may be NULL), or *out NULL when there is
 * none. */
FxStatus fx_store_learned(FxStore *s, const char *kind, const char *key, const char *hardware,
                          char **out, size_t *len) FX_MUST_CHECK;

/* Calls fn(ctx, key, hardware, value, len) for each learned row of kind,
 * in key order, until fn returns false. */
typedef bool (*FxLearnedFn)(void *ctx, const char *key, const char *hardware, const void *value,
                            size_t len);
FxStatus fx_store_learned_each(FxStore *s, const char *kind, FxLearnedFn fn,
                               void *ctx) FX_MUST_CHECK;

/* ---- a damaged store ---- */

/* PRAGMA integrity_check of the store in dir, read through a connection
 * that writes nothing: *ok when it answers "ok", else fn(ctx, line) for
 * each problem it lists. FX_ERR_STORE (why) when there is no database. */
FxStatus fx_store_check(const char *dir, FxRowFn fn, void *ctx, bool *ok, char *why,
                        size_t why_len) FX_MUST_CHECK;
/* Makes a new store of this flux's schema in new_dir (which must not hold
 * one) and copies into it every row of the store in dir that can be read,
 * table by table (recover.c); fn(ctx, table, rows kept, stretches that
 * could not be read) for each table. The old store is only read.
 * FX_ERR_STORE (why) when it cannot be read at all or new_dir not made. */
FxStatus fx_store_recover(const char *dir, const char *new_dir,
                          void (*fn)(void *ctx, const char *table, int64_t kept, int64_t gaps),
                          void *ctx, char *why, size_t why_len) FX_MUST_CHECK;

/* A digest of text for summaries and lineage keys: 16 hex digits of a
 * 64-bit FNV-1a, stable across runs and machines (not cryptographic).
 * Writes 17 bytes into out. */
void fx_store_hash(const char *text, size_t len, char out[17]);

#endif
