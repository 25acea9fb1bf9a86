/*
 * rule_recurrence.c: see rule_recurrence.h.
 */
#include "rule_recurrence.h"

#include <stdlib.h>
#include <string.h>

#include "rule.h"

#define EXTRA_ROWS 6   /* equations beyond the unknowns, to pin the solution down */
#define CHECK_ROWS 12  /* further values the solution must also satisfy */

/* The constant d of `param0 - d`, or 0 when node id is not of that form. */
static uint32_t offset_of(const FxGraph *g, FxNodeId id)
{
    const FxNode *n = fx_graph_node(g, id);
    if (n->op != FX_NODE_SUB || n->n_inputs != 2)
        return 0;
    const FxNode *a = fx_graph_node(g, n->inputs[0]), *b = fx_graph_node(g, n->inputs[1]);
    if (a->op != FX_NODE_PARAM || a->num != 0 || b->op != FX_NODE_CONST || !fx_typeid_is_integer(b->tid))
        return 0;
    char *end;
    long d = strtol(b->text, &end, 10);
    return *end == '\0' && d >= 1 && d <= FX_RECURRENCE_MAX_ORDER ? (uint32_t)d : 0;
}

bool fx_rule_recurrence_shape(const FxGraph *g, uint32_t *offsets, const char **why)
{
    *offsets = 0;
    if (g->kernel && !strcmp(g->kernel, "recurrence")) {
        *why = "this version already computes the recurrence directly";
        return false;
    }
    if (g->n_params != 1 || fx_typeid_kind(g->param_tids[0]) != FX_TK_NATURAL ||
        !fx_typeid_is_integer(g->ret_tid)) {
        *why = "the intent is not an integer function of one Natural";
        return false;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const FxNode *n = &g->nodes[i];
        if (n->op != FX_NODE_CALL || strcmp(n->text, g->intent))
            continue;
        uint32_t d = n->n_inputs == 1 ? offset_of(g, n->inputs[0]) : 0;
        if (!d) {
            *why = "a call of itself does not take n minus a constant";
            return false;
        }
        *offsets |= 1u << (d - 1);
    }
    if (!*offsets) {
        *why = "the intent does not call itself";
        return false;
    }
    return true;
}

/* Solves rows x cols+1 augmented system m exactly (Gauss-Jordan over the
 * rationals); free unknowns are 0. False when inconsistent. */
static bool solve(mpq_t *m, uint32_t rows, uint32_t cols, mpq_t *x)
{
    uint32_t w = cols + 1, r = 0;
    int pivot_row[FX_RECURRENCE_MAX_ORDER];
    mpq_t t;
    mpq_init(t);
    for (uint32_t c = 0; c < cols; c++) {
        pivot_row[c] = -1;
        uint32_t p = r;
        while (p < rows && mpq_sgn(m[p * w + c]) == 0)
            p++;
        if (p == rows)
            continue;
        for (uint32_t j = 0; j < w; j++)
            mpq_swap(m[p * w + j], m[r * w + j]);
        for (uint32_t i = 0; i < rows; i++) {
            if (i == r || mpq_sgn(m[i * w + c]) == 0)
                continue;
            mpq_div(t, m[i * w + c], m[r * w + c]);
            for (uint32_t j = c; j < w; j++) {
                mpq_t u;
                mpq_init(u);
                mpq_mul(u, t, m[r * w + j]);
                mpq_sub(m[i * w + j], m[i * w + j], u);
                mpq_clear(u);
            }
        }
        pivot_row[c] = (int)r++;
    }
    bool ok = true;
    for (uint32_t i = r; i < rows; i++) /* 0 = b left over: inconsistent */
        if (mpq_sgn(m[i * w + cols]) != 0)
            ok = false;
    for (uint32_t c = 0; ok && c < cols; c++) {
        if (pivot_row[c] < 0)
            mpq_set_ui(x[c], 0, 1);
        else
            mpq_div(x[c], m[(uint32_t)pivot_row[c] * w + cols], m[(uint32_t)pivot_row[c] * w + c]);
    }
    mpq_clear(t);
    return ok;
}

/* Do the values f[0..n_values) satisfy the recurrence with these
 * coefficients from k on? */
static bool holds(const mpz_t *f, uint32_t n_values, uint32_t k, const int64_t *c)
{
    mpz_t s;
    mpz_init(s);
    bool ok = true;
    for (uint32_t n = k; ok && n < n_values; n++) {
        mpz_set_ui(s, 0);
        for (uint32_t j = 1; j <= k; j++) {
            if (c[j - 1] >= 0)
                mpz_addmul_ui(s, f[n - j], (unsigned long)c[j - 1]);
            else
                mpz_submul_ui(s, f[n - j], (unsigned long)-c[j - 1]);
        }
        ok = mpz_cmp(s, f[n]) == 0;
    }
    mpz_clear(s);
    return ok;
}

/* Tries order k: solves for the coefficients at the offsets from the
 * values f, checks them on every value. */
static bool try_order(const mpz_t *f, uint32_t n_values, uint32_t k, uint32_t offsets,
                      int64_t *coeffs)
{
    uint32_t ds[FX_RECURRENCE_MAX_ORDER], u = 0;
    for (uint32_t d = 1; d <= k; d++)
        if (offsets & (1u << (d - 1)))
            ds[u++] = d;
    uint32_t rows = u + EXTRA_ROWS, w = u + 1;
    if (k + rows > n_values)
        return false;
    mpq_t *m = malloc(sizeof(mpq_t) * rows * w), x[FX_RECURRENCE_MAX_ORDER];
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < u; j++) {
            mpq_init(m[i * w + j]);
            mpq_set_z(m[i * w + j], f[k + i - ds[j]]);
        }
        mpq_init(m[i * w + u]);
        mpq_set_z(m[i * w + u], f[k + i]);
    }
    for (uint32_t j = 0; j < u; j++)
        mpq_init(x[j]);
    bool ok = solve(m, rows, u, x);
    memset(coeffs, 0, sizeof(int64_t) * FX_RECURRENCE_MAX_ORDER);
    for (uint32_t j = 0; ok && j < u; j++) {
        ok = mpz_cmp_ui(mpq_denref(x[j]), 1) == 0 && mpz_fits_slong_p(mpq_numref(x[j])) &&
             mpz_cmpabs_ui(mpq_numref(x[j]), 1ul << 62) < 0;
        if (ok)
            coeffs[ds[j] - 1] = mpz_get_si(mpq_numref(x[j]));
    }
    ok = ok && holds(f, n_values, k, coeffs);
    for (uint32_t j = 0; j < u; j++)
        mpq_clear(x[j]);
    for (uint32_t i = 0; i < rows * w; i++)
        mpq_clear(m[i]);
    free(m);
    return ok;
}

bool fx_rule_recurrence_find(uint32_t offsets, FxValueAt at, void *ctx, FxRecurrence *out,
                             const char **why)
{
    uint32_t largest = 32 - (uint32_t)__builtin_clz(offsets); /* the largest offset */
    uint32_t n_values = FX_RECURRENCE_MAX_ORDER + FX_RECURRENCE_MAX_ORDER + EXTRA_ROWS + CHECK_ROWS;
    mpz_t f[FX_RECURRENCE_MAX_ORDER * 2 + EXTRA_ROWS + CHECK_ROWS];
    uint32_t have = 0;
    bool found = false;
    memset(out, 0, sizeof(*out));
    *why = "its first values follow no linear recurrence with integer coefficients at those "
           "offsets";
    for (; have < n_values; have++) {
        mpz_init(f[have]);
        if (!at(ctx, have, f[have])) {
            *why = "its first values could not be computed within the budget";
            mpz_clear(f[have]);
            break;
        }
    }
    for (uint32_t k = largest; !found && k <= FX_RECURRENCE_MAX_ORDER; k++) {
        uint32_t checked = k + (uint32_t)__builtin_popcount(offsets) + EXTRA_ROWS + CHECK_ROWS;
        if (checked <= have && try_order(f, checked, k, offsets, out->coeffs)) {
            found = true;
            out->order = k;
            for (uint32_t i = 0; i < k; i++)
                out->initial[i] = mpz_get_str(NULL, 10, f[i]);
        }
    }
    for (uint32_t i = 0; i < have; i++)
        mpz_clear(f[i]);
    return found;
}

void fx_rule_recurrence_clear(FxRecurrence *r)
{
    for (uint32_t i = 0; i < r->order; i++)
        free((char *)r->initial[i]);
    memset(r, 0, sizeof(*r));
}

FxGraph *fx_rule_recurrence_candidate(const FxGraph *g, const FxRecurrence *r, uint32_t variants,
                                      const char *label)
{
    FxGraph *c = fx_graph_copy_as(g, g->intent, label);
    fx_graph_set_recurrence(c, r, variants);
    return c;
}

/* ---- the rules (rule.h): recursion to iteration, matrix power ---- */

static void certificate_json(const FxGraph *g, FxBuf *out)
{
    FxBuf line = {0};
    fx_graph_print_recurrence(g, &line);
    char *s = fx_buf_take(&line);
    fx_rule_json_string(s + 2, out); /* without the indent */
    free(s);
}

/* The prover checks the candidate's certificate against the equations. */
static FxProof *prove_certificate(const FxGraph *current, const FxGraph *cand)
{
    FxLinRec cert = {cand->rec.order, cand->rec.coeffs, cand->rec.initial, cand->variants};
    return fx_prove_linear_recurrence(current, &cert, NULL, NULL, 5000);
}

static bool iteration_applies(FxRuleRun *r, FxBuf *why)
{
    uint32_t *offsets = r->state = fx_xcalloc(1, sizeof(*offsets));
    const char *w;
    if (!fx_rule_recurrence_shape(r->current, offsets, &w)) {
        fx_buf_puts(why, w);
        return false;
    }
    return true;
}

/* The certificate is found from the running version's first values. */
static FxGraph *iteration_candidate(FxRuleRun *r, FxBuf *why)
{
    FxRecurrence rec;
    const char *w;
    if (!fx_rule_recurrence_find(*(uint32_t *)r->state, r->host->value_at, r->host->ctx, &rec,
                                 &w)) {
        fx_buf_puts(why, w);
        return NULL;
    }
    FxGraph *cand = fx_rule_recurrence_candidate(r->current, &rec, FX_VARIANT_LOOP, r->label);
    fx_rule_recurrence_clear(&rec);
    return cand;
}

/* The loop timed at the size of the running version's newest run, against
 * that run's time (with no such run, the loop is worth having). */
static bool iteration_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence,
                                  FxBuf *why)
{
    const FxTrace *t = r->newest_current;
    double n = t ? t->size : r->newest_size;
    double was = t ? t->ms : -1;
    double now = r->host->time_kernel(cand, FX_VARIANT_LOOP, (uint64_t)n, 100);
    double gain = was > 0 && now > 0 ? was / now : 0;
    if (t && gain < FX_RULE_MIN_GAIN) {
        fx_buf_printf(why, "the loop is predicted only %.2gx faster at n = %.0f", gain, n);
        return false;
    }
    fx_buf_puts(evidence, "{\"certificate\": ");
    certificate_json(cand, evidence);
    fx_buf_printf(evidence, ", \"n\": %.0f, \"loop_ms\": %.4g", n, now);
    if (was > 0)
        fx_buf_printf(evidence, ", \"measured_ms\": %.4g", was);
    if (gain > 0)
        fx_buf_printf(evidence, ", \"predicted_gain\": %.3g", gain);
    fx_buf_puts(evidence, "}");
    return true;
}

static FxProof *iteration_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "the loop keeps the last k values of the certified recurrence");
    return prove_certificate(r->current, cand);
}

static void iteration_release(FxRuleRun *r)
{
    free(r->state);
}

const FxRule fx_rule_iteration = {"recursion to iteration", iteration_applies,
                                  iteration_candidate, iteration_measurement,
                                  iteration_obligations, iteration_release};

static bool power_applies(FxRuleRun *r, FxBuf *why)
{
    if (!r->current->variants) /* only a recurrence kernel holds variants */
        fx_buf_puts(why, "the version is not a recurrence kernel yet");
    else if (r->current->variants & FX_VARIANT_POWER)
        fx_buf_puts(why, "the version holds the power already");
    return why->len == 0;
}

static FxGraph *power_candidate(FxRuleRun *r, FxBuf *why)
{
    (void)why;
    return fx_rule_recurrence_candidate(r->current, &r->current->rec,
                                        FX_VARIANT_LOOP | FX_VARIANT_POWER, r->label);
}

/* Both variants' cost models, fitted by timing them, compared at the
 * largest n seen; the models are kept with the version. */
static bool power_measurement(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why)
{
    double n = r->an->largest_size, loop, power;
    if (!r->host->variant_times(r->current, n, &loop, &power, &r->model)) {
        fx_buf_puts(why, "the variants could not be measured");
        return false;
    }
    double gain = loop / power;
    if (gain < FX_RULE_MIN_GAIN) {
        fx_buf_printf(why, "at the largest n seen, %.0f, the power is predicted %.2gx the "
                      "loop's speed", n, gain);
        return false;
    }
    fx_buf_puts(evidence, "{\"certificate\": ");
    certificate_json(cand, evidence);
    fx_buf_printf(evidence, ", \"largest_n\": %.0f, \"loop_ms\": %.4g, \"power_ms\": %.4g, "
                  "\"predicted_gain\": %.3g, \"models\": %s}", n, loop, power, gain, r->model);
    return true;
}

static FxProof *power_obligations(FxRuleRun *r, const FxGraph *cand, FxBuf *effect)
{
    fx_buf_puts(effect, "the loop stays as a variant; a cost model picks one per call");
    return prove_certificate(r->current, cand);
}

const FxRule fx_rule_power = {"matrix power", power_applies, power_candidate, power_measurement,
                              power_obligations, NULL};
