/*
 * cmd_run.c: `flux run FILE EXPR [--json] [budgets]`.
 *
 * Prints the value alone on stdout (docs/language.md §10), or with --json
 * the execution record of docs/cli.md. Errors go to stderr with the exit
 * codes of docs/cli.md: 1 run-time, 2 usage or malformed EXPR, 3 rejected
 * program, 4 unusable store.
 */
#define _GNU_SOURCE /* POSIX_SPAWN_SETSID */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux run FILE EXPR|@PATH [--json] [--store DIR] [--keep-values] [--max-steps N]\n"
        "                          [--max-depth N] [--max-memory MB] [--max-seconds S]\n"
        "                          [--version vN] [--variant NAME] [--ranks N]\n"
        "                          [--device cpu|opencl|mpi]\n"
        "\n"
        "Evaluates EXPR, e.g. 'fibonacci(100)', 'find_primes(1000)[10]',\n"
        "'sort([3, 1, 2])', and prints the value. @PATH reads EXPR from the file\n"
        "PATH (@- from stdin), for inputs longer than a command line takes.\n"
        "\n"
        "  --json            print the execution record as one JSON object\n"
        "  --store DIR       record in DIR (default $FLUX_STORE, else ./.flux)\n"
        "  --keep-values     record values larger than 64 KiB whole, not as a summary\n"
        "  --no-learn        run the installed versions exactly: no mid-run memoization,\n"
        "                    no learning round after the run\n"
        "  --verbose         notes on stderr: the version that ran, its time, learning\n"
        "                    (the default when stderr is a terminal; --quiet: never)\n"
        "  --max-steps N     calls, loop iterations and big-number work (default 10^10)\n"
        "  --max-depth N     nested calls (default 10^7)\n"
        "  --max-memory MB   resident memory of the process (default 4096)\n"
        "  --max-seconds S   wall time (default 600)\n"
        "  --version vN      run the intent EXPR calls on its stored version vN, not the\n"
        "                    newest; --variant NAME: every kernel that has the variant\n"
        "                    NAME takes it (loop, power, a sort kernel, a sieve). Forced\n"
        "                    runs (benchmarks, tests) are neither recorded nor learned from\n"
        "  --ranks N         run under `mpirun -np N` (Open MPI), started here: rank 0 runs\n"
        "                    the program, the others compute the parts of the calls it\n"
        "                    splits (a count of primes, a sort of integers, an element-wise\n"
        "                    map); exit 1 naming the rank when one dies (docs/devices.md)\n"
        "  --device D        where calls run: cpu: the host's cores alone, never split\n"
        "                    across ranks; opencl: every call whose parts the OpenCL\n"
        "                    device can run runs there; mpi: every call that can split\n"
        "                    across the ranks does (default: the device cost model's\n"
        "                    choice, per call); the record's `device` decision says\n"
        "                    where and why\n";

static bool number_arg(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* "flux: fibonacci v3 (recursion to iteration), 0.012 ms", from the record. */
static void note_version(const FluxResult *r)
{
    if (r->intent) /* else EXPR called no intent */
        fprintf(stderr, "flux: %s %s%s%s%s, %.3f ms\n", r->intent, r->version,
                r->rewrites[0] ? " (" : "", r->rewrites, r->rewrites[0] ? ")" : "",
                r->duration_ms);
}

extern char **environ;

/* A learning round in a process of its own (`flux __learn`, started afresh
 * by posix_spawn: nothing of this one, SQLite or threads, is copied), in
 * a session of its own with /dev/null for its streams, so that the answer
 * is out and this process exits at once; nobody waits for the round. */
static void learn_in_background(const char *path, const char *store_dir, long long after)
{
    fflush(NULL);
    /* this very binary, even if a newer one has replaced the file since */
    char self[] = "/proc/self/exe", name[] = "flux", cmd[] = "__learn", at[32];
    char *file = strdup(path), *dir = store_dir ? strdup(store_dir) : NULL;
    snprintf(at, sizeof(at), "%lld", after);
    char *argv[] = {name, cmd, file, at, dir, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    for (int fd = 0; fd < 3; fd++)
        posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", O_RDWR, 0);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid;
    (void)posix_spawn(&pid, self, &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    free(file);
    free(dir);
}

/* `flux __learn FILE AFTER [DIR]`: the round learn_in_background starts. */
int fx_cmd_learn(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(argv[1], argc > 3 ? argv[3] : NULL, &prog, &store);
    if (status != FLUX_OK)
        return status;
    flux_program_use_store(prog, store, 0);
    flux_learn(prog, store, strtoll(argv[2], NULL, 10), NULL);
    return fx_cli_finish(prog, store, FLUX_OK);
}

int fx_cli_device(const char *cmd, const char *name, int *out)
{
    /* the cluster's mode here; the runtime reads FLUX_DEVICE when it is
     * made (OpenCL: cpu, opencl or the cost model's choice) */
    if (!strcmp(name, "cpu") || !strcmp(name, "opencl"))
        *out = FLUX_DEVICE_CPU; /* forced elsewhere: nothing splits across ranks */
    else if (!strcmp(name, "mpi"))
        *out = FLUX_DEVICE_MPI;
    else if (!strcmp(name, "auto"))
        *out = FLUX_DEVICE_AUTO;
    else
        return fx_cli_usage_error(cmd, "--device takes cpu, opencl or mpi, not `%s`", name);
    setenv("FLUX_DEVICE", name, 1);
    return 0;
}

int fx_cli_ranks(const char *cmd, const char *value, unsigned *out)
{
    char *end;
    long n = value ? strtol(value, &end, 10) : 0;
    if (!value || *end || n < 1 || n > 4096)
        return fx_cli_usage_error(cmd, "--ranks needs a number of ranks, 1 to 4096");
    *out = (unsigned)n;
    return 0;
}

int fx_cli_cluster(unsigned ranks, int device, const char *path, int argc, char **argv)
{
    if (ranks) { /* mpirun of this command without --ranks N; --warnings was main's */
        char **rest = calloc((size_t)argc + 2, sizeof(char *));
        int n = 0;
        for (int i = 0; rest && i < argc; i++) {
            if (!strcmp(argv[i], "--ranks")) {
                i++;
                continue;
            }
            rest[n++] = argv[i];
        }
        if (rest && fx_cli_show_warnings)
            rest[n++] = (char *)"--warnings";
        int code = rest ? flux_cluster_launch(ranks, n, rest) : 1;
        free(rest);
        return code;
    }
    int role;
    int status = flux_cluster_start(device, stderr, &role);
    if (status != FLUX_OK)
        return status;
    if (role == FLUX_CLUSTER_SERVE)
        return flux_cluster_serve(path);
    return role == FLUX_CLUSTER_IDLE ? 0 : -1;
}

/* EXPR given as @PATH (@- for stdin): the expression is the file's text,
 * for inputs past the command line's 128 KiB. Returns it (the caller's),
 * or NULL after a message on stderr. */
static char *read_expr(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "flux: cannot read the expression from `%s`: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 1 << 16, n;
    char *text = malloc(cap);
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0)
        if ((len += n) + 1 == cap) {
            char *grown = realloc(text, cap *= 2);
            if (!grown)
                free(text);
            text = grown;
        }
    bool failed = !text || ferror(f);
    if (f != stdin)
        fclose(f);
    if (failed) {
        fprintf(stderr, "flux: cannot read the expression from `%s`\n", path);
        free(text);
        return NULL;
    }
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        len--; /* the file's last line break is not the expression's */
    text[len] = '\0';
    return text;
}

int fx_cmd_run(int argc, char **argv)
{
    const char *path = NULL, *expr = NULL, *store_dir = NULL;
    bool json = false, keep = false, quiet = false, verbose = false;
    unsigned ranks = 0;
    int device = FLUX_DEVICE_AUTO;
    FluxRunOptions opts = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--keep-values")) {
            keep = true;
        } else if (!strcmp(a, "--no-learn")) {
            opts.no_learn = 1;
        } else if (!strcmp(a, "--quiet")) {
            quiet = true;
        } else if (!strcmp(a, "--verbose")) {
            verbose = true;
        } else if (!strcmp(a, "--store")) {
            if (i + 1 >= argc)
                return fx_cli_usage_error("run", "--store needs a folder");
            store_dir = argv[++i];
        } else if (!strcmp(a, "--version") || !strcmp(a, "--variant")) {
            bool version = !strcmp(a, "--version");
            if (i + 1 >= argc)
                return fx_cli_usage_error("run", "%s needs a %s", a,
                                          version ? "version label (v3)" : "variant name");
            *(version ? &opts.version : &opts.variant) = argv[++i];
        } else if (!strcmp(a, "--ranks") || !strcmp(a, "--device")) {
            const char *value = i + 1 < argc ? argv[++i] : NULL;
            int bad = a[2] == 'r' ? fx_cli_ranks("run", value, &ranks)
                                  : fx_cli_device("run", value ? value : "", &device);
            if (bad)
                return bad;
        } else if (!strncmp(a, "--max-", 6)) {
            bool seconds = !strcmp(a, "--max-seconds");
            if (i + 1 >= argc || !number_arg(argv[i + 1], seconds ? 1e-6 : 1, 1e18, &v) ||
                (!seconds && v != (double)(unsigned long long)v))
                return fx_cli_usage_error("run", "%s needs a positive %s", a,
                                          seconds ? "number of seconds" : "whole number");
            i++;
            if (!strcmp(a, "--max-steps"))
                opts.max_steps = (unsigned long long)v;
            else if (!strcmp(a, "--max-depth"))
                opts.max_depth = (unsigned long long)v;
            else if (!strcmp(a, "--max-memory"))
                opts.max_memory_mb = (unsigned long long)v;
            else if (!strcmp(a, "--max-seconds"))
                opts.max_seconds = v;
            else
                return fx_cli_usage_error("run", "unknown option `%s`", a);
        } else if (a[0] == '-' && a[1] && a[1] == '-') {
            return fx_cli_usage_error("run", "unknown option `%s`", a);
        } else if (!path) {
            path = a;
        } else if (!expr) {
            expr = a;
        } else {
            return fx_cli_usage_error("run", "unexpected argument `%s`; quote EXPR", a);
        }
    }
    if (!path || !expr)
        return fx_cli_usage_error("run", "usage: flux run FILE EXPR");
    /* under mpirun, the ranks but 0 serve the parts of the calls rank 0
     * splits, and end here (docs/devices.md, "MPI") */
    int cluster = fx_cli_cluster(ranks, device, path, argc, argv);
    if (cluster >= 0)
        return cluster;
    char *expr_text = NULL;
    if (expr[0] == '@') { /* no expression starts with @ */
        opts.expr_name = expr[1] && strcmp(expr + 1, "-") ? expr + 1 : "<stdin>";
        if (!(expr_text = read_expr(expr + 1)))
            return 2;
        expr = expr_text;
    }
    /* The store is read first (each intent runs its newest version); the
     * answer is printed before anything is written, so a busy store never
     * delays it. With --json the record holds the execution id, which is
     * printed only once the execution is committed. */
    FluxProgram *prog;
    FluxStore *store;
    int status = fx_cli_open(path, store_dir, &prog, &store);
    if (status != FLUX_OK) {
        free(expr_text);
        return status;
    }
    flux_program_use_store(prog, store, keep);
    FluxResult r;
    /* notes on stderr (the version that ran, its time, what learning did)
     * when it is a terminal or --verbose asks, never with --quiet */
    bool notes = !quiet && (verbose || isatty(2));
    opts.want_json = json ? 1 : notes ? FLUX_JSON_SUMMARY : 0; /* the notes read no output */
    opts.record_later = !json;
    opts.print_to = json ? NULL : stdout; /* a large value streams */
    long long recorded_before = flux_last_execution(prog);
    status = flux_run(prog, expr, &opts, stderr, &r);
    /* a failed run that was recorded is one a budget stopped: learning
     * follows it as it follows an answer (its EXPR may call for a kernel) */
    bool stopped = status == FLUX_ERR_RUNTIME && flux_last_execution(prog) != recorded_before;
    free(expr_text); /* the program keeps its own copy */
    if (status == FLUX_OK && notes)
        note_version(&r);
    if (status == FLUX_OK && json) {
        status = flux_store_flush(store, stderr);
        if (status == FLUX_OK)
            puts(r.json);
    } else if (status == FLUX_OK) {
        fflush(stdout);
        status = flux_record_last(prog, stderr);
    }
    flux_result_free(&r); /* flux_run initialised it, whatever happened */
    flux_cluster_stop();  /* the other ranks end now: learning is rank 0's alone */
    /* Learning after the answer (docs/optimizer.md): in a detached process
     * by default; FLUX_LEARN=wait learns here before exiting (tests, the
     * demo), FLUX_LEARN=off never. */
    const char *learn = getenv("FLUX_LEARN");
    bool forced = opts.version || opts.variant; /* recorded nowhere: nothing to learn */
    if ((status == FLUX_OK || stopped) && !opts.no_learn && !forced &&
        !(learn && !strcmp(learn, "off"))) {
        if (learn && !strcmp(learn, "wait")) {
            flux_learn(prog, store, flux_last_execution(prog), notes ? stderr : NULL);
        } else {
            /* a process of its own only when a round is due: most runs
             * start none, and pay neither the spawn nor its work */
            long long after = flux_last_execution(prog);
            bool due = flux_learn_due(prog, store, after);
            int finished = fx_cli_finish(prog, store, status);
            bool closed = finished == status; /* the store closed cleanly */
            if (closed && due)
                learn_in_background(path, store_dir, after);
            if (closed && due && notes)
                fprintf(stderr, "flux: learning from the records in the background "
                                "(`flux history` shows new versions)\n");
            return finished;
        }
    }
    return fx_cli_finish(prog, store, status);
}
