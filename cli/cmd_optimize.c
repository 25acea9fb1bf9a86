/*
 * cmd_optimize.c: `flux optimize FILE [INTENT] [--explain] [--rule NAME] [--store DIR]`.
 *
 * One round of the living loop for FILE's intents (or INTENT alone): learn
 * from the newest recorded run, propose, prove, install. Prints one line per
 * intent: what was installed or rejected, with the proof's id, or why the
 * current version stays.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux optimize FILE [INTENT] [--explain] [--rule NAME] [--store DIR]\n"
        "\n"
        "Runs one optimization round: each intent's newest recorded run is the\n"
        "evidence; a rewrite that applies is proved equal to the current version\n"
        "and installed as the next one, or recorded as rejected. The rules that\n"
        "apply are tried in the order a learned policy ranks them.\n"
        "\n"
        "  --explain     print the policy's ranking and its reward history\n"
        "  --rule NAME   try that rule alone (a name --explain shows)\n"
        "  --store DIR   the store (default $FLUX_STORE, else ./.flux)\n";

int fx_cmd_optimize(int argc, char **argv)
{
    const char *path = NULL, *intent = NULL, *store_dir = NULL;
    FluxOptimizeOptions opts = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--store")) {
            if (i + 1 >= argc)
                return fx_cli_usage_error("optimize", "--store needs a folder");
            store_dir = argv[++i];
        } else if (!strcmp(a, "--explain")) {
            opts.explain = 1;
        } else if (!strcmp(a, "--rule")) {
            if (i + 1 >= argc)
                return fx_cli_usage_error("optimize", "--rule needs a rule's name");
            opts.rule = argv[++i];
        } else if (a[0] == '-' && a[1] == '-') {
            return fx_cli_usage_error("optimize", "unknown option `%s`", a);
        } else if (!path) {
            path = a;
        } else if (!intent) {
            intent = a;
        } else {
            return fx_cli_usage_error("optimize", "unexpected argument `%s`", a);
        }
    }
    if (!path)
        return fx_cli_usage_error("optimize", "usage: flux optimize FILE [INTENT]");
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(path, store_dir, &prog, &store);
    if (status != FLUX_OK)
        return status;
    flux_program_use_store(prog, store, 0);
    status = flux_optimize_with(prog, store, intent, &opts, stdout, stderr);
    return fx_cli_finish(prog, store, status);
}
