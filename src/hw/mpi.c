/*
 * mpi.c: the MPI device (mpi.h): the ranks of an mpirun job, Open MPI
 * reached through the plugin (mpi_plugin.h), and `flux run --ranks N`'s
 * start of mpirun.
 *
 * DESIGN. Open MPI is a dependency of the tests, not of Flux: the plugin
 * is built only where `pkg-config ompi-c` finds it, and opened (dlopen,
 * RTLD_NOW | RTLD_GLOBAL: Open MPI's own components, which it opens in
 * turn, resolve libmpi's symbols through the global scope) only by
 * fx_mpi_start, which `flux run` calls only under mpirun. So a process
 * outside mpirun maps nothing and initialises nothing: the device's probe
 * reads two environment variables and stats a file.
 *
 * Waiting. A blocking MPI call spins on its core; on a machine where the
 * ranks share cores (mpirun -np 3 on 2 cores) a spinning rank takes the
 * time of the one that computes. So nothing here blocks in MPI: every
 * message is started, then tested, and a wait for a peer that computes
 * (or for the next job) sleeps between tests, from 20 us doubling to
 * 1 ms; a transfer in progress (which MPI moves only while it is called)
 * only yields. The cost is at most a millisecond of latency a wait, which
 * the cluster's thresholds (exec/cluster.h) keep small against the work.
 *
 * Invariants: started (and not stopped) means the plugin's init returned
 * true; rank, size and the library are set once, before started is.
 * Only one thread at a time moves bytes (the cluster's lock).
 */
#include "mpi.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/buf.h"
#include "base/dynlib.h"
#include "device.h"
#include "hw.h"
#include "mpi_plugin.h"
#include "pool.h"

#define PLUGIN_NAME "libflux_mpi.so"

static const FxMpiPlugin *plugin;
static bool started, stopped;
static int my_rank, n_ranks;
static char library[64];

/* ---- the environment mpirun gives its processes ---- */

static long env_long(const char *name, long otherwise)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s)
        return otherwise;
    long v = strtol(s, &end, 10);
    return *end || v < 0 ? otherwise : v;
}

unsigned fx_mpi_env_size(void)
{
    long n = env_long("OMPI_COMM_WORLD_SIZE", 0);
    return n > 0 && n < 1 << 20 ? (unsigned)n : 0;
}

int fx_mpi_env_rank(void)
{
    return fx_mpi_env_size() ? (int)env_long("OMPI_COMM_WORLD_RANK", -1) : -1;
}

unsigned fx_mpi_threads(void)
{
    long here = env_long("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
    unsigned pool = fx_pool_default_size();
    unsigned t = here > 0 ? pool / (unsigned)here : pool;
    return t ? t : 1;
}

/* ---- the plugin ---- */

static bool usable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool fx_mpi_plugin_path(char *out, size_t len, char *why, size_t why_len)
{
    const char *env = getenv("FLUX_MPI_PLUGIN");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        if (usable(out))
            return true;
        snprintf(why, why_len, "no plugin: $FLUX_MPI_PLUGIN names %s, which is not a file", env);
        return false;
    }
    if (fx_dynlib_plugin_path(PLUGIN_NAME, out, len))
        return true;
    snprintf(why, why_len, "no plugin (%s is built only where Open MPI is installed: "
             "scripts/install-deps --test, then make)", PLUGIN_NAME);
    return false;
}

bool fx_mpi_start(bool force, char *why, size_t why_len)
{
    if (started)
        return !stopped;
    if (!force && fx_mpi_env_size() <= 1) {
        snprintf(why, why_len, "not started by mpirun");
        return false;
    }
    char path[PATH_MAX];
    if (!fx_mpi_plugin_path(path, sizeof(path), why, why_len))
        return false;
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        snprintf(why, why_len, "the plugin %s does not load: %s", path, dlerror());
        return false;
    }
    FxMpiPluginFn get = (FxMpiPluginFn)dlsym(h, FX_MPI_PLUGIN_SYMBOL);
    const FxMpiPlugin *p = get ? get() : NULL;
    if (!p || p->version != FX_MPI_PLUGIN_VERSION) {
        snprintf(why, why_len, "the plugin %s is from another build of Flux", path);
        return false;
    }
    if (!p->init(&my_rank, &n_ranks, library, sizeof(library), why, why_len))
        return false;
    plugin = p;
    started = true;
    if (n_ranks < 2) {
        snprintf(why, why_len, "a single rank: nothing to split across (start with mpirun "
                 "-np N or flux run --ranks N)");
        fx_mpi_stop();
        return false;
    }
    return true;
}

bool fx_mpi_running(void)
{
    return started && !stopped;
}

int fx_mpi_rank(void)
{
    return my_rank;
}

int fx_mpi_size(void)
{
    return n_ranks;
}

const char *fx_mpi_library(void)
{
    return library;
}

void fx_mpi_stop(void)
{
    if (!started || stopped)
        return;
    stopped = true;
    plugin->finalize();
}

void fx_mpi_abort(int code)
{
    if (fx_mpi_running())
        plugin->abort(code);
}

/* ---- messages ---- */

struct FxMpiMsg {
    FxMpiReq *req;
};

static FxMpiMsg *start_msg(bool send, int peer, int tag, void *buf, size_t bytes, char *why,
                           size_t why_len)
{
    if (!fx_mpi_running()) {
        snprintf(why, why_len, "MPI is not running");
        return NULL;
    }
    FxMpiReq *r = plugin->start(send, buf, bytes, peer, tag, why, why_len);
    if (!r)
        return NULL;
    FxMpiMsg *m = fx_xmalloc(sizeof(*m));
    m->req = r;
    return m;
}

FxMpiMsg *fx_mpi_isend(int peer, int tag, const void *buf, size_t bytes, char *why,
                       size_t why_len)
{
    return start_msg(true, peer, tag, (void *)buf, bytes, why, why_len);
}

FxMpiMsg *fx_mpi_irecv(int peer, int tag, void *buf, size_t bytes, char *why, size_t why_len)
{
    return start_msg(false, peer, tag, buf, bytes, why, why_len);
}

int fx_mpi_test(FxMpiMsg *m, char *why, size_t why_len)
{
    int t = plugin->test(m->req, why, why_len);
    if (t)
        free(m);
    return t;
}

bool fx_mpi_wait(FxMpiMsg *m, bool idle, char *why, size_t why_len)
{
    long nap = 20000; /* ns */
    for (;;) {
        int t = fx_mpi_test(m, why, why_len);
        if (t)
            return t > 0;
        if (!idle) {
            sched_yield();
            continue;
        }
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        nap = nap < 1000000 ? nap * 2 : 1000000;
    }
}

bool fx_mpi_send(int peer, int tag, const void *buf, size_t bytes, char *why, size_t why_len)
{
    FxMpiMsg *m = fx_mpi_isend(peer, tag, buf, bytes, why, why_len);
    return m && fx_mpi_wait(m, false, why, why_len);
}

bool fx_mpi_recv(int peer, int tag, void *buf, size_t bytes, bool idle, char *why,
                 size_t why_len)
{
    FxMpiMsg *m = fx_mpi_irecv(peer, tag, buf, bytes, why, why_len);
    return m && fx_mpi_wait(m, idle, why, why_len);
}

/* ---- the device (device.h) ---- */

static bool mpi_probe(const FxDevice *dev, FxDeviceInfo *out)
{
    (void)dev;
    unsigned n = fx_mpi_env_size();
    char path[PATH_MAX], why[256];
    *out = (FxDeviceInfo){0};
    if (n <= 1) {
        snprintf(out->what, sizeof(out->what), "none (not started by mpirun)");
        return false;
    }
    if (!fx_mpi_plugin_path(path, sizeof(path), why, sizeof(why))) {
        snprintf(out->what, sizeof(out->what), "none (no plugin: Flux was built without Open "
                 "MPI)");
        return false;
    }
    out->units = n;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) /* this rank's node's: the others' are not known here */
        out->memory = (uint64_t)pages * (uint64_t)page;
    snprintf(out->what, sizeof(out->what), "%u ranks under mpirun, this one rank %d, %u "
             "thread%s a rank", n, fx_mpi_env_rank(), fx_mpi_threads(),
             fx_mpi_threads() == 1 ? "" : "s");
    return true;
}

/* Each rank's memory is its host's. */
static void *mpi_alloc(const FxDevice *dev, size_t bytes)
{
    (void)dev;
    return malloc(bytes ? bytes : 1);
}

static void mpi_release(const FxDevice *dev, void *p)
{
    (void)dev;
    free(p);
}

static void mpi_copy(const FxDevice *dev, void *dst, const void *src, size_t bytes)
{
    (void)dev;
    if (bytes)
        memcpy(dst, src, bytes);
}

/* A C task cannot run on another rank (its function pointer means nothing
 * there): the tasks run on this rank's CPU. Kernels that split across
 * ranks call the cluster's jobs (exec/cluster.h) instead. */
static void mpi_launch(const FxDevice *dev, size_t n_tasks, FxTaskFn fn, void *arg,
                       FxWaitFn wait)
{
    (void)dev;
    fx_device_launch(fx_device_cpu(), n_tasks, fn, arg, wait);
}

const FxDevice fx_mpi_device = {
    .id = FX_DEVICE_MPI,
    .name = "mpi",
    .probe = mpi_probe,
    .alloc = mpi_alloc,
    .release = mpi_release,
    .copy = mpi_copy,
    .launch = mpi_launch,
};

/* ---- flux run --ranks N: mpirun, started and watched ---- */

extern char **environ;

/* What mpirun reported about a rank that failed. */
typedef struct Failure {
    int rank;   /* -1: none reported */
    int signal; /* 0: it exited with a code */
    int code;
} Failure;

static int number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? atoi(p + strlen(key)) : -1;
}

/* One of mpirun's boxed reports (between lines of dashes): about a rank
 * that failed, which the caller replaces by one sentence (kept in *f), or
 * anything else, which is passed on as it is. */
static bool failure_report(const char *box, Failure *f)
{
    if (strstr(box, "noticed that process rank")) {
        f->rank = number_after(box, "process rank ");
        f->signal = number_after(box, "on signal ");
        return true;
    }
    if (strstr(box, "exited with non-zero status")) {
        const char *name = strstr(box, "Process name: [[");
        const char *comma = name ? strstr(name, "],") : NULL;
        if (f->rank < 0 && comma) {
            f->rank = atoi(comma + 2);
            f->code = number_after(box, "Exit code:");
        }
        return true;
    }
    return strstr(box, "Primary job") != NULL;
}

/* Passes mpirun's stderr on, line by line, holding its boxed reports. */
static void relay(int fd, Failure *f)
{
    FILE *in = fdopen(fd, "r");
    if (!in)
        return;
    FxBuf box = {0};
    bool in_box = false;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, in) > 0) {
        bool dashes = strspn(line, "-") >= 20;
        if (dashes && !in_box) {
            in_box = true;
            fx_buf_free(&box);
        } else if (dashes) {
            in_box = false;
            if (!failure_report(fx_buf_str(&box), f))
                fprintf(stderr, "%s%s%s", line, fx_buf_str(&box), line);
        } else if (in_box) {
            fx_buf_puts(&box, line);
        } else {
            fputs(line, stderr);
        }
    }
    if (in_box) /* a box cut short: as it came */
        fputs(fx_buf_str(&box), stderr);
    fflush(stderr);
    free(line);
    fx_buf_free(&box);
    fclose(in);
}

/* The environment of mpirun: ours, and what it needs here. */
static char **mpirun_env(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = fx_xcalloc(n + 4, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        env[k++] = environ[i];
    /* hwloc's GL and OpenCL components probe for GPUs at each rank's
     * start: 0.3 to 0.5 s of mpirun -np 2's 0.7 to 1.4 s here */
    if (!getenv("HWLOC_COMPONENTS"))
        env[k++] = (char *)"HWLOC_COMPONENTS=-gl,-opencl";
    if (geteuid() == 0) { /* mpirun refuses root without both */
        env[k++] = (char *)"OMPI_ALLOW_RUN_AS_ROOT=1";
        env[k++] = (char *)"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";
    }
    env[k] = NULL;
    return env;
}

int fx_mpi_launch(unsigned ranks, int argc, char *const argv[])
{
    char self[PATH_MAX], np[16];
    if (fx_mpi_env_size()) {
        fprintf(stderr, "flux: --ranks: this command runs under mpirun already; drop --ranks "
                "(the ranks are mpirun's)\n");
        return 2;
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        fprintf(stderr, "flux: --ranks: cannot find this program (/proc/self/exe): %s\n",
                strerror(errno));
        return 1;
    }
    self[len] = '\0';
    snprintf(np, sizeof(np), "%u", ranks);
    const char *head[] = {"mpirun", "-np", np, "--bind-to", "none", "--mca", "pml", "ob1",
                          "--mca", "btl", "self,vader", NULL};
    size_t nh = sizeof(head) / sizeof(head[0]) - 1;
    char **args = fx_xcalloc(nh + 2 + (size_t)argc + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < nh; i++)
        args[k++] = (char *)head[i];
    if (ranks > fx_hw_detect().cores) /* mpirun gives a node as many slots as cores */
        args[k++] = (char *)"--oversubscribe";
    args[k++] = self;
    for (int i = 0; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        fprintf(stderr, "flux: --ranks: pipe: %s\n", strerror(errno));
        free(args);
        return 1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    char **env = mpirun_env();
    fflush(NULL);
    pid_t pid;
    int rc = posix_spawnp(&pid, "mpirun", &fa, NULL, args, env);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    free(args);
    free(env);
    if (rc != 0) {
        close(pipefd[0]);
        fprintf(stderr, "flux: --ranks needs mpirun (Open MPI), which did not start: %s; "
                "scripts/install-deps --test installs it\n", strerror(rc));
        return 1;
    }
    /* Ctrl-C reaches mpirun (our process group), which stops its ranks:
     * this process waits for it rather than die first */
    void (*old_int)(int) = signal(SIGINT, SIG_IGN);
    Failure f = {-1, 0, 0};
    relay(pipefd[0], &f);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    signal(SIGINT, old_int);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (f.rank > 0 || (f.rank == 0 && f.signal > 0)) {
        if (f.signal > 0)
            fprintf(stderr, "flux: rank %d of %u died (signal %d, %s); mpirun stopped the "
                    "other ranks, and a run whose job had not finished is not recorded\n",
                    f.rank, ranks, f.signal, strsignal(f.signal));
        else
            fprintf(stderr, "flux: rank %d of %u failed (exit code %d); mpirun stopped the "
                    "other ranks, and a run whose job had not finished is not recorded\n",
                    f.rank, ranks, f.code);
        return 1;
    }
    if (code > 128) {
        fprintf(stderr, "flux: mpirun ended with status %d: a rank died\n", code);
        return 1;
    }
    return code;
}
