/*
 * cluster.c: the MPI device as the API gives it to `flux run` and
 * `flux explain` (flux.h, "the MPI device"; docs/devices.md, "MPI"): the
 * start of the cluster, the workers' loop with the program they load, its
 * end, and the start of mpirun for `--ranks N`.
 *
 * A worker loads FILE without the solver's checks (types only): rank 0
 * checked it, the worker runs only the graphs rank 0 sends it, and a
 * check that asks Z3 would cost every worker seconds. It opens no store:
 * ranks > 0 never write one. It loads the program only when a job needs it
 * (a map), so that a count or a sort costs no load at all.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "exec/cluster.h"
#include "hw/mpi.h"

int flux_cluster_start(int device, FILE *diagnostics, int *role)
{
    char why[320] = "";
    bool warning = false;
    FxClusterMode mode = device == FLUX_DEVICE_CPU   ? FX_CLUSTER_CPU
                         : device == FLUX_DEVICE_MPI ? FX_CLUSTER_FORCE
                                                     : FX_CLUSTER_AUTO;
    FxClusterRole r = fx_cluster_start(mode, why, sizeof(why), &warning);
    *role = r == FX_CLUSTER_SERVE ? FLUX_CLUSTER_SERVE
            : r == FX_CLUSTER_IDLE ? FLUX_CLUSTER_IDLE
                                   : FLUX_CLUSTER_RUN;
    if (r == FX_CLUSTER_ERROR) {
        if (diagnostics && fx_mpi_env_rank() <= 0)
            fprintf(diagnostics, "flux: --device mpi: the MPI device is not there: %s\n", why);
        return fx_mpi_env_size() > 1 ? FLUX_ERR_RUNTIME : FLUX_ERR_USAGE;
    }
    if (warning && diagnostics)
        fprintf(diagnostics, "flux: warning: mpi: %s; rank 0 runs alone\n", why);
    return FLUX_OK;
}

void flux_cluster_stop(void)
{
    fx_cluster_stop();
}

typedef struct Loader {
    const char *path;
    FluxProgram *prog;
    char why[240];
    bool tried;
} Loader;

static const FxProgram *load(void *ctx, char *why, size_t why_len)
{
    Loader *l = ctx;
    if (!l->tried) {
        l->tried = true;
        FluxLoadOptions o = {0};
        o.types_only = 1;
        o.quiet_warnings = 1;
        const char *inside = getenv("FLUX_SOURCES_INSIDE");
        o.sources_inside = inside && *inside && strcmp(inside, "0") != 0;
        if (flux_program_load(l->path, &o, NULL, &l->prog) != FLUX_OK)
            snprintf(l->why, sizeof(l->why), "%s does not load on this rank", l->path);
    }
    if (!l->prog)
        snprintf(why, why_len, "%s", l->why);
    return l->prog ? l->prog->prog : NULL;
}

int flux_cluster_serve(const char *path)
{
    Loader l = {.path = path};
    int code = fx_cluster_serve(load, &l);
    flux_program_free(l.prog);
    return code;
}

int flux_cluster_launch(unsigned ranks, int argc, char *const argv[])
{
    return fx_mpi_launch(ranks, argc, argv);
}
