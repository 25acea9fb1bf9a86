/*
 * print.c: graphs as text (for people), Graphviz dot, and JSON (storage).
 *
 * All three print nodes in id order, which is dependency order, so the
 * text reads top to bottom like a program. JSON uses jansson with keys in
 * a fixed order; read.c parses the same layout back, and the pair is
 * byte-for-byte stable (print, read, print gives the same text).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static void print_attrs_text(const FxNode *n, FxBuf *out)
{
    switch (n->op) {
    case FX_NODE_CONST:
        if (fx_typeid_kind(n->tid) == FX_TK_STRING) {
            json_t *j = json_string(n->text);
            char *s = json_dumps(j, JSON_ENCODE_ANY);
            fx_buf_printf(out, " %s", s);
            free(s);
            json_decref(j);
        } else {
            fx_buf_printf(out, " %s", n->text);
        }
        return;
    case FX_NODE_PARAM:
    case FX_NODE_VAR:
        fx_buf_printf(out, " %lld", (long long)n->num);
        return;
    case FX_NODE_FOLD:
        fx_buf_printf(out, " %s [slot %lld]", fx_graph_fold_name((FxFoldKind)n->num),
                      (long long)n->num2);
        if (n->text) /* "primes": over the primes of its range, by a sieve kernel */
            fx_buf_printf(out, " [%s]", n->text);
        return;
    case FX_NODE_MAP:
        fx_buf_printf(out, " [slot %lld", (long long)n->num);
        if (n->num2 >= 0)
            fx_buf_printf(out, ", slot %lld", (long long)n->num2);
        fx_buf_puts(out, "]");
        if (n->text) /* "gemm": a matrix product by a kernel */
            fx_buf_printf(out, " [%s]", n->text);
        return;
    case FX_NODE_SORT:
        fx_buf_printf(out, " %s", n->num ? "descending" : "ascending");
        if (n->num2 >= 0)
            fx_buf_printf(out, " [slot %lld]", (long long)n->num2);
        if (n->text) /* "kernels": the evolved sort, a kernel chosen per call */
            fx_buf_printf(out, " [%s]", n->text);
        return;
    case FX_NODE_CHECK:
    case FX_NODE_GROUP:
    case FX_NODE_LET:
        fx_buf_printf(out, " [slot %lld]", (long long)n->num2);
        return;
    case FX_NODE_RANGE:
        fx_buf_puts(out, n->num ? " closed" : " half-open");
        return;
    case FX_NODE_CALL:
        fx_buf_printf(out, " %s", n->text);
        if (n->num == 1) /* a primality predicate answered from a sieve window */
            fx_buf_puts(out, " [sieved]");
        return;
    default:
        if (n->text)
            fx_buf_printf(out, " %s", n->text);
        return;
    }
}

void fx_graph_print_text(const FxGraph *g, FxBuf *out)
{
    fx_buf_printf(out, "graph %s %s (", g->intent, g->version);
    for (uint32_t i = 0; i < g->n_params; i++)
        fx_buf_printf(out, "%s%s: %s", i ? ", " : "", g->param_names[i], g->param_types[i]);
    fx_buf_printf(out, ") -> %s", g->ret_type);
    if (g->kernel)
        fx_buf_printf(out, " [kernel %s]", g->kernel);
    if (g->tolerance > 0)
        fx_buf_printf(out, " [tolerance %g]", g->tolerance);
    fx_buf_putc(out, '\n');
    if (g->kernel && !strcmp(g->kernel, "recurrence")) {
        fx_graph_print_recurrence(g, out);
        fx_buf_putc(out, '\n');
    }
    if (g->n_table) {
        fx_graph_print_table(g, out);
        fx_buf_putc(out, '\n');
    }
    if (g->n_materialised) {
        fx_graph_print_materialised(g, out);
        fx_buf_putc(out, '\n');
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        size_t start = out->len;
        fx_buf_printf(out, "  %%%u = %s", i + 1, fx_graph_op_name(n->op));
        print_attrs_text(n, out);
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            const char *sep = k ? ", " : " ";
            if (n->inputs[k].v == 0)
                fx_buf_printf(out, "%s-", sep);
            else if (fx_graph_input_is_lazy(n->op, k))
                fx_buf_printf(out, "%s{%%%u}", sep, n->inputs[k].v);
            else
                fx_buf_printf(out, "%s%%%u", sep, n->inputs[k].v);
        }
        fx_buf_printf(out, " : %s", n->type);
        if (n->op == FX_NODE_CHECK && n->text)
            fx_buf_printf(out, "  ; checks %s", n->text);
        if (n->origin.file || n->origin.rewrite) {
            while (out->len - start < 56)
                fx_buf_putc(out, ' ');
            if (n->origin.rewrite)
                fx_buf_printf(out, "  @ rewrite %s", n->origin.rewrite);
            else
                fx_buf_printf(out, "  @ %s:%u:%u", n->origin.file, n->origin.line,
                              n->origin.col);
        }
        fx_buf_putc(out, '\n');
    }
    fx_buf_printf(out, "  return %%%u\n", g->root.v);
}

static void dot_escape(const char *s, FxBuf *out)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fx_buf_putc(out, '\\');
        fx_buf_putc(out, *s);
    }
}

void fx_graph_print_dot(const FxGraph *g, FxBuf *out)
{
    fx_buf_printf(out, "digraph \"%s %s\" {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n",
                  g->intent, g->version);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        FxBuf label = {0};
        fx_buf_printf(&label, "%%%u %s", i + 1, fx_graph_op_name(n->op));
        print_attrs_text(n, &label);
        fx_buf_printf(&label, "\n%s", n->type);
        fx_buf_printf(out, "  n%u [label=\"", i + 1);
        dot_escape(fx_buf_str(&label), out);
        fx_buf_printf(out, "\"%s];\n", g->root.v == i + 1 ? ", penwidth=2" : "");
        fx_buf_free(&label);
        for (uint32_t k = 0; k < n->n_inputs; k++) {
            if (n->inputs[k].v == 0)
                continue;
            fx_buf_printf(out, "  n%u -> n%u%s;\n", n->inputs[k].v, i + 1,
                          fx_graph_input_is_lazy(n->op, k) ? " [style=dashed]" : "");
        }
    }
    fx_buf_puts(out, "}\n");
}

static json_t *origin_json(const FxOrigin *o)
{
    if (o->rewrite)
        return json_pack("{s:s}", "rewrite", o->rewrite);
    if (!o->file)
        return json_null();
    return json_pack("{s:s, s:I, s:I, s:I}", "file", o->file, "line", (json_int_t)o->line, "col",
                     (json_int_t)o->col, "len", (json_int_t)o->len);
}

static json_t *node_json(const FxNode *n, uint32_t id)
{
    json_t *inputs = json_array();
    for (uint32_t k = 0; k < n->n_inputs; k++)
        json_array_append_new(inputs, json_integer(n->inputs[k].v));
    json_t *j = json_object();
    json_object_set_new(j, "id", json_integer(id));
    json_object_set_new(j, "op", json_string(fx_graph_op_name(n->op)));
    json_object_set_new(j, "type", json_string(n->type));
    json_object_set_new(j, "inputs", inputs);
    json_object_set_new(j, "text", n->text ? json_string(n->text) : json_null());
    json_object_set_new(j, "num", json_integer(n->num));
    json_object_set_new(j, "num2", json_integer(n->num2));
    json_object_set_new(j, "origin", origin_json(&n->origin));
    return j;
}

void fx_graph_print_recurrence(const FxGraph *g, FxBuf *out)
{
    const char *f = g->intent, *n = g->n_params ? g->param_names[0] : "n";
    fx_buf_printf(out, "  %s(%s) =", f, n);
    bool first = true;
    for (uint32_t j = 1; j <= g->rec.order; j++) {
        int64_t c = g->rec.coeffs[j - 1];
        if (c == 0)
            continue;
        fx_buf_printf(out, " %s", first ? (c < 0 ? "-" : "") : (c < 0 ? "- " : "+ "));
        if (c != 1 && c != -1)
            fx_buf_printf(out, "%llu*", c < 0 ? 0ULL - (unsigned long long)c : (unsigned long long)c);
        fx_buf_printf(out, "%s(%s-%u)", f, n, j);
        first = false;
    }
    if (first)
        fx_buf_puts(out, " 0");
    fx_buf_printf(out, " for %s >= %u; ", n, g->rec.order);
    for (uint32_t i = 0; i < g->rec.order; i++)
        fx_buf_printf(out, "%s%s(%u) = %s", i ? ", " : "", f, i, g->rec.initial[i]);
    fx_buf_puts(out, "; variants");
    for (uint32_t v = 1; v <= FX_VARIANT_POWER; v <<= 1)
        if (g->variants & v)
            fx_buf_printf(out, " %s", fx_graph_variant_name(v));
}

void fx_graph_print_table(const FxGraph *g, FxBuf *out)
{
    uint32_t w = g->n_params + 1, shown = g->n_table < 8 ? g->n_table : 8;
    fx_buf_puts(out, "  table:");
    for (uint32_t r = 0; r < shown; r++) {
        fx_buf_printf(out, "%s %s(", r ? ";" : "", g->intent);
        for (uint32_t i = 0; i < g->n_params; i++)
            fx_buf_printf(out, "%s%s", i ? ", " : "", g->table[r * w + i]);
        fx_buf_printf(out, ") = %s", g->table[r * w + g->n_params]);
    }
    if (shown < g->n_table)
        fx_buf_printf(out, "; ... (%u entries)", g->n_table);
}

void fx_graph_print_materialised(const FxGraph *g, FxBuf *out)
{
    uint32_t shown = g->n_materialised < 8 ? g->n_materialised : 8;
    fx_buf_puts(out, "  materialised:");
    for (uint32_t r = 0; r < shown; r++) {
        fx_buf_printf(out, "%s %s(", r ? ";" : "", g->intent);
        for (uint32_t i = 0; i < g->n_params; i++)
            fx_buf_printf(out, "%s%s", i ? ", " : "", g->materialised[r * g->n_params + i]);
        fx_buf_putc(out, ')');
    }
    if (shown < g->n_materialised)
        fx_buf_printf(out, "; ... (%u entries)", g->n_materialised);
}

static json_t *recurrence_json(const FxGraph *g)
{
    json_t *coeffs = json_array(), *initial = json_array(), *variants = json_array();
    for (uint32_t i = 0; i < g->rec.order; i++) {
        json_array_append_new(coeffs, json_integer(g->rec.coeffs[i]));
        json_array_append_new(initial, json_string(g->rec.initial[i]));
    }
    for (uint32_t v = 1; v <= FX_VARIANT_POWER; v <<= 1)
        if (g->variants & v)
            json_array_append_new(variants, json_string(fx_graph_variant_name(v)));
    return json_pack("{s:o, s:o, s:o}", "coeffs", coeffs, "initial", initial, "variants",
                     variants);
}

void fx_graph_print_json(const FxGraph *g, FxBuf *out)
{
    json_t *params = json_array();
    for (uint32_t i = 0; i < g->n_params; i++)
        json_array_append_new(params, json_pack("{s:s, s:s}", "name", g->param_names[i], "type",
                                                g->param_types[i]));
    json_t *nodes = json_array();
    for (uint32_t i = 0; i < g->n_nodes; i++)
        json_array_append_new(nodes, node_json(&g->nodes[i], i + 1));
    json_t *j = json_object();
    json_object_set_new(j, "format", json_string("flux-graph-1"));
    json_object_set_new(j, "intent", json_string(g->intent));
    json_object_set_new(j, "version", json_string(g->version));
    json_object_set_new(j, "params", params);
    json_object_set_new(j, "returns", json_string(g->ret_type));
    json_object_set_new(j, "slots", json_integer(g->n_slots));
    json_object_set_new(j, "root", json_integer(g->root.v));
    json_object_set_new(j, "kernel", g->kernel ? json_string(g->kernel) : json_null());
    if (g->tolerance > 0)
        json_object_set_new(j, "tolerance", json_real(g->tolerance));
    if (g->kernel && !strcmp(g->kernel, "recurrence"))
        json_object_set_new(j, "recurrence", recurrence_json(g));
    if (g->n_table) {
        json_t *rows = json_array();
        for (uint32_t r = 0; r < g->n_table; r++) {
            json_t *row = json_array();
            for (uint32_t i = 0; i <= g->n_params; i++)
                json_array_append_new(row, json_string(g->table[r * (g->n_params + 1) + i]));
            json_array_append_new(rows, row);
        }
        json_object_set_new(j, "table", rows);
    }
    if (g->n_materialised) {
        json_t *rows = json_array();
        for (uint32_t r = 0; r < g->n_materialised; r++) {
            json_t *row = json_array();
            for (uint32_t i = 0; i < g->n_params; i++)
                json_array_append_new(row, json_string(g->materialised[r * g->n_params + i]));
            json_array_append_new(rows, row);
        }
        json_object_set_new(j, "materialised", rows);
    }
    json_object_set_new(j, "nodes", nodes);
    char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_COMPACT);
    fx_buf_puts(out, s);
    fx_buf_putc(out, '\n');
    free(s);
    json_decref(j);
}
