/*
 * gen_main.c: the standalone driver of the program generator
 * (build/tests/gen_fuzz; tests/run-tests.sh runs it for 30 s).
 *
 *   gen_fuzz [--seconds S] [--count N] [--start SEED] [--avoid-known] [-v]
 *       generates and runs programs from seeds START, START+1, ... until S
 *       seconds (default $FLUX_GEN_SECONDS, else 30) or N programs have
 *       gone by; prints the rate and the seeds; exits 1 at the first
 *       finding, with the program and the line to replay it.
 *   gen_fuzz --seed SEED [--print] [--write DIR] [--avoid-known]
 *       the one program of SEED: prints it and runs it; with --print only
 *       prints it, with --write only writes its files into DIR.
 *   gen_fuzz --avoid-known=auto [--found DIR] ...
 *       avoids the known bugs whose reproducers in DIR (tests/fuzz/found)
 *       still fail; --avoid MASK replays a choice; --probe only reports.
 *   gen_fuzz --emit DIR [--count N] [--start SEED]
 *       writes the main file of N programs into DIR (parser fuzzer seeds).
 *   gen_fuzz --native N ...
 *       the programs whose seed is a multiple of N also run with native
 *       code (GenRunOptions.native): 1 for every program, 0 for none.
 *
 * A crash is reported by the signal handler (or, under the sanitizers, by
 * their death callback) with the seed and the call in flight. Under ASan
 * each program ends with a leak check, so a leak names its seed too.
 */
#define _XOPEN_SOURCE 700 /* sigaltstack */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"

/* The sanitizers' hooks, when the build has them. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static char crash_note[256]; /* written before each program, for the handlers */
static char tmpdir[] = "/tmp/flux-gen-XXXXXX";

static void say_crash(void)
{
    if (!crash_note[0])
        return;
    ssize_t w = write(2, crash_note, strlen(crash_note));
    const char *cur = gen_run_current;
    if (cur) {
        w = write(2, "gen_fuzz: in flight: ", 21);
        w = write(2, cur, strnlen(cur, 2000));
        w = write(2, "\n", 1);
    }
    (void)w;
}

static void on_signal(int sig)
{
    say_crash();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    if (&__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(say_crash);
    // a stack overflow needs a stack of its own to report on
    static char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
    sigaltstack(&ss, NULL);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

static void cleanup_dir(const char *dir, const GenProgram *p)
{
    char path[4096];
    for (size_t i = 0; i < p->n_files; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, p->files[i].name);
        unlink(path);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gen_fuzz [--seconds S] [--count N] [--start SEED] [AVOID] [-v]\n"
            "       gen_fuzz --seed SEED [--print] [--write DIR] [AVOID]\n"
            "AVOID: --avoid-known (every known bug) or --avoid-known=auto [--found DIR]\n"
            "       --features MASK turns on forms being added (GEN_FEAT_* of gen.h)\n"
            "       (the bugs whose reproducers in DIR, tests/fuzz/found, still fail)\n"
            "       gen_fuzz --probe [--found DIR]: which reproducers still fail\n"
            "       gen_fuzz --emit DIR [--count N] [--start SEED]: N programs' main files\n"
            "       --native N: one program in N (by seed) also runs as native code\n");
    exit(2);
}

/* The resident size now, in MB (the memory budget reads the same). */
static long resident_mb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE) / (1024 * 1024);
}

static void print_stats(const GenStats *st, double secs, unsigned long long first)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("gen_fuzz: %lu programs in %.1f s (%.1f programs/s), seeds %llu..%llu; "
           "%ld MB resident, %ld MB at most\n",
           st->programs, secs, secs > 0 ? (double)st->programs / secs : 0.0, first,
           first + (st->programs ? st->programs - 1 : 0), resident_mb(), ru.ru_maxrss / 1024);
    printf("gen_fuzz: %lu accepted, %lu rejected as allowed; %lu graphs; %lu calls: %lu values, "
           "%lu errors (budget %lu, division %lu, index %lu, postcondition %lu, uncovered %lu, "
           "natural %lu, data %lu, other %lu); %lu values read back; %lu optimization "
           "rounds\n",
           st->accepted, st->rejected_expected, st->graphs, st->calls, st->values, st->errors,
           st->err_budget, st->err_div, st->err_index, st->err_post, st->err_cover,
           st->err_natural, st->err_data, st->err_other, st->roundtrips, st->optimized);
    if (!st->native_programs)
        return;
    printf("gen_fuzz: native: %lu programs, %lu objects built, %lu intents left interpreted; "
           "%lu calls compared, %lu of them ran native code\n",
           st->native_programs, st->native_objects, st->native_stayed, st->native_calls,
           st->native_ran);
    for (size_t i = 0; i < GEN_MAX_REASONS && st->reasons[i][0]; i++)
        printf("gen_fuzz:   stays interpreted: %5lu  %s\n", st->reason_n[i], st->reasons[i]);
}

static unsigned long native_every; /* --native N: seeds that are multiples of N */

/* The options that replay go's choices (bugs avoided, forms turned on). */
static const char *avoid_flag(const GenOptions *go)
{
    static char buf[96];
    int n = 0;
    buf[0] = '\0';
    if (go->avoid)
        n = snprintf(buf, sizeof(buf), " --avoid 0x%x", go->avoid);
    if (go->features)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, " --features 0x%x", go->features);
    if (native_every)
        snprintf(buf + n, sizeof(buf) - (size_t)n, " --native %lu", native_every);
    return buf;
}

/* A leak check after every program halves the rate under ASan, so the
 * loop checks after every LEAK_BATCH programs and, on a leak, runs the
 * batch's seeds again one by one to name the one that leaks. */
#define LEAK_BATCH 16

static bool leaked(void)
{
    return &__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check();
}

/* A leak was seen after seeds first..last: the leaked blocks stay in this
 * process, so each seed runs again in a fresh one (this program, --seed K),
 * whose leak check at exit decides. */
static void blame_leak(unsigned long long first, unsigned long long last, const GenOptions *go)
{
    printf("gen_fuzz: a leak in seeds %llu..%llu; running each alone\n", first, last);
    fflush(stdout);
    for (unsigned long long k = first; k <= last; k++) {
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "/proc/%d/exe --seed %llu%s >/dev/null 2>&1", (int)getpid(),
                 k, avoid_flag(go));
        int status = system(cmd);
        if (status != 0) {
            printf("gen_fuzz: FOUND on seed %llu: a leak\n", k);
            printf("gen_fuzz: replay with: gen_fuzz --seed %llu%s\n", k, avoid_flag(go));
            return;
        }
    }
    printf("gen_fuzz: FOUND a leak in seeds %llu..%llu, but in none alone\n", first, last);
}

static int one(unsigned long long seed, const GenOptions *go, const GenRunOptions *ro,
               GenStats *st, const char *dir, bool print_always, bool leak_check)
{
    GenSource src;
    GenProgram p;
    snprintf(crash_note, sizeof(crash_note),
             "gen_fuzz: crashed on seed %llu; replay with: gen_fuzz --seed %llu%s\n", seed, seed,
             avoid_flag(go));
    gen_source_seed(&src, seed);
    gen_program(&src, go, &p);
    if (print_always)
        gen_program_print(&p, stdout);
    else if (ro->log)
        fprintf(ro->log, "seed %llu\n", seed);
    fflush(stdout);
    char why[8192];
    GenRunOptions this_ro = *ro;
    this_ro.native = native_every && seed % native_every == 0;
    int res = gen_run(&p, dir, &this_ro, st, why, sizeof(why));
    if (!res && leak_check && leaked()) {
        snprintf(why, sizeof(why), "a leak (LeakSanitizer's report is above)");
        res = 1;
    }
    if (res) {
        if (!print_always)
            gen_program_print(&p, stdout);
        printf("gen_fuzz: FOUND on seed %llu: %s\n", seed, why);
        printf("gen_fuzz: replay with: gen_fuzz --seed %llu%s\n", seed, avoid_flag(go));
    }
    cleanup_dir(dir, &p);
    gen_program_free(&p);
    crash_note[0] = '\0';
    return res;
}

static int write_program(unsigned long long seed, const GenOptions *go, const char *dir)
{
    GenSource src;
    GenProgram p;
    gen_source_seed(&src, seed);
    gen_program(&src, go, &p);
    mkdir(dir, 0777);
    for (size_t i = 0; i < p.n_files; i++) {
        if (p.files[i].kind == GEN_FILE_SQL) {
            fprintf(stderr, "gen_fuzz: %s is SQL: make it with sqlite3 %s/%s < ...\n",
                    p.files[i].name, dir, p.files[i].name);
            continue;
        }
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, p.files[i].name);
        FILE *f = fopen(path, "wb");
        if (!f) {
            fprintf(stderr, "gen_fuzz: cannot write %s: %s\n", path, strerror(errno));
            return 1;
        }
        fputs(p.files[i].text, f);
        fclose(f);
    }
    gen_program_free(&p);
    return 0;
}

/* Writes the root files of n programs into dir (seeds for the parser
 * fuzzer: well-formed programs that use every form). */
static int emit(const char *dir, unsigned long long start, unsigned long n, const GenOptions *go)
{
    mkdir(dir, 0777);
    for (unsigned long i = 0; i < n; i++) {
        GenSource src;
        GenProgram p;
        gen_source_seed(&src, start + i);
        gen_program(&src, go, &p);
        char path[4096];
        snprintf(path, sizeof(path), "%s/gen-%llu.flux", dir, start + i);
        FILE *f = fopen(path, "wb");
        if (!f) {
            fprintf(stderr, "gen_fuzz: cannot write %s: %s\n", path, strerror(errno));
            gen_program_free(&p);
            return 1;
        }
        fputs(p.files[0].text, f);
        fclose(f);
        gen_program_free(&p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = 30;
    const char *env = getenv("FLUX_GEN_SECONDS");
    if (env && *env)
        seconds = atof(env);
    unsigned long count = 0;
    unsigned long long start = (unsigned long long)time(NULL) * 1000 + (unsigned)getpid() % 1000;
    unsigned long long seed = 0;
    bool have_seed = false, print = false, verbose = false;
    const char *write_dir = NULL, *found_dir = "tests/fuzz/found", *emit_dir = NULL;
    bool auto_avoid = false, probe_only = false;
    GenOptions go = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (!strcmp(a, "--seconds") && more)
            seconds = atof(argv[++i]);
        else if (!strcmp(a, "--count") && more)
            count = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--start") && more)
            start = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--seed") && more) {
            seed = strtoull(argv[++i], NULL, 10);
            have_seed = true;
        } else if (!strcmp(a, "--avoid-known"))
            go.avoid = GEN_KNOWN_ALL;
        else if (!strcmp(a, "--avoid-known=auto"))
            auto_avoid = true;
        else if (!strcmp(a, "--features") && more)
            go.features = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(a, "--native") && more)
            native_every = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(a, "--emit") && more)
            emit_dir = argv[++i];
        else if (!strcmp(a, "--probe"))
            probe_only = true;
        else if (!strcmp(a, "--found") && more)
            found_dir = argv[++i];
        else if (!strcmp(a, "--avoid") && more)
            go.avoid = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(a, "--print"))
            print = true;
        else if (!strcmp(a, "--write") && more)
            write_dir = argv[++i];
        else if (!strcmp(a, "-v"))
            verbose = true;
        else
            usage();
    }
    if (auto_avoid || probe_only) {
        go.avoid = gen_probe_found(found_dir, stdout);
        printf("gen_fuzz: the known bugs avoided: --avoid 0x%x\n", go.avoid);
        if (probe_only)
            return 0;
    }
    if (have_seed && write_dir)
        return write_program(seed, &go, write_dir);
    if (emit_dir)
        return emit(emit_dir, start, count ? count : 100, &go);
    if (have_seed && print) {
        GenSource src;
        GenProgram p;
        gen_source_seed(&src, seed);
        gen_program(&src, &go, &p);
        gen_program_print(&p, stdout);
        gen_program_free(&p);
        return 0;
    }
    if (!mkdtemp(tmpdir)) {
        perror("gen_fuzz: mkdtemp");
        return 2;
    }
    install_handlers();
    GenRunOptions ro = {.max_steps = 1000000, .max_memory_mb = 512, .max_seconds = 1,
                        .log = verbose || have_seed ? stdout : NULL};
    GenStats st = {0};
    int res = 0;
    double t0 = now();
    if (have_seed) {
        res = one(seed, &go, &ro, &st, tmpdir, true, true);
        print_stats(&st, now() - t0, seed);
    } else {
        printf("gen_fuzz: from seed %llu for %.0f s%s\n", start, seconds,
               go.avoid ? ", avoiding the known bugs" : "");
        fflush(stdout);
        unsigned long long batch = start, s = start;
        for (; !res; s++) {
            bool last = count ? st.programs + 1 >= count : now() - t0 >= seconds;
            res = one(s, &go, &ro, &st, tmpdir, false, false);
            if (!res && (last || s + 1 - batch >= LEAK_BATCH)) {
                if (leaked()) {
                    blame_leak(batch, s, &go);
                    res = 1;
                }
                batch = s + 1;
            }
            if (last)
                break;
        }
        print_stats(&st, now() - t0, start);
    }
    rmdir(tmpdir);
    fflush(stdout);
    // what was found is reported: no second report of the leaks at exit
    if (res && &__lsan_do_recoverable_leak_check)
        _exit(res);
    return res;
}
