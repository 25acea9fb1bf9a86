/*
 * mpi.h: the MPI device: the ranks of a job that mpirun started, as one
 * device behind the device seam (device.h: FX_DEVICE_MPI, name "mpi",
 * units = ranks), and the messages its jobs are made of.
 *
 * Open MPI is reached only through the plugin (mpi_plugin.h), opened with
 * dlopen when MPI is started, so that a process outside mpirun never maps
 * libmpi and pays nothing for it (docs/devices.md, "MPI"). The device's
 * probe reads the environment mpirun gives its processes and starts
 * nothing; fx_mpi_start initialises MPI (0.1 to 0.5 s), and only `flux run`
 * and `flux explain` call it, when they run under mpirun.
 *
 *   if (fx_mpi_start(false, why, sizeof(why))) {    // under mpirun -np 2
 *       if (fx_mpi_rank() == 0) fx_mpi_send(1, TAG, &job, sizeof(job), why, n);
 *       else fx_mpi_recv(0, TAG, &job, sizeof(job), true, why, n);
 *   }
 *   fx_mpi_stop();
 *
 * What the messages hold, and who sends what when, is the cluster's
 * (exec/cluster.h): this file moves bytes and knows nothing of Flux values.
 * The C-task launch of the device seam does not apply to ranks (a C
 * function pointer means nothing in another process): the device's
 * launch runs the tasks on this rank's CPU, and kernels that split across
 * ranks call the cluster's jobs instead.
 *
 * Threads: MPI runs at MPI_THREAD_SERIALIZED, and every function here that
 * moves bytes must be called by one thread at a time (the cluster's lock
 * does that); the others may be called from any thread.
 */
#ifndef FX_MPI_H
#define FX_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The number of ranks mpirun says this process is one of
 * (OMPI_COMM_WORLD_SIZE), and this one's (OMPI_COMM_WORLD_RANK); 0 and -1
 * outside mpirun. Reads the environment only. */
unsigned fx_mpi_env_size(void);
int fx_mpi_env_rank(void);

/* The plugin's path, found next to the executable or the library that
 * holds this code (or $FLUX_MPI_PLUGIN); false with why when there is none
 * (this Flux was built without Open MPI). */
bool fx_mpi_plugin_path(char *out, size_t len, char *why, size_t why_len);

/* Opens the plugin and initialises MPI, once: with force false only under
 * mpirun with more than one rank. False with why (no plugin, MPI refused,
 * a single rank). After a success, fx_mpi_stop must be called before the
 * process ends (the cluster's atexit does). */
bool fx_mpi_start(bool force, char *why, size_t why_len);
/* Is MPI started (and not stopped)? */
bool fx_mpi_running(void);
int fx_mpi_rank(void);
int fx_mpi_size(void);
/* "Open MPI v4.1.4", once started. */
const char *fx_mpi_library(void);
/* Threads each rank of this node may use: the pool's (one a core) over the
 * ranks mpirun put on the node (OMPI_COMM_WORLD_LOCAL_SIZE), at least 1. */
unsigned fx_mpi_threads(void);
/* MPI_Finalize; nothing when not started. Idempotent. */
void fx_mpi_stop(void);
/* Ends every rank of the job with code (MPI_Abort); returns only when MPI
 * is not started. */
void fx_mpi_abort(int code);

/* A message in flight (a send or a receive of bytes). */
typedef struct FxMpiMsg FxMpiMsg;
/* Starts sending or receiving bytes to or from rank peer under tag; the
 * buffer must stay until the message is done. NULL with why. */
FxMpiMsg *fx_mpi_isend(int peer, int tag, const void *buf, size_t bytes, char *why,
                       size_t why_len);
FxMpiMsg *fx_mpi_irecv(int peer, int tag, void *buf, size_t bytes, char *why, size_t why_len);
/* 1 done (m is freed), 0 not yet, -1 failed (m is freed, why). */
int fx_mpi_test(FxMpiMsg *m, char *why, size_t why_len);
/* Waits until m is done (m is freed): true, or false with why. idle: the
 * other side may take long (it computes, or no job has come), so the wait
 * sleeps between looks, from 20 us up to 1 ms, and leaves the core to the
 * ranks that work; otherwise it only yields (a transfer in progress, which
 * moves only while MPI is called). */
bool fx_mpi_wait(FxMpiMsg *m, bool idle, char *why, size_t why_len);
/* Blocking forms: start, then wait. */
bool fx_mpi_send(int peer, int tag, const void *buf, size_t bytes, char *why, size_t why_len);
bool fx_mpi_recv(int peer, int tag, void *buf, size_t bytes, bool idle, char *why,
                 size_t why_len);

/* `flux run --ranks N`: runs argv (this program's arguments without
 * --ranks) under `mpirun -np ranks` with the flags and environment this
 * machine needs (as root OMPI_ALLOW_RUN_AS_ROOT=1 and its confirmation,
 * --oversubscribe past the cores, shared memory between the ranks of one
 * node), waits for it and returns the exit code for the user: rank 0's, or
 * 1 with a message on stderr naming the rank when one died. mpirun's own
 * reports of a rank's failure are replaced by that message; everything
 * else the ranks print passes through. */
int fx_mpi_launch(unsigned ranks, int argc, char *const argv[]);

#endif
