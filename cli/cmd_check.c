/*
 * cmd_check.c: `flux check FILE [--describe] [--smt-timeout MS]`.
 *
 * Prints nothing but warnings when the program is accepted (exit 0), the
 * diagnostics when it is rejected (exit 3). --describe adds a summary of
 * what Flux understood: constructions and property verdicts.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux check FILE [--describe] [--smt-timeout MS]\n"
        "\n"
        "Parses FILE, checks names and types, checks that no two equations\n"
        "contradict, and proves or refutes each declared property with Z3.\n"
        "Prints only warnings when FILE is accepted.\n"
        "\n"
        "  --describe        also print how each intent's result is built and\n"
        "                    the verdict on each property\n"
        "  --smt-timeout MS  time limit of each solver query (default 2000)\n";

int fx_cmd_check(int argc, char **argv)
{
    const char *path = NULL;
    bool describe = false;
    FluxLoadOptions opts = {0};
    opts.sources_inside = fx_cli_load_options().sources_inside;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--describe")) {
            describe = true;
        } else if (!strcmp(argv[i], "--smt-timeout") && i + 1 == argc) {
            return fx_cli_usage_error("check", "--smt-timeout needs a number of milliseconds");
        } else if (!strcmp(argv[i], "--smt-timeout")) {
            char *end;
            long ms = strtol(argv[++i], &end, 10);
            if (*end || ms <= 0 || ms > 600000)
                return fx_cli_usage_error("check", "--smt-timeout takes milliseconds, 1 to "
                                                   "600000");
            opts.smt_timeout_ms = (unsigned)ms;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return fx_cli_usage_error("check", "unknown option `%s`", argv[i]);
        } else if (path) {
            return fx_cli_usage_error("check", "one FILE at a time");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return fx_cli_usage_error("check", "missing FILE");
    FluxProgram *prog;
    int status = flux_program_load(path, &opts, stderr, &prog);
    if (status != FLUX_OK)
        return status;
    if (describe)
        flux_program_describe(prog, stdout);
    flux_program_free(prog);
    return 0;
}
