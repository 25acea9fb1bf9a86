/*
 * store_test.c: the store (src/trace/store.h) on real SQLite files, each
 * test in its own mkdtemp folder under /tmp, removed at the end.
 *
 * Covers opening (new, reopen, newer schema, a version 1 store migrated, a
 * file that is not a database), lineages and versions made once, executions
 * queued, flushed and read back as JSON (order, limit, intent, a 40-digit
 * output kept exactly), node counters summed across flushes, ids unique
 * across two handles and two processes (and without gaps when each process
 * records one execution), processes making a new store at once, a flush
 * that waits for another writer, the source kept for replay, kernels' cost
 * models kept and read back, the cost of a flush (printed), and, for the
 * VFS that gathers a commit's WAL frames into one write (walvfs.c): a
 * transaction larger than its buffer, and writers killed at random moments
 * (the store stays whole, every flushed execution is in it).
 */
#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/buf.h"
#include "fx_test.h"
#include "trace/guard.h"
#include "trace/store.h"
#include "trace/walvfs.h"

/* ---- helpers ---- */

static char *make_tmp(void)
{
    char tmpl[] = "/tmp/flux_store_test_XXXXXX";
    char *d = mkdtemp(tmpl);
    if (!d) {
        perror("mkdtemp");
        abort();
    }
    return fx_xstrdup(d);
}

static void rm_rf(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *ent;
        while (d && (ent = readdir(d))) {
            if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
                continue;
            char *sub = fx_xasprintf("%s/%s", path, ent->d_name);
            rm_rf(sub);
            free(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static FxStore *open_ok(const char *dir)
{
    FxStore *s = NULL;
    char why[512] = "";
    FxStatus st = fx_store_open(dir, &s, why, sizeof(why));
    if (st != FX_OK)
        fprintf(stderr, "open %s: %s\n", dir, why);
    EXPECT_EQ(st, FX_OK);
    EXPECT(s != NULL);
    return s;
}

/* Runs sql on DIR/flux.db directly and returns the first column of its
 * first row (0 when none). */
static long long db_int(const char *dir, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    long long v = 0;
    char *path = fx_xasprintf("%s/flux.db", dir);
    EXPECT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (st && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
    return v;
}

static void db_exec(const char *dir, const char *sql)
{
    sqlite3 *db = NULL;
    char *path = fx_xasprintf("%s/flux.db", dir);
    char *err = NULL;
    EXPECT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fprintf(stderr, "db_exec: %s\n", err);
    EXPECT(err == NULL);
    sqlite3_free(err);
    sqlite3_close(db);
    free(path);
}

static const char FIB_SOURCE[] = "intent fibonacci(n: Natural) -> Natural\n";

/* A lineage "fibonacci" with a version "v1"; returns the version id. */
static int64_t setup_fib(FxStore *s, int64_t *out_lineage)
{
    int64_t lineage = 0, version = 0;
    FxVersionInfo v = {.label = "v1", .graph_json = "{\"nodes\": []}"};
    EXPECT_EQ(fx_store_lineage(s, "fibonacci", "h-fib", "examples/fib.flux", FIB_SOURCE, &lineage),
              FX_OK);
    EXPECT_EQ(fx_store_version(s, lineage, &v, &version), FX_OK);
    if (out_lineage)
        *out_lineage = lineage;
    return version;
}

static FxExecution sample_exec(int64_t version, const char *intent, const char *output)
{
    FxExecution e = {
            .version = version,
            .intent = intent,
            .expr = "fibonacci(10)",
            .input_json = "{\"n\": 10}",
            .output_json = output,
            .output_hash = "0000000000000000",
            .output_bytes = (int64_t)strlen(output),
            .decisions_json = "[{\"decision\": \"memo\", \"reason\": \"repeated calls\", "
                              "\"proof_id\": 7}, {\"decision\": \"loop\", \"reason\": \"r\"}]",
            .hardware = "2 cores, x86_64, avx2",
            .duration_ms = 0.023,
            .optimizations_json = "[\"memoization\"]",
            .proof_ids_json = "[7]",
            .verified = "constraints checked",
    };
    return e;
}

typedef struct Rows {
    int n;
    char *rows[64];
} Rows;

static void collect(void *ctx, const char *json)
{
    Rows *r = ctx;
    if (r->n < 64)
        r->rows[r->n] = fx_xstrdup(json);
    r->n++;
}

static void rows_free(Rows *r)
{
    for (int i = 0; i < r->n && i < 64; i++)
        free(r->rows[i]);
    r->n = 0;
}

static bool has(const char *text, const char *part)
{
    bool ok = text && strstr(text, part);
    if (!ok)
        fprintf(stderr, "  \"%s\"\n  does not contain \"%s\"\n", text ? text : "(null)", part);
    return ok;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- tests ---- */

FX_TEST(hash_is_fnv1a_64)
{
    char h[17];
    fx_store_hash("", 0, h);
    EXPECT_STR_EQ(h, "cbf29ce484222325");
    fx_store_hash("a", 1, h);
    EXPECT_STR_EQ(h, "af63dc4c8601ec8c");
    fx_store_hash("foobar", 6, h);
    EXPECT_STR_EQ(h, "85944171f73967e8");
}

FX_TEST(open_creates_then_reopens)
{
    char *tmp = make_tmp();
    char *dir = fx_xasprintf("%s/store", tmp);
    char *cache = fx_xasprintf("%s/cache", dir);
    char *db = fx_xasprintf("%s/flux.db", dir);
    struct stat sb;
    FxStore *s = open_ok(dir);
    EXPECT(stat(cache, &sb) == 0 && S_ISDIR(sb.st_mode));
    EXPECT(stat(db, &sb) == 0);
    EXPECT_STR_EQ(fx_store_error(s), "");
    EXPECT_EQ(fx_store_close(s), FX_OK);
    EXPECT_EQ(db_int(dir, "PRAGMA user_version"), FX_STORE_SCHEMA_VERSION);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM sqlite_master WHERE name = 'proposals'"), 1);
    s = open_ok(dir); /* again: nothing to create, nothing to migrate */
    EXPECT_EQ(fx_store_close(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"),
              1);
    EXPECT_EQ(db_int(dir, "PRAGMA page_size"), 1024); /* a new store's */
    EXPECT_EQ(fx_store_close(NULL), FX_OK);
    rm_rf(tmp);
    free(db);
    free(cache);
    free(dir);
    free(tmp);
}

FX_TEST(open_refuses_a_missing_parent)
{
    char *tmp = make_tmp();
    char *dir = fx_xasprintf("%s/no/such", tmp);
    char why[512] = "";
    FxStore *s = NULL;
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_ERR_STORE);
    EXPECT(s == NULL);
    EXPECT(has(why, "cannot create the store folder"));
    rm_rf(tmp);
    free(dir);
    free(tmp);
}

FX_TEST(lineage_and_version_are_made_once)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t l1 = 0, l2 = 0, l3 = 0, v1 = 0, v1b = 0, v2 = 0, proof = 0;
    EXPECT_EQ(fx_store_lineage(s, "fib", "h1", "a.flux", "text A", &l1), FX_OK);
    EXPECT_EQ(fx_store_lineage(s, "fib", "h1", "a.flux", "text A", &l2), FX_OK);
    EXPECT_EQ(fx_store_lineage(s, "fib", "h2", "a.flux", "text B", &l3), FX_OK);
    EXPECT(l1 > 0);
    EXPECT_EQ(l2, l1);
    EXPECT(l3 != l1);
    EXPECT_EQ(fx_store_add_proof(s, "(assert false)", "unsat", "z3", 1.5, &proof), FX_OK);
    EXPECT(proof > 0);
    FxVersionInfo a = {.label = "v1", .graph_json = "{\"g\": 1}"};
    EXPECT_EQ(fx_store_version(s, l1, &a, &v1), FX_OK);
    EXPECT_EQ(fx_store_version(s, l1, &a, &v1b), FX_OK);
    EXPECT_EQ(v1b, v1);
    FxVersionInfo b = {.label = "v2", .graph_json = "{\"g\": 2}", .parent = v1,
                       .rewrite = "memoization", .proof_id = proof,
                       .evidence = "{\"calls\": 12}"};
    EXPECT_EQ(fx_store_version(s, l1, &b, &v2), FX_OK);
    EXPECT(v2 != v1);
    EXPECT_EQ(fx_store_close(s), FX_OK);

    s = open_ok(dir); /* the same ids after reopening */
    EXPECT_EQ(fx_store_lineage(s, "fib", "h1", "a.flux", "text A", &l2), FX_OK);
    EXPECT_EQ(l2, l1);
    EXPECT_EQ(fx_store_version(s, l1, &b, &v1b), FX_OK);
    EXPECT_EQ(v1b, v2);
    char *g = NULL;
    EXPECT_EQ(fx_store_graph(s, l1, "v2", &g), FX_OK);
    EXPECT_STR_EQ(g, "{\"g\": 2}");
    free(g);
    EXPECT_EQ(fx_store_graph(s, l1, "v9", &g), FX_ERR_USAGE);
    EXPECT(g == NULL);
    EXPECT(has(fx_store_error(s), "no version v9"));

    Rows r = {0};
    EXPECT_EQ(fx_store_versions(s, "fib", collect, &r), FX_OK);
    EXPECT_EQ(r.n, 2);
    EXPECT(has(r.rows[0], "{\"lineage\": 1, \"intent\": \"fib\", \"hash\": \"h1\", "
                          "\"version\": \"v1\", \"parent\": null, \"rewrite\": null, "
                          "\"proof_id\": null, \"evidence\": null, \"created_at\": \""));
    EXPECT(has(r.rows[1], "\"version\": \"v2\", \"parent\": \"v1\", \"rewrite\": "
                          "\"memoization\", \"proof_id\": 1, \"evidence\": {\"calls\": 12}, "));
    EXPECT(has(r.rows[1], "\"executions\": 0, \"rolled_back\": null, \"model\": null}"));
    rows_free(&r);
    EXPECT_EQ(fx_store_versions(s, "nothing", collect, &r), FX_OK);
    EXPECT_EQ(r.n, 0);
    EXPECT_EQ(fx_store_versions(s, NULL, collect, &r), FX_OK);
    EXPECT_EQ(r.n, 2);
    rows_free(&r);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

/* Installing is one transaction: the version, its model and its accepted
 * proposal; a label already installed (by a round that came first) is
 * refused, FX_ERR_REJECTED, and nothing of the second install is written. */
FX_TEST(install_is_one_transaction_refusing_a_taken_label)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t lineage = 0, v1 = setup_fib(s, &lineage), p1 = 0, p2 = 0, v2 = 0, v2b = 0, a = 0, b = 0;
    EXPECT_EQ(fx_store_add_proof(s, "(assert false)", "proved", "z3", 1, &p1), FX_OK);
    EXPECT_EQ(fx_store_add_proof(s, "(assert false)", "proved", "z3", 1, &p2), FX_OK);
    FxVersionInfo first = {.label = "v2", .graph_json = "{\"g\": 2}", .parent = v1,
                           .rewrite = "memoization", .proof_id = p1};
    EXPECT_EQ(fx_store_install(s, lineage, &first, "{\"m\": 1}", &v2, &a), FX_OK);
    EXPECT(v2 > 0 && a > 0);
    FxTrusted t = {0}; /* sealed as fx_store_version seals */
    EXPECT_EQ(fx_store_trusted_version(s, lineage, "v2", &t, NULL, NULL), FX_OK);
    EXPECT_EQ(t.id, v2);
    EXPECT(t.why == NULL);
    fx_trusted_free(&t);
    FxVersionInfo second = first;
    second.rewrite = "recursion to iteration";
    second.proof_id = p2;
    EXPECT_EQ(fx_store_install(s, lineage, &second, "{\"m\": 2}", &v2b, &b), FX_ERR_REJECTED);
    EXPECT(has(fx_store_error(s), "v2 exists already in this lineage"));
    EXPECT_EQ(v2b, 0);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM versions WHERE label = 'v2'"), 1);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM versions WHERE model = '{\"m\": 1}' "
                          "AND rewrite = 'memoization'"), 1);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM proposals"), 1);
    EXPECT_EQ(db_int(dir, "SELECT proof_id FROM proposals WHERE status = 'accepted'"), p1);
    rm_rf(dir);
    free(dir);
}

FX_TEST(executions_are_read_back_newest_first)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t lineage = 0, version = setup_fib(s, &lineage), ids[3] = {0};
    int64_t other_l = 0, other_v = 0;
    FxVersionInfo ov = {.label = "v1", .graph_json = "{}"};
    EXPECT_EQ(fx_store_lineage(s, "square", "h-sq", "sq.flux", "intent square", &other_l), FX_OK);
    EXPECT_EQ(fx_store_version(s, other_l, &ov, &other_v), FX_OK);

    FxExecution e = sample_exec(version, "fibonacci", "55");
    EXPECT_EQ(fx_store_add_execution(s, &e, &ids[0]), FX_OK);
    e = sample_exec(other_v, "square", "100");
    e.duration_ms = 2;
    EXPECT_EQ(fx_store_add_execution(s, &e, &ids[1]), FX_OK);
    e = sample_exec(version, "fibonacci", "89");
    e.input_json = "n=11"; /* not JSON: kept as a string */
    EXPECT_EQ(fx_store_add_execution(s, &e, &ids[2]), FX_OK);
    EXPECT(ids[0] > 0 && ids[1] == ids[0] + 1 && ids[2] == ids[1] + 1);

    Rows r = {0};
    EXPECT_EQ(fx_store_executions(s, NULL, 0, 0, collect, &r), FX_OK);
    EXPECT_EQ(r.n, 0); /* queued, not yet recorded */
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK); /* nothing left to write */

    EXPECT_EQ(fx_store_executions(s, NULL, 0, 0, collect, &r), FX_OK);
    EXPECT_EQ(r.n, 3);
    char *want = fx_xasprintf(
            "{\"execution_id\": \"exec_%lld\", \"intent\": \"fibonacci\", \"graph_version\": "
            "\"v1\", \"input\": {\"n\": 10}, \"output\": 55, \"decision_tree\": [{\"decision\": "
            "\"memo\", \"reason\": \"repeated calls\", \"proof_id\": 7}, {\"decision\": \"loop\", "
            "\"reason\": \"r\"}], \"hardware\": \"2 cores, x86_64, avx2\", \"duration_ms\": "
            "0.023, \"optimizations_applied\": [\"memoization\"], \"proof_ids\": [7], "
            "\"verified\": \"constraints checked\", \"expr\": \"fibonacci(10)\", "
            "\"recorded_at\": \"",
            (long long)ids[0]);
    EXPECT(r.n == 3 && !strncmp(r.rows[2], want, strlen(want)));
    if (r.n == 3 && strncmp(r.rows[2], want, strlen(want)))
        fprintf(stderr, "  got  %s\n  want %s...\n", r.rows[2], want);
    EXPECT(has(r.rows[2], "Z\", \"lineage\": 1, \"output_bytes\": 2, \"kernels\": null}"));
    EXPECT(has(r.rows[1], "\"intent\": \"square\""));
    EXPECT(has(r.rows[1], "\"duration_ms\": 2,"));
    EXPECT(has(r.rows[0], "\"input\": \"n=11\", \"output\": 89,"));
    rows_free(&r);
    free(want);

    EXPECT_EQ(fx_store_executions(s, NULL, 0, 1, collect, &r), FX_OK);
    EXPECT_EQ(r.n, 1);
    EXPECT(has(r.rows[0], "\"output\": 89"));
    rows_free(&r);
    EXPECT_EQ(fx_store_executions(s, "fibonacci", 0, 0, collect, &r), FX_OK);
    EXPECT_EQ(r.n, 2);
    EXPECT(has(r.rows[0], "\"output\": 89"));
    EXPECT(has(r.rows[1], "\"output\": 55"));
    rows_free(&r);
    /* a page: the ids below the newest one */
    EXPECT_EQ(fx_store_executions(s, "fibonacci", ids[2], 0, collect, &r), FX_OK);
    EXPECT_EQ(r.n, 1);
    EXPECT(r.n == 1 && has(r.rows[0], "\"output\": 55"));
    rows_free(&r);

    char *one = NULL;
    EXPECT_EQ(fx_store_execution(s, ids[1], &one), FX_OK);
    EXPECT(has(one, "\"output\": 100"));
    free(one);
    EXPECT_EQ(fx_store_execution(s, 999999, &one), FX_ERR_USAGE);
    EXPECT(one == NULL);
    EXPECT(has(fx_store_error(s), "no execution exec_999999"));
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM decisions"), 6);
    EXPECT_EQ(db_int(dir, "SELECT proof_id FROM decisions WHERE seq = 0 LIMIT 1"), 7);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

FX_TEST(a_40_digit_output_is_kept_exactly)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    const char *big = "1234567890123456789012345678901234567890";
    FxExecution e = sample_exec(version, "fibonacci", big);
    e.input_json = "{\"n\": -98765432109876543210987654321, \"x\": 1.5e300}";
    e.optimizations_json = "[\n\t\"memoization\",\r\n\t\"matrix_exp\"\n]\n";
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_close(s), FX_OK); /* close flushes */

    s = open_ok(dir);
    char *row = NULL;
    EXPECT_EQ(fx_store_execution(s, id, &row), FX_OK);
    EXPECT(has(row, "\"output\": 1234567890123456789012345678901234567890, "));
    EXPECT(has(row, "\"input\": {\"n\": -98765432109876543210987654321, \"x\": 1.5e300}, "));
    EXPECT(has(row, "\"output_bytes\": 40, \"kernels\": null}"));
    EXPECT(has(row, "\"optimizations_applied\": [\"memoization\",\"matrix_exp\"], "));
    EXPECT(row && !strchr(row, '\n'));
    free(row);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

FX_TEST(json_columns_are_kept_when_well_formed)
{
    static const char *const cases[][2] = {
            /* stored text, what the row shows */
            {"42", "42"},
            {" -0.5e-3 ", "-0.5e-3"},
            {"[1, [true, false, null], {\"a\": \"x\\\"y\\u00e9\"}]",
             "[1, [true, false, null], {\"a\": \"x\\\"y\\u00e9\"}]"},
            {"{}", "{}"},
            {"[1,]", "\"[1,]\""},
            {"01", "\"01\""},
            {"1.", "\"1.\""},
            {"1e", "\"1e\""},
            {"tru", "\"tru\""},
            {"{\"a\" 1}", "\"{\\\"a\\\" 1}\""},
            {"\"open", "\"\\\"open\""},
            {"1 2", "\"1 2\""},
            {"", "\"\""},
            {"n=\xff", "\"n=?\""},
    };
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    for (size_t i = 0; i < FX_ARRAY_LEN(cases); i++) {
        FxExecution e = sample_exec(version, "fibonacci", "1");
        char *row = NULL, *want = fx_xasprintf("\"input\": %s, \"output\": 1,", cases[i][1]);
        e.input_json = cases[i][0];
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
        EXPECT_EQ(fx_store_flush(s), FX_OK);
        EXPECT_EQ(fx_store_execution(s, id, &row), FX_OK);
        EXPECT(has(row, want));
        free(row);
        free(want);
    }
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

typedef struct Holder {
    const char *dir;
    pthread_mutex_t lock; /* guards locked */
    pthread_cond_t cond;
    bool locked;
} Holder;

/* Holds the write lock of the store for 300 ms from another connection. */
static void *hold_lock(void *arg)
{
    Holder *h = arg;
    sqlite3 *db = NULL;
    char *path = fx_xasprintf("%s/flux.db", h->dir);
    struct timespec t = {0, 300 * 1000000L};
    sqlite3_open(path, &db);
    sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO id_blocks VALUES ('other', 1)", NULL, NULL,
                 NULL);
    pthread_mutex_lock(&h->lock);
    h->locked = true;
    pthread_cond_signal(&h->cond);
    pthread_mutex_unlock(&h->lock);
    nanosleep(&t, NULL);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    free(path);
    return NULL;
}

FX_TEST(a_flush_waits_for_another_writer)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    FxExecution e = sample_exec(version, "fibonacci", "1");
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    Holder h = {.dir = dir, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    pthread_t th;
    EXPECT_EQ(pthread_create(&th, NULL, hold_lock, &h), 0);
    pthread_mutex_lock(&h.lock);
    while (!h.locked)
        pthread_cond_wait(&h.cond, &h.lock);
    pthread_mutex_unlock(&h.lock);
    double t0 = now_ms();
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    EXPECT(now_ms() - t0 > 100); /* it did wait */
    pthread_join(th, NULL);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 1);
    EXPECT_EQ(db_int(dir, "SELECT next FROM id_blocks WHERE name = 'other'"), 1);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

typedef struct Counts {
    uint64_t by_node[32], ns_by_node[32];
    int calls;
} Counts;

static void add_count(void *ctx, uint32_t node, uint64_t count, uint64_t ns)
{
    Counts *c = ctx;
    if (node < 32) {
        c->by_node[node] = count;
        c->ns_by_node[node] = ns;
    }
    c->calls++;
}

FX_TEST(node_counts_add_up_across_flushes)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    uint32_t nodes[] = {1, 3, 1};
    uint64_t counts[] = {10, 5, 2}, ns[] = {1000, 0, 7};
    FxExecution e = sample_exec(version, "fibonacci", "1");
    e.n_counts = 3;
    e.count_nodes = nodes;
    e.counts = counts;
    e.node_ns = ns;
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    Counts c = {{0}, {0}, 0};
    EXPECT_EQ(fx_store_node_counts(s, version, add_count, &c), FX_OK);
    EXPECT_EQ(c.calls, 2);
    EXPECT_EQ(c.by_node[1], 24);
    EXPECT_EQ(c.by_node[3], 10);
    EXPECT_EQ(c.ns_by_node[1], 2014); /* the times add up as the counts do */
    EXPECT_EQ(c.ns_by_node[3], 0);
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    memset(&c, 0, sizeof(c));
    EXPECT_EQ(fx_store_node_counts(s, version, add_count, &c), FX_OK);
    EXPECT_EQ(c.by_node[1], 36);
    EXPECT_EQ(c.by_node[3], 15);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

/* The number of executions the store shows (reading absorbs the log). */
static int shown(FxStore *s)
{
    Rows r = {0};
    EXPECT_EQ(fx_store_executions(s, NULL, 0, 0, collect, &r), FX_OK);
    int n = r.n;
    rows_free(&r);
    return n;
}

static long long file_size(const char *dir, const char *name)
{
    char *path = fx_xasprintf("%s/%s", dir, name);
    struct stat sb;
    long long n = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
    free(path);
    return n;
}

/* A long process's first flush commits; the next ones append to the record
 * log (the database does not have them yet, the store shows them), and the
 * node counters wait for the next commit: after the close the database
 * holds every execution and every count, and the log is empty. */
FX_TEST(node_counts_of_many_flushes_are_written_in_batches)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    uint32_t nodes[] = {2};
    uint64_t counts[] = {7};
    FxExecution e = sample_exec(version, "fibonacci", "1");
    e.n_counts = 1;
    e.count_nodes = nodes;
    e.counts = counts;
    for (int i = 0; i < 5; i++) {
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
        EXPECT_EQ(fx_store_flush(s), FX_OK);
        EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 1);
    }
    EXPECT(file_size(dir, "records.log") > 0);
    /* the first flush wrote its counter; the next four wait (within a second) */
    EXPECT_EQ(db_int(dir, "SELECT count FROM node_counts WHERE node = 2"), 7);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 5);
    EXPECT_EQ(db_int(dir, "SELECT count FROM node_counts WHERE node = 2"), 35);
    EXPECT_EQ(file_size(dir, "records.log"), 0);
    rm_rf(dir);
    free(dir);
}

/* Reading executions moves the log into the database first; so does
 * fx_store_commit; every 16th flush commits by itself. */
FX_TEST(reading_absorbs_the_record_log)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    FxExecution e = sample_exec(version, "fibonacci", "1");
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
        EXPECT_EQ(fx_store_flush(s), FX_OK);
    }
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 1);
    EXPECT_EQ(shown(s), 3);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 3);
    EXPECT_EQ(file_size(dir, "records.log"), 0);
    for (int i = 0; i < 20; i++) {
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
        EXPECT_EQ(fx_store_flush(s), FX_OK);
    }
    EXPECT(db_int(dir, "SELECT count(*) FROM executions") > 3); /* a 16th flush committed */
    EXPECT_EQ(fx_store_commit(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 23);
    EXPECT_EQ(db_int(dir, "SELECT count(DISTINCT id) FROM executions"), 23);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

/* An execution's kernel calls travel with it (through the log too), and
 * the newest learning round before an execution is found for time travel. */
FX_TEST(kernel_calls_and_learning_rounds_are_kept)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t lineage = 0, version = setup_fib(s, &lineage), first = 0, second = 0, third = 0;
    FxExecution e = sample_exec(version, "fibonacci", "1");
    e.kernels_json = "{\"calls\": [{\"kernel\": \"sort\", \"ms\": 1.5}], \"totals\": []}";
    EXPECT_EQ(fx_store_add_execution(s, &e, &first), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK); /* the first flush commits */
    EXPECT_EQ(fx_store_add_execution(s, &e, &second), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK); /* this one is appended to the log */
    EXPECT(file_size(dir, "records.log") > 0);
    char *json = NULL;
    EXPECT_EQ(fx_store_execution(s, second, &json), FX_OK);
    EXPECT(json && strstr(json, "\"kernels\": {\"calls\": [{\"kernel\": \"sort\""));
    free(json);
    EXPECT_EQ(fx_store_round_before(s, second, &json), FX_OK);
    EXPECT(json == NULL); /* no round yet */
    EXPECT_EQ(fx_store_add_round(s, lineage, version, "not json", "v1 stays"), FX_ERR_USAGE);
    EXPECT_EQ(fx_store_add_round(s, lineage, version,
                                 "[{\"rule\": \"memoization\", \"applies\": false, "
                                 "\"why\": \"no repeated call\"}]",
                                 "v1 stays"),
              FX_OK);
    EXPECT_EQ(fx_store_round_before(s, second, &json), FX_OK);
    EXPECT(json == NULL); /* the round came after it */
    EXPECT_EQ(fx_store_add_execution(s, &e, &third), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    EXPECT_EQ(fx_store_round_before(s, third, &json), FX_OK);
    EXPECT(json && strstr(json, "\"version\": \"v1\""));
    EXPECT(json && strstr(json, "\"why\": \"no repeated call\""));
    EXPECT(json && strstr(json, "\"outcome\": \"v1 stays\""));
    free(json);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

static char *read_log(const char *dir, size_t *len)
{
    char *path = fx_xasprintf("%s/records.log", dir);
    FILE *f = fopen(path, "rb");
    free(path);
    EXPECT(f != NULL);
    char *data = fx_xmalloc(1 << 20);
    *len = f ? fread(data, 1, 1 << 20, f) : 0;
    if (f)
        fclose(f);
    return data;
}

static void write_log(const char *dir, const char *data, size_t len)
{
    char *path = fx_xasprintf("%s/records.log", dir);
    FILE *f = fopen(path, "wb");
    free(path);
    EXPECT(f != NULL);
    if (f) {
        EXPECT_EQ(fwrite(data, 1, len, f), len);
        fclose(f);
    }
}

/* A process killed after its flushes returned: every execution they
 * appended is in the store for the next reader. A frame torn by a write
 * that did not finish is passed over, the frames after it are kept; and a
 * log absorbed a second time (a crash between the commit and the log's
 * truncation) adds nothing twice. */
FX_TEST(the_record_log_survives_a_kill_and_a_torn_frame)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        FxStore *c = NULL;
        char why[256];
        int64_t id;
        if (fx_store_open(dir, &c, why, sizeof(why)) != FX_OK)
            _exit(1);
        FxExecution e = sample_exec(version, "fibonacci", "55");
        for (int i = 0; i < 4; i++)
            if (fx_store_add_execution(c, &e, &id) != FX_OK || fx_store_flush(c) != FX_OK)
                _exit(1);
        kill(getpid(), SIGKILL);
    }
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 1); /* the first flush's */
    size_t len = 0;
    char *log = read_log(dir, &len);
    EXPECT(len > 100);
    /* three frames, then a torn copy of the first half of the first, then the
     * three again (ids already there), then a torn tail */
    size_t frame = len / 3;
    char *mixed = fx_xmalloc(2 * len + frame);
    memcpy(mixed, log, len);
    memcpy(mixed + len, log, frame / 2);
    memcpy(mixed + len + frame / 2, log, len);
    memcpy(mixed + 2 * len + frame / 2, log, frame / 3);
    write_log(dir, mixed, 2 * len + frame / 2 + frame / 3);
    s = open_ok(dir);
    EXPECT_EQ(shown(s), 4);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions WHERE output = '55'"), 4);
    EXPECT_EQ(file_size(dir, "records.log"), 0);
    /* absorbed again: nothing twice */
    write_log(dir, log, len);
    EXPECT_EQ(shown(s), 4);
    EXPECT_EQ(file_size(dir, "records.log"), 0);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    free(log);
    free(mixed);
    rm_rf(dir);
    free(dir);
}

FX_TEST(bad_executions_are_refused_before_the_queue)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 5;
    FxExecution e = sample_exec(version + 100, "fibonacci", "1");
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_ERR_USAGE);
    EXPECT_EQ(id, 0);
    EXPECT(has(fx_store_error(s), "no version with id"));
    e = sample_exec(version, "fibonacci", "1");
    e.decisions_json = "[{\"decision\": ";
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_ERR_USAGE);
    EXPECT(has(fx_store_error(s), "decisions_json"));
    e.decisions_json = NULL;
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 1);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int count_dups(int64_t *ids, size_t n)
{
    int dups = 0;
    qsort(ids, n, sizeof(*ids), cmp_id);
    for (size_t i = 1; i < n; i++)
        dups += ids[i] == ids[i - 1];
    return dups;
}

/* The decision rows of one execution, as "decision|reason|proof;" text
 * ("-" for NULL), read from the table. Caller frees. */
static char *decision_rows(const char *dir, int64_t id)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char *path = fx_xasprintf("%s/flux.db", dir);
    FxBuf b = {0};
    EXPECT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT decision, reason, proof_id FROM decisions "
                                     "WHERE execution = ?1 ORDER BY seq", -1, &st, NULL),
              SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < 3; c++) {
            const unsigned char *t = sqlite3_column_text(st, c);
            fx_buf_printf(&b, "%s%c", t ? (const char *)t : "-", c < 2 ? '|' : ';');
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
    return fx_buf_take(&b);
}

/* The same rows as jansson reads the text: the reading the store had. */
static char *jansson_rows(const char *text)
{
    json_t *arr = json_loads(text, 0, NULL), *item;
    size_t i;
    FxBuf b = {0};
    json_array_foreach(arr, i, item)
    {
        json_t *d = json_object_get(item, "decision"), *r = json_object_get(item, "reason");
        json_t *p = json_object_get(item, "proof_id");
        fx_buf_printf(&b, "%s|%s|", json_is_string(d) ? json_string_value(d) : "-",
                      json_is_string(r) ? json_string_value(r) : "-");
        if (json_is_integer(p) && json_integer_value(p))
            fx_buf_printf(&b, "%lld;", (long long)json_integer_value(p));
        else
            fx_buf_puts(&b, "-;");
    }
    json_decref(arr);
    return fx_buf_take(&b);
}

FX_TEST(decision_rows_are_read_as_jansson_reads_them) /* through the view of schema 7 */
{
    static const char *const texts[] = {
        "[]",
        " [ {\"decision\": \"version v1 of `f`\", \"reason\": \"the only one\", \"proof_id\": null} ] ",
        "[{\"decision\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"reason\": \"\\u00e9\\u4e2d\\ud83d\\ude00\","
        " \"proof_id\": 12}, {\"reason\": \"x\", \"decision\": \"y\", \"extra\": [1, {\"a\": []}]}]",
        "[1, \"two\", null, [3], {}, {\"decision\": 5, \"reason\": [\"r\"], \"proof_id\": 1.5}]",
        /* (a key given twice or written with escapes, which flux never writes, is
         * read by SQLite's JSON functions, not jansson's rules) */
        "[{\"reason\": \"only a reason\", \"proof_id\": -3}]",
        "[{\"decision\": \"a real id\", \"proof_id\": 2e3},{\"proof_id\": 9223372036854775807}]",
    };
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), ids[6];
    for (size_t i = 0; i < 6; i++) {
        FxExecution e = sample_exec(version, "fibonacci", "1");
        e.decisions_json = texts[i];
        EXPECT_EQ(fx_store_add_execution(s, &e, &ids[i]), FX_OK);
    }
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    for (size_t i = 0; i < 6; i++) {
        char *got = decision_rows(dir, ids[i]), *want = jansson_rows(texts[i]);
        EXPECT_STR_EQ(got, want);
        free(got);
        free(want);
    }
    /* what jansson refuses is refused before the queue */
    static const char *const bad[] = {
        "{\"decision\": \"not a list\"}", "[{\"reason\": \"\\u0000\"}]",
        "[{\"reason\": \"\\ud800 alone\"}]", "[{\"proof_id\": 99999999999999999999}]", "[1] 2",
    };
    for (size_t i = 0; i < 5; i++) {
        FxExecution e = sample_exec(version, "fibonacci", "1");
        int64_t id = 0;
        e.decisions_json = bad[i];
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_ERR_USAGE);
        json_t *j = json_loads(bad[i], 0, NULL); /* and by the jansson reading */
        EXPECT(!json_is_array(j));
        json_decref(j);
    }
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

FX_TEST(ids_are_unique_across_two_handles)
{
    enum { N = 150 };
    char *dir = make_tmp();
    FxStore *a = open_ok(dir), *b = open_ok(dir);
    int64_t version = setup_fib(a, NULL), ids[2 * N] = {0};
    FxExecution e = sample_exec(version, "fibonacci", "1");
    for (int i = 0; i < N; i++) {
        EXPECT_EQ(fx_store_add_execution(a, &e, &ids[2 * i]), FX_OK);
        EXPECT_EQ(fx_store_add_execution(b, &e, &ids[2 * i + 1]), FX_OK);
        if (i % 10 == 3)
            EXPECT_EQ(fx_store_flush(a), FX_OK);
        if (i % 7 == 5)
            EXPECT_EQ(fx_store_flush(b), FX_OK);
    }
    EXPECT_EQ(fx_store_close(a), FX_OK);
    EXPECT_EQ(fx_store_close(b), FX_OK);
    EXPECT_EQ(count_dups(ids, 2 * N), 0);
    EXPECT(ids[0] > 0);
    EXPECT_EQ(db_int(dir, "SELECT count(DISTINCT id) FROM executions"), 2 * N);
    rm_rf(dir);
    free(dir);
}

FX_TEST(ids_of_one_run_per_process_have_no_gaps)
{
    char *dir = make_tmp();
    int64_t version = 0, ids[4] = {0};
    for (int i = 0; i < 4; i++) {
        FxStore *s = open_ok(dir);
        if (!version)
            version = setup_fib(s, NULL);
        FxExecution e = sample_exec(version, "fibonacci", "1");
        EXPECT_EQ(fx_store_add_execution(s, &e, &ids[i]), FX_OK);
        EXPECT_EQ(fx_store_close(s), FX_OK);
    }
    EXPECT_EQ(ids[0], 1);
    EXPECT_EQ(ids[3], 4);
    rm_rf(dir);
    free(dir);
}

/* Adds and flushes n executions in a new handle; returns 0 when all went well. */
static int record_many(const char *dir, int64_t version, int n, int64_t *ids)
{
    FxStore *s = NULL;
    char why[256];
    int bad = 0;
    if (fx_store_open(dir, &s, why, sizeof(why)) != FX_OK)
        return 1;
    FxExecution e = sample_exec(version, "fibonacci", "1");
    for (int i = 0; i < n; i++) {
        bad |= fx_store_add_execution(s, &e, &ids[i]) != FX_OK;
        if (i % 5 == 4)
            bad |= fx_store_flush(s) != FX_OK;
    }
    bad |= fx_store_close(s) != FX_OK;
    return bad;
}

FX_TEST(ids_are_unique_across_two_processes)
{
    enum { N = 200 };
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), ids[N];
    EXPECT_EQ(fx_store_close(s), FX_OK);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        int rc = record_many(dir, version, N, ids);
        free(dir);
        _exit(rc);
    }
    EXPECT(child > 0);
    EXPECT_EQ(record_many(dir, version, N, ids), 0);
    int status = -1;
    EXPECT_EQ(waitpid(child, &status, 0), child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(db_int(dir, "SELECT count(DISTINCT id) FROM executions"), 2 * N);
    rm_rf(dir);
    free(dir);
}

/* A process of processes_make_a_new_store_at_once: waits on the pipe, then
 * opens the store, makes the lineage and version and records 10 runs. */
static int first_run(const char *dir, int go)
{
    char c, why[512];
    FxStore *s = NULL;
    int64_t lineage = 0, version = 0, id = 0;
    FxVersionInfo v = {.label = "v1", .graph_json = "{}"};
    FxExecution e = sample_exec(0, "fibonacci", "1");
    if (read(go, &c, 1) != 0)
        return 1;
    if (fx_store_open(dir, &s, why, sizeof(why)) != FX_OK) {
        fprintf(stderr, "open: %s\n", why);
        return 2;
    }
    if (fx_store_lineage(s, "fibonacci", "h", "f.flux", FIB_SOURCE, &lineage) != FX_OK ||
        fx_store_version(s, lineage, &v, &version) != FX_OK)
        fprintf(stderr, "lineage or version: %s\n", fx_store_error(s));
    e.version = version;
    for (int i = 0; i < 10 && version; i++)
        if (fx_store_add_execution(s, &e, &id) != FX_OK)
            fprintf(stderr, "add: %s\n", fx_store_error(s));
    if (fx_store_flush(s) != FX_OK)
        fprintf(stderr, "flush: %s\n", fx_store_error(s));
    return fx_store_close(s) == FX_OK && version ? 0 : 3;
}

/* A text of n bytes as a JSON string, "xxx...". Caller frees. */
static char *json_text_of(size_t n)
{
    char *t = fx_xmalloc(n + 3);
    t[0] = '"';
    memset(t + 1, 'x', n);
    t[n + 1] = '"';
    t[n + 2] = '\0';
    return t;
}

FX_TEST(a_transaction_larger_than_the_wal_buffer_is_whole)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), ids[3];
    char *big = json_text_of(3u << 20); /* many times the buffer: sent in parts */
    FxExecution e = sample_exec(version, "fibonacci", big);
    for (int i = 0; i < 3; i++)
        EXPECT_EQ(fx_store_add_execution(s, &e, &ids[i]), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    /* read by another connection, through SQLite's own VFS */
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions WHERE length(output) = 3145730"), 3);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM decisions"), 6);
    char *row = NULL;
    EXPECT_EQ(fx_store_execution(s, ids[2], &row), FX_OK);
    EXPECT(row && strstr(row, big) != NULL);
    free(row);
    FxStatus closed = fx_store_close(s);
    if (closed != FX_OK)
        fprintf(stderr, "close: %s\n", fx_store_error(s));
    EXPECT_EQ(closed, FX_OK);
    free(big);
    rm_rf(dir);
    free(dir);
}

/* The writer of a_killed_writer_loses_nothing_committed: records forever,
 * an execution a flush, of sizes from a few bytes to several pages, and
 * tells each id on `out` once its flush returned. */
static void record_until_killed(const char *dir, int64_t version, int out)
{
    FxStore *s = NULL;
    char why[256];
    if (fx_store_open(dir, &s, why, sizeof(why)) != FX_OK)
        _exit(2);
    for (unsigned i = 0;; i++) {
        char *text = json_text_of((i * 7919u) % 20000u);
        FxExecution e = sample_exec(version, "fibonacci", text);
        int64_t id = 0;
        if (fx_store_add_execution(s, &e, &id) != FX_OK || fx_store_flush(s) != FX_OK)
            _exit(3);
        free(text);
        if (write(out, &id, sizeof(id)) != (ssize_t)sizeof(id))
            _exit(4);
    }
}

FX_TEST(a_killed_writer_loses_nothing_committed)
{
    enum { ROUNDS = 8, MAX_IDS = 1 << 16 };
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    int64_t *told = fx_xmalloc(MAX_IDS * sizeof(*told));
    size_t n_told = 0;
    srand((unsigned)time(NULL));
    for (int round = 0; round < ROUNDS; round++) {
        int pipe_fd[2];
        EXPECT_EQ(pipe(pipe_fd), 0);
        fflush(NULL);
        pid_t child = fork();
        if (child == 0) {
            close(pipe_fd[0]);
            record_until_killed(dir, version, pipe_fd[1]);
        }
        close(pipe_fd[1]);
        /* killed after a few flushes, at a moment anywhere in the next one */
        int64_t id;
        for (int k = 0; k < 5 + round * 5 && read(pipe_fd[0], &id, sizeof(id)) == sizeof(id); k++)
            told[n_told++] = id;
        struct timespec nap = {0, (long)(rand() % 400) * 1000L};
        nanosleep(&nap, NULL);
        kill(child, SIGKILL);
        int status = 0;
        EXPECT_EQ(waitpid(child, &status, 0), child);
        EXPECT(WIFSIGNALED(status));
        while (n_told < MAX_IDS && read(pipe_fd[0], &id, sizeof(id)) == sizeof(id))
            told[n_told++] = id;
        close(pipe_fd[0]);
    }
    /* the next reader moves what the killed writers appended into the database */
    s = open_ok(dir);
    EXPECT(shown(s) > 0);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char *path = fx_xasprintf("%s/flux.db", dir);
    EXPECT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    EXPECT(sqlite3_step(st) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "ok"));
    sqlite3_finalize(st);
    EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM executions WHERE id = ?1", -1, &st, NULL),
              SQLITE_OK);
    size_t missing = 0;
    for (size_t i = 0; i < n_told; i++) {
        sqlite3_bind_int64(st, 1, told[i]);
        missing += sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 1;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    EXPECT_EQ(missing, (size_t)0);
    EXPECT(n_told >= (size_t)ROUNDS * 5);
    /* and the store takes the next run */
    int64_t ids[5];
    EXPECT_EQ(record_many(dir, version, 5, ids), 0);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"),
              db_int(dir, "SELECT count(*) FROM decisions") / 2);
    free(path);
    free(told);
    rm_rf(dir);
    free(dir);
}

static sqlite3 *open_wal_db(const char *path, const char *vfs)
{
    sqlite3 *db = NULL;
    EXPECT_EQ(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL), SQLITE_OK);
    return db;
}

static void sql_ok(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", sql, err);
    EXPECT(err == NULL);
    sqlite3_free(err);
}

/* Frames a transaction wrote to the WAL before it rolled back (a cache
 * spill) are never written over another connection's commit: the VFS
 * drops what it holds of them when the write lock goes. */
FX_TEST(a_rolled_back_transaction_leaves_other_commits_whole)
{
    char *dir = make_tmp(), *path = fx_xasprintf("%s/t.db", dir);
    sqlite3 *ours = open_wal_db(path, fx_walvfs_name()), *other = open_wal_db(path, NULL);
    sql_ok(ours, "PRAGMA cache_size = 2; CREATE TABLE t(x)");
    for (int round = 0; round < 3; round++) {
        /* spilled: frames written while the transaction is open, then undone */
        sql_ok(ours, "BEGIN; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                     " WHERE i < 40) INSERT INTO t SELECT randomblob(900) FROM n; ROLLBACK");
        sql_ok(other, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                      " WHERE i < 30) INSERT INTO t SELECT randomblob(100) FROM n");
        sql_ok(ours, "INSERT INTO t VALUES (1)");
    }
    sqlite3 *fresh = open_wal_db(path, NULL); /* reads the file, not a page cache */
    sqlite3_stmt *st = NULL;
    EXPECT_EQ(sqlite3_prepare_v2(fresh, "SELECT (SELECT count(*) FROM t), "
                                        "(SELECT integrity_check FROM pragma_integrity_check)",
                                 -1, &st, NULL),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 3 * 31);
    EXPECT_STR_EQ((const char *)sqlite3_column_text(st, 1), "ok");
    sqlite3_finalize(st);
    sqlite3_close(fresh);
    sqlite3_close(other);
    sqlite3_close(ours);
    rm_rf(dir);
    free(path);
    free(dir);
}

FX_TEST(processes_make_a_new_store_at_once)
{
    enum { ROUNDS = 5, PROCS = 8 };
    for (int round = 0; round < ROUNDS; round++) {
        char *tmp = make_tmp(), *dir = fx_xasprintf("%s/store", tmp);
        int go[2];
        pid_t kids[PROCS];
        EXPECT_EQ(pipe(go), 0);
        fflush(NULL);
        for (int k = 0; k < PROCS; k++) {
            kids[k] = fork();
            if (kids[k] == 0) {
                close(go[1]);
                int rc = first_run(dir, go[0]);
                free(dir);
                free(tmp);
                _exit(rc);
            }
        }
        close(go[0]);
        close(go[1]); /* all start now */
        for (int k = 0; k < PROCS; k++) {
            int status = -1;
            EXPECT_EQ(waitpid(kids[k], &status, 0), kids[k]);
            EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        EXPECT_EQ(db_int(dir, "SELECT count(DISTINCT id) FROM executions"), 10 * PROCS);
        EXPECT_EQ(db_int(dir, "SELECT count(*) FROM lineages"), 1);
        EXPECT_EQ(db_int(dir, "SELECT count(*) FROM versions"), 1);
        rm_rf(tmp);
        free(dir);
        free(tmp);
    }
}

FX_TEST(a_newer_schema_is_refused)
{
    char *dir = make_tmp();
    db_exec(dir, "PRAGMA user_version = 9");
    FxStore *s = NULL;
    char why[512] = "";
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_ERR_STORE);
    EXPECT(s == NULL);
    char *want = fx_xasprintf("the store at %s has schema version 9, newer than this flux (8); "
                              "use a newer flux or another --store",
                              dir);
    EXPECT_STR_EQ(why, want);
    EXPECT_EQ(db_int(dir, "PRAGMA user_version"), 9); /* left as it was */
    free(want);
    rm_rf(dir);
    free(dir);
}

/* The first release's schema: version 2 without executions.output_bytes
 * and without proposals. */
static const char V1_SCHEMA[] =
        "CREATE TABLE sources (hash TEXT PRIMARY KEY, path TEXT, text TEXT NOT NULL);"
        "CREATE TABLE lineages (id INTEGER PRIMARY KEY, intent TEXT NOT NULL, hash TEXT NOT NULL,"
        " source_hash TEXT REFERENCES sources(hash), created_at TEXT NOT NULL,"
        " UNIQUE (intent, hash));"
        "CREATE TABLE proofs (id INTEGER PRIMARY KEY, obligation TEXT NOT NULL,"
        " result TEXT NOT NULL, solver TEXT, ms REAL, created_at TEXT NOT NULL);"
        "CREATE TABLE versions (id INTEGER PRIMARY KEY,"
        " lineage INTEGER NOT NULL REFERENCES lineages(id), label TEXT NOT NULL,"
        " graph_json TEXT NOT NULL, parent INTEGER REFERENCES versions(id), rewrite TEXT,"
        " proof_id INTEGER REFERENCES proofs(id), evidence TEXT, created_at TEXT NOT NULL,"
        " UNIQUE (lineage, label));"
        "CREATE TABLE executions (id INTEGER PRIMARY KEY,"
        " version INTEGER NOT NULL REFERENCES versions(id), intent TEXT NOT NULL, expr TEXT,"
        " input TEXT, output TEXT, output_hash TEXT, decisions TEXT, hardware TEXT,"
        " duration_ms REAL, optimizations TEXT, proof_ids TEXT, verified TEXT,"
        " recorded_at TEXT NOT NULL);"
        "CREATE INDEX executions_by_intent ON executions(intent, id);"
        "CREATE INDEX executions_by_version ON executions(version);"
        "CREATE TABLE decisions (id INTEGER PRIMARY KEY,"
        " execution INTEGER NOT NULL REFERENCES executions(id), seq INTEGER NOT NULL,"
        " decision TEXT, reason TEXT, proof_id INTEGER);"
        "CREATE INDEX decisions_by_execution ON decisions(execution, seq);"
        "CREATE TABLE node_counts (version INTEGER NOT NULL REFERENCES versions(id),"
        " node INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (version, node))"
        " WITHOUT ROWID;"
        "CREATE TABLE id_blocks (name TEXT PRIMARY KEY, next INTEGER NOT NULL);"
        "INSERT INTO sources VALUES ('s1', 'old.flux', 'intent old');"
        "INSERT INTO lineages VALUES (1, 'fibonacci', 'h-fib', 's1', '2024-01-01T00:00:00.000Z');"
        "INSERT INTO versions VALUES (1, 1, 'v1', '{}', NULL, NULL, NULL, NULL,"
        " '2024-01-01T00:00:00.000Z');"
        "INSERT INTO executions VALUES (7, 1, 'fibonacci', 'fibonacci(3)', '{\"n\": 3}', '2',"
        " 'h', '[]', 'hw', 0.5, '[]', '[]', 'ok', '2024-01-01T00:00:01.000Z');"
        "INSERT INTO node_counts VALUES (1, 0, 4);"
        "INSERT INTO id_blocks VALUES ('executions', 65);"
        "PRAGMA user_version = 1;";

FX_TEST(a_version_1_store_is_migrated)
{
    char *dir = make_tmp();
    db_exec(dir, V1_SCHEMA);
    FxStore *s = open_ok(dir);
    EXPECT_EQ(db_int(dir, "PRAGMA user_version"), 8);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM sqlite_master WHERE name = 'proposals'"), 1);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM sqlite_master WHERE name = 'rounds'"), 1);
    EXPECT_EQ(db_int(dir, "SELECT ns FROM node_counts WHERE version = 1 AND node = 0"), 0);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM sqlite_master WHERE name = 'cost_models'"), 1);
    char *row = NULL;
    EXPECT_EQ(fx_store_execution(s, 7, &row), FX_OK);
    EXPECT(has(row, "{\"execution_id\": \"exec_7\", \"intent\": \"fibonacci\", \"graph_version\": "
                    "\"v1\", \"input\": {\"n\": 3}, \"output\": 2, \"decision_tree\": [], "
                    "\"hardware\": \"hw\", \"duration_ms\": 0.5, \"optimizations_applied\": [], "
                    "\"proof_ids\": [], \"verified\": \"ok\", \"expr\": \"fibonacci(3)\", "
                    "\"recorded_at\": \"2024-01-01T00:00:01.000Z\", \"lineage\": 1, "
                    "\"output_bytes\": null, \"kernels\": null}"));
    free(row);
    int64_t id = 0, lineage = 0, version = setup_fib(s, &lineage);
    EXPECT_EQ(lineage, 1); /* the old lineage, found again */
    EXPECT_EQ(version, 1);
    FxExecution e = sample_exec(version, "fibonacci", "5");
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(id, 65); /* the next id of the old id_blocks */
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    EXPECT_EQ(fx_store_execution(s, id, &row), FX_OK);
    EXPECT(has(row, "\"output_bytes\": 1, \"kernels\": null}"));
    free(row);
    char *path = NULL, *src = NULL;
    EXPECT_EQ(fx_store_execution_source(s, 7, &path, &src), FX_OK);
    EXPECT_STR_EQ(path, "old.flux");
    EXPECT_STR_EQ(src, "intent old");
    free(path);
    free(src);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    s = open_ok(dir); /* migrated once: reopening changes nothing */
    EXPECT_EQ(fx_store_close(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 2);
    EXPECT_EQ(db_int(dir, "PRAGMA page_size"), 4096); /* an older store keeps its pages */
    rm_rf(dir);
    free(dir);
}

FX_TEST(a_file_that_is_not_a_database_is_refused)
{
    char *dir = make_tmp();
    char *db = fx_xasprintf("%s/flux.db", dir);
    FILE *f = fopen(db, "w");
    EXPECT(f != NULL);
    for (int i = 0; f && i < 200; i++)
        fputs("this is not a database\n", f);
    if (f)
        fclose(f);
    FxStore *s = NULL;
    char why[512] = "";
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_ERR_STORE);
    EXPECT(s == NULL);
    char *want = fx_xasprintf("%s is not a SQLite database (file is not a database)", db);
    EXPECT(has(why, want));
    free(want);
    rm_rf(dir);
    free(db);
    free(dir);
}

FX_TEST(another_sqlite_database_is_refused)
{
    char *dir = make_tmp();
    db_exec(dir, "CREATE TABLE t (x)");
    FxStore *s = NULL;
    char why[512] = "";
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_ERR_STORE);
    EXPECT(has(why, "not a flux store"));
    rm_rf(dir);
    free(dir);
}

FX_TEST(the_source_of_an_execution_is_kept)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0, bare_l = 0, bare_v = 0;
    FxExecution e = sample_exec(version, "fibonacci", "1");
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    char *path = NULL, *src = NULL;
    EXPECT_EQ(fx_store_execution_source(s, id, &path, &src), FX_OK);
    EXPECT_STR_EQ(path, "examples/fib.flux");
    EXPECT_STR_EQ(src, FIB_SOURCE);
    free(path);
    free(src);
    EXPECT_EQ(fx_store_execution_source(s, id + 1000, &path, &src), FX_ERR_USAGE);
    EXPECT(path == NULL && src == NULL);

    FxVersionInfo v = {.label = "v1", .graph_json = "{}"};
    EXPECT_EQ(fx_store_lineage(s, "bare", "h-bare", NULL, NULL, &bare_l), FX_OK);
    EXPECT_EQ(fx_store_version(s, bare_l, &v, &bare_v), FX_OK);
    e = sample_exec(bare_v, "bare", "1");
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    EXPECT_EQ(fx_store_execution_source(s, id, &path, &src), FX_ERR_USAGE);
    EXPECT(has(fx_store_error(s), "no source kept"));
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

FX_TEST(flushing_is_cheap)
{
    enum { N = 1000, COUNTS = 20 };
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    int64_t version = setup_fib(s, NULL), id = 0;
    uint32_t nodes[COUNTS];
    uint64_t counts[COUNTS];
    for (int i = 0; i < COUNTS; i++) {
        nodes[i] = (uint32_t)i;
        counts[i] = (uint64_t)i + 1;
    }
    FxExecution e = sample_exec(version, "fibonacci", "354224848179261915075");
    e.n_counts = COUNTS;
    e.count_nodes = nodes;
    e.counts = counts;
    double t0 = now_ms();
    for (int i = 0; i < N; i++)
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    double t1 = now_ms();
    EXPECT_EQ(fx_store_flush(s), FX_OK);
    double t2 = now_ms();
    double per = (t2 - t1) / N;
    printf("store: %d executions (%d node counts, 2 decisions each): add %.1f us, flush %.1f us "
           "per execution (flush %.1f ms in all)\n",
           N, COUNTS, (t1 - t0) * 1e3 / N, per * 1e3, t2 - t1);
    EXPECT(per < 1.0);
    Counts c = {{0}, {0}, 0};
    EXPECT_EQ(fx_store_node_counts(s, version, add_count, &c), FX_OK);
    EXPECT_EQ(c.calls, COUNTS);
    EXPECT_EQ(c.by_node[7], 8 * N);
    EXPECT_EQ(c.by_node[19], 20 * N); /* past the first statement's 16 counters */
    EXPECT_EQ(fx_store_close(s), FX_OK);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), N);
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM decisions"), 2 * N);
    rm_rf(dir);
    free(dir);
}

/* A kernel's cost model is kept under its full key, read back exactly
 * after the store is reopened, replaced in place, and a row that holds no
 * model (the database is not ours to trust) reads as none. */
FX_TEST(cost_models_round_trip)
{
    char *dir = make_tmp();
    FxStore *s = open_ok(dir);
    FxCostKey radix = {"sort", "radix", "cpu", "x86_64 2c2t l1d=48K l2=2048K l3=491520K avx2"};
    FxCostKey other = radix;
    other.hardware = "aarch64 8c8t l1d=64K l2=1024K l3=0K neon";
    FxCostParams p = {.v = {1.07, 1.67, 2.2, 2.75}, .n = 4, .observed = 3}, got = {0};
    bool found = true;
    EXPECT_EQ(fx_store_cost_model(s, &radix, &got, &found), FX_OK);
    EXPECT(!found);
    EXPECT_EQ(fx_store_set_cost_model(s, &radix, &p), FX_OK);
    p.v[0] = 0.1 + 0.2; /* not a short decimal: it must come back bit for bit */
    EXPECT_EQ(fx_store_set_cost_model(s, &radix, &p), FX_OK);
    EXPECT_EQ(fx_store_close(s), FX_OK);

    s = open_ok(dir);
    EXPECT_EQ(fx_store_cost_model(s, &radix, &got, &found), FX_OK);
    EXPECT(found && got.n == 4 && got.observed == 3);
    EXPECT(memcmp(got.v, p.v, 4 * sizeof(double)) == 0);
    EXPECT_EQ(fx_store_cost_model(s, &other, &got, &found), FX_OK);
    EXPECT(!found); /* another machine's model is another row */
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM cost_models"), 1);

    FxCostParams bad = {.v = {1.0 / 0.0}, .n = 1};
    EXPECT_EQ(fx_store_set_cost_model(s, &other, &bad), FX_ERR_USAGE);
    bad.n = FX_COST_PARAMS_MAX + 1;
    EXPECT_EQ(fx_store_set_cost_model(s, &other, &bad), FX_ERR_USAGE);
    FxCostKey partial = {"sort", NULL, "cpu", "hw"};
    EXPECT_EQ(fx_store_set_cost_model(s, &partial, &p), FX_ERR_USAGE);
    EXPECT_EQ(fx_store_cost_model(s, &partial, &got, &found), FX_ERR_USAGE);

    db_exec(dir, "UPDATE cost_models SET params = '{\"not\": \"a list\"}'");
    EXPECT_EQ(fx_store_cost_model(s, &radix, &got, &found), FX_OK);
    EXPECT(!found);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    rm_rf(dir);
    free(dir);
}

/* Damage SQLite meets on the way (the store's files stamped as left, so
 * no check at open): the write that meets it fails with how to recover,
 * nothing more is written by that handle, and the next open checks and
 * refuses the store. */
FX_TEST(damage_met_on_the_way_stops_writing)
{
    char *dir = make_tmp();
    char *db = fx_xasprintf("%s/flux.db", dir), *marker = fx_xasprintf("%s/closed", dir);
    FxStore *s = NULL;
    char why[1024] = "";
    int64_t id = 0;
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_OK);
    int64_t version = setup_fib(s, NULL);
    FxExecution e = sample_exec(version, "fibonacci", "55");
    EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_OK);
    EXPECT_EQ(fx_store_close(s), FX_OK);
    db_exec(dir, "PRAGMA wal_checkpoint(TRUNCATE)");
    /* the root page of the learned table, which the next write reads */
    long long root = db_int(dir, "SELECT rootpage FROM sqlite_master WHERE name = 'learned'");
    long long page = db_int(dir, "PRAGMA page_size");
    FILE *f = fopen(db, "r+b");
    EXPECT(f != NULL && root > 1);
    if (f) {
        fseek(f, (long)((root - 1) * page), SEEK_SET);
        for (long long i = 0; i < page; i++)
            fputc(i % 7 ? 0xa5 : 0x03, f);
        fclose(f);
    }
    char *stamp = fx_guard_stamp(dir); /* as if a flux process had left it so */
    fx_guard_mark_closed(dir, stamp, -1);
    free(stamp);
    s = NULL;
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_OK); /* no check: as left */
    if (s) {
        EXPECT_EQ(fx_store_set_learned(s, "k", "key", "", "v", 1), FX_ERR_STORE);
        EXPECT(has(fx_store_error(s), "is corrupt"));
        EXPECT(has(fx_store_error(s), "flux store recover"));
        EXPECT(access(marker, F_OK) != 0); /* the next open checks */
        e.output_json = "89";
        EXPECT_EQ(fx_store_add_execution(s, &e, &id), FX_ERR_STORE); /* nothing more written */
        EXPECT(has(fx_store_error(s), "is corrupt"));
        (void)fx_store_close(s);
    }
    EXPECT_EQ(db_int(dir, "SELECT count(*) FROM executions"), 1);
    s = NULL;
    EXPECT_EQ(fx_store_open(dir, &s, why, sizeof(why)), FX_ERR_STORE);
    EXPECT(has(why, "is corrupt"));
    EXPECT(has(why, "flux store check"));
    rm_rf(dir);
    free(marker);
    free(db);
    free(dir);
}

int main(void)
{
    return fx_test_run();
}
