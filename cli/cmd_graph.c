/*
 * cmd_graph.c: `flux graph FILE INTENT [--version vN] [--format text|dot|svg|json]`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux graph FILE INTENT [--version vN] [--format text|dot|svg|json]\n"
        "\n"
        "Prints the execution graph of a version of INTENT (default: the current\n"
        "one): as text for people, dot for Graphviz, SVG drawn by Graphviz, or JSON.\n";

int fx_cmd_graph(int argc, char **argv)
{
    const char *path = NULL, *intent = NULL, *version = NULL, *format = "text";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--version") || !strcmp(a, "--format")) {
            if (i + 1 >= argc)
                return fx_cli_usage_error("graph", "%s needs a value", a);
            if (!strcmp(a, "--version"))
                version = argv[++i];
            else
                format = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return fx_cli_usage_error("graph", "unknown option `%s`", a);
        } else if (!path) {
            path = a;
        } else if (!intent) {
            intent = a;
        } else {
            return fx_cli_usage_error("graph", "unexpected argument `%s`", a);
        }
    }
    if (!path || !intent)
        return fx_cli_usage_error("graph", "usage: flux graph FILE INTENT");
    FluxProgram *prog;
    int status = flux_program_load(path, NULL, stderr, &prog);
    if (status != FLUX_OK)
        return status;
    status = flux_graph(prog, intent, version, format, stdout, stderr);
    flux_program_free(prog);
    return status;
}
