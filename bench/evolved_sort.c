/*
 * evolved_sort.c: sorting 10^7 int64 end to end through the public API,
 * after training, against glibc qsort and C++ std::sort in one process.
 * The inputs are bench/sort.c's (same generator and seed): 10^7 random
 * int64 over the full range, and the same sorted with 1% random swaps.
 *
 * flux_run takes only an expression, so the lists reach the engine as a
 * data source: one CSV of two columns (a random, b nearly sorted) written
 * to STORE_DIR, turned into a List[Int] by an element-wise intent. The
 * source is read once per runtime (the first run pays for it), so each
 * timed run builds the list from the loaded rows and then:
 *   (a) `len(random_input())`        the list alone;
 *   (b) `len(sort(random_input()))`  the list, then the evolved sort;
 * the sort's cost is (b) - (a). Times are the engine's (r.duration_ms),
 * best of 3, the rows taking turns; std::sort and qsort best of 3 too.
 * The sort intent is examples/sort.flux's, trained by runs on small lists
 * and a learning round, as bench/evolved_primes.c does. A digest of the
 * sorted list (each element mod a prime, weighted by its position) must
 * equal the same digest of std::sort's result, else exit 1.
 *
 * usage: evolved_sort STORE_DIR
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flux.h"

void bench_std_sort(int64_t *a, size_t n, bool descending); /* bench/sort_std.cpp */

#define N    10000000
#define RUNS 3

static const char program[] =
        "type Pair = { a: Int, b: Int }\n"
        "data rows: List[Pair] from \"sort_input.csv\"\n"
        "\n"
        "intent sort(xs: List[Int]) -> List[Int]:\n" /* examples/sort.flux */
        "    constraints:\n"
        "        - result is a permutation of xs\n"
        "        - result is sorted ascending\n"
        "    properties:\n"
        "        - pure\n"
        "\n"
        "intent random_input() -> List[Int]:\n"
        "    constraints:\n"
        "        - result[i] = rows[i].a\n"
        "        - len(result) = len(rows)\n"
        "\n"
        "intent nearly_input() -> List[Int]:\n"
        "    constraints:\n"
        "        - result[i] = rows[i].b\n"
        "        - len(result) = len(rows)\n"
        "\n"
        "intent digest(xs: List[Int]) -> Int:\n"
        "    constraints:\n"
        "        - result = sum((xs[i] mod 1000003) * (i mod 1000) for i in 0..len(xs))\n"
        "\n"
        /* the checks call the sort inside an intent, so that the record of
         * the run (which names the kernel) has a small input to print */
        "intent check_random() -> Int:\n"
        "    constraints:\n"
        "        - result = digest(sort(random_input()))\n"
        "\n"
        "intent check_nearly() -> Int:\n"
        "    constraints:\n"
        "        - result = digest(sort(nearly_input()))\n";

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static uint64_t rng = 0x853C49E6748FEA9Bu; /* bench/sort.c's seed */

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static int cmp_asc(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The program's digest: Flux's mod floors, so the residue is never negative. */
static long long digest(const int64_t *a, size_t n)
{
    long long d = 0;
    for (size_t i = 0; i < n; i++)
        d += ((a[i] % 1000003 + 1000003) % 1000003) * (long long)(i % 1000);
    return d;
}

/* How the execution record (FluxResult.json) names the sort's kernel. */
static const char kernel_key[] = "\"decision\": \"sort kernel ", reason_key[] = "\"reason\": \"";

/* Runs expr unrecorded (recording would print the 10^7-element argument
 * of sort as JSON, after the timing but at a cost of seconds); returns
 * FLUX_OK and fills r. */
static int run(FluxProgram *prog, const char *expr, int want_json, FluxResult *r)
{
    FluxRunOptions o = {.no_learn = 1, .record_later = 1, .want_json = want_json,
                        .max_memory_mb = 20000}; /* the budget counts this process's arrays */
    return flux_run(prog, expr, &o, stderr, r);
}

/* One input: the engine's times (a) and (b), std::sort's and qsort's, the
 * digest checked. Returns false when something failed or was wrong. */
static bool bench_input(FluxProgram *prog, const char *title, const char *input,
                        const int64_t *in, int64_t *work)
{
    char list[64], sorted[64], check[64], want[32];
    snprintf(list, sizeof(list), "len(%s())", input);
    snprintf(sorted, sizeof(sorted), "len(sort(%s()))", input);
    snprintf(check, sizeof(check), "check_%.*s()", (int)strcspn(input, "_"), input);
    double t_list = 1e300, t_sorted = 1e300, t_std = 1e300, t_qsort = 1e300;
    FluxResult r;
    for (int rep = 0; rep < RUNS; rep++) {
        if (run(prog, list, 0, &r) != FLUX_OK)
            return false;
        t_list = r.duration_ms < t_list ? r.duration_ms : t_list;
        bool n_ok = atol(r.text) == N;
        flux_result_free(&r);
        if (run(prog, sorted, 0, &r) != FLUX_OK)
            return false;
        t_sorted = r.duration_ms < t_sorted ? r.duration_ms : t_sorted;
        n_ok = n_ok && atol(r.text) == N;
        flux_result_free(&r);
        if (!n_ok) {
            printf("%s: a length is not %d: WRONG\n", title, N);
            return false;
        }
        memcpy(work, in, N * sizeof(*work));
        double t0 = now_ms();
        bench_std_sort(work, N, false);
        double t = now_ms() - t0;
        t_std = t < t_std ? t : t_std;
        memcpy(work, in, N * sizeof(*work));
        t0 = now_ms();
        qsort(work, N, sizeof(*work), cmp_asc);
        t = now_ms() - t0;
        t_qsort = t < t_qsort ? t : t_qsort;
    }
    /* work holds qsort's result: the reference for the digest */
    snprintf(want, sizeof(want), "%lld", digest(work, N));
    if (run(prog, check, 1, &r) != FLUX_OK)
        return false;
    bool ok = strcmp(r.text, want) == 0;
    if (!ok)
        printf("%s: digest of the sorted list %s, not %s: WRONG\n", title, r.text, want);
    /* the record's decision: {"decision": "sort kernel K", "reason": "..."} */
    const char *d = strstr(r.json, kernel_key), *why = d ? strstr(d, reason_key) : NULL;
    char kernel[256] = "(no sort kernel in the record)";
    if (d && why) {
        d += sizeof(kernel_key) - 1, why += sizeof(reason_key) - 1;
        snprintf(kernel, sizeof(kernel), "%.*s (%.*s)", (int)strcspn(d, "\""), d,
                 (int)strcspn(why, "\""), why);
    }
    flux_result_free(&r);
    double t_sort = t_sorted - t_list;
    printf("%s: kernel %s\n"
           "  flux: list alone %.1f ms, list + sort %.1f ms, sort %.1f ms\n"
           "  std::sort %.1f ms, qsort %.1f ms: flux sort / std::sort %.2fx, flux sort / qsort "
           "%.2fx\n",
           title, kernel, t_list, t_sorted, t_sort, t_std, t_qsort, t_sort / t_std,
           t_sort / t_qsort);
    return ok;
}

/* Writes the program and its CSV into dir; false when a file can't be written. */
static bool write_files(const char *dir, const int64_t *a, const int64_t *b)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/sort_input.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fputs("a,b\n", f);
    for (size_t i = 0; i < N; i++)
        fprintf(f, "%lld,%lld\n", (long long)a[i], (long long)b[i]);
    bool ok = fclose(f) == 0;
    snprintf(path, sizeof(path), "%s/evolved_sort.flux", dir);
    f = fopen(path, "w");
    if (!f)
        return false;
    fputs(program, f);
    return (fclose(f) == 0) & ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: evolved_sort STORE_DIR\n");
        return 2;
    }
    int64_t *random = malloc(N * sizeof(int64_t)), *nearly = malloc(N * sizeof(int64_t));
    int64_t *work = malloc(N * sizeof(int64_t));
    if (!random || !nearly || !work)
        return 1;
    for (size_t i = 0; i < N; i++)
        random[i] = (int64_t)rnd();
    memcpy(nearly, random, N * sizeof(int64_t)); /* sorted, then 1% random swaps */
    bench_std_sort(nearly, N, false);
    for (size_t s = 0; s < N / 100; s++) {
        size_t i = rnd() % N, j = rnd() % N;
        int64_t t = nearly[i];
        nearly[i] = nearly[j], nearly[j] = t;
    }
    double t0 = now_ms();
    if (!write_files(argv[1], random, nearly)) {
        fprintf(stderr, "evolved_sort: cannot write into %s\n", argv[1]);
        return 1;
    }
    double t_csv = now_ms() - t0;

    char path[4096];
    snprintf(path, sizeof(path), "%s/evolved_sort.flux", argv[1]);
    FluxProgram *prog;
    FluxStore *store;
    if (flux_program_load(path, NULL, stderr, &prog) != FLUX_OK ||
        flux_store_open(argv[1], stderr, &store) != FLUX_OK)
        return 1;
    flux_program_use_store(prog, store, 0);
    /* training: v1 (a bubble sort) on small lists, then a round */
    FluxRunOptions opts = {0};
    FluxResult r;
    char small[8192];
    int len = snprintf(small, sizeof(small), "sort([");
    for (int i = 0; i < 500; i++)
        len += snprintf(small + len, sizeof(small) - (size_t)len, "%s%lld", i ? ", " : "",
                        (long long)(rnd() % 2000001) - 1000000);
    snprintf(small + len, sizeof(small) - (size_t)len, "])");
    const char *training[] = {"sort([5, -2, 5, 0, 9])", "sort([3, 1, 2])", small};
    for (size_t i = 0; i < sizeof(training) / sizeof(training[0]); i++) {
        if (flux_run(prog, training[i], &opts, stderr, &r) != FLUX_OK)
            return 1;
        flux_result_free(&r);
    }
    flux_store_flush(store, stderr);
    flux_optimize(prog, store, "sort", stdout, stderr);
    flux_program_use_store(prog, store, 0);
    /* v1 would bubble-sort 10^7 elements for hours: stop unless evolved */
    if (run(prog, "sort([2, 1])", 1, &r) != FLUX_OK)
        return 1;
    bool evolved = strstr(r.json, kernel_key) != NULL;
    flux_result_free(&r);
    if (!evolved) {
        printf("the sort did not evolve: no sort kernel after training\n");
        return 1;
    }

    /* the first run reads the CSV: timed apart, not part of any row */
    if (run(prog, "len(random_input())", 0, &r) != FLUX_OK)
        return 1;
    printf("sort 10^7 int64 end to end (flux_run, best of %d; std::sort and qsort on one "
           "thread;\na ratio below 1: flux faster)\n"
           "  CSV of both inputs written in %.0f ms, read by the first run: %.0f ms\n",
           RUNS, t_csv, r.duration_ms);
    flux_result_free(&r);
    bool ok = bench_input(prog, "10^7 random int64", "random_input", random, work);
    ok = bench_input(prog, "10^7 nearly sorted int64 (1% swaps)", "nearly_input", nearly, work) &&
         ok;
    flux_program_free(prog);
    flux_store_close(store, stderr);
    free(random);
    free(nearly);
    free(work);
    return !ok;
}
