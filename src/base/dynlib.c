/*
 * dynlib.c: a heavy library loaded when first needed (dynlib.h).
 *
 * RTLD_LOCAL keeps its symbols (and those of what it pulls in) out of the
 * global scope; the handle is never closed, so resolved functions stay
 * valid for the life of the process.
 */
#define _GNU_SOURCE /* dladdr */
#include "dynlib.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool fx_dynlib_load(const char *what, const char *soname, const char *const *names, void **fns,
                    size_t n, char *why, size_t why_len)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, why_len, "%s (%s) is not installed: %s", what, soname, dlerror());
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        fns[i] = dlsym(h, names[i]);
        if (!fns[i]) {
            snprintf(why, why_len, "%s (%s) has no %s: %s", what, soname, names[i], dlerror());
            return false;
        }
    }
    return true;
}

/* dir(file)/rel into out when that file exists. */
static bool beside(const char *file, const char *rel, char *out, size_t len)
{
    char real[PATH_MAX];
    if (!file || !realpath(file, real))
        return false;
    char *slash = strrchr(real, '/');
    if (!slash)
        return false;
    *slash = '\0';
    int n = snprintf(out, len, "%s/%s", real, rel);
    struct stat st;
    return n > 0 && (size_t)n < len && stat(out, &st) == 0 && S_ISREG(st.st_mode);
}

bool fx_dynlib_plugin_path(const char *name, char *out, size_t len)
{
    Dl_info info;
    const char *self = dladdr((void *)fx_dynlib_plugin_path, &info) ? info.dli_fname : NULL;
    const char *exe = "/proc/self/exe";
    char rel[3][128];
    snprintf(rel[0], sizeof(rel[0]), "flux/%s", name);
    snprintf(rel[1], sizeof(rel[1]), "../lib/flux/%s", name);
    snprintf(rel[2], sizeof(rel[2]), "../%s", name);
    return beside(self, name, out, len) || beside(exe, name, out, len) ||
           beside(self, rel[0], out, len) || beside(exe, rel[1], out, len) ||
           beside(exe, rel[2], out, len);
}
