/*
 * variants.c: which variant of a "recurrence" kernel runs a call, and the
 * cost models that decide it.
 *
 * A version holding several proven variants keeps, in the store, a cost
 * model per variant (opt/cost.h: the complexity class fitted on measured
 * points). Before a run the models of each installed version are loaded;
 * the runtime asks fx_api_choose_variant at every call of the kernel. It
 * picks the variant with the smallest predicted time and says why with
 * the predicted gain; one top call in EXPLORE_EVERY, when the other variant
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

static const char *variant_words(uint32_t v)
{
    return v == FX_VARIANT_POWER ? "matrix power" : "loop";
}

void fx_api_choose_variant(void *ctx, const FxGraph *g, uint64_t n, bool top,
                           FxVariantChoice *out)
{
    FluxProgram *fp = ctx;
    const FxVariantModels *vm = NULL;
    fx_vec_foreach(FxVariantModels, m, &fp->models) if (m->graph == g) vm = m;
    out->variant = 0; /* the runtime's built-in rule, unless a model decides */
    if (g->variants != (FX_VARIANT_LOOP | FX_VARIANT_POWER) || !vm || !vm->has[0] || !vm->has[1])
        return;
    double t[2] = {fx_cost_predict(&vm->model[0], (double)n),
                   fx_cost_predict(&vm->model[1], (double)n)};
    int best = t[1] < t[0] ? 1 : 0, other = 1 - best;
    uint32_t vbest = best ? FX_VARIANT_POWER : FX_VARIANT_LOOP;
    uint32_t vother = best ? FX_VARIANT_LOOP : FX_VARIANT_POWER;
    static unsigned seed;
    if (!seed)
        seed = (unsigned)time(NULL) ^ ((unsigned)getpid() << 16);
    seed = seed * 1103515245u + 12345u;
    if (top && (seed >> 16) % EXPLORE_EVERY == 0 && t[other] <= EXPLORE_WITHIN * t[best]) {
        out->variant = vother;
        out->explore = true;
        out->predicted_gain = t[best] / t[other];
        snprintf(out->why, sizeof(out->why),
                 "%s explored (one call in %d): n = %llu, predicted %.2gx the time of the %s, "
                 "measured to keep its model true", variant_words(vother), EXPLORE_EVERY,
                 (unsigned long long)n, t[other] / t[best], variant_words(vbest));
        return;
    }
    out->variant = vbest;
    out->predicted_gain = t[other] / t[best];
    snprintf(out->why, sizeof(out->why),
             "%s chosen: n = %llu, predicted %.3g ms against %.3g ms for the %s (%.2gx faster; "
             "loop ~ %s, power ~ %s)", variant_words(vbest), (unsigned long long)n, t[best],
             t[other], variant_words(vother), t[other] / t[best],
             fx_cost_class_name(vm->model[0].klass), fx_cost_class_name(vm->model[1].klass));
}

void fx_api_models_attach(FluxProgram *fp, const FxGraph *g, const char *json)
{
    FxVariantModels vm;
    if (!fx_api_models_read(json, &vm))
        return;
    vm.graph = g;
    fx_vec_push(&fp->models, vm);
    fx_runtime_set_chooser(fx_api_runtime(fp), fx_api_choose_variant, fp);
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
