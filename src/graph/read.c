/*
 * read.c: a graph back from its JSON form (print.c), validated: a stored
 * version is untrusted input, so every field is checked and the graph must
 * pass fx_graph_verify before it is returned.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static bool op_from_name(const char *name, FxNodeOp *out)
{
    for (int op = 0; op < FX_NODE__COUNT; op++) {
        if (strcmp(fx_graph_op_name((FxNodeOp)op), name) == 0) {
            *out = (FxNodeOp)op;
            return true;
        }
    }
    return false;
}

static bool read_origin(json_t *o, FxOrigin *out)
{
    memset(out, 0, sizeof(*out));
    if (json_is_null(o))
        return true;
    const char *rewrite = NULL, *file = NULL;
    json_int_t line = 0, col = 0, len = 0;
    if (json_unpack(o, "{s:s}", "rewrite", &rewrite) == 0) {
        out->rewrite = rewrite;
        return true;
    }
    if (json_unpack(o, "{s:s, s:I, s:I, s:I}", "file", &file, "line", &line, "col", &col, "len",
                    &len) != 0)
        return false;
    out->file = file;
    out->line = (uint32_t)line;
    out->col = (uint32_t)col;
    out->len = (uint32_t)len;
    return true;
}

static bool read_node(FxGraph *g, json_t *jn, uint32_t expect_id, char *why, size_t why_len)
{
    json_int_t id, num, num2;
    const char *op_name, *type;
    json_t *inputs, *text, *origin;
    if (json_unpack(jn, "{s:I, s:s, s:s, s:o, s:o, s:I, s:I, s:o}", "id", &id, "op", &op_name,
                    "type", &type, "inputs", &inputs, "text", &text, "num", &num, "num2", &num2,
                    "origin", &origin) != 0 ||
        !json_is_array(inputs) || (id != expect_id)) {
        snprintf(why, why_len, "node %u is malformed", expect_id);
        return false;
    }
    FxNodeOp op;
    FxOrigin o;
    if (!op_from_name(op_name, &op) || !read_origin(origin, &o) ||
        (!json_is_null(text) && !json_is_string(text))) {
        snprintf(why, why_len, "node %u has an unknown op or a bad origin", expect_id);
        return false;
    }
    size_t n = json_array_size(inputs);
    FxNodeId ids[64];
    if (n > 64) {
        snprintf(why, why_len, "node %u has too many inputs", expect_id);
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        json_t *v = json_array_get(inputs, k);
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) >= (json_int_t)expect_id) {
            snprintf(why, why_len, "node %u has a bad input", expect_id);
            return false;
        }
        ids[k].v = (uint32_t)json_integer_value(v);
    }
    FxNodeId nid = fx_graph_add(g, op, type, ids, (uint32_t)n, o);
    FxNode *node = fx_graph_node(g, nid);
    node->text = json_is_string(text) ? fx_graph_intern(g, json_string_value(text)) : NULL;
    node->num = num;
    node->num2 = num2;
    return true;
}

static bool read_recurrence(FxGraph *g, json_t *r, char *why, size_t why_len)
{
    json_t *coeffs = json_object_get(r, "coeffs"), *initial = json_object_get(r, "initial");
    json_t *variants = json_object_get(r, "variants");
    size_t k = json_array_size(coeffs);
    if (!json_is_array(coeffs) || !json_is_array(initial) || !json_is_array(variants) || k == 0 ||
        k > FX_RECURRENCE_MAX_ORDER || json_array_size(initial) != k || g->n_params != 1) {
        snprintf(why, why_len, "the recurrence kernel is malformed");
        return false;
    }
    FxRecurrence rec = {.order = (uint32_t)k};
    for (size_t i = 0; i < k; i++) {
        json_t *c = json_array_get(coeffs, i), *v = json_array_get(initial, i);
        if (!json_is_integer(c) || !json_is_string(v) || !fx_is_decimal(json_string_value(v))) {
            snprintf(why, why_len, "the recurrence kernel is malformed");
            return false;
        }
        rec.coeffs[i] = json_integer_value(c);
        rec.initial[i] = json_string_value(v);
    }
    uint32_t bits = 0;
    for (size_t i = 0; i < json_array_size(variants); i++) {
        const char *name = json_string_value(json_array_get(variants, i));
        uint32_t v = !name ? 0 : !strcmp(name, "loop") ? FX_VARIANT_LOOP
                               : !strcmp(name, "power") ? FX_VARIANT_POWER : 0;
        if (!v) {
            snprintf(why, why_len, "unknown variant `%s`", name ? name : "?");
            return false;
        }
        bits |= v;
    }
    if (!bits) {
        snprintf(why, why_len, "the recurrence kernel has no variant");
        return false;
    }
    fx_graph_set_recurrence(g, &rec, bits);
    return true;
}

/* A cell of the hot-input table: an integer, true or false. */
static bool table_cell(const char *s)
{
    return s && (fx_is_decimal(s) || !strcmp(s, "true") || !strcmp(s, "false"));
}

/* The hot-input table (`result` cells: n_params + 1 a row) or the
 * materialised arguments (n_params a row). */
static bool read_table(FxGraph *g, json_t *t, bool result, char *why, size_t why_len)
{
    if (!t) /* optional */
        return true;
    size_t n = json_array_size(t), w = g->n_params + result;
    if (!json_is_array(t) || n > 4096) {
        snprintf(why, why_len, "the table is malformed");
        return false;
    }
    const char **cells = fx_xmalloc((n * w + 1) * sizeof(char *));
    bool ok = true;
    for (size_t r = 0; ok && r < n; r++) {
        json_t *row = json_array_get(t, r);
        ok = json_is_array(row) && json_array_size(row) == w;
        for (size_t i = 0; ok && i < w; i++) {
            cells[r * w + i] = json_string_value(json_array_get(row, i));
            ok = table_cell(cells[r * w + i]);
        }
    }
    if (ok && result)
        fx_graph_set_table(g, (uint32_t)n, cells);
    else if (ok)
        fx_graph_set_materialised(g, (uint32_t)n, cells);
    else
        snprintf(why, why_len, "the table is malformed");
    free(cells);
    return ok;
}

FxGraph *fx_graph_read_json(const char *text, char *why, size_t why_len)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j) {
        snprintf(why, why_len, "not JSON: %s at line %d", err.text, err.line);
        return NULL;
    }
    const char *format, *intent, *version, *ret;
    json_t *params, *nodes;
    json_int_t slots, root;
    FxGraph *g = NULL;
    if (json_unpack(j, "{s:s, s:s, s:s, s:o, s:s, s:I, s:I, s:o}", "format", &format, "intent",
                    &intent, "version", &version, "params", &params, "returns", &ret, "slots",
                    &slots, "root", &root, "nodes", &nodes) != 0 ||
        strcmp(format, "flux-graph-1") != 0 || !json_is_array(params) || !json_is_array(nodes)) {
        snprintf(why, why_len, "not a flux-graph-1 document");
        goto fail;
    }
    g = fx_graph_new(intent, version);
    fx_graph_set_ret_type(g, ret);
    for (size_t i = 0; i < json_array_size(params); i++) {
        const char *name, *type;
        if (json_unpack(json_array_get(params, i), "{s:s, s:s}", "name", &name, "type", &type)) {
            snprintf(why, why_len, "parameter %zu is malformed", i);
            goto fail;
        }
        fx_graph_add_param(g, name, type);
    }
    if (slots < g->n_params || slots > 1 << 20) {
        snprintf(why, why_len, "bad slot count");
        goto fail;
    }
    g->n_slots = (uint32_t)slots;
    for (size_t i = 0; i < json_array_size(nodes); i++)
        if (!read_node(g, json_array_get(nodes, i), (uint32_t)i + 1, why, why_len))
            goto fail;
    g->root.v = root >= 0 && root <= g->n_nodes ? (uint32_t)root : 0;
    json_t *kernel = json_object_get(j, "kernel"); /* optional: older documents lack it */
    if (kernel && json_is_string(kernel)) {
        const char *k = json_string_value(kernel);
        if (!strcmp(k, "memo")) {
            g->kernel = fx_graph_intern(g, "memo");
        } else if (!strcmp(k, "recurrence")) {
            if (!read_recurrence(g, json_object_get(j, "recurrence"), why, why_len))
                goto fail;
        } else {
            snprintf(why, why_len, "unknown kernel `%s`", k);
            goto fail;
        }
    }
    json_t *tolerance = json_object_get(j, "tolerance"); /* optional */
    if (tolerance && (!json_is_number(tolerance) || !(json_number_value(tolerance) > 0) ||
                      !(json_number_value(tolerance) < 1))) {
        snprintf(why, why_len, "the tolerance is malformed");
        goto fail;
    }
    g->tolerance = tolerance ? json_number_value(tolerance) : 0;
    if (!read_table(g, json_object_get(j, "table"), true, why, why_len) ||
        !read_table(g, json_object_get(j, "materialised"), false, why, why_len))
        goto fail;
    if (!fx_graph_verify(g, why, why_len))
        goto fail;
    fx_graph_freeze(g);
    json_decref(j);
    return g;
fail:
    fx_graph_free(g);
    json_decref(j);
    return NULL;
}
