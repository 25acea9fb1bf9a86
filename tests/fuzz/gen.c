/*
 * gen.c: one whole program: its files (the root .flux file, an imported
 * one, CSV and SQLite data), its intents (gen_prog.c), the calls to run,
 * and now and then an intent that nests near or past the language's limit
 * of 1000 levels.
 *
 * The order of decisions is fixed: knobs, records, data, signatures,
 * bodies, the deep intent, calls, then the spelling of the files (line
 * endings, byte order mark, final newline). Changing it changes what every
 * seed means, which is fine between commits but not within a replay.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_int.h"

/* ---- data sources (docs/language.md §2) ---- */

static const char *csv_cell(Gen *g, const GType *t, bool bad)
{
    if (bad)
        return "abc";
    switch (t->k) {
    case GT_NAT: return ga_printf(&g->arena, gchance(g, 8) ? " %u " : "%u", gx(g, 50));
    case GT_INT: return ga_printf(&g->arena, "%s%u", gchance(g, 3) ? "-" : "", gx(g, 50));
    case GT_FLOAT: {
        static const char *const fs[] = {"1.5", "2", "-0.25", "1e3", "0.1", "3.0"};
        return fs[gx(g, GEN_LEN(fs))];
    }
    case GT_BOOL: {
        static const char *const bs[] = {"true", "false", "1", "0", "TRUE", "False"};
        return bs[gx(g, GEN_LEN(bs))];
    }
    default: {
        static const char *const ss[] = {"Ann", "Bob", "\"a, b\"", "\"say \"\"hi\"\"\"",
                                         "\"two\nlines\"", "h\xc3\xa9", "", "  spaced  "};
        return ss[gx(g, GEN_LEN(ss))];
    }
    }
}

static const char *sql_value(Gen *g, const GType *t)
{
    if (gx(g, 30) == 1)
        return "NULL";
    switch (t->k) {
    case GT_NAT: return ga_printf(&g->arena, "%u", gx(g, 50));
    case GT_INT: return ga_printf(&g->arena, "%d", (int)gx(g, 100) - 50);
    case GT_FLOAT: return gchance(g, 2) ? "1.5" : "-2.25";
    case GT_BOOL: return gchance(g, 2) ? "1" : "'false'";
    default: return gchance(g, 2) ? "'Ann'" : "'it''s'";
    }
}

static void add_file(GenProgram *p, int kind, const char *name, char *text)
{
    if (p->n_files >= GEN_MAX_FILES) {
        free(text);
        return;
    }
    GenFile *f = &p->files[p->n_files++];
    f->kind = kind;
    f->name = strdup(name);
    f->text = text;
}

static void gen_data(Gen *g, GenProgram *p, GenBuf *root)
{
    size_t n = gx(g, 4) == 1 ? 1 + gx(g, 2) : 0;
    for (size_t i = 0; i < n && g->n_data < GEN_MAX_DATA; i++) {
        int rec = -1;
        for (size_t r = 0; r < g->n_recs && rec < 0; r++)
            if (g->recs[r].scalar && g->recs[r].n > 0 && gchance(g, 2))
                rec = (int)r;
        if (rec < 0)
            rec = gen_scalar_record(g, root);
        if (rec < 0)
            return;
        const GRecord *r = &g->recs[rec];
        GData *d = &g->data[g->n_data++];
        d->name = gfresh(g, gchance(g, 2) ? "users" : "rows");
        d->rec = rec;
        int kind = gx(g, 12) == 1 ? 2 : gx(g, 4) == 1 ? 1 : 0; // CSV, SQLite, missing
        const char *coll = gx(g, 4) == 1 ? "Stream" : "List";
        const char *file = ga_printf(&g->arena, "%s.%s", d->name, kind == 1 ? "db" : "csv");
        gb_printf(root, "data %s: %s[%s] from \"%s%s\"\n", d->name, coll, r->name, file,
                  kind == 1 ? ":items" : "");
        if (kind == 2) {
            d->missing = true;
            continue;
        }
        GenBuf b = {0};
        size_t rows = gx(g, 7);
        if (kind == 1) {
            gb_puts(&b, "CREATE TABLE items (");
            for (size_t f = 0; f < r->n; f++)
                gb_printf(&b, "%s\"%s\"", f ? ", " : "", r->fields[f]);
            gb_puts(&b, ");\n");
            for (size_t k = 0; k < rows; k++) {
                gb_puts(&b, "INSERT INTO items VALUES (");
                for (size_t f = 0; f < r->n; f++)
                    gb_printf(&b, "%s%s", f ? ", " : "", sql_value(g, r->types[f]));
                gb_puts(&b, ");\n");
            }
            add_file(p, GEN_FILE_SQL, file, gb_take(&b));
            continue;
        }
        // CSV: columns in any order, an extra one, CRLF now and then, a bad cell rarely
        const char *eol = gx(g, 4) == 1 ? "\r\n" : "\n";
        size_t start = gx(g, (uint32_t)r->n);
        bool extra = gchance(g, 3), bad = gx(g, 25) == 1;
        if (gx(g, 15) == 1)
            gb_puts(&b, "\xef\xbb\xbf");
        for (size_t f = 0; f < r->n; f++)
            gb_printf(&b, "%s%s", f ? "," : "", r->fields[(start + f) % r->n]);
        gb_printf(&b, "%s%s", extra ? ",extra" : "", eol);
        for (size_t k = 0; k < rows; k++) {
            for (size_t f = 0; f < r->n; f++) {
                size_t fi = (start + f) % r->n;
                gb_printf(&b, "%s%s", f ? "," : "",
                          csv_cell(g, r->types[fi],
                                   bad && k + 1 == rows && r->types[fi]->k != GT_STRING));
            }
            gb_printf(&b, "%s%s", extra ? ",x" : "", eol);
        }
        add_file(p, GEN_FILE_CSV, file, gb_take(&b));
    }
}

/* ---- programs that nest near or past the limit ---- */

static void repeat(GenBuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gb_puts(b, s);
}

/* An intent whose one constraint nests D levels deep (docs/language.md §5:
 * past 1000 levels a program is an error at a position, never a crash),
 * and a call of it. */
static void gen_deep(Gen *g, GenProgram *p, GenBuf *root)
{
    size_t d;
    switch (gx(g, 4)) {
    case 1: d = 990 + gx(g, 10); break;
    case 2: d = 1001 + gx(g, 2000); break;
    case 3: d = 10000 + gx(g, 90000); break;
    default: d = 50 + gx(g, 900); break;
    }
    if ((g->opt->avoid & GEN_KNOWN_DEEP_STACK) && d > 990)
        d = 990;
    // a chain, an operator or a bracket adds one level per step; a few
    // more come from the constraint around it: past 1100 the language's
    // limit of 1000 certainly applies, near 1000 it may
    p->very_deep |= d + 8 > 1000;
    const char *name = gfresh(g, "deep");
    GenBuf b = {0};
    const char *ret = "Int", *arg = "3";
    int form = (int)gx(g, 9);
    bool shallow = gchance(g, 3); // only the call nests
    if (shallow)
        form = 0;
    if (form == 7 && !gen_prelude_visible(g, "abs"))
        form = 0; // a user intent took the name
    if (form == 8) { // a type nested D levels
        gb_printf(&b, "intent %s(xs: ", name);
        repeat(&b, "List[", d);
        gb_puts(&b, "Int");
        repeat(&b, "]", d);
        arg = "[[]]";
        gb_puts(&b, ") -> Natural:\n    constraints:\n        - result = len(xs)\n");
    } else {
        gb_printf(&b, "intent %s(n: Int, b: Bool) -> ", name);
        if (form == 1 || form == 7)
            ret = form == 1 ? "Bool" : "Natural";
        if (form == 3)
            ret = "Natural";
        gb_printf(&b, "%s:\n    constraints:\n        - result = ", ret);
        switch (form) {
        case 1: repeat(&b, "not ", d); gb_puts(&b, "b"); break;
        case 2: repeat(&b, "- ", d); gb_puts(&b, "n"); break;
        case 3:
            gb_puts(&b, "len(");
            repeat(&b, "[", d);
            gb_puts(&b, "n");
            repeat(&b, "]", d);
            gb_puts(&b, ")");
            break;
        case 4:
            gb_puts(&b, "n");
            repeat(&b, " + 1", d);
            break;
        case 5:
            repeat(&b, "if b then n else ", d);
            gb_puts(&b, "0");
            break;
        case 6:
            repeat(&b, "1 ^ ", d);
            gb_puts(&b, "n");
            break;
        case 7:
            repeat(&b, "abs(", d);
            gb_puts(&b, "n");
            repeat(&b, ")", d);
            break;
        default:
            repeat(&b, "(", shallow ? 1 : d);
            gb_puts(&b, "n");
            repeat(&b, ")", shallow ? 1 : d);
            break;
        }
        gb_puts(&b, "\n");
        arg = "3, true";
    }
    char *s = gb_take(&b);
    gb_puts(root, s);
    free(s);
    if (p->n_intents < GEN_MAX_INTENTS)
        p->intents[p->n_intents++] = strdup(name);
    if (p->n_calls >= GEN_MAX_CALLS)
        return;
    p->too_deep |= !shallow && d >= 1100;
    // the call itself, now and then inside deep parentheses too
    GenBuf c = {0};
    size_t dc = shallow || gchance(g, 3) ? d : 0;
    repeat(&c, "(", dc);
    gb_printf(&c, "%s(%s)", name, arg);
    repeat(&c, ")", dc);
    if (dc >= 1100)
        p->too_deep_call = (int)p->n_calls + 1;
    p->calls[p->n_calls++] = gb_take(&c);
}

/* ---- calls ---- */

static const char *call_text(Gen *g, const GIntent *in, const char *const *sizes,
                             const unsigned *vals, size_t n_sizes)
{
    GenBuf b = {0};
    gb_printf(&b, "%s(", in->name);
    for (size_t i = 0; i < in->n; i++)
        gb_printf(&b, "%s%s", i ? ", " : "",
                  gen_value(g, in->params[i].t, sizes, vals, n_sizes, 2));
    gb_puts(&b, ")");
    char *s = gb_take(&b);
    const char *c = ga_strdup(&g->arena, s);
    free(s);
    // composed now and then: indexed, measured, a field, arithmetic
    const GType *t = in->ret;
    switch (gx(g, 8)) {
    case 1:
        if (gt_is_coll(t))
            return ga_printf(&g->arena, "%s[%u]", c, gx(g, 3));
        break;
    case 2:
        if (gt_is_coll(t) || t->k == GT_STRING)
            return ga_printf(&g->arena, "len(%s)", c);
        break;
    case 3:
        if (t->k == GT_RECORD && g->recs[t->rec].n)
            return ga_printf(&g->arena, "%s.%s", c, g->recs[t->rec].fields[0]);
        break;
    case 4:
        if (gt_is_num(t))
            return ga_printf(&g->arena, "%s + 1", c);
        break;
    case 5: return ga_printf(&g->arena, "[%s, %s]", c, c);
    default: break;
    }
    return c;
}

static void gen_calls(Gen *g, const void *plans, size_t n_user, GenProgram *p)
{
    for (size_t k = 0; k < n_user; k++) {
        const GIntent *in = &g->intents[g->n_prelude + k];
        const char *const *sizes;
        size_t ns = gen_plan_sizes(plans, k, &sizes);
        size_t nc = 1 + gx(g, 2);
        for (size_t c = 0; c < nc && p->n_calls < GEN_MAX_CALLS; c++) {
            unsigned vals[GEN_MAX_SIZES];
            for (size_t i = 0; i < ns; i++)
                vals[i] = gx(g, 15) == 1 ? 0 : 1 + gx(g, 3);
            p->calls[p->n_calls++] = strdup(call_text(g, in, sizes, vals, ns));
        }
    }
    // an expression of calls, as a user may type one
    if (gchance(g, 4) && p->n_calls < GEN_MAX_CALLS) {
        g->n_vars = 0;
        for (size_t i = 0; i < g->n_data; i++)
            gen_push(g, g->data[i].name, gt_list(g, gt_record(g, g->data[i].rec)));
        g->cur = NULL;
        g->callable = g->n_intents;
        g->in_expr = true;
        g->budget = 15;
        GExp e = gen_expr(g, gt_random(g, 1), 2);
        g->in_expr = false;
        p->calls[p->n_calls++] = strdup(e.s);
    }
}

/* ---- the program ---- */

static char *spell(Gen *g, char *text)
{
    // CRLF line endings, a byte order mark, no final newline: all the same program
    GenBuf b = {0};
    if (gx(g, 20) == 1)
        gb_puts(&b, "\xef\xbb\xbf");
    bool crlf = gx(g, 12) == 1;
    for (const char *s = text; *s; s++) {
        if (*s == '\n' && crlf)
            gb_puts(&b, "\r\n");
        else {
            char c[2] = {*s, 0};
            gb_puts(&b, c);
        }
    }
    free(text);
    if (gx(g, 10) == 1) {
        while (b.len && (b.s[b.len - 1] == '\n' || b.s[b.len - 1] == '\r'))
            b.s[--b.len] = '\0';
    }
    return gb_take(&b);
}

void gen_program(GenSource *s, const GenOptions *o, GenProgram *out)
{
    memset(out, 0, sizeof(*out));
    Gen *g = calloc(1, sizeof(*g));
    if (!g)
        abort();
    g->src = s;
    g->opt = o;
    g->newlines = true;
    gen_add_prelude(g);

    out->types_only = gx(g, 6) == 1;
    out->smt_timeout_ms = gx(g, 4) == 1 ? 50 : 200;
    out->learn = gx(g, 3) == 1;
    out->want_json = gx(g, 4) == 1;
    out->explain = gx(g, 8) == 1;
    out->max_depth = gx(g, 10) == 1 ? 20 + gx(g, 200) : 0;
    out->optimize = gx(g, 8) == 1;
    // a recursion 10^6 calls deep doubles its stack to 1 GB in one step,
    // past the memory budget (tests/fuzz/found/009-*): the depth budget,
    // read at every call, stops it first
    if (!out->max_depth && (o->avoid & GEN_KNOWN_BUDGET_POLL))
        out->max_depth = 100000;

    GenBuf root = {0}, lib = {0};
    bool use_lib = gx(g, 6) == 1;
    g->numeric = gx(g, 5) == 1;
    add_file(out, GEN_FILE_FLUX, "main.flux", NULL);
    if (!g->numeric) {
        gen_records(g, use_lib ? &lib : &root);
        gen_data(g, out, &root);
    }

    size_t n = 1 + gx(g, gchance(g, 5) ? 7 : 4);
    void *plans = calloc(n, gen_plan_size());
    size_t n_user = gen_plan_intents(g, n, plans);
    size_t in_root = 0;
    for (size_t k = 0; k < n_user; k++) {
        gen_plan_set_file(plans, k, use_lib && gx(g, 3) == 1 ? 1 : 0);
        in_root += gen_plan_file(plans, k) == 0;
        gen_write_intent(g, k, plans, out, gen_plan_file(plans, k) ? &lib : &root);
        if (out->n_intents < GEN_MAX_INTENTS)
            out->intents[out->n_intents++] = strdup(g->intents[g->n_prelude + k].name);
    }
    if (gx(g, 25) == 1) {
        gen_deep(g, out, &root);
        in_root++;
    }
    // a round over a root file without intents fails (tests/fuzz/found/014-*)
    if (!in_root && (o->avoid & GEN_KNOWN_OPTIMIZE_IMPORTED))
        out->optimize = false;
    gen_calls(g, plans, n_user, out);
    free(plans);

    // imports anywhere at the top level, and now and then a file imported
    // along two paths (main and more.flux both import lib.flux: read once)
    char *body = gb_take(&root);
    GenBuf main = {0};
    bool diamond = use_lib && gchance(g, 3), at_end = gchance(g, 4);
    const char *imports = !use_lib   ? ""
                          : diamond ? "import \"more.flux\"\nimport \"lib.flux\"\n"
                                    : "import \"lib.flux\"\n";
    if (!at_end)
        gb_puts(&main, imports);
    gb_puts(&main, body);
    if (at_end)
        gb_printf(&main, "%s%s", body[0] && body[strlen(body) - 1] != '\n' ? "\n" : "", imports);
    free(body);
    out->files[0].text = spell(g, gb_take(&main));
    if (use_lib)
        add_file(out, GEN_FILE_FLUX, "lib.flux", spell(g, gb_take(&lib)));
    else
        free(gb_take(&lib));
    if (diamond)
        add_file(out, GEN_FILE_FLUX, "more.flux",
                 strdup("// imports what main imports too\nimport \"lib.flux\"\n"));
    ga_free(&g->arena);
    free(g);
}

void gen_program_print(const GenProgram *p, FILE *out)
{
    for (size_t i = 0; i < p->n_files; i++) {
        const GenFile *f = &p->files[i];
        fprintf(out, "==> %s <==\n%s", f->name, f->text);
        size_t n = strlen(f->text);
        if (n == 0 || f->text[n - 1] != '\n')
            fputs("\n", out);
    }
    for (size_t i = 0; i < p->n_calls; i++)
        fprintf(out, "--> %s\n", p->calls[i]);
    fprintf(out,
            "(load: %s, smt %u ms; learn %s; json %s; explain %s; max depth %llu; "
            "optimize %s)\n",
            p->types_only ? "types only" : "with the solver", p->smt_timeout_ms,
            p->learn ? "on and off" : "off", p->want_json ? "on" : "off",
            p->explain ? "on" : "off", p->max_depth, p->optimize ? "on" : "off");
}

void gen_program_free(GenProgram *p)
{
    for (size_t i = 0; i < p->n_files; i++) {
        free(p->files[i].name);
        free(p->files[i].text);
    }
    for (size_t i = 0; i < p->n_intents; i++)
        free(p->intents[i]);
    for (size_t i = 0; i < p->n_calls; i++)
        free(p->calls[i]);
    memset(p, 0, sizeof(*p));
}
