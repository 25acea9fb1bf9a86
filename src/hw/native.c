/*
 * native.c: compiling generated C and caching the objects (native.h).
 *
 * The compiler runs as a child process (posix_spawn), its stderr into a
 * file beside the object so that a failure can say why. Nothing here
 * links a compiler into libflux: libtcc is not position-independent in
 * Debian, and linking LLVM or libgccjit would cost every process's start.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/hash.h"
#include "base/mac.h"
#include "hw/native.h"

extern char **environ;

/* Each tier's compiler and flags. The optimising tier keeps floating
 * point exactly as the interpreter computes it: no contraction into fused
 * multiply-adds (GCC contracts by default), no fast-math. */
static const struct {
    const char *program, *label;
    const char *flags[8];
} tiers[FX_CODE__COUNT] = {
    [FX_CODE_FAST] = {"tcc", "tcc", {"-shared", "-fPIC", NULL}},
    [FX_CODE_OPT] = {"cc", "cc -O2",
                     {"-O2", "-march=native", "-ffp-contract=off", "-fno-strict-aliasing",
                      "-fPIC", "-shared", "-w", NULL}},
};

const char *fx_tier_name(FxCodeTier t)
{
    return tiers[t].label;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

bool fx_native_compiler(FxCodeTier tier, char *path, size_t len, char *why, size_t why_len)
{
    const char *off = getenv("FLUX_NATIVE");
    if (off && !strcmp(off, "off")) {
        snprintf(why, why_len, "FLUX_NATIVE=off");
        return false;
    }
    const char *dirs = getenv("PATH");
    for (const char *d = dirs ? dirs : ""; *d;) {
        size_t n = strcspn(d, ":");
        snprintf(path, len, "%.*s/%s", (int)n, d, tiers[tier].program);
        if (n && access(path, X_OK) == 0)
            return true;
        d += n + (d[n] == ':');
    }
    snprintf(why, why_len, "no %s on PATH", tiers[tier].program);
    return false;
}

/* The bytes of the file at path (NULL: unreadable, or over 256 MB). */
static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *b = fx_xmalloc(cap);
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= (size_t)256 << 20)
                break;
            b = fx_xrealloc(b, cap *= 2);
        }
    }
    bool ok = !ferror(f) && feof(f);
    fclose(f);
    if (!ok) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* The MAC of the file at path with this user's key (mac.h), or false. */
static bool file_mac(const char *path, char out[FX_MAC_HEX])
{
    size_t n;
    char *b = file_bytes(path, &n);
    if (b)
        fx_mac_hex(b, n, out);
    free(b);
    return b != NULL;
}

bool fx_native_plan(FxCodeTier tier, const char *src, const char *dir, const char *machine,
                    FxNativeObject *o, char *why, size_t why_len)
{
    char cc[256];
    memset(o, 0, sizeof(*o));
    if (!fx_native_compiler(tier, cc, sizeof(cc), why, why_len))
        return false;
    struct stat st;
    if (stat(cc, &st) != 0) {
        snprintf(why, why_len, "cannot read %s: %s", cc, strerror(errno));
        return false;
    }
    /* the compiler as installed: another version is another object */
    uint64_t h = fx_fnv1a(FX_FNV_BASIS, src, strlen(src));
    h = fx_fnv1a(h, cc, strlen(cc) + 1);
    h = fx_fnv_step(fx_fnv_step(h, (uint64_t)st.st_size), (uint64_t)st.st_mtime);
    for (int i = 0; tiers[tier].flags[i]; i++)
        h = fx_fnv1a(h, tiers[tier].flags[i], strlen(tiers[tier].flags[i]) + 1);
    h = fx_fnv1a(h, machine, strlen(machine));
    o->tier = tier;
    snprintf(o->key, sizeof(o->key), "%016" PRIx64 "-%s", h, tier == FX_CODE_FAST ? "tcc" : "cc");
    snprintf(o->path, sizeof(o->path), "%s/%s.so", dir, o->key);
    FxBuf line = {0};
    fx_buf_printf(&line, "%s", tiers[tier].program);
    for (int i = 0; tiers[tier].flags[i]; i++)
        if (strcmp(tiers[tier].flags[i], "-w") != 0)
            fx_buf_printf(&line, " %s", tiers[tier].flags[i]);
    snprintf(o->compiler, sizeof(o->compiler), "%s", fx_buf_str(&line));
    fx_buf_free(&line);
    return true;
}

/* The first line of a compiler's complaint, from its stderr file. */
static void first_lines(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(why, 1, why_len - 1, f) : 0;
    why[n] = '\0';
    if (f)
        fclose(f);
    char *nl = strchr(why, '\n');
    if (nl)
        *nl = '\0';
}

bool fx_native_build(FxNativeObject *o, const char *src, char *why, size_t why_len)
{
    char cc[256];
    if (!fx_native_compiler(o->tier, cc, sizeof(cc), why, why_len))
        return false;
    /* the dir, then temporary names of this process: builders never meet */
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", o->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "cannot make %s: %s", dir, strerror(errno));
        return false;
    }
    char *c_path = fx_xasprintf("%s.%d.c", o->path, (int)getpid());
    char *tmp = fx_xasprintf("%s.%d.tmp", o->path, (int)getpid());
    char *err_path = fx_xasprintf("%s.%d.err", o->path, (int)getpid());
    bool ok = false;
    FILE *f = fopen(c_path, "w");
    if (!f || fputs(src, f) < 0 || fclose(f) != 0) {
        snprintf(why, why_len, "cannot write %s: %s", c_path, strerror(errno));
        goto out;
    }
    const char *argv[20];
    int argc = 0;
    argv[argc++] = cc;
    for (int i = 0; tiers[o->tier].flags[i]; i++)
        argv[argc++] = tiers[o->tier].flags[i];
    argv[argc++] = "-o";
    argv[argc++] = tmp;
    argv[argc++] = c_path;
    argv[argc++] = "-lm"; /* the library functions the code calls, wherever libflux is loaded */
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    double t0 = now_ms();
    pid_t pid;
    int rc = posix_spawn(&pid, cc, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(why, why_len, "cannot start %s: %s", cc, strerror(rc));
        goto out;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    o->compile_ms = now_ms() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char first[240];
        first_lines(err_path, first, sizeof(first));
        snprintf(why, why_len, "%s failed: %s", tiers[o->tier].program,
                 first[0] ? first : "no message");
        goto out;
    }
    ok = file_mac(tmp, o->object_mac);
    if (!ok || rename(tmp, o->path) != 0) {
        snprintf(why, why_len, "cannot keep %s: %s", o->path, strerror(errno));
        ok = false;
    }
out:
    unlink(c_path);
    unlink(tmp);
    unlink(err_path);
    free(c_path);
    free(tmp);
    free(err_path);
    return ok;
}

FxNativeHolds fx_native_holds(const FxNativeObject *o, char *why, size_t why_len)
{
    size_t n;
    char *bytes = file_bytes(o->path, &n);
    if (!bytes) {
        snprintf(why, why_len, "its object %s is missing", o->path);
        return FX_NATIVE_MISSING;
    }
    /* only what this user's flux built, as it built it: a store from
     * elsewhere, or an edited one, cannot supply a MAC made with the key */
    bool ours = fx_mac_holds(bytes, n, o->object_mac);
    free(bytes);
    if (!ours)
        snprintf(why, why_len, "its object %s was not built by this user's flux, or has "
                 "changed since (its MAC does not hold with the key in %s)", o->path,
                 fx_mac_key_place());
    return ours ? FX_NATIVE_OURS : FX_NATIVE_FOREIGN;
}

void *fx_native_load(const FxNativeObject *o, const char *symbol, char *why, size_t why_len)
{
    if (fx_native_holds(o, why, why_len) != FX_NATIVE_OURS)
        return NULL;
    void *lib = dlopen(o->path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, why_len, "dlopen: %s", dlerror());
        return NULL;
    }
    void *fn = dlsym(lib, symbol);
    if (!fn)
        snprintf(why, why_len, "its object %s has no %s", o->path, symbol);
    return fn;
}

void fx_native_report(bool json, FxBuf *out)
{
    char path[256], why[128];
    for (int t = 0; t < FX_CODE__COUNT; t++) {
        bool ok = fx_native_compiler((FxCodeTier)t, path, sizeof(path), why, sizeof(why));
        if (json)
            fx_buf_printf(out, "%s{\"tier\": \"%s\", \"compiler\": %s%s%s, \"note\": %s%s%s}",
                          t ? ", " : "", tiers[t].label, ok ? "\"" : "", ok ? path : "null",
                          ok ? "\"" : "", ok ? "" : "\"", ok ? "null" : why, ok ? "" : "\"");
        else if (ok)
            fx_buf_printf(out, "%s%s: %s\n", t ? "          " : "native    ", tiers[t].label,
                          path);
        else
            fx_buf_printf(out, "%s%s: none (%s): %s\n", t ? "          " : "native    ",
                          tiers[t].label, why,
                          t ? "hot functions stay in the interpreter or tcc's code"
                            : "hot functions wait for cc -O2, or stay in the interpreter");
    }
}
