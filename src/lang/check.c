/*
 * check.c: the checker: names, types and the shape of constraints.
 *
 * Two passes over the whole program. The first resolves every declared type,
 * data source and intent signature, so that an intent may call another that
 * is declared later or in another file. The second checks each intent's
 * constraints: it classifies `f(x) = ...` lines into defining equations or
 * postconditions (the alias rule), resolves every name, gives every
 * expression a type, checks the comprehension forms (the plural rule for
 * kinds, bounded variables, the one free variable of a collection's
 * condition), and decides which constraints construct the result.
 * Intents that pass are handed to check_smt.c for contradictions and
 * properties, which need Z3.
 *
 * Invariant: after fx_check_program with no errors, every FxExpr reachable
 * from an intent has a non-NULL type and every NAME and CALL a resolution.
 */
#include "check_int.h"
#include "check_memo.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Local {
    const char *name;
    FxType *type;
} Local;

typedef struct SizeVar {
    const char *name;
    FxSpan span;
} SizeVar;

/* A grouped comprehension whose body is being checked: `var` stands for
 * the group's elements, inside aggregates only; `key` for the group's key. */
typedef struct GroupCtx {
    const char *var;
    FxType *elem, *key_type;
    const FxExpr *key;
    size_t depth; /* 1 for the outermost */
    size_t mark;  /* locals below this are outside the comprehension: var hides them */
    struct GroupCtx *outer;
} GroupCtx;

typedef struct Checker {
    FxProgram *prog;
    GroupCtx *group; /* the innermost grouped comprehension, or NULL */
    FxDiag *diag;
    FxArena *arena;
    FxIntent *intent; /* the intent being checked, or NULL */
    FX_VEC(Local) locals;
    FX_VEC(SizeVar) sizes;
    const char *result_ban; /* why `result` may not appear here; NULL if it may */
    const FxCheckOptions *options;
    FxCheckMemo *memo; /* the solver's part remembered, or NULL */
} Checker;

static FxType *check_expr(Checker *c, FxExpr *e);
static void expect_bool(Checker *c, FxExpr *e, const char *what);

/* ---- helpers ---- */

size_t fx_check_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 99;
    /* optimal string alignment: edits, plus swapping two neighbours */
    size_t d[33][33];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* The closest of `n` candidates to `name` within a small distance, or NULL.
 * Two edits are allowed between words of four letters or more, one when
 * either is shorter: `sqrt` is not a misspelt `str`. */
static const char *closest(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = strlen(name) <= 3 ? 1 : 2;
    /* an abbreviation: `Nat` for `Natural` */
    for (size_t i = 0; i < n && strlen(name) >= 3; i++)
        if (strncmp(cands[i], name, strlen(name)) == 0 && strcmp(cands[i], name) != 0)
            return cands[i];
    for (size_t i = 0; i < n; i++) {
        size_t d = fx_check_edit_distance(name, cands[i]);
        if (d <= best_d && (d <= 1 || strlen(cands[i]) > 3) && strcmp(name, cands[i]) != 0) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}

static char *type_name(const FxType *t)
{
    return fx_type_name(t);
}

static FxType *new_type(Checker *c, FxTypeKind kind)
{
    return fx_type_new(c->arena, kind);
}

static FxType *error_type(Checker *c)
{
    return new_type(c, FX_TY_ERROR);
}

/* Reports "expected T, found U" style mismatches once per expression. */
static void mismatch(Checker *c, FxSpan span, const char *what, const FxType *found,
                     const FxType *wanted)
{
    char *f = type_name(found), *w = type_name(wanted);
    fx_diag_error(c->diag, span, "%s must be %s, but it is %s", what, w, f);
    free(f);
    free(w);
}

/* ---- global lookups ---- */

static FxTypeDecl *find_type_decl(Checker *c, const char *name)
{
    fx_vec_foreach(FxModule *, m, &c->prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, td, &(*m)->types) if (strcmp((*td)->name, name) == 0) return *td;
    }
    return NULL;
}

static FxDataDecl *find_data(Checker *c, const char *name)
{
    fx_vec_foreach(FxModule *, m, &c->prog->modules)
    {
        fx_vec_foreach(FxDataDecl *, dd, &(*m)->data) if (strcmp((*dd)->name, name) == 0) return *dd;
    }
    return NULL;
}

/* The prelude sees only itself, so that a user's `abs` can't change `gcd`. */
static const FxIntent *find_intent(Checker *c, const char *name)
{
    if (c->intent && c->intent->from_prelude) {
        fx_vec_foreach(FxIntent *, in, &c->prog->prelude->intents)
        {
            if (strcmp((*in)->name, name) == 0)
                return *in;
        }
        return NULL;
    }
    return fx_program_find_intent(c->prog, name);
}

/* Every name a user could have meant, for suggestions. Caller frees the array. */
static size_t visible_names(Checker *c, bool functions, const char ***out)
{
    FX_VEC(const char *) names = {0};
    if (functions) {
        fx_vec_foreach(FxModule *, m, &c->prog->modules)
        {
            fx_vec_foreach(FxIntent *, in, &(*m)->intents) fx_vec_push(&names, (*in)->name);
        }
        for (size_t i = 0; fx_builtin_sig_at(i); i++)
            fx_vec_push(&names, fx_builtin_sig_at(i)->name);
    } else {
        fx_vec_foreach(Local, l, &c->locals) fx_vec_push(&names, l->name);
        if (c->intent)
            for (size_t i = 0; i < c->intent->n_params; i++)
                fx_vec_push(&names, c->intent->params[i].name);
        fx_vec_foreach(SizeVar, s, &c->sizes) fx_vec_push(&names, s->name);
        fx_vec_foreach(FxModule *, m, &c->prog->modules)
        {
            fx_vec_foreach(FxDataDecl *, dd, &(*m)->data) fx_vec_push(&names, (*dd)->name);
        }
    }
    *out = names.data;
    return names.len;
}

static void report_unknown(Checker *c, FxSpan span, const char *what, const char *name,
                           bool functions)
{
    const char **names;
    size_t n = visible_names(c, functions, &names);
    const char *sugg = closest(name, names, n);
    if (sugg)
        fx_diag_error(c->diag, span, "unknown %s `%s`; did you mean `%s`?", what, name, sugg);
    else
        fx_diag_error(c->diag, span, "unknown %s `%s`", what, name);
    free(names);
}

/* ---- types as written -> checked types ---- */

static FxType *resolve_type(Checker *c, const FxTypeExpr *te, bool bind_sizes);
static void resolve_type_decl(Checker *c, FxTypeDecl *td);

static const char *const scalar_names[] = {"Natural", "Int", "Bool", "Float", "String"};
static const FxTypeKind scalar_kinds[] = {FX_TY_NATURAL, FX_TY_INT, FX_TY_BOOL, FX_TY_FLOAT,
                                          FX_TY_STRING};

static bool is_builtin_type(const char *name)
{
    for (size_t i = 0; i < FX_ARRAY_LEN(scalar_names); i++)
        if (strcmp(name, scalar_names[i]) == 0)
            return true;
    return strcmp(name, "List") == 0 || strcmp(name, "Stream") == 0 ||
           strcmp(name, "Matrix") == 0;
}

static bool is_type_word(Checker *c, const char *name)
{
    return is_builtin_type(name) || find_type_decl(c, name) != NULL;
}

static int find_param(const FxIntent *in, const char *name);

/* A Matrix size: a size variable (bound by the first parameter that names
 * it), a Natural parameter (its value), `len(p)` or a literal. Returns the
 * text. */
static const char *resolve_size(Checker *c, const FxTypeExpr *te, bool bind_sizes)
{
    if (te->len_of) { /* len(p): p a list, a stream or a string parameter */
        int p = find_param(c->intent, te->len_of);
        const FxTypeExpr *pt = p >= 0 ? c->intent->params[p].type_expr : NULL;
        const FxType *t = p >= 0 ? c->intent->params[p].type : NULL;
        FxTypeDecl *alias = pt && pt->name && !t ? find_type_decl(c, pt->name) : NULL;
        if (alias) { /* `xs: Names` with `type Names = List[Int]` */
            resolve_type_decl(c, alias);
            t = alias->type;
        }
        bool sized = t ? !fx_type_is_error(t) && (fx_type_is_collection(t) ||
                                                  t->kind == FX_TY_STRING)
                       : pt && pt->name && (!strcmp(pt->name, "List") ||
                                            !strcmp(pt->name, "Vec") ||
                                            !strcmp(pt->name, "Stream") ||
                                            !strcmp(pt->name, "String"));
        if (p < 0)
            fx_diag_error(c->diag, te->len_span, "`len(%s)`: `%s` is not a parameter of `%s`",
                          te->len_of, te->len_of, c->intent ? c->intent->name : "?");
        else if (!sized)
            fx_diag_error(c->diag, te->len_span, "`len(%s)`: a size is the length of a list or a "
                          "string parameter", te->len_of);
        return p >= 0 && sized ? te->name : "?";
    }
    if (te->n_args || te->n_fields || !te->name || is_type_word(c, te->name)) {
        fx_diag_error(c->diag, te->span, "a matrix size is a variable such as `M` or a number");
        return "?";
    }
    if (te->name[0] >= '0' && te->name[0] <= '9')
        return te->name;
    int p = find_param(c->intent, te->name);
    if (p >= 0) { /* `identity(n: Natural) -> Matrix[n, n]`: the parameter's value */
        const FxTypeExpr *pt = c->intent->params[p].type_expr;
        if (pt && pt->name && !pt->n_args && !strcmp(pt->name, "Natural"))
            return te->name;
        fx_diag_error(c->diag, te->span,
                      "size `%s` names the parameter `%s`, which is not a Natural: a size is a "
                      "Natural parameter, a variable such as `M` or a number", te->name, te->name);
        return "?";
    }
    bool known = false;
    fx_vec_foreach(SizeVar, s, &c->sizes) known |= strcmp(s->name, te->name) == 0;
    if (!known) {
        if (!bind_sizes) {
            fx_diag_error(c->diag, te->span,
                          "size `%s` of the result is not bound by any parameter: a size is a "
                          "Natural parameter (`Matrix[n, n]`), a size of a matrix parameter, "
                          "`len(xs)` or a number", te->name);
            return "?";
        }
        SizeVar sv = {te->name, te->span};
        fx_vec_push(&c->sizes, sv);
    }
    return te->name;
}

static FxType *resolve_matrix(Checker *c, const FxTypeExpr *te, bool bind_sizes)
{
    if (te->n_args != 2 && te->n_args != 3) {
        fx_diag_error(c->diag, te->span, "`Matrix` takes two sizes and an optional element "
                                         "type: `Matrix[R, C]` or `Matrix[R, C, Int]`");
        return error_type(c);
    }
    FxType *t = new_type(c, FX_TY_MATRIX);
    t->rows = resolve_size(c, te->args[0], bind_sizes);
    t->cols = resolve_size(c, te->args[1], bind_sizes);
    t->elem = te->n_args == 3 ? resolve_type(c, te->args[2], bind_sizes) : new_type(c, FX_TY_FLOAT);
    if (!fx_type_is_numeric(t->elem)) {
        char *n = type_name(t->elem);
        fx_diag_error(c->diag, te->args[2]->span,
                      "matrix elements are numbers (Float, Int or Natural), not %s", n);
        free(n);
        return error_type(c);
    }
    return t;
}

static FxType *resolve_named(Checker *c, const FxTypeExpr *te, bool bind_sizes)
{
    for (size_t i = 0; i < FX_ARRAY_LEN(scalar_names); i++) {
        if (strcmp(te->name, scalar_names[i]) != 0)
            continue;
        if (te->n_args) {
            fx_diag_error(c->diag, te->span, "`%s` takes no type arguments", te->name);
            return error_type(c);
        }
        return new_type(c, scalar_kinds[i]);
    }
    /* `Vec[T]` is `List[T]`, unless the program declares its own `Vec` */
    bool vec = strcmp(te->name, "Vec") == 0 && !find_type_decl(c, te->name);
    if (strcmp(te->name, "List") == 0 || strcmp(te->name, "Stream") == 0 || vec) {
        if (te->n_args != 1) {
            fx_diag_error(c->diag, te->span, "`%s` takes one element type, as in `%s[Int]`",
                          te->name, te->name);
            return error_type(c);
        }
        FxType *t = new_type(c, te->name[0] == 'S' ? FX_TY_STREAM : FX_TY_LIST);
        t->elem = resolve_type(c, te->args[0], bind_sizes);
        return t;
    }
    if (strcmp(te->name, "Matrix") == 0)
        return resolve_matrix(c, te, bind_sizes);
    FxTypeDecl *td = find_type_decl(c, te->name);
    if (td) {
        if (te->n_args) {
            fx_diag_error(c->diag, te->span, "`%s` takes no type arguments", te->name);
            return error_type(c);
        }
        resolve_type_decl(c, td);
        return td->type ? td->type : error_type(c);
    }
    FX_VEC(const char *) all = {0};
    for (size_t i = 0; i < FX_ARRAY_LEN(scalar_names); i++)
        fx_vec_push(&all, scalar_names[i]);
    fx_vec_push(&all, "List");
    fx_vec_push(&all, "Stream");
    fx_vec_push(&all, "Matrix");
    fx_vec_foreach(FxModule *, m, &c->prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, td2, &(*m)->types) fx_vec_push(&all, (*td2)->name);
    }
    const char *sugg = closest(te->name, all.data, all.len);
    fx_vec_free(&all);
    if (sugg)
        fx_diag_error(c->diag, te->span, "unknown type `%s`; did you mean `%s`?", te->name, sugg);
    else
        fx_diag_error(c->diag, te->span, "unknown type `%s`: declare it, as in `type %s = { name: String, size: Int }`", te->name, te->name);
    return error_type(c);
}

static FxType *resolve_type(Checker *c, const FxTypeExpr *te, bool bind_sizes)
{
    if (!te)
        return NULL;
    if (!te->name) {
        fx_diag_error(c->diag, te->span, "a record type needs a name: declare it with "
                                         "`type Name = { ... }`");
        return error_type(c);
    }
    if (strcmp(te->name, "?") == 0)
        return error_type(c);
    return resolve_named(c, te, bind_sizes);
}

/* `type User = { name: String, age: Int }` or `type Age = Int`. */
static void resolve_type_decl(Checker *c, FxTypeDecl *td)
{
    if (td->type)
        return;
    const FxTypeExpr *def = td->def;
    if (!def->name) {
        FxType *t = new_type(c, FX_TY_RECORD);
        t->record = td;
        td->type = t;
        td->field_types = fx_arena_alloc(c->arena, (def->n_fields + 1) * sizeof(FxType *));
        if (def->n_fields > 64)
            fx_diag_error(c->diag, td->name_span, "record `%s` has %zu fields; a record holds at "
                          "most 64", td->name, def->n_fields);
        for (size_t i = 0; i < def->n_fields; i++) {
            for (size_t j = 0; j < i; j++)
                if (strcmp(def->field_names[i], def->field_names[j]) == 0)
                    fx_diag_error(c->diag, def->field_spans[i],
                                  "field `%s` appears twice in `%s`", def->field_names[i],
                                  td->name);
            td->field_types[i] = resolve_type(c, def->field_types[i], false);
        }
        return;
    }
    if (td->resolving) {
        fx_diag_error(c->diag, td->name_span, "type `%s` is defined in terms of itself",
                      td->name);
        td->type = error_type(c);
        return;
    }
    td->resolving = true;
    FxTypeDecl *target = def->n_args == 0 ? find_type_decl(c, def->name) : NULL;
    if (target)
        resolve_type_decl(c, target);
    FxType *t = resolve_type(c, def, false);
    if (!td->type)
        td->type = t;
    td->resolving = false;
}

/* ---- scopes ---- */

static void push_local(Checker *c, const char *name, FxType *type)
{
    Local l = {name, type};
    fx_vec_push(&c->locals, l);
}

static int find_param(const FxIntent *in, const char *name)
{
    for (size_t i = 0; in && i < in->n_params; i++)
        if (strcmp(in->params[i].name, name) == 0)
            return (int)i;
    return -1;
}

static bool is_size_var(Checker *c, const char *name)
{
    fx_vec_foreach(SizeVar, s, &c->sizes) if (strcmp(s->name, name) == 0) return true;
    return false;
}

/* Does `name` resolve to a value in the current scope? */
static bool name_in_scope(Checker *c, const char *name)
{
    fx_vec_foreach(Local, l, &c->locals) if (strcmp(l->name, name) == 0) return true;
    return find_param(c->intent, name) >= 0 || is_size_var(c, name) || find_data(c, name);
}

/* ---- expressions ---- */

static FxType *check_name(Checker *c, FxExpr *e)
{
    const char *name = e->u.text;
    const GroupCtx *hides = c->group;
    while (hides && strcmp(hides->var, name) != 0)
        hides = hides->outer;
    for (size_t i = c->locals.len; i-- > (hides ? hides->mark : 0);) {
        if (strcmp(c->locals.data[i].name, name) == 0) {
            e->ref = FX_REF_LOCAL;
            e->ref_index = i;
            return c->locals.data[i].type;
        }
    }
    if (hides) {
        fx_diag_error(c->diag, e->span, "`%s` stands for each element of a group here: use it in "
                      "an aggregate, as in `count(%s)` or `sum(...)` of it, or in the key the "
                      "comprehension groups by", name, name);
        return error_type(c);
    }
    int p = find_param(c->intent, name);
    if (p >= 0) {
        e->ref = FX_REF_PARAM;
        e->ref_index = (size_t)p;
        return c->intent->params[p].type;
    }
    if (is_size_var(c, name)) {
        e->ref = FX_REF_SIZE;
        return new_type(c, FX_TY_NATURAL);
    }
    FxDataDecl *dd = find_data(c, name);
    if (dd) {
        e->ref = FX_REF_DATA;
        e->ref_data = dd;
        return dd->type;
    }
    if (fx_check_constant(name)) {
        e->ref = FX_REF_CONST;
        return new_type(c, FX_TY_FLOAT);
    }
    if (find_intent(c, name) || fx_check_is_builtin(name) ||
        (c->intent && c->intent->alias && strcmp(c->intent->alias, name) == 0)) {
        fx_diag_error(c->diag, e->span, "`%s` is a function; call it with arguments, as in "
                                        "`%s(x)`", name, name);
        return error_type(c);
    }
    report_unknown(c, e->span, "name", name, false);
    return error_type(c);
}

static FxType *arith_result(Checker *c, FxType *l, FxType *r)
{
    FxType *j = fx_type_join(c->arena, l, r);
    return j ? j : error_type(c);
}

static FxType *check_binary(Checker *c, FxExpr *e)
{
    FxOp op = e->u.binary.op;
    FxType *l = check_expr(c, e->u.binary.lhs), *r = check_expr(c, e->u.binary.rhs);
    const char *name = fx_op_name(op);
    switch (op) {
    case FX_OP_AND:
    case FX_OP_OR:
        if (!fx_type_is_error(l) && l->kind != FX_TY_BOOL)
            mismatch(c, e->u.binary.lhs->span, "an operand of `and`/`or`", l,
                     new_type(c, FX_TY_BOOL));
        if (!fx_type_is_error(r) && r->kind != FX_TY_BOOL)
            mismatch(c, e->u.binary.rhs->span, "an operand of `and`/`or`", r,
                     new_type(c, FX_TY_BOOL));
        return new_type(c, FX_TY_BOOL);
    case FX_OP_CONCAT:
        if (fx_type_is_error(l) || fx_type_is_error(r)) /* reported already */
            return fx_type_is_error(l) ? r : l;
        if (l->kind == FX_TY_ANY || r->kind == FX_TY_ANY) /* the element of `[]`: anything */
            return l->kind == FX_TY_ANY ? r : l;
        if (l->kind == FX_TY_STRING && r->kind == FX_TY_STRING)
            return l;
        if (!fx_type_is_collection(l) || !fx_type_is_collection(r)) {
            fx_diag_error(c->diag, e->u.binary.op_span, "`++` joins two lists or two strings");
            return error_type(c);
        }
        return arith_result(c, l, r);
    default:
        break;
    }
    if (!fx_type_is_numeric(l) || !fx_type_is_numeric(r)) {
        FxExpr *bad = fx_type_is_numeric(l) ? e->u.binary.rhs : e->u.binary.lhs;
        char *t = type_name(fx_type_is_numeric(l) ? r : l);
        fx_diag_error(c->diag, bad->span, "`%s` needs numbers, but this is %s", name, t);
        free(t);
        return error_type(c);
    }
    bool ints = fx_type_is_int(l) && fx_type_is_int(r);
    switch (op) {
    case FX_OP_DIV:
        if (ints && !fx_type_is_error(l) && !fx_type_is_error(r)) {
            fx_diag_error(c->diag, e->u.binary.op_span,
                          "`/` is not defined on integers; use `div` for floor division");
            return error_type(c);
        }
        return new_type(c, FX_TY_FLOAT);
    case FX_OP_IDIV:
    case FX_OP_MOD:
        if (!ints) {
            fx_diag_error(c->diag, e->u.binary.op_span, "`%s` needs integers; use `/` for "
                                                        "Float division", name);
            return error_type(c);
        }
        return arith_result(c, l, r);
    case FX_OP_SUB:
        if (ints)
            return fx_type_is_error(l) ? l : new_type(c, FX_TY_INT);
        return new_type(c, FX_TY_FLOAT);
    case FX_OP_POW:
        if (!fx_type_is_int(r) && fx_type_is_int(l))
            return new_type(c, FX_TY_FLOAT);
        return l;
    default:
        return arith_result(c, l, r);
    }
}

static bool compare_ok(Checker *c, FxOp op, FxExpr *a, FxExpr *b, FxSpan op_span)
{
    FxType *l = a->type, *r = b->type;
    if (fx_type_is_error(l) || fx_type_is_error(r))
        return true;
    const char *name = fx_op_name(op);
    if (op == FX_OP_IN) {
        if (r->kind == FX_TY_STRING) { /* a substring test */
            if (l->kind == FX_TY_STRING)
                return true;
            char *t = type_name(l);
            fx_diag_error(c->diag, a->span, "`in` with a String on its right looks for a "
                          "substring, so its left side must be String, not %s", t);
            free(t);
            return false;
        }
        if (!fx_type_is_collection(r)) {
            char *t = type_name(r);
            fx_diag_error(c->diag, b->span, "`in` needs a range, a list or a string on its "
                                            "right, not %s", t);
            free(t);
            return false;
        }
        if (!fx_type_assignable(l, r->elem)) {
            mismatch(c, a->span, "the left side of `in`", l, r->elem);
            return false;
        }
        return true;
    }
    if (op == FX_OP_EQ || op == FX_OP_NE) {
        if (fx_type_join(c->arena, l, r))
            return true;
    } else if (fx_type_is_ordered(l) && fx_type_is_ordered(r) &&
               fx_type_is_numeric(l) == fx_type_is_numeric(r)) {
        return true;
    }
    char *tl = type_name(l), *tr = type_name(r);
    fx_diag_error(c->diag, op_span, "cannot compare %s with %s using `%s`", tl, tr, name);
    free(tl);
    free(tr);
    return false;
}

static FxType *check_compare(Checker *c, FxExpr *e)
{
    size_t n = e->u.compare.n;
    for (size_t i = 0; i < n; i++)
        check_expr(c, e->u.compare.operands[i]);
    for (size_t i = 0; i + 1 < n; i++)
        compare_ok(c, e->u.compare.ops[i], e->u.compare.operands[i], e->u.compare.operands[i + 1],
                   e->u.compare.op_spans[i]);
    return new_type(c, FX_TY_BOOL);
}

static void check_arg_types(Checker *c, const FxExpr *call, const FxIntent *callee)
{
    for (size_t i = 0; i < call->u.call.n_args && i < callee->n_params; i++) {
        FxExpr *arg = call->u.call.args[i];
        if (!fx_type_assignable(arg->type, callee->params[i].type)) {
            char *what = fx_xasprintf("argument `%s` of `%s`", callee->params[i].name,
                                      callee->name);
            mismatch(c, arg->span, what, arg->type, callee->params[i].type);
            free(what);
        }
    }
}

/* len sum product min max count: any element type, and min/max of two. */
static FxType *check_reserved(Checker *c, FxExpr *e)
{
    const char *name = e->u.call.name;
    size_t n = e->u.call.n_args;
    FxExpr **args = e->u.call.args;
    bool two_ok = strcmp(name, "min") == 0 || strcmp(name, "max") == 0;
    if (n != 1 && !(two_ok && n == 2)) {
        fx_diag_error(c->diag, e->span, "`%s` takes %s, but %zu %s given", name,
                      two_ok ? "a list or two numbers" : "one argument", n,
                      n == 1 ? "was" : "were");
        return error_type(c);
    }
    FxType *a = args[0]->type;
    if (n == 2) {
        FxType *j = fx_type_join(c->arena, a, args[1]->type);
        if (!j || !fx_type_is_ordered(j)) {
            fx_diag_error(c->diag, e->span, "`%s` of two values needs two numbers or two "
                                            "strings", name);
            return error_type(c);
        }
        return j;
    }
    if (strcmp(name, "len") == 0) {
        if (!fx_type_is_collection(a) && a->kind != FX_TY_STRING) {
            char *t = type_name(a);
            fx_diag_error(c->diag, args[0]->span, "`len` needs a list or a string, not %s", t);
            free(t);
        }
        return new_type(c, FX_TY_NATURAL);
    }
    if (!fx_type_is_collection(a)) {
        char *t = type_name(a);
        fx_diag_error(c->diag, args[0]->span, "`%s` needs a list, not %s", name, t);
        free(t);
        return error_type(c);
    }
    if (strcmp(name, "count") == 0)
        return new_type(c, FX_TY_NATURAL);
    if (fx_type_is_error(a))
        return a;
    bool ordered_only = two_ok;
    if (ordered_only ? !fx_type_is_ordered(a->elem) : !fx_type_is_numeric(a->elem)) {
        char *t = type_name(a);
        fx_diag_error(c->diag, args[0]->span, "`%s` needs a list of numbers, not %s", name, t);
        free(t);
        return error_type(c);
    }
    return a->elem;
}

static const char *count_word(size_t n)
{
    static const char *const words[] = {"no", "one", "two", "three"};
    return n < FX_ARRAY_LEN(words) ? words[n] : "several";
}

/* A library function: its arity and argument kinds from the table
 * (builtins_sig.c). */
static FxType *check_library(Checker *c, FxExpr *e, const FxBuiltinSig *sig)
{
    size_t n = e->u.call.n_args;
    FxExpr **args = e->u.call.args;
    if (n < sig->min_args || n > sig->max_args) {
        const char *plural = sig->max_args == 1 ? "argument" : "arguments";
        if (sig->min_args == sig->max_args)
            fx_diag_error(c->diag, e->span, "`%s` takes %s %s, but %zu %s given", sig->name,
                          count_word(sig->max_args), plural, n, n == 1 ? "was" : "were");
        else
            fx_diag_error(c->diag, e->span, "`%s` takes %s or %s %s, but %zu %s given",
                          sig->name, count_word(sig->min_args), count_word(sig->max_args),
                          plural, n, n == 1 ? "was" : "were");
        return error_type(c);
    }
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        const FxSigParam *p = &sig->params[i];
        if (fx_builtin_sig_accepts(p->kind, args[i]->type))
            continue;
        char *t = type_name(args[i]->type);
        fx_diag_error(c->diag, args[i]->span, "argument `%s` of `%s` must be %s, but it is %s",
                      p->name, sig->name, fx_builtin_sig_kind_name(p->kind), t);
        free(t);
        ok = false;
    }
    if (!ok)
        return error_type(c);
    FxType *first = args[0]->type;
    switch (sig->ret) {
    case FX_SIG_RET_BOOL: return new_type(c, FX_TY_BOOL);
    case FX_SIG_RET_INT: return new_type(c, FX_TY_INT);
    case FX_SIG_RET_FLOAT: return new_type(c, FX_TY_FLOAT);
    case FX_SIG_RET_STRING: return new_type(c, FX_TY_STRING);
    case FX_SIG_RET_STRING_LIST: return fx_type_list(c->arena, new_type(c, FX_TY_STRING));
    case FX_SIG_RET_NATURAL: return new_type(c, FX_TY_NATURAL);
    case FX_SIG_RET_SAME:
        if (first->kind == FX_TY_STREAM) /* a stream is read whole: a list */
            return fx_type_list(c->arena, first->elem);
        return first;
    }
    return error_type(c);
}

static FxType *check_builtin(Checker *c, FxExpr *e)
{
    const FxBuiltinSig *sig = fx_builtin_sig(e->u.call.name);
    e->ref = FX_REF_BUILTIN;
    return sig->reserved ? check_reserved(c, e) : check_library(c, e, sig);
}

static bool is_self(Checker *c, const char *name)
{
    return c->intent && (strcmp(c->intent->name, name) == 0 ||
                         (c->intent->alias && strcmp(c->intent->alias, name) == 0));
}

/* Do the (checked) arguments of call e fit callee's parameters? */
static bool takes(const FxIntent *callee, const FxExpr *e)
{
    if (e->u.call.n_args != callee->n_params)
        return false;
    for (size_t i = 0; i < callee->n_params; i++)
        if (!fx_type_assignable(e->u.call.args[i]->type, callee->params[i].type))
            return false;
    return true;
}

static FxType *check_call(Checker *c, FxExpr *e)
{
    for (size_t i = 0; i < e->u.call.n_args; i++)
        check_expr(c, e->u.call.args[i]);
    const char *name = e->u.call.name;
    const FxIntent *callee = NULL;
    if (is_self(c, name)) {
        callee = c->intent;
        c->intent->recursive = true;
    } else if (fx_check_is_reserved(name)) {
        return check_builtin(c, e);
    } else {
        /* an intent of the program shadows a library function; a prelude
         * intent only for the arguments its parameters take (`abs` of an
         * integer is the prelude's, of a Float the library's) */
        callee = find_intent(c, name);
        if (fx_check_is_builtin(name) &&
            (!callee || (callee->from_prelude && !takes(callee, e))))
            return check_builtin(c, e);
    }
    if (!callee) {
        report_unknown(c, e->u.call.name_span, "function", name, true);
        return error_type(c);
    }
    e->ref = FX_REF_INTENT;
    e->ref_intent = callee;
    if (e->u.call.n_args != callee->n_params) {
        fx_diag_error(c->diag, e->span, "`%s` takes %zu argument%s, but %zu %s given", name,
                      callee->n_params, callee->n_params == 1 ? "" : "s", e->u.call.n_args,
                      e->u.call.n_args == 1 ? "was" : "were");
        return callee->ret ? callee->ret : error_type(c);
    }
    check_arg_types(c, e, callee);
    return callee->ret ? callee->ret : error_type(c);
}

/* xs[a..b], xs[a..=b], s[a..b]: a part of a list or a string, of its type
 * (a stream's part is a list). check_range has checked the bounds. */
static FxType *check_slice(Checker *c, FxExpr *e, FxType *base)
{
    if (e->u.index.n != 1) {
        fx_diag_error(c->diag, e->span, "a slice takes one range: `xs[a..b]`");
        return error_type(c);
    }
    if (base->kind == FX_TY_STRING || base->kind == FX_TY_LIST)
        return base;
    if (base->kind == FX_TY_STREAM)
        return fx_type_list(c->arena, base->elem);
    char *t = type_name(base);
    fx_diag_error(c->diag, e->u.index.base->span, "only lists and strings can be sliced; this "
                                                  "is %s", t);
    free(t);
    return error_type(c);
}

static FxType *check_index(Checker *c, FxExpr *e)
{
    FxType *base = check_expr(c, e->u.index.base);
    size_t n = e->u.index.n;
    bool slice = false;
    for (size_t i = 0; i < n; i++) {
        FxExpr *ix = e->u.index.indices[i];
        FxType *t = check_expr(c, ix);
        if (ix->kind == FX_EXPR_RANGE)
            slice = true;
        else if (!fx_type_is_int(t))
            mismatch(c, ix->span, "an index", t, new_type(c, FX_TY_INT));
    }
    if (fx_type_is_error(base))
        return base;
    if (slice)
        return check_slice(c, e, base);
    size_t want = base->kind == FX_TY_MATRIX ? 2 : 1;
    if (base->kind != FX_TY_MATRIX && base->kind != FX_TY_LIST && base->kind != FX_TY_STREAM &&
        base->kind != FX_TY_STRING) {
        char *t = type_name(base);
        fx_diag_error(c->diag, e->u.index.base->span, "only lists, strings and matrices can be "
                                                      "indexed; this is %s", t);
        free(t);
        return error_type(c);
    }
    if (n != want) {
        const char *what = want == 2 ? "matrix" : base->kind == FX_TY_STRING ? "string" : "list";
        fx_diag_error(c->diag, e->span, "a %s is indexed by %s", what,
                      want == 2 ? "a row and a column: `A[i, j]`" : "one position: `xs[i]`");
        return error_type(c);
    }
    return base->kind == FX_TY_STRING ? base : base->elem;
}

static FxType *check_field(Checker *c, FxExpr *e)
{
    FxType *base = check_expr(c, e->u.field.base);
    if (fx_type_is_error(base))
        return base;
    if (base->kind != FX_TY_RECORD) {
        char *t = type_name(base);
        fx_diag_error(c->diag, e->u.field.name_span, "`.%s`: only records have fields; this is %s",
                      e->u.field.name, t);
        free(t);
        return error_type(c);
    }
    const FxTypeDecl *td = base->record;
    for (size_t i = 0; i < td->def->n_fields; i++)
        if (strcmp(td->def->field_names[i], e->u.field.name) == 0)
            return td->field_types[i];
    const char *sugg = closest(e->u.field.name, td->def->field_names, td->def->n_fields);
    if (sugg)
        fx_diag_error(c->diag, e->u.field.name_span, "`%s` has no field `%s`; did you mean `%s`?",
                      td->name, e->u.field.name, sugg);
    else
        fx_diag_error(c->diag, e->u.field.name_span, "`%s` has no field `%s`", td->name,
                      e->u.field.name);
    return error_type(c);
}

static FxType *check_list(Checker *c, FxExpr *e)
{
    FxType *elem = new_type(c, FX_TY_ANY);
    for (size_t i = 0; i < e->u.list.n; i++) {
        FxType *t = check_expr(c, e->u.list.items[i]);
        FxType *j = fx_type_join(c->arena, elem, t);
        if (!j) {
            char *a = type_name(elem), *b = type_name(t);
            fx_diag_error(c->diag, e->u.list.items[i]->span,
                          "a list holds one type of element: this is %s, the others %s", b, a);
            free(a);
            free(b);
            return error_type(c);
        }
        elem = j;
    }
    return fx_type_list(c->arena, elem);
}

/* `base with {f: v, ...}`: base's record with those fields replaced. */
static FxType *check_update(Checker *c, FxExpr *e)
{
    FxType *t = check_expr(c, e->u.record.base);
    for (size_t i = 0; i < e->u.record.n; i++)
        check_expr(c, e->u.record.values[i]);
    if (fx_type_is_error(t))
        return t;
    if (t->kind != FX_TY_RECORD) {
        char *n = type_name(t);
        fx_diag_error(c->diag, e->u.record.base->span, "`with` updates the fields of a record, "
                      "but this is %s", n);
        free(n);
        return error_type(c);
    }
    const FxTypeDecl *td = t->record;
    for (size_t i = 0; i < e->u.record.n; i++) {
        size_t f = 0;
        while (f < td->def->n_fields && strcmp(td->def->field_names[f], e->u.record.names[i]))
            f++;
        if (f == td->def->n_fields) {
            fx_diag_error(c->diag, e->u.record.name_spans[i], "`%s` has no field `%s`", td->name,
                          e->u.record.names[i]);
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(e->u.record.names[j], e->u.record.names[i]))
                fx_diag_error(c->diag, e->u.record.name_spans[i], "field `%s` is given twice",
                              e->u.record.names[i]);
        if (!fx_type_assignable(e->u.record.values[i]->type, td->field_types[f])) {
            char *what = fx_xasprintf("field `%s` of `%s`", e->u.record.names[i], td->name);
            mismatch(c, e->u.record.values[i]->span, what, e->u.record.values[i]->type,
                     td->field_types[f]);
            free(what);
        }
    }
    return t;
}

/* A record literal takes the declared record type with exactly its fields. */
static FxType *check_record(Checker *c, FxExpr *e)
{
    if (e->u.record.base)
        return check_update(c, e);
    for (size_t i = 0; i < e->u.record.n; i++)
        check_expr(c, e->u.record.values[i]);
    fx_vec_foreach(FxModule *, m, &c->prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, tdp, &(*m)->types)
        {
            FxTypeDecl *td = *tdp;
            /* a record's own declaration; an alias of one (def names it) is not */
            if (!td->type || td->type->kind != FX_TY_RECORD || td->def->name ||
                td->def->n_fields != e->u.record.n)
                continue;
            bool all = true;
            for (size_t i = 0; i < e->u.record.n && all; i++) {
                bool found = false;
                for (size_t j = 0; j < td->def->n_fields; j++)
                    if (strcmp(td->def->field_names[j], e->u.record.names[i]) == 0)
                        found = fx_type_assignable(e->u.record.values[i]->type,
                                                   td->field_types[j]);
                all = found;
            }
            if (all)
                return td->type;
        }
    }
    fx_diag_error(c->diag, e->span, "no declared record type has exactly these fields");
    return error_type(c);
}

static FxType *check_range(Checker *c, FxExpr *e)
{
    FxType *lo = check_expr(c, e->u.range.lo), *hi = check_expr(c, e->u.range.hi);
    if (!fx_type_is_int(lo))
        mismatch(c, e->u.range.lo->span, "a range's start", lo, new_type(c, FX_TY_INT));
    if (!fx_type_is_int(hi))
        mismatch(c, e->u.range.hi->span, "a range's end", hi, new_type(c, FX_TY_INT));
    FxType *elem = fx_type_is_int(lo) && !fx_type_is_error(lo) && lo->kind == FX_TY_NATURAL
                           ? lo
                           : new_type(c, FX_TY_INT);
    return fx_type_list(c->arena, elem);
}

/* `for each particle:` walks the collection in scope that the word names by
 * the plural rule: `particles`, else `particlees`, else (for a word in -y)
 * `bodies`. */
static void resolve_each(Checker *c, FxBinder *b)
{
    static const char *const suffixes[] = {"s", "es", "ies"};
    size_t len = strlen(b->name);
    for (size_t i = 0; i < FX_ARRAY_LEN(suffixes); i++) {
        bool y = i == 2;
        if (y && (len < 2 || b->name[len - 1] != 'y'))
            break;
        char *plural = fx_xasprintf("%.*s%s", (int)(y ? len - 1 : len), b->name, suffixes[i]);
        bool found = name_in_scope(c, plural);
        if (found)
            b->domain->u.text = fx_arena_strdup(c->arena, plural);
        free(plural);
        if (found)
            return;
    }
    fx_diag_error(c->diag, b->span, "`for each %s`: no collection `%ss` is in scope; name the one "
                  "to walk, as in `for each %s in COLLECTION:`", b->name, b->name, b->name);
    b->domain = NULL;
}

/* Binds each binder over its domain; returns how many locals were pushed. */
static size_t bind_binders(Checker *c, FxBinder *bs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (bs[i].each && bs[i].domain && bs[i].domain->ref == FX_REF_NONE && !bs[i].type)
            resolve_each(c, &bs[i]);
        if (!bs[i].domain) {
            bs[i].type = error_type(c);
            push_local(c, bs[i].name, bs[i].type);
            continue;
        }
        FxType *dom = check_expr(c, bs[i].domain);
        if (!fx_type_is_collection(dom)) {
            char *t = type_name(dom);
            fx_diag_error(c->diag, bs[i].domain->span,
                          "`%s` ranges over a range such as `0..n` or a list, not %s", bs[i].name,
                          t);
            free(t);
            dom = error_type(c);
        }
        bs[i].type = fx_type_is_error(dom) ? dom : dom->elem;
        push_local(c, bs[i].name, bs[i].type);
    }
    return n;
}

static bool mentions(const FxExpr *e, const char *var);

/* The aggregates that, applied to an expression of a group's variable,
 * fold over the group: `count(e)`, `sum(e.salary)`, `mean(e.age)`. */
static bool group_aggregate(const char *name, FxAggKind *out)
{
    static const char *const names[] = {"sum", "product", "min", "max", "count", "mean"};
    static const FxAggKind kinds[] = {FX_AGG_SUM, FX_AGG_PRODUCT, FX_AGG_MIN,
                                      FX_AGG_MAX, FX_AGG_COUNT,   FX_AGG_MEAN};
    for (size_t i = 0; i < FX_ARRAY_LEN(names); i++) {
        if (!strcmp(name, names[i])) {
            *out = kinds[i];
            return true;
        }
    }
    return false;
}

/* Does e bind `var` for its children (an aggregate or quantifier)? */
static bool rebinds(const FxExpr *e, const char *var)
{
    const FxBinder *bs = e->kind == FX_EXPR_AGGREGATE ? e->u.aggregate.binders
                         : e->kind == FX_EXPR_QUANT   ? e->u.quant.binders
                                                      : NULL;
    size_t n = e->kind == FX_EXPR_AGGREGATE ? e->u.aggregate.n_binders
               : e->kind == FX_EXPR_QUANT   ? e->u.quant.n_binders
                                            : 0;
    for (size_t i = 0; bs && i < n; i++)
        if (!strcmp(bs[i].name, var))
            return true;
    return false;
}

/* In a grouped comprehension's body: the key expression becomes the key,
 * and `AGG(x)` with x naming the group's variable an aggregate over the
 * group (`sum(e.salary)` is `sum(e.salary for e in <the group>)`). */
static void group_rewrite(FxExpr **slot, void *ctx)
{
    Checker *c = ctx;
    GroupCtx *g = c->group;
    FxExpr *e = *slot;
    FxAggKind agg;
    if (fx_expr_same(e, g->key)) {
        e->ref = FX_REF_GROUP_KEY;
        e->ref_index = g->depth;
        e->type = g->key_type;
        return;
    }
    if (e->kind == FX_EXPR_CALL && e->u.call.n_args == 1 && group_aggregate(e->u.call.name, &agg) &&
        mentions(e->u.call.args[0], g->var)) {
        FxExpr *arg = e->u.call.args[0];
        FxExpr *items = FX_NEW(c->arena, FxExpr);
        items->kind = FX_EXPR_NAME;
        items->span = arg->span;
        items->u.text = g->var;
        items->ref = FX_REF_GROUP;
        items->ref_index = g->depth;
        items->type = fx_type_list(c->arena, g->elem);
        FxBinder *b = FX_NEW(c->arena, FxBinder);
        b->name = g->var;
        b->span = arg->span;
        b->domain = items;
        FxSpan name_span = e->u.call.name_span;
        memset(&e->u, 0, sizeof(e->u));
        e->kind = FX_EXPR_AGGREGATE;
        e->ref = FX_REF_NONE;
        e->u.aggregate.agg = agg;
        e->u.aggregate.name_span = name_span;
        e->u.aggregate.body = arg;
        e->u.aggregate.binders = b;
        e->u.aggregate.n_binders = 1;
        return;
    }
    if (!rebinds(e, g->var))
        fx_expr_each_slot(e, group_rewrite, c);
}

/* [BODY for v in XS [if C] group by KEY]: one list element per group of
 * XS's elements (those passing C) with equal KEY. */
static FxType *check_grouped(Checker *c, FxExpr *e)
{
    if (e->u.aggregate.n_binders != 1) {
        fx_diag_error(c->diag, e->span, "`group by` groups the elements of one collection: "
                                        "give it one `for`");
        return error_type(c);
    }
    size_t mark = c->locals.len;
    FxBinder *b = &e->u.aggregate.binders[0];
    bind_binders(c, b, 1);
    if (e->u.aggregate.filter)
        expect_bool(c, e->u.aggregate.filter, "the filter after `if` or `where`");
    FxType *key = check_expr(c, e->u.aggregate.group_key);
    c->locals.len = mark;
    GroupCtx g = {b->name, b->type, key, e->u.aggregate.group_key,
                  c->group ? c->group->depth + 1 : 1, c->locals.len, c->group};
    c->group = &g;
    group_rewrite(&e->u.aggregate.body, c);
    FxType *body = check_expr(c, e->u.aggregate.body);
    c->group = g.outer;
    return fx_type_list(c->arena, body);
}

static FxType *check_aggregate(Checker *c, FxExpr *e)
{
    if (e->u.aggregate.group_key)
        return check_grouped(c, e);
    size_t mark = c->locals.len;
    bind_binders(c, e->u.aggregate.binders, e->u.aggregate.n_binders);
    if (e->u.aggregate.filter)
        expect_bool(c, e->u.aggregate.filter, "the filter after `if` or `where`");
    FxType *body = check_expr(c, e->u.aggregate.body);
    c->locals.len = mark;
    switch (e->u.aggregate.agg) {
    case FX_AGG_LIST:
        return fx_type_list(c->arena, body);
    case FX_AGG_MEAN:
        if (!fx_type_is_numeric(body)) {
            fx_diag_error(c->diag, e->u.aggregate.body->span, "`mean` needs numbers");
            return error_type(c);
        }
        return new_type(c, FX_TY_FLOAT);
    case FX_AGG_COUNT:
        return new_type(c, FX_TY_NATURAL);
    case FX_AGG_MIN:
    case FX_AGG_MAX:
        if (!fx_type_is_ordered(body)) {
            fx_diag_error(c->diag, e->u.aggregate.body->span, "`%s` needs numbers or strings",
                          fx_agg_name(e->u.aggregate.agg));
            return error_type(c);
        }
        return body;
    default:
        if (!fx_type_is_numeric(body)) {
            fx_diag_error(c->diag, e->u.aggregate.body->span, "`%s` needs numbers",
                          fx_agg_name(e->u.aggregate.agg));
            return error_type(c);
        }
        return body;
    }
}

static FxType *check_quant(Checker *c, FxExpr *e)
{
    size_t mark = c->locals.len;
    bind_binders(c, e->u.quant.binders, e->u.quant.n_binders);
    FxType *body = e->u.quant.body ? check_expr(c, e->u.quant.body) : error_type(c);
    if (!fx_type_is_error(body) && body->kind != FX_TY_BOOL)
        mismatch(c, e->u.quant.body->span, "a quantifier's condition", body,
                 new_type(c, FX_TY_BOOL));
    c->locals.len = mark;
    return new_type(c, FX_TY_BOOL);
}

static FxType *check_if(Checker *c, FxExpr *e)
{
    FxType *cond = check_expr(c, e->u.if_.cond);
    if (!fx_type_is_error(cond) && cond->kind != FX_TY_BOOL)
        mismatch(c, e->u.if_.cond->span, "the condition of `if`", cond, new_type(c, FX_TY_BOOL));
    FxType *a = check_expr(c, e->u.if_.then_e), *b = check_expr(c, e->u.if_.else_e);
    FxType *j = fx_type_join(c->arena, a, b);
    if (!j) {
        char *ta = type_name(a), *tb = type_name(b);
        fx_diag_error(c->diag, e->span, "the branches of `if` differ: %s and %s", ta, tb);
        free(ta);
        free(tb);
        return error_type(c);
    }
    return j;
}

static FxType *check_unary(Checker *c, FxExpr *e)
{
    FxType *t = check_expr(c, e->u.unary.operand);
    if (e->u.unary.op == FX_OP_NOT) {
        if (!fx_type_is_error(t) && t->kind != FX_TY_BOOL)
            mismatch(c, e->u.unary.operand->span, "the operand of `not`", t,
                     new_type(c, FX_TY_BOOL));
        return new_type(c, FX_TY_BOOL);
    }
    if (!fx_type_is_numeric(t)) {
        char *n = type_name(t);
        fx_diag_error(c->diag, e->span, "`-` needs a number, not %s", n);
        free(n);
        return error_type(c);
    }
    if (fx_type_is_error(t) || t->kind == FX_TY_FLOAT)
        return t;
    return new_type(c, FX_TY_INT);
}

static FxType *check_expr(Checker *c, FxExpr *e)
{
    if (e->ref == FX_REF_GROUP_KEY || e->ref == FX_REF_GROUP)
        return e->type; /* made by group_rewrite, typed there */
    FxType *t;
    switch (e->kind) {
    case FX_EXPR_INT: t = new_type(c, FX_TY_NATURAL); break;
    case FX_EXPR_FLOAT: t = new_type(c, FX_TY_FLOAT); break;
    case FX_EXPR_STRING: t = new_type(c, FX_TY_STRING); break;
    case FX_EXPR_BOOL: t = new_type(c, FX_TY_BOOL); break;
    case FX_EXPR_NAME: t = check_name(c, e); break;
    case FX_EXPR_RESULT:
        if (c->result_ban) {
            fx_diag_error(c->diag, e->span, "`result` cannot appear here: %s", c->result_ban);
            t = error_type(c);
        } else {
            t = c->intent && c->intent->ret ? c->intent->ret : error_type(c);
        }
        break;
    case FX_EXPR_UNARY: t = check_unary(c, e); break;
    case FX_EXPR_BINARY: t = check_binary(c, e); break;
    case FX_EXPR_COMPARE: t = check_compare(c, e); break;
    case FX_EXPR_IF: t = check_if(c, e); break;
    case FX_EXPR_CALL: t = check_call(c, e); break;
    case FX_EXPR_INDEX: t = check_index(c, e); break;
    case FX_EXPR_FIELD: t = check_field(c, e); break;
    case FX_EXPR_LIST: t = check_list(c, e); break;
    case FX_EXPR_RECORD: t = check_record(c, e); break;
    case FX_EXPR_RANGE: t = check_range(c, e); break;
    case FX_EXPR_AGGREGATE: t = check_aggregate(c, e); break;
    case FX_EXPR_QUANT: t = check_quant(c, e); break;
    default: t = error_type(c); break;
    }
    e->type = t ? t : error_type(c);
    return e->type;
}

static void expect_bool(Checker *c, FxExpr *e, const char *what)
{
    FxType *t = check_expr(c, e);
    if (!fx_type_is_error(t) && t->kind != FX_TY_BOOL)
        mismatch(c, e->span, what, t, new_type(c, FX_TY_BOOL));
}

/* ---- free variables ---- */

typedef FX_VEC(const char *) NameList;

static bool in_list(const NameList *l, const char *name)
{
    fx_vec_foreach(const char *, n, l) if (strcmp(*n, name) == 0) return true;
    return false;
}

/* Names in e that resolve to nothing in scope and are not bound inside e. */
static void free_names(Checker *c, const FxExpr *e, NameList *bound, NameList *out)
{
    if (!e)
        return;
    size_t mark = bound->len;
    switch (e->kind) {
    case FX_EXPR_NAME:
        if (!in_list(bound, e->u.text) && !name_in_scope(c, e->u.text) &&
            !fx_check_constant(e->u.text) && !in_list(out, e->u.text))
            fx_vec_push(out, e->u.text);
        break;
    case FX_EXPR_UNARY: free_names(c, e->u.unary.operand, bound, out); break;
    case FX_EXPR_BINARY:
        free_names(c, e->u.binary.lhs, bound, out);
        free_names(c, e->u.binary.rhs, bound, out);
        break;
    case FX_EXPR_COMPARE:
        for (size_t i = 0; i < e->u.compare.n; i++)
            free_names(c, e->u.compare.operands[i], bound, out);
        break;
    case FX_EXPR_IF:
        free_names(c, e->u.if_.cond, bound, out);
        free_names(c, e->u.if_.then_e, bound, out);
        free_names(c, e->u.if_.else_e, bound, out);
        break;
    case FX_EXPR_CALL:
        for (size_t i = 0; i < e->u.call.n_args; i++)
            free_names(c, e->u.call.args[i], bound, out);
        break;
    case FX_EXPR_INDEX:
        free_names(c, e->u.index.base, bound, out);
        for (size_t i = 0; i < e->u.index.n; i++)
            free_names(c, e->u.index.indices[i], bound, out);
        break;
    case FX_EXPR_FIELD: {
        // `e.dept`: a constant has no fields, so a name of one whose field
        // is read stands for a variable that hides the constant
        const FxExpr *b = e->u.field.base;
        if (b->kind == FX_EXPR_NAME && fx_check_constant(b->u.text) && !in_list(bound, b->u.text) &&
            !name_in_scope(c, b->u.text) && !in_list(out, b->u.text))
            fx_vec_push(out, b->u.text);
        else
            free_names(c, b, bound, out);
        break;
    }
    case FX_EXPR_LIST:
        for (size_t i = 0; i < e->u.list.n; i++)
            free_names(c, e->u.list.items[i], bound, out);
        break;
    case FX_EXPR_RECORD:
        for (size_t i = 0; i < e->u.record.n; i++)
            free_names(c, e->u.record.values[i], bound, out);
        break;
    case FX_EXPR_RANGE:
        free_names(c, e->u.range.lo, bound, out);
        free_names(c, e->u.range.hi, bound, out);
        break;
    case FX_EXPR_AGGREGATE:
        for (size_t i = 0; i < e->u.aggregate.n_binders; i++) {
            free_names(c, e->u.aggregate.binders[i].domain, bound, out);
            fx_vec_push(bound, e->u.aggregate.binders[i].name);
        }
        free_names(c, e->u.aggregate.filter, bound, out);
        free_names(c, e->u.aggregate.group_key, bound, out);
        free_names(c, e->u.aggregate.body, bound, out);
        break;
    case FX_EXPR_QUANT:
        for (size_t i = 0; i < e->u.quant.n_binders; i++) {
            free_names(c, e->u.quant.binders[i].domain, bound, out);
            fx_vec_push(bound, e->u.quant.binders[i].name);
        }
        free_names(c, e->u.quant.body, bound, out);
        break;
    default:
        break;
    }
    bound->len = mark;
}

/* ---- bounds of a comprehension variable ---- */

typedef struct Mention {
    const char *var;
    bool found;
} Mention;

static void mention_child(FxExpr *child, void *ctx);

/* Does e name var anywhere (a binder that shadows it aside: conservative)? */
static bool mentions(const FxExpr *e, const char *var)
{
    if (!e)
        return false;
    if (e->kind == FX_EXPR_NAME)
        return strcmp(e->u.text, var) == 0;
    Mention m = {var, false};
    fx_expr_each_child((FxExpr *)e, mention_child, &m);
    return m.found;
}

static void mention_child(FxExpr *child, void *ctx)
{
    Mention *m = ctx;
    m->found = m->found || mentions(child, m->var);
}

static bool is_var(const FxExpr *e, const char *var)
{
    return e->kind == FX_EXPR_NAME && strcmp(e->u.text, var) == 0;
}

typedef FX_VEC(FxBound) BoundList;

/* Records `a op b` when it bounds var: one side is var itself and the other
 * does not name it. `var in COLL` with COLL a list (not a range) is the
 * collection var walks: the first such becomes *domain. */
static void bound_pair(Checker *c, const FxExpr *a, FxOp op, FxExpr *b, const char *var,
                       BoundList *out, FxExpr **domain)
{
    if (!is_var(a, var) && is_var(b, var) && op != FX_OP_IN) { /* e OP v  ==  v OP' e */
        const FxExpr *t = a;
        a = b;
        b = (FxExpr *)t;
        op = op == FX_OP_LT ? FX_OP_GT : op == FX_OP_LE ? FX_OP_GE : op == FX_OP_GT ? FX_OP_LT
                                       : op == FX_OP_GE ? FX_OP_LE : op;
    }
    if (!is_var(a, var) || mentions(b, var) || op == FX_OP_NE)
        return;
    if (op == FX_OP_IN && b->kind != FX_EXPR_RANGE) {
        if (*domain)
            return;
        FxType *t = check_expr(c, b); /* b does not name var: its scope is the intent's */
        if (!fx_type_is_error(t) && fx_type_is_collection(t))
            *domain = b;
        return;
    }
    FxBound bd = {op, b};
    fx_vec_push(out, bd);
}

/* Walks the conjuncts of cond: only a bound that holds on every path counts. */
static void find_bounds(Checker *c, FxExpr *cond, const char *var, BoundList *out,
                        FxExpr **domain)
{
    if (cond->kind == FX_EXPR_BINARY && cond->u.binary.op == FX_OP_AND) {
        find_bounds(c, cond->u.binary.lhs, var, out, domain);
        find_bounds(c, cond->u.binary.rhs, var, out, domain);
    } else if (cond->kind == FX_EXPR_COMPARE) {
        for (size_t i = 0; i + 1 < cond->u.compare.n; i++)
            bound_pair(c, cond->u.compare.operands[i], cond->u.compare.ops[i],
                       cond->u.compare.operands[i + 1], var, out, domain);
    }
}

/* ---- constraints ---- */

static const char *const result_banned_in_definition =
        "it is what this constraint defines; `result` belongs in postconditions";

/* `f(PATTERN, ...) = EXPR` whose head is another function is an ordinary
 * equality: rewrite it as a postcondition. */
static void make_postcondition(Checker *c, FxConstraint *k)
{
    if (k->u.eq.guard) {
        fx_diag_error(c->diag, k->u.eq.guard->span,
                      "`when` guards only the equations that define `%s`; `%s` is another "
                      "function", c->intent->name, k->u.eq.head);
    } else if (k->u.eq.as_post) { /* the line read as the expression it is */
        FxExpr *e = k->u.eq.as_post;
        k->kind = FX_CON_POST;
        k->u.post.expr = e;
        return;
    }
    FxExpr *call = FX_NEW(c->arena, FxExpr);
    call->kind = FX_EXPR_CALL;
    call->span = fx_span_join(k->u.eq.head_span, k->u.eq.n_patterns
                                                         ? k->u.eq.patterns[k->u.eq.n_patterns - 1]->span
                                                         : k->u.eq.head_span);
    call->u.call.name = k->u.eq.head;
    call->u.call.name_span = k->u.eq.head_span;
    call->u.call.n_args = k->u.eq.n_patterns;
    call->u.call.args = k->u.eq.patterns;
    FxExpr *cmp = FX_NEW(c->arena, FxExpr);
    cmp->kind = FX_EXPR_COMPARE;
    cmp->span = k->span;
    cmp->u.compare.n = 2;
    cmp->u.compare.operands = fx_arena_alloc(c->arena, 2 * sizeof(FxExpr *));
    cmp->u.compare.operands[0] = call;
    cmp->u.compare.operands[1] = k->u.eq.rhs;
    cmp->u.compare.ops = fx_arena_alloc(c->arena, sizeof(FxOp));
    cmp->u.compare.ops[0] = FX_OP_EQ;
    cmp->u.compare.op_spans = fx_arena_alloc(c->arena, sizeof(FxSpan));
    cmp->u.compare.op_spans[0] = k->u.eq.head_span;
    k->kind = FX_CON_POST;
    k->u.post.expr = cmp;
}

/* The alias rule: the head of a defining equation names the intent, or is
 * an alias for it when it names no other function. One alias per intent. */
static int find_param(const FxIntent *in, const char *name);

static void classify_equations(Checker *c, FxIntent *in)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        FxConstraint *k = *kp;
        if (k->kind != FX_CON_EQUATION || !k->u.eq.head)
            continue;
        const char *head = k->u.eq.head;
        if (strcmp(head, in->name) == 0 || (in->alias && strcmp(head, in->alias) == 0))
            continue;
        if (find_intent(c, head) || fx_check_is_builtin(head)) {
            make_postcondition(c, k);
        } else if (find_param(in, head) >= 0) {
            fx_diag_error(c->diag, k->u.eq.head_span, "`%s` is a parameter of `%s`, so it "
                          "cannot also name the function the equations define", head, in->name);
        } else if (!in->alias) {
            in->alias = head;
        } else {
            fx_diag_error(c->diag, k->u.eq.head_span,
                          "`%s` is not `%s`: this intent's equations already define it under "
                          "the name `%s`", head, in->name, in->alias);
        }
    }
}

static bool is_literal_pattern(const FxExpr *p)
{
    if (p->kind == FX_EXPR_UNARY && p->u.unary.op == FX_OP_NEG)
        p = p->u.unary.operand;
    return p->kind == FX_EXPR_INT || p->kind == FX_EXPR_FLOAT || p->kind == FX_EXPR_STRING ||
           p->kind == FX_EXPR_BOOL;
}

/* Checks the patterns of a defining equation and binds its variables.
 * Returns false when the equation is malformed beyond checking its body. */
static bool bind_patterns(Checker *c, FxIntent *in, FxConstraint *k)
{
    const char *head = k->u.eq.head;
    if (k->u.eq.n_patterns != in->n_params) {
        size_t n = in->n_params, m = k->u.eq.n_patterns;
        if (strcmp(head, in->name) != 0)
            fx_diag_error(c->diag, k->u.eq.head_span, "`%s` stands for `%s`, which takes %zu "
                          "parameter%s, but this equation has %zu pattern%s", head, in->name, n,
                          n == 1 ? "" : "s", m, m == 1 ? "" : "s");
        else
            fx_diag_error(c->diag, k->u.eq.head_span, "`%s` takes %zu parameter%s, but this "
                          "equation has %zu pattern%s", head, n, n == 1 ? "" : "s", m,
                          m == 1 ? "" : "s");
        return false;
    }
    bool literal = false, ok = true;
    for (size_t i = 0; i < k->u.eq.n_patterns; i++) {
        FxExpr *p = k->u.eq.patterns[i];
        FxParam *prm = &in->params[i];
        if (p->kind == FX_EXPR_NAME) {
            for (size_t j = 0; j < i; j++) {
                FxExpr *q = k->u.eq.patterns[j];
                if (q->kind == FX_EXPR_NAME && strcmp(q->u.text, p->u.text) == 0)
                    fx_diag_error(c->diag, p->span, "`%s` appears twice in this equation's "
                                                    "patterns", p->u.text);
            }
            p->type = prm->type;
            p->ref = FX_REF_LOCAL;
            push_local(c, p->u.text, prm->type);
        } else if (is_literal_pattern(p)) {
            literal = true;
            FxType *t = check_expr(c, p);
            bool negative = p->kind == FX_EXPR_UNARY;
            if (!fx_type_assignable(t, prm->type) ||
                (negative && prm->type->kind == FX_TY_NATURAL)) {
                char *tn = type_name(prm->type);
                fx_diag_error(c->diag, p->span, "this pattern can never match: parameter `%s` "
                                                "is %s", prm->name, tn);
                free(tn);
            }
        } else if (p->kind == FX_EXPR_RESULT) {
            fx_diag_error(c->diag, p->span, "`result` cannot be a pattern; it is the value "
                                            "being defined");
            ok = false;
        } else {
            fx_diag_error(c->diag, p->span, "a pattern is a literal or a variable; to test an "
                                            "argument, use a variable and a `when` guard");
            ok = false;
        }
    }
    k->u.eq.tier = literal ? FX_TIER_LITERAL : k->u.eq.guard ? FX_TIER_GUARDED : FX_TIER_OTHERWISE;
    return ok;
}

static void check_equation(Checker *c, FxIntent *in, FxConstraint *k)
{
    size_t mark = c->locals.len;
    bool ok = true;
    if (k->u.eq.head)
        ok = bind_patterns(c, in, k);
    else
        k->u.eq.tier = k->u.eq.guard ? FX_TIER_GUARDED : FX_TIER_OTHERWISE;
    c->result_ban = result_banned_in_definition;
    if (ok) {
        if (k->u.eq.guard)
            expect_bool(c, k->u.eq.guard, "a `when` guard");
        FxType *t = check_expr(c, k->u.eq.rhs);
        if (!fx_type_assignable(t, in->ret)) {
            char *what = fx_xasprintf("the value of `%s`", in->name);
            mismatch(c, k->u.eq.rhs->span, what, t, in->ret);
            free(what);
        }
    }
    c->result_ban = NULL;
    c->locals.len = mark;
}

const FxExpr *fx_check_declared_length(const FxIntent *in)
{
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxExpr *e = (*kp)->kind == FX_CON_POST ? (*kp)->u.post.expr : NULL;
        if (!e || e->kind != FX_EXPR_COMPARE || e->u.compare.n != 2 ||
            e->u.compare.ops[0] != FX_OP_EQ)
            continue;
        const FxExpr *l = e->u.compare.operands[0];
        if (l->kind == FX_EXPR_CALL && strcmp(l->u.call.name, "len") == 0 &&
            l->u.call.n_args == 1 && l->u.call.args[0]->kind == FX_EXPR_RESULT)
            return e->u.compare.operands[1];
    }
    return NULL;
}

static void check_elementwise(Checker *c, FxIntent *in, FxConstraint *k)
{
    FxType *ret = in->ret;
    if (fx_type_is_error(ret))
        return;
    size_t want = ret->kind == FX_TY_MATRIX ? 2 : ret->kind == FX_TY_LIST ? 1 : 0;
    if (want == 0) {
        char *t = type_name(ret);
        fx_diag_error(c->diag, k->span, "`result[...] = ...` defines the elements of a list or "
                                        "matrix, but `%s` returns %s", in->name, t);
        free(t);
        return;
    }
    if (want == 1 && !fx_check_declared_length(in)) {
        fx_diag_error(c->diag, k->span, "an element-wise list needs its length: add a "
                      "constraint `len(result) = ...`");
        return;
    }
    if (k->u.elem.n_indices != want) {
        fx_diag_error(c->diag, k->span, "the result is a %s: define `%s`",
                      want == 2 ? "matrix" : "list",
                      want == 2 ? "result[i, j] = ..." : "result[i] = ...");
        return;
    }
    size_t mark = c->locals.len;
    for (size_t i = 0; i < want; i++) {
        const char *name = k->u.elem.indices[i];
        bool twice = false;
        for (size_t j = 0; j < i; j++)
            twice |= strcmp(k->u.elem.indices[j], name) == 0;
        if (twice)
            fx_diag_error(c->diag, k->u.elem.index_spans[i],
                          "index `%s` is used twice; each dimension needs its own", name);
        else if (name_in_scope(c, name))
            fx_diag_error(c->diag, k->u.elem.index_spans[i],
                          "index `%s` hides a parameter or size of the same name", name);
        push_local(c, name, new_type(c, FX_TY_NATURAL));
    }
    c->result_ban = result_banned_in_definition;
    FxType *t = check_expr(c, k->u.elem.rhs);
    if (!fx_type_assignable(t, ret->elem))
        mismatch(c, k->u.elem.rhs->span, "each element", t, ret->elem);
    c->result_ban = NULL;
    c->locals.len = mark;
}

/* The plural rule: `primes` names the predicate `prime`, `boxes` `box`,
 * `parities` `parity`. */
static const FxIntent *find_kind(Checker *c, const char *word)
{
    const FxIntent *in = find_intent(c, word);
    size_t n = strlen(word);
    if (!in && n > 1 && word[n - 1] == 's') {
        char *singular = fx_xstrndup(word, n - 1);
        in = find_intent(c, singular);
        if (!in && n > 2 && word[n - 2] == 'e') {
            singular[n - 2] = '\0';
            in = find_intent(c, singular);
        }
        if (!in && n > 3 && word[n - 2] == 'e' && word[n - 3] == 'i') {
            singular[n - 3] = 'y';
            singular[n - 2] = '\0';
            in = find_intent(c, singular);
        }
        free(singular);
    }
    return in;
}

static void check_comprehension_var(Checker *c, FxIntent *in, FxConstraint *k)
{
    const FxIntent *kind = NULL;
    if (k->u.comp.second) {
        kind = find_kind(c, k->u.comp.first);
        if (!kind) {
            const char *w = k->u.comp.first;
            size_t len = strlen(w);
            if (len > 1 && w[len - 1] == 's')
                fx_diag_error(c->diag, k->u.comp.first_span, "unknown kind `%s`: no predicate "
                              "`%.*s` or `%s` is in scope", w, (int)(len - 1), w, w);
            else
                fx_diag_error(c->diag, k->u.comp.first_span,
                              "unknown kind `%s`: no predicate `%s` is in scope", w, w);
            return;
        }
        if (kind->n_params != 1 || !kind->ret || kind->ret->kind != FX_TY_BOOL) {
            fx_diag_error(c->diag, k->u.comp.first_span, "kind `%s` must name a predicate of one "
                          "parameter returning Bool, as `prime(p: Natural) -> Bool`",
                          k->u.comp.first);
            return;
        }
        k->u.comp.kind_pred = kind;
        k->u.comp.var = k->u.comp.second;
        k->u.comp.var_span = k->u.comp.second_span;
    } else {
        k->u.comp.var = k->u.comp.first;
        k->u.comp.var_span = k->u.comp.first_span;
    }
    BoundList bounds = {0};
    FxExpr *domain = NULL;
    find_bounds(c, k->u.comp.cond, k->u.comp.var, &bounds, &domain);
    FxType *vt = kind ? kind->params[0].type : domain ? domain->type->elem : NULL;
    if (!vt) {
        vt = !fx_type_is_error(in->ret) && fx_type_is_collection(in->ret) && in->ret->elem &&
                             fx_type_is_int(in->ret->elem)
                     ? in->ret->elem
                     : new_type(c, FX_TY_INT);
    }
    k->u.comp.var_type = vt;
    k->u.comp.domain = domain;
    k->u.comp.n_bounds = bounds.len;
    k->u.comp.bounds = fx_arena_alloc(c->arena, (bounds.len + 1) * sizeof(FxBound));
    if (bounds.len)
        memcpy(k->u.comp.bounds, bounds.data, bounds.len * sizeof(FxBound));
    bool lo = domain || vt->kind == FX_TY_NATURAL, hi = domain != NULL;
    fx_vec_foreach(FxBound, b, &bounds)
    {
        lo |= b->op == FX_OP_GT || b->op == FX_OP_GE || b->op == FX_OP_EQ || b->op == FX_OP_IN;
        hi |= b->op == FX_OP_LT || b->op == FX_OP_LE || b->op == FX_OP_EQ || b->op == FX_OP_IN;
    }
    fx_vec_free(&bounds);
    const char *v = k->u.comp.var;
    if (!domain && !fx_type_is_error(vt) && !fx_type_is_int(vt)) {
        char *t = type_name(vt);
        fx_diag_error(c->diag, k->u.comp.var_span,
                      "comprehension variable `%s` is %s, so it cannot walk a range: bound it "
                      "by a collection, as in `%s in xs`", v, t, v);
        free(t);
    } else if (!lo || !hi) {
        fx_diag_error(c->diag, k->u.comp.var_span,
                      "comprehension variable `%s` has no %s bound: add a condition such as "
                      "`%s %s` or `%s in 0..n`",
                      v, !hi ? "upper" : "lower", v, !hi ? "<= n" : ">= 0", v);
    }
}

static const char *constant_named(Checker *c, const FxExpr *e);

/* The first named constant that one of the n expressions at es reads. */
static const char *constant_among(Checker *c, FxExpr *const *es, size_t n)
{
    const char *name = NULL;
    for (size_t i = 0; i < n && !name; i++)
        name = constant_named(c, es[i]);
    return name;
}

/* The first named constant (`e`, `pi`) a condition reads, or NULL: the
 * likely element when a condition names no unknown variable. */
static const char *constant_named(Checker *c, const FxExpr *e)
{
    if (!e)
        return NULL;
    switch (e->kind) {
    case FX_EXPR_NAME:
        return fx_check_constant(e->u.text) && !name_in_scope(c, e->u.text) ? e->u.text : NULL;
    case FX_EXPR_UNARY: return constant_named(c, e->u.unary.operand);
    case FX_EXPR_BINARY: {
        const char *l = constant_named(c, e->u.binary.lhs);
        return l ? l : constant_named(c, e->u.binary.rhs);
    }
    case FX_EXPR_COMPARE: return constant_among(c, e->u.compare.operands, e->u.compare.n);
    case FX_EXPR_CALL: return constant_among(c, e->u.call.args, e->u.call.n_args);
    default: return NULL;
    }
}

static void check_comprehension(Checker *c, FxIntent *in, FxConstraint *k)
{
    size_t mark = c->locals.len;
    bool collection = !k->u.comp.second && name_in_scope(c, k->u.comp.first);
    if (collection) {
        FxExpr *coll = FX_NEW(c->arena, FxExpr);
        coll->kind = FX_EXPR_NAME;
        coll->span = k->u.comp.first_span;
        coll->u.text = k->u.comp.first;
        FxType *ct = check_expr(c, coll);
        k->u.comp.collection = coll;
        if (!fx_type_is_collection(ct)) {
            char *t = type_name(ct);
            fx_diag_error(c->diag, coll->span, "`%s` is already a name for %s, not a collection "
                          "to select from; give the comprehension variable a new name",
                          k->u.comp.first, t);
            free(t);
            return;
        }
        NameList bound = {0}, free_vars = {0};
        free_names(c, k->u.comp.cond, &bound, &free_vars);
        const char *constant = free_vars.len ? NULL : constant_named(c, k->u.comp.cond);
        if (constant) {
            fx_diag_error(c->diag, k->u.comp.cond->span,
                          "the condition must name the element of `%s`, and `%s` here is the "
                          "constant %s; give the element another name, as in `all %s where x > 1`",
                          k->u.comp.first, constant, fx_check_constant(constant), k->u.comp.first);
            fx_vec_free(&bound);
            fx_vec_free(&free_vars);
            return;
        }
        if (free_vars.len != 1) {
            fx_diag_error(c->diag, k->u.comp.cond->span,
                          free_vars.len == 0
                                  ? "the condition must name the element of `%s`, as in "
                                    "`all users where user.age >= 18`"
                                  : "the condition names several unknown variables; exactly one "
                                    "stands for the element of `%s`",
                          k->u.comp.first);
            fx_vec_free(&bound);
            fx_vec_free(&free_vars);
            return;
        }
        k->u.comp.var = free_vars.data[0];
        k->u.comp.var_span = coll->span;
        k->u.comp.var_type = fx_type_is_error(ct) ? ct : ct->elem;
        fx_vec_free(&bound);
        fx_vec_free(&free_vars);
    } else {
        check_comprehension_var(c, in, k);
        if (!k->u.comp.var)
            return;
    }
    push_local(c, k->u.comp.var, k->u.comp.var_type);
    c->result_ban = result_banned_in_definition;
    expect_bool(c, k->u.comp.cond, "the condition after `where`");
    c->result_ban = NULL;
    c->locals.len = mark;
    if (!fx_type_is_error(in->ret) &&
        (!fx_type_is_collection(in->ret) ||
         !fx_type_assignable(k->u.comp.var_type, in->ret->elem))) {
        FxType *lt = fx_type_list(c->arena, k->u.comp.var_type);
        char *what = fx_xasprintf("the result of `%s`", in->name);
        mismatch(c, k->span, what, lt, in->ret);
        free(what);
    }
}

static bool is_field_of(const FxType *elem, const char *name)
{
    if (!elem || elem->kind != FX_TY_RECORD)
        return false;
    for (size_t i = 0; i < elem->record->def->n_fields; i++)
        if (strcmp(elem->record->def->field_names[i], name) == 0)
            return true;
    return false;
}

/* The key's text with each `name` standing alone read as `p.name`: what a
 * key that named a field meant (`-age` as `-p.age`). Caller frees. */
static char *with_element(const FxExpr *key, const char *name)
{
    const char *s = key->span.src->text + key->span.offset;
    size_t len = key->span.len, n = strlen(name);
    FxBuf b = {0};
    for (size_t i = 0; i < len;) {
        bool word = i + n <= len && !strncmp(s + i, name, n) &&
                    (i == 0 || (!isalnum((unsigned char)s[i - 1]) && s[i - 1] != '_' &&
                                s[i - 1] != '.')) &&
                    (i + n == len || (!isalnum((unsigned char)s[i + n]) && s[i + n] != '_'));
        if (word) {
            fx_buf_printf(&b, "p.%s", name);
            i += n;
        } else {
            fx_buf_putc(&b, s[i++]);
        }
    }
    return fx_buf_take(&b);
}

/* `by KEY`: a field of the element record, a one-parameter function, or an
 * expression whose one unknown variable stands for the element. */
static void check_order_key(Checker *c, FxIntent *in, FxConstraint *k)
{
    FxExpr *key = k->u.order.key;
    FxType *elem = fx_type_is_error(in->ret) ? NULL : in->ret->elem;
    FxType *kt = NULL;
    if (key->kind == FX_EXPR_NAME && is_field_of(elem, key->u.text)) {
        k->u.order.key_form = FX_KEY_FIELD;
        for (size_t i = 0; i < elem->record->def->n_fields; i++)
            if (strcmp(elem->record->def->field_names[i], key->u.text) == 0)
                kt = elem->record->field_types[i];
    } else if (key->kind == FX_EXPR_NAME && find_intent(c, key->u.text)) {
        const FxIntent *f = find_intent(c, key->u.text);
        if (f->n_params != 1 || (elem && !fx_type_assignable(elem, f->params[0].type))) {
            fx_diag_error(c->diag, key->span, "`by %s`: `%s` must take one element of the "
                          "result", key->u.text, key->u.text);
            return;
        }
        kt = f->ret;
        k->u.order.key_form = FX_KEY_FUNCTION;
        k->u.order.key_fn = f;
    } else if (key->kind == FX_EXPR_NAME && fx_check_is_builtin(key->u.text) &&
               !name_in_scope(c, key->u.text)) {
        /* `by len`: the built-in function of the element, as `by len(x)` */
        FxExpr *arg = fx_arena_alloc(c->arena, sizeof(FxExpr));
        FxExpr *call = fx_arena_alloc(c->arena, sizeof(FxExpr));
        memset(arg, 0, sizeof(*arg));
        memset(call, 0, sizeof(*call));
        arg->kind = FX_EXPR_NAME;
        arg->span = key->span;
        arg->u.text = "element";
        call->kind = FX_EXPR_CALL;
        call->span = key->span;
        call->u.call.name = key->u.text;
        call->u.call.name_span = key->span;
        call->u.call.n_args = 1;
        call->u.call.args = fx_arena_alloc(c->arena, sizeof(FxExpr *));
        call->u.call.args[0] = arg;
        k->u.order.key = key = call;
        size_t mark = c->locals.len;
        push_local(c, "element", elem ? elem : error_type(c));
        k->u.order.key_form = FX_KEY_EXPR;
        k->u.order.key_var = "element";
        kt = check_expr(c, key);
        c->locals.len = mark;
    } else if (key->kind == FX_EXPR_NAME && !name_in_scope(c, key->u.text)) {
        /* a lone name that is no field and no function would stand for the
         * element itself: a typo that sorts by the elements, silently */
        fx_diag_error(c->diag, key->span, "`by %s`: `%s` is neither a field of the elements "
                      "nor a function of one parameter; a key is a field (`by age`), a "
                      "function (`by norm`, `by len`), or an expression of one variable that "
                      "stands for an element (`by p.age * 2`)", key->u.text, key->u.text);
        return;
    } else {
        NameList bound = {0}, vars = {0};
        free_names(c, key, &bound, &vars);
        if (vars.len == 1 && is_field_of(elem, vars.data[0])) {
            /* `by -age`: age would stand for the whole record */
            char *t = type_name(elem), *fixed = with_element(key, vars.data[0]);
            fx_diag_error(c->diag, key->span, "in this key `%s` stands for the whole element "
                          "(a %s), not its field: name the element and read the field, as in "
                          "`by %s`; a key is a field (`by %s`), a function of one parameter, or "
                          "an expression of one variable that stands for an element", vars.data[0],
                          t, fixed, vars.data[0]);
            free(fixed);
            free(t);
        } else if (vars.len != 1) {
            fx_diag_error(c->diag, key->span, "`by` needs a field, a function, or an expression "
                          "of one variable that stands for an element, as in `by abs(x)`");
        } else {
            size_t mark = c->locals.len;
            push_local(c, vars.data[0], elem ? elem : error_type(c));
            k->u.order.key_form = FX_KEY_EXPR;
            k->u.order.key_var = vars.data[0];
            kt = check_expr(c, key);
            c->locals.len = mark;
        }
        fx_vec_free(&bound);
        fx_vec_free(&vars);
    }
    if (kt && !fx_type_is_ordered(kt)) {
        char *t = type_name(kt);
        fx_diag_error(c->diag, key->span, "a sort key must be a number or a string, not %s", t);
        free(t);
    }
}

static void check_order(Checker *c, FxIntent *in, FxConstraint *k)
{
    if (fx_type_is_error(in->ret))
        return;
    if (!fx_type_is_collection(in->ret)) {
        char *t = type_name(in->ret);
        fx_diag_error(c->diag, k->span, "only a list can be sorted; `%s` returns %s", in->name, t);
        free(t);
        return;
    }
    c->result_ban = "`by` names a field or a function of an element";
    if (k->u.order.key)
        check_order_key(c, in, k);
    else if (!fx_type_is_ordered(in->ret->elem)) {
        char *t = type_name(in->ret->elem);
        fx_diag_error(c->diag, k->span, "elements of type %s have no order; add `by` and a key",
                      t);
        free(t);
    }
    c->result_ban = NULL;
}

static void check_permutation(Checker *c, FxIntent *in, FxConstraint *k)
{
    c->result_ban = result_banned_in_definition;
    FxType *t = check_expr(c, k->u.perm.of);
    c->result_ban = NULL;
    if (!fx_type_is_collection(t)) {
        char *n = type_name(t);
        fx_diag_error(c->diag, k->u.perm.of->span, "a permutation is of a list, not %s", n);
        free(n);
    } else if (!fx_type_assignable(t, in->ret)) {
        char *what = fx_xasprintf("the result of `%s`", in->name);
        mismatch(c, k->u.perm.of->span, what, t, in->ret);
        free(what);
    }
}

static const char *form_name(FxConstraintKind kind)
{
    switch (kind) {
    case FX_CON_EQUATION: return "a defining equation";
    case FX_CON_ELEMENTWISE: return "an element-wise definition";
    case FX_CON_COMPREHENSION: return "a comprehension";
    case FX_CON_PERMUTATION: return "a permutation";
    case FX_CON_CHOICE: return "a choice of implementations";
    default: return "a constraint";
    }
}

/* Exactly one way of constructing the result: equations (any number), one
 * element-wise definition, one comprehension, or one permutation. */
static void check_construction(Checker *c, FxIntent *in)
{
    const FxConstraint *first = NULL;
    size_t elementwise = 0;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        if (k->kind == FX_CON_ORDER || k->kind == FX_CON_POST || k->kind == FX_CON_ACCURACY ||
            k->kind == FX_CON_LATENCY)
            continue;
        elementwise += k->kind == FX_CON_ELEMENTWISE;
        if (!first) {
            first = k;
            continue;
        }
        if (k->kind == FX_CON_EQUATION && first->kind == FX_CON_EQUATION)
            continue;
        FxDiagItem *it = fx_diag_error(c->diag, k->span,
                                       "`result` is already constructed by %s; an intent "
                                       "constructs its result one way",
                                       form_name(first->kind));
        fx_diag_note(c->diag, it, first->span, "the first construction is here");
    }
    bool measured = false;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) measured |=
            (*kp)->kind == FX_CON_ACCURACY;
    if (!first && in->has_section[FX_SECTION_CONSTRAINTS] && measured) {
        fx_diag_error(c->diag, in->name_span,
                      "nothing in `%s` constructs the result: an accuracy is measured, not built "
                      "from; give the implementations to measure, as in `result is one of f(x), "
                      "g(x)` (docs/language.md §4)", in->name);
    } else if (!first && in->has_section[FX_SECTION_CONSTRAINTS]) {
        fx_diag_error(c->diag, in->name_span,
                      "nothing in `%s` constructs the result: add a defining equation, an "
                      "element-wise definition, a comprehension or a permutation",
                      in->name);
    }
    const FxConstraint *order = NULL;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        if ((*kp)->kind != FX_CON_ORDER)
            continue;
        if (order) {
            FxDiagItem *it = fx_diag_error(c->diag, (*kp)->span, "the order is already given");
            fx_diag_note(c->diag, it, order->span, "the first order constraint is here");
        }
        order = *kp;
    }
}

/* `result is one of E1, E2, ...`: each a value of the result's type. */
static void check_choice(Checker *c, FxIntent *in, FxConstraint *k)
{
    c->result_ban = result_banned_in_definition;
    for (size_t i = 0; i < k->u.choice.n; i++) {
        FxExpr *e = k->u.choice.candidates[i];
        FxType *t = check_expr(c, e);
        if (!fx_type_assignable(t, in->ret)) {
            char *what = fx_xasprintf("an implementation of `%s`", in->name);
            mismatch(c, e->span, what, t, in->ret);
            free(what);
        }
    }
    c->result_ban = NULL;
}

static const FxType *record_field(const FxType *rec, const char *name)
{
    for (size_t i = 0; rec && rec->kind == FX_TY_RECORD && i < rec->record->def->n_fields; i++)
        if (!strcmp(rec->record->def->field_names[i], name))
            return rec->record->field_types[i];
    return NULL;
}

/* The field of a labelled example that gives parameter or record field
 * `name` of type want: present and assignable, or an error. */
static void need_field(Checker *c, const FxConstraint *k, const FxType *row, const char *name,
                       const FxType *want)
{
    const FxType *t = record_field(row, name);
    if (!t) {
        fx_diag_error(c->diag, k->u.measure.on_span, "the labelled examples of `%s` have no field "
                      "`%s`: each needs the inputs, by name, and the expected result, `label`",
                      k->u.measure.on, name);
    } else if (!fx_type_assignable(t, want)) {
        char *what = fx_xasprintf("field `%s` of `%s`", name, k->u.measure.on);
        mismatch(c, k->u.measure.on_span, what, t, want);
        free(what);
    }
}

/* `accuracy > 95% on DATA`: DATA is a data source of labelled examples, a
 * record per example with the inputs (the fields of the one record
 * parameter, or a field per parameter, by name) and `label`, the result
 * expected. The bound is a fraction in [0, 1]. */
static void check_accuracy(Checker *c, FxIntent *in, FxConstraint *k)
{
    if (k->u.measure.op != FX_OP_GT && k->u.measure.op != FX_OP_GE) {
        fx_diag_error(c->diag, k->span, "an accuracy is a bound from below: `accuracy > %s`",
                      k->u.measure.bound_text ? k->u.measure.bound_text : "95%");
        return;
    }
    if (!(k->u.measure.bound >= 0 && k->u.measure.bound <= 1)) {
        fx_diag_error(c->diag, k->u.measure.bound_span, "an accuracy is between 0%% and 100%% "
                      "(or 0 and 1), not `%s`", k->u.measure.bound_text);
        return;
    }
    if (!k->u.measure.on) {
        fx_diag_error(c->diag, k->span, "`accuracy %s %s` is measured on labelled examples: name "
                      "them, as in `accuracy %s %s on examples`, with `data examples: List[R] "
                      "from \"examples.csv\"`, R holding the inputs and a `label` "
                      "(docs/language.md §4)", fx_op_name(k->u.measure.op),
                      k->u.measure.bound_text, fx_op_name(k->u.measure.op),
                      k->u.measure.bound_text);
        return;
    }
    FxDataDecl *dd = find_data(c, k->u.measure.on);
    if (!dd) {
        fx_diag_error(c->diag, k->u.measure.on_span, "`%s` is not a data source: an accuracy is "
                      "measured on the labelled examples of a `data` declaration",
                      k->u.measure.on);
        return;
    }
    k->u.measure.data = dd;
    if (!dd->type || fx_type_is_error(dd->type) || !dd->type->elem || fx_type_is_error(in->ret))
        return;
    const FxType *row = dd->type->elem;
    if (in->n_params == 1 && in->params[0].type->kind == FX_TY_RECORD) {
        const FxTypeDecl *td = in->params[0].type->record;
        for (size_t i = 0; i < td->def->n_fields; i++)
            need_field(c, k, row, td->def->field_names[i], td->field_types[i]);
    } else {
        for (size_t i = 0; i < in->n_params; i++)
            need_field(c, k, row, in->params[i].name, in->params[i].type);
    }
    need_field(c, k, row, "label", in->ret);
}

/* `latency < 100ms [on DEVICE]`: a bound from above; the device is the one
 * the call runs on (`target_device`) or the CPU. */
static void check_latency(Checker *c, FxConstraint *k)
{
    if (k->u.measure.op != FX_OP_LT && k->u.measure.op != FX_OP_LE)
        fx_diag_error(c->diag, k->span, "a latency is a bound from above: `latency < %s`",
                      k->u.measure.bound_text ? k->u.measure.bound_text : "100ms");
    else if (k->u.measure.on && strcmp(k->u.measure.on, "target_device") &&
             strcmp(k->u.measure.on, "cpu"))
        fx_diag_warning(c->diag, k->u.measure.on_span, "unknown device `%s`: this build runs on "
                        "the CPU, which `target_device` and `cpu` name; the bound applies there",
                        k->u.measure.on);
}

static void check_constraint(Checker *c, FxIntent *in, FxConstraint *k)
{
    switch (k->kind) {
    case FX_CON_EQUATION: check_equation(c, in, k); break;
    case FX_CON_ELEMENTWISE: check_elementwise(c, in, k); break;
    case FX_CON_COMPREHENSION: check_comprehension(c, in, k); break;
    case FX_CON_ORDER: check_order(c, in, k); break;
    case FX_CON_PERMUTATION: check_permutation(c, in, k); break;
    case FX_CON_POST: expect_bool(c, k->u.post.expr, "a postcondition"); break;
    case FX_CON_CHOICE: check_choice(c, in, k); break;
    case FX_CON_ACCURACY: check_accuracy(c, in, k); break;
    case FX_CON_LATENCY: check_latency(c, k); break;
    }
}

/* ---- properties and hints ---- */

static const char *const known_properties[] = {
    "pure",        "deterministic",     "stateless", "total",    "commutative",
    "associative", "distributive",      "monotone",  "order_independent",
    "parallelizable", "parallelizable_over", "tolerance",
};

/* Does a value of type t hold floats (a Float, or a collection of them)? */
static bool holds_floats(const FxType *t)
{
    return t && (t->kind == FX_TY_FLOAT ||
                 ((t->kind == FX_TY_LIST || t->kind == FX_TY_STREAM || t->kind == FX_TY_MATRIX) &&
                  holds_floats(t->elem)));
}

/* `tolerance(EPS)`: a permission, not a claim (docs/language.md §6): one
 * number strictly between 0 and 1, on an intent whose result holds floats. */
static void check_tolerance_shape(Checker *c, FxIntent *in, FxProperty *pr)
{
    char *end = NULL;
    double eps = pr->n_args == 1 ? strtod(pr->args[0], &end) : 0;
    if (pr->n_args != 1 || !end || *end || !(eps > 0 && eps < 1)) {
        fx_diag_error(c->diag, pr->n_args ? pr->arg_spans[0] : pr->name_span,
                      "`tolerance` takes one number between 0 and 1, the relative error allowed "
                      "against the magnitude of the summed terms, as in `tolerance(1e-12)`");
        pr->verdict = FX_VERDICT_FALSE;
    } else if (in->ret && !fx_type_is_error(in->ret) && !holds_floats(in->ret)) {
        char *type = fx_type_name(in->ret);
        fx_diag_error(c->diag, pr->name_span, "`tolerance` allows floating-point sums to be "
                      "reordered, but `%s` returns %s, whose arithmetic is exact", in->name,
                      type);
        free(type);
        pr->verdict = FX_VERDICT_FALSE;
    }
}

static void check_property_shape(Checker *c, FxIntent *in, FxProperty *pr)
{
    bool known = false;
    for (size_t i = 0; i < FX_ARRAY_LEN(known_properties); i++)
        known |= strcmp(pr->name, known_properties[i]) == 0;
    if (!known) {
        const char *sugg = closest(pr->name, known_properties, FX_ARRAY_LEN(known_properties));
        FxBuf list = {0};
        for (size_t i = 0; i < FX_ARRAY_LEN(known_properties); i++)
            fx_buf_printf(&list, "%s%s", i ? ", " : "", known_properties[i]);
        if (sugg)
            fx_diag_error(c->diag, pr->name_span, "unknown property `%s`; did you mean `%s`? "
                          "(known: %s)", pr->name, sugg, fx_buf_str(&list));
        else
            fx_diag_error(c->diag, pr->name_span, "unknown property `%s` (known: %s)", pr->name,
                          fx_buf_str(&list));
        fx_buf_free(&list);
        pr->verdict = FX_VERDICT_FALSE;
        return;
    }
    if (!strcmp(pr->name, "tolerance")) {
        check_tolerance_shape(c, in, pr);
        return;
    }
    bool takes_args = strcmp(pr->name, "parallelizable_over") == 0;
    if (takes_args && pr->n_args == 0) {
        fx_diag_error(c->diag, pr->name_span, "`parallelizable_over` names the index variables, "
                                              "as in `parallelizable_over(i, j)`");
        pr->verdict = FX_VERDICT_FALSE;
    } else if (!takes_args && pr->n_args > 0) {
        fx_diag_error(c->diag, pr->span, "`%s` takes no arguments; put a comment after a space: "
                                         "`%s (why)`", pr->name, pr->name);
        pr->verdict = FX_VERDICT_FALSE;
    }
}

static const char *const known_hints[] = {
    "prefer_blocked_computation", "prefer_parallel", "prefer_sequential", "prefer_gpu",
    "latency", "memory", "optimize_for",
};
static const char *const known_conditions[] = {"GPU_available", "MPI_available",
                                               "multicore"};

static bool in_table(const char *name, const char *const *table, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, table[i]) == 0)
            return true;
    return false;
}

/* Hints never change meaning, so everything wrong with one is a warning. */
static void check_hint(Checker *c, const FxHint *h)
{
    if (h->condition && !in_table(h->condition, known_conditions, FX_ARRAY_LEN(known_conditions)))
        fx_diag_warning(c->diag, h->condition_span, "unknown condition `%s` in a hint; it is "
                        "treated as false (known: GPU_available, MPI_available, multicore)",
                        h->condition);
    if (!in_table(h->name, known_hints, FX_ARRAY_LEN(known_hints))) {
        const char *sugg = closest(h->name, known_hints, FX_ARRAY_LEN(known_hints));
        if (sugg)
            fx_diag_warning(c->diag, h->name_span, "unknown performance hint `%s` is ignored; "
                            "did you mean `%s`?", h->name, sugg);
        else
            fx_diag_warning(c->diag, h->name_span, "unknown performance hint `%s` is ignored",
                            h->name);
        return;
    }
    bool bounded = strcmp(h->name, "latency") == 0 || strcmp(h->name, "memory") == 0;
    if (bounded && !h->has_bound) {
        fx_diag_warning(c->diag, h->span, "`%s` needs a bound, as in `%s`; the hint is "
                        "ignored", h->name, h->name[0] == 'l' ? "latency < 100ms" : "memory < 512MB");
        return;
    }
    if (!bounded && h->has_bound) {
        fx_diag_warning(c->diag, h->span, "`%s` takes no bound; the hint is ignored", h->name);
        return;
    }
    if (h->has_bound) {
        static const char *const time_units[] = {"ns", "us", "ms", "s"};
        static const char *const size_units[] = {"B", "KB", "MB", "GB", "TB"};
        bool time = h->name[0] == 'l';
        const char *const *units = time ? time_units : size_units;
        size_t n = time ? FX_ARRAY_LEN(time_units) : FX_ARRAY_LEN(size_units);
        if (!h->bound_unit || !in_table(h->bound_unit, units, n))
            fx_diag_warning(c->diag, h->bound_span, "`%s` needs a unit (%s); the hint is ignored",
                            h->name, time ? "ns, us, ms or s" : "B, KB, MB, GB or TB");
    }
    bool wants_arg = strcmp(h->name, "optimize_for") == 0;
    if (wants_arg && (!h->arg || (strcmp(h->arg, "energy") != 0 && strcmp(h->arg, "latency") != 0 &&
                                  strcmp(h->arg, "throughput") != 0)))
        fx_diag_warning(c->diag, h->arg ? h->arg_span : h->name_span,
                        "`optimize_for` takes energy, latency or throughput; the hint is ignored");
    else if (!wants_arg && h->arg)
        fx_diag_warning(c->diag, h->arg_span, "`%s` takes no argument; `%s` is ignored", h->name,
                        h->arg);
}

/* ---- declarations ---- */

/* Wide enough for any intent a person writes; the lowering's fixed buffers
 * rely on it. */
#define FX_MAX_PARAMS 64

static void resolve_signature(Checker *c, FxIntent *in)
{
    c->intent = in;
    c->sizes.len = 0;
    if (in->n_params > FX_MAX_PARAMS)
        fx_diag_error(c->diag, in->name_span, "`%s` has %zu parameters; an intent takes at most "
                      "%d", in->name, in->n_params, FX_MAX_PARAMS);
    for (size_t i = 0; i < in->n_params; i++) {
        FxParam *p = &in->params[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(in->params[j].name, p->name) == 0)
                fx_diag_error(c->diag, p->span, "parameter `%s` is declared twice", p->name);
        p->type = resolve_type(c, p->type_expr, true);
    }
    in->ret = resolve_type(c, in->ret_expr, false);
    c->intent = NULL;
}

static void collect_sizes(Checker *c, FxIntent *in)
{
    c->sizes.len = 0;
    for (size_t i = 0; i < in->n_params; i++) {
        const FxType *t = in->params[i].type;
        if (!t || t->kind != FX_TY_MATRIX)
            continue;
        const char *dims[2] = {t->rows, t->cols};
        for (size_t d = 0; d < 2; d++) {
            if (dims[d][0] < 'A' || strchr(dims[d], '(') || is_size_var(c, dims[d]))
                continue;
            SizeVar sv = {dims[d], in->params[i].span};
            fx_vec_push(&c->sizes, sv);
        }
    }
}

static void check_intent(Checker *c, FxIntent *in, size_t index)
{
    size_t errors_before = fx_diag_errors(c->diag);
    c->intent = in;
    collect_sizes(c, in);
    classify_equations(c, in);
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) check_constraint(c, in, *kp);
    if (!in->has_syntax_errors)
        check_construction(c, in);
    fx_vec_foreach(FxProperty *, pp, &in->properties) check_property_shape(c, in, *pp);
    fx_vec_foreach(FxHint *, hp, &in->hints) check_hint(c, *hp);
    c->intent = NULL;
    c->locals.len = 0;
    c->sizes.len = 0;
    if (fx_diag_errors(c->diag) == errors_before && !in->has_syntax_errors) {
        if (c->memo)
            fx_check_memo_solve(c->memo, c->prog, index, in, c->options);
        else
            fx_check_intent_smt(c->prog, in, c->options);
    }
}

static void check_data(Checker *c, const FxModule *m, FxDataDecl *dd)
{
    dd->type = resolve_type(c, dd->type_expr, false);
    const FxType *t = dd->type;
    if (!fx_type_is_error(t) && (!fx_type_is_collection(t) || !t->elem ||
                                 t->elem->kind != FX_TY_RECORD)) {
        char *n = type_name(t);
        fx_diag_error(c->diag, dd->type_expr->span, "a data source is a List or Stream of "
                      "records, such as `List[User]`, not %s", n);
        free(n);
    } else if (!fx_type_is_error(t)) {
        const FxTypeDecl *rec = t->elem->record;
        for (size_t i = 0; i < rec->def->n_fields; i++)
            if (rec->field_types[i] && !fx_type_is_scalar(rec->field_types[i]))
                fx_diag_error(c->diag, dd->type_expr->span, "field `%s` of `%s` is not a "
                              "number, string or boolean, so no column can hold it",
                              rec->def->field_names[i], rec->name);
    }
    /* `file.db:table` names a table of an SQLite file */
    const char *colon = strrchr(dd->path, ':');
    size_t file_len = colon ? (size_t)(colon - dd->path) : strlen(dd->path);
    const char *slash = strrchr(m->src->path, '/');
    size_t dir_len = slash ? (size_t)(slash - m->src->path) + 1 : 0;
    char *resolved = dd->path[0] == '/'
                             ? fx_xstrndup(dd->path, file_len)
                             : fx_xasprintf("%.*s%.*s", (int)dir_len, m->src->path,
                                            (int)file_len, dd->path);
    dd->resolved_path = fx_arena_strdup(c->arena, resolved);
    if (access(resolved, R_OK) != 0)
        fx_diag_warning(c->diag, dd->path_span, "data file `%.*s` not found next to `%s`; "
                        "running an intent that reads `%s` will fail", (int)file_len, dd->path,
                        m->src->path, dd->name);
    free(resolved);
}

/* A name declared twice among the user's files. */
static void check_duplicates(Checker *c)
{
    FX_VEC(FxIntent *) seen = {0};
    fx_vec_foreach(FxModule *, m, &c->prog->modules)
    {
        if (*m == c->prog->prelude)
            continue;
        fx_vec_foreach(FxIntent *, in, &(*m)->intents)
        {
            if (fx_check_is_reserved((*in)->name))
                fx_diag_error(c->diag, (*in)->name_span, "`%s` is built in and cannot be "
                              "redefined", (*in)->name);
            fx_vec_foreach(FxIntent *, old, &seen)
            {
                if (strcmp((*old)->name, (*in)->name) != 0)
                    continue;
                FxDiagItem *it = fx_diag_error(c->diag, (*in)->name_span,
                                               "intent `%s` is defined twice", (*in)->name);
                fx_diag_note(c->diag, it, (*old)->name_span, "the first definition is here");
                break;
            }
            fx_vec_push(&seen, *in);
        }
        fx_vec_foreach(FxTypeDecl *, td, &(*m)->types)
        {
            FxTypeDecl *first = find_type_decl(c, (*td)->name);
            if (first != *td) {
                FxDiagItem *it = fx_diag_error(c->diag, (*td)->name_span,
                                               "type `%s` is defined twice", (*td)->name);
                fx_diag_note(c->diag, it, first->name_span, "the first definition is here");
            } else if (is_builtin_type((*td)->name)) {
                fx_diag_error(c->diag, (*td)->name_span, "`%s` is a built-in type", (*td)->name);
            }
        }
        fx_vec_foreach(FxDataDecl *, dd, &(*m)->data)
        {
            FxDataDecl *first = find_data(c, (*dd)->name);
            if (first != *dd) {
                FxDiagItem *it = fx_diag_error(c->diag, (*dd)->name_span,
                                               "data source `%s` is defined twice", (*dd)->name);
                fx_diag_note(c->diag, it, first->name_span, "the first definition is here");
            }
        }
    }
    fx_vec_free(&seen);
}

void fx_check_program(FxProgram *prog, const FxCheckOptions *options)
{
    Checker c = {.prog = prog, .diag = prog->diag, .arena = &prog->arena, .options = options};
    check_duplicates(&c);
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxTypeDecl *, td, &(*m)->types) resolve_type_decl(&c, *td);
    }
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxDataDecl *, dd, &(*m)->data) check_data(&c, *m, *dd);
        fx_vec_foreach(FxIntent *, in, &(*m)->intents) resolve_signature(&c, *in);
    }
    /* the solver's part, remembered when the caller keeps memos */
    if (options && options->salt && !options->skip_smt) {
        fx_check_memo_key(prog, options, prog->check_key);
        char *text = options->recall ? options->recall(options->recall_ctx, prog->check_key)
                                     : NULL;
        c.memo = fx_check_memo_new(prog, text);
        free(text);
    }
    size_t index = 0;
    fx_vec_foreach(FxModule *, m, &prog->modules)
    {
        fx_vec_foreach(FxIntent *, in, &(*m)->intents) check_intent(&c, *in, index++);
    }
    if (c.memo) {
        prog->check_recalled = fx_check_memo_recalled(c.memo);
        if (fx_diag_errors(prog->diag) == 0)
            prog->check_memo = fx_check_memo_text(c.memo);
        fx_check_memo_free(c.memo);
    }
    fx_vec_free(&c.locals);
    fx_vec_free(&c.sizes);
}

size_t fx_check_equations(const FxIntent *in, FxConstraint ***out)
{
    size_t n = 0;
    *out = fx_xmalloc((in->constraints.len + 1) * sizeof(FxConstraint *));
    fx_vec_foreach(FxConstraint *, kp, &in->constraints) if ((*kp)->kind == FX_CON_EQUATION)(*out)[n++] = *kp;
    return n;
}

const FxExpr *fx_check_simple_body(const FxIntent *in)
{
    const FxExpr *body = NULL;
    fx_vec_foreach(FxConstraint *, kp, &in->constraints)
    {
        const FxConstraint *k = *kp;
        if (k->kind == FX_CON_POST || k->kind == FX_CON_ORDER)
            continue;
        if (k->kind != FX_CON_EQUATION || k->u.eq.head || k->u.eq.guard || body)
            return NULL;
        body = k->u.eq.rhs;
    }
    return body;
}

bool fx_check_expression(FxProgram *prog, FxExpr *e)
{
    size_t before = fx_diag_errors(prog->diag);
    Checker c = {.prog = prog, .diag = prog->diag, .arena = &prog->arena};
    c.result_ban = "an expression to evaluate has no result yet; call an intent instead";
    check_expr(&c, e);
    fx_vec_free(&c.locals);
    fx_vec_free(&c.sizes);
    return fx_diag_errors(prog->diag) == before;
}
