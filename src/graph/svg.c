/*
 * svg.c: a graph drawn as SVG by Graphviz's own library (libgvc): the dot
 * text of print.c is laid out with the `dot` engine and rendered in memory,
 * so no external program runs.
 */
#include <graphviz/gvc.h>
#include <stdlib.h>

#include "graph.h"

bool fx_graph_print_svg(const FxGraph *g, FxBuf *out, char *why, size_t why_len)
{
    FxBuf dot = {0};
    fx_graph_print_dot(g, &dot);
    GVC_t *gvc = gvContext();
    Agraph_t *ag = agmemread(fx_buf_str(&dot));
    bool ok = false;
    char *data = NULL;
    unsigned int len = 0;
    if (!ag) {
        snprintf(why, why_len, "Graphviz could not read the graph");
    } else if (gvLayout(gvc, ag, "dot") != 0) {
        snprintf(why, why_len, "Graphviz could not lay the graph out");
    } else {
        ok = gvRenderData(gvc, ag, "svg", &data, &len) == 0;
        if (ok)
            fx_buf_append(out, data, len);
        else
            snprintf(why, why_len, "Graphviz could not render SVG");
        gvFreeRenderData(data);
        gvFreeLayout(gvc, ag);
    }
    if (ag)
        agclose(ag);
    gvFreeContext(gvc);
    fx_buf_free(&dot);
    return ok;
}
