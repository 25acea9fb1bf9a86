/*
 * cluster.h: kernels split across the ranks of the MPI device (hw/mpi.h):
 * the jobs rank 0 hands out, and the loop the other ranks serve them in.
 *
 * Under `mpirun -np N flux run FILE EXPR` every rank starts the same
 * command. Rank 0 runs the program as a lone `flux run` would (it prints,
 * records, learns); ranks 1..N-1 call fx_cluster_serve and wait for jobs.
 * Only rank 0 decides anything (which call splits, which kernel each part
 * runs), so the ranks cannot disagree. Three kernels split, each combined
 * so that the result is exactly the single process's:
 *
 *   count   a count of the primes of [lo, hi) (the fused sieve fold): one
 *           contiguous segment a rank, the counts summed;
 *   sort    a sort of int64 keys: a sample sort (slices scattered, sorted
 *           by the sort kernels, splitters from samples, buckets exchanged,
 *           gathered in order);
 *   map     `for each x in XS: E` called on a long list, E reading XS only
 *           through x (fx_cluster_map_shape checks it on the graph): one
 *           slice of XS a rank, each running the same graphs, the results
 *           joined in order.
 *
 * Rank 0's VM decides whether a call splits (vm.c, mpi_choice): with
 * --device mpi every call that can; otherwise, from each kernel's floor of
 * work on (below it the messages cost more than a rank saves), where the
 * device cost model (devcost.h: points on the CPU and on these ranks, per
 * intent, in the store) predicts it faster; and never when the cluster
 * already runs a job (a split inside a map's body runs locally). Each
 * split writes its decision ("mpi: 2 ranks (Open MPI v4.1.4), ...") for
 * the record, and keeps where each part was computed (fx_cluster_last) for
 * `flux explain`.
 *
 * Errors: a rank whose part fails answers with the reason, and rank 0
 * fails the call with it (`rank 1: ...`); a rank that dies ends the whole
 * job (mpirun). Rank 0 sends every worker its end (fx_cluster_stop, also
 * run at exit) on every path, so that no worker waits for ever.
 *
 * Threads: one job at a time; a call from another thread while a job runs
 * runs locally. fx_cluster_start, _serve and _stop are for the main thread.
 */
#ifndef FX_CLUSTER_H
#define FX_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/interp.h"
#include "exec/sieve.h"
#include "exec/sortcost.h"
#include "exec/value.h"
#include "graph/graph.h"

/* Where the splittable kernels may run (`--device`). */
typedef enum {
    FX_CLUSTER_AUTO,  /* the MPI device under mpirun, above each kernel's threshold */
    FX_CLUSTER_CPU,   /* this process alone: never split, even under mpirun */
    FX_CLUSTER_FORCE, /* the MPI device for every call that can split; an error without it */
} FxClusterMode;

/* The floors, in each kernel's unit of work, below which a call never
 * splits and the model is not asked (measured on the 2-core build machine,
 * docs/devices.md): a job costs 1 to 3 ms of messages and waits besides
 * the data it moves. */
#define FX_CLUSTER_PRIMES_FROM 1e8                   /* numbers: ~25 ms of sieve on 2 cores */
#define FX_CLUSTER_SORT_FROM ((double)(1 << 22))     /* keys: 32 MiB moved 3 times */
#define FX_CLUSTER_MAP_FROM ((double)(1 << 17))      /* elements: ~10 ms of a small body */

/* What fx_cluster_start tells the process to do. */
typedef enum {
    FX_CLUSTER_RUN,   /* run the program here (rank 0, or no cluster) */
    FX_CLUSTER_SERVE, /* a worker: call fx_cluster_serve */
    FX_CLUSTER_IDLE,  /* a rank > 0 that has nothing to do (--device cpu, or no MPI) */
    FX_CLUSTER_ERROR, /* why says why */
} FxClusterRole;

/* Starts the cluster for this process. AUTO starts MPI only under mpirun
 * with more than one rank; when it cannot (no plugin, MPI refuses) rank 0
 * runs alone, with *warning set to why, and the other ranks are IDLE.
 * FORCE fails (ERROR) where MPI cannot start. CPU starts nothing. */
FxClusterRole fx_cluster_start(FxClusterMode mode, char *why, size_t why_len, bool *warning);
/* Is this rank 0 of a running cluster? With --device mpi (every call that
 * can splits)? */
bool fx_cluster_active(void);
bool fx_cluster_forced(void);
/* "MPI on 2 ranks (Open MPI v4.1.4)": the device, for the model's reasons;
 * "" when no cluster runs. */
const char *fx_cluster_device(void);
/* Ranks 1..N-1: ends MPI; idempotent; also at exit. Rank 0: sends every
 * worker its end first. */
void fx_cluster_stop(void);

/* The worker's loop: serves jobs until rank 0 says done; returns the exit
 * code. load gives the program (FILE, which every rank was started with)
 * the first time a map needs it, or NULL with why. */
typedef const FxProgram *(*FxClusterLoad)(void *ctx, char *why, size_t why_len);
int fx_cluster_serve(FxClusterLoad load, void *ctx);

/* ---- rank 0's splits: each returns one of these ----
 * chosen: the caller's reason to split (the model's prediction, or
 * forced), which ends the decision; NULL: the call runs here. */
typedef enum {
    FX_SPLIT_STOPPED = -2, /* keep_going said stop: the caller's own message stands */
    FX_SPLIT_FAILED = -1,  /* why says why (a rank's error, a message that failed) */
    FX_SPLIT_LOCAL = 0,    /* not split: the caller runs the kernel here */
    FX_SPLIT_DONE = 1,     /* done; why holds the decision for the record */
} FxSplit;

/* The primes of [lo, hi) counted with sieve `kind` (segment bytes as
 * fx_sieve_count takes them), one segment a rank. */
FxSplit fx_cluster_count_primes(FxSieveKind kind, uint64_t lo, uint64_t hi, size_t segment,
                                FxKeepGoing keep_going, void *ctx, const char *chosen,
                                uint64_t *out, char *why, size_t why_len);
/* k[0..n) sorted in place (descending when desc) by a sample sort, each
 * rank's slice on the kernel costs predicts fastest for rank 0's slice. */
FxSplit fx_cluster_sort(const FxSortCosts *costs, int64_t *k, size_t n, bool desc,
                        const char *chosen, char *why, size_t why_len);

/* Is g's result `for each x in XS: E` over its parameter *param (a fold
 * collecting E over the parameter, no filter), with E reading XS only
 * through x and reading no data source or measured choice? Then each
 * element of the result depends only on its own element of XS and the
 * other arguments. False too when no cluster is active: the compiler asks
 * before it emits the split (OP_SPLIT). */
bool fx_cluster_map_shape(const FxGraph *g, uint32_t *param);
/* OP_SPLIT before the map's loop: fn is the function, R its frame, param
 * the list's parameter. On DONE, the other ranks have their slices and
 * *end is where this rank's slice ends (the loop runs [0, *end)); *token
 * is what fx_cluster_map_end needs (UNIT when not split). */
FxSplit fx_cluster_map_begin(FxFunc *fn, const FxValue *R, uint32_t param, const FxBudgets *b,
                             const char *chosen, int64_t *end, FxValue *token, char *why,
                             size_t why_len);
/* OP_SPLIT after it: *io holds this rank's part; on DONE it is replaced by
 * the whole result, the other ranks' parts joined in order. LOCAL when
 * token is UNIT. */
FxSplit fx_cluster_map_end(FxValue token, FxValue *io, char *why, size_t why_len);
/* Ends a job a failed run left (the VM's error path): rank 0 receives what
 * the workers send, so that the next job starts clean. */
void fx_cluster_settle(void);

/* ---- provenance, for explain ---- */

/* The last split this process made. */
typedef struct FxClusterSplit {
    const char *job;     /* "count", "sort" or "map" */
    const char *intent;  /* map: the intent; else NULL */
    const char *list;    /* map: the list parameter's name */
    unsigned ranks;
    uint64_t *lo, *hi;   /* rank r computed [lo[r], hi[r]): numbers (count), positions of
                          * the result (sort, map) */
    int64_t *split;      /* sort: rank r's keys are >= split[r] (r > 0) */
    char library[64];    /* "Open MPI v4.1.4" */
    char why[400];       /* why the parts are independent */
} FxClusterSplit;
/* NULL when none since fx_cluster_forget. Borrowed until the next split. */
const FxClusterSplit *fx_cluster_last(void);
void fx_cluster_forget(void);

#endif
