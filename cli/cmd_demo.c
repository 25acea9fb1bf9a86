/*
 * cmd_demo.c: `flux demo [DIR]`: the guided tour of the bundled examples.
 *
 * For each example it shows the source and what Flux understood of it:
 * how the result is built and which properties hold, with the proofs' and
 * counterexamples' verdicts; then it runs the calls that the examples'
 * README lists and compares each value with the answer it promises. Then
 * the living loop on fibonacci: runs on growing inputs, a learning round
 * after each, from the naive graph to memoization, to a loop, to the
 * matrix power, each step explained and proved. The examples are found in
 * DIR, else in $FLUX_EXAMPLES, else next to the binary (../examples), else
 * ./examples. The runs go to a temporary store removed at the end, or to
 * `--store DIR`, which is kept (for `flux serve --store DIR`).
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flux.h"

static bool is_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d)
        closedir(d);
    return d != NULL;
}

static char *find_examples(const char *arg)
{
    if (arg)
        return strdup(arg);
    const char *env = getenv("FLUX_EXAMPLES");
    if (env && is_dir(env))
        return strdup(env);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char path[PATH_MAX + 16];
            snprintf(path, sizeof(path), "%s/../examples", exe);
            if (is_dir(path))
                return strdup(path);
        }
    }
    return strdup("examples");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The calls of DIR/README.md's table: `| file.flux | `call` | `answer` |`.
 * Runs each one that belongs to `file` and shows the value next to the
 * answer the README promises. */
/* The demo's store: a fresh folder, removed at the end (docs/cli.md: "in a
 * temporary store"), so a tour never touches the user's ./.flux. */
static char store_dir[] = "/tmp/flux-demo-XXXXXX";

static void run_readme_calls(const char *dir, const char *file, FluxProgram *prog,
                             FluxStore *store)
{
    bool explained = false;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/README.md", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    FluxRunOptions opts = {.max_seconds = 2.0};
    while (fgets(line, sizeof(line), f)) {
        char name[256], call[512], answer[512];
        if (sscanf(line, "| %255s | `%511[^`]` | `%511[^`]` |", name, call, answer) != 3 ||
            strcmp(name, file) != 0)
            continue;
        FluxResult r;
        printf("  > %s\n", call);
        fflush(stdout);
        if (flux_run(prog, call, &opts, NULL, &r) == FLUX_OK) {
            bool same = strcmp(r.text, answer) == 0;
            printf("    %s   (%.3f ms, %s)\n", r.text, r.duration_ms,
                   same ? "as the README says" : "the README says otherwise!");
            flux_result_free(&r);
            if (store && !explained) { /* why that value: once per example */
                printf("\n  $ flux explain %s '%s'\n", file, call);
                fflush(stdout);
                flux_explain(prog, call, &opts, 0, stdout, stderr);
                putchar('\n');
                explained = true;
            }
        } else {
            printf("    (the naive graph v1 ran out of the demo's 2 s budget; the optimizer's\n"
                   "     rewrites make it fast: README answer %s)\n", answer);
        }
    }
    fclose(f);
}

static void show_source(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f))
        printf("  | %s", line);
    fclose(f);
}

/* explain's tree without its first line (EXPR = value: the value may be
 * long), indented. */
static void explain_tree(FluxProgram *prog, const char *call)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    FluxRunOptions opts = {0};
    flux_explain(prog, call, &opts, 0, mem, stderr);
    fclose(mem);
    const char *tree = strchr(text, '\n');
    for (const char *line = tree ? tree + 1 : ""; *line;) {
        const char *end = strchr(line, '\n');
        int n = end ? (int)(end - line) : (int)strlen(line);
        if (n > 200) /* evidence JSON: the start says enough here */
            printf("    %.197s...\n", line);
        else
            printf("    %.*s\n", n, line);
        line = end ? end + 1 : line + n;
    }
    free(text);
}

/* One run of the evolution: the value's size and the time. */
static void evolve_run(FluxProgram *prog, const char *call)
{
    FluxRunOptions opts = {.want_json = 1, .max_seconds = 10};
    FluxResult r;
    printf("\n  > %s\n", call);
    fflush(stdout);
    if (flux_run(prog, call, &opts, stderr, &r) == FLUX_OK) {
        size_t digits = strlen(r.text);
        if (digits > 60)
            printf("    %.20s...%s   (%zu digits", r.text, r.text + digits - 20, digits);
        else
            printf("    %s   (", r.text);
        printf("%s%.3f ms on %s)\n", digits > 60 ? ", " : "", r.duration_ms,
               r.version ? r.version : "?");
    }
    flux_result_free(&r);
}

/* The living loop on fibonacci, in the demo's store. */
static void evolve_fibonacci(const char *dir, FluxStore *store)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/fibonacci.flux", dir);
    FluxProgram *prog;
    if (!store || flux_program_load(path, NULL, NULL, &prog) != FLUX_OK)
        return;
    printf("\n== fibonacci gets faster with use ==\n"
           "Each run is recorded; after it, a learning round reads the records, asks each\n"
           "rule for a rewrite, proves it with Z3 (and the Coq lemmas it cites), and\n"
           "installs it as the next version. One step a round:\n");
    static const char *const calls[][2] = {
        {"fibonacci(25)", "the naive graph v1: two recursive calls, 242785 calls in all"},
        {"fibonacci(90)", "memoized: each distinct call computed once"},
        {"fibonacci(20000)", "a loop over the last two values: the recurrence, certified"},
        {"fibonacci(1000000)", "the matrix power beside the loop; a cost model picks one"},
    };
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        flux_program_use_store(prog, store, 0);
        printf("\n-- step %zu: %s\n", i + 1, calls[i][1]);
        evolve_run(prog, calls[i][0]);
        if (i == 0 || i + 1 == sizeof(calls) / sizeof(calls[0])) {
            const char *small = i == 0 ? "fibonacci(25)" : "fibonacci(300000)";
            printf("\n  $ flux explain fibonacci.flux '%s'\n", small);
            fflush(stdout);
            explain_tree(prog, small);
        }
        flux_store_flush(store, stderr);
        if (i + 1 < sizeof(calls) / sizeof(calls[0])) {
            printf("\n  $ flux optimize fibonacci.flux\n    ");
            fflush(stdout);
            flux_optimize(prog, store, NULL, stdout, stderr);
        }
    }
    printf("\n  $ flux history fibonacci.flux\n");
    fflush(stdout);
    flux_history(store, prog, NULL, 0, stdout, stderr);
    flux_program_free(prog);
}

int fx_cmd_demo(int argc, char **argv)
{
    const char *examples = NULL, *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: flux demo [DIR] [--store STORE]\n\nChecks every example in DIR "
                 "(default: the bundled examples) and shows\nwhat Flux understood of each. "
                 "The runs are recorded in a temporary store,\nor in STORE, which is kept: "
                 "`flux serve --store STORE` shows them.");
            return 0;
        }
        if (!strcmp(argv[i], "--store") && i + 1 < argc)
            keep = argv[++i];
        else if (!strcmp(argv[i], "--store") || argv[i][0] == '-' || examples)
            return fx_cli_usage_error("demo", "unexpected `%s` (usage: flux demo [DIR] "
                                              "[--store STORE])", argv[i]);
        else
            examples = argv[i];
    }
    char *dir = find_examples(examples);
    DIR *d = opendir(dir);
    if (!d) {
        int rc = fx_cli_usage_error("demo", "no examples folder at `%s`", dir);
        free(dir);
        return rc;
    }
    char *names[256];
    size_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 256) {
        size_t len = strlen(ent->d_name);
        if (len > 5 && !strcmp(ent->d_name + len - 5, ".flux"))
            names[n++] = strdup(ent->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(names[0]), by_name);
    FluxStore *store = NULL;
    if (keep) {
        if (flux_store_open(keep, stderr, &store) != FLUX_OK) {
            for (size_t i = 0; i < n; i++)
                free(names[i]);
            free(dir);
            return FLUX_ERR_STORE;
        }
    } else if (mkdtemp(store_dir)) {
        flux_store_open(store_dir, stderr, &store);
    }
    printf("Flux %s: a tour of %zu examples in %s\n", flux_version(), n, dir);
    int worst = 0;
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        printf("\n== %s ==\n", names[i]);
        show_source(path);
        printf("\nWhat Flux understood:\n");
        fflush(stdout);
        FluxProgram *prog;
        int rc = flux_program_load(path, NULL, stderr, &prog);
        if (rc == FLUX_OK) {
            flux_program_describe(prog, stdout);
            flux_program_use_store(prog, store, 0);
            run_readme_calls(dir, names[i], prog, store);
            flux_program_free(prog);
        } else {
            printf("  rejected (exit %d); see the diagnostics above\n", rc);
            worst = rc;
        }
    }
    if (worst == 0)
        printf("\nEvery example was read, type-checked, checked for contradictions, had its\n"
               "properties proved or refuted with Z3, and ran on its naive graph v1.\n");
    else
        printf("\nSome examples were rejected; their diagnostics are above.\n");
    evolve_fibonacci(dir, store);
    if (store) {
        flux_store_flush(store, stderr);
        if (keep)
            printf("\nEvery run above was recorded in %s ($ flux traces FILE --store %s):\n", keep,
                   keep);
        else
            printf("\nEvery run above was recorded in a temporary store ($ flux traces FILE "
                   "--store DIR):\n");
        for (size_t i = 0; i < n; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
            FluxProgram *prog;
            if (flux_program_load(path, NULL, NULL, &prog) == FLUX_OK) {
                flux_traces(store, prog, NULL, 0, 0, stdout, stderr);
                flux_program_free(prog);
            }
        }
        flux_store_close(store, stderr);
        if (keep) {
            printf("\nSee it in a browser: flux serve --store %s\n", keep);
        } else {
            char cmd[PATH_MAX + 16];
            snprintf(cmd, sizeof(cmd), "rm -rf '%s'", store_dir);
            if (system(cmd) != 0)
                fprintf(stderr, "flux: could not remove %s\n", store_dir);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(dir);
    return worst;
}
