/*
 * cli.h: the subcommands of the `flux` command. Each parses its own
 * arguments and calls the public API (include/flux.h); none holds logic the
 * library lacks. Each returns the process exit code of cli.md.
 */
#ifndef FX_CLI_H
#define FX_CLI_H

int fx_cmd_check(int argc, char **argv);
int fx_cmd_demo(int argc, char **argv);
int fx_cmd_run(int argc, char **argv);
int fx_cmd_graph(int argc, char **argv);
int fx_cmd_traces(int argc, char **argv);
int fx_cmd_history(int argc, char **argv);
int fx_cmd_explain(int argc, char **argv);
int fx_cmd_replay(int argc, char **argv);
int fx_cmd_store(int argc, char **argv);
int fx_cmd_proofs(int argc, char **argv);
int fx_cmd_optimize(int argc, char **argv);
int fx_cmd_bench(int argc, char **argv);
int fx_cmd_hw(int argc, char **argv);
int fx_cmd_serve(int argc, char **argv);
int fx_cmd_repl(int argc, char **argv);
/* `flux __learn`: not a command of cli.md; the process `run` starts to learn. */
int fx_cmd_learn(int argc, char **argv);

#include "flux.h"

/* Whether commands other than `check` print an accepted program's warnings:
 * the global flag `--warnings`, anywhere on the command line. */
extern int fx_cli_show_warnings;
/* The load options every command but `check` uses (`check` takes their
 * sources_inside: $FLUX_SOURCES_INSIDE, which `--sources-inside` sets). */
FluxLoadOptions fx_cli_load_options(void);

/* Loads FILE and opens the store (DIR, else $FLUX_STORE, else ./.flux);
 * returns an exit code, 0 when both are open. */
int fx_cli_open(const char *path, const char *store_dir, FluxProgram **prog, FluxStore **store);
/* Closes the store and frees the program; the exit code: status, or the
 * store's if closing it failed after a success. */
int fx_cli_finish(FluxProgram *prog, FluxStore *store, int status);

/* `flux serve`'s server (src/web/serve.h, linked into the flux binary): serves
 * progs (their files as given) over store until SIGINT or SIGTERM; prints
 * its URL to stdout; returns an exit code. */
int fx_web_serve(FluxProgram **progs, const char **files, size_t n, FluxStore *store,
                 const char *bind, unsigned port, const char *token);

/* --ranks N and --device cpu|mpi of `run` and `explain` (docs/devices.md,
 * "MPI"): each parses its value (0, or the usage exit code after the
 * message). fx_cli_cluster then starts mpirun (ranks > 0) or the cluster,
 * before the program loads: it returns -1 when this process goes on to run
 * the program, else the exit code to return at once (mpirun's, or a worker
 * rank's once rank 0 is done). */
int fx_cli_device(const char *cmd, const char *name, int *out);
int fx_cli_ranks(const char *cmd, const char *value, unsigned *out);
int fx_cli_cluster(unsigned ranks, int device, const char *path, int argc, char **argv);

/* Prints "flux: MESSAGE" and the hint to run --help; returns exit code 2. */
int fx_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
