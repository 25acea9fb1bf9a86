/*
 * cmd_serve.c: `flux serve FILE... [--store DIR] [--port N] [--bind ADDR]
 * [--token TOKEN]`: the web interface of FILE's intents (src/web/serve.h,
 * docs/web.md).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
        "usage: flux serve [FILE...] [--store DIR] [--port N] [--bind ADDR] [--token TOKEN]\n"
        "                  [--sources-anywhere]\n\n"
        "Serves the web interface of FILE's intents (with no FILE: of every program the\n"
        "store records, from the sources it keeps): their graph versions, executions,\n"
        "proofs, live as other processes run them. It listens on 127.0.0.1, port 7878\n"
        "(--port 0: any free port); it prints the URL to open. On another address\n"
        "(--bind, --host) every request needs the access token, printed with the URL\n"
        "(or set by --token). A replay asked from the page runs the program with its data\n"
        "sources confined to its folder (as --sources-inside); --sources-anywhere lifts\n"
        "that for a server of your own programs. Stops on Ctrl-C.\n";

/* The programs of a store's sources, loaded as they were recorded. */
typedef struct Kept {
    FluxProgram *progs[64];
    const char *files[64];
    char *texts[64];
    size_t n;
    FluxStore *store;
} Kept;

/* Copied: the store is busy while it calls back, so they load after. */
static void keep_source(void *ctx, const char *path, const char *text)
{
    Kept *k = ctx;
    if (k->n == 64)
        return;
    k->files[k->n] = strdup(path);
    k->texts[k->n++] = strdup(text);
}

/* `flux serve` with no FILE: the programs whose sources the store keeps. */
static int serve_store(const char *store_dir, const char *bind, unsigned port, const char *token)
{
    Kept k = {.n = 0};
    int status = flux_store_open_existing(store_dir, stderr, &k.store);
    if (status == FLUX_OK && !k.store) {
        fprintf(stderr, "flux: no store at %s: run an intent first, or name FILE\n",
                store_dir ? store_dir : getenv("FLUX_STORE") ? getenv("FLUX_STORE") : ".flux");
        return FLUX_ERR_STORE;
    }
    if (status == FLUX_OK)
        status = flux_store_sources(k.store, keep_source, &k, stderr);
    size_t loaded = 0;
    FluxLoadOptions o = fx_cli_load_options();
    for (size_t i = 0; i < k.n; i++) {
        char *file = (char *)k.files[i];
        FluxProgram *prog = NULL;
        k.files[i] = NULL;
        if (status == FLUX_OK &&
            flux_program_load_source(file, k.texts[i], &o, stderr, &prog) == FLUX_OK) {
            flux_program_use_store(prog, k.store, 0);
            k.progs[loaded] = prog;
            k.files[loaded++] = file;
        } else {
            free(file); /* said on stderr; the others are served */
        }
        free(k.texts[i]);
    }
    k.n = loaded;
    if (status == FLUX_OK && k.n == 0) {
        fprintf(stderr, "flux: the store keeps no program to show: name FILE\n");
        status = FLUX_ERR_USAGE;
    }
    if (status == FLUX_OK)
        status = fx_web_serve(k.progs, k.files, k.n, k.store, bind, port, token);
    for (size_t i = 0; i < k.n; i++) {
        flux_program_free(k.progs[i]);
        free((char *)k.files[i]);
    }
    int closed = flux_store_close(k.store, stderr);
    return status != FLUX_OK ? status : closed;
}

int fx_cmd_serve(int argc, char **argv)
{
    const char *store_dir = NULL, *bind = NULL, *token = NULL, *files[64];
    long port = 7878;
    size_t n = 0;
    bool anywhere = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool valued = !strcmp(a, "--store") || !strcmp(a, "--port") || !strcmp(a, "--bind") ||
                      !strcmp(a, "--host") || !strcmp(a, "--token");
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--sources-anywhere")) {
            anywhere = true;
            continue;
        }
        if (valued && i + 1 >= argc)
            return fx_cli_usage_error("serve", "%s needs a value", a);
        if (!strcmp(a, "--store")) {
            store_dir = argv[++i];
        } else if (!strcmp(a, "--bind") || !strcmp(a, "--host")) {
            bind = argv[++i];
        } else if (!strcmp(a, "--token")) {
            token = argv[++i];
            if (strlen(token) < 16 || strlen(token) > 64)
                return fx_cli_usage_error("serve", "a token has 16 to 64 characters");
        } else if (!strcmp(a, "--port")) {
            char *end;
            port = strtol(argv[++i], &end, 10);
            if (!*argv[i] || *end || port < 0 || port > 65535)
                return fx_cli_usage_error("serve", "--port takes a number from 0 to 65535");
        } else if (a[0] == '-' && a[1]) {
            return fx_cli_usage_error("serve", "unknown option %s", a);
        } else if (n == sizeof(files) / sizeof(files[0])) {
            return fx_cli_usage_error("serve", "at most 64 files");
        } else {
            files[n++] = a;
        }
    }
    /* what a page asks to run reads data inside the program's folder only:
     * the server runs code on others' requests (cli/main.c keeps the flag
     * in the environment, where loading and replay read it) */
    if (!anywhere)
        setenv("FLUX_SOURCES_INSIDE", "1", 1);
    if (n == 0)
        return serve_store(store_dir, bind, (unsigned)port, token);
    FluxProgram *progs[64];
    FluxStore *store = NULL;
    int status = FLUX_OK;
    size_t loaded = 0;
    for (; loaded < n && status == FLUX_OK; loaded++) {
        if (loaded == 0) {
            status = fx_cli_open(files[0], store_dir, &progs[0], &store);
            if (status == FLUX_OK)
                flux_program_use_store(progs[0], store, 0);
        } else {
            FluxLoadOptions o = fx_cli_load_options();
            status = flux_program_load(files[loaded], &o, stderr, &progs[loaded]);
            if (status == FLUX_OK)
                flux_program_use_store(progs[loaded], store, 0);
        }
        if (status != FLUX_OK)
            break;
    }
    if (status == FLUX_OK) {
        status = fx_web_serve(progs, files, n, store, bind, (unsigned)port, token);
    }
    for (size_t i = 1; i < loaded; i++)
        flux_program_free(progs[i]);
    return loaded ? fx_cli_finish(progs[0], store, status) : status;
}
