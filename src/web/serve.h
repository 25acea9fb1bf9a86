/*
 * serve.h: `flux serve`, the web interface: an HTTP server (libmicrohttpd)
 * of a JSON API over the store and a page that shows it (serve.c, api.c).
 * It is built on the public API (flux.h) alone, into the `flux` binary and
 * not into libflux, so that an embedding program does not link a server.
 */
#ifndef FX_WEB_SERVE_H
#define FX_WEB_SERVE_H

#include <stddef.h>
#include <stdio.h>

#include "flux.h"

typedef struct FxServeConfig {
    FluxProgram **programs; /* the programs shown, each using store */
    const char **files;     /* their files, as given */
    size_t n_programs;
    FluxStore *store;
    const char *bind;  /* an IPv4 or IPv6 address; NULL: 127.0.0.1 */
    unsigned port;     /* 0: any free port (the one taken is printed) */
    const char *token; /* NULL: none on loopback, a random one elsewhere */
} FxServeConfig;

/* Serves until SIGINT or SIGTERM; prints the URL to out when listening.
 * Returns a flux exit status (FLUX_ERR_USAGE for a bad address or a port
 * in use, with the reason on diagnostics). */
int fx_serve(const FxServeConfig *cfg, FILE *out, FILE *diagnostics);

/* fx_serve for the command line (cli/cli.h declares it too: the CLI reaches
 * the library through flux.h alone), on stdout and stderr. */
int fx_web_serve(FluxProgram **progs, const char **files, size_t n, FluxStore *store,
                 const char *bind, unsigned port, const char *token);

/* ---- the JSON API (api.c), called one at a time ---- */

/* An answer: an HTTP status and its body (malloc'd), JSON unless type says. */
typedef struct FxWebAnswer {
    unsigned status;
    char *body;
    size_t len;
    const char *type; /* NULL: application/json */
} FxWebAnswer;

/* The query's argument `name`, or NULL. */
typedef const char *(*FxWebArg)(void *ctx, const char *name);

/* Answers GET path (under /api/) with the query's arguments. */
FxWebAnswer fx_web_api(const FxServeConfig *cfg, const char *path, FxWebArg arg, void *ctx);
/* Answers POST /api/replay?id=N[&version=vN]: the execution run again
 * (at most 10 s) and compared with its record. It reads the store through
 * a connection of its own (flux_replay), so it is called off the lock the
 * other answers take, one replay at a time. */
FxWebAnswer fx_web_replay(const FxServeConfig *cfg, FxWebArg arg, void *ctx);
/* A JSON error answer: {"error": {"status": S, "message": M}}. */
FxWebAnswer fx_web_error(unsigned status, const char *message);
/* The newest execution id of the store among cfg's programs (0: none),
 * and the executions newer than `after` as JSON lines, oldest first,
 * at most `limit` (caller frees; NULL when none). */
long long fx_web_newest(const FxServeConfig *cfg);
char *fx_web_since(const FxServeConfig *cfg, long long after, long limit, long long *newest);

#endif
