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
int fx_cmd_proofs(int argc, char **argv);
int fx_cmd_optimize(int argc, char **argv);

/* Prints "flux: MESSAGE" and the hint to run --help; returns exit code 2. */
int fx_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
