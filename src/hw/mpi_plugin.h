/*
 * mpi_plugin.h: the table the MPI plugin (build/libflux_mpi.so, made from
 * mpi_plugin.c) hands to the MPI device (mpi.c). It is the whole contract
 * between the two: the plugin is the only object linked against Open MPI,
 * so a Flux built where Open MPI is missing, or run outside mpirun, never
 * maps libmpi (docs/devices.md, "MPI").
 *
 * The plugin exports one function, fx_mpi_plugin(), which returns its
 * table; mpi.c refuses a table whose version is not FX_MPI_PLUGIN_VERSION
 * (a plugin from another build). Messages are bytes between two ranks of
 * MPI_COMM_WORLD, started and then tested, never waited for inside the
 * plugin: the caller decides how to wait (mpi.c polls, sleeping while it
 * waits for work, so that an idle rank leaves its core to the others).
 *
 * Threads: MPI is initialised with MPI_THREAD_SERIALIZED; the caller makes
 * sure that one thread at a time calls the table (mpi.c's lock).
 */
#ifndef FX_MPI_PLUGIN_H
#define FX_MPI_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#define FX_MPI_PLUGIN_VERSION 1

/* A message in flight: the plugin's, freed by the test that ends it. */
typedef struct FxMpiReq FxMpiReq;

typedef struct FxMpiPlugin {
    int version; /* FX_MPI_PLUGIN_VERSION */
    /* MPI_Init_thread; this process's rank and the number of ranks, and
     * the library's name ("Open MPI v4.1.4"). False with why. */
    bool (*init)(int *rank, int *size, char *library, size_t library_len, char *why,
                 size_t why_len);
    void (*finalize)(void);
    /* MPI_Abort of the whole job: every rank ends, with this exit code. */
    void (*abort)(int code);
    /* Starts sending (send) or receiving bytes at buf to or from rank
     * peer, under tag (>= 0); a message of any size (the plugin cuts it in
     * pieces MPI's int counts take). NULL with why when MPI refuses. */
    FxMpiReq *(*start)(bool send, void *buf, size_t bytes, int peer, int tag, char *why,
                       size_t why_len);
    /* 1: the message is done (req is freed), 0: not yet, -1: it failed
     * (req is freed; why says how). */
    int (*test)(FxMpiReq *req, char *why, size_t why_len);
} FxMpiPlugin;

/* The one symbol the plugin exports. */
typedef const FxMpiPlugin *(*FxMpiPluginFn)(void);
#define FX_MPI_PLUGIN_SYMBOL "fx_mpi_plugin"

#endif
