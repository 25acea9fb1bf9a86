/*
 * native.c: the native tier between the store and the runtimes
 * (docs/native.md).
 *
 * Promotion is part of a learning round: when the version running now
 * took NATIVE_HOT_MS or more in its newest run, its module (exec/cgen.c)
 * is compiled, tcc first; once it stays hot, cc -O2. A new object is
 * tested against the interpreter (the recorded inputs, then random ones)
 * before any run uses it, and each later round checks the newest recorded
 * inputs again; a difference disables the object, with the input that
 * showed it. What was built and what it proved is kept in the store's
 * learned table (kind "native", the object's key, the machine's
 * fingerprint) as JSON:
 *
 *   {"intent", "version", "tier", "compiler", "object_mac", "compile_ms",
 *    "status": "ok" | "disabled" | "slower", "why", "recorded", "random", "created"}
 *
 * A runtime asks for a function's native code at its first call (the
 * provider below): a row "ok" for this source, compiler and machine, and
 * an object whose bytes the recorded MAC, made with this user's key, holds
 * for (a row of an older flux has none: its object is built again). Anything else leaves the
 * function in the interpreter, and a missing or corrupt object makes the
 * next run's learning due, which builds it again.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_int.h"
#include "base/hash.h"
#include "base/mac.h"
#include "exec/native.h"
#include "exec/natrec.h"
#include "hw/hw.h"
#include "graph/lower.h"
#include "hw/native.h"

#define KIND "native"
#define NATIVE_HOT_MS 1.0      /* a run this long is worth compiling for */
#define RANDOM_INPUTS 10000    /* compared with the interpreter before use */
#define RECENT_RUNS 8          /* of the lineage, any version, that say it is hot */

/* For tests (the generator of programs, docs/testing.md): FLUX_NATIVE_HOT_MS
 * and FLUX_NATIVE_INPUTS replace the two above. */
static double hot_ms(void)
{
    const char *v = getenv("FLUX_NATIVE_HOT_MS");
    return v && *v ? strtod(v, NULL) : NATIVE_HOT_MS;
}

static long long random_inputs(void)
{
    const char *v = getenv("FLUX_NATIVE_INPUTS");
    return v && *v ? strtoll(v, NULL, 10) : RANDOM_INPUTS;
}
#define RANDOM_TRIES 60000     /* inputs drawn at most (most may exceed the budget) */
#define RANDOM_STEPS 5000      /* the budget of each random input's run */
#define RECORDED_INPUTS 16     /* the newest distinct recorded EXPRs compared */
#define RECHECKED_INPUTS 4     /* and at each later round */
#define CHECK_CAP_S 2.0        /* a recorded EXPR's check stops after this, or 3x its run */
#define JUDGE_RUNS 3           /* native and interpreted timed, the best of each */
#define JUDGE_SLACK 1.10       /* native may not be slower than the interpreter by more */

static _Atomic bool rebuild_due; /* a run found an object missing or corrupt (any program) */

static void machine(FxBuf *out)
{
    fx_buf_puts(out, fx_api_fingerprint());
}

static char *native_dir(FluxStore *fs)
{
    return fx_xasprintf("%s/cache", fx_store_dir(fs->store));
}

typedef struct Row {
    char tier[16], compiler[160], status[16], version[16];
    char why[700];
    char object_mac[FX_MAC_HEX];
    double compile_ms;
    long long recorded, random;
} Row;

/* A row's JSON (len bytes at text) into *row; false when it does not parse. */
static bool parse_row(const char *text, size_t len, Row *row)
{
    memset(row, 0, sizeof(*row));
    json_t *j = json_loadb(text, len, 0, NULL);
    const char *s;
    if (!j)
        return false;
#define STR_FIELD(name, dst)                                                                       \
    if ((s = json_string_value(json_object_get(j, name))))                                        \
        snprintf(dst, sizeof(dst), "%s", s);
    STR_FIELD("tier", row->tier)
    STR_FIELD("compiler", row->compiler)
    STR_FIELD("status", row->status)
    STR_FIELD("version", row->version)
    STR_FIELD("why", row->why)
    STR_FIELD("object_mac", row->object_mac)
#undef STR_FIELD
    row->compile_ms = json_number_value(json_object_get(j, "compile_ms"));
    row->recorded = (long long)json_integer_value(json_object_get(j, "recorded"));
    row->random = (long long)json_integer_value(json_object_get(j, "random"));
    json_decref(j);
    return true;
}

static bool read_row(FxStore *st, const FxNativeObject *o, const char *hw, Row *row)
{
    char *text = NULL;
    size_t len = 0;
    memset(row, 0, sizeof(*row));
    bool ok = fx_store_learned(st, KIND, o->key, hw, &text, &len) == FX_OK && text &&
              parse_row(text, len, row);
    free(text);
    return ok;
}

static FxStatus write_row(FxStore *st, const FxNativeObject *o, const char *hw, const char *intent,
                          const Row *row)
{
    json_t *j = json_object();
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    json_object_set_new(j, "intent", json_string(intent));
    json_object_set_new(j, "version", json_string(row->version));
    json_object_set_new(j, "tier", json_string(fx_tier_name(o->tier)));
    json_object_set_new(j, "compiler", json_string(o->compiler));
    json_object_set_new(j, "object_mac", json_string(row->object_mac));
    json_object_set_new(j, "compile_ms", json_real(row->compile_ms));
    json_object_set_new(j, "status", json_string(row->status));
    json_object_set_new(j, "why", json_string(row->why));
    json_object_set_new(j, "recorded", json_integer(row->recorded));
    json_object_set_new(j, "random", json_integer(row->random));
    json_object_set_new(j, "created", json_string(now));
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    FxStatus r = fx_store_set_learned(st, KIND, o->key, hw, text, strlen(text));
    free(text);
    return r;
}

/* The tier's sentence for the record and explain. */
static char *tier_text(const FxNativeObject *o, const Row *row, bool cached)
{
    return fx_xasprintf("native, %s, compiled in %.0f ms%s; equal to the interpreter on %lld "
                        "recorded and %lld random inputs before use",
                        o->compiler, row->compile_ms, cached ? ", cached" : "", row->recorded,
                        row->random);
}

/* ---- the provider ---- */

static void attach(void *ctx, FxRuntime *rt, const char *intent)
{
    FluxProgram *fp = ctx;
    if (pthread_mutex_trylock(&fp->lock) != 0)
        return;
    FluxStore *fs = fp->store;
    if (!fs || pthread_mutex_trylock(&fs->lock) != 0) {
        pthread_mutex_unlock(&fp->lock);
        return;
    }
    FxBuf src = {0}, why = {0}, hw = {0};
    char *dir = native_dir(fs), err[640];
    if (fx_native_source(rt, intent, &src, &why)) {
        machine(&hw);
        for (int t = FX_CODE_OPT; t >= FX_CODE_FAST; t--) {
            FxNativeObject o;
            Row row;
            if (!fx_native_plan((FxCodeTier)t, fx_buf_str(&src), dir, fx_buf_str(&hw), &o, err,
                                sizeof(err)) ||
                !read_row(fs->store, &o, fx_buf_str(&hw), &row) || strcmp(row.status, "ok") != 0)
                continue;
            memcpy(o.object_mac, row.object_mac, sizeof(o.object_mac));
            void *entry = fx_native_load(&o, FX_NAT_ENTRY, err, sizeof(err));
            if (!entry) {
                rebuild_due = true;
                continue;
            }
            char *text = tier_text(&o, &row, true);
            fx_runtime_attach_native(rt, intent, (FxNatEntry)entry, text);
            free(text);
            break;
        }
    }
    pthread_mutex_unlock(&fs->lock);
    pthread_mutex_unlock(&fp->lock);
    free(dir);
    fx_buf_free(&src);
    fx_buf_free(&why);
    fx_buf_free(&hw);
}

void fx_api_native_give(FluxProgram *fp, FxRuntime *rt)
{
    FxNativeProvider p = {fp, attach};
    fx_runtime_set_native_provider(rt, &p);
}

bool fx_api_native_rebuild_due(void)
{
    return rebuild_due;
}

/* ---- the differential test ---- */

typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t next(Rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static int64_t random_int(Rng *r, int64_t range, bool natural)
{
    int64_t v;
    switch (next(r) % 8) {
    case 0: v = (int64_t)(next(r) % 17) - 8; break;                    /* small */
    case 1: v = (int64_t)next(r); break;                               /* anything */
    case 2: v = INT64_MAX - (int64_t)(next(r) % 4); break;             /* the edges */
    case 3: v = (int64_t)(next(r) % (1ull << 33)) - (1ll << 32); break; /* past int32 */
    default: v = (int64_t)(next(r) % (uint64_t)(2 * range + 1)) - range; break;
    }
    if (natural && v < 0)
        v = v == INT64_MIN ? INT64_MAX : -v;
    return v;
}

/* Floats of every magnitude: both zeros, subnormals, the largest, and,
 * when `odd` (a record's field, which arithmetic fills as it may), the
 * infinities and NaN, which a parameter's text does not read back. */
static double random_float(Rng *r, int64_t range, bool odd)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e308, -1e308, 5e-324, 1e-300,
                                     3.0e38, -5e-324, 2.2250738585072009e-308, 1e-310,
                                     1.7976931348623157e308, __builtin_inf(), -__builtin_inf(),
                                     __builtin_nan("")};
    size_t n_special = sizeof(special) / sizeof(special[0]) - (odd ? 0 : 3);
    switch (next(r) % 8) {
    case 0: return special[next(r) % n_special];
    case 1: { /* any bits (NaN and the infinities only when odd) */
        uint64_t b = next(r);
        double x;
        memcpy(&x, &b, 8);
        return odd || (x == x && x - x == 0) ? x : 2.5;
    }
    default: return ((double)(next(r) >> 11) / 9007199254740992.0 * 2 - 1) * (double)range;
    }
}

/* A record of the type `type` names (natrec.h: numbers and Bools), every
 * field drawn; UNIT when it names none native code holds. */
static FxValue random_record(Rng *r, const FxProgram *prog, const char *type, int64_t range)
{
    FxNatRec rec;
    if (!fx_natrec_find(prog, type, &rec))
        return (FxValue){0};
    FxValue f[FX_NATREC_MAX_FIELDS];
    for (uint32_t i = 0; i < rec.n; i++) {
        switch (rec.kind[i]) {
        case FX_TK_FLOAT: f[i] = fx_val_float(random_float(r, range, true)); break;
        case FX_TK_BOOL: f[i] = fx_val_bool(next(r) & 1); break;
        default: f[i] = fx_val_int(random_int(r, range, rec.kind[i] == FX_TK_NATURAL)); break;
        }
    }
    return fx_val_record(rec.n, rec.names, f);
}

static FxValue random_value(Rng *r, const FxProgram *prog, FxTypeId t, const char *type,
                            int64_t range)
{
    switch (fx_typeid_kind(t)) {
    case FX_TK_NATURAL: return fx_val_int(random_int(r, range, true));
    case FX_TK_INT: return fx_val_int(random_int(r, range, false));
    case FX_TK_FLOAT: return fx_val_float(random_float(r, range, false));
    case FX_TK_BOOL: return fx_val_bool(next(r) & 1);
    case FX_TK_RECORD: return random_record(r, prog, type, range);
    case FX_TK_LIST: {
        size_t n = next(r) % 40;
        FxValue items[40];
        if (fx_typeid_kind(fx_typeid_elem(t)) == FX_TK_RECORD) { /* boxed, as the VM makes them */
            for (size_t i = 0; i < n; i++)
                items[i] = random_record(r, prog, type, range);
            return fx_val_list_take(items, n);
        }
        for (size_t i = 0; i < n; i++)
            items[i] = random_value(r, prog, fx_typeid_elem(t), NULL, range);
        if (next(r) & 1) /* boxed, as a list literal makes it */
            return fx_val_list(items, n);
        if (fx_typeid_kind(fx_typeid_elem(t)) == FX_TK_FLOAT) {
            double d[40];
            for (size_t i = 0; i < n; i++)
                d[i] = items[i].u.f;
            return fx_val_list_of_f64(d, n);
        }
        int64_t v[40];
        for (size_t i = 0; i < n; i++)
            v[i] = items[i].u.i;
        return fx_val_list_of_i64(v, n);
    }
    default: return (FxValue){0};
    }
}

/* Are two results the same, bit for bit (a Float's sign of zero included,
 * any NaN the same as any other; a list kept unboxed and one of boxed
 * elements alike; records field by field)? */
static bool identical(FxValue a, FxValue b)
{
    if (a.kind != b.kind)
        return false;
    switch (a.kind) {
    case FX_VAL_FLOAT: /* a NaN's sign and payload are the C compiler's: x86 gives the
                        * first operand's, and a compiler may swap a + b */
        return !memcmp(&a.u.f, &b.u.f, sizeof(double)) || (a.u.f != a.u.f && b.u.f != b.u.f);
    case FX_VAL_INT: return a.u.i == b.u.i;
    case FX_VAL_BOOL: return a.u.b == b.u.b;
    case FX_VAL_LIST: {
        size_t n = fx_val_list_len(a);
        if (n != fx_val_list_len(b))
            return false;
        for (size_t i = 0; i < n; i++)
            if (!identical(fx_val_list_at(a, i), fx_val_list_at(b, i)))
                return false;
        return true;
    }
    case FX_VAL_RECORD: { /* field by field, in order: a Float's bits too */
        size_t n = fx_val_record_size(a);
        if (n != fx_val_record_size(b))
            return false;
        for (size_t i = 0; i < n; i++)
            if (strcmp(fx_val_record_name(a, i), fx_val_record_name(b, i)) ||
                !identical(fx_val_record_at(a, i), fx_val_record_at(b, i)))
                return false;
        return true;
    }
    default: return fx_val_equal(a, b);
    }
}

/* One side's result for a message: the value, or that it failed. */
static void said(FxStatus st, FxValue v, FxBuf *out)
{
    if (st == FX_OK)
        fx_val_print(v, out);
    else
        fx_buf_puts(out, "failed");
}

/* The first difference, in C->why: "EXPR: native X, the interpreter Y";
 * of two lists as long, the first element that differs ("element 3 of
 * the result: native X, ..."), so that the message shows it whole. */
static void differs(FxBuf *why, FxStatus sa, FxValue va, FxStatus sb, FxValue vb)
{
    if (sa == FX_OK && sb == FX_OK && va.kind == FX_VAL_LIST && vb.kind == FX_VAL_LIST &&
        fx_val_list_len(va) == fx_val_list_len(vb)) {
        for (size_t i = 0; i < fx_val_list_len(va); i++) {
            FxValue x = fx_val_list_at(va, i), y = fx_val_list_at(vb, i);
            if (!identical(x, y)) {
                fx_buf_printf(why, ": element %zu of the result", i);
                va = x;
                vb = y;
                break;
            }
        }
    }
    fx_buf_puts(why, ": native ");
    said(sb, vb, why);
    fx_buf_puts(why, ", the interpreter ");
    said(sa, va, why);
}

typedef struct Check {
    FluxProgram *fp;
    FxRuntime *rt;
    const char *intent;
    long long recorded, random;
    FxBuf why; /* the first difference */
    FxBudgets budgets; /* the random inputs' (max_steps 0: the defaults, recorded inputs) */
} Check;

/* Both sides of one run: false at a difference (C->why says it, after the
 * call's text that the caller wrote there). Only a run the interpreter
 * finished is compared. */
static bool both_ways(Check *C, const FxGraph *g, const FxValue *args, uint32_t n, bool *compared)
{
    FxValue va = {0}, vb = {0};
    fx_runtime_set_native(C->rt, false);
    FxStatus sa = g ? fx_runtime_eval(C->rt, g, &va)
                    : fx_runtime_call(C->rt, C->intent, args, n, &va);
    *compared = sa == FX_OK;
    bool same = true;
    if (sa == FX_OK) {
        fx_runtime_set_native(C->rt, true);
        FxStatus sb = g ? fx_runtime_eval(C->rt, g, &vb)
                        : fx_runtime_call(C->rt, C->intent, args, n, &vb);
        if (sb != FX_OK && C->budgets.max_steps) {
            /* a call given back after some work can end past a small budget where
             * the interpreter alone did not: priced work (big integers, ++) is
             * checked against the steps left at the last refuel, whose places a
             * random allowance decides. Twice the budget: a value to compare,
             * or a failure (a loop that never ends) all the same */
            FxBudgets twice = C->budgets;
            twice.max_steps *= 2;
            fx_runtime_set_budgets(C->rt, twice);
            sb = fx_runtime_call(C->rt, C->intent, args, n, &vb);
            fx_runtime_set_budgets(C->rt, C->budgets);
        }
        same = sb == FX_OK && identical(va, vb);
        if (!same)
            differs(&C->why, sa, va, sb, vb);
        if (sb == FX_OK)
            fx_value_release(vb);
        fx_value_release(va);
    }
    fx_runtime_set_native(C->rt, true);
    return same;
}

/* Runs EXPR both ways, each under a time cap of max(CHECK_CAP_S, 3x the
 * run recorded in ms): without runaway protection a recursion that a
 * user's run memoized mid-run may take minutes, and a learning round is
 * bounded. A run the interpreter does not finish is not compared. False
 * at a difference (why says it). */
static bool check_expr(Check *C, const char *expr, double ms)
{
    FxBudgets b = fx_budgets_default();
    b.max_seconds = ms * 3 / 1000 > CHECK_CAP_S ? ms * 3 / 1000 : CHECK_CAP_S;
    fx_runtime_set_budgets(C->rt, b);
    FxArena arena = {0};
    FxExpr *e = fx_api_parse_expr(C->fp, expr, NULL, &arena, NULL);
    bool same = true, compared;
    if (e) {
        FxGraph *g = fx_lower_expr(C->fp->prog, e, "<expr>");
        size_t mark = C->why.len;
        fx_buf_puts(&C->why, expr);
        same = both_ways(C, g, NULL, 0, &compared);
        if (same)
            C->why.len = mark;
        C->recorded += compared;
        fx_graph_free(g);
    }
    fx_arena_free(&arena);
    fx_runtime_set_budgets(C->rt, fx_budgets_default());
    return same;
}

/* Random inputs of the intent's parameter types until RANDOM_INPUTS ran
 * to the end in the interpreter; the range of integers halves while most
 * runs exceed the budget (a naive recursion on a large input). */
static bool check_random(Check *C, int64_t range, uint64_t seed)
{
    const FxGraph *g = fx_runtime_graph(C->rt, C->intent);
    uint32_t n = g->n_params;
    FxValue args[16];
    Rng r = {seed | 1};
    FxBudgets b = fx_budgets_default();
    b.max_steps = RANDOM_STEPS;
    fx_runtime_set_budgets(C->rt, b);
    C->budgets = b;
    long long stopped = 0, window = 0;
    bool same = true, compared;
    long long want = random_inputs();
    for (long tries = 0; same && n <= 16 && C->random < want && tries < RANDOM_TRIES;
         tries++) {
        for (uint32_t i = 0; i < n; i++)
            args[i] = random_value(&r, C->fp->prog, g->param_tids[i], g->param_types[i], range);
        size_t mark = C->why.len;
        fx_buf_printf(&C->why, "%s(", C->intent);
        for (uint32_t i = 0; i < n; i++) {
            if (C->why.len - mark > 300) { /* a long list: enough to see */
                C->why.len = mark + 300;
                C->why.data[C->why.len] = 0;
                fx_buf_puts(&C->why, "...");
                break;
            }
            fx_buf_puts(&C->why, i ? ", " : "");
            fx_val_print(args[i], &C->why);
        }
        if (C->why.len - mark > 300) {
            C->why.len = mark + 300;
            C->why.data[C->why.len] = 0;
            fx_buf_puts(&C->why, "...");
        }
        fx_buf_puts(&C->why, ")");
        same = both_ways(C, NULL, args, n, &compared);
        if (same)
            C->why.len = mark;
        C->random += compared;
        stopped += !compared;
        for (uint32_t i = 0; i < n; i++)
            fx_value_release(args[i]);
        // without parameters every try is the same run; and where none of a
        // window's runs ends within the budget at the smallest range, none
        // will: 60000 tries of 5000 steps would take seconds (minutes under
        // ASan) and test nothing more
        if (n == 0 && !compared)
            break;
        if (++window == 200) {
            if (2 * stopped > window && range > 1)
                range /= 2;
            else if (stopped == window)
                break;
            stopped = window = 0;
        }
    }
    fx_runtime_set_budgets(C->rt, fx_budgets_default());
    C->budgets.max_steps = 0;
    return same;
}

/* The newest distinct EXPRs recorded for the version, at most max, with
 * the time each took. */
static size_t recorded_exprs(const FxTraces *tr, const char *label, const char **out,
                             double *ms, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < tr->v.len && n < max; i++) {
        const FxTrace *t = &tr->v.data[i];
        if (strcmp(t->version, label) != 0 || !t->expr)
            continue;
        bool seen = false;
        for (size_t k = 0; k < n; k++)
            seen |= !strcmp(out[k], t->expr);
        if (!seen) {
            ms[n] = t->ms;
            out[n++] = t->expr;
        }
    }
    return n;
}

/* The best of JUDGE_RUNS timings of g, each in a fresh runtime (as a new
 * process has: no table a run before switched on) with the installed
 * versions, natively (entry attached for intent) or interpreted (entry
 * NULL), runaway protection on, each stopped at cap_ms; a run that failed
 * or was stopped counts as the cap; -1 when the runtime's module is not
 * entry's (fx_native_shape_holds). */
static double best_ms(FluxProgram *fp, const FxGraph *g, const char *intent, FxNatEntry entry,
                      const char *compiler, double cap_ms)
{
    FxBudgets b = fx_budgets_default();
    b.max_seconds = cap_ms / 1000;
    double best = cap_ms;
    for (int i = 0; i < JUDGE_RUNS; i++) {
        FxCallCtx *cx = fx_api_context_forced(fp, NULL, 0, NULL);
        FxRuntime *rt = cx->rt;
        fx_runtime_set_budgets(rt, b);
        if (entry) { /* compiled first: only a function the runtime has takes the code */
            (void)fx_runtime_native_of(rt, intent);
            if (!fx_runtime_attach_native(rt, intent, entry, compiler)) {
                fx_api_context_drop(fp, cx);
                return -1; /* a fresh runtime's module is not the one built */
            }
        }
        else
            fx_runtime_set_native(rt, false);
        FxValue v;
        double ms;
        FxStatus st = fx_api_eval_timed(rt, g, &v, &ms);
        if (st == FX_OK)
            fx_value_release(v);
        fx_api_context_drop(fp, cx);
        if (st != FX_OK)
            break;
        if (ms < best)
            best = ms;
        if (ms > 1000) /* one long run says enough */
            break;
    }
    return best;
}

/* FLUX_NATIVE_JUDGE=off leaves the timing out, for the tests whose subject
 * is not speed (a timing on a loaded machine would make them flaky). */
static bool judging(void)
{
    const char *v = getenv("FLUX_NATIVE_JUDGE");
    return !v || strcmp(v, "off") != 0;
}

/* Native code is a change like any other: it is used only when the newest
 * recorded EXPR runs no slower with it than interpreted, both as a user's
 * run would make it. False (why says it) when slower. */
static bool judge_speed(FluxProgram *fp, const char *intent, FxNatEntry entry,
                        const char *compiler, const char *expr, double recorded_ms, FxBuf *why)
{
    FxArena arena = {0};
    FxExpr *e = fx_api_parse_expr(fp, expr, NULL, &arena, NULL);
    bool faster = true;
    if (e) {
        FxGraph *g = fx_lower_expr(fp->prog, e, "<expr>");
        double interp = best_ms(fp, g, intent, NULL, NULL, 3 * recorded_ms + 1000);
        double native = best_ms(fp, g, intent, entry, compiler, 2 * interp + 50);
        if (native < 0) {
            faster = false;
            fx_buf_printf(why, "a fresh runtime's module is not the one built: a callee is "
                          "answered by a kernel in one and not in the other");
        } else if (native > interp * JUDGE_SLACK + 0.02) {
            faster = false;
            fx_buf_printf(why, "measured slower than the interpreter: %.3g ms against %.3g ms "
                          "on `%.60s%s` (best of %d each, fresh runtimes)", native, interp, expr,
                          strlen(expr) > 60 ? "..." : "", JUDGE_RUNS);
        }
        fx_graph_free(g);
    }
    fx_arena_free(&arena);
    return faster;
}

/* ---- promotion, in a learning round ---- */

static int64_t input_range(const FxTraces *tr, const char *label)
{
    double largest = 16;
    for (size_t i = 0; i < tr->v.len; i++)
        if (!strcmp(tr->v.data[i].version, label) && tr->v.data[i].size > largest)
            largest = tr->v.data[i].size;
    return largest > 1e15 ? (int64_t)1e15 : (int64_t)(2 * largest);
}

/* Builds o from src and tests it; fills row. False (row.why says why)
 * when it was not built or differs. */
static bool build_and_check(FluxProgram *fp, FxRuntime *rt, const char *intent,
                            const FxTraces *tr, const char *label, FxNativeObject *o,
                            const char *src, Row *row)
{
    char err[640];
    snprintf(row->version, sizeof(row->version), "%s", label);
    if (!fx_native_build(o, src, err, sizeof(err))) {
        snprintf(row->status, sizeof(row->status), "failed");
        snprintf(row->why, sizeof(row->why), "%s", err);
        return false;
    }
    memcpy(row->object_mac, o->object_mac, sizeof(row->object_mac));
    row->compile_ms = o->compile_ms;
    void *entry = fx_native_load(o, FX_NAT_ENTRY, err, sizeof(err));
    if (!entry) {
        snprintf(row->status, sizeof(row->status), "failed");
        snprintf(row->why, sizeof(row->why), "%s", err);
        return false;
    }
    if (!fx_runtime_attach_native(rt, intent, (FxNatEntry)entry, o->compiler)) {
        /* a callee's kernel came or went since the source was written */
        snprintf(row->status, sizeof(row->status), "failed");
        snprintf(row->why, sizeof(row->why), "the module changed while it was built: "
                 "a callee is answered by a kernel now, or no longer");
        return false;
    }
    fx_runtime_set_runaway_protection(rt, false);
    Check C = {.fp = fp, .rt = rt, .intent = intent};
    const char *exprs[RECORDED_INPUTS];
    double ms[RECORDED_INPUTS];
    size_t n = recorded_exprs(tr, label, exprs, ms, RECORDED_INPUTS);
    bool same = true, faster = true;
    for (size_t i = 0; same && i < n; i++)
        same = check_expr(&C, exprs[i], ms[i]);
    if (same)
        same = check_random(&C, input_range(tr, label), fx_fnv1a(FX_FNV_BASIS, o->object_mac, strlen(o->object_mac)) ^ (uint64_t)time(NULL));
    if (same && n && judging())
        faster = judge_speed(fp, intent, (FxNatEntry)entry, o->compiler, exprs[0], ms[0], &C.why);
    row->recorded = C.recorded;
    row->random = C.random;
    if (!same) /* never run again: nothing of it stays in the cache */
        unlink(o->path);
    snprintf(row->status, sizeof(row->status), "%s",
             !same ? "disabled" : !faster ? "slower" : "ok");
    snprintf(row->why, sizeof(row->why), "%s", same && faster ? "" : fx_buf_str(&C.why));
    fx_buf_free(&C.why);
    fx_runtime_attach_native(rt, intent, NULL, NULL); /* runs use it from the store */
    fx_runtime_set_native(rt, true);
    return same && faster;
}

/* Checks the newest recorded inputs again with a validated object: the
 * run-time validation of a native version. */
static void recheck(FluxProgram *fp, FxRuntime *rt, const char *intent, const FxTraces *tr,
                    const FxNativeObject *o, Row *row, const char *hw, FILE *out)
{
    char err[640];
    void *entry = fx_native_load(o, FX_NAT_ENTRY, err, sizeof(err));
    if (!entry)
        return;
    if (!fx_runtime_attach_native(rt, intent, (FxNatEntry)entry, o->compiler))
        return; /* not this runtime's module: nothing of it would run */
    fx_runtime_set_runaway_protection(rt, false);
    Check C = {.fp = fp, .rt = rt, .intent = intent};
    const char *exprs[RECHECKED_INPUTS];
    double ms[RECHECKED_INPUTS];
    size_t n = recorded_exprs(tr, row->version, exprs, ms, RECHECKED_INPUTS);
    bool same = true;
    for (size_t i = 0; same && i < n; i++)
        same = check_expr(&C, exprs[i], ms[i]);
    fx_runtime_attach_native(rt, intent, NULL, NULL);
    fx_runtime_set_native(rt, true);
    if (!same) {
        snprintf(row->status, sizeof(row->status), "disabled");
        snprintf(row->why, sizeof(row->why), "%s", fx_buf_str(&C.why));
        if (write_row(fp->store->store, o, hw, intent, row) == FX_OK)
            fprintf(out, "%s: native code for %s (%s) disabled: it differs from the "
                         "interpreter on %s\n", intent, row->version, o->compiler, row->why);
    }
    fx_buf_free(&C.why);
}

int fx_api_native_repair(FluxProgram *fp, FluxStore *fs, const FxIntent *in, FILE *out)
{
    const FxGraph *g = fx_runtime_graph(fx_api_runtime(fp), in->name);
    int64_t lineage, version;
    FxTraces tr = {{0}};
    if (fx_api_version_of(fp, in, g, &lineage, &version) != FX_OK ||
        fx_api_traces(fs, in->name, lineage, 64, &tr) != FX_OK)
        return FLUX_ERR_STORE;
    int status = tr.v.len ? fx_api_native_round(fp, fs, in->name, g->version, &tr, out) : FLUX_OK;
    fx_api_traces_free(&tr);
    return status;
}

int fx_api_native_round(FluxProgram *fp, FluxStore *fs, const char *intent, const char *label,
                        const FxTraces *tr, FILE *out)
{
    /* a fresh runtime, as a new process has: the round's own may have
     * switched a table on for a callee (runaway protection), and a module
     * generated there would call that callee through the VM, which no
     * runtime that runs it would (fx_native_shape_holds refuses it) */
    FxCallCtx *cx = fx_api_context_forced(fp, NULL, 0, NULL);
    FxRuntime *rt = cx->rt;
    FxBuf src = {0}, why = {0}, hw = {0};
    char *dir = native_dir(fs), err[640];
    FxNativeObject objs[FX_CODE__COUNT];
    Row rows[FX_CODE__COUNT];
    bool planned[FX_CODE__COUNT] = {0}, have[FX_CODE__COUNT] = {0};
    int status = FLUX_OK;
    const FxTrace *newest = NULL;
    for (size_t i = 0; i < tr->v.len && !newest; i++)
        if (!strcmp(tr->v.data[i].version, label))
            newest = &tr->v.data[i];
    /* how long the intent's calls take when computed: a version whose
     * runs a hot-input table answers (its parent's code, a table in front)
     * looks cold by its own runs, so the lineage's recent runs count too */
    double hot = newest ? newest->ms : 0;
    for (size_t i = 0; i < tr->v.len && i < RECENT_RUNS; i++)
        if (tr->v.data[i].ms > hot)
            hot = tr->v.data[i].ms;
    machine(&hw);
    if (!fx_native_source(rt, intent, &src, &why)) {
        fprintf(out, "%s: %s stays interpreted: %s\n", intent, label, fx_buf_str(&why));
        goto done;
    }
    for (int t = 0; t < FX_CODE__COUNT; t++) {
        planned[t] = fx_native_plan((FxCodeTier)t, fx_buf_str(&src), dir, fx_buf_str(&hw), &objs[t],
                                    err, sizeof(err));
        if (planned[t] && read_row(fs->store, &objs[t], fx_buf_str(&hw), &rows[t])) {
            have[t] = true;
            memcpy(objs[t].object_mac, rows[t].object_mac, sizeof(objs[t].object_mac));
        }
    }
    if (!planned[FX_CODE_FAST] && !planned[FX_CODE_OPT]) {
        fprintf(out, "%s: %s stays interpreted: no C compiler (%s)\n", intent, label, err);
        goto done;
    }
    /* a validated object whose file went missing or bad is built again,
     * hot or not: it was promoted once */
    int lost = -1;
    for (int t = 0; t < FX_CODE__COUNT; t++) {
        if (!have[t] || strcmp(rows[t].status, "ok") != 0)
            continue;
        if (!fx_native_load(&objs[t], FX_NAT_ENTRY, err, sizeof(err))) {
            fprintf(out, "%s: native code for %s (%s): %s; building it again\n", intent, label,
                    objs[t].compiler, err);
            have[t] = false;
            lost = t;
        } else {
            recheck(fp, rt, intent, tr, &objs[t], &rows[t], fx_buf_str(&hw), out);
        }
    }
    rebuild_due = false;
    /* which tier, if any: the fast one first, the optimising one once the
     * code stays hot */
    FxCodeTier tier;
    if (lost >= 0) {
        tier = (FxCodeTier)lost; /* the best tier lost */
        goto build;
    }
    if (hot < hot_ms()) {
        bool any = (have[FX_CODE_FAST] && !strcmp(rows[FX_CODE_FAST].status, "ok")) ||
                   (have[FX_CODE_OPT] && !strcmp(rows[FX_CODE_OPT].status, "ok"));
        if (!any)
            fprintf(out, "%s: %s stays interpreted: its newest runs took %.3g ms at most, "
                         "under the %.0f ms that native code pays back\n", intent, label, hot,
                    hot_ms());
        goto done;
    }
    if (have[FX_CODE_OPT])
        goto done; /* built (or refused) already */
    if (planned[FX_CODE_FAST] && !have[FX_CODE_FAST])
        tier = FX_CODE_FAST;
    else if (planned[FX_CODE_OPT] &&
             (!have[FX_CODE_FAST] || !strcmp(rows[FX_CODE_FAST].status, "ok") ||
              !strcmp(rows[FX_CODE_FAST].status, "slower"))) /* -O2 may pay where tcc did not */
        tier = FX_CODE_OPT;
    else
        goto done;
build:;
    Row row = {0};
    bool ok = build_and_check(fp, rt, intent, tr, label, &objs[tier], fx_buf_str(&src), &row);
    if (write_row(fs->store, &objs[tier], fx_buf_str(&hw), intent, &row) != FX_OK)
        status = FLUX_ERR_STORE;
    if (ok)
        fprintf(out, "%s: native code for %s: %s, compiled in %.0f ms; equal to the interpreter "
                     "on %lld recorded and %lld random inputs\n", intent, label,
                objs[tier].compiler, row.compile_ms, row.recorded, row.random);
    else if (!strcmp(row.status, "slower"))
        fprintf(out, "%s: native code for %s (%s) not used: equal to the interpreter on %lld "
                     "recorded and %lld random inputs, but %s\n", intent, label,
                objs[tier].compiler, row.recorded, row.random, row.why);
    else if (!strcmp(row.status, "disabled"))
        fprintf(out, "%s: native code for %s (%s) rejected: it differs from the interpreter on "
                     "%s\n", intent, label, objs[tier].compiler, row.why);
    else
        fprintf(out, "%s: native code for %s (%s) not built: %s\n", intent, label,
                objs[tier].compiler, row.why);
    /* the runtimes read the new row */
    fp->generation++;
done:
    fx_api_context_drop(fp, cx);
    free(dir);
    fx_buf_free(&src);
    fx_buf_free(&why);
    fx_buf_free(&hw);
    return status;
}

/* The native rows of a store, audited: each object a row calls "ok" read
 * (never opened) and its MAC checked. A row without a MAC (an older
 * flux's) is not counted: its object is never opened, and is built again. */
typedef struct NativeAudit {
    FluxStore *fs;
    FILE *out;
    size_t rows, bad;
} NativeAudit;

static bool audit_native(void *ctx, const char *key, const char *hw, const void *value,
                         size_t len)
{
    NativeAudit *a = ctx;
    FxNativeObject o = {0};
    Row row;
    (void)hw;
    /* a row of a flux before the MAC has none: never opened, built again */
    if (!parse_row(value, len, &row) || strcmp(row.status, "ok") != 0 || !row.object_mac[0])
        return true;
    char *dir = native_dir(a->fs), why[700];
    snprintf(o.path, sizeof(o.path), "%s/%s.so", dir, key);
    memcpy(o.object_mac, row.object_mac, sizeof(o.object_mac));
    free(dir);
    a->rows++;
    if (fx_native_holds(&o, why, sizeof(why)) == FX_NATIVE_FOREIGN) {
        a->bad++;
        if (a->out)
            fprintf(a->out, "native object %s: %s; it is never opened, and is built again\n",
                    key, why);
    }
    return true;
}

FxStatus fx_api_native_audit(FluxStore *fs, FILE *out, size_t *rows, size_t *bad)
{
    NativeAudit a = {fs, out, 0, 0};
    FxStatus r = fx_store_learned_each(fs->store, KIND, audit_native, &a);
    *rows = a.rows;
    *bad = a.bad;
    return r;
}
