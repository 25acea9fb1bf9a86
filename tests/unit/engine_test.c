/*
 * engine_test.c: the embeddable engine of include/flux.h: a program loaded
 * from text, results as JSON, and calls from several threads on one
 * program while a learner installs versions: 4 threads x 100 calls here;
 * `make tsan` runs 8 x 1000 under ThreadSanitizer (FX_ENGINE_THREADS,
 * FX_ENGINE_CALLS).
 */
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flux.h"
#include "fx_test.h"

/* fibonacci learns without the solver (memoization, then a certificate);
 * scaled's simplification is proved by Z3, in the prover's threads. */
static const char fib_source[] = "intent fibonacci(n: Natural) -> Natural:\n"
                                 "    constraints:\n"
                                 "        - fib(0) = 0\n"
                                 "        - fib(1) = 1\n"
                                 "        - fib(n) = fib(n-1) + fib(n-2)\n"
                                 "intent scaled(n: Int) -> Int:\n"
                                 "    constraints:\n"
                                 "        - scaled(n) = n * (2 + 3) + n * (2 + 3)\n";

FX_TEST(a_program_loads_from_text)
{
    FluxProgram *p;
    EXPECT_EQ(flux_program_load_source("fib.flux", fib_source, NULL, NULL, &p), FLUX_OK);
    FluxResult r;
    EXPECT_EQ(flux_run(p, "fibonacci(20)", NULL, NULL, &r), FLUX_OK);
    EXPECT_STR_EQ(r.text, "6765");
    EXPECT(r.json == NULL && r.value_json == NULL); /* not asked for */
    flux_result_free(&r);
    flux_program_free(p);
    /* a rejected text: exit 3, the diagnostic names the file */
    char *buf;
    size_t len;
    FILE *diag = open_memstream(&buf, &len);
    EXPECT_EQ(flux_program_load_source("bad.flux", "intent f(n: Int) -> Int:\n    constraints:\n"
                                       "        - f(n) = nosuch(n)\n", NULL, diag, &p),
              FLUX_ERR_REJECTED);
    fclose(diag);
    EXPECT(p == NULL);
    EXPECT(strstr(buf, "bad.flux:") != NULL);
    free(buf);
}

FX_TEST(results_come_back_as_json)
{
    FluxProgram *p;
    EXPECT_EQ(flux_program_load_source(NULL, fib_source, NULL, NULL, &p), FLUX_OK);
    FluxRunOptions o = {.want_json = 1};
    FluxResult r;
    EXPECT_EQ(flux_run(p, "[fibonacci(20), 2^70]", &o, NULL, &r), FLUX_OK);
    /* the value: exact integers, as JSON */
    EXPECT_STR_EQ(r.value_json, "[6765, 1180591620717411303424]");
    json_t *v = json_loads(r.value_json, JSON_DECODE_INT_AS_REAL, NULL);
    EXPECT(json_is_array(v) && json_array_size(v) == 2);
    json_decref(v);
    /* the record, and its own fields */
    json_t *rec = json_loads(r.json, JSON_DECODE_INT_AS_REAL, NULL);
    EXPECT_STR_EQ(json_string_value(json_object_get(rec, "intent")), "fibonacci");
    json_decref(rec);
    EXPECT_STR_EQ(r.intent, "fibonacci");
    EXPECT_STR_EQ(r.version, "v1");
    EXPECT_STR_EQ(r.rewrites, "");
    flux_result_free(&r);
    /* no intent called: no intent in the fields */
    EXPECT_EQ(flux_run(p, "1 + 2", &o, NULL, &r), FLUX_OK);
    EXPECT_STR_EQ(r.value_json, "3");
    EXPECT(r.intent == NULL && r.json != NULL);
    flux_result_free(&r);
    flux_program_free(p);
}

/* ---- calls from several threads while a learner installs versions ---- */

typedef struct Caller {
    FluxProgram *p;
    FluxLearner *l;
    int calls, wrong, failed, learned; /* learned: calls that ran a version past v1 */
} Caller;

static const char *const expected[] = {"0", "1", "1", "2", "3", "5", "8", "13", "21", "34",
                                       "55", "89", "144", "233", "377", "610", "987", "1597"};

static void *caller(void *arg)
{
    Caller *c = arg;
    for (int i = 0; i < c->calls; i++) {
        int n = 10 + i % 8;
        bool fib = i % 4 != 3;
        char expr[32], want[32];
        snprintf(expr, sizeof(expr), fib ? "fibonacci(%d)" : "scaled(%d)", n);
        snprintf(want, sizeof(want), "%s", fib ? expected[n] : "");
        if (!fib)
            snprintf(want, sizeof(want), "%d", 10 * n);
        FluxResult r;
        FluxRunOptions o = {.want_json = FLUX_JSON_SUMMARY}; /* the record, and its version */
        if (flux_run(c->p, expr, &o, NULL, &r) != FLUX_OK)
            c->failed++;
        else if (strcmp(r.text, want) != 0)
            c->wrong++;
        else if (strcmp(r.version, "v1") != 0)
            c->learned++;
        flux_result_free(&r);
        if (c->l && i % 50 == 49)
            flux_learner_request(c->l, FLUX_LEARN_NOW);
        if (c->l && i == c->calls / 2) /* its second half runs what was learned */
            flux_learner_wait(c->l, NULL);
    }
    return NULL;
}

/* Runs `threads` callers of `calls` each on one program with a store and a
 * learner (thread 0 asks for a round every 50 calls, and waits for one
 * half way); returns the versions
 * the store ended with, of both intents. */
static int stress(int threads, int calls, int *wrong, int *failed, int *learned,
                  unsigned *rounds)
{
    char dir[] = "/tmp/flux-engine-XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    FluxProgram *p;
    FluxStore *s;
    if (flux_program_load_source("fib.flux", fib_source, NULL, stderr, &p) != FLUX_OK ||
        flux_store_open(dir, stderr, &s) != FLUX_OK)
        return -1;
    flux_program_use_store(p, s, 0);
    FluxLearner *l;
    if (flux_learner_start(p, s, stderr, &l) != FLUX_OK)
        return -1;
    pthread_t t[16];
    Caller c[16];
    for (int i = 0; i < threads; i++) {
        c[i] = (Caller){p, i == 0 ? l : NULL, calls, 0, 0, 0};
        pthread_create(&t[i], NULL, caller, &c[i]);
    }
    *wrong = *failed = *learned = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        *wrong += c[i].wrong;
        *failed += c[i].failed;
        *learned += c[i].learned;
    }
    flux_learner_request(l, FLUX_LEARN_NOW);
    *rounds = flux_learner_wait(l, NULL);
    flux_learner_stop(l);
    char *buf;
    size_t len;
    FILE *out = open_memstream(&buf, &len);
    flux_history(s, p, NULL, 1, out, stderr);
    fclose(out);
    int versions = 0;
    for (const char *q = buf; (q = strstr(q, "\"version\": \"v")); q++)
        versions++;
    free(buf);
    flux_store_close(s, stderr);
    flux_program_free(p);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        return -1;
    return versions;
}

FX_TEST(calls_from_threads_while_a_learner_installs_versions)
{
    int wrong, failed, learned;
    unsigned rounds;
    const char *t = getenv("FX_ENGINE_THREADS"), *n = getenv("FX_ENGINE_CALLS");
    int threads = t ? atoi(t) : 4, calls = n ? atoi(n) : 100;
    EXPECT(threads >= 1 && threads <= 16);
    int versions = stress(threads, calls, &wrong, &failed, &learned, &rounds);
    printf("%d threads x %d calls: %d wrong, %d failed, %d on learned versions; %u learning "
           "rounds, %d versions\n", threads, calls, wrong, failed, learned, rounds, versions);
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(failed, 0);
    EXPECT(rounds >= 1);
    EXPECT(learned > 0); /* versions were installed while the calls ran */
    EXPECT(versions >= 4); /* v1 and at least one learned, of each */
}

int main(void)
{
    return fx_test_run();
}
