/*
 * main.c: `flux SUBCOMMAND ...`: finds the subcommand and hands it argv.
 */
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"check", fx_cmd_check, "parse and check FILE: types, contradictions, properties"},
    {"run", fx_cmd_run, "evaluate EXPR in FILE and print the value"},
    {"explain", fx_cmd_explain, "evaluate EXPR and print its provenance tree"},
    {"traces", fx_cmd_traces, "list recorded executions"},
    {"history", fx_cmd_history, "list the versions of each intent's lineage"},
    {"replay", fx_cmd_replay, "re-run a recorded execution and compare"},
    {"optimize", fx_cmd_optimize, "learn from recorded runs; prove and install a faster version"},
    {"bench", fx_cmd_bench, "run EXPR N times, learning, and print the evolution curve"},
    {"proofs", fx_cmd_proofs, "proofs and proposed rewrites; check a rewrite"},
    {"store", fx_cmd_store, "check a store; recover what is readable of a damaged one"},
    {"graph", fx_cmd_graph, "print the execution graph of an intent"},
    {"hw", fx_cmd_hw, "the hardware profile: cores, caches, NUMA, SIMD, thread pool"},
    {"serve", fx_cmd_serve, "the web interface: graphs, executions, proofs, live"},
    {"repl", fx_cmd_repl, "an interactive session: run expressions, define intents"},
    {"demo", fx_cmd_demo, "the guided tour of the bundled examples"},
};

static void print_help(FILE *out)
{
    fprintf(out, "usage: flux COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n`flux COMMAND --help` describes each. Exit codes: 0 success, 1 run-time "
                 "error,\n2 usage error, 3 program rejected, 4 store unusable, 5 a replay's result\n"
                 "differs from the record.\n"
                 "`check` prints a program's warnings; the other commands print them\n"
                 "only with --warnings (errors always). --sources-inside (any command, or\n"
                 "FLUX_SOURCES_INSIDE=1) refuses data sources outside the program's folder.\n");
}

int fx_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "flux: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry `flux %s%s--help`.\n", cmd ? cmd : "", cmd ? " " : "");
    return 2;
}

int fx_cli_show_warnings;

FluxLoadOptions fx_cli_load_options(void)
{
    FluxLoadOptions o = {0};
    o.quiet_warnings = !fx_cli_show_warnings;
    const char *inside = getenv("FLUX_SOURCES_INSIDE");
    o.sources_inside = inside && *inside && strcmp(inside, "0") != 0;
    return o;
}

int fx_cli_open(const char *path, const char *store_dir, FluxProgram **prog, FluxStore **store)
{
    *prog = NULL;
    *store = NULL;
    FluxLoadOptions o = fx_cli_load_options();
    /* An existing store first, for the verdicts of an unchanged program;
     * a new one once the program loaded, so that a rejected program never
     * makes one. A store that cannot be opened is reported after the
     * program's diagnostics, as when it was opened second. */
    char *why = NULL;
    size_t why_len = 0;
    FILE *held = open_memstream(&why, &why_len);
    int opened = flux_store_open_existing(store_dir, held, store);
    if (held)
        fclose(held);
    int status = flux_program_load_remembered(path, &o, *store, stderr, prog);
    if (status == FLUX_OK && opened != FLUX_OK) {
        fputs(why ? why : "", stderr);
        status = opened;
    } else if (status == FLUX_OK && *store) {
        fputs(why ? why : "", stderr); /* what the open warned of */
    } else if (status == FLUX_OK && !*store) {
        status = flux_store_open(store_dir, stderr, store);
    }
    free(why);
    if (status != FLUX_OK) {
        flux_program_free(*prog);
        flux_store_close(*store, NULL);
        *prog = NULL;
        *store = NULL;
    }
    return status;
}

int fx_cli_finish(FluxProgram *prog, FluxStore *store, int status)
{
    int closed = flux_store_close(store, stderr);
    flux_program_free(prog);
    return status != FLUX_OK ? status : closed;
}

/* A run that builds a list a step (a stencil: a new list of 20,000
 * floats from the old, 200 times) gets blocks past glibc's mmap threshold
 * (128 KiB at first): each is mapped, its pages faulted in, and unmapped
 * at its free, and a freed top of the heap goes back to the kernel only to
 * be faulted in again. Blocks up to 32 MiB come from the heap and up to
 * 32 MiB of freed memory stays with the process: heat's trained run 7%
 * faster, and the peak under `--max-memory` where it was. The library
 * leaves malloc as its host set it. */
static void keep_freed_memory(void)
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 32 << 20);
}

int main(int argc, char **argv)
{
    /* A reader that stops early (`flux run ... | head`) must not kill the
     * run before it is recorded: a write to a closed pipe fails instead. */
    signal(SIGPIPE, SIG_IGN);
    /* past `ulimit -f` a write fails with EFBIG, and the store says it is
     * full (exit 4), instead of the signal killing the run unexplained */
    signal(SIGXFSZ, SIG_IGN);
    keep_freed_memory();
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    /* `--warnings` and `--sources-inside` may come anywhere: take them out
     * before the subcommand reads its arguments. The second is kept in the
     * environment, for the processes a command starts (run's learning). */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--warnings"))
            fx_cli_show_warnings = 1;
        else if (!strcmp(argv[i], "--sources-inside"))
            setenv("FLUX_SOURCES_INSIDE", "1", 1);
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = NULL;
    if (argc < 2) {
        print_help(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_help(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("flux %s\n", flux_version());
        return 0;
    }
    if (!strcmp(cmd, "__learn")) /* run's learning process; not listed */
        return fx_cmd_learn(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    return fx_cli_usage_error(NULL, "unknown command `%s`", cmd);
}
