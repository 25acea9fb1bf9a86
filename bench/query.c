/*
 * query.c: query_users (examples/users.flux) over 10^6 rows, evolved,
 * against SQLite with an index on the column, in one process (issue 7).
 * Both read the same rows; Flux from the CSV (loaded once per run, as a
 * data source is), SQLite from a table with CREATE INDEX. Flux is trained
 * by a run of several queries and a round (the query index), then each
 * query `len(query_users(K))` is timed by the engine against SQLite's
 * `SELECT name, age FROM users WHERE age >= ?` stepped through every row.
 * Best of 5 per K; the counts must agree.
 *
 * usage: query DIR (a scratch folder)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "flux.h"

#define ROWS 1000000

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: query DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/users.csv", argv[1]);
    FILE *f = fopen(path, "w");
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    sqlite3_exec(db, "CREATE TABLE users(name TEXT, age INTEGER); BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *ins;
    sqlite3_prepare_v2(db, "INSERT INTO users VALUES (?, ?)", -1, &ins, NULL);
    fprintf(f, "name,age\n");
    unsigned seed = 7;
    for (int i = 0; i < ROWS; i++) {
        seed = seed * 1103515245u + 12345u;
        int age = (int)((seed >> 16) % 100);
        char name[16];
        snprintf(name, sizeof(name), "u%d", i);
        fprintf(f, "%s,%d\n", name, age);
        sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(ins, 2, age);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    fclose(f);
    sqlite3_finalize(ins);
    sqlite3_exec(db, "COMMIT; CREATE INDEX by_age ON users(age)", NULL, NULL, NULL);
    snprintf(path, sizeof(path), "%s/users.flux", argv[1]);
    f = fopen(path, "w");
    fputs("type User = { name: String, age: Int }\ndata users: List[User] from \"users.csv\"\n\n"
          "intent query_users(age_min: Int) -> List[User]:\n    constraints:\n"
          "        - result contains all users where user.age >= age_min\n", f);
    fclose(f);
    char store_dir[4096];
    snprintf(store_dir, sizeof(store_dir), "%s/store", argv[1]);
    FluxProgram *prog;
    FluxStore *store;
    if (flux_program_load(path, NULL, stderr, &prog) != FLUX_OK ||
        flux_store_open(store_dir, stderr, &store) != FLUX_OK)
        return 1;
    flux_program_use_store(prog, store, 0);
    FluxRunOptions opts = {0};
    FluxResult r;
    if (flux_run(prog, "sum(len(query_users(a)) for a in 95..100)", &opts, stderr, &r))
        return 1;
    flux_result_free(&r);
    flux_store_flush(store, stderr);
    flux_optimize(prog, store, NULL, stdout, stderr);
    flux_program_use_store(prog, store, 0);
    sqlite3_stmt *q;
    sqlite3_prepare_v2(db, "SELECT name, age FROM users WHERE age >= ?", -1, &q, NULL);
    static const int ks[] = {99, 90, 50};
    int bad = 0;
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
        char expr[64];
        snprintf(expr, sizeof(expr), "len(query_users(%d))", ks[i]);
        double fbest = 1e300, sbest = 1e300;
        long fcount = -1, scount = 0;
        for (int rep = 0; rep < 6; rep++) {
            FluxRunOptions o = {.no_learn = 1};
            if (flux_run(prog, expr, &o, stderr, &r) != FLUX_OK)
                return 1;
            if (rep > 0 && r.duration_ms < fbest) /* run 0 loads the CSV and builds the index */
                fbest = r.duration_ms;
            fcount = atol(r.text);
            flux_result_free(&r);
            double t0 = now_ms();
            sqlite3_bind_int(q, 1, ks[i]);
            scount = 0;
            while (sqlite3_step(q) == SQLITE_ROW) {
                (void)sqlite3_column_text(q, 0);
                scount++;
            }
            sqlite3_reset(q);
            double t = now_ms() - t0;
            if (t < sbest)
                sbest = t;
        }
        printf("age >= %d (%ld of %d rows): flux %.2f ms, SQLite with an index %.2f ms: %.2fx\n",
               ks[i], fcount, ROWS, fbest, sbest, fbest / sbest);
        bad |= fcount != scount;
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    flux_program_free(prog);
    flux_store_close(store, stderr);
    return bad;
}
