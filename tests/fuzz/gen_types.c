/*
 * gen_types.c: the generator's types (records, aliases, the types of
 * parameters and results) and literal values of a type, for the arguments
 * of generated calls.
 *
 * The typing predicates mirror src/lang/types.c, deliberately written again
 * rather than shared: the generator states what the language reference
 * says, and a disagreement with the checker is what the fuzzer is for.
 *
 * Records are declared in order and a record's fields only name earlier
 * types, so types are acyclic and a literal of any type is finite. No two
 * records have the same set of field names: a record literal takes the
 * first declared record with exactly its fields (docs/language.md §3), so
 * two records with one set of names would make the generator's literal
 * ambiguous.
 */
#include <stdlib.h>
#include <string.h>

#include "gen_int.h"

const GType gt_any = {GT_ANY, NULL, NULL, NULL, -1};
const GType gt_nat = {GT_NAT, NULL, NULL, NULL, -1};
const GType gt_int = {GT_INT, NULL, NULL, NULL, -1};
const GType gt_bool = {GT_BOOL, NULL, NULL, NULL, -1};
const GType gt_float = {GT_FLOAT, NULL, NULL, NULL, -1};
const GType gt_string = {GT_STRING, NULL, NULL, NULL, -1};

static GType *new_type(Gen *g, GTKind k)
{
    GType *t = ga_alloc(&g->arena, sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->k = k;
    t->rec = -1;
    return t;
}

const GType *gt_list(Gen *g, const GType *elem)
{
    GType *t = new_type(g, GT_LIST);
    t->elem = elem;
    return t;
}

const GType *gt_stream(Gen *g, const GType *elem)
{
    GType *t = new_type(g, GT_STREAM);
    t->elem = elem;
    return t;
}

const GType *gt_matrix(Gen *g, const char *rows, const char *cols, const GType *elem)
{
    GType *t = new_type(g, GT_MATRIX);
    t->rows = rows;
    t->cols = cols;
    t->elem = elem;
    return t;
}

const GType *gt_record(Gen *g, int rec)
{
    GType *t = new_type(g, GT_RECORD);
    t->rec = rec;
    return t;
}

/* As in the checker, the element of `[]` passes for anything. */
bool gt_is_int(const GType *t)
{
    return t->k == GT_ANY || t->k == GT_NAT || t->k == GT_INT;
}

bool gt_is_num(const GType *t)
{
    return gt_is_int(t) || t->k == GT_FLOAT;
}

bool gt_is_ordered(const GType *t)
{
    return gt_is_num(t) || t->k == GT_STRING;
}

bool gt_is_coll(const GType *t)
{
    return t->k == GT_ANY || t->k == GT_LIST || t->k == GT_STREAM;
}

bool gt_is_scalar(const GType *t)
{
    return gt_is_num(t) || t->k == GT_BOOL || t->k == GT_STRING;
}

bool gt_assignable(const GType *from, const GType *to)
{
    if (from->k == GT_ANY || to->k == GT_ANY)
        return true;
    if (gt_is_int(from) && gt_is_num(to))
        return true;
    switch (to->k) {
    case GT_LIST:
    case GT_STREAM: return gt_is_coll(from) && gt_assignable(from->elem, to->elem);
    case GT_MATRIX:
        if (from->k == GT_LIST)
            return from->elem->k == GT_ANY ||
                   (gt_is_coll(from->elem) && gt_assignable(from->elem->elem, to->elem));
        return from->k == GT_MATRIX && gt_assignable(from->elem, to->elem);
    case GT_RECORD: return from->k == GT_RECORD && from->rec == to->rec;
    default: return from->k == to->k;
    }
}

bool gt_same(const GType *a, const GType *b)
{
    if (a->k != b->k)
        return false;
    switch (a->k) {
    case GT_LIST:
    case GT_STREAM: return gt_same(a->elem, b->elem);
    case GT_MATRIX:
        return gt_same(a->elem, b->elem) && strcmp(a->rows, b->rows) == 0 &&
               strcmp(a->cols, b->cols) == 0;
    case GT_RECORD: return a->rec == b->rec;
    default: return true;
    }
}

const GType *gt_join(Gen *g, const GType *a, const GType *b)
{
    if (a->k == GT_ANY)
        return b;
    if (b->k == GT_ANY)
        return a;
    if (gt_is_num(a) && gt_is_num(b)) {
        if (a->k == GT_FLOAT || b->k == GT_FLOAT)
            return &gt_float;
        return a->k == GT_NAT && b->k == GT_NAT ? &gt_nat : &gt_int;
    }
    if (gt_is_coll(a) && gt_is_coll(b)) {
        const GType *e = gt_join(g, a->elem, b->elem);
        return e ? gt_list(g, e) : NULL;
    }
    if (gt_assignable(a, b))
        return b;
    if (gt_assignable(b, a))
        return a;
    return NULL;
}

static const char *const unaliased[] = {"?", "Natural", "Int", "Bool", "Float", "String"};

const char *gt_text(Gen *g, const GType *t)
{
    // an alias that names exactly this type, sometimes
    if (!g->in_expr && g->n_aliases && gchance(g, 3)) {
        for (size_t i = 0; i < g->n_aliases; i++)
            if (gt_same(g->aliases[i].t, t))
                return g->aliases[i].name;
    }
    switch (t->k) {
    case GT_LIST: return ga_printf(&g->arena, "List[%s]", gt_text(g, t->elem));
    case GT_STREAM: return ga_printf(&g->arena, "Stream[%s]", gt_text(g, t->elem));
    case GT_MATRIX:
        if (t->elem->k == GT_FLOAT && gchance(g, 2))
            return ga_printf(&g->arena, "Matrix[%s, %s]", t->rows, t->cols);
        return ga_printf(&g->arena, "Matrix[%s, %s, %s]", t->rows, t->cols,
                         t->elem->k == GT_NAT  ? "Natural"
                         : t->elem->k == GT_INT ? "Int"
                                                : "Float");
    case GT_RECORD: return g->recs[t->rec].name;
    default: return unaliased[t->k];
    }
}

const GType *gt_random_scalar(Gen *g)
{
    static const unsigned w[] = {4, 4, 2, 2, 2};
    static const GType *const ts[] = {&gt_nat, &gt_int, &gt_bool, &gt_float, &gt_string};
    return ts[gpickw(g, w, g->numeric ? 4 : 5)];
}

/* Matrices need size variables: gen_prog.c makes them. */
const GType *gt_random(Gen *g, int depth)
{
    if (g->numeric) { // numbers, and lists of numbers
        static const unsigned w[] = {4, 4, 3};
        static const GType *const ts[] = {&gt_nat, &gt_int, &gt_float};
        if (depth > 0 && gchance(g, 3))
            return gt_list(g, ts[gpickw(g, w, 3)]);
        return gt_random_scalar(g);
    }
    enum { SCALAR, LIST, RECORD, STREAM };
    unsigned w[] = {10, depth > 0 ? 4u : 0u, g->n_recs ? 2u : 0u, depth > 0 ? 1u : 0u};
    switch (gpickw(g, w, 4)) {
    case LIST: return gt_list(g, gt_random(g, depth - 1));
    case RECORD: return gt_record(g, (int)gx(g, (uint32_t)g->n_recs));
    case STREAM: return gt_stream(g, gt_random(g, depth - 1));
    default: return gt_random_scalar(g);
    }
}

/* ---- records and aliases ---- */

static const char *const field_pool[] = {
    "x", "y", "name", "age", "id", "score", "tags", "ok", "w", "label", "count_", "next",
};

static bool same_field_set(const GRecord *a, const GRecord *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        bool found = false;
        for (size_t j = 0; j < b->n; j++)
            found |= strcmp(a->fields[i], b->fields[j]) == 0;
        if (!found)
            return false;
    }
    return true;
}

static void gen_record(Gen *g, GRecord *r, bool scalar_only)
{
    static const char *const names[] = {"Point", "User", "Item", "Pair", "Box", "Cell", "Row"};
    r->name = gfresh(g, names[gx(g, GEN_LEN(names))]);
    // no empty record where an alias may match `{}` (tests/fuzz/found/007-*)
    bool empty_ok = !(g->opt->avoid & GEN_KNOWN_ALIAS_EMPTY_REC);
    r->n = gx(g, 12) == 1 && empty_ok ? 0 : 1 + gx(g, 4);
    r->scalar = true;
    size_t start = gx(g, GEN_LEN(field_pool));
    for (size_t i = 0; i < r->n; i++) {
        r->fields[i] = field_pool[(start + i * 5) % GEN_LEN(field_pool)];
        // now and then a record declared before: records nest
        const GType *t = !scalar_only && g->n_recs && gx(g, 5) == 1
                                 ? gt_record(g, (int)gx(g, (uint32_t)g->n_recs))
                         : scalar_only || gchance(g, 2) ? gt_random_scalar(g)
                                                        : gt_random(g, 1);
        r->types[i] = t;
        r->scalar &= gt_is_scalar(t);
    }
    // a set of field names already taken gets a field of its own
    for (size_t i = 0; i < g->n_recs; i++) {
        if (&g->recs[i] != r && same_field_set(&g->recs[i], r)) {
            if (r->n == 0) {
                r->n = 1;
                r->types[0] = &gt_int;
            }
            r->fields[0] = gfresh(g, "f");
            break;
        }
    }
}

static void write_record(Gen *g, const GRecord *r, GenBuf *out)
{
    gb_printf(out, "type %s = {", r->name);
    for (size_t i = 0; i < r->n; i++)
        gb_printf(out, "%s%s: %s", i ? ", " : (gchance(g, 4) ? " " : ""), r->fields[i],
                  gt_text(g, r->types[i]));
    gb_puts(out, "}\n");
}

int gen_scalar_record(Gen *g, GenBuf *out)
{
    if (g->n_recs >= GEN_MAX_RECS)
        return -1;
    GRecord *r = &g->recs[g->n_recs];
    memset(r, 0, sizeof(*r));
    gen_record(g, r, true);
    if (r->n == 0) {
        r->n = 1;
        r->fields[0] = gfresh(g, "f");
        r->types[0] = &gt_int;
    }
    g->n_recs++;
    write_record(g, r, out);
    return (int)g->n_recs - 1;
}

void gen_records(Gen *g, GenBuf *out)
{
    // records in most programs: the native tier is growing into them
    size_t n = gchance(g, 4) ? gx(g, 2) : 1 + gx(g, 3);
    for (size_t i = 0; i < n && g->n_recs < GEN_MAX_RECS; i++) {
        GRecord *r = &g->recs[g->n_recs];
        memset(r, 0, sizeof(*r));
        gen_record(g, r, gchance(g, 2));
        g->n_recs++;
        write_record(g, r, out);
        // an alias now and then: of a scalar, a list, or this record
        if (g->n_aliases < GEN_MAX_ALIASES && gchance(g, 2)) {
            GAlias *a = &g->aliases[g->n_aliases];
            static const char *const stems[] = {"Age", "Count", "Names", "Alias", "T"};
            a->name = gfresh(g, stems[gx(g, GEN_LEN(stems))]);
            a->t = gchance(g, 3) ? gt_record(g, (int)g->n_recs - 1) : gt_random(g, 1);
            // the alias's own definition is written without aliases to itself
            gb_printf(out, "type %s = %s\n", a->name, gt_text(g, a->t));
            g->n_aliases++;
        }
    }
}

/* ---- literals ---- */

static const char *const big_ints[] = {
    "2147483647",           "2147483648",           "4294967296",
    "9223372036854775807",  "9223372036854775808",  "18446744073709551616",
    "354224848179261915075", "100000000000000000000000000000000000001",
};

const char *gen_int_literal(Gen *g, bool natural, bool small)
{
    (void)natural; // the text never has a sign: a caller writes `-` itself
    if (small || gx(g, 8) != 1)
        return ga_printf(&g->arena, "%u", gx(g, gchance(g, 4) ? 100 : 10));
    if (gchance(g, 2))
        return big_ints[gx(g, GEN_LEN(big_ints))];
    // a random one of 15 to 40 digits
    size_t n = 15 + gx(g, 26);
    char *s = ga_alloc(&g->arena, n + 1);
    s[0] = (char)('1' + gx(g, 9));
    for (size_t i = 1; i < n; i++)
        s[i] = (char)('0' + gx(g, 10));
    s[n] = '\0';
    return s;
}

const char *gen_float_literal(Gen *g)
{
    static const char *const fs[] = {"0.5", "1.0", "2.5",   "0.0",   "1e-9",  "3.25",
                                     "1e300", "1.5e10", "1E3", "0.1", "123.456", "2e-308"};
    if (gchance(g, 3))
        return ga_printf(&g->arena, "%u.%u", gx(g, 20), gx(g, 100));
    return fs[gx(g, GEN_LEN(fs))];
}

/* As written in source: escapes \" \\ \n \t, non-ASCII, the comment
 * characters and a CSV comma inside. */
const char *gen_string_literal(Gen *g)
{
    static const char *const ss[] = {
            "\"\"",
            "\"a\"",
            "\"hello\"",
            "\"Ann\"",
            "\"h\xc3\xa9llo\"",
            "\"\xe6\x97\xa5\xe6\x9c\xac\"",
            "\"say \\\"hi\\\"\"",
            "\"back\\\\slash\"",
            "\"tab\\there\"",
            "\"line\\nbreak\"",
            "\"# not a comment\"",
            "\"// nor this\"",
            "\"a, b\"",
            "\"zz\"",
            "\"B\"",
            "\" spaced \"",
    };
    return ss[gx(g, GEN_LEN(ss))];
}

/* The value of a matrix size: a size variable's from sizes, or a literal. */
static unsigned size_value(const char *size, const char *const *names, const unsigned *vals,
                           size_t n)
{
    if (size[0] >= '0' && size[0] <= '9')
        return (unsigned)strtoul(size, NULL, 10);
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], size) == 0)
            return vals[i];
    return 1;
}

const char *gen_value(Gen *g, const GType *t, const char *const *size_names,
                      const unsigned *size_vals, size_t n_sizes, int depth)
{
    GenArena *a = &g->arena;
    switch (t->k) {
    case GT_NAT:
        // a negative Natural now and then: a run-time error naming the parameter
        if (gx(g, 40) == 1)
            return "-1";
        return gen_int_literal(g, true, false);
    case GT_INT:
        if (gchance(g, 3))
            return ga_printf(a, "-%s", gen_int_literal(g, false, false));
        return gen_int_literal(g, false, false);
    case GT_BOOL: return gchance(g, 2) ? "true" : "false";
    case GT_FLOAT:
        if (gchance(g, 5))
            return gen_int_literal(g, false, true); // an integer as a Float argument
        return ga_printf(a, "%s%s", gchance(g, 4) ? "-" : "", gen_float_literal(g));
    case GT_STRING: return gen_string_literal(g);
    case GT_ANY: return "0";
    case GT_LIST:
    case GT_STREAM: {
        size_t n = depth <= 0 ? 0 : gchance(g, 6) ? 0 : gx(g, gchance(g, 8) ? 30 : 5);
        GenBuf b = {0};
        gb_puts(&b, "[");
        for (size_t i = 0; i < n; i++)
            gb_printf(&b, "%s%s", i ? ", " : "",
                      gen_value(g, t->elem, size_names, size_vals, n_sizes, depth - 1));
        gb_puts(&b, "]");
        char *s = gb_take(&b);
        const char *r = ga_strdup(a, s);
        free(s);
        return r;
    }
    case GT_MATRIX: {
        unsigned rows = size_value(t->rows, size_names, size_vals, n_sizes);
        unsigned cols = size_value(t->cols, size_names, size_vals, n_sizes);
        GenBuf b = {0};
        gb_puts(&b, "[");
        for (unsigned r = 0; r < rows; r++) {
            gb_puts(&b, r ? ", [" : "[");
            for (unsigned c = 0; c < cols; c++)
                gb_printf(&b, "%s%s", c ? ", " : "",
                          gen_value(g, t->elem, size_names, size_vals, n_sizes, 0));
            gb_puts(&b, "]");
        }
        gb_puts(&b, "]");
        char *s = gb_take(&b);
        const char *r = ga_strdup(a, s);
        free(s);
        return r;
    }
    case GT_RECORD: {
        const GRecord *r = &g->recs[t->rec];
        GenBuf b = {0};
        gb_puts(&b, "{");
        size_t start = gx(g, (uint32_t)r->n); // fields in any order
        for (size_t i = 0; i < r->n; i++) {
            size_t f = (start + i) % r->n;
            gb_printf(&b, "%s%s: %s", i ? ", " : "", r->fields[f],
                      gen_value(g, r->types[f], size_names, size_vals, n_sizes, depth - 1));
        }
        gb_puts(&b, "}");
        char *s = gb_take(&b);
        const char *res = ga_strdup(a, s);
        free(s);
        return res;
    }
    }
    return "0";
}
