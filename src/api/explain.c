/*
 * explain.c: `flux explain`: evaluate, then say why the value is what it is.
 *
 * The tree has five branches, each built from something the run or the
 * program really holds, never from names:
 *   - version: the graph version used and why it was chosen;
 *   - decisions: the branches the intent's own call took, each mapped back
 *     to the constraint it came from through the node's source position;
 *   - proofs: what covers the version (v1 is not a rewrite and needs none)
 *     and the verdict on each declared property;
 *   - verified: the constraints checked on this very output (sortedness
 *     and permutation are checked again here, on the value);
 *   - provenance: for an element of a comprehension's result, the
 *     candidate that produced it and the tests it passed, evaluated again;
 *     for a recursive intent, the sub-results its own call combined;
 *   - device: for a call split across the ranks of the MPI device, each
 *     rank's part, the rank and part that computed the element asked for,
 *     and why the parts are independent (exec/cluster.h).
 * A recursive call made in the intent's own frame is kept only when the
 * callee is the intent itself.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "exec/cluster.h"
#include "exec/native.h"
#include "graph/lower.h"
#include "opt/validate.h"

#define MAX_DECISIONS 24
#define MAX_SUBCALLS 8

typedef struct SubCall {
    const FxGraph *callee;
    FX_VEC(FxValue) args;
} SubCall;

typedef struct Trace {
    struct {
        FxNodeId node;
        bool taken;
        unsigned times; /* a condition in a loop is met at each turn */
    } decisions[MAX_DECISIONS];
    size_t n_decisions;
    const FxGraph *top;
    SubCall calls[MAX_SUBCALLS];
    size_t n_calls;
} Trace;

static void drop_calls(Trace *t)
{
    for (size_t i = 0; i < t->n_calls; i++) {
        fx_vec_foreach(FxValue, v, &t->calls[i].args) fx_value_release(*v);
        fx_vec_free(&t->calls[i].args);
    }
    t->n_calls = 0;
}

/* depth 1 is the expression; a call from it starts a new top call, whose
 * own decisions (depth 2) and calls (made at depth 2) are kept. */
static void on_call(void *ctx, const FxGraph *callee, const FxValue *args, size_t n,
                    size_t depth)
{
    Trace *t = ctx;
    if (depth == 1) {
        t->top = callee;
        t->n_decisions = 0;
        drop_calls(t);
    } else if (depth == 2 && callee == t->top && t->n_calls < MAX_SUBCALLS) {
        /* the recursion's own sub-results; helpers such as a kind predicate
         * are explained where they matter (the provenance branch) */
        SubCall *s = &t->calls[t->n_calls++];
        s->callee = callee;
        memset(&s->args, 0, sizeof(s->args));
        for (size_t i = 0; i < n; i++) {
            fx_value_retain(args[i]);
            fx_vec_push(&s->args, args[i]);
        }
    }
}

static void on_decision(void *ctx, const FxGraph *g, FxNodeId node, bool taken, size_t depth)
{
    Trace *t = ctx;
    /* which implementation runs is the measured decision, explained there */
    if (fx_graph_node(g, node)->op == FX_NODE_CHOOSE)
        return;
    if (depth != 2 || g != t->top)
        return;
    for (size_t i = 0; i < t->n_decisions; i++)
        if (t->decisions[i].node.v == node.v && t->decisions[i].taken == taken) {
            t->decisions[i].times++;
            return;
        }
    if (t->n_decisions < MAX_DECISIONS) {
        t->decisions[t->n_decisions].node = node;
        t->decisions[t->n_decisions].times = 1;
        t->decisions[t->n_decisions++].taken = taken;
    }
}

/* ---- the tree, built as text and as JSON side by side ---- */

typedef struct Tree {
    FxBuf text, json;
    bool first_branch;
} Tree;

static void branch(Tree *t, const char *name, const char *line)
{
    fx_buf_printf(&t->text, "|- %s: %s\n", name, line);
}

static void leaf(Tree *t, const char *line)
{
    fx_buf_printf(&t->text, "|    - %s\n", line);
}

static void json_key(Tree *t, const char *key)
{
    fx_buf_printf(&t->json, "%s\"%s\": ", t->first_branch ? "" : ", ", key);
    t->first_branch = false;
}

static void json_list_item(FxBuf *b, bool first, const char *s)
{
    if (!first)
        fx_buf_puts(b, ", ");
    fx_api_json_string(s, b);
}

/* The text of a source span on one line, for quoting a constraint. */
static char *span_text(FxSpan sp)
{
    return fx_xasprintf("%.*s", (int)sp.len, sp.src->text + sp.offset);
}

static size_t span_line(FxSpan sp)
{
    size_t line, col;
    fx_diag_position(sp.src, sp.offset, &line, &col);
    return line;
}

/* The source text of a node on constraint k's line, or NULL. */
static char *node_text(const FxConstraint *k, const FxNode *n)
{
    const FxSource *src = k->span.src; /* columns and lengths count code points (diag.h) */
    if (!n->origin.col || !n->origin.len || !n->origin.line || n->origin.line > src->n_lines)
        return NULL;
    size_t at = src->line_starts[n->origin.line - 1], end;
    for (uint32_t c = 1; c < n->origin.col && at < src->len; c++) /* code points to bytes */
        for (at++; at < src->len && (src->text[at] & 0xC0) == 0x80; at++) {
        }
    end = at;
    for (uint32_t c = 0; c < n->origin.len && end < src->len; c++)
        for (end++; end < src->len && (src->text[end] & 0xC0) == 0x80; end++) {
        }
    return end > at ? fx_xasprintf("%.*s", (int)(end - at), src->text + at) : NULL;
}

/* Does equation k choose, by a guard or patterns, whether it applies? */
static bool chooses(const FxConstraint *k)
{
    return k && k->kind == FX_CON_EQUATION && (k->u.eq.guard || k->u.eq.n_patterns);
}

/* " 3 times" for more than one, else "". */
static char *times(unsigned n)
{
    return n > 1 ? fx_xasprintf(" %u times", n) : fx_xstrdup("");
}

/* The constraint a graph node came from: the one whose span holds it. */
static const FxConstraint *constraint_at(const FxIntent *in, const FxNode *n)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        size_t line = span_line((*kp)->span);
        if (n->origin.file && line == n->origin.line)
            return *kp;
    }
    return NULL;
}

static void explain_version(Tree *t, const FxGraph *g, const FxVersionOrigin *o,
                            const char *refused, const char *switches, long long id)
{
    char *why = o->rewrite
            ? fx_xasprintf("%s%smade from %s by the %s rewrite, installed once proof #%s held; "
                           "evidence %s", refused ? refused : "", refused ? ": " : "",
                           o->parent ? o->parent : "its parent", o->rewrite,
                           o->proof_id ? o->proof_id : "?", o->evidence ? o->evidence : "none")
            : refused ? fx_xasprintf("the naive graph read from the constraints, because %s",
                                     refused)
                      : fx_xstrdup("the naive graph read from the constraints");
    char *line = fx_xasprintf("%s of `%s`: %s", g->version, g->intent, why);
    branch(t, "version", line);
    if (g->kernel == FX_KERNEL_MEMO)
        leaf(t, fx_kernel(FX_KERNEL_MEMO)->explain);
    if (g->n_table) {
        FxBuf tab = {0};
        fx_graph_print_table(g, &tab);
        char *kept = fx_xasprintf("keeps the results of %u recurring inputs, looked up first: %s",
                                  g->n_table, fx_buf_str(&tab) + 9);
        leaf(t, kept);
        free(kept);
        fx_buf_free(&tab);
    }
    if (g->kernel == FX_KERNEL_RECURRENCE) {
        FxBuf rec = {0};
        fx_graph_print_recurrence(g, &rec);
        char *how = fx_xasprintf("%s: %s", fx_kernel(FX_KERNEL_RECURRENCE)->explain,
                                 fx_buf_str(&rec) + 2);
        leaf(t, how);
        free(how);
        fx_buf_free(&rec);
    }
    if (switches) {
        char *why_switch = fx_xasprintf("runaway protection: %s", switches);
        leaf(t, why_switch);
        free(why_switch);
    }
    if (id > 0) {
        char *rec = fx_xasprintf("recorded as exec_%lld", id);
        leaf(t, rec);
        free(rec);
    }
    json_key(t, "version");
    fx_buf_puts(&t->json, "{\"label\": ");
    fx_api_json_string(g->version, &t->json);
    fx_buf_puts(&t->json, ", \"why\": ");
    fx_api_json_string(why, &t->json);
    fx_buf_puts(&t->json, "}");
    free(why);
    free(line);
}

static const FxConstraint *otherwise_equation(const FxIntent *in)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == FX_CON_EQUATION &&
                                                             (*kp)->u.eq.tier == FX_TIER_OTHERWISE) return *kp;
    return NULL;
}

static void explain_decisions(Tree *t, FxCallCtx *cx, const Trace *tr, const FxIntent *in,
                              const FxVariantChoice *choice, const char *data_choice)
{
    if (data_choice) {
        branch(t, "decisions", strncmp(data_choice, "materialised result", 19) == 0
                                   ? fx_kernel(FX_KERNEL_KEPT)->explain
                                   : "the kernel its call ran, chosen from the input's features");
        char *line = fx_xstrdup(data_choice);
        leaf(t, line);
        json_key(t, "decisions");
        fx_buf_puts(&t->json, "[");
        json_list_item(&t->json, true, line);
        fx_buf_puts(&t->json, "]");
        free(line);
        return;
    }
    if (choice) {
        branch(t, "decisions", "the variant its own call ran, and the models that chose it");
        char *line = fx_xasprintf("variant %s: %s", fx_graph_variant_name(choice->variant),
                                  choice->why);
        leaf(t, line);
        json_key(t, "decisions");
        fx_buf_puts(&t->json, "[");
        json_list_item(&t->json, true, line);
        for (int k = 0; k < 2; k++) { /* the points each model was fitted on */
            char *points = fx_api_models_points(cx, choice->g, k);
            if (points) {
                leaf(t, points);
                json_list_item(&t->json, false, points);
            }
            free(points);
        }
        fx_buf_puts(&t->json, "]");
        free(line);
        return;
    }
    branch(t, "decisions", tr->n_decisions ? "the branches its own call took" : "none: "
                                                  "nothing to choose between");
    json_key(t, "decisions");
    fx_buf_puts(&t->json, "[");
    bool any_taken = false, any_choice = false;
    for (size_t i = 0; i < tr->n_decisions; i++) {
        const FxNode *n = fx_graph_node(tr->top, tr->decisions[i].node);
        const FxConstraint *k = constraint_at(in, n);
        bool eq = chooses(k), taken = tr->decisions[i].taken;
        /* a condition inside an expression, not an equation's choice: its
         * own text, when the source has it */
        char *what = eq || !k ? NULL : node_text(k, n);
        if (!what)
            what = k ? span_text(k->span) : fx_xstrdup("a condition");
        any_taken |= eq && taken;
        any_choice |= eq;
        char *n_times = times(tr->decisions[i].times);
        const char *verdict = eq ? (taken ? "applies" : "does not apply")
                            : n->op == FX_NODE_IF ? (taken ? "took its then branch"
                                                           : "took its else branch")
                                                  : (taken ? "held" : "did not hold");
        char *line = fx_xasprintf("`%s` (line %u) %s%s", what, n->origin.line, verdict, n_times);
        leaf(t, line);
        json_list_item(&t->json, i == 0, line);
        free(n_times);
        free(line);
        free(what);
    }
    const FxConstraint *other = otherwise_equation(in);
    if (!any_taken && other && any_choice) {
        char *what = span_text(other->span);
        char *line = fx_xasprintf("`%s` (line %zu) applies: the unguarded equation, as no earlier "
                                  "one did", what, span_line(other->span));
        leaf(t, line);
        json_list_item(&t->json, false, line);
        free(line);
        free(what);
    }
    fx_buf_puts(&t->json, "]");
}

static void explain_proofs(Tree *t, const FxIntent *in, const FxVersionOrigin *o)
{
    char *head = o->proof_id
            ? fx_xasprintf("proof #%s: the %s rewrite computes the same function as %s "
                           "(`flux proofs FILE %s` shows it)", o->proof_id, o->rewrite,
                           o->parent ? o->parent : "its parent", o->proof_id)
            : fx_xstrdup("none needed: this version is not a rewrite, it is the constraints "
                         "themselves");
    branch(t, "proofs", head);
    free(head);
    json_key(t, "proofs");
    fx_buf_printf(&t->json, "{\"ids\": [%s], \"properties\": [", o->proof_id ? o->proof_id : "");
    bool first = true;
    fx_vec_foreach(FxProperty *, pp, &in->properties)
    {
        const FxProperty *p = *pp;
        static const char *const names[] = {"unchecked", "holds", "assumed", "false"};
        char *line = fx_xasprintf("property %s: %s%s%s", p->name, names[p->verdict],
                                  p->reason ? ", " : "", p->reason ? p->reason : "");
        leaf(t, line);
        json_list_item(&t->json, first, line);
        first = false;
        free(line);
    }
    fx_buf_puts(&t->json, "]}");
}

static int cmp_values(const void *a, const void *b)
{
    bool ok;
    return fx_val_compare(*(const FxValue *)a, *(const FxValue *)b, &ok);
}

/* Same elements, counted with multiplicity. */
static bool same_multiset(FxValue a, FxValue b)
{
    size_t n = fx_val_list_len(a);
    if (n != fx_val_list_len(b))
        return false;
    FxValue *x = fx_xmalloc((n + 1) * sizeof(FxValue)), *y = fx_xmalloc((n + 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++) {
        x[i] = fx_val_list_at(a, i);
        y[i] = fx_val_list_at(b, i);
    }
    qsort(x, n, sizeof(FxValue), cmp_values);
    qsort(y, n, sizeof(FxValue), cmp_values);
    bool same = true;
    for (size_t i = 0; i < n && same; i++)
        same = fx_val_equal(x[i], y[i]);
    free(x);
    free(y);
    return same;
}

/* The measured constraints: the decision, then each implementation's figures. */
static void explain_measured(Tree *t, const FxMeasure *m)
{
    char *report = fx_measure_report(m);
    char *nl = strchr(report, '\n');
    *nl = '\0';
    branch(t, "measured", report);
    json_key(t, "measured");
    fx_buf_puts(&t->json, "[");
    bool first = true;
    for (char *line = nl + 1, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        *end = '\0';
        leaf(t, line);
        json_list_item(&t->json, first, line);
        first = false;
    }
    fx_buf_puts(&t->json, "]");
    free(report);
}

static void explain_verified(Tree *t, FluxProgram *fp, const FxIntent *in, FxValue result,
                             const FxValue *args)
{
    branch(t, "verified", "the constraints, on this output");
    json_key(t, "verified");
    fx_buf_puts(&t->json, "[");
    bool first = true;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        char *what = span_text(k->span), *line = NULL;
        if (k->kind == FX_CON_ORDER && result.kind == FX_VAL_LIST) {
            char *bad = fx_validate_sorted(fx_api_runtime(fp), fp->prog, in, args,
                                           result, k);
            line = bad ? fx_xasprintf("`%s`: checked again here: FAILS: %s", what, bad)
                       : fx_xasprintf("`%s`: checked again here: holds (%zu elements)", what,
                                      fx_val_list_len(result));
            free(bad);
        } else if (k->kind == FX_CON_PERMUTATION && k->u.perm.of->kind == FX_EXPR_NAME &&
                 k->u.perm.of->ref == FX_REF_PARAM && result.kind == FX_VAL_LIST)
            line = fx_xasprintf("`%s`: checked again here: %s", what,
                                same_multiset(result, args[k->u.perm.of->ref_index])
                                        ? "holds, the same elements as often"
                                        : "FAILS");
        else if (k->kind == FX_CON_POST)
            line = fx_xasprintf("`%s`: checked on the result as it was built: holds", what);
        else if (k->kind == FX_CON_ACCURACY || k->kind == FX_CON_LATENCY)
            line = fx_xasprintf("`%s`: measured on this device, not on this output (`measured` "
                                "above)", what);
        else if (k->kind == FX_CON_CHOICE)
            line = fx_xasprintf("`%s`: holds by construction, the value is one implementation's "
                                "(`measured` above says which)", what);
        else
            line = fx_xasprintf("`%s`: holds by construction, the value is built from it", what);
        leaf(t, line);
        json_list_item(&t->json, first, line);
        first = false;
        free(line);
        free(what);
    }
    fx_buf_puts(&t->json, "]");
}

/* What run-time validation made of the output, when a rewritten version
 * answered (check_output.c). */
static void explain_validation(Tree *t, FluxProgram *fp)
{
    const char *result, *reason;
    if (!fx_api_check_outcome(fp, fx_api_runtime(fp), &result, &reason))
        return;
    char *line = fx_xasprintf("%s at run time: %s", result, reason);
    branch(t, "validation", line);
    json_key(t, "validation");
    fx_buf_puts(&t->json, "{\"result\": ");
    fx_api_json_string(result, &t->json);
    fx_buf_puts(&t->json, ", \"reason\": ");
    fx_api_json_string(reason, &t->json);
    fx_buf_puts(&t->json, "}");
    free(line);
}

/* The native code that runs the intent's calls (docs/native.md): explain
 * itself follows each branch, so its own run is interpreted. */
static void explain_native(Tree *t, FxRuntime *rt, const char *intent)
{
    const char *tier = fx_runtime_native_of(rt, intent);
    if (!tier)
        return;
    char *line = fx_xasprintf("%s; `flux run` runs this intent's calls in it (explain follows "
                              "each branch, so this run was interpreted)", tier);
    branch(t, "tier", line);
    json_key(t, "native");
    fx_api_json_string(tier, &t->json);
    free(line);
}

/* Where a run computes the intent's call (docs/devices.md): the device,
 * its reason, where on it element k was (k < 0: no element), and why the
 * parts are independent. */
static void explain_device(Tree *t, FxRuntime *rt, const char *intent, const FxValue *args,
                           int64_t k, int64_t j)
{
    FxBuf lines = {0};
    if (!fx_runtime_device_explain(rt, intent, args, k, j, &lines) || !lines.len) {
        fx_buf_free(&lines);
        return;
    }
    char *text = fx_xstrdup(fx_buf_str(&lines)), *save = NULL;
    json_key(t, "device");
    fx_buf_puts(&t->json, "[");
    bool first = true;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (first)
            branch(t, "device", line);
        else
            leaf(t, line);
        json_list_item(&t->json, first, line);
        first = false;
    }
    fx_buf_puts(&t->json, "]");
    free(text);
    fx_buf_free(&lines);
}

/* `f(x)[k]` where f's result is a comprehension: the candidate and its tests. */
static void explain_element(Tree *t, FluxProgram *fp, const FxIntent *in, FxValue element,
                            int64_t index)
{
    const FxConstraint *k = NULL;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == FX_CON_COMPREHENSION) k = *kp;
    if (!k)
        return;
    FxBuf v = {0};
    fx_val_print(element, &v);
    char *cond = span_text(k->u.comp.cond->span);
    char *line = fx_xasprintf("element %lld is %s: the candidate %s = %s passed `%s`",
                              (long long)index, fx_buf_str(&v), k->u.comp.var, fx_buf_str(&v), cond);
    branch(t, "provenance", line);
    json_key(t, "provenance");
    fx_buf_puts(&t->json, "{\"element\": ");
    fx_val_print_json(element, &t->json);
    fx_buf_puts(&t->json, ", \"because\": [");
    json_list_item(&t->json, true, line);
    if (k->u.comp.kind_pred) {
        const FxIntent *pred = k->u.comp.kind_pred;
        FxValue answer;
        FxRuntime *rt = fx_api_runtime(fp);
        bool ok = fx_runtime_call(rt, pred->name, &element, 1, &answer) == FX_OK;
        const FxConstraint *def = pred->constraints.len ? pred->constraints.data[0] : NULL;
        char *body = def ? span_text(def->span) : fx_xstrdup("?");
        char *why = fx_xasprintf("and %s(%s) = %s, evaluated again now, where `%s` is defined "
                                 "by `%s`", pred->name, fx_buf_str(&v),
                                 ok ? (answer.u.b ? "true" : "false") : "(failed)",
                                 pred->name, body);
        leaf(t, why);
        json_list_item(&t->json, false, why);
        free(why);
        free(body);
    }
    fx_buf_puts(&t->json, "]}");
    free(line);
    free(cond);
    fx_buf_free(&v);
}

/* A call split across the ranks of the MPI device: where each part ran,
 * where element k (when asked: has_k) was computed, and why the parts are
 * independent. */
static void explain_split(Tree *t, const FxClusterSplit *s, bool has_k, int64_t k)
{
    FxBuf line = {0};
    bool map = !strcmp(s->job, "map"), sort = !strcmp(s->job, "sort");
    fx_buf_printf(&line, "mpi (%s), %u ranks: ", s->library, s->ranks);
    if (map)
        fx_buf_printf(&line, "`%s` mapped over `%s` in %u slices, one a rank", s->intent,
                      s->list, s->ranks);
    else if (sort)
        fx_buf_printf(&line, "a sample sort, each rank's bucket a stretch of the result");
    else
        fx_buf_printf(&line, "the count of [%llu, %llu) in %u segments, one a rank",
                      (unsigned long long)s->lo[0], (unsigned long long)s->hi[s->ranks - 1],
                      s->ranks);
    branch(t, "device", fx_buf_str(&line));
    json_key(t, "device");
    fx_buf_puts(&t->json, "{\"name\": \"mpi\", \"library\": ");
    fx_api_json_string(s->library, &t->json);
    fx_buf_printf(&t->json, ", \"job\": \"%s\", \"ranks\": %u, \"parts\": [", s->job, s->ranks);
    int at = -1;
    for (unsigned r = 0; r < s->ranks; r++) {
        fx_buf_free(&line);
        fx_buf_printf(&line, "rank %u: %s [%llu, %llu)", r,
                      map ? "elements" : sort ? "positions" : "numbers",
                      (unsigned long long)s->lo[r], (unsigned long long)s->hi[r]);
        if (map)
            fx_buf_printf(&line, " of `%s` and of the result", s->list);
        if (sort && s->split && r > 0)
            fx_buf_printf(&line, ", the keys from %lld on", (long long)s->split[r]);
        leaf(t, fx_buf_str(&line));
        fx_buf_printf(&t->json, "%s{\"rank\": %u, \"lo\": %llu, \"hi\": %llu}", r ? ", " : "",
                      r, (unsigned long long)s->lo[r], (unsigned long long)s->hi[r]);
        if (has_k && k >= 0 && (uint64_t)k >= s->lo[r] && (uint64_t)k < s->hi[r])
            at = (int)r;
    }
    fx_buf_puts(&t->json, "], \"element\": ");
    if (at >= 0 && (map || sort)) {
        fx_buf_free(&line);
        fx_buf_printf(&line, "element %lld was computed on the mpi device by rank %d of %u, in "
                      "its part [%llu, %llu)", (long long)k, at, s->ranks,
                      (unsigned long long)s->lo[at], (unsigned long long)s->hi[at]);
        leaf(t, fx_buf_str(&line));
        fx_buf_printf(&t->json, "{\"index\": %lld, \"rank\": %d}", (long long)k, at);
    } else {
        fx_buf_puts(&t->json, "null");
    }
    fx_buf_free(&line);
    fx_buf_printf(&line, "independent: %s", s->why);
    leaf(t, fx_buf_str(&line));
    fx_buf_puts(&t->json, ", \"independent\": ");
    fx_api_json_string(s->why, &t->json);
    fx_buf_puts(&t->json, "}");
    fx_buf_free(&line);
}

static void explain_subresults(Tree *t, FluxProgram *fp, Trace *tr)
{
    if (!tr->n_calls)
        return;
    branch(t, "sub-results", "the recursive calls its own call combined, evaluated again");
    json_key(t, "sub_results");
    fx_buf_puts(&t->json, "[");
    for (size_t i = 0; i < tr->n_calls; i++) {
        SubCall *s = &tr->calls[i];
        FxBuf call = {0};
        fx_buf_printf(&call, "%s(", s->callee->intent);
        for (size_t a = 0; a < s->args.len; a++) {
            if (a)
                fx_buf_puts(&call, ", ");
            fx_val_print(s->args.data[a], &call);
        }
        fx_buf_puts(&call, ")");
        FxValue v;
        FxRuntime *rt = fx_api_runtime(fp);
        if (fx_runtime_call(rt, s->callee->intent, s->args.data, s->args.len, &v) == FX_OK) {
            fx_buf_puts(&call, " = ");
            fx_val_print(v, &call);
            fx_value_release(v);
        } else {
            fx_buf_printf(&call, ": %s", fx_runtime_error(rt));
        }
        leaf(t, fx_buf_str(&call));
        json_list_item(&t->json, i == 0, fx_buf_str(&call));
        fx_buf_free(&call);
    }
    fx_buf_puts(&t->json, "]");
}

/* An integer index of the outermost INDEX of EXPR, if it is a literal. */
static bool literal_index(const FxExpr *e, int64_t *out)
{
    if (e->kind != FX_EXPR_INDEX || e->u.index.n != 1 || e->u.index.indices[0]->kind != FX_EXPR_INT)
        return false;
    *out = strtoll(e->u.index.indices[0]->u.text, NULL, 10);
    return e->u.index.base->kind == FX_EXPR_CALL;
}

/* `f(...)[i, j]` with literal i and j: true with them. */
static bool literal_cell(const FxExpr *e, int64_t *i, int64_t *j)
{
    if (e->kind != FX_EXPR_INDEX || e->u.index.n != 2 ||
        e->u.index.indices[0]->kind != FX_EXPR_INT || e->u.index.indices[1]->kind != FX_EXPR_INT ||
        e->u.index.base->kind != FX_EXPR_CALL)
        return false;
    *i = strtoll(e->u.index.indices[0]->u.text, NULL, 10);
    *j = strtoll(e->u.index.indices[1]->u.text, NULL, 10);
    return true;
}

int flux_explain(FluxProgram *fp, const char *expr, const FluxRunOptions *options, int json,
                 FILE *out, FILE *diagnostics)
{
    FxArena arena = {0};
    FxExpr *e = fx_api_parse_expr(fp, expr, NULL, &arena, diagnostics);
    if (!e) {
        fx_arena_free(&arena);
        return FLUX_ERR_USAGE;
    }
    Trace tr = {0};
    FxHooks hooks = {&tr, on_call, on_decision};
    FluxResult r;
    FxRuntime *rt = fx_api_runtime(fp);
    FluxRunOptions opts = options ? *options : (FluxRunOptions){0};
    opts.want_json = 1;
    opts.version = opts.variant = NULL; /* the tree reads the program's own runtime */
    fx_runtime_set_hooks(rt, &hooks);
    fx_cluster_forget(); /* the device branch tells this run's split, or none */
    int status = flux_run(fp, expr, &opts, diagnostics, &r);
    rt = fx_api_runtime(fp); /* a new one when validation rolled a version back */
    fx_runtime_set_hooks(rt, NULL);
    if (status != FLUX_OK && status != FLUX_ERR_STORE) {
        drop_calls(&tr);
        fx_arena_free(&arena);
        return status;
    }
    const FxValue *top_args;
    size_t n_args;
    const FxGraph *top = fx_runtime_top_call(rt, &top_args, &n_args);
    /* our own references: the next run replaces the runtime's */
    FxValue *args = fx_xmalloc((n_args + 1) * sizeof(FxValue));
    for (size_t i = 0; i < n_args; i++) {
        args[i] = top_args[i];
        fx_value_retain(args[i]);
    }
    /* an execution is reported as recorded only once it is committed */
    if (status == FLUX_OK && fp->store && flux_store_flush(fp->store, diagnostics) != FLUX_OK) {
        status = FLUX_ERR_STORE;
        r.execution_id = 0;
    }
    Tree t = {.first_branch = true};
    fx_buf_printf(&t.text, "%s = %s\n", expr, r.text);
    fx_buf_puts(&t.json, "{\"expr\": ");
    fx_api_json_string(expr, &t.json);
    char *value = r.json ? fx_api_json_field(r.json, "output") : NULL;
    fx_buf_printf(&t.json, ", \"value\": %s, \"execution_id\": ", value ? value : "null");
    free(value);
    if (r.execution_id)
        fx_buf_printf(&t.json, "\"exec_%lld\"", r.execution_id);
    else
        fx_buf_puts(&t.json, "null");
    t.first_branch = false;
    if (top) {
        const FxIntent *in = fx_program_find_intent(fp->prog, top->intent);
        FxVersionOrigin origin = fx_api_origin(fp, in, top);
        explain_version(&t, top, &origin, fx_api_refused(fp, top->intent),
                        fx_runtime_switches(rt), r.execution_id);
        char *callees = fx_api_callees_told(fp, in, r.execution_id);
        if (callees)
            leaf(&t, callees);
        free(callees);
        char *data_proof, *data_choice = fx_api_data_choice(fp, rt, top, &data_proof);
        explain_decisions(&t, &fp->main, &tr, in, top->kernel ? fx_runtime_top_choice(rt) : NULL,
                          data_choice);
        free(data_choice);
        free(data_proof);
        explain_proofs(&t, in, &origin);
        fx_api_origin_free(&origin);
        const FxMeasure *m = fx_api_measured(fp, in->name);
        if (m)
            explain_measured(&t, m);
        /* the intent's own value, for the checks (EXPR may index it) */
        FxValue whole;
        if (fx_runtime_call(rt, top->intent, args, n_args, &whole) == FX_OK) {
            explain_verified(&t, fp, in, whole, args);
            int64_t k;
            if (literal_index(e, &k) && whole.kind == FX_VAL_LIST && k >= 0 &&
                (size_t)k < fx_val_list_len(whole))
                explain_element(&t, fp, in, fx_val_list_at(whole, (size_t)k), k);
            fx_value_release(whole);
        }
        explain_validation(&t, fp);
        explain_native(&t, rt, top->intent);
        int64_t k = 0, ci = -1, cj = -1;
        bool has_k = literal_index(e, &k);
        if (!literal_cell(e, &ci, &cj))
            ci = cj = -1;
        explain_device(&t, rt, top->intent, args, has_k ? k : ci, cj);
        if (fx_cluster_last())
            explain_split(&t, fx_cluster_last(), has_k, k);
        explain_subresults(&t, fp, &tr);
    }
    fx_buf_puts(&t.json, "}");
    for (size_t i = 0; i < n_args; i++)
        fx_value_release(args[i]);
    free(args);
    fputs(json ? fx_buf_str(&t.json) : fx_buf_str(&t.text), out);
    if (json)
        fputc('\n', out);
    fx_buf_free(&t.text);
    fx_buf_free(&t.json);
    flux_result_free(&r);
    drop_calls(&tr);
    fx_arena_free(&arena);
    return status;
}
