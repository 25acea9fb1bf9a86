/*
 * cmd_graph.c: `flux graph FILE INTENT [--version vN] [--format F] [--store DIR]`.
 * The versions an optimizer installed live in the store, so it is read.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux graph FILE INTENT [--version vN] [--format text|dot|svg|json]\n"
        "                              [--store DIR]\n"
        "\n"
        "Prints the execution graph of a version of INTENT (default: the current\n"
        "one, the newest in the store): as text for people, dot for Graphviz, SVG\n"
        "drawn by Graphviz, or JSON.\n";

int fx_cmd_graph(int argc, char **argv)
{
    const char *path = NULL, *intent = NULL, *version = NULL, *format = "text", *store_dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--version") || !strcmp(a, "--format") || !strcmp(a, "--store")) {
            if (i + 1 >= argc)
                return fx_cli_usage_error("graph", "%s needs a value", a);
            if (!strcmp(a, "--version"))
                version = argv[++i];
            else if (!strcmp(a, "--store"))
                store_dir = argv[++i];
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
    FluxStore *store;
    int status = fx_cli_open(path, store_dir, &prog, &store);
    if (status != FLUX_OK)
        return status;
    flux_program_use_store(prog, store, 0);
    status = flux_graph(prog, intent, version, format, stdout, stderr);
    return fx_cli_finish(prog, store, status);
}
