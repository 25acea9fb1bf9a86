/*
 * svg.c: a graph drawn as SVG by Graphviz's own library (libgvc): the dot
 * text of print.c is laid out with the `dot` engine and rendered in memory,
 * so no external program runs. libgvc is opened on the first drawing
 * (base/dynlib.h): no other command maps Graphviz.
 *
 * One Graphviz context serves the process, and one drawing is made at a
 * time: libgvc is not thread-safe, and its text plugin keeps font data
 * across drawings that a freed context leaves dangling (a second drawing in
 * the same process, as `flux serve` makes, read freed memory).
 */
#include <graphviz/gvc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynlib.h"
#include "graph.h"

#ifndef FX_GVC_SONAME /* the Makefile names the one it links against */
#define FX_GVC_SONAME "libgvc.so.6"
#endif

/* What this file calls; agmemread and agclose are libcgraph's, which
 * libgvc pulls in. */
#define GV_FUNCTIONS(X)                                                                            \
    X(gvContext) X(agmemread) X(gvLayout) X(gvRenderData) X(gvFreeRenderData) X(gvFreeLayout)     \
    X(agclose)

static struct {
#define FIELD(f) __typeof__(f) *f;
    GV_FUNCTIONS(FIELD)
#undef FIELD
} gv;

static char gv_missing[256]; /* why Graphviz could not be loaded; "" when it was */
static pthread_once_t gv_once = PTHREAD_ONCE_INIT;
static GVC_t *gvc;            /* the process's context, never freed */
static pthread_mutex_t gv_lock = PTHREAD_MUTEX_INITIALIZER;

static void load_gv(void)
{
#define NAME(f) #f,
    static const char *const names[] = {GV_FUNCTIONS(NAME)};
#undef NAME
    void *fns[FX_ARRAY_LEN(names)];
    if (!fx_dynlib_load("Graphviz", FX_GVC_SONAME, names, fns, FX_ARRAY_LEN(names), gv_missing,
                        sizeof(gv_missing)))
        return;
    size_t i = 0;
#define SET(f) memcpy(&gv.f, &fns[i++], sizeof(void *));
    GV_FUNCTIONS(SET)
#undef SET
    gvc = gv.gvContext();
    if (!gvc)
        snprintf(gv_missing, sizeof(gv_missing), "Graphviz could not make a context");
}

bool fx_graph_print_svg(const FxGraph *g, FxBuf *out, char *why, size_t why_len)
{
    pthread_once(&gv_once, load_gv);
    if (gv_missing[0]) {
        snprintf(why, why_len, "%s", gv_missing);
        return false;
    }
    FxBuf dot = {0};
    fx_graph_print_dot(g, &dot);
    pthread_mutex_lock(&gv_lock);
    Agraph_t *ag = gv.agmemread(fx_buf_str(&dot));
    bool ok = false;
    char *data = NULL;
    unsigned int len = 0;
    if (!ag) {
        snprintf(why, why_len, "Graphviz could not read the graph");
    } else if (gv.gvLayout(gvc, ag, "dot") != 0) {
        snprintf(why, why_len, "Graphviz could not lay the graph out");
    } else {
        ok = gv.gvRenderData(gvc, ag, "svg", &data, &len) == 0;
        if (ok)
            fx_buf_append(out, data, len);
        else
            snprintf(why, why_len, "Graphviz could not render SVG");
        gv.gvFreeRenderData(data);
        gv.gvFreeLayout(gvc, ag);
    }
    if (ag)
        gv.agclose(ag);
    pthread_mutex_unlock(&gv_lock);
    fx_buf_free(&dot);
    return ok;
}
