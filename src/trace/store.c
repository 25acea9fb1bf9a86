/*
 * store.c: the store (store.h) on SQLite: one database, DIR/flux.db, per
 * store folder, and the only file of src/trace/ that speaks SQL.
 *
 * DESIGN
 *
 * Opening. An existing database is looked at first, through a read-only
 * connection that writes nothing beside it (guard.c), unless its files
 * are as a flux process left them at close: a foreign, newer or damaged
 * database is refused as it is, and a store this process may not write is
 * read through that connection (s->read_only: every write is refused).
 * Only then are the folder and DIR/cache/ made when missing (the parent of
 * DIR must exist). The connection runs in WAL mode with foreign keys on,
 * synchronous=NORMAL and a 10 s busy timeout, so several flux processes can
 * share a store: readers never block the writer, and writers queue (the
 * few waits SQLite's busy handler does not cover, such as two processes
 * switching a new database to WAL at once, are retried here up to the
 * same 10 s). With
 * WAL and synchronous=NORMAL a committed transaction survives a crash or a
 * kill of the process; only a power loss (or an OS crash) can lose the last
 * transactions committed before it, and even then the database stays
 * consistent. A new store's pages are 1 KiB, a quarter of SQLite's default,
 * since a commit writes its pages whole and a run's rows are small (an
 * older store keeps the size it was made with). integrity_check runs at
 * open only for a store not closed as left (guard.c); damage SQLite meets
 * later (SQLITE_CORRUPT, SQLITE_NOTADB) stops all writing (s->broken) and
 * is reported as FX_ERR_STORE with how to recover.
 *
 * Schema. schema.sql (version 8) and migrate_N_M.sql (1 to 2, ..., 7 to 8)
 * are embedded into the binary (tools/embed.c). PRAGMA
 * user_version says what a database holds: 0 with no tables is new, 1 to 7
 * are migrated step by step, 8 is current, anything newer is refused. Upgrades run in one
 * BEGIN IMMEDIATE transaction that re-reads the version under the lock, so
 * two processes opening a new store at once create it once.
 *
 * Recording. fx_store_add_execution copies the execution into an in-memory
 * queue and gives it an id at once; fx_store_flush writes the whole queue in
 * one transaction (executions, their decision rows, and the node counters,
 * summed per (version, node) before the upsert), and empties the queue only
 * after COMMIT succeeded. What could make a flush fail for good is checked
 * when queueing (the version exists, decisions_json is a JSON array), so a
 * bad execution is refused alone (FX_ERR_USAGE) and cannot block the queue.
 * Ids come from blocks reserved in id_blocks by a short transaction, so
 * two processes never hand out the same id; the unused ids of a process
 * that ends are gaps, never reused. A store's blocks grow 1, 2, 4, ... up
 * to ID_BLOCK (64), so that `flux run`, one execution per process, leaves
 * no gap, and a long process reserves once per 64 executions.
 * Statements of the writing path are prepared once per store and cached.
 *
 * Reading. Rows are JSON text built here: text columns are encoded by
 * jansson, JSON columns (input, output, decisions, ...) are copied verbatim
 * when they are one well-formed JSON value, because jansson cannot hold the
 * integers wider than 64 bits that outputs may carry (text that is not JSON
 * becomes a JSON string). Rows hold no line break. "Newest first" is by id:
 * ids grow with time within a process, and processes running at the same
 * time interleave by blocks. recorded_at is the time of
 * fx_store_add_execution. Only flushed executions are seen. Reading
 * statements are prepared per call, so a row callback may call back into
 * the store.
 *
 * Invariants: every SQL text is a constant, values are bound; every cached
 * statement is reset after use (no read transaction stays open between
 * calls); a failure never leaves a transaction open (ROLLBACK) and always
 * returns a status with a message in s->err: FX_ERR_STORE for the database,
 * FX_ERR_USAGE for a caller's mistake (an unknown id, a missing field).
 */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "guard.h"
#include "reclog.h"
#include "seal.h"
#include "walvfs.h"

/* Generated from schema.sql and migrate_*.sql by tools/embed.c. */
extern const char fx_schema_sql[];
extern const char fx_migrate_1_2_sql[];
extern const char fx_migrate_2_3_sql[];
extern const char fx_migrate_3_4_sql[];
extern const char fx_migrate_4_5_sql[];
extern const char fx_migrate_5_6_sql[];
extern const char fx_migrate_6_7_sql[];
extern const char fx_migrate_7_8_sql[];

#define BUSY_TIMEOUT_MS 10000
#define CHECK_BUDGET_S  0.5 /* the integrity check at open of a store not closed as left */
#define ID_BLOCK        64 /* the largest block of execution ids reserved at once */
#define JSON_MAX_DEPTH  512
#define STR_(x)         #x
#define STR(x)          STR_(x)

/* A version's row; `executions` is the SQL of its count of executions. */
#define VERSION_COLUMNS(executions)                                                                \
    "SELECT v.lineage, l.intent, l.hash, v.label, p.label, v.rewrite, v.proof_id, v.evidence,"    \
    " v.created_at, " executions ", v.rolled_back, v.model"                                        \
    " FROM versions v JOIN lineages l ON l.id = v.lineage"                                        \
    " LEFT JOIN versions p ON p.id = v.parent"
#define VERSION_SELECT VERSION_COLUMNS("(SELECT count(*) FROM executions e WHERE e.version = v.id)")

/* The statements of the writing path, prepared on first use and cached. */
enum {
    /* ORDER ST: keep in sync with stmt_sql[] */
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_INSERT_EXECUTION,
    ST_ADD_COUNT,
    ST_VERSION_EXISTS,
    ST_BLOCK_INIT,
    ST_BLOCK_GET,
    ST_BLOCK_SET,
    ST_FIND_LINEAGE,
    ST_INSERT_SOURCE,
    ST_INSERT_LINEAGE,
    ST_FIND_VERSION,
    ST_INSERT_VERSION,
    ST_INSERT_PROOF,
    ST_VERSION_ROW,
    ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    "BEGIN IMMEDIATE",
    "COMMIT",
    "ROLLBACK",
    "INSERT OR IGNORE INTO executions(id, version, intent, expr, input, output, output_hash,"
    " output_bytes,"
    " decisions, hardware, duration_ms, optimizations, proof_ids, verified, recorded_at,"
    " kernels)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    "INSERT INTO node_counts(version, node, count, ns) VALUES (?1, ?2, ?3, ?4)"
    " ON CONFLICT(version, node) DO UPDATE SET count = count + excluded.count,"
    " ns = ns + excluded.ns",
    "SELECT 1 FROM versions WHERE id = ?1",
    "INSERT OR IGNORE INTO id_blocks(name, next) VALUES ('executions', 1)",
    "SELECT max(next, (SELECT ifnull(max(id), 0) + 1 FROM executions))"
    " FROM id_blocks WHERE name = 'executions'",
    "UPDATE id_blocks SET next = ?1 WHERE name = 'executions'",
    "SELECT id FROM lineages WHERE intent = ?1 AND hash = ?2",
    "INSERT OR IGNORE INTO sources(hash, path, text) VALUES (?1, ?2, ?3)",
    "INSERT OR IGNORE INTO lineages(intent, hash, source_hash, created_at)"
    " VALUES (?1, ?2, ?3, ?4)",
    "SELECT id FROM versions WHERE lineage = ?1 AND label = ?2",
    "INSERT OR IGNORE INTO versions(lineage, label, graph_json, parent, rewrite, proof_id,"
    " evidence, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    "INSERT INTO proofs(obligation, result, solver, ms, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    VERSION_COLUMNS("NULL") " WHERE l.intent = ?1 AND l.hash = ?2 AND v.label = ?3",
};

/* The columns of an execution row, after its id (column 0). */
#define EXECUTION_SELECT                                                                           \
    "SELECT e.id, e.intent, v.label, e.input, e.output, e.decisions, e.hardware,"                 \
    " e.duration_ms, e.optimizations, e.proof_ids, e.verified, e.expr, e.recorded_at,"            \
    " v.lineage, e.output_bytes, e.kernels FROM executions e JOIN versions v ON v.id = e.version"


/* How a column becomes JSON: 's' text (encoded), 'j' JSON text (verbatim),
 * 'i' integer, 'r' real. NULL is null for every kind. */
typedef struct Field {
    const char *key;
    char kind;
} Field;

static const Field execution_fields[] = {
    /* after "execution_id", in the order of EXECUTION_SELECT */
    {"intent", 's'},        {"graph_version", 's'},
    {"input", 'j'},         {"output", 'j'},
    {"decision_tree", 'j'}, {"hardware", 's'},
    {"duration_ms", 'r'},   {"optimizations_applied", 'j'},
    {"proof_ids", 'j'},     {"verified", 's'},
    {"expr", 's'},          {"recorded_at", 's'},
    {"lineage", 'i'},       {"output_bytes", 'i'},
    {"kernels", 'j'},
};

static const Field version_fields[] = {
    /* in the order of VERSION_SELECT */
    {"lineage", 'i'},    {"intent", 's'},     {"hash", 's'},     {"version", 's'},
    {"parent", 's'},     {"rewrite", 's'},    {"proof_id", 'i'}, {"evidence", 'j'},
    {"created_at", 's'}, {"executions", 'i'}, {"rolled_back", 's'}, {"model", 'j'},
};

typedef struct Decision {
    char *decision, *reason;
    int64_t proof_id; /* 0: none */
} Decision;

/* An execution waiting for the next flush; owns every string (its fields'
 * in one block, `text`). */
typedef struct Queued {
    int64_t id, version, output_bytes;
    char *text;
    const char *intent, *expr, *input, *output, *output_hash, *decisions_json, *hardware;
    const char *optimizations, *proof_ids, *verified, *kernels;
    double duration_ms;
    char recorded_at[32];
    size_t n_decisions;
    Decision *decisions;
    size_t n_counts;
    uint32_t *nodes;
    uint64_t *counts, *ns;
} Queued;

/* One node counter on its way to node_counts. */
typedef struct Count {
    int64_t version;
    uint32_t node;
    uint64_t count, ns;
} Count;

struct FxStore {
    sqlite3 *db;
    char *dir;
    sqlite3_stmt *stmts[ST_COUNT]; /* ORDER ST; NULL until first used */
    /* the statements of `cached`, by their SQL's address: a run asks the
     * same few queries for each intent, and preparing one costs more than
     * asking it (105 prepares were 3 of n-body's 7.5 ms of fixed cost) */
    struct {
        const char *sql;
        sqlite3_stmt *st;
        bool in_use; /* taken by `cached`, not yet given back */
    } cache[16];
    pthread_mutex_t cache_lock; /* threads taking turns on the store may overlap here */
    FX_VEC(Queued) queue;
    int64_t next_id, block_end; /* the ids [next_id, block_end) are this store's */
    int64_t block_size;         /* of the next reservation: 1, 2, 4, ... ID_BLOCK */
    int64_t known_version;      /* a version id seen to exist, 0 for none */
    int wal_frames;             /* in the WAL after this connection's last commit */
    Count *pending;             /* node counters flushed runs added, not yet written, */
    size_t n_pending;           /* sorted by (version, node) */
    unsigned flushes_pending;   /* flushes since the last commit */
    double counts_written_at;   /* mono_s() at the last commit */
    FxRecLog *log;              /* DIR/records.log once opened (reclog.h) */
    bool read_only;             /* opened for reading: its files cannot be written */
    bool writing;               /* its read-write connection was opened */
    bool broken;                /* SQLite found it corrupt: nothing more is written */
    char *stamp;                /* its files' stamp when opened for writing (guard.h) */
    bool was_clean;             /* DIR/closed held that stamp (guard.h) */
    char warning[512];          /* said once when opened ("" for none): executions lost */
    char err[1024];
};

/* ---- errors ---- */

/* The database is damaged: nothing more is written into it, the next
 * open checks it (guard.h), and the message says how to recover. */
static FxStatus corrupt(FxStore *s, const char *what, const char *msg)
{
    s->broken = true;
    if (s->writing)
        fx_guard_forget(s->dir);
    snprintf(s->err, sizeof(s->err),
             "the store at %s is corrupt (%s: %s); nothing more is written into it: `flux store "
             "check --store %s` lists the damage, `flux store recover --store %s NEWDIR` copies "
             "what is readable into a new store",
             s->dir, what, msg, s->dir, s->dir);
    /* SQLite's words may quote damaged bytes (a table's name) */
    for (char *p = s->err; *p; p++)
        if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
            *p = '?';
    return FX_ERR_STORE;
}

/* Writes what went wrong with the database into s->err, in words a user can
 * act on for the codes that have a remedy, and returns FX_ERR_STORE. */
static FxStatus db_fail(FxStore *s, const char *what)
{
    const char *msg = s->db ? sqlite3_errmsg(s->db) : "out of memory";
    switch (s->db ? sqlite3_errcode(s->db) & 0xff : SQLITE_NOMEM) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        snprintf(s->err, sizeof(s->err), "the store at %s is locked by another process (%s: %s)",
                 s->dir, what, msg);
        break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        corrupt(s, what, msg);
        break;
    case SQLITE_FULL:
    case SQLITE_IOERR: {
        /* the errno of the write SQLite made: a full disk, or the size a
         * process may write (`ulimit -f`) reached */
        int e = s->db ? sqlite3_system_errno(s->db) : 0;
        if (e == ENOSPC || e == EFBIG || e == EDQUOT || (sqlite3_errcode(s->db) & 0xff) == SQLITE_FULL) {
            snprintf(s->err, sizeof(s->err),
                     "the store at %s cannot grow: %s (%s); nothing was lost, free some space "
                     "or raise the limit and run again", s->dir,
                     e == EFBIG ? "the file size limit (ulimit -f) is reached"
                     : e == EDQUOT ? "the disk quota is reached" : "the disk is full", what);
            break;
        }
        snprintf(s->err, sizeof(s->err), "the store at %s: %s: %s", s->dir, what, msg);
        break;
    }
    default:
        snprintf(s->err, sizeof(s->err), "the store at %s: %s: %s", s->dir, what, msg);
        break;
    }
    return FX_ERR_STORE;
}

/* A write into a store that must not be written: FX_ERR_STORE. */
static FxStatus refuse_write(FxStore *s)
{
    if (s->read_only)
        snprintf(s->err, sizeof(s->err),
                 "the store at %s is read-only: it can be read, not written (use another --store "
                 "to record)",
                 s->dir);
    else
        corrupt(s, "found before", "not written since");
    return FX_ERR_STORE;
}

/* A mistake of the caller (unknown id, missing field): FX_ERR_USAGE. */
static FxStatus usage(FxStore *s, const char *msg)
{
    snprintf(s->err, sizeof(s->err), "%s", msg);
    return FX_ERR_USAGE;
}

/* ---- small helpers ---- */

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* n as `width` decimal digits, zero-padded; returns the end. */
static char *put_digits(char *out, long long n, int width)
{
    for (int i = width - 1; i >= 0; i--, n /= 10)
        out[i] = (char)('0' + n % 10);
    return out + width;
}

/* The time now as UTC text, 2024-05-01T12:00:00.123Z. The date of the day
 * count is computed here (H. Hinnant's civil_from_days), as gmtime_r and
 * strftime consult the time zone at each call: a recorded run's timestamp
 * cost more than the rest of queueing it. */
static void now_iso(char out[32])
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long long days = t.tv_sec / 86400, secs = t.tv_sec % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;                                     /* [0, 146096] */
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              /* [0, 365] */
    long long mp = (5 * doy + 2) / 153, month = mp < 10 ? mp + 3 : mp - 9;
    char *o = put_digits(out, yoe + era * 400 + (month <= 2), 4);
    *o++ = '-';
    o = put_digits(o, month, 2);
    *o++ = '-';
    o = put_digits(o, doy - (153 * mp + 2) / 5 + 1, 2);
    *o++ = 'T';
    o = put_digits(o, secs / 3600, 2);
    *o++ = ':';
    o = put_digits(o, secs / 60 % 60, 2);
    *o++ = ':';
    o = put_digits(o, secs % 60, 2);
    *o++ = '.';
    o = put_digits(o, t.tv_nsec / 1000000, 3);
    *o++ = 'Z';
    *o = '\0';
}

static int bind_text(sqlite3_stmt *st, int i, const char *text)
{
    return text ? sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

/* Binds an id, or NULL for 0 ("none"). */
static int bind_id(sqlite3_stmt *st, int i, int64_t id)
{
    return id ? sqlite3_bind_int64(st, i, id) : sqlite3_bind_null(st, i);
}

static FxStatus stmt(FxStore *s, int which, sqlite3_stmt **out)
{
    *out = s->stmts[which];
    if (*out)
        return FX_OK;
    if (sqlite3_prepare_v3(s->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
                           &s->stmts[which], NULL) != SQLITE_OK)
        return db_fail(s, "prepare");
    *out = s->stmts[which];
    return FX_OK;
}

static void done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* The statement of sql (a string that outlives the store: a literal),
 * prepared once per store and kept; give it back with `release`. One in
 * use (a query asked again inside its own loop) is prepared afresh. */
static FxStatus cached(FxStore *s, const char *sql, sqlite3_stmt **out)
{
    pthread_mutex_lock(&s->cache_lock);
    size_t i = 0;
    while (i < FX_ARRAY_LEN(s->cache) && s->cache[i].sql && s->cache[i].sql != sql)
        i++;
    bool here = i < FX_ARRAY_LEN(s->cache);
    if (here && s->cache[i].sql && !s->cache[i].in_use) {
        s->cache[i].in_use = true;
        *out = s->cache[i].st;
        pthread_mutex_unlock(&s->cache_lock);
        return FX_OK;
    }
    bool keep = here && !s->cache[i].sql;
    FxStatus r = FX_OK;
    if (sqlite3_prepare_v3(s->db, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, out, NULL) !=
        SQLITE_OK)
        r = db_fail(s, "prepare");
    else if (keep) {
        s->cache[i].sql = sql;
        s->cache[i].st = *out;
        s->cache[i].in_use = true;
    }
    pthread_mutex_unlock(&s->cache_lock);
    return r;
}

/* Gives back a statement of `cached`: reset for its next use, or finalized
 * when it was not kept. */
static void release(FxStore *s, sqlite3_stmt *st)
{
    done(st);
    pthread_mutex_lock(&s->cache_lock);
    size_t i = 0;
    while (i < FX_ARRAY_LEN(s->cache) && s->cache[i].st != st)
        i++;
    if (i < FX_ARRAY_LEN(s->cache))
        s->cache[i].in_use = false;
    pthread_mutex_unlock(&s->cache_lock);
    if (i == FX_ARRAY_LEN(s->cache))
        sqlite3_finalize(st);
}

/* A bind failed: the message first, since the reset clears it. */
static FxStatus bind_fail(FxStore *s, sqlite3_stmt *st)
{
    FxStatus r = db_fail(s, "bind");
    done(st);
    return r;
}

/* Steps a statement that returns no row (or ignores them), then resets it. */
/* A write outside a transaction of ours: another process's transaction
 * may hold the lock for a moment, so it waits for it. */
static FxStatus step_waiting(FxStore *s, sqlite3_stmt *st, const char *what)
{
    int rc;
    if (s->read_only || s->broken)
        return refuse_write(s);
    while ((rc = sqlite3_step(st)) == SQLITE_BUSY)
        nap_ms(5);
    return rc == SQLITE_DONE ? FX_OK : db_fail(s, what);
}

static FxStatus run(FxStore *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    FxStatus r = rc == SQLITE_DONE || rc == SQLITE_ROW ? FX_OK : db_fail(s, what);
    done(st);
    return r;
}

/* Steps a statement whose first column is an id: *out is 0 when no row. */
static FxStatus lookup_id(FxStore *s, sqlite3_stmt *st, int64_t *out)
{
    FxStatus r = FX_OK;
    int rc = sqlite3_step(st);
    *out = 0;
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        r = db_fail(s, "query");
    done(st);
    return r;
}

/* Runs constant SQL text (the schema scripts, inside a transaction). */
static FxStatus exec_sql(FxStore *s, const char *sql, const char *what)
{
    return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? FX_OK : db_fail(s, what);
}

/* ---- transactions ---- */

/* Whether a call that returned rc may be tried again: another connection
 * holds the lock and the deadline is not past. SQLite's busy handler covers
 * most waits, but not all: it is not called where waiting could deadlock
 * (a lock upgrade, such as two processes switching a new database to WAL at
 * once), so the callers loop, napping between tries. */
static bool can_retry(int rc, double deadline)
{
    return (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && mono_s() < deadline;
}

static double deadline_from_now(void)
{
    return mono_s() + BUSY_TIMEOUT_MS / 1000.0;
}

/* Steps BEGIN IMMEDIATE or COMMIT until it succeeds, retrying while another
 * connection holds the lock, up to the busy timeout in all. */
static FxStatus step_retrying(FxStore *s, int which, const char *what)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = stmt(s, which, &st);
    double deadline = deadline_from_now();
    while (r == FX_OK) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            break;
        if (!can_retry(rc, deadline))
            r = db_fail(s, what);
        sqlite3_reset(st);
        if (r == FX_OK)
            nap_ms(5);
    }
    if (st)
        sqlite3_reset(st);
    return r;
}

static FxStatus begin(FxStore *s)
{
    if (s->read_only || s->broken)
        return refuse_write(s);
    return step_retrying(s, ST_BEGIN, "begin a transaction");
}

static void rollback(FxStore *s)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_get_autocommit(s->db))
        return; /* nothing open (SQLite may have rolled back already) */
    if (stmt(s, ST_ROLLBACK, &st) == FX_OK) {
        sqlite3_step(st);
        sqlite3_reset(st);
    }
}

/* Ends the transaction begun by begin(): COMMIT when r is FX_OK, else (or
 * when COMMIT fails) ROLLBACK. Returns the final status. */
static FxStatus finish(FxStore *s, FxStatus r)
{
    if (r == FX_OK)
        r = step_retrying(s, ST_COMMIT, "commit");
    if (r != FX_OK)
        rollback(s);
    return r;
}

/* ---- opening ---- */

static FxStatus make_dir(FxStore *s, const char *path)
{
    struct stat sb;
    if (mkdir(path, 0777) == 0)
        return FX_OK;
    int e = errno;
    if (e == EEXIST && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return FX_OK;
    if (e == EEXIST)
        snprintf(s->err, sizeof(s->err), "cannot use %s as a store folder: it is not a folder",
                 path);
    else
        snprintf(s->err, sizeof(s->err), "cannot create the store folder %s: %s", path,
                 strerror(e));
    return FX_ERR_STORE;
}

static FxStatus make_dirs(FxStore *s)
{
    char *cache = fx_xasprintf("%s/cache", s->dir);
    FxStatus r = make_dir(s, s->dir);
    if (r == FX_OK)
        r = make_dir(s, cache);
    free(cache);
    return r;
}

/* Runs a pragma, retrying while another connection holds the lock. */
static FxStatus pragma(FxStore *s, const char *sql, const char *what)
{
    double deadline = deadline_from_now();
    int rc;
    while ((rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
        if (!can_retry(rc, deadline))
            return db_fail(s, what);
        nap_ms(5);
    }
    return FX_OK;
}

/* Checkpointing. SQLite's last connection to close checkpoints the WAL
 * into flux.db and deletes it: two syncs, a sync of the folder when the
 * next process makes a new WAL, and an unlink, tens of milliseconds on a
 * disk that syncs for real, in every `flux run`. So a connection closes
 * without a checkpoint, and the WAL stays with its frames for the next
 * process (which reads it to rebuild its index, a cost that grows with the
 * WAL): the WAL is checkpointed after a commit leaves CHECKPOINT_FRAMES in
 * it (a recorded run's commit stays a few page writes, and checkpoints are
 * spread over many runs, as SQLite's wal_autocheckpoint would), and at
 * close once it holds CLOSE_FRAMES, so that it stays short. A commit is
 * in the WAL, which a crash of the process does not lose: durability is
 * synchronous=NORMAL's, as before. */
enum { CHECKPOINT_FRAMES = 8000, CLOSE_FRAMES = 512 };

/* sqlite3_wal_hook: after each commit of this connection. */
static int wal_grew(void *ctx, sqlite3 *db, const char *name, int frames)
{
    FxStore *s = ctx;
    s->wal_frames = frames;
    if (frames >= CHECKPOINT_FRAMES && sqlite3_wal_checkpoint(db, name) == SQLITE_OK)
        s->wal_frames = 0;
    return SQLITE_OK;
}

static FxStatus connect_db(FxStore *s)
{
    char *path = fx_xasprintf("%s/flux.db", s->dir);
    int rc = sqlite3_open_v2(path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             fx_walvfs_name());
    FxStatus r = rc == SQLITE_OK ? FX_OK : db_fail(s, "open");
    free(path);
    if (r != FX_OK)
        return r;
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    /* a new store's pages are 1 KiB (an older store keeps its size): a
     * recorded run's commit writes six pages to the WAL, each checksummed
     * and copied whole, and a run's rows are a few hundred bytes a table */
    r = pragma(s, "PRAGMA page_size = 1024", "set the page size");
    if (r == FX_OK)
        r = pragma(s, "PRAGMA journal_mode = WAL", "set WAL mode");
    if (r == FX_OK)
        r = pragma(s, "PRAGMA foreign_keys = ON", "turn foreign keys on");
    if (r == FX_OK)
        r = pragma(s, "PRAGMA synchronous = NORMAL", "set synchronous");
    /* the WAL outlives the connection (see free_store); wal_grew
     * checkpoints it instead of SQLite's own autocheckpoint */
    if (r == FX_OK) {
        sqlite3_wal_hook(s->db, wal_grew, s);
        if (sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL) !=
            SQLITE_OK)
            r = db_fail(s, "keep the WAL at close");
    }
    return r;
}

/* Runs a one-off read whose answer is one integer (0 when no row),
 * retrying while another connection holds the lock. */
static FxStatus query_int(FxStore *s, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    double deadline = deadline_from_now();
    FxStatus r = FX_OK;
    int rc;
    *out = 0;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        r = db_fail(s, "read the schema");
        goto out;
    }
    while ((rc = sqlite3_step(st)) != SQLITE_ROW && rc != SQLITE_DONE) {
        if (!can_retry(rc, deadline)) {
            r = db_fail(s, "read the schema");
            goto out;
        }
        sqlite3_reset(st);
        nap_ms(5);
    }
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
out:
    sqlite3_finalize(st);
    return r;
}

static FxStatus refuse_version(FxStore *s, int64_t v)
{
    if (v > FX_STORE_SCHEMA_VERSION)
        snprintf(s->err, sizeof(s->err),
                 "the store at %s has schema version %" PRId64 ", newer than this flux (%d); "
                 "use a newer flux or another --store",
                 s->dir, v, FX_STORE_SCHEMA_VERSION);
    else
        snprintf(s->err, sizeof(s->err),
                 "the store at %s has an unknown schema version %" PRId64 "; use another --store",
                 s->dir, v);
    return FX_ERR_STORE;
}

static FxStatus seal_all(FxStore *s);

/* Brings a database of version v to FX_STORE_SCHEMA_VERSION; runs inside
 * the transaction of ensure_schema. */
static FxStatus upgrade(FxStore *s, int64_t v)
{
    int64_t tables = 0;
    FxStatus r = FX_OK;
    if (v == FX_STORE_SCHEMA_VERSION)
        return FX_OK;
    if (v < 0 || v > FX_STORE_SCHEMA_VERSION)
        return refuse_version(s, v);
    if (v == 0) {
        r = query_int(s, "SELECT count(*) FROM sqlite_master", &tables);
        if (r == FX_OK && tables > 0) {
            snprintf(s->err, sizeof(s->err),
                     "%s/flux.db is a SQLite database but not a flux store (it has tables and "
                     "no schema version); use another --store",
                     s->dir);
            return FX_ERR_STORE;
        }
        if (r == FX_OK)
            r = exec_sql(s, fx_schema_sql, "create the schema");
    } else {
        if (v == 1)
            r = exec_sql(s, fx_migrate_1_2_sql, "migrate the schema from version 1 to 2");
        if (r == FX_OK && v <= 2)
            r = exec_sql(s, fx_migrate_2_3_sql, "migrate the schema from version 2 to 3");
        if (r == FX_OK && v <= 3)
            r = exec_sql(s, fx_migrate_3_4_sql, "migrate the schema from version 3 to 4");
        if (r == FX_OK && v <= 4)
            r = exec_sql(s, fx_migrate_4_5_sql, "migrate the schema from version 4 to 5");
        if (r == FX_OK && v <= 5)
            r = exec_sql(s, fx_migrate_5_6_sql, "migrate the schema from version 5 to 6");
        if (r == FX_OK && v <= 5) /* nothing before version 6 was sealed */
            r = seal_all(s);
        if (r == FX_OK && v <= 6)
            r = exec_sql(s, fx_migrate_6_7_sql, "migrate the schema from version 6 to 7");
        if (r == FX_OK && v <= 7)
            r = exec_sql(s, fx_migrate_7_8_sql, "migrate the schema from version 7 to 8");
    }
    if (r == FX_OK)
        r = exec_sql(s, "PRAGMA user_version = " STR(FX_STORE_SCHEMA_VERSION),
                     "set the schema version");
    return r;
}

static FxStatus ensure_schema(FxStore *s)
{
    int64_t v = 0;
    FxStatus r = query_int(s, "PRAGMA user_version", &v);
    if (r != FX_OK || v == FX_STORE_SCHEMA_VERSION)
        return r;
    if (v > FX_STORE_SCHEMA_VERSION)
        return refuse_version(s, v);
    r = begin(s);
    if (r != FX_OK)
        return r;
    r = query_int(s, "PRAGMA user_version", &v); /* again, now under the lock */
    if (r == FX_OK)
        r = upgrade(s, v);
    return finish(s, r);
}

static void free_queued(Queued *q)
{
    free(q->text);
    for (size_t i = 0; i < q->n_decisions; i++) {
        free(q->decisions[i].decision);
        free(q->decisions[i].reason);
    }
    free(q->decisions);
    free(q->nodes);
    free(q->counts);
    free(q->ns);
}

static void clear_queue(FxStore *s)
{
    fx_vec_foreach(Queued, q, &s->queue) free_queued(q);
    s->queue.len = 0;
}

static FxStatus query_int(FxStore *s, const char *sql, int64_t *out);

/* The id of the newest execution the database holds (0: none). */
static FxStatus newest_execution(FxStore *s, int64_t *out)
{
    return query_int(s, "SELECT coalesce(max(id), 0) FROM executions", out);
}

/* A store whose files are not as the last flux process left them may have
 * lost its log (flux.db-wal: removed, or damaged, so that SQLite stops at
 * the damage), and with it the newest commits: executions reported as
 * recorded. DIR/closed says the newest execution there was then; fewer
 * now is said once, as a warning (fx_store_warning). */
static void look_for_lost_executions(FxStore *s, int64_t version)
{
    int64_t then = fx_guard_last_execution(s->dir), now = 0;
    /* version 0: no schema at all, every commit was in the log */
    if (then <= 0 || (version && newest_execution(s, &now) != FX_OK) || now >= then)
        return;
    snprintf(s->warning, sizeof(s->warning),
             "the store at %s has lost executions exec_%" PRId64 " to exec_%" PRId64 ", which "
             "earlier runs recorded: its log, flux.db-wal, was removed or damaged after a flux "
             "process closed it (what remains is whole, and recording goes on)",
             s->dir, now + 1, then);
}

const char *fx_store_warning(const FxStore *s)
{
    return s->warning;
}

static FxStatus free_store(FxStore *s)
{
    int rc = SQLITE_OK;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->stmts[i]);
    for (size_t i = 0; i < FX_ARRAY_LEN(s->cache); i++)
        sqlite3_finalize(s->cache[i].st);
    pthread_mutex_destroy(&s->cache_lock);
    int64_t last = -1; /* the newest execution in the database, for DIR/closed */
    if (s->db && s->stamp && !s->broken && newest_execution(s, &last) != FX_OK)
        last = -1;
    if (s->db && s->stamp && s->wal_frames >= CLOSE_FRAMES) /* the close checkpoints (wal_grew) */
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, (int *)NULL);
    if (s->db)
        rc = sqlite3_close_v2(s->db);
    if (s->stamp && !s->broken && rc == SQLITE_OK) { /* as this process leaves the files */
        char *now = fx_guard_stamp(s->dir);
        if (!s->was_clean || strcmp(now, s->stamp) != 0)
            fx_guard_mark_closed(s->dir, now, last);
        free(now);
    }
    free(s->stamp);
    fx_reclog_close(s->log);
    clear_queue(s);
    fx_vec_free(&s->queue);
    free(s->pending);
    free(s->dir);
    free(s);
    return rc == SQLITE_OK ? FX_OK : FX_ERR_STORE;
}

/* A database with tables that are not a flux store's: refused as it is. */
static FxStatus foreign(FxStore *s, int64_t v)
{
    if (v == 0)
        snprintf(s->err, sizeof(s->err),
                 "%s/flux.db is a SQLite database but not a flux store (it has tables and "
                 "no schema version); use another --store",
                 s->dir);
    else
        snprintf(s->err, sizeof(s->err),
                 "%s/flux.db is a SQLite database but not a flux store (schema version %" PRId64
                 " without a store's tables); use another --store",
                 s->dir, v);
    return FX_ERR_STORE;
}

/* Looks at an existing flux.db through a read-only connection (s->db),
 * which writes nothing: its schema version (*out_version), whether it is a
 * flux store's (every version has these three tables), and, when its
 * files are not as a flux process left them, whether it is whole. */
static FxStatus probe(FxStore *s, const char *path, bool check, int64_t *out_version)
{
    int64_t v = 0, tables = 0;
    char problem[512];
    if (fx_guard_open_reader(path, &s->db) != SQLITE_OK)
        return db_fail(s, "open");
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    // The version and the tables from one snapshot: a process that makes
    // the store meanwhile commits both at once, and read apart they looked
    // like a foreign database (version 0, tables present).
    FxStatus r = exec_sql(s, "BEGIN", "read the schema");
    if (r == FX_OK)
        r = query_int(s, "PRAGMA user_version", &v);
    if (r == FX_OK && (v < 0 || v > FX_STORE_SCHEMA_VERSION))
        return refuse_version(s, v);
    if (r == FX_OK)
        r = query_int(s,
                      v == 0 ? "SELECT count(*) FROM sqlite_master"
                             : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name"
                               " IN ('lineages', 'versions', 'executions')",
                      &tables);
    if (r == FX_OK)
        r = exec_sql(s, "COMMIT", "read the schema");
    if (r == FX_OK && (v == 0 ? tables > 0 : tables != 3))
        return foreign(s, v);
    if (r == FX_OK && check) {
        int rc = fx_guard_integrity(s->db, CHECK_BUDGET_S, problem, sizeof(problem));
        if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
            return corrupt(s, "integrity_check", problem);
        if (rc != SQLITE_OK)
            r = db_fail(s, "check the database");
    }
    *out_version = v;
    return r;
}

/* Whether this process may write the files of an existing store. */
static bool can_write(const char *dir)
{
    static const char *const files[] = {"flux.db", "flux.db-wal", "flux.db-shm"};
    bool ok = access(dir, W_OK) == 0;
    for (size_t i = 0; ok && i < sizeof(files) / sizeof(files[0]); i++) {
        char *path = fx_xasprintf("%s/%s", dir, files[i]);
        ok = access(path, W_OK) == 0 || (i > 0 && errno == ENOENT);
        free(path);
    }
    return ok;
}

/* Keeps the probe's connection to read a store that cannot be written. */
static FxStatus open_read_only(FxStore *s, int64_t v)
{
    s->read_only = true;
    if (v == FX_STORE_SCHEMA_VERSION)
        return FX_OK;
    snprintf(s->err, sizeof(s->err),
             "the store at %s has schema version %" PRId64 " and is read-only: this flux reads "
             "version %d, and migrating it needs write access",
             s->dir, v, FX_STORE_SCHEMA_VERSION);
    return FX_ERR_STORE;
}

/* Opens the store for writing, creating or migrating it: the folders, the
 * read-write connection, the schema. */
static FxStatus open_writing(FxStore *s)
{
    FxStatus r = make_dirs(s);
    if (r == FX_OK)
        r = connect_db(s);
    if (r == FX_OK)
        r = ensure_schema(s);
    return r;
}

static FxStatus open_store(const char *dir, bool reading, FxStore **out, char *why,
                           size_t why_len);

FxStatus fx_store_open(const char *dir, FxStore **out, char *why, size_t why_len)
{
    return open_store(dir, false, out, why, why_len);
}

FxStatus fx_store_open_reading(const char *dir, FxStore **out, char *why, size_t why_len)
{
    return open_store(dir, true, out, why, why_len);
}

static FxStatus open_store(const char *dir, bool reading, FxStore **out, char *why,
                           size_t why_len)
{
    FxStore *s = fx_xcalloc(1, sizeof(*s));
    pthread_mutex_init(&s->cache_lock, NULL);
    FxStatus r = FX_OK;
    s->dir = fx_xstrdup(dir);
    s->block_size = 1;
    *out = NULL;
    /* Nothing is changed before the database was looked at: a file that
     * is not SQLite, a foreign or newer database, a damaged one are
     * refused as they are. A store whose files are as a flux process of
     * this schema left them at close needs no look; one that another
     * process has open, no integrity check (guard.c). */
    char *path = fx_xasprintf("%s/flux.db", dir);
    FxDbHead head = fx_guard_head(path);
    char *stamp = head.exists ? fx_guard_stamp(dir) : NULL;
    bool marked = stamp && fx_guard_closed_as(dir, stamp);
    bool clean = marked || (stamp && fx_guard_in_use(dir));
    bool writable = !reading && (!head.exists || can_write(dir));
    int64_t v = FX_STORE_SCHEMA_VERSION;
    if (reading && !head.exists) {
        snprintf(s->err, sizeof(s->err), "there is no store at %s", dir);
        r = FX_ERR_STORE;
    } else if (head.exists && !head.is_sqlite) {
        snprintf(s->err, sizeof(s->err),
                 "%s is not a SQLite database (%s); move it away or use another --store", path,
                 sqlite3_errstr(SQLITE_NOTADB));
        r = FX_ERR_STORE;
    } else if (head.exists && (!marked || !writable)) {
        r = probe(s, path, !clean, &v);
        if (r == FX_OK && !marked && (v == FX_STORE_SCHEMA_VERSION || v == 0))
            look_for_lost_executions(s, v);
    }
    if (r == FX_OK && !writable) {
        r = open_read_only(s, v);
    } else if (r == FX_OK) {
        sqlite3_close_v2(s->db); /* the probe's, if any */
        s->db = NULL;
        s->writing = true;
        r = open_writing(s);
    }
    if (r == FX_OK && !s->read_only) { /* marked at close (free_store) */
        s->stamp = stamp ? stamp : fx_guard_stamp(dir);
        s->was_clean = marked;
        stamp = NULL;
    }
    free(stamp);
    free(path);
    if (r != FX_OK)
        goto out;
    *out = s;
out:
    if (r != FX_OK) {
        if (why && why_len)
            snprintf(why, why_len, "%s", s->err);
        (void)free_store(s);
    }
    return r;
}

static FxStatus commit(FxStore *s, bool queue, bool counts);

FxStatus fx_store_close(FxStore *s)
{
    if (!s)
        return FX_OK;
    /* the queue, the counters and what this process appended to the log:
     * a process leaves the log as it found it */
    FxStatus r = s->queue.len || s->n_pending || s->flushes_pending ? commit(s, true, true) : FX_OK;
    FxStatus c = free_store(s);
    return r != FX_OK ? r : c;
}

const char *fx_store_dir(const FxStore *s)
{
    return s->dir;
}

const char *fx_store_error(const FxStore *s)
{
    return s ? s->err : "no store";
}

/* ---- lineages, versions, proofs ---- */

static FxStatus find_lineage(FxStore *s, const char *intent, const char *hash, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = stmt(s, ST_FIND_LINEAGE, &st);
    if (r != FX_OK)
        return r;
    if (bind_text(st, 1, intent) | bind_text(st, 2, hash))
        return bind_fail(s, st);
    return lookup_id(s, st, out);
}

/* Inside a transaction: the source (by hash) and the lineage row. */
static FxStatus insert_lineage(FxStore *s, const char *intent, const char *hash, const char *path,
                               const char *source)
{
    sqlite3_stmt *src = NULL, *lin = NULL;
    char digest[17] = "", now[32];
    FxStatus r = stmt(s, ST_INSERT_SOURCE, &src);
    if (r == FX_OK)
        r = stmt(s, ST_INSERT_LINEAGE, &lin);
    if (r != FX_OK)
        return r;
    if (source) {
        fx_store_hash(source, strlen(source), digest);
        if (bind_text(src, 1, digest) | bind_text(src, 2, path) | bind_text(src, 3, source))
            r = db_fail(s, "bind");
        r = r != FX_OK ? r : run(s, src, "record a source");
        done(src);
    }
    now_iso(now);
    if (r == FX_OK && (bind_text(lin, 1, intent) | bind_text(lin, 2, hash) |
                       bind_text(lin, 3, source ? digest : NULL) | bind_text(lin, 4, now)))
        r = db_fail(s, "bind");
    r = r != FX_OK ? r : run(s, lin, "record a lineage");
    done(lin);
    return r;
}

FxStatus fx_store_lineage(FxStore *s, const char *intent, const char *hash, const char *path,
                          const char *source, int64_t *out_id)
{
    FxStatus r = FX_OK;
    *out_id = 0;
    if (!intent || !hash)
        return usage(s, "a lineage needs an intent name and a hash");
    r = find_lineage(s, intent, hash, out_id);
    if (r != FX_OK || *out_id)
        return r;
    r = begin(s);
    if (r != FX_OK)
        return r;
    r = insert_lineage(s, intent, hash, path, source);
    if (r == FX_OK)
        r = find_lineage(s, intent, hash, out_id);
    if (r == FX_OK && !*out_id)
        r = usage(s, "the lineage could not be recorded");
    return finish(s, r);
}

static FxStatus find_version(FxStore *s, int64_t lineage, const char *label, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = stmt(s, ST_FIND_VERSION, &st);
    if (r != FX_OK)
        return r;
    if (sqlite3_bind_int64(st, 1, lineage) | bind_text(st, 2, label))
        return bind_fail(s, st);
    return lookup_id(s, st, out);
}

static FxStatus insert_version(FxStore *s, int64_t lineage, const FxVersionInfo *v)
{
    sqlite3_stmt *st = NULL;
    char now[32];
    FxStatus r = stmt(s, ST_INSERT_VERSION, &st);
    if (r != FX_OK)
        return r;
    now_iso(now);
    if (sqlite3_bind_int64(st, 1, lineage) | bind_text(st, 2, v->label) |
        bind_text(st, 3, v->graph_json) | bind_id(st, 4, v->parent) | bind_text(st, 5, v->rewrite) |
        bind_id(st, 6, v->proof_id) | bind_text(st, 7, v->evidence) | bind_text(st, 8, now))
        return bind_fail(s, st);
    return run(s, st, "record a version");
}

/* ---- seals (seal.h) ---- */

/* The versions of a lineage, oldest first, each with its proof's columns. */
typedef struct SealRows {
    FX_VEC(FxSealRow) v;
} SealRows;

static const char *dup_col(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? fx_xstrdup((const char *)t) : NULL;
}

static void seal_rows_free(SealRows *rows)
{
    fx_vec_foreach(FxSealRow, r, &rows->v)
    {
        const char *texts[] = {r->label,  r->graph_json, r->rewrite, r->evidence,
                               r->obligation, r->result, r->before,  r->after,
                               r->certificate, r->chain};
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
            free((char *)texts[i]);
    }
    fx_vec_free(&rows->v);
}

static FxStatus seal_rows(FxStore *s, int64_t lineage, SealRows *out)
{
    static const char sql[] =
            "SELECT v.id, ifnull(v.parent, 0), ifnull(v.proof_id, 0), v.label, v.graph_json,"
            " v.rewrite, v.evidence, v.rolled_back IS NOT NULL, p.id IS NOT NULL, p.obligation,"
            " p.result, p.graph_before, p.graph_after, p.certificate, p.chain"
            " FROM versions v LEFT JOIN proofs p ON p.id = v.proof_id"
            " WHERE v.lineage = ?1 ORDER BY v.id";
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof(*out));
    FxStatus status = cached(s, sql, &st);
    if (status != FX_OK)
        return status;
    sqlite3_bind_int64(st, 1, lineage);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        FxSealRow r = {
                .id = sqlite3_column_int64(st, 0),
                .parent = sqlite3_column_int64(st, 1),
                .proof_id = sqlite3_column_int64(st, 2),
                .label = dup_col(st, 3),
                .graph_json = dup_col(st, 4),
                .rewrite = dup_col(st, 5),
                .evidence = dup_col(st, 6),
                .rolled_back = sqlite3_column_int(st, 7) != 0,
                .proof_found = sqlite3_column_int(st, 8) != 0,
                .obligation = dup_col(st, 9),
                .result = dup_col(st, 10),
                .before = dup_col(st, 11),
                .after = dup_col(st, 12),
                .certificate = dup_col(st, 13),
                .chain = dup_col(st, 14),
        };
        fx_vec_push(&out->v, r);
    }
    status = rc == SQLITE_DONE ? FX_OK : db_fail(s, "read the versions of a lineage");
    release(s, st);
    if (status != FX_OK)
        seal_rows_free(out);
    return status;
}

static int bind_hash(sqlite3_stmt *st, int i, const char *h)
{
    return h[0] ? sqlite3_bind_text(st, i, h, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Writes the seal of each version of lineage that has a proof (only the
 * version `only` when not 0) into its proof row, from the rows as they
 * are; inside the caller's transaction. */
static FxStatus seal_lineage(FxStore *s, int64_t lineage, int64_t only)
{
    SealRows rows;
    FxStatus r = seal_rows(s, lineage, &rows);
    if (r != FX_OK)
        return r;
    FxSeal *seals = fx_xcalloc(rows.v.len ? rows.v.len : 1, sizeof(*seals));
    fx_seal_lineage(rows.v.data, rows.v.len, seals);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "UPDATE proofs SET graph_before = ?2, graph_after = ?3,"
                           " certificate = ?4, chain = ?5 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        r = db_fail(s, "prepare a seal");
    for (size_t i = 0; r == FX_OK && i < rows.v.len; i++) {
        const FxSealRow *v = &rows.v.data[i];
        if (!v->proof_found || (only && v->id != only))
            continue;
        if (sqlite3_bind_int64(st, 1, v->proof_id) | bind_hash(st, 2, seals[i].before) |
            bind_hash(st, 3, seals[i].after) | bind_hash(st, 4, seals[i].certificate) |
            bind_hash(st, 5, seals[i].chain))
            r = db_fail(s, "bind");
        else
            r = run(s, st, "seal a proof");
    }
    sqlite3_finalize(st);
    free(seals);
    seal_rows_free(&rows);
    return r;
}

/* The migration to version 6: every proof sealed as its rows are. */
static FxStatus seal_all(FxStore *s)
{
    sqlite3_stmt *st = NULL;
    FX_VEC(int64_t) ids = {0};
    if (sqlite3_prepare_v2(s->db, "SELECT id FROM lineages ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return db_fail(s, "prepare the lineages");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fx_vec_push(&ids, sqlite3_column_int64(st, 0));
    FxStatus r = rc == SQLITE_DONE ? FX_OK : db_fail(s, "read the lineages");
    sqlite3_finalize(st);
    fx_vec_foreach(int64_t, id, &ids) if (r == FX_OK) r = seal_lineage(s, *id, 0);
    fx_vec_free(&ids);
    return r;
}

FxStatus fx_store_trusted_version(FxStore *s, int64_t lineage, const char *label,
                                  FxTrusted *out, FxRefusedFn refused, void *ctx)
{
    SealRows rows;
    memset(out, 0, sizeof(*out));
    FxStatus r = seal_rows(s, lineage, &rows);
    if (r != FX_OK)
        return r;
    size_t n = rows.v.len;
    char **why = fx_xcalloc(n ? n : 1, sizeof(*why));
    fx_seal_judge(rows.v.data, n, why);
    long pick = -1;
    for (size_t i = n; i-- > 0 && pick < 0;) {
        const FxSealRow *v = &rows.v.data[i];
        if (label ? strcmp(v->label, label) != 0 : v->rolled_back)
            continue;
        if (!why[i] || label)
            pick = (long)i;
        else if (refused)
            refused(ctx, v->label, why[i]);
    }
    if (pick < 0) {
        r = usage(s, label ? "no such version" : "the lineage has no version");
    } else {
        const FxSealRow *v = &rows.v.data[pick];
        out->id = v->id;
        out->label = fx_xstrdup(v->label);
        out->graph_json = fx_xstrdup(v->graph_json ? v->graph_json : "");
        snprintf(out->chain, sizeof(out->chain), "%s", v->chain ? v->chain : "");
        out->why = why[pick];
        why[pick] = NULL;
    }
    for (size_t i = 0; i < n; i++)
        free(why[i]);
    free(why);
    seal_rows_free(&rows);
    return r;
}

void fx_trusted_free(FxTrusted *t)
{
    free(t->label);
    free(t->graph_json);
    free(t->why);
    memset(t, 0, sizeof(*t));
}

FxStatus fx_store_version(FxStore *s, int64_t lineage, const FxVersionInfo *v, int64_t *out_id)
{
    FxStatus r = FX_OK;
    *out_id = 0;
    if (!v->label || !v->graph_json)
        return usage(s, "a version needs a label and a graph");
    r = find_version(s, lineage, v->label, out_id);
    if (r != FX_OK || *out_id)
        return r;
    r = begin(s);
    if (r != FX_OK)
        return r;
    r = insert_version(s, lineage, v);
    if (r == FX_OK)
        r = find_version(s, lineage, v->label, out_id);
    if (r == FX_OK && !*out_id)
        r = usage(s, "the version could not be recorded");
    if (r == FX_OK && v->proof_id)
        r = seal_lineage(s, lineage, *out_id);
    return finish(s, r);
}

FxStatus fx_store_add_proof(FxStore *s, const char *obligation_smt, const char *result,
                            const char *solver, double ms, int64_t *out_id)
{
    sqlite3_stmt *st = NULL;
    char now[32];
    FxStatus r = FX_OK;
    *out_id = 0;
    if (!obligation_smt || !result)
        return usage(s, "a proof needs an obligation and a result");
    r = begin(s);
    if (r == FX_OK)
        r = stmt(s, ST_INSERT_PROOF, &st);
    now_iso(now);
    if (r == FX_OK && (bind_text(st, 1, obligation_smt) | bind_text(st, 2, result) |
                       bind_text(st, 3, solver) | sqlite3_bind_double(st, 4, ms) |
                       bind_text(st, 5, now)))
        r = db_fail(s, "bind");
    if (r == FX_OK)
        r = run(s, st, "record a proof");
    if (r == FX_OK)
        *out_id = sqlite3_last_insert_rowid(s->db);
    if (st)
        done(st);
    r = finish(s, r);
    if (r != FX_OK)
        *out_id = 0;
    return r;
}

/* Inside a transaction: the proposal row. */
static FxStatus insert_proposal(FxStore *s, int64_t lineage, const char *rule, const char *status,
                                const char *reason, const char *counterexample, int64_t proof_id,
                                int64_t *out_id)
{
    static const char sql[] = "INSERT INTO proposals (lineage, rule, status, reason, "
                              "counterexample, proof_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)";
    sqlite3_stmt *st = NULL;
    char now[32];
    FxStatus r = FX_OK;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        r = db_fail(s, "prepare a proposal");
    now_iso(now);
    if (r == FX_OK && (sqlite3_bind_int64(st, 1, lineage) | bind_text(st, 2, rule) |
                       bind_text(st, 3, status) | bind_text(st, 4, reason) |
                       bind_text(st, 5, counterexample) |
                       (proof_id ? sqlite3_bind_int64(st, 6, proof_id) : sqlite3_bind_null(st, 6)) |
                       bind_text(st, 7, now)))
        r = db_fail(s, "bind");
    if (r == FX_OK)
        r = run(s, st, "record a proposal");
    if (r == FX_OK)
        *out_id = sqlite3_last_insert_rowid(s->db);
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_add_proposal(FxStore *s, int64_t lineage, const char *rule, const char *status,
                               const char *reason, const char *counterexample, int64_t proof_id,
                               int64_t *out_id)
{
    *out_id = 0;
    FxStatus r = begin(s);
    if (r == FX_OK)
        r = insert_proposal(s, lineage, rule, status, reason, counterexample, proof_id, out_id);
    r = finish(s, r);
    if (r != FX_OK)
        *out_id = 0;
    return r;
}

/* One transaction, so that a version is never without its model or its
 * accepted proposal, and two rounds never both install one label. */
FxStatus fx_store_install(FxStore *s, int64_t lineage, const FxVersionInfo *v, const char *model,
                          int64_t *out_version, int64_t *out_proposal)
{
    *out_version = *out_proposal = 0;
    if (!v->label || !v->graph_json)
        return usage(s, "a version needs a label and a graph");
    int64_t taken = 0;
    FxStatus r = begin(s);
    if (r == FX_OK)
        r = find_version(s, lineage, v->label, &taken);
    if (r == FX_OK && taken) {
        snprintf(s->err, sizeof(s->err), "%s exists already in this lineage", v->label);
        r = FX_ERR_REJECTED;
    }
    if (r == FX_OK)
        r = insert_version(s, lineage, v);
    if (r == FX_OK)
        r = find_version(s, lineage, v->label, out_version);
    if (r == FX_OK && v->proof_id)
        r = seal_lineage(s, lineage, *out_version);
    if (r == FX_OK && model)
        r = fx_store_set_model(s, *out_version, model);
    if (r == FX_OK)
        r = insert_proposal(s, lineage, v->rewrite, "accepted", NULL, NULL, v->proof_id,
                            out_proposal);
    r = finish(s, r);
    if (r != FX_OK)
        *out_version = *out_proposal = 0;
    return r;
}

static void put_text(json_t *o, const char *key, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    json_object_set_new(o, key, t ? json_string((const char *)t) : json_null());
}

FxStatus fx_store_proposals(FxStore *s, const char *intent, FxRowFn fn, void *ctx)
{
    static const char sql[] =
            "SELECT p.id, q.id, l.intent, q.rule, q.status, p.result, q.reason, "
            "q.counterexample, p.solver, p.ms, q.created_at FROM proposals q "
            "JOIN lineages l ON l.id = q.lineage LEFT JOIN proofs p ON p.id = q.proof_id "
            "WHERE ?1 IS NULL OR l.intent = ?1 ORDER BY q.id DESC";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(s, "prepare the proposals query");
    FxStatus r = bind_text(st, 1, intent) ? db_fail(s, "bind") : FX_OK;
    int rc;
    while (r == FX_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        json_object_set_new(o, "proof_id", sqlite3_column_type(st, 0) == SQLITE_NULL
                                                   ? json_null()
                                                   : json_integer(sqlite3_column_int64(st, 0)));
        json_object_set_new(o, "proposal_id", json_integer(sqlite3_column_int64(st, 1)));
        put_text(o, "intent", st, 2);
        put_text(o, "rule", st, 3);
        put_text(o, "status", st, 4);
        put_text(o, "result", st, 5);
        put_text(o, "reason", st, 6);
        put_text(o, "counterexample", st, 7);
        put_text(o, "solver", st, 8);
        json_object_set_new(o, "ms", json_real(sqlite3_column_double(st, 9)));
        put_text(o, "created_at", st, 10);
        char *text = json_dumps(o, JSON_PRESERVE_ORDER); /* ", " and ": " as the other rows */
        json_decref(o);
        if (text)
            fn(ctx, text);
        free(text);
    }
    if (r == FX_OK && rc != SQLITE_DONE)
        r = db_fail(s, "read proposals");
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_proof(FxStore *s, int64_t id, char **out_smt, char **out_result,
                        char **out_solver)
{
    sqlite3_stmt *st = NULL;
    *out_smt = *out_result = *out_solver = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT obligation, result, solver FROM proofs WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(s, "prepare the proof query");
    sqlite3_bind_int64(st, 1, id);
    FxStatus r = FX_OK;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *a = (const char *)sqlite3_column_text(st, 0);
        const char *b = (const char *)sqlite3_column_text(st, 1);
        const char *c = (const char *)sqlite3_column_text(st, 2);
        *out_smt = fx_xstrdup(a ? a : "");
        *out_result = fx_xstrdup(b ? b : "");
        *out_solver = fx_xstrdup(c ? c : "");
    } else {
        r = rc == SQLITE_DONE ? usage(s, "no such proof") : db_fail(s, "read a proof");
    }
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_find_lineage(FxStore *s, const char *intent, const char *hash, int64_t *out_id)
{
    static const char sql[] = "SELECT id FROM lineages WHERE intent = ? AND hash = ?";
    sqlite3_stmt *st = NULL;
    *out_id = 0;
    FxStatus r = cached(s, sql, &st);
    if (r != FX_OK)
        return r;
    r = bind_text(st, 1, intent) | bind_text(st, 2, hash) ? db_fail(s, "bind") : FX_OK;
    int rc = r == FX_OK ? sqlite3_step(st) : SQLITE_DONE;
    if (rc == SQLITE_ROW)
        *out_id = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE)
        r = db_fail(s, "read a lineage");
    release(s, st);
    return r;
}

/* ---- queueing executions ---- */

/* Checks that the version exists, so that a flush cannot fail on it. */
static FxStatus check_version(FxStore *s, int64_t version)
{
    sqlite3_stmt *st = NULL;
    int64_t found = 0;
    if (version == s->known_version && version != 0)
        return FX_OK;
    FxStatus r = stmt(s, ST_VERSION_EXISTS, &st);
    if (r != FX_OK)
        return r;
    if (sqlite3_bind_int64(st, 1, version))
        return bind_fail(s, st);
    r = lookup_id(s, st, &found);
    if (r == FX_OK && !found) {
        snprintf(s->err, sizeof(s->err), "no version with id %" PRId64 " in the store at %s",
                 version, s->dir);
        return FX_ERR_USAGE;
    }
    if (r == FX_OK)
        s->known_version = version;
    return r;
}

/* Reads decisions_json into q's decision rows (with the JSON text section's
 * scanner, below: no allocation but the rows' own strings). */
static FxStatus read_decisions(FxStore *s, const char *text, Queued *q);

static FxStatus copy_decisions(FxStore *s, const char *text, Queued *q)
{
    return text ? read_decisions(s, text, q) : FX_OK;
}

static FxStatus reserve_ids(FxStore *s)
{
    sqlite3_stmt *init = NULL, *get = NULL, *set = NULL;
    int64_t next = 0;
    FxStatus r = begin(s);
    if (r != FX_OK)
        return r;
    if ((r = stmt(s, ST_BLOCK_INIT, &init)) != FX_OK ||
        (r = stmt(s, ST_BLOCK_GET, &get)) != FX_OK || (r = stmt(s, ST_BLOCK_SET, &set)) != FX_OK)
        goto out;
    if ((r = run(s, init, "reserve ids")) != FX_OK || (r = lookup_id(s, get, &next)) != FX_OK)
        goto out;
    if (sqlite3_bind_int64(set, 1, next + s->block_size)) {
        r = db_fail(s, "bind");
        goto out;
    }
    r = run(s, set, "reserve ids");
out:
    r = finish(s, r);
    if (r == FX_OK) {
        s->next_id = next;
        s->block_end = next + s->block_size;
        s->block_size = s->block_size < ID_BLOCK ? 2 * s->block_size : ID_BLOCK;
    }
    return r;
}

static void copy_execution(Queued *q, const FxExecution *e)
{
    const char *from[] = {e->intent,      e->expr,           e->input_json,
                          e->output_json, e->output_hash,    e->decisions_json,
                          e->hardware,    e->optimizations_json, e->proof_ids_json,
                          e->verified,    e->kernels_json};
    const char **to[] = {&q->intent,      &q->expr,           &q->input,    &q->output,
                         &q->output_hash, &q->decisions_json, &q->hardware, &q->optimizations,
                         &q->proof_ids,   &q->verified,       &q->kernels};
    size_t len[FX_ARRAY_LEN(from)], total = 0;
    for (size_t i = 0; i < FX_ARRAY_LEN(from); i++)
        total += (len[i] = from[i] ? strlen(from[i]) + 1 : 0);
    char *at = q->text = fx_xmalloc(total ? total : 1); /* one allocation, not ten */
    for (size_t i = 0; i < FX_ARRAY_LEN(from); i++) {
        *to[i] = from[i] ? memcpy(at, from[i], len[i]) : NULL;
        at += len[i];
    }
    q->version = e->version;
    q->output_bytes = e->output_bytes;
    q->duration_ms = e->duration_ms;
    now_iso(q->recorded_at);
    q->n_counts = e->n_counts;
    if (e->n_counts) {
        q->nodes = fx_xmalloc(e->n_counts * sizeof(*q->nodes));
        q->counts = fx_xmalloc(e->n_counts * sizeof(*q->counts));
        memcpy(q->nodes, e->count_nodes, e->n_counts * sizeof(*q->nodes));
        memcpy(q->counts, e->counts, e->n_counts * sizeof(*q->counts));
        q->ns = fx_xcalloc(e->n_counts, sizeof(*q->ns));
        if (e->node_ns)
            memcpy(q->ns, e->node_ns, e->n_counts * sizeof(*q->ns));
    }
}

FxStatus fx_store_add_execution(FxStore *s, const FxExecution *e, int64_t *out_id)
{
    Queued q = {0};
    FxStatus r = FX_OK;
    *out_id = 0;
    if (!e->intent || (e->n_counts && (!e->count_nodes || !e->counts)))
        return usage(s, "an execution needs an intent (and nodes for its counts)");
    r = check_version(s, e->version);
    if (r == FX_OK)
        r = copy_decisions(s, e->decisions_json, &q);
    if (r == FX_OK && s->next_id == s->block_end)
        r = reserve_ids(s);
    if (r != FX_OK) {
        free_queued(&q);
        return r;
    }
    copy_execution(&q, e);
    q.id = s->next_id++;
    fx_vec_push(&s->queue, q);
    *out_id = q.id;
    return FX_OK;
}

/* ---- flushing ---- */

/* An execution's columns as the insert binds them: from the queue (texts
 * NUL-terminated, len -1) or from a frame of the log (texts in place). */
enum { ROW_TEXTS = 12, ROW_TEXTS_1 = 11 /* in a frame of format 1 */ };
typedef struct Row {
    int64_t id, version, output_bytes;
    double duration_ms;
    /* intent, expr, input, output, output_hash, decisions, hardware,
     * optimizations, proof_ids, verified, recorded_at, kernels; NULL for SQL NULL */
    const char *text[ROW_TEXTS];
    int len[ROW_TEXTS];
} Row;

/* The insert's parameter of each text of a Row. */
static const int row_param[ROW_TEXTS] = {3, 4, 5, 6, 7, 9, 10, 12, 13, 14, 15, 16};

static Row row_of(const Queued *q)
{
    Row w = {q->id, q->version, q->output_bytes, q->duration_ms,
             {q->intent, q->expr, q->input, q->output, q->output_hash, q->decisions_json,
              q->hardware, q->optimizations, q->proof_ids, q->verified, q->recorded_at,
              q->kernels},
             {0}};
    for (int i = 0; i < ROW_TEXTS; i++)
        w.len[i] = -1;
    return w;
}

/* Inserts a row (an id already there is left as it is: a frame of the log
 * absorbed twice). *refused, when given, is set instead of failing when a
 * constraint refuses the row. */
static FxStatus write_row(FxStore *s, const Row *w, bool *refused)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = stmt(s, ST_INSERT_EXECUTION, &st);
    if (r != FX_OK)
        return r;
    int bad = sqlite3_bind_int64(st, 1, w->id) | sqlite3_bind_int64(st, 2, w->version) |
              sqlite3_bind_int64(st, 8, w->output_bytes) |
              sqlite3_bind_double(st, 11, w->duration_ms);
    for (int i = 0; i < ROW_TEXTS; i++)
        bad |= w->text[i] ? sqlite3_bind_text(st, row_param[i], w->text[i], w->len[i], SQLITE_STATIC)
                          : sqlite3_bind_null(st, row_param[i]);
    if (bad)
        return bind_fail(s, st);
    int rc = sqlite3_step(st);
    if (refused && (rc & 0xff) == SQLITE_CONSTRAINT) {
        *refused = true;
        done(st);
        return FX_OK;
    }
    r = rc == SQLITE_DONE ? FX_OK : db_fail(s, "record an execution");
    done(st);
    return r;
}

/* A frame of the log holds one execution (reclog.h): a format byte (2),
 * id, version, output_bytes and duration_ms's bits as 8 bytes each, then
 * each text of a Row as its length in 4 bytes (all ones for NULL) and its
 * bytes, integers little-endian. Format 1 (schema version 7) had no
 * kernels text; a log an older build left is still read. */
enum { FRAME_FORMAT = 2, TEXT_NULL = -1 };

static void put_le(FxBuf *b, uint64_t v, int bytes)
{
    char out[8];
    for (int i = 0; i < bytes; i++)
        out[i] = (char)(v >> (8 * i));
    fx_buf_append(b, out, (size_t)bytes);
}

static void frame_execution(FxBuf *frames, FxBuf *scratch, const Queued *q)
{
    Row w = row_of(q);
    uint64_t bits;
    memcpy(&bits, &w.duration_ms, 8);
    scratch->len = 0;
    fx_buf_putc(scratch, FRAME_FORMAT);
    put_le(scratch, (uint64_t)w.id, 8);
    put_le(scratch, (uint64_t)w.version, 8);
    put_le(scratch, (uint64_t)w.output_bytes, 8);
    put_le(scratch, bits, 8);
    for (int i = 0; i < ROW_TEXTS; i++) {
        size_t n = w.text[i] ? strlen(w.text[i]) : 0;
        put_le(scratch, w.text[i] ? (uint32_t)n : UINT32_MAX, 4);
        fx_buf_append(scratch, w.text[i] ? w.text[i] : "", n);
    }
    fx_reclog_frame(frames, scratch->data, scratch->len);
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The Row in a frame's payload (texts point into it); false when it is
 * not one (a format this binary does not know). */
static bool frame_row(const unsigned char *p, size_t n, Row *w)
{
    if (n < 33 || (p[0] != FRAME_FORMAT && p[0] != 1))
        return false;
    int texts = p[0] == 1 ? ROW_TEXTS_1 : ROW_TEXTS;
    w->id = (int64_t)get_le(p + 1, 8);
    w->version = (int64_t)get_le(p + 9, 8);
    w->output_bytes = (int64_t)get_le(p + 17, 8);
    uint64_t bits = get_le(p + 25, 8);
    memcpy(&w->duration_ms, &bits, 8);
    size_t at = 33;
    for (int i = texts; i < ROW_TEXTS; i++) {
        w->text[i] = NULL;
        w->len[i] = 0;
    }
    for (int i = 0; i < texts; i++) {
        if (n - at < 4)
            return false;
        uint32_t len = (uint32_t)get_le(p + at, 4);
        at += 4;
        if (len == UINT32_MAX) {
            w->text[i] = NULL;
            w->len[i] = 0;
            continue;
        }
        if (len > INT32_MAX || len > n - at)
            return false;
        w->text[i] = (const char *)p + at;
        w->len[i] = (int)len;
        at += len;
    }
    return at == n;
}

/* A failure of the log's file: FX_ERR_STORE with what and why. */
static FxStatus log_fail(FxStore *s, const char *what, int e)
{
    snprintf(s->err, sizeof(s->err), "the store at %s: cannot %s %s/records.log: %s", s->dir,
             what, s->dir, strerror(e));
    return FX_ERR_STORE;
}

/* The queue, appended to the log in one write. */
static FxStatus append_queue(FxStore *s)
{
    int e = s->log ? 0 : fx_reclog_open(s->dir, true, &s->log);
    if (e)
        return log_fail(s, "open", e);
    FxBuf frames = {0}, scratch = {0};
    fx_vec_foreach(Queued, q, &s->queue) frame_execution(&frames, &scratch, q);
    e = fx_reclog_append(s->log, &frames);
    fx_buf_free(&frames);
    fx_buf_free(&scratch);
    return e ? log_fail(s, "append to", e) : FX_OK;
}

typedef struct Absorbing {
    FxStore *s;
    FxStatus r;
} Absorbing;

static int absorb_frame(void *ctx, const unsigned char *payload, size_t len)
{
    Absorbing *a = ctx;
    Row w;
    bool refused = false;
    /* a frame in an unknown format, or one whose version is gone (a row
     * the database refuses), is passed over: it cannot block the rest */
    if (frame_row(payload, len, &w))
        a->r = write_row(a->s, &w, &refused);
    return a->r == FX_OK ? 0 : -1;
}

/* Inside a transaction: every execution in the log, inserted. *held is
 * set when the log is locked: release_log empties it after COMMIT. */
static FxStatus absorb_log(FxStore *s, bool *held)
{
    *held = false;
    int e = s->log ? 0 : fx_reclog_open(s->dir, false, &s->log);
    if (e || !s->log)
        return e ? log_fail(s, "open", e) : FX_OK;
    if ((e = fx_reclog_lock(s->log)) != 0)
        return log_fail(s, "lock", e);
    *held = true;
    Absorbing a = {s, FX_OK};
    int64_t end, skipped;
    e = fx_reclog_read(s->log, 0, absorb_frame, &a, &end, &skipped);
    if (e > 0)
        return log_fail(s, "read", e);
    return a.r;
}

/* After the transaction: the log emptied when it committed (a crash before
 * that leaves frames already in the database, which the next absorb skips
 * by their ids), and unlocked. */
static void release_log(FxStore *s, bool held, FxStatus committed)
{
    if (!held)
        return;
    if (committed == FX_OK && fx_reclog_size(s->log) > 0)
        (void)fx_reclog_truncate(s->log);
    fx_reclog_unlock(s->log);
}

/* Whether a statement of this connection is in the middle of its rows (a
 * row callback calling back): no transaction may begin then. */
static bool statement_busy(FxStore *s)
{
    for (sqlite3_stmt *st = sqlite3_next_stmt(s->db, NULL); st; st = sqlite3_next_stmt(s->db, st))
        if (sqlite3_stmt_busy(st))
            return true;
    return !sqlite3_get_autocommit(s->db);
}

static int count_cmp(const void *a, const void *b)
{
    const Count *x = a, *y = b;
    if (x->version != y->version)
        return x->version < y->version ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* A flush appends its executions to the log (one write), and every
 * COMMIT_EVERY-th flush, the first flush and any flush COMMIT_WAIT_S after
 * the last commit commit instead: the log's frames, the queue and the node
 * counters, in one transaction. The node counters are aggregates (summed
 * per version and node), so flushes add their runs' counters to the
 * pending ones, which are written at each commit, when they are read, and
 * at close: a run's flush then costs its execution's frame alone. A kill
 * loses at most that much counting, never a flushed execution. */
#define COMMIT_EVERY 16
#define COMMIT_WAIT_S 1.0
#define COUNTS_MAX 4096 /* pending counters that are written at once */

/* c[0..n) sorted by (version, node) and summed (saturating) in place;
 * returns the new length. */
static size_t sum_counts(Count *c, size_t n)
{
    qsort(c, n, sizeof(*c), count_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && c[k - 1].version == c[i].version && c[k - 1].node == c[i].node) {
            uint64_t sum = c[k - 1].count + c[i].count, ns = c[k - 1].ns + c[i].ns;
            c[k - 1].count = sum < c[i].count ? UINT64_MAX : sum;
            c[k - 1].ns = ns < c[i].ns ? UINT64_MAX : ns;
        } else {
            c[k++] = c[i];
        }
    }
    return k;
}

/* The queued runs' counters, added to the pending ones. */
static void gather_counts(FxStore *s)
{
    size_t n = s->n_pending, k = n;
    for (size_t j = 0; j < s->queue.len; j++)
        n += s->queue.data[j].n_counts;
    if (n == s->n_pending)
        return;
    s->pending = fx_xrealloc(s->pending, n * sizeof(*s->pending));
    for (size_t j = 0; j < s->queue.len; j++) {
        const Queued *q = &s->queue.data[j];
        for (size_t i = 0; i < q->n_counts; i++)
            s->pending[k++] = (Count){q->version, q->nodes[i], q->counts[i], q->ns[i]};
    }
    s->n_pending = sum_counts(s->pending, n);
}

/* Writes the pending counters (inside the caller's transaction). */
static FxStatus write_counts(FxStore *s)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = s->n_pending ? stmt(s, ST_ADD_COUNT, &st) : FX_OK;
    for (size_t i = 0; i < s->n_pending && r == FX_OK; i++) {
        const Count *c = &s->pending[i];
        int64_t count = c->count > INT64_MAX ? INT64_MAX : (int64_t)c->count;
        int64_t ns = c->ns > INT64_MAX ? INT64_MAX : (int64_t)c->ns;
        if (sqlite3_bind_int64(st, 1, c->version) | sqlite3_bind_int64(st, 2, c->node) |
            sqlite3_bind_int64(st, 3, count) | sqlite3_bind_int64(st, 4, ns)) {
            r = bind_fail(s, st);
            break;
        }
        r = run(s, st, "add node counts");
    }
    return r;
}

static bool commit_due(const FxStore *s)
{
    return s->flushes_pending + 1 >= COMMIT_EVERY || s->n_pending >= COUNTS_MAX ||
           mono_s() - s->counts_written_at >= COMMIT_WAIT_S;
}

/* After a commit that wrote the counters: */
static void counts_written(FxStore *s)
{
    s->n_pending = 0;
    s->flushes_pending = 0;
    s->counts_written_at = mono_s();
}

/* One transaction: the log's frames, then, when `queue`, the queue and its
 * runs' node counters, and, when `counts`, the pending node counters. The
 * queue's counters join the pending ones only once it is committed: a
 * failed commit keeps both as they were, to be written again. */
static FxStatus commit(FxStore *s, bool queue, bool counts)
{
    bool held = false;
    FxStatus r = begin(s);
    if (r != FX_OK)
        return r;
    r = absorb_log(s, &held);
    for (size_t i = 0; queue && i < s->queue.len && r == FX_OK; i++) {
        Row w = row_of(&s->queue.data[i]);
        r = write_row(s, &w, NULL);
    }
    size_t before = s->n_pending;
    Count *kept = before ? fx_xmalloc(before * sizeof(*kept)) : NULL;
    if (before)
        memcpy(kept, s->pending, before * sizeof(*kept));
    if (queue)
        gather_counts(s);
    if (counts && r == FX_OK)
        r = write_counts(s);
    r = finish(s, r);
    release_log(s, held, r);
    if (r == FX_OK && queue)
        clear_queue(s);
    if (r == FX_OK && counts)
        counts_written(s);
    if (r != FX_OK) { /* as they were */
        if (before)
            memcpy(s->pending, kept, before * sizeof(*kept));
        s->n_pending = before;
    }
    free(kept);
    return r;
}

/* Writes the pending counters now (and what the log holds). */
static FxStatus flush_counts(FxStore *s)
{
    return s->n_pending ? commit(s, false, true) : FX_OK;
}

FxStatus fx_store_flush(FxStore *s)
{
    if (s->queue.len == 0)
        return FX_OK;
    if (s->read_only || s->broken)
        return refuse_write(s);
    if (!commit_due(s) && append_queue(s) == FX_OK) {
        gather_counts(s);
        clear_queue(s);
        s->flushes_pending++;
        return FX_OK;
    }
    /* due, or the log could not be written: the database takes the queue
     * (an id the log holds as well is inserted once) */
    return commit(s, true, true);
}

FxStatus fx_store_commit(FxStore *s)
{
    if (s->read_only || s->broken)
        return refuse_write(s);
    return commit(s, true, true);
}

/* Before a read of executions: the log's frames moved into the database,
 * by a connection that may write it (a read-only one reads what the
 * database holds). A failure leaves the read to the database as it is. */
static void absorb_for_reading(FxStore *s)
{
    if (s->read_only || s->broken || !s->db || statement_busy(s))
        return;
    if (!s->log && (fx_reclog_open(s->dir, false, &s->log) != 0 || !s->log))
        return;
    if (fx_reclog_size(s->log) > 0)
        (void)commit(s, false, false);
}

/* ---- JSON text ---- */

static const char *scan_value(const char *p, int depth);

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *scan_string(const char *p)
{
    for (p++; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL; /* a control character, or the end of the text */
        if (*p != '\\')
            continue;
        p++;
        if (*p == 'u') {
            if (!is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]))
                return NULL;
            p += 4;
        } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
            return NULL;
        }
    }
    return p + 1;
}

static const char *scan_digits(const char *p)
{
    if (!is_digit(*p))
        return NULL;
    while (is_digit(*p))
        p++;
    return p;
}

/* A JSON number of any length: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *scan_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (!(p = scan_digits(p)))
        return NULL;
    if (*p == '.' && !(p = scan_digits(p + 1)))
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        p = scan_digits(p);
    }
    return p;
}

/* The elements of an array (close ']') or the members of an object ('}'). */
static const char *scan_items(const char *p, char close, int depth)
{
    p = skip_ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            if (*p != '"' || !(p = scan_string(p)))
                return NULL;
            p = skip_ws(p);
            if (*p++ != ':')
                return NULL;
        }
        if (!(p = scan_value(p, depth + 1)))
            return NULL;
        p = skip_ws(p);
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1);
    }
}

/* Returns the end of the JSON value at p (after white space), or NULL. */
static const char *scan_value(const char *p, int depth)
{
    p = skip_ws(p);
    if (depth > JSON_MAX_DEPTH)
        return NULL;
    switch (*p) {
    case '{':
    case '[':
        return scan_items(p, *p == '{' ? '}' : ']', depth);
    case '"':
        return scan_string(p);
    case 't':
        return strncmp(p, "true", 4) ? NULL : p + 4;
    case 'f':
        return strncmp(p, "false", 5) ? NULL : p + 5;
    case 'n':
        return strncmp(p, "null", 4) ? NULL : p + 4;
    default:
        return *p == '-' || is_digit(*p) ? scan_number(p) : NULL;
    }
}

static bool is_json(const char *text)
{
    const char *end = scan_value(text, 0);
    return end && *skip_ws(end) == '\0';
}

/* ---- the decisions JSON, checked as the `decisions` view and jansson read it ---- */

/* The value of the 4 hex digits at p (scan_string checked them). */
static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++)
        v = v * 16 + (unsigned)(is_digit(p[i]) ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
    return v;
}

static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* The text of the JSON string [p, end) (scan_string's), its escapes
 * decoded; NULL for what jansson refuses too: \u0000 and a surrogate
 * without its pair. Caller frees. */
static char *decode_string(const char *p, const char *end)
{
    char *out = fx_xmalloc((size_t)(end - p)), *o = out; /* never longer than its quotes */
    for (p++, end--; p < end; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        switch (*++p) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp = hex4(p + 1), low;
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && p[1] == '\\' && p[2] == 'u' &&
                (low = hex4(p + 3)) >= 0xDC00 && low < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
            if (cp == 0 || (cp >= 0xD800 && cp < 0xE000)) {
                free(out);
                return NULL;
            }
            o = put_utf8(o, cp);
            break;
        }
        default: *o++ = *p; break; /* " \ / */
        }
    }
    *o = '\0';
    return out;
}

/* Whether the JSON string [p, end) is name. */
static bool key_is(const char *p, const char *end, const char *name)
{
    size_t n = strlen(name);
    if (!memchr(p, '\\', (size_t)(end - p)))
        return (size_t)(end - p) == n + 2 && !memcmp(p + 1, name, n);
    char *key = decode_string(p, end);
    bool same = key && !strcmp(key, name);
    free(key);
    return same;
}

/* One member of a decision object: its decision or reason when a string,
 * its proof id when an integer (jansson's: no fraction, no exponent, in
 * range). As jansson's objects do, a key given twice keeps its last value. */
static bool read_member(Decision *d, const char *key, const char *key_end, const char *v,
                        const char *v_end)
{
    char **text = key_is(key, key_end, "decision") ? &d->decision
                  : key_is(key, key_end, "reason") ? &d->reason
                                                   : NULL;
    if (text) {
        free(*text);
        *text = NULL;
        return *v != '"' || (*text = decode_string(v, v_end)) != NULL;
    }
    if (!key_is(key, key_end, "proof_id"))
        return true;
    d->proof_id = 0;
    if (*v != '-' && !is_digit(*v))
        return true;
    for (const char *c = v; c < v_end; c++)
        if (*c == '.' || *c == 'e' || *c == 'E')
            return true; /* a real */
    errno = 0;
    d->proof_id = strtoll(v, NULL, 10);
    return errno == 0;
}

static FxStatus read_decisions(FxStore *s, const char *text, Queued *q)
{
    const char *p = skip_ws(text);
    size_t cap = 0;
    if (*p != '[' || !is_json(p))
        return usage(s, "decisions_json is not a JSON array");
    for (p = skip_ws(p + 1); *p != ']'; p = skip_ws(p)) {
        if (*p == ',')
            p = skip_ws(p + 1);
        if (q->n_decisions == cap) {
            cap = cap ? 2 * cap : 4;
            q->decisions = fx_xrealloc(q->decisions, cap * sizeof(Decision));
        }
        Decision *d = &q->decisions[q->n_decisions++];
        *d = (Decision){0};
        if (*p != '{') {
            p = scan_value(p, 1);
            continue;
        }
        for (p = skip_ws(p + 1); *p != '}'; p = skip_ws(p)) {
            if (*p == ',')
                p = skip_ws(p + 1);
            const char *key = p, *key_end = scan_string(p);
            const char *v = skip_ws(skip_ws(key_end) + 1), *v_end = scan_value(v, 2);
            if (!read_member(d, key, key_end, v, v_end))
                return usage(s, "decisions_json holds a string or a number jansson refuses");
            p = v_end;
        }
        p++;
    }
    return FX_OK;
}

/* Appends well-formed JSON text as it is, less its line breaks and tabs,
 * so that a row stays on one line. In well-formed JSON these can only be
 * white space between tokens (a string may not hold them raw). */
static void put_json(FxBuf *b, const char *text)
{
    text = skip_ws(text);
    size_t len = strlen(text);
    while (len && strchr(" \t\n\r", text[len - 1]))
        len--;
    for (size_t i = 0, run = 0; i <= len; i++) {
        if (i == len || text[i] == '\n' || text[i] == '\r' || text[i] == '\t') {
            fx_buf_append(b, text + run, i - run);
            run = i + 1;
        }
    }
}

/* Appends text as a JSON string (jansson's encoding); bytes that are not
 * UTF-8 become '?'. */
static void put_string(FxBuf *b, const char *text)
{
    json_t *j = json_string(text);
    char *copy = NULL;
    if (!j) {
        copy = fx_xstrdup(text);
        for (char *c = copy; *c; c++)
            if ((unsigned char)*c >= 0x80)
                *c = '?';
        j = json_string(copy);
    }
    char *enc = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    fx_buf_puts(b, enc ? enc : "null");
    free(enc);
    free(copy);
    json_decref(j);
}

/* The shortest decimal text that reads back as the same double. */
static void put_real(FxBuf *b, double x)
{
    char text[40];
    if (!isfinite(x)) {
        fx_buf_puts(b, "null");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(text, sizeof(text), "%.*g", prec, x);
        if (strtod(text, NULL) == x)
            break;
    }
    fx_buf_puts(b, text);
}

static void put_column(FxBuf *b, sqlite3_stmt *st, int col, char kind)
{
    const char *text = (const char *)sqlite3_column_text(st, col);
    if (sqlite3_column_type(st, col) == SQLITE_NULL || !text)
        fx_buf_puts(b, "null");
    else if (kind == 'i')
        fx_buf_printf(b, "%" PRId64, (int64_t)sqlite3_column_int64(st, col));
    else if (kind == 'r')
        put_real(b, sqlite3_column_double(st, col));
    else if (kind == 'j' && is_json(text))
        put_json(b, text);
    else
        put_string(b, text);
}

/* Appends `"key": value` for each field, reading columns from `col` on;
 * a comma goes first unless the row holds only its opening brace. */
static void put_fields(FxBuf *b, sqlite3_stmt *st, const Field *f, size_t n, int col)
{
    for (size_t i = 0; i < n; i++) {
        fx_buf_printf(b, "%s\"%s\": ", b->len > 1 ? ", " : "", f[i].key);
        put_column(b, st, col + (int)i, f[i].kind);
    }
}

static void execution_row(FxBuf *b, sqlite3_stmt *st)
{
    b->len = 0;
    fx_buf_printf(b, "{\"execution_id\": \"exec_%" PRId64 "\"",
                  (int64_t)sqlite3_column_int64(st, 0));
    put_fields(b, st, execution_fields, FX_ARRAY_LEN(execution_fields), 1);
    fx_buf_putc(b, '}');
}

static void version_row(FxBuf *b, sqlite3_stmt *st)
{
    b->len = 0;
    fx_buf_putc(b, '{');
    put_fields(b, st, version_fields, FX_ARRAY_LEN(version_fields), 0);
    fx_buf_putc(b, '}');
}

/* ---- reading ---- */

static FxStatus prepare(FxStore *s, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v2(s->db, sql, -1, out, NULL) == SQLITE_OK ? FX_OK
                                                                      : db_fail(s, "prepare");
}

/* Steps st to its end, calling fn with each row made by row(). */
static FxStatus each_row(FxStore *s, sqlite3_stmt *st, void (*row)(FxBuf *, sqlite3_stmt *),
                         FxRowFn fn, void *ctx)
{
    FxBuf b = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row(&b, st);
        fn(ctx, fx_buf_str(&b));
    }
    fx_buf_free(&b);
    return rc == SQLITE_DONE ? FX_OK : db_fail(s, "read");
}

FxStatus fx_store_executions(FxStore *s, const char *intent, int64_t before, int64_t limit,
                             FxRowFn fn, void *ctx)
{
    absorb_for_reading(s);
    sqlite3_stmt *st = NULL;
    const char *sql = intent ? EXECUTION_SELECT
            " WHERE e.intent = ?2 AND e.id < ?3 ORDER BY e.id DESC LIMIT ?1"
                             : EXECUTION_SELECT " WHERE e.id < ?3 ORDER BY e.id DESC LIMIT ?1";
    FxStatus r = prepare(s, sql, &st);
    if (r != FX_OK)
        goto out;
    /* LIMIT -1: no limit */
    if (sqlite3_bind_int64(st, 1, limit > 0 ? limit : -1) |
        sqlite3_bind_int64(st, 3, before > 0 ? before : INT64_MAX) |
        (intent ? bind_text(st, 2, intent) : SQLITE_OK)) {
        r = db_fail(s, "bind");
        goto out;
    }
    r = each_row(s, st, execution_row, fn, ctx);
out:
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_recent_runs(FxStore *s, const char *intent, int64_t limit, FxRunFn fn,
                              void *ctx)
{
    absorb_for_reading(s);
    sqlite3_stmt *st = NULL;
    /* the decision tree's JSON, searched as text: a twentieth of looking
     * each execution's decisions up in their table */
    FxStatus r = prepare(s, "SELECT e.id, v.lineage, v.label, e.input, instr(e.decisions,"
                            " '\"decision\": \"stopped by the ') > 0 FROM executions e JOIN"
                            " versions v ON v.id = e.version WHERE e.intent = ?2"
                            " ORDER BY e.id DESC LIMIT ?1",
                         &st);
    if (r != FX_OK)
        goto out;
    if (sqlite3_bind_int64(st, 1, limit > 0 ? limit : -1) | bind_text(st, 2, intent)) {
        r = db_fail(s, "bind");
        goto out;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        FxRecentRun run = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                           (const char *)sqlite3_column_text(st, 2),
                           (const char *)sqlite3_column_text(st, 3),
                           sqlite3_column_int(st, 4) != 0};
        fn(ctx, &run);
    }
    r = rc == SQLITE_DONE ? FX_OK : db_fail(s, "read");
out:
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_execution(FxStore *s, int64_t id, char **out_json)
{
    absorb_for_reading(s);
    sqlite3_stmt *st = NULL;
    FxBuf b = {0};
    int rc;
    FxStatus r = prepare(s, EXECUTION_SELECT " WHERE e.id = ?1", &st);
    *out_json = NULL;
    if (r != FX_OK)
        goto out;
    if (sqlite3_bind_int64(st, 1, id)) {
        r = db_fail(s, "bind");
        goto out;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        execution_row(&b, st);
        *out_json = fx_buf_take(&b);
    } else if (rc == SQLITE_DONE) {
        snprintf(s->err, sizeof(s->err), "no execution exec_%" PRId64 " in the store at %s", id,
                 s->dir);
        r = FX_ERR_USAGE;
    } else {
        r = db_fail(s, "read an execution");
    }
out:
    sqlite3_finalize(st);
    return r;
}

/* ---- learning rounds ---- */

static const Field round_fields[] = {
    {"id", 'i'},    {"version", 's'}, {"after_execution", 'i'},
    {"turns", 'j'}, {"outcome", 's'}, {"created_at", 's'},
};

FxStatus fx_store_add_round(FxStore *s, int64_t lineage, int64_t version, const char *turns_json,
                            const char *outcome)
{
    static const char sql[] =
            "INSERT INTO rounds(lineage, version, after_execution, turns, outcome, created_at)"
            " VALUES (?1, ?2, (SELECT ifnull(max(id), 0) FROM executions), ?3, ?4, ?5)";
    if (!turns_json || !is_json(turns_json) || !outcome)
        return usage(s, "a round needs its turns as JSON and an outcome");
    absorb_for_reading(s); /* the executions it read are in the table */
    sqlite3_stmt *st = NULL;
    char now[32];
    now_iso(now);
    FxStatus r = begin(s);
    if (r == FX_OK && sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        r = db_fail(s, "prepare a round");
    if (r == FX_OK && (sqlite3_bind_int64(st, 1, lineage) | sqlite3_bind_int64(st, 2, version) |
                       bind_text(st, 3, turns_json) | bind_text(st, 4, outcome) |
                       bind_text(st, 5, now)))
        r = db_fail(s, "bind");
    if (r == FX_OK)
        r = run(s, st, "record a learning round");
    sqlite3_finalize(st);
    return finish(s, r);
}

FxStatus fx_store_round_before(FxStore *s, int64_t execution, char **out_json)
{
    absorb_for_reading(s);
    sqlite3_stmt *st = NULL;
    FxBuf b = {0};
    int rc;
    *out_json = NULL;
    FxStatus r = prepare(s,
                         "SELECT r.id, rv.label, r.after_execution, r.turns, r.outcome,"
                         " r.created_at FROM executions e JOIN versions v ON v.id = e.version"
                         " JOIN rounds r ON r.lineage = v.lineage AND r.after_execution < e.id"
                         " JOIN versions rv ON rv.id = r.version"
                         " WHERE e.id = ?1 ORDER BY r.after_execution DESC, r.id DESC LIMIT 1",
                         &st);
    if (r != FX_OK)
        goto out;
    if (sqlite3_bind_int64(st, 1, execution)) {
        r = db_fail(s, "bind");
        goto out;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        fx_buf_putc(&b, '{');
        put_fields(&b, st, round_fields, FX_ARRAY_LEN(round_fields), 0);
        fx_buf_putc(&b, '}');
        *out_json = fx_buf_take(&b);
    } else if (rc != SQLITE_DONE) {
        r = db_fail(s, "read a learning round");
    }
out:
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_execution_source(FxStore *s, int64_t id, char **out_path, char **out_source)
{
    absorb_for_reading(s);
    sqlite3_stmt *st = NULL;
    int rc;
    FxStatus r = prepare(s,
                         "SELECT src.path, src.text FROM executions e"
                         " JOIN versions v ON v.id = e.version JOIN lineages l ON l.id = v.lineage"
                         " LEFT JOIN sources src ON src.hash = l.source_hash WHERE e.id = ?1",
                         &st);
    *out_path = *out_source = NULL;
    if (r != FX_OK)
        goto out;
    if (sqlite3_bind_int64(st, 1, id)) {
        r = db_fail(s, "bind");
        goto out;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 1) != SQLITE_NULL) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        *out_path = fx_xstrdup(path ? path : "");
        *out_source = fx_xstrdup((const char *)sqlite3_column_text(st, 1));
    } else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        snprintf(s->err, sizeof(s->err), "%s exec_%" PRId64 " in the store at %s",
                 rc == SQLITE_ROW ? "no source kept for" : "no execution", id, s->dir);
        r = FX_ERR_USAGE;
    } else {
        r = db_fail(s, "read a source");
    }
out:
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_version_row(FxStore *s, const char *intent, const char *hash, const char *label,
                              FxRowFn fn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = stmt(s, ST_VERSION_ROW, &st);
    if (r != FX_OK)
        return r;
    if (bind_text(st, 1, intent) | bind_text(st, 2, hash) | bind_text(st, 3, label))
        return bind_fail(s, st);
    r = each_row(s, st, version_row, fn, ctx);
    done(st);
    return r;
}

FxStatus fx_store_versions(FxStore *s, const char *intent, FxRowFn fn, void *ctx)
{
    absorb_for_reading(s);
    sqlite3_stmt *st = NULL;
    FxStatus r = prepare(s,
                         intent ? VERSION_SELECT " WHERE l.intent = ?1 ORDER BY v.id"
                                : VERSION_SELECT " ORDER BY v.id",
                         &st);
    if (r != FX_OK)
        goto out;
    if (intent && bind_text(st, 1, intent)) {
        r = db_fail(s, "bind");
        goto out;
    }
    r = each_row(s, st, version_row, fn, ctx);
out:
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_graph(FxStore *s, int64_t lineage, const char *label, char **out_json)
{
    sqlite3_stmt *st = NULL;
    int rc;
    FxStatus r = prepare(s, "SELECT graph_json FROM versions WHERE lineage = ?1 AND label = ?2",
                         &st);
    *out_json = NULL;
    if (r != FX_OK)
        goto out;
    if (sqlite3_bind_int64(st, 1, lineage) | bind_text(st, 2, label)) {
        r = db_fail(s, "bind");
        goto out;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out_json = fx_xstrdup((const char *)sqlite3_column_text(st, 0));
    } else if (rc == SQLITE_DONE) {
        snprintf(s->err, sizeof(s->err), "no version %s of lineage %" PRId64 " in the store at %s",
                 label ? label : "(none)", lineage, s->dir);
        r = FX_ERR_USAGE;
    } else {
        r = db_fail(s, "read a graph");
    }
out:
    sqlite3_finalize(st);
    return r;
}

/* Runs an UPDATE of one version row: sql binds ?1 the version, ?2 text. */
static FxStatus update_version(FxStore *s, const char *sql, int64_t version, const char *text,
                               const char *what)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = prepare(s, sql, &st);
    if (r != FX_OK)
        return r;
    if (sqlite3_bind_int64(st, 1, version) | bind_text(st, 2, text)) {
        r = db_fail(s, "bind");
    } else {
        r = step_waiting(s, st, what);
        if (r == FX_OK && sqlite3_changes(s->db) == 0)
            r = usage(s, "no such version");
    }
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_roll_back(FxStore *s, int64_t version, const char *reason)
{
    return update_version(s, "UPDATE versions SET rolled_back = ?2 WHERE id = ?1", version,
                          reason ? reason : "rolled back", "roll a version back");
}

FxStatus fx_store_set_model(FxStore *s, int64_t version, const char *json)
{
    return update_version(s, "UPDATE versions SET model = ?2 WHERE id = ?1", version, json,
                          "keep a cost model");
}

/* The text of one column of one row (NULL when the row or value is absent). */
static FxStatus query_text(FxStore *s, const char *sql, int64_t id, char **out, const char *what)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    FxStatus r = prepare(s, sql, &st);
    if (r != FX_OK)
        return r;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        *out = fx_xstrdup((const char *)sqlite3_column_text(st, 0));
    else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        r = db_fail(s, what);
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_model(FxStore *s, int64_t version, char **out_json)
{
    return query_text(s, "SELECT model FROM versions WHERE id = ?1", version, out_json,
                      "read a cost model");
}

FxStatus fx_store_next_label(FxStore *s, int64_t lineage, char **out_label)
{
    return query_text(s, "SELECT 'v' || (count(*) + 1) FROM versions WHERE lineage = ?1", lineage,
                      out_label, "count the versions");
}

FxStatus fx_store_sources(FxStore *s, void (*fn)(void *ctx, const char *path, const char *text),
                          void *ctx)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = prepare(s,
                         "SELECT s.path, s.text FROM sources s"
                         " WHERE s.path IS NOT NULL AND s.hash = (SELECT l.source_hash"
                         "  FROM lineages l JOIN sources o ON o.hash = l.source_hash"
                         "  WHERE o.path = s.path ORDER BY l.id DESC LIMIT 1)"
                         " ORDER BY s.path",
                         &st);
    int rc = SQLITE_DONE;
    while (r == FX_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(ctx, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
    if (r == FX_OK && rc != SQLITE_DONE)
        r = db_fail(s, "read the sources");
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_lineages(FxStore *s, FxLineageFn fn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    FxStatus r = prepare(s,
                         "SELECT l.id, l.intent, l.hash, s.path, s.text FROM lineages l"
                         " LEFT JOIN sources s ON s.hash = l.source_hash ORDER BY l.id",
                         &st);
    int rc = SQLITE_DONE;
    while (r == FX_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *intent = (const char *)sqlite3_column_text(st, 1),
                   *hash = (const char *)sqlite3_column_text(st, 2);
        fn(ctx, sqlite3_column_int64(st, 0), intent ? intent : "", hash ? hash : "",
           (const char *)sqlite3_column_text(st, 3), (const char *)sqlite3_column_text(st, 4));
    }
    if (r == FX_OK && rc != SQLITE_DONE)
        r = db_fail(s, "read the lineages");
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_node_counts(FxStore *s, int64_t version, FxCountFn fn, void *ctx)
{
    sqlite3_stmt *st = NULL;
    int rc;
    FxStatus r = flush_counts(s); /* this process's counting too */
    if (r != FX_OK)
        return r;
    r = prepare(s, "SELECT node, count, ns FROM node_counts WHERE version = ?1 ORDER BY node",
                         &st);
    if (r != FX_OK)
        goto out;
    if (sqlite3_bind_int64(st, 1, version)) {
        r = db_fail(s, "bind");
        goto out;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fn(ctx, (uint32_t)sqlite3_column_int64(st, 0), (uint64_t)sqlite3_column_int64(st, 1),
           (uint64_t)sqlite3_column_int64(st, 2));
    if (rc != SQLITE_DONE)
        r = db_fail(s, "read node counts");
out:
    sqlite3_finalize(st);
    return r;
}

/* ---- hashing ---- */

void fx_store_hash(const char *text, size_t len, char out[17])
{
    uint64_t h = fx_fnv1a(FX_FNV_BASIS, text, len);
    for (int i = 15; i >= 0; i--, h >>= 4)
        out[i] = "0123456789abcdef"[h & 15];
    out[16] = '\0';
}

/* ---- the kernels' cost models ---- */

static int bind_cost_key(sqlite3_stmt *st, const FxCostKey *k)
{
    return bind_text(st, 1, k->kernel) | bind_text(st, 2, k->variant) |
           bind_text(st, 3, k->device) | bind_text(st, 4, k->hardware);
}

static bool cost_key_ok(const FxCostKey *k)
{
    return k->kernel && k->variant && k->device && k->hardware;
}

FxStatus fx_store_set_cost_model(FxStore *s, const FxCostKey *key, const FxCostParams *p)
{
    if (!cost_key_ok(key) || p->n > FX_COST_PARAMS_MAX)
        return usage(s, "a cost model needs a kernel, variant, device, hardware and at most "
                        "8 parameters");
    FxBuf json = {0};
    fx_buf_puts(&json, "[");
    for (size_t i = 0; i < p->n; i++) {
        if (!isfinite(p->v[i])) {
            fx_buf_free(&json);
            return usage(s, "a cost model's parameters must be finite");
        }
        fx_buf_printf(&json, "%s%.17g", i ? ", " : "", p->v[i]);
    }
    fx_buf_puts(&json, "]");
    char at[32];
    now_iso(at);
    sqlite3_stmt *st = NULL;
    FxStatus r = prepare(s, "INSERT OR REPLACE INTO cost_models(kernel, variant, device, hardware,"
                            " params, observed, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                         &st);
    if (r == FX_OK && (bind_cost_key(st, key) | bind_text(st, 5, fx_buf_str(&json)) |
                       sqlite3_bind_int64(st, 6, p->observed) | bind_text(st, 7, at))) {
        r = db_fail(s, "bind");
    } else if (r == FX_OK) {
        r = step_waiting(s, st, "keep a kernel's cost model");
    }
    sqlite3_finalize(st);
    fx_buf_free(&json);
    return r;
}

/* params as stored: a JSON array of at most FX_COST_PARAMS_MAX numbers.
 * The row is the database's, not ours: anything else is no model. */
static bool read_params(const char *text, FxCostParams *out)
{
    json_t *a = text ? json_loads(text, 0, NULL) : NULL;
    bool ok = a && json_is_array(a) && json_array_size(a) <= FX_COST_PARAMS_MAX;
    for (size_t i = 0; ok && i < json_array_size(a); i++) {
        json_t *x = json_array_get(a, i);
        ok = json_is_number(x) && isfinite(json_number_value(x));
        if (ok)
            out->v[i] = json_number_value(x);
    }
    if (ok)
        out->n = json_array_size(a);
    json_decref(a);
    return ok;
}

FxStatus fx_store_cost_model(FxStore *s, const FxCostKey *key, FxCostParams *out, bool *found)
{
    *found = false;
    if (!cost_key_ok(key))
        return usage(s, "a cost model needs a kernel, variant, device and hardware");
    static const char sql[] = "SELECT params, observed FROM cost_models WHERE kernel = ?1 AND "
                              "variant = ?2 AND device = ?3 AND hardware = ?4";
    sqlite3_stmt *st = NULL;
    FxStatus r = cached(s, sql, &st);
    if (r != FX_OK)
        return r;
    if (bind_cost_key(st, key)) {
        r = db_fail(s, "bind");
    } else {
        int rc = sqlite3_step(st);
        FxCostParams p = {0};
        if (rc == SQLITE_ROW && read_params((const char *)sqlite3_column_text(st, 0), &p) &&
            sqlite3_column_int64(st, 1) >= 0) {
            p.observed = (uint32_t)sqlite3_column_int64(st, 1);
            *out = p;
            *found = true;
        } else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            r = db_fail(s, "read a kernel's cost model");
        }
    }
    release(s, st);
    return r;
}

/* ---- what learning keeps (the learned table) ---- */

static bool learned_key_ok(const char *kind, const char *key, const char *hardware)
{
    return kind && key && hardware;
}

FxStatus fx_store_set_learned(FxStore *s, const char *kind, const char *key,
                              const char *hardware, const void *value, size_t len)
{
    if (!learned_key_ok(kind, key, hardware) || !value)
        return usage(s, "a learned row needs a kind, key, hardware and value");
    char at[32];
    now_iso(at);
    sqlite3_stmt *st = NULL;
    FxStatus r = prepare(s, "INSERT OR REPLACE INTO learned(kind, key, hardware, value, "
                            "updated_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                         &st);
    if (r == FX_OK && (bind_text(st, 1, kind) | bind_text(st, 2, key) | bind_text(st, 3, hardware) |
                       sqlite3_bind_blob(st, 4, value, (int)len, SQLITE_TRANSIENT) |
                       bind_text(st, 5, at))) {
        r = db_fail(s, "bind");
    } else if (r == FX_OK) {
        r = step_waiting(s, st, "keep what learning found");
    }
    sqlite3_finalize(st);
    return r;
}

FxStatus fx_store_learned_each(FxStore *s, const char *kind, FxLearnedFn fn, void *ctx)
{
    static const char sql[] = "SELECT key, hardware, value FROM learned WHERE kind = ?1 "
                              "ORDER BY key, hardware";
    sqlite3_stmt *st = NULL;
    FxStatus r = cached(s, sql, &st);
    if (r != FX_OK)
        return r;
    if (bind_text(st, 1, kind)) {
        r = db_fail(s, "bind");
    } else {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *key = (const char *)sqlite3_column_text(st, 0),
                       *hw = (const char *)sqlite3_column_text(st, 1);
            const void *v = sqlite3_column_blob(st, 2);
            if (!fn(ctx, key ? key : "", hw ? hw : "", v ? v : "",
                    (size_t)sqlite3_column_bytes(st, 2)))
                break;
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            r = db_fail(s, "read what learning found");
    }
    release(s, st);
    return r;
}

FxStatus fx_store_learned(FxStore *s, const char *kind, const char *key, const char *hardware,
                          char **out, size_t *len)
{
    *out = NULL;
    if (len)
        *len = 0;
    if (!learned_key_ok(kind, key, hardware))
        return usage(s, "a learned row needs a kind, key and hardware");
    static const char sql[] = "SELECT value FROM learned WHERE kind = ?1 AND key = ?2 AND "
                              "hardware = ?3";
    sqlite3_stmt *st = NULL;
    FxStatus r = cached(s, sql, &st);
    if (r != FX_OK)
        return r;
    if (bind_text(st, 1, kind) | bind_text(st, 2, key) | bind_text(st, 3, hardware)) {
        r = db_fail(s, "bind");
    } else {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            size_t n = (size_t)sqlite3_column_bytes(st, 0);
            const void *v = sqlite3_column_blob(st, 0);
            *out = fx_xmalloc(n + 1);
            if (n)
                memcpy(*out, v, n);
            (*out)[n] = '\0';
            if (len)
                *len = n;
        } else if (rc != SQLITE_DONE) {
            r = db_fail(s, "read what learning found");
        }
    }
    release(s, st);
    return r;
}
