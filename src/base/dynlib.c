/*
 * dynlib.c: a heavy library loaded when first needed (dynlib.h).
 *
 * RTLD_LOCAL keeps its symbols (and those of what it pulls in) out of the
 * global scope; the handle is never closed, so resolved functions stay
 * valid for the life of the process.
 */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>

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
