/*
 * variants.c: which variant of a recurrence kernel runs a call, and the
 * cost models that decide it.
 *
 * A version holding several proven variants keeps a cost model per
 * variant: the complexity class fitted (opt/cost.h) on the points it keeps,
 * which are a ladder of sizes timed when the version was installed
 * (fx_api_measure_kernels), its recorded runs (merged in by each learning
 * round, fx_api_models_refit) and its demotions (below). The models live in
 * the store per version, variant and hardware fingerprint (the `learned`
 * table, kind "variant_models"); the version's own row keeps the ones
 * fitted at install, for a machine that has none of its own.
 *
 * Choices that cannot run away:
 *  - past the largest measured size, a prediction grows from the model's
 *    value there by its fitted class, kept within the classes the
 *    certificate bounds the variant by: the loop over a recurrence whose
 *    values grow exponentially adds Θ(n)-bit numbers n times (exactly n^2
 *    bit operations), the power multiplies Θ(n)-bit numbers Θ(log n) times,
 *    which costs at least n and at most n^1.6 (Karatsuba's bound, which
 *    GMP's multiplication stays under); over values that do not grow, the
 *    loop is n and the power log n. So a model fitted as constant on small
 *    sizes cannot claim the loop is cheap at n = 10^6, nor noise on small
 *    sizes make the power's growth look quadratic;
 *  - a call measured over DEMOTE_FACTOR times its prediction (plus
 *    DEMOTE_SLACK_MS) demotes its variant at once: the point is kept as a
 *    floor for sizes from its own to DEMOTE_REACH times it (a slow call is
 *    evidence near its size; grown a thousandfold, one scheduling hiccup of
 *    the power at n = 2000 sent fibonacci(10^6) to the loop, seconds where
 *    the power takes milliseconds), the model refitted, and the row
 *    written, so the next call, in this process or another, takes the
 *    other variant; a later call of the same variant at least as large that
 *    runs well within the demotion lifts it;
 *  - exploration (one run in EXPLORE_EVERY measures the variant predicted
 *    slower) is bounded by its predicted regret: only when the other
 *    variant is predicted within EXPLORE_WITHIN times the best and at most
 *    EXPLORE_MAX_MS more.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_int.h"
#include "exec/linrec.h"
#include "hw/hw.h"

#define EXPLORE_EVERY 16
#define EXPLORE_WITHIN 2.0
#define EXPLORE_MAX_MS 5.0 /* the most an exploration may be predicted to cost */
#define DEMOTE_FACTOR 2.0
#define DEMOTE_SLACK_MS 0.5
#define DEMOTE_REACH 4.0 /* a demotion floors the sizes up to this many times its own */
#define LADDER_CAP_MS 40.0 /* a ladder stops climbing for a variant past this */
#define MODELS_KIND "variant_models"

static const char *const variant_name[2] = {"loop", "power"};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- the certificate's floor classes ---- */

/* Do g's values grow exponentially (f(512) with clearly more bits than
 * f(256), and many)? Then each step of the loop adds Θ(n)-bit numbers. */
static bool values_grow(const FxGraph *g)
{
    FxLinRecSpec spec;
    if (!g->rec.order || !fx_linrec_init(&spec, g->rec.order, g->rec.coeffs, g->rec.initial))
        return true; /* unknown: the steeper floors */
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    bool grow = fx_linrec_loop(&spec, 256, a, NULL, NULL) &&
                fx_linrec_loop(&spec, 512, b, NULL, NULL) &&
                mpz_sizeinbase(b, 2) > 128 &&
                (double)mpz_sizeinbase(b, 2) >= 1.5 * (double)mpz_sizeinbase(a, 2);
    mpz_clears(a, b, NULL);
    fx_linrec_clear(&spec);
    return grow;
}

static void set_floors(FxVariantModels *vm, const FxGraph *g)
{
    bool grow = g ? values_grow(g) : true;
    vm->v[0].floor = vm->v[0].ceiling = grow ? FX_COST_SQUARE : FX_COST_LINEAR;
    vm->v[1].floor = grow ? FX_COST_LINEAR : FX_COST_LOG;
    vm->v[1].ceiling = grow ? FX_COST_N1_6 : FX_COST_LOG;
}

/* ---- models as JSON ---- */

static json_t *model_json(const FxVariantModel *m)
{
    json_t *pts = json_array();
    for (uint32_t i = 0; i < m->n_pts; i++)
        json_array_append_new(pts, json_pack("[f, f, s]", m->pts[i].size, m->pts[i].ms,
                                             m->pts[i].demoted ? "run, demoted"
                                             : m->pts[i].run   ? "run"
                                                               : "ladder"));
    return json_pack("{s:s, s:f, s:f, s:f, s:i, s:f, s:s, s:s, s:o}", "class",
                     fx_cost_class_name(m->fit.klass), "a", m->fit.a, "b", m->fit.b, "error",
                     m->fit.error, "points", (json_int_t)m->fit.points, "max_size",
                     m->fit.max_size, "floor", fx_cost_class_name(m->floor), "ceiling",
                     fx_cost_class_name(m->ceiling), "fitted_on", pts);
}

static bool model_read(json_t *j, FxVariantModel *m)
{
    const char *klass;
    double a, b, error = 0, max_size = 0;
    json_int_t points = 0;
    if (!j || json_unpack(j, "{s:s, s:F, s:F, s?F, s?I, s?F}", "class", &klass, "a", &a, "b",
                          &b, "error", &error, "points", &points, "max_size", &max_size) ||
        !fx_cost_class_from_name(klass, &m->fit.klass) || !isfinite(a) || !isfinite(b))
        return false;
    m->fit.a = a;
    m->fit.b = b;
    m->fit.error = error;
    m->fit.points = (uint32_t)points;
    m->fit.max_size = max_size;
    m->n_pts = 0;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(j, "fitted_on"), i, p)
    {
        double size = json_number_value(json_array_get(p, 0));
        double ms = json_number_value(json_array_get(p, 1));
        if (m->n_pts < FX_MODEL_POINTS && size > 0 && ms >= 0 && isfinite(size) && isfinite(ms))
        {
            const char *from = json_string_value(json_array_get(p, 2));
            m->pts[m->n_pts++] = (FxModelPoint){size, ms, from && strstr(from, "demoted"),
                                                from && strstr(from, "run")};
        }
    }
    return m->has = true;
}

char *fx_api_models_json(const FxVariantModels *vm)
{
    json_t *j = json_object();
    for (int k = 0; k < 2; k++)
        if (vm->v[k].has)
            json_object_set_new(j, variant_name[k], model_json(&vm->v[k]));
    if (vm->merged_through)
        json_object_set_new(j, "merged_through", json_integer(vm->merged_through));
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    return s;
}

static void forget_buckets(FxVariantModels *vm)
{
    memset(vm->bucket, -1, sizeof(vm->bucket));
}

bool fx_api_models_read(const char *text, const FxGraph *g, FxVariantModels *vm)
{
    memset(vm, 0, sizeof(*vm));
    forget_buckets(vm);
    set_floors(vm, g);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    if (!j)
        return false;
    for (int k = 0; k < 2; k++)
        model_read(json_object_get(j, variant_name[k]), &vm->v[k]);
    json_t *m = json_object_get(j, "merged_through");
    vm->merged_through = json_is_integer(m) ? json_integer_value(m) : 0;
    json_decref(j);
    return vm->v[0].has || vm->v[1].has;
}

/* ---- predicting ---- */

/* t at size `from`, scaled to size n by the growth of class k. */
static double scale(FxCostClass k, double t, double from, double n)
{
    return t * fx_cost_shape(k, n) / fx_cost_shape(k, from);
}

double fx_api_models_predict(const FxVariantModels *vm, int k, double n)
{
    const FxVariantModel *m = &vm->v[k];
    double t, max = m->fit.max_size;
    if (n <= max || max <= 0) {
        t = fx_cost_predict(&m->fit, n);
    } else { /* past the points: grown by the fitted class, within the certificate's */
        FxCostClass c = m->fit.klass < m->floor     ? m->floor
                        : m->fit.klass > m->ceiling ? m->ceiling
                                                    : m->fit.klass;
        t = scale(c, fx_cost_predict(&m->fit, max), max, n);
    }
    for (uint32_t i = 0; i < m->n_pts; i++)
        if (m->pts[i].demoted && m->pts[i].size <= n && n <= DEMOTE_REACH * m->pts[i].size)
            t = fmax(t, scale(m->floor, m->pts[i].ms, m->pts[i].size, n));
    return t;
}

/* ---- choosing ---- */

static FxVariantModels *models_of(FxCallCtx *cx, const FxGraph *g)
{
    fx_vec_foreach(FxVariantModels, m, &cx->models) if (m->graph == g) return m;
    return NULL;
}

static int faster_at(const FxVariantModels *vm, double n)
{
    return fx_api_models_predict(vm, 1, n) < fx_api_models_predict(vm, 0, n);
}

/* The variant predicted faster at n: per bit length of n, cached when the
 * same variant wins at both ends of the range and no demotion lies inside
 * it (the models are smooth between; a demotion is a step). */
static int fastest(FxVariantModels *vm, uint64_t n)
{
    int b = n ? 64 - __builtin_clzll(n) : 0;
    if (vm->bucket[b] >= 0)
        return vm->bucket[b];
    int w = faster_at(vm, (double)n);
    if (vm->bucket[b] == -1) {
        double lo = b ? ldexp(1, b - 1) : 0, hi = b ? ldexp(1, b) - 1 : 0;
        bool step = false;
        for (int k = 0; k < 2; k++)
            for (uint32_t i = 0; i < vm->v[k].n_pts; i++)
                step |= vm->v[k].pts[i].demoted &&
                        ((vm->v[k].pts[i].size > lo && vm->v[k].pts[i].size <= hi) ||
                         (DEMOTE_REACH * vm->v[k].pts[i].size >= lo &&
                          DEMOTE_REACH * vm->v[k].pts[i].size < hi)); /* its reach ends inside */
        vm->bucket[b] = !step && faster_at(vm, lo) == faster_at(vm, hi) ? (int8_t)faster_at(vm, lo)
                                                                        : -2;
    }
    return w;
}

/* FLUX_EXPLORE's answer (explore_mode: 0 unset, 1 "off", 2 "always"), read
 * once a run (getenv walks the environment; a loop's calls choose each). */
static int explore_mode(FxCallCtx *cx)
{
    if (!cx->explore_read) {
        const char *m = getenv("FLUX_EXPLORE");
        cx->explore_mode = m && !strcmp(m, "off") ? 1 : m && !strcmp(m, "always") ? 2 : 0;
        cx->explore_read = true;
    }
    return cx->explore_mode;
}

/* Per call: the models decide; the expression's own call explores the
 * other variant one run in EXPLORE_EVERY when its predicted regret is small. */
static void choose(void *ctx, const FxGraph *g, uint64_t n, bool top, FxVariantChoice *out)
{
    FxCallCtx *cx = ctx;
    FxVariantModels *vm = models_of(cx, g);
    if (!vm || !vm->v[0].has || !vm->v[1].has)
        return; /* variant 0: the runtime's built-in rule */
    int best = fastest(vm, n);
    out->variant = best ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
    if (!top)
        return;
    if (!cx->seed) /* each context draws its own sequence */
        cx->seed = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16) ^ (unsigned)(uintptr_t)cx;
    cx->seed = cx->seed * 1103515245u + 12345u;
    /* FLUX_EXPLORE=off never explores (reproducible runs: the tests),
     * =always explores every run's own call when the regret is small;
     * read once a run, not at each of a loop's calls */
    if (!cx->explored && explore_mode(cx) != 1 &&
        (explore_mode(cx) == 2 || (cx->seed >> 16) % EXPLORE_EVERY == 0)) {
        cx->explored = true; /* once a run at most */
        double t_best = fx_api_models_predict(vm, best, (double)n);
        double t_other = fx_api_models_predict(vm, !best, (double)n);
        if (t_other <= EXPLORE_WITHIN * t_best && t_other - t_best <= EXPLORE_MAX_MS) {
            out->variant = best ? FX_VARIANT_LOOP : FX_VARIANT_POWER;
            out->explore = true;
        }
    }
}

/* "loop ~ n^2, fitted on 9 points up to n = 4096, past them n^2..n^2" */
static void model_words(const FxVariantModel *m, const char *name, char *buf, size_t len)
{
    uint32_t demoted = 0;
    for (uint32_t i = 0; i < m->n_pts; i++)
        demoted += m->pts[i].demoted;
    int w = snprintf(buf, len, "%s ~ %s, fitted on %u points up to n = %.0f, past them %s..%s",
                     name, fx_cost_class_name(m->fit.klass), m->fit.points, m->fit.max_size,
                     fx_cost_class_name(m->floor), fx_cost_class_name(m->ceiling));
    if (demoted && w > 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, ", %u demotion%s", demoted, demoted == 1 ? "" : "s");
}

static void explain(void *ctx, FxVariantChoice *c)
{
    const FxVariantModels *vm = models_of(ctx, c->g);
    if (!vm || !vm->v[0].has || !vm->v[1].has)
        return;
    int mine = c->variant == FX_VARIANT_POWER, other = !mine;
    double t[2] = {fx_api_models_predict(vm, 0, (double)c->n),
                   fx_api_models_predict(vm, 1, (double)c->n)};
    const char *name[2] = {"loop", "matrix power"};
    char words[2][120];
    model_words(&vm->v[0], "loop", words[0], sizeof(words[0]));
    model_words(&vm->v[1], "power", words[1], sizeof(words[1]));
    c->predicted_gain = t[other] / t[mine];
    if (c->explore)
        snprintf(c->why, sizeof(c->why),
                 "%s explored (one run in %d, predicted regret small): n = %llu, predicted %.3g "
                 "ms against %.3g ms for the %s, measured to keep its model true", name[mine],
                 EXPLORE_EVERY, (unsigned long long)c->n, t[mine], t[other], name[other]);
    else
        snprintf(c->why, sizeof(c->why),
                 "%s chosen: n = %llu, predicted %.3g ms against %.3g ms for the %s (%.2gx "
                 "faster; %s; %s)", name[mine], (unsigned long long)c->n, t[mine], t[other],
                 name[other], t[other] / t[mine], words[0], words[1]);
}

char *fx_api_models_points(FxCallCtx *cx, const FxGraph *g, int k)
{
    const FxVariantModels *vm = models_of(cx, g);
    if (!vm || !vm->v[k].has)
        return NULL;
    const FxVariantModel *m = &vm->v[k];
    FxBuf b = {0};
    fx_buf_printf(&b, "%s model: %s (a = %.3g, b = %.3g, error %.0f%%) on %u points:",
                  variant_name[k], fx_cost_class_name(m->fit.klass), m->fit.a, m->fit.b,
                  100 * m->fit.error, m->n_pts);
    for (uint32_t i = 0; i < m->n_pts; i++)
        fx_buf_printf(&b, "%s n = %.0f: %.3g ms (%s)", i ? "," : "", m->pts[i].size,
                      m->pts[i].ms, m->pts[i].demoted ? "run, demoted"
                                    : m->pts[i].run   ? "run"
                                                      : "ladder");
    return fx_buf_take(&b);
}

void fx_api_models_attach(FxCallCtx *cx, const FxGraph *g, int64_t version, const char *json)
{
    FxVariantModels vm;
    if (!fx_api_models_read(json, g, &vm))
        return;
    vm.graph = g;
    vm.version = version;
    fx_vec_push(&cx->models, vm);
    FxVariantChooser c = {cx, choose, explain};
    fx_runtime_set_chooser(cx->rt, &c);
}

/* ---- keeping the models ---- */

static void hardware_of(FxBuf *out)
{
    FxHardware hw = fx_hw_detect();
    fx_hw_fingerprint(&hw, out);
}

char *fx_api_models_load(FluxStore *fs, int64_t version, const FxGraph *g)
{
    char key[32], *json = NULL;
    snprintf(key, sizeof(key), "%lld", (long long)version);
    FxBuf hw = {0};
    hardware_of(&hw);
    if (fx_store_learned(fs->store, MODELS_KIND, key, fx_buf_str(&hw), &json, NULL) != FX_OK) {
        free(json);
        json = NULL;
    }
    fx_buf_free(&hw);
    FxVariantModels vm;
    if (json && fx_api_models_read(json, NULL, &vm))
        return json;
    if (json) /* a row that does not read: the version's own models */
        fprintf(stderr, "flux: warning: the cost models of version %s of `%s` kept for this "
                        "machine do not parse; they are ignored\n", g->version, g->intent);
    free(json);
    json = NULL;
    if (fx_store_model(fs->store, version, &json) != FX_OK) {
        free(json);
        json = NULL;
    }
    if (json && !fx_api_models_read(json, NULL, &vm)) { /* the chooser's defaults then */
        fprintf(stderr, "flux: warning: the cost model of version %s of `%s` does not parse; "
                        "it is ignored\n", g->version, g->intent);
        free(json);
        json = NULL;
    }
    return json;
}

/* A models row as it is when it reads, else null. */
static void put_models(FILE *out, const char *json)
{
    FxVariantModels vm;
    fputs(json && fx_api_models_read(json, NULL, &vm) ? json : "null", out);
}

int flux_cost_models(FluxStore *fs, FluxProgram *fp, const char *intent, const char *version,
                     FILE *out, FILE *diagnostics)
{
    FxTrusted t;
    int status = fx_api_find_version(fs, fp, intent, version, &t, diagnostics);
    if (status != FLUX_OK)
        return status;
    char key[32], *here = NULL, *installed = NULL;
    snprintf(key, sizeof(key), "%lld", (long long)t.id);
    FxBuf hw = {0};
    hardware_of(&hw);
    FxStatus st = fx_store_learned(fs->store, MODELS_KIND, key, fx_buf_str(&hw), &here, NULL);
    if (st == FX_OK)
        st = fx_store_model(fs->store, t.id, &installed);
    if (st == FX_OK) {
        fprintf(out, "{\"intent\": \"%s\", \"version\": \"%s\", \"here\": ", intent, t.label);
        put_models(out, here);
        fputs(", \"at_install\": ", out);
        put_models(out, installed);
        fputs("}\n", out);
    } else if (diagnostics) {
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
    }
    free(here);
    free(installed);
    fx_buf_free(&hw);
    fx_trusted_free(&t);
    return st == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
}

static FxStatus models_keep(FluxStore *fs, const FxVariantModels *vm)
{
    char key[32];
    snprintf(key, sizeof(key), "%lld", (long long)vm->version);
    FxBuf hw = {0};
    hardware_of(&hw);
    char *json = fx_api_models_json(vm);
    FxStatus s = fx_store_set_learned(fs->store, MODELS_KIND, key, fx_buf_str(&hw), json,
                                      strlen(json));
    free(json);
    fx_buf_free(&hw);
    return s;
}

/* Adds a point to m, dropping, when full, the oldest undemoted point of
 * the most crowded bit length: the models keep their range. */
static void add_point(FxVariantModel *m, FxModelPoint p)
{
    if (m->n_pts == FX_MODEL_POINTS) {
        int count[65] = {0}, crowded = 0;
        for (uint32_t i = 0; i < m->n_pts; i++)
            count[(int)fmin(64, log2(m->pts[i].size + 1))]++;
        for (int b = 1; b < 65; b++)
            if (count[b] > count[crowded])
                crowded = b;
        uint32_t drop = 0;
        for (uint32_t i = 0; i < m->n_pts; i++)
            if ((int)fmin(64, log2(m->pts[i].size + 1)) == crowded && !m->pts[i].demoted) {
                drop = i;
                break;
            }
        memmove(&m->pts[drop], &m->pts[drop + 1], (m->n_pts - drop - 1) * sizeof(FxModelPoint));
        m->n_pts--;
    }
    m->pts[m->n_pts++] = p;
}

/* The ladder's points at sizes the runs reach: a ladder times a warm
 * kernel many times, a run times it once in its process, so mixing both
 * at the same sizes would fit the difference, not the growth. */
static void drop_covered_ladder(FxVariantModel *m)
{
    double reach = 0;
    uint32_t runs = 0, kept = 0;
    for (uint32_t i = 0; i < m->n_pts; i++)
        if (m->pts[i].run) {
            reach = fmax(reach, m->pts[i].size);
            runs++;
        }
    if (runs < 4)
        return;
    for (uint32_t i = 0; i < m->n_pts; i++)
        if (m->pts[i].run || m->pts[i].size > reach)
            m->pts[kept++] = m->pts[i];
    m->n_pts = kept;
}

static bool refit(FxVariantModel *m)
{
    FxCostPoint pts[FX_MODEL_POINTS];
    for (uint32_t i = 0; i < m->n_pts; i++)
        pts[i] = (FxCostPoint){m->pts[i].size, m->pts[i].ms};
    FxCostModel fit;
    if (!fx_cost_fit_upto(pts, m->n_pts, m->ceiling, &fit))
        return false;
    m->fit = fit;
    return m->has = true;
}

FxStatus fx_api_models_refit(FluxStore *fs, int64_t version, const FxGraph *g,
                             const FxTraces *tr, FILE *out)
{
    char *json = fx_api_models_load(fs, version, g);
    FxVariantModels vm;
    bool have = fx_api_models_read(json, g, &vm);
    free(json);
    if (!have)
        return FX_OK;
    vm.version = version;
    bool changed = false;
    int64_t newest = vm.merged_through;
    for (size_t i = tr->v.len; i-- > 0;) { /* oldest first */
        const FxTrace *t = &tr->v.data[i];
        /* the kernel's own time, as the ladder measured it: the run's
         * would add the expression's overhead to one variant's points */
        if (t->id <= vm.merged_through || strcmp(t->version, g->version) || t->kernel_ms < 0 ||
            (t->variant != FX_VARIANT_LOOP && t->variant != FX_VARIANT_POWER))
            continue;
        add_point(&vm.v[t->variant == FX_VARIANT_POWER],
                  (FxModelPoint){t->size, t->kernel_ms, false, true});
        newest = t->id > newest ? t->id : newest;
        changed = true;
    }
    if (!changed)
        return FX_OK;
    vm.merged_through = newest;
    for (int k = 0; k < 2; k++)
        drop_covered_ladder(&vm.v[k]);
    for (int k = 0; k < 2; k++)
        refit(&vm.v[k]);
    FxStatus s = models_keep(fs, &vm);
    if (s == FX_OK && out) {
        char words[2][120];
        model_words(&vm.v[0], "loop", words[0], sizeof(words[0]));
        model_words(&vm.v[1], "power", words[1], sizeof(words[1]));
        fprintf(out, "%s: %s's cost models refitted on its runs: %s; %s\n", g->intent,
                g->version, words[0], words[1]);
    }
    return s;
}

void fx_api_models_observe(FxCallCtx *cx)
{
    const FxVariantChoice *c = fx_runtime_top_choice(cx->rt);
    FxVariantModels *vm = c ? models_of(cx, c->g) : NULL;
    if (!vm || !vm->v[0].has || !vm->v[1].has || c->ms <= 0)
        return;
    int k = c->variant == FX_VARIANT_POWER;
    FxVariantModel *m = &vm->v[k];
    double n = (double)c->n, predicted = fx_api_models_predict(vm, k, n);
    bool changed = false;
    if (c->ms > DEMOTE_FACTOR * predicted + DEMOTE_SLACK_MS) {
        add_point(m, (FxModelPoint){n, c->ms, true, true});
        refit(m);
        changed = true;
    } else {
        /* a demotion this call ran well within (at its size or above) was noise,
         * or the machine has changed: lifted */
        for (uint32_t i = 0; i < m->n_pts; i++)
            if (m->pts[i].demoted && m->pts[i].size <= n &&
                c->ms * DEMOTE_FACTOR < scale(m->floor, m->pts[i].ms, m->pts[i].size, n)) {
                m->pts[i].demoted = false;
                changed = true;
            }
    }
    if (!changed)
        return;
    forget_buckets(vm);
    FluxProgram *fp = cx->fp;
    pthread_mutex_lock(&fp->lock);
    char *json = fx_api_models_json(vm);
    fx_vec_foreach(FxInstalled, v, &fp->installed) if (v->version == vm->version)
    {
        free(v->models_json); /* the contexts made later start from it */
        v->models_json = fx_xstrdup(json);
    }
    free(json);
    if (fp->store && vm->version) {
        pthread_mutex_lock(&fp->store->lock);
        (void)models_keep(fp->store, vm); /* lost, it is found again by the next slow call */
        pthread_mutex_unlock(&fp->store->lock);
    }
    pthread_mutex_unlock(&fp->lock);
}

/* ---- measuring ---- */

typedef struct Deadline {
    double until;
} Deadline;

static bool before_deadline(void *ctx)
{
    return now_ms() < ((Deadline *)ctx)->until;
}

double fx_api_time_kernel(const FxGraph *g, uint32_t variant, uint64_t n, double cap_ms)
{
    FxLinRecSpec spec;
    if (!fx_linrec_init(&spec, g->rec.order, g->rec.coeffs, g->rec.initial))
        return -1;
    mpz_t z;
    mpz_init(z);
    double best = -1, spent = 0;
    for (int rep = 0; rep < 64 && spent < 3 * cap_ms / 4 + 1; rep++) {
        Deadline d = {now_ms() + cap_ms};
        double t0 = now_ms();
        bool done = variant == FX_VARIANT_POWER
                            ? fx_linrec_power(&spec, n, z, before_deadline, &d)
                            : fx_linrec_loop(&spec, n, z, before_deadline, &d);
        double t = now_ms() - t0;
        spent += t;
        if (!done) {
            best = -1;
            break;
        }
        if (best < 0 || t < best)
            best = t;
        if (spent > 5)
            break;
    }
    mpz_clear(z);
    fx_linrec_clear(&spec);
    return best;
}

bool fx_api_measure_kernels(const FxGraph *g, double max_size, FxVariantModels *out)
{
    memset(out, 0, sizeof(*out));
    forget_buckets(out);
    set_floors(out, g);
    double top = fmax(4 * max_size, 1024);
    for (int k = 0; k < 2; k++) {
        uint32_t v = k ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
        for (double size = 16; size <= top && size < 1e8 && out->v[k].n_pts < 40; size *= 2) {
            double ms = fx_api_time_kernel(g, v, (uint64_t)size, LADDER_CAP_MS);
            if (ms < 0)
                break;
            out->v[k].pts[out->v[k].n_pts++] = (FxModelPoint){size, ms, false, false};
            if (ms > LADDER_CAP_MS / 2)
                break;
        }
        refit(&out->v[k]);
    }
    return out->v[0].has && out->v[1].has;
}
