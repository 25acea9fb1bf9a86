/*
 * fill.c: records N runs of EXPR of FILE into a store through the public
 * API, in one process (a `flux run` process per run would take minutes for
 * the browser test's 10,000): fill FILE EXPR N STORE.
 */
#include <stdio.h>
#include <stdlib.h>

#include "flux.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: fill FILE EXPR N STORE\n");
        return 2;
    }
    FluxProgram *prog;
    FluxStore *store;
    if (flux_program_load(argv[1], NULL, stderr, &prog) != FLUX_OK ||
        flux_store_open(argv[4], stderr, &store) != FLUX_OK)
        return 1;
    flux_program_use_store(prog, store, 0);
    FluxRunOptions quiet = {.no_learn = 1};
    long n = atol(argv[3]);
    for (long i = 0; i < n; i++) {
        FluxResult r;
        if (flux_run(prog, argv[2], &quiet, stderr, &r) != FLUX_OK ||
            flux_store_flush(store, stderr) != FLUX_OK)
            return 1;
        flux_result_free(&r);
    }
    int status = flux_store_close(store, stderr);
    flux_program_free(prog);
    return status;
}
