/*
 * vqsort.c: the C side of vqsort.h: opens the Highway plugin once, at the
 * first sort that asks for it, from whichever thread comes first.
 */
#include "vqsort.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>

#include "base/dynlib.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const FxVqsortPlugin *plugin;

static void open_plugin(void)
{
    char path[PATH_MAX];
    if (!fx_dynlib_plugin_path(FX_VQSORT_PLUGIN_NAME, path, sizeof(path)))
        return;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* never closed: its functions stay */
    FxVqsortPluginFn get = h ? (FxVqsortPluginFn)dlsym(h, FX_VQSORT_PLUGIN_SYMBOL) : NULL;
    const FxVqsortPlugin *p = get ? get() : NULL;
    if (p && p->version == FX_VQSORT_PLUGIN_VERSION) /* else from another build: unused */
        plugin = p;
}

bool fx_vqsort_available(void)
{
    pthread_once(&once, open_plugin);
    return plugin != NULL;
}

bool fx_vqsort_i64(int64_t *a, size_t n, bool descending)
{
    if (!fx_vqsort_available())
        return false;
    plugin->sort_i64(a, n, descending);
    return true;
}

bool fx_vqsort_pairs(FxSortPair *p, size_t n, bool descending)
{
    return fx_vqsort_available() && plugin->sort_pairs(p, n, descending);
}
