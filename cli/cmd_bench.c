/*
 * cmd_bench.c: `flux bench FILE EXPR [--runs N] [--json] [--store DIR]`.
 *
 * Runs EXPR N times as a user would: each run recorded, each followed by
 * the learning the run would trigger (in this process, so that the next
 * run uses whatever was installed). Prints the evolution curve: run,
 * version, time; then the versions installed and the speed-up from the
 * first run to the best of the last ones. A progress bar goes to stderr
 * when it is a terminal.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux bench FILE EXPR [--runs N] [--json] [--store DIR]\n"
        "\n"
        "Runs EXPR N times (default 20), recording each run and learning after\n"
        "it, and prints the evolution curve: the version and time of each run.\n"
        "\n"
        "  --runs N      how many runs (1 to 100000)\n"
        "  --json        one JSON object: the runs, the versions, the speed-up\n"
        "  --store DIR   the store (default $FLUX_STORE, else ./.flux)\n";

typedef struct Run {
    char version[16];
    double ms;
} Run;

static void progress(int i, int n, const Run *r)
{
    int width = 30, done = (int)((double)i * width / n);
    fprintf(stderr, "\r[%.*s%*s] %d/%d  %s  %.4g ms   ", done,
            "##############################", width - done, "", i, n, r->version, r->ms);
    if (i == n)
        fputc('\n', stderr);
    fflush(stderr);
}

static double best_of_last(const Run *runs, int n)
{
    double best = runs[n - 1].ms;
    for (int i = n - 1; i >= 0 && i >= n - 5; i--)
        if (runs[i].ms < best)
            best = runs[i].ms;
    return best;
}

static void print_curve(const char *expr, const Run *runs, int n, FILE *out)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        lo = fmin(lo, runs[i].ms);
        hi = fmax(hi, runs[i].ms);
    }
    fprintf(out, "%s, %d runs (bar: time, log scale)\n%5s  %-8s %12s\n", expr, n, "run", "version",
            "ms");
    for (int i = 0; i < n; i++) {
        double span = log(hi / lo);
        int len = span > 0 ? 1 + (int)(39 * log(runs[i].ms / lo) / span) : 1;
        fprintf(out, "%5d  %-8s %12.4g  %.*s\n", i + 1, runs[i].version, runs[i].ms, len,
                "########################################");
    }
    fprintf(out, "versions:");
    for (int i = 0; i < n; i++)
        if (i == 0 || strcmp(runs[i].version, runs[i - 1].version))
            fprintf(out, "%s %s from run %d", i ? "," : "", runs[i].version, i + 1);
    fprintf(out, "\nspeed-up: %.4g ms on run 1, %.4g ms at the end (best of the last 5): %.3gx\n",
            runs[0].ms, best_of_last(runs, n), runs[0].ms / best_of_last(runs, n));
}

static void print_json(const char *expr, const Run *runs, int n, FILE *out)
{
    fputs("{\"expr\": \"", out);
    for (const char *p = expr; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', out);
        if ((unsigned char)*p >= 0x20)
            fputc(*p, out);
    }
    fprintf(out, "\", \"runs\": [");
    int converged = 1;
    for (int i = 0; i < n; i++) {
        fprintf(out, "%s{\"run\": %d, \"version\": \"%s\", \"ms\": %.6g}", i ? ", " : "", i + 1,
                runs[i].version, runs[i].ms);
        if (i && strcmp(runs[i].version, runs[i - 1].version))
            converged = i + 1;
    }
    fprintf(out, "], \"final_version\": \"%s\", \"converged_at_run\": %d, \"first_ms\": %.6g, "
                 "\"final_ms\": %.6g, \"speedup\": %.6g}\n",
            runs[n - 1].version, converged, runs[0].ms, best_of_last(runs, n),
            runs[0].ms / best_of_last(runs, n));
}

int fx_cmd_bench(int argc, char **argv)
{
    const char *path = NULL, *expr = NULL, *store_dir = NULL;
    int runs = 20;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--runs")) {
            char *end = NULL;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (!end || *end || v < 1 || v > 100000)
                return fx_cli_usage_error("bench", "--runs needs a number from 1 to 100000");
            runs = (int)v;
            i++;
        } else if (!strcmp(a, "--store")) {
            if (i + 1 >= argc)
                return fx_cli_usage_error("bench", "--store needs a folder");
            store_dir = argv[++i];
        } else if (a[0] == '-' && a[1] == '-') {
            return fx_cli_usage_error("bench", "unknown option `%s`", a);
        } else if (!path) {
            path = a;
        } else if (!expr) {
            expr = a;
        } else {
            return fx_cli_usage_error("bench", "unexpected argument `%s`; quote EXPR", a);
        }
    }
    if (!path || !expr)
        return fx_cli_usage_error("bench", "usage: flux bench FILE EXPR [--runs N]");
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(path, store_dir, &prog, &store);
    if (status != FLUX_OK)
        return status;
    Run *log = calloc((size_t)runs, sizeof(Run));
    bool bar = !json && isatty(2);
    int done = 0;
    for (; done < runs && status == FLUX_OK; done++) {
        flux_program_use_store(prog, store, 0); /* the newest versions, as a new run reads them */
        FluxRunOptions opts = {.want_json = 1};
        FluxResult r;
        status = flux_run(prog, expr, &opts, stderr, &r);
        if (status == FLUX_OK) {
            snprintf(log[done].version, sizeof(log[done].version), "%s",
                     r.version ? r.version : "-");
            log[done].ms = r.duration_ms;
            status = flux_learn(prog, store, flux_last_execution(prog), NULL);
        }
        flux_result_free(&r);
        if (bar && status == FLUX_OK)
            progress(done + 1, runs, &log[done]);
    }
    if (status == FLUX_OK) {
        if (json)
            print_json(expr, log, runs, stdout);
        else
            print_curve(expr, log, runs, stdout);
    }
    free(log);
    return fx_cli_finish(prog, store, status);
}
