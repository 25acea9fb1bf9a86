/*
 * store_processes_test.c: two processes recording 500 executions each into
 * one store, through the public API: none is lost, every id is unique, and
 * both exit 0.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flux.h"
#include "fx_test.h"

#define RUNS 500

static char dir[] = "/tmp/flux-procs-XXXXXX";

/* One process: 500 runs, each recorded and flushed as `flux run` does. */
static int child(int which)
{
    char path[256], store[256];
    snprintf(path, sizeof(path), "%s/f.flux", dir);
    snprintf(store, sizeof(store), "%s/store", dir);
    FluxProgram *prog;
    FluxStore *st;
    if (flux_program_load(path, NULL, stderr, &prog) != FLUX_OK ||
        flux_store_open(store, stderr, &st) != FLUX_OK)
        return 10;
    flux_program_use_store(prog, st, 0);
    int failures = 0;
    for (int i = 0; i < RUNS; i++) {
        char expr[64];
        snprintf(expr, sizeof(expr), "sq(%d)", which * RUNS + i);
        FluxResult r;
        failures += flux_run(prog, expr, NULL, stderr, &r) != FLUX_OK;
        failures += flux_store_flush(st, stderr) != FLUX_OK;
        failures += r.execution_id <= 0;
        flux_result_free(&r);
    }
    failures += flux_store_close(st, stderr) != FLUX_OK;
    flux_program_free(prog);
    return failures ? 11 : 0;
}

FX_TEST(two_processes_lose_none)
{
    EXPECT(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof(path), "%s/f.flux", dir);
    FILE *f = fopen(path, "w");
    fputs("intent sq(n: Int) -> Int:\n    constraints:\n        - result = n * n\n", f);
    fclose(f);
    pid_t pids[2];
    for (int p = 0; p < 2; p++) {
        pids[p] = fork();
        if (pids[p] == 0)
            _exit(child(p));
    }
    for (int p = 0; p < 2; p++) {
        int status = -1;
        waitpid(pids[p], &status, 0);
        EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    char db_path[256];
    snprintf(db_path, sizeof(db_path), "%s/store/flux.db", dir);
    sqlite3 *db = NULL;
    EXPECT_EQ(sqlite3_open(db_path, &db), SQLITE_OK);
    sqlite3_stmt *q = NULL;
    sqlite3_prepare_v2(db, "select count(*), count(distinct id), count(distinct input) "
                           "from executions", -1, &q, NULL);
    EXPECT_EQ(sqlite3_step(q), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(q, 0), 2 * RUNS);
    EXPECT_EQ(sqlite3_column_int(q, 1), 2 * RUNS);
    EXPECT_EQ(sqlite3_column_int(q, 2), 2 * RUNS);
    sqlite3_finalize(q);
    sqlite3_close(db);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    EXPECT_EQ(system(cmd), 0);
}

int main(void)
{
    return fx_test_run();
}
