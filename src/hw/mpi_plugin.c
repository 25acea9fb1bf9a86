/*
 * mpi_plugin.c: the MPI plugin, build/libflux_mpi.so: the only code of
 * Flux linked against Open MPI (the Makefile builds it alone, with
 * `pkg-config ompi-c`, and only where that finds Open MPI).
 *
 * It is a thin skin over MPI: initialisation, the end, an abort of the
 * whole job, and messages of bytes between two ranks, started and tested
 * (mpi_plugin.h). Everything else (what the messages hold, who sends what,
 * how long to wait) is the device's (mpi.c) and the cluster jobs'
 * (exec/cluster.c), so that the plugin stays the same whatever jobs are
 * added and its ABI is one small table with a version.
 *
 * Errors return instead of aborting (MPI_ERRORS_RETURN on
 * MPI_COMM_WORLD): a failed message becomes a message for the user, and
 * rank 0 fails the run cleanly. A rank that dies is mpirun's to report: it
 * ends the job (docs/devices.md).
 *
 * A message longer than MPI's int count takes is cut in pieces of 1 GiB,
 * each its own MPI request under the same tag: MPI keeps messages between
 * two ranks under one tag in order, so the pieces arrive in order.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_plugin.h"

#define PIECE ((size_t)1 << 30)

struct FxMpiReq {
    int n;
    MPI_Request reqs[]; /* one a piece */
};

static void mpi_why(int code, const char *what, char *why, size_t why_len)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof(text), "MPI error %d", code);
    snprintf(why, why_len, "%s: %s", what, text);
}

static bool plugin_init(int *rank, int *size, char *library, size_t library_len, char *why,
                        size_t why_len)
{
    int provided = 0, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS) {
        mpi_why(rc, "MPI_Init_thread", why, why_len);
        return false;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(why, why_len, "MPI gives thread level %d, below MPI_THREAD_SERIALIZED",
                 provided);
        return false;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    char name[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(name, &len);
    /* "Open MPI v4.1.4, package: ..., ident: ...": the first clause */
    size_t keep = strcspn(name, ",\n");
    snprintf(library, library_len, "%.*s", (int)keep, name);
    return true;
}

static void plugin_finalize(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done)
        MPI_Finalize();
}

static void plugin_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}

static FxMpiReq *plugin_start(bool send, void *buf, size_t bytes, int peer, int tag, char *why,
                              size_t why_len)
{
    int n = bytes ? (int)((bytes + PIECE - 1) / PIECE) : 1;
    FxMpiReq *r = malloc(sizeof(*r) + (size_t)n * sizeof(MPI_Request));
    if (!r) {
        snprintf(why, why_len, "no memory for an MPI request");
        return NULL;
    }
    r->n = n;
    for (int i = 0; i < n; i++) {
        size_t at = (size_t)i * PIECE, len = bytes - at < PIECE ? bytes - at : PIECE;
        char *p = (char *)buf + at;
        int rc = send ? MPI_Isend(p, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r->reqs[i])
                      : MPI_Irecv(p, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r->reqs[i]);
        if (rc != MPI_SUCCESS) {
            mpi_why(rc, send ? "MPI_Isend" : "MPI_Irecv", why, why_len);
            for (int k = 0; k < i; k++) {
                MPI_Cancel(&r->reqs[k]);
                MPI_Request_free(&r->reqs[k]);
            }
            free(r);
            return NULL;
        }
    }
    return r;
}

static int plugin_test(FxMpiReq *r, char *why, size_t why_len)
{
    int done = 0, rc = MPI_Testall(r->n, r->reqs, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        mpi_why(rc, "MPI_Testall", why, why_len);
        free(r);
        return -1;
    }
    if (!done)
        return 0;
    free(r);
    return 1;
}

static const FxMpiPlugin plugin = {
    .version = FX_MPI_PLUGIN_VERSION,
    .init = plugin_init,
    .finalize = plugin_finalize,
    .abort = plugin_abort,
    .start = plugin_start,
    .test = plugin_test,
};

const FxMpiPlugin *fx_mpi_plugin(void) __attribute__((visibility("default")));
const FxMpiPlugin *fx_mpi_plugin(void)
{
    return &plugin;
}
