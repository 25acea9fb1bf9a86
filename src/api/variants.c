/*
 * variants.c: which variant of a "recurrence" kernel runs a call, and the
 * cost models that decide it.
 *
 * A version holding several proven variants keeps, in the store, a cost
 * model per variant (opt/cost.h: the complexity class fitted on measured
 * points). Before a run the models of each installed version are loaded;
 * the runtime asks choose() at every call of the kernel. It
 * picks the variant with the smallest predicted time and says why with
 * the predicted gain; one run in EXPLORE_EVERY (its first own call), when the other variant
 * is predicted within EXPLORE_WITHIN of the best, runs the other one
 * instead, so its model keeps being measured (an exploration, recorded as
 * such). The models are first fitted when the power variant is installed,
 * by timing both kernels on a ladder of sizes (fx_api_measure_kernels),
 * and refitted by later rounds on the recorded runs.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_int.h"
#include "exec/linrec.h"

#define EXPLORE_EVERY 16
#define EXPLORE_WITHIN 3.0
#define LADDER_CAP_MS 40.0 /* a ladder stops climbing for a variant past this */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- models as JSON ---- */

static json_t *model_json(const FxCostModel *m)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:i, s:f}", "class", fx_cost_class_name(m->klass), "a",
                     m->a, "b", m->b, "error", m->error, "points", (json_int_t)m->points,
                     "max_size", m->max_size);
}

static bool model_read(json_t *j, FxCostModel *m)
{
    const char *klass;
    double a, b, error = 0, max_size = 0;
    json_int_t points = 0;
    if (!j || json_unpack(j, "{s:s, s:F, s:F, s?F, s?I, s?F}", "class", &klass, "a", &a, "b",
                          &b, "error", &error, "points", &points, "max_size", &max_size) ||
        !fx_cost_class_from_name(klass, &m->klass))
        return false;
    m->a = a;
    m->b = b;
    m->error = error;
    m->points = (uint32_t)points;
    m->max_size = max_size;
    return true;
}

char *fx_api_models_json(const FxVariantModels *vm)
{
    json_t *j = json_object();
    if (vm->has[0])
        json_object_set_new(j, "loop", model_json(&vm->model[0]));
    if (vm->has[1])
        json_object_set_new(j, "power", model_json(&vm->model[1]));
    char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    return s;
}

bool fx_api_models_read(const char *text, FxVariantModels *vm)
{
    memset(vm, 0, sizeof(*vm));
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    if (!j)
        return false;
    vm->has[0] = model_read(json_object_get(j, "loop"), &vm->model[0]);
    vm->has[1] = model_read(json_object_get(j, "power"), &vm->model[1]);
    json_decref(j);
    return vm->has[0] || vm->has[1];
}

/* ---- choosing ---- */

static const FxVariantModels *models_of(FxCallCtx *cx, const FxGraph *g)
{
    fx_vec_foreach(FxVariantModels, m, &cx->models) if (m->graph == g) return m;
    return NULL;
}

/* Per call: the crossover decides; the expression's own call explores the
 * other variant one time in EXPLORE_EVERY when it is predicted close. */
static void choose(void *ctx, const FxGraph *g, uint64_t n, bool top, FxVariantChoice *out)
{
    const FxVariantModels *vm = models_of(ctx, g);
    if (!vm || !vm->has[0] || !vm->has[1])
        return; /* variant 0: the runtime's built-in rule */
    bool power = (double)n >= vm->crossover;
    out->variant = power ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
    FxCallCtx *cx = ctx;
    if (!top)
        return;
    if (!cx->seed) /* each context draws its own sequence */
        cx->seed = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16) ^ (unsigned)(uintptr_t)cx;
    cx->seed = cx->seed * 1103515245u + 12345u;
    /* FLUX_EXPLORE=off never explores (reproducible runs: the tests),
     * =always explores every run's own call when the other is close */
    const char *mode = getenv("FLUX_EXPLORE");
    bool never = mode && !strcmp(mode, "off"), always = mode && !strcmp(mode, "always");
    if (!cx->explored && !never && (always || (cx->seed >> 16) % EXPLORE_EVERY == 0)) {
        cx->explored = true; /* once a run at most */
        double t_best = fx_cost_predict(&vm->model[power], (double)n);
        double t_other = fx_cost_predict(&vm->model[!power], (double)n);
        if (t_other <= EXPLORE_WITHIN * t_best) {
            out->variant = power ? FX_VARIANT_LOOP : FX_VARIANT_POWER;
            out->explore = true;
        }
    }
}

static void explain(void *ctx, FxVariantChoice *c)
{
    const FxVariantModels *vm = models_of(ctx, c->g);
    if (!vm || !vm->has[0] || !vm->has[1])
        return;
    int mine = c->variant == FX_VARIANT_POWER, other = !mine;
    double t[2] = {fx_cost_predict(&vm->model[0], (double)c->n),
                   fx_cost_predict(&vm->model[1], (double)c->n)};
    const char *name[2] = {"loop", "matrix power"};
    c->predicted_gain = t[other] / t[mine];
    if (c->explore)
        snprintf(c->why, sizeof(c->why),
                 "%s explored (one call in %d): n = %llu, predicted %.2gx the time of the %s, "
                 "measured to keep its model true", name[mine], EXPLORE_EVERY,
                 (unsigned long long)c->n, t[mine] / t[other], name[other]);
    else
        snprintf(c->why, sizeof(c->why),
                 "%s chosen: n = %llu %s %.0f, predicted %.3g ms against %.3g ms for the %s "
                 "(%.2gx faster; loop ~ %s, power ~ %s)", name[mine], (unsigned long long)c->n,
                 mine ? ">=" : "<", vm->crossover, t[mine], t[other], name[other],
                 t[other] / t[mine], fx_cost_class_name(vm->model[0].klass),
                 fx_cost_class_name(vm->model[1].klass));
}

/* The least n from which the power is predicted faster (the models cross
 * once: the loop's class grows faster); 2^62 when it never is. */
static double crossover(const FxVariantModels *vm)
{
    double lo = 1, hi = 1;
    while (hi < 0x1p62 && fx_cost_predict(&vm->model[1], hi) >= fx_cost_predict(&vm->model[0], hi))
        hi *= 2;
    if (hi >= 0x1p62)
        return hi;
    lo = hi / 2;
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if (fx_cost_predict(&vm->model[1], mid) < fx_cost_predict(&vm->model[0], mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

void fx_api_models_attach(FxCallCtx *cx, const FxGraph *g, const char *json)
{
    FxVariantModels vm;
    if (!fx_api_models_read(json, &vm))
        return;
    vm.graph = g;
    vm.crossover = vm.has[0] && vm.has[1] ? crossover(&vm) : 0x1p62;
    fx_vec_push(&cx->models, vm);
    FxVariantChooser c = {cx, choose, explain};
    fx_runtime_set_chooser(cx->rt, &c);
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
    double top = fmax(4 * max_size, 1024);
    for (int k = 0; k < 2; k++) {
        uint32_t v = k ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
        FxCostPoint pts[40];
        size_t n = 0;
        for (double size = 16; size <= top && size < 1e8 && n < 40; size *= 2) {
            double ms = fx_api_time_kernel(g, v, (uint64_t)size, LADDER_CAP_MS);
            if (ms < 0)
                break;
            pts[n++] = (FxCostPoint){size, ms};
            if (ms > LADDER_CAP_MS / 2)
                break;
        }
        out->has[k] = fx_cost_fit(pts, n, &out->model[k]);
    }
    return out->has[0] && out->has[1];
}
