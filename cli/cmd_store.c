/*
 * cmd_store.c: the subcommands that read or write the store: `traces`,
 * `history`, `explain`, `replay`, `store check` and `store recover`; and
 * the store options `run` shares.
 *
 * The store is --store DIR, else $FLUX_STORE, else ./.flux (docs/cli.md).
 * An unusable store is exit 4.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

typedef struct Args {
    const char *positional[3];
    int n_positional;
    const char *store, *version;
    const char *format; /* traces: "chrome", or NULL */
    bool json, keep_values, no_learn;
    long last;
    unsigned ranks; /* explain: --ranks N */
    int device;     /* explain: --device */
} Args;

/* Which of the shared options a command takes. */
enum { OPT_LAST = 1, OPT_VERSION = 2, OPT_KEEP = 4, OPT_FORMAT = 8, OPT_CLUSTER = 16 };

/* The options these commands share; returns 0, or the usage exit code. An
 * option the command has no use for is refused, not ignored. */
static int parse_opts(const char *cmd, int argc, char **argv, Args *a, const char *usage,
                      unsigned allowed)
{
    memset(a, 0, sizeof(*a));
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            fputs(usage, stdout);
            return -1;
        } else if (!strcmp(s, "--json")) {
            a->json = true;
        } else if (!strcmp(s, "--keep-values") && (allowed & OPT_KEEP)) {
            a->keep_values = true;
        } else if (!strcmp(s, "--no-learn")) {
            a->no_learn = true; /* explain runs with it; the others run nothing */
        } else if ((!strcmp(s, "--ranks") || !strcmp(s, "--device")) && (allowed & OPT_CLUSTER)) {
            const char *value = has_value ? argv[++i] : NULL;
            int bad = s[2] == 'r' ? fx_cli_ranks(cmd, value, &a->ranks)
                                  : fx_cli_device(cmd, value ? value : "", &a->device);
            if (bad)
                return bad;
        } else if (!strcmp(s, "--quiet")) {
            /* accepted everywhere: nothing here prints progress */
        } else if ((!strcmp(s, "--store") || !strcmp(s, "--version") || !strcmp(s, "--last") ||
                    !strcmp(s, "--format")) &&
                   !has_value) {
            return fx_cli_usage_error(cmd, "%s needs a value", s);
        } else if (!strcmp(s, "--store")) {
            a->store = argv[++i];
        } else if (!strcmp(s, "--version") && (allowed & OPT_VERSION)) {
            a->version = argv[++i];
        } else if (!strcmp(s, "--format") && (allowed & OPT_FORMAT)) {
            if (strcmp(argv[++i], "chrome") != 0)
                return fx_cli_usage_error(cmd, "--format takes chrome (--json: JSON lines)");
            a->format = argv[i];
        } else if (!strcmp(s, "--last") && (allowed & OPT_LAST)) {
            char *end;
            a->last = strtol(argv[++i], &end, 10);
            if (*end || a->last <= 0)
                return fx_cli_usage_error(cmd, "--last needs a positive number");
        } else if (s[0] == '-' && s[1]) {
            return fx_cli_usage_error(cmd, "unknown option `%s`", s);
        } else if (a->n_positional < 3) {
            a->positional[a->n_positional++] = s;
        } else {
            return fx_cli_usage_error(cmd, "unexpected argument `%s`", s);
        }
    }
    return 0;
}

int fx_cmd_traces(int argc, char **argv)
{
    static const char usage[] =
            "usage: flux traces FILE [INTENT] [--last N] [--json | --format chrome] [--store DIR]\n\n"
            "Lists the recorded executions of FILE's intents (or of INTENT), newest first:\n"
            "as a table, or with --json one execution record per line. --format chrome\n"
            "writes them as a Chrome trace event file, for Perfetto or chrome://tracing.\n";
    Args a;
    int rc = parse_opts("traces", argc, argv, &a, usage, OPT_LAST | OPT_FORMAT);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.n_positional < 1 || a.n_positional > 2)
        return fx_cli_usage_error("traces", "usage: flux traces FILE [INTENT]");
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(a.positional[0], a.store, &prog, &store);
    if (status != FLUX_OK)
        return status;
    const char *intent = a.n_positional > 1 ? a.positional[1] : NULL;
    status = a.format ? flux_traces_chrome(store, prog, intent, a.last, stdout, stderr)
                      : flux_traces(store, prog, intent, a.last, a.json, stdout, stderr);
    return fx_cli_finish(prog, store, status);
}

int fx_cmd_history(int argc, char **argv)
{
    static const char usage[] =
            "usage: flux history FILE [INTENT] [--json] [--store DIR]\n\n"
            "The lineage of FILE's intents (or of INTENT): every graph version, the\n"
            "rewrite and proof that made it, the evidence that triggered it, when.\n";
    Args a;
    int rc = parse_opts("history", argc, argv, &a, usage, 0);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.n_positional < 1 || a.n_positional > 2)
        return fx_cli_usage_error("history", "usage: flux history FILE [INTENT]");
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(a.positional[0], a.store, &prog, &store);
    if (status != FLUX_OK)
        return status;
    status = flux_history(store, prog, a.n_positional > 1 ? a.positional[1] : NULL, a.json,
                          stdout, stderr);
    return fx_cli_finish(prog, store, status);
}

int fx_cmd_explain(int argc, char **argv)
{
    static const char usage[] =
            "usage: flux explain FILE EXPR [--json] [--store DIR] [--keep-values]\n"
            "                    [--ranks N] [--device cpu|opencl|mpi]\n\n"
            "Evaluates EXPR, records it, and prints its provenance: the version used and\n"
            "why, the decisions taken, the proofs that cover it, how the result was\n"
            "verified, where it came from, and the device that computes it (for f(...)[k],\n"
            "where on the device element k was computed, and why the parts are independent).\n"
            "--ranks N and --device as for `flux run`.\n";
    Args a;
    int rc = parse_opts("explain", argc, argv, &a, usage, OPT_KEEP | OPT_CLUSTER);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.n_positional != 2)
        return fx_cli_usage_error("explain", "usage: flux explain FILE EXPR");
    int cluster = fx_cli_cluster(a.ranks, a.device, a.positional[0], argc, argv);
    if (cluster >= 0)
        return cluster;
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(a.positional[0], a.store, &prog, &store);
    if (status != FLUX_OK)
        return status;
    flux_program_use_store(prog, store, a.keep_values);
    FluxRunOptions opts = {.no_learn = a.no_learn};
    status = flux_explain(prog, a.positional[1], &opts, a.json, stdout, stderr);
    flux_cluster_stop();
    return fx_cli_finish(prog, store, status);
}

int fx_cmd_replay(int argc, char **argv)
{
    static const char usage[] =
            "usage: flux replay EXEC_ID [--version vN] [--json] [--store DIR]\n\n"
            "Re-runs a recorded execution (exec_12 or 12) on the version it used, or on\n"
            "vN, and compares the result, the path and the time with the record.\n"
            "Exit 0 when the result is the recorded one, 5 when it differs.\n";
    Args a;
    int rc = parse_opts("replay", argc, argv, &a, usage, OPT_VERSION);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.n_positional != 1)
        return fx_cli_usage_error("replay", "usage: flux replay EXEC_ID");
    const char *id_text = a.positional[0];
    if (!strncmp(id_text, "exec_", 5))
        id_text += 5;
    char *end;
    long long id = strtoll(id_text, &end, 10);
    if (*end || id <= 0)
        return fx_cli_usage_error("replay", "`%s` is not an execution id", a.positional[0]);
    FluxStore *store;
    int status = flux_store_open(a.store, stderr, &store);
    if (status != FLUX_OK)
        return status;
    status = flux_replay(store, id, a.version, NULL, a.json, stdout, stderr);
    return fx_cli_finish(NULL, store, status);
}

int fx_cmd_store(int argc, char **argv)
{
    static const char usage[] =
            "usage: flux store check [--store DIR]\n"
            "       flux store recover [--store DIR] NEWDIR\n\n"
            "check: the store's integrity check (PRAGMA integrity_check); exit 4 when it\n"
            "is damaged. recover: a new store in NEWDIR of every row of the store that\n"
            "can be read, table by table. Both only read the store.\n";
    Args a;
    int rc = parse_opts("store", argc, argv, &a, usage, 0);
    if (rc)
        return rc < 0 ? 0 : rc;
    const char *what = a.n_positional > 0 ? a.positional[0] : "";
    if (!strcmp(what, "check") && a.n_positional == 1)
        return flux_store_check(a.store, stdout, stderr);
    if (!strcmp(what, "recover") && a.n_positional == 2)
        return flux_store_recover(a.store, a.positional[1], stdout, stderr);
    return fx_cli_usage_error("store", "usage: flux store check | flux store recover NEWDIR");
}
