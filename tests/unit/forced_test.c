/*
 * forced_test.c: forced runs through the public API (FluxRunOptions.version
 * and .variant), as bench/regret uses them: FluxResult.variants lists the
 * variants of the kernels the run reached and .variant names the one its
 * own call took; a forced variant is the one that runs, a forced version
 * too, and nothing forced is recorded.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flux.h"
#include "fx_test.h"

static char dir[] = "/tmp/flux-forced-XXXXXX";

static FluxResult run(FluxProgram *p, const char *expr, const char *version, const char *variant,
                      int *status)
{
    FluxRunOptions o = {.want_json = FLUX_JSON_SUMMARY, .version = version, .variant = variant};
    FluxResult r;
    *status = flux_run(p, expr, &o, NULL, &r);
    return r;
}

FX_TEST(forced_recurrence_variants)
{
    setenv("FLUX_EXPLORE", "off", 1);
    FluxProgram *p;
    FluxStore *s;
    EXPECT(mkdtemp(dir) != NULL);
    EXPECT_EQ(flux_program_load("examples/fibonacci.flux", NULL, stderr, &p), FLUX_OK);
    EXPECT_EQ(flux_store_open(dir, stderr, &s), FLUX_OK);
    flux_program_use_store(p, s, 0);
    int st;
    char expr[64];
    for (int n = 10; n <= 20000; n *= 2) { /* trained up to the matrix power beside the loop */
        snprintf(expr, sizeof(expr), "fibonacci(%d)", n);
        FluxResult r = run(p, expr, NULL, NULL, &st);
        EXPECT_EQ(st, FLUX_OK);
        flux_result_free(&r);
        EXPECT_EQ(flux_learn(p, s, flux_last_execution(p), NULL), FLUX_OK);
        flux_program_use_store(p, s, 0);
    }
    FluxResult own = run(p, "fibonacci(5000)", NULL, NULL, &st);
    EXPECT_EQ(st, FLUX_OK);
    EXPECT_STR_EQ(own.version, "v4");
    EXPECT_STR_EQ(own.variants, "loop, power");
    long long last = flux_last_execution(p); /* recorded; the forced runs are not */
    static const char *const names[] = {"loop", "power"};
    for (int i = 0; i < 2; i++) {
        FluxResult r = run(p, "fibonacci(5000)", NULL, names[i], &st);
        EXPECT_EQ(st, FLUX_OK);
        EXPECT_STR_EQ(r.variant, names[i]);
        EXPECT_STR_EQ(r.text, own.text);
        EXPECT_EQ(r.execution_id, 0);
        EXPECT(r.json && strstr(r.json, "forced by the caller: n = 5000"));
        flux_result_free(&r);
    }
    FluxResult v3 = run(p, "fibonacci(5000)", "v3", NULL, &st);
    EXPECT_EQ(st, FLUX_OK);
    EXPECT_STR_EQ(v3.version, "v3");
    EXPECT_STR_EQ(v3.variants, ""); /* the loop alone: no choice */
    EXPECT_STR_EQ(v3.text, own.text);
    flux_result_free(&v3);
    FluxResult bad = run(p, "fibonacci(5000)", "v3", "power", &st);
    EXPECT_EQ(st, FLUX_ERR_USAGE);
    flux_result_free(&bad);
    bad = run(p, "fibonacci(5000)", "v99", NULL, &st);
    EXPECT_EQ(st, FLUX_ERR_USAGE);
    flux_result_free(&bad);
    EXPECT_EQ(flux_last_execution(p), last);
    flux_result_free(&own);
    flux_program_free(p);
    EXPECT_EQ(flux_store_close(s, stderr), FLUX_OK);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    EXPECT_EQ(system(cmd), 0);
}

int main(void)
{
    return fx_test_run();
}
