/*
 * optimize.c: one round of the living loop: evidence, rules, proof,
 * install, and rollback.
 *
 * For one intent the round reads the lineage's recorded runs (traces.c)
 * and then, in order:
 *   1. rollback: when the running version has been measured slower than
 *      its parent on comparable inputs, beyond noise (opt/rollback.h), it
 *      is rolled back and the round ends;
 *   2. the cost models of a version with variants are refitted on its
 *      recorded runs (variants.c);
 *   3. the rules of the table (opt/rules.c) that apply and were not
 *      rolled back from this version before (unless its inputs have grown
 *      well past the sizes it was judged on), in the learned proposer's
 *      order (opt/proposer.h; its state: proposer_store.c), each through
 *      the same steps (opt/rule.h): candidate, measurement, obligations;
 *      each pull rewards the proposer. The first rule whose
 *      candidate the prover proves, and whose predicted gain is at least
 *      FX_RULE_MIN_GAIN, becomes the next version, with its parent, the
 *      rule, the proof, the evidence and the predicted gain, in one
 *      transaction with its cost model and its accepted proposal, refused
 *      when the label is taken (fx_store_install). One rewrite a round
 *      keeps every step small, proved on its own, and undoable on its own.
 *      A candidate the prover does not prove is recorded as rejected, with
 *      why, and the next rule is tried.
 * The rules run and time graphs through the round's host (rulehost.c).
 * Runs never wait for a round: it runs when asked (`flux optimize`), or
 * after a run has printed its answer (learn.c), and either way under the
 * store's learning lock, one round of a store at a time. A refutation's
 * counterexample is shown only once the interpreter reproduces it
 * (reproduce.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "graph/graph.h"
#include "opt/rollback.h"
#include "opt/rule.h"
#include "proof/prove.h"
#include "proof/smt.h"
#include "proposer_store.h"
#include "rulehost.h"

#define TRACES 400          /* recorded runs a round reads */

typedef struct Round {
    FluxProgram *fp;
    FluxStore *fs;
    const FxIntent *in;
    const FxGraph *current;
    int64_t lineage, version;
    FxTraces tr;
    FxAnalysis an; /* of tr */
    FILE *out;
    FxBuf stays;   /* why each rule did not apply */
    FxRuleRun run; /* what every rule is given */
    char *raced;   /* why the proved rewrite was not installed (its label taken), or NULL */
} Round;

/* ---- proving and installing ---- */

static void proof_text(const FxProof *p, const char *effect, const char *solver, FxBuf *smt,
                       double *ms, const char **why_not)
{
    fx_buf_printf(smt, "; flux proof: %s, %s\n", fx_proof_verdict_name(p->verdict), solver);
    *ms = 0;
    *why_not = NULL; /* the first obligation that did not hold, in words */
    fx_vec_foreach(FxObligation, o, &p->obligations)
    {
        *ms += o->ms;
        const char *r = o->verdict == FX_PROOF_PROVED ? NULL
                        : o->counterexample                ? o->counterexample
                                                           : o->reason;
        if (r && !*why_not)
            *why_not = r;
        fx_buf_printf(smt, "; obligation %s: %s (%s)%s%s\n", o->kind, o->what,
                      fx_proof_verdict_name(o->verdict), r ? ": " : "", r ? r : "");
        if (o->smtlib)
            fx_buf_printf(smt, "(push)\n%s(pop)\n", o->smtlib);
    }
    if (effect)
        fx_buf_printf(smt, "; effect: %s\n", effect);
}

/* The running version's three most run nodes, summed over its recorded
 * runs (the store's per-node counters), as JSON: where its time goes. */
typedef struct Hot {
    const FxGraph *g;
    uint32_t node[3];
    uint64_t count[3];
} Hot;

static void keep_hot(void *ctx, uint32_t node, uint64_t count, uint64_t ns)
{
    (void)ns;
    Hot *h = ctx;
    if (fx_api_counted_work(h->g, node) == FX_NODE_CONST)
        return;
    for (int i = 0; i < 3; i++) {
        if (count > h->count[i]) {
            for (int j = 2; j > i; j--) {
                h->node[j] = h->node[j - 1];
                h->count[j] = h->count[j - 1];
            }
            h->node[i] = node;
            h->count[i] = count;
            return;
        }
    }
}

static void hot_nodes_json(Round *R, FxBuf *out)
{
    Hot h = {R->current, {0}, {0}};
    fx_buf_puts(out, "[");
    if (fx_store_node_counts(R->fs->store, R->version, keep_hot, &h) == FX_OK) {
        for (int i = 0; i < 3 && h.count[i]; i++) {
            const FxNode *n = &R->current->nodes[h.node[i] - 1];
            char *what = fx_xasprintf("%s%s%s", fx_graph_op_name(n->op),
                                      n->op == FX_NODE_CALL ? " " : "",
                                      n->op == FX_NODE_CALL ? n->text : "");
            fx_buf_printf(out, "%s{\"node\": %u, \"op\": ", i ? ", " : "", h.node[i]);
            fx_api_json_string(what, out);
            fx_buf_printf(out, ", \"count\": %llu}", (unsigned long long)h.count[i]);
            free(what);
        }
    }
    fx_buf_puts(out, "]");
}

/* Records the proof, and installs cand as the next version when proved
 * (with its cost model, when it has one), or records it rejected. Sets
 * *installed. */
static int install(Round *R, FxGraph *cand, FxProof *p, const char *rule, const char *effect,
                   const char *evidence, const char *model, bool *installed)
{
    FxStore *st = R->fs->store;
    FxBuf smt = {0};
    double ms;
    const char *why_not;
    bool asked = false; /* did any obligation need the solver? */
    fx_vec_foreach(FxObligation, o, &p->obligations) asked |= o->smtlib != NULL;
    const char *solver = asked ? fx_smt_solver_version() : "flux, no solver query";
    proof_text(p, effect, solver, &smt, &ms, &why_not);
    int64_t proof, proposal, version = 0;
    bool proved = p->verdict == FX_PROOF_PROVED;
    FxStatus s = fx_store_add_proof(st, fx_buf_str(&smt), fx_proof_verdict_name(p->verdict),
                                    solver, ms, &proof);
    FxBuf full = {0}; /* the evidence, with where the running version spends its time */
    size_t len = strlen(evidence);
    fx_buf_printf(&full, "%.*s, \"hot_nodes\": ", (int)(len ? len - 1 : 0), evidence);
    hot_nodes_json(R, &full);
    fx_buf_puts(&full, "}");
    evidence = fx_buf_str(&full);
    if (s == FX_OK && proved) { /* the version, its model and its proposal at once */
        FxBuf json = {0};
        fx_graph_print_json(cand, &json);
        FxVersionInfo vi = {cand->version, fx_buf_str(&json), R->version, rule, proof, evidence};
        s = fx_store_install(st, R->lineage, &vi, model, &version, &proposal);
        fx_buf_free(&json);
        if (s == FX_ERR_REJECTED) { /* the label is taken: this round's view is stale */
            R->raced = fx_xasprintf("not installed: %s", fx_store_error(st));
            proved = false;
            why_not = R->raced;
            s = FX_OK;
        }
    }
    if (s == FX_OK && !proved)
        s = fx_store_add_proposal(st, R->lineage, rule, "rejected",
                                  why_not ? why_not : "the prover did not prove it", NULL, proof,
                                  &proposal);
    if (s == FX_OK)
        fprintf(R->out, "%s: %s %s: %s (proof #%lld, %.1f ms%s%s); evidence %s\n", R->in->name,
                proved ? "installed" : R->raced ? "did not install" : "rejected", cand->version,
                rule, (long long)proof, ms, proved || !why_not ? "" : ": ",
                proved || !why_not ? "" : why_not, evidence);
    fx_buf_free(&smt);
    fx_buf_free(&full);
    *installed = s == FX_OK && proved;
    return s == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
}

static void stays(Round *R, const char *rule, const char *why)
{
    fx_buf_printf(&R->stays, "%s%s does not apply (%s)", R->stays.len ? "; " : "", rule, why);
}

/* The key of a version's timing rollback in the store's learned table. */
static char *rollback_key(int64_t lineage, const char *label)
{
    return fx_xasprintf("%lld/%s", (long long)lineage, label);
}

/* The largest input the running version has run on. */
static double largest_input(const Round *R)
{
    double largest = 0;
    fx_vec_foreach(FxTrace, t, &R->tr.v) if (!strcmp(t->version, R->current->version))
            largest = t->size > largest ? t->size : largest;
    return largest;
}

/* Was `rule` applied to the running version before, and rolled back? Then
 * it is not proposed again (true, with why), unless every such rollback
 * was on timing and the running version's inputs have since gone well
 * beyond the sizes it was judged on (opt/rollback.h): then false, and why
 * begins with that, for the rule's own reason to follow. */
static bool rolled_back_before(Round *R, const char *rule, FxBuf *why)
{
    FxRows rows = {0};
    bool for_good = false, found = false;
    double judged = 0;
    char *last = NULL; /* the label of the newest such version */
    if (fx_store_versions(R->fs->store, R->in->name, fx_api_keep_row, &rows) == FX_OK) {
        fx_vec_foreach(char *, r, &rows.json)
        {
            json_t *j = json_loads(*r, JSON_DECODE_INT_AS_REAL, NULL);
            const char *parent = json_string_value(json_object_get(j, "parent"));
            const char *rewrite = json_string_value(json_object_get(j, "rewrite"));
            const char *label = json_string_value(json_object_get(j, "version"));
            if (json_number_value(json_object_get(j, "lineage")) == (double)R->lineage &&
                json_is_string(json_object_get(j, "rolled_back")) && parent && rewrite &&
                label && !strcmp(parent, R->current->version) && !strcmp(rewrite, rule)) {
                found = true;
                char *key = rollback_key(R->lineage, label), *value = NULL;
                json_t *v = NULL;
                if (fx_store_learned(R->fs->store, "rollback", key, "", &value, NULL) == FX_OK &&
                    value)
                    v = json_loads(value, 0, NULL);
                json_t *hi = json_array_get(json_object_get(v, "judged_on"), 1);
                if (json_is_number(hi) && json_number_value(hi) >= judged)
                    judged = json_number_value(hi);
                for_good |= !json_is_number(hi); /* a failed validation, or an old store */
                free(last);
                last = fx_xstrdup(label);
                json_decref(v);
                free(value);
                free(key);
            }
            json_decref(j);
        }
    }
    fx_vec_foreach(char *, r, &rows.json) free(*r);
    fx_vec_free(&rows.json);
    double largest = largest_input(R);
    bool blocked = found && (for_good || !fx_rollback_retry(judged, largest));
    if (found && for_good)
        fx_buf_puts(why, "it was rolled back from this version before");
    else if (blocked)
        fx_buf_printf(why, "it was rolled back from this version before (%s, judged on sizes up "
                      "to %g; %s's inputs reach %g, not %dx beyond)", last, judged,
                      R->current->version, largest, FX_ROLLBACK_RETRY);
    else if (found)
        fx_buf_printf(why, "proposed again: %s was rolled back on sizes up to %g, and %s's "
                      "inputs now reach %g; then ", last, judged, R->current->version, largest);
    free(last);
    return blocked;
}

/* ---- rollback ---- */

/* Points (size, time) of one version's recorded runs. */
static size_t points_of(const Round *R, const char *label, FxCostPoint *pts, size_t cap)
{
    size_t n = 0;
    fx_vec_foreach(FxTrace, t, &R->tr.v) if (n < cap && !strcmp(t->version, label))
            pts[n++] = (FxCostPoint){t->size, t->ms};
    return n;
}

/* Rolls the running version back when its runs were slower than its
 * parent's on comparable inputs, beyond noise (opt/rollback.h), and keeps
 * the sizes it was judged on, for a later proposal of the same rewrite. */
static int maybe_roll_back(Round *R, bool *rolled)
{
    *rolled = false;
    FxVersionOrigin o = fx_api_origin(R->fp, R->in, R->current);
    if (!o.parent) {
        fx_api_origin_free(&o);
        return FLUX_OK;
    }
    FxCostPoint mine[TRACES], theirs[TRACES];
    size_t n_mine = points_of(R, R->current->version, mine, TRACES);
    size_t n_theirs = points_of(R, o.parent, theirs, TRACES);
    FxRollbackVerdict v;
    fx_rollback_judge(mine, n_mine, theirs, n_theirs, &v);
    int status = FLUX_OK;
    if (v.slower) {
        char *why = fx_xasprintf(
                "measured %.3gx slower than %s (at least %.3gx at 97.5%% confidence, %g ms "
                "of slack a run) on %zu runs of sizes %g to %g, against %s's %zu runs of sizes "
                "%g to %g (%zu at the same sizes, %zu between)",
                v.ratio, o.parent, v.bound, FX_ROLLBACK_SLACK_MS, v.compared, v.lo, v.hi,
                o.parent, v.parent_runs, v.parent_lo, v.parent_hi, v.exact,
                v.compared - v.exact);
        char *key = rollback_key(R->lineage, R->current->version);
        char *judged = fx_xasprintf("{\"judged_on\": [%.17g, %.17g], \"runs\": %zu}", v.lo,
                                    v.hi, v.compared);
        int64_t proposal;
        FxStatus s = fx_store_roll_back(R->fs->store, R->version, why);
        if (s == FX_OK)
            s = fx_store_add_proposal(R->fs->store, R->lineage, "rollback", "accepted", why,
                                      NULL, 0, &proposal);
        if (s == FX_OK)
            s = fx_store_set_learned(R->fs->store, "rollback", key, "", judged, strlen(judged));
        if (s == FX_OK)
            fprintf(R->out, "%s: rolled back %s to %s: %s\n", R->in->name, R->current->version,
                    o.parent, why);
        status = s == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
        *rolled = s == FX_OK;
        free(judged);
        free(key);
        free(why);
    }
    fx_api_origin_free(&o);
    return status;
}

/* The running version's proof checked again by the prover before a round
 * builds on it (its seals held when it was read, but they are not keyed):
 * one that does not hold is rolled back, as a version measured slower is.
 * A proof that held is remembered by its seal's chain (learned kind
 * "rechecked"), so that a store's own versions cost the solver once, not
 * every round (a recurrence's: 0.25 s, five times a round that finds
 * nothing to do); a forger who writes that row too is left to `flux
 * proofs --verify`, which never reads it. */
static int recheck(Round *R, bool *rolled)
{
    *rolled = false;
    FxStore *st = R->fs->store;
    FxVersionOrigin o = fx_api_origin(R->fp, R->in, R->current);
    FxTrusted t = {0};
    char *seen = NULL, *why = NULL;
    int status = FLUX_OK;
    bool check = o.parent &&
                 fx_store_trusted_version(st, R->lineage, R->current->version, &t, NULL, NULL) ==
                         FX_OK &&
                 !t.why && t.chain[0] &&
                 fx_store_learned(st, "rechecked", t.chain, "", &seen, NULL) == FX_OK && !seen;
    if (check && !(why = fx_api_proof_again(R->fp, st, R->in->name, R->lineage, R->current,
                                             o.parent)))
        status = fx_store_set_learned(st, "rechecked", t.chain, "", "proved", 6) == FX_OK
                         ? FLUX_OK
                         : FLUX_ERR_STORE;
    if (why) {
        char *reason = fx_xasprintf("its proof #%s does not hold: %s", o.proof_id, why);
        int64_t proposal;
        FxStatus s = fx_store_roll_back(st, R->version, reason);
        if (s == FX_OK)
            s = fx_store_add_proposal(st, R->lineage, "rollback", "accepted", reason, NULL, 0,
                                      &proposal);
        if (s == FX_OK)
            fprintf(R->out, "%s: rolled back %s to %s: %s\n", R->in->name, R->current->version,
                    o.parent, reason);
        status = s == FX_OK ? FLUX_OK : FLUX_ERR_STORE;
        *rolled = s == FX_OK;
        free(reason);
    }
    free(why);
    free(seen);
    fx_trusted_free(&t);
    fx_api_origin_free(&o);
    return status;
}

/* ---- the round ---- */

/* The newest run of the running version, or NULL. */
static const FxTrace *newest_of_current(const Round *R)
{
    fx_vec_foreach(FxTrace, t, &R->tr.v) if (!strcmp(t->version, R->current->version)) return t;
    return NULL;
}

/* ---- the rules' turns, in the learned proposer's order ---- */

/* An arm of the proposer (opt/proposer.h): a rule of the table, or one
 * kernel's turn of the kernels' rule, with its steps' state. */
typedef struct Turn {
    const FxRule *rule;
    FxKernelId kernel;
    const char *arm;  /* its name in the proposer's state */
    const char *name; /* as recorded: the arm's, or what the rule says it did */
    FxRuleRun run;
    FxBuf why;        /* why it does not apply, or made no version */
    bool applies, stays;
    double score, mean, width, reward;
    char outcome[96]; /* what happened when tried; "" when not tried */
} Turn;

typedef struct Policy {
    FxProposer prop;
    double x[FX_PROPOSER_DIM]; /* the round's context */
    bool changed;
} Policy;

/* The predicted gain of a rule's evidence, or the least a rule must
 * promise when it measured none. */
static double evidence_gain(const char *evidence)
{
    json_t *j = json_loads(evidence, JSON_DECODE_INT_AS_REAL, NULL);
    json_t *g = json_object_get(j, "predicted_gain");
    double gain = json_is_number(g) && json_number_value(g) > 0 ? json_number_value(g)
                                                                 : FX_RULE_MIN_GAIN;
    json_decref(j);
    return gain;
}

/* Steps 1 and 2 (opt/rule.h): does the turn's rule fit the running version? */
static void turn_applies(Round *R, Turn *t)
{
    t->run = R->run;
    t->run.kernel = t->kernel;
    t->applies = t->rule->applies(&t->run, &t->why);
    t->name = t->run.name ? t->run.name : t->arm;
    if (t->applies && rolled_back_before(R, t->name, &t->why))
        t->applies = false;
    t->stays = !t->applies;
}

/* Steps 3 to 6: installs the turn's candidate, records it rejected, or
 * notes why the version stays; the proposer is rewarded for the pull. */
static int try_turn(Round *R, Policy *P, Turn *t, bool *installed)
{
    FxRuleRun *r = &t->run;
    FxBuf evidence = {0}, effect = {0};
    FxGraph *cand = NULL;
    int status = FLUX_OK;
    double reward = 0;
    bool go = (cand = t->rule->candidate(r, &t->why)) != NULL;
    go = go && t->rule->measurement(r, cand, &evidence, &t->why);
    if (go) {
        FxProof *p = t->rule->obligations(r, cand, &effect);
        fx_api_reproduce(R->fp, R->current, cand, p);
        status = install(R, cand, p, t->name, effect.len ? fx_buf_str(&effect) : NULL,
                         fx_buf_str(&evidence), r->model, installed);
        fx_proof_free(p);
        if (*installed) {
            reward = log(evidence_gain(fx_buf_str(&evidence)));
            snprintf(t->outcome, sizeof(t->outcome), "installed %s", cand->version);
        } else if (R->raced) {
            snprintf(t->outcome, sizeof(t->outcome), "not installed: %s was taken",
                     cand->version);
        } else {
            reward = FX_REWARD_REJECTED;
            snprintf(t->outcome, sizeof(t->outcome), "rejected by the prover");
        }
    } else {
        t->stays = true;
        snprintf(t->outcome, sizeof(t->outcome), "no version");
    }
    if (status == FLUX_OK && !R->raced) { /* a lost race says nothing of the rule */
        reward = t->reward =
                fx_proposer_reward(&P->prop, t->arm, P->x, reward, R->in->name, t->outcome);
        P->changed = true;
        if (*installed) { /* a rollback of it replaces its reward (settle) */
            FxPending pend = {.lineage = R->lineage, .reward = reward};
            snprintf(pend.arm, sizeof(pend.arm), "%s", t->arm);
            snprintf(pend.version, sizeof(pend.version), "%s", cand->version);
            memcpy(pend.x, P->x, sizeof(P->x));
            fx_proposer_pend(&P->prop, &pend);
        }
    }
    fx_graph_free(cand);
    fx_buf_free(&evidence);
    fx_buf_free(&effect);
    return status;
}

/* The turns of the table, in its order: each rule, and for the kernels'
 * rule a turn for each kernel of the registry that has a rule. Only `only`
 * when given. */
static size_t list_turns(const char *only, Turn *turns, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < fx_rules_count; i++)
        for (int k = FX_KERNEL_NONE; k < FX_KERNEL__COUNT; k++) {
            if (fx_rules[i]->name ? k != FX_KERNEL_NONE
                                  : k == FX_KERNEL_NONE || !fx_kernel((FxKernelId)k)->rule)
                continue;
            const char *arm = fx_rules[i]->name ? fx_rules[i]->name
                                                : fx_kernel((FxKernelId)k)->rule;
            if (n < cap && (!only || !strcmp(only, arm)))
                turns[n++] = (Turn){.rule = fx_rules[i], .kernel = (FxKernelId)k, .arm = arm};
        }
    return n;
}

/* The running version's measured speed-up over its parent, on comparable
 * inputs as a rollback judges them (opt/rollback.h): the geometric mean of
 * the parent's time over its own; false until both have run enough. */
static bool measured_gain(Round *R, double *gain)
{
    FxVersionOrigin o = fx_api_origin(R->fp, R->in, R->current);
    FxCostPoint mine[TRACES], theirs[TRACES];
    size_t n_mine = points_of(R, R->current->version, mine, TRACES);
    size_t n_theirs = o.parent ? points_of(R, o.parent, theirs, TRACES) : 0;
    fx_api_origin_free(&o);
    FxRollbackVerdict v;
    fx_rollback_judge(mine, n_mine, theirs, n_theirs, &v);
    if (v.compared < FX_ROLLBACK_RUNS || n_theirs < FX_ROLLBACK_PARENT_RUNS || v.ratio <= 0)
        return false;
    *gain = 1 / v.ratio;
    return true;
}

static void drop_pending(Policy *P, size_t i)
{
    FxProposer *p = &P->prop;
    memmove(p->pending.data + i, p->pending.data + i + 1,
            (p->pending.len - i - 1) * sizeof(*p->pending.data));
    p->pending.len--;
    P->changed = true;
}

/* Later evidence replaces an install's reward: a rollback's penalty, for
 * the lineage's pending installs that the store says were rolled back; or
 * ln of the running version's measured speed-up, once it has run enough. */
static void settle(Round *R, Policy *P)
{
    bool any = false;
    fx_vec_foreach(FxPending, q, &P->prop.pending) any |= q->lineage == R->lineage;
    FxRows rows = {0};
    if (!any || fx_store_versions(R->fs->store, R->in->name, fx_api_keep_row, &rows) != FX_OK)
        return; /* nothing pending here, or nothing to settle it by */
    fx_vec_foreach(char *, row, &rows.json)
    {
        json_t *j = json_loads(*row, JSON_DECODE_INT_AS_REAL, NULL);
        const char *label = json_string_value(json_object_get(j, "version"));
        if (json_number_value(json_object_get(j, "lineage")) == (double)R->lineage && label &&
            json_is_string(json_object_get(j, "rolled_back"))) {
            for (size_t i = 0; i < P->prop.pending.len; i++) {
                FxPending q = P->prop.pending.data[i];
                if (q.lineage != R->lineage || strcmp(q.version, label))
                    continue;
                char what[32];
                snprintf(what, sizeof(what), "rolled back %s", label);
                fx_proposer_correct(&P->prop, &q, FX_REWARD_ROLLED_BACK, R->in->name, what);
                drop_pending(P, i);
                break;
            }
        }
        json_decref(j);
    }
    fx_vec_foreach(char *, row, &rows.json) free(*row);
    fx_vec_free(&rows.json);
    double gain;
    for (size_t i = 0; i < P->prop.pending.len; i++) {
        FxPending q = P->prop.pending.data[i];
        if (q.lineage == R->lineage && !strcmp(q.version, R->current->version) &&
            measured_gain(R, &gain)) {
            char what[48];
            snprintf(what, sizeof(what), "measured %s %.2gx", q.version, gain);
            fx_proposer_correct(&P->prop, &q, log(gain), R->in->name, what);
            drop_pending(P, i);
            break;
        }
    }
}

/* The proposer's state and the round's context. */
static void policy_open(Round *R, Policy *P)
{
    *P = (Policy){0};
    fx_api_proposer_load(R->fs, &P->prop);
    FxHotOps hot;
    fx_api_proposer_hot(R->fs, R->version, R->current, R->an.runs_current, &hot);
    FxHardware hw = fx_hw_detect();
    fx_proposer_features(R->current, &R->an, &hot, &hw, P->x);
    settle(R, P);
}

/* order[] gets the applicable turns by descending score; ties keep the
 * table's order. Returns how many. */
static size_t rank_turns(Policy *P, Turn *turns, size_t n, size_t *order)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!turns[i].applies)
            continue;
        Turn *t = &turns[i];
        t->score = fx_proposer_score(fx_proposer_arm(&P->prop, t->arm), P->x, &t->mean,
                                     &t->width);
        size_t j = k++;
        for (; j > 0 && turns[order[j - 1]].score < t->score; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    return k;
}

/* `optimize --explain`: the ranking, what each tried turn did, and the
 * reward history. */
static void explain_policy(Round *R, Policy *P, Turn *turns, size_t n, const size_t *order,
                           size_t ranked)
{
    FILE *out = R->out;
    const char *in = R->in->name;
    if (n)
        fprintf(out, "%s: proposer %s ranking for %s (score = predicted reward + %.2g x "
                     "uncertainty; reward = ln of the gain):\n",
                in, FX_PROPOSER_KEY, R->current->version, FX_PROPOSER_ALPHA);
    for (size_t i = 0; i < ranked; i++) {
        const Turn *t = &turns[order[i]];
        const FxArm *a = fx_proposer_arm(&P->prop, t->arm);
        char reward[32] = "";
        if (t->outcome[0])
            snprintf(reward, sizeof(reward), "; reward %+.2f", t->reward);
        fprintf(out, "  %zu. %s: score %.3f = %.3f (predicted gain %.3gx) + %.2g x %.3f, "
                     "%u pulls before; %s%s%s%s%s\n",
                i + 1, t->arm, t->score, t->mean, exp(t->mean), FX_PROPOSER_ALPHA, t->width,
                a->pulls - (t->outcome[0] != 0), t->outcome[0] ? t->outcome : "not tried",
                t->stays ? " (" : "", t->stays ? fx_buf_str(&t->why) : "", t->stays ? ")" : "",
                reward);
    }
    FxBuf none = {0};
    for (size_t i = 0; i < n; i++)
        if (!turns[i].applies)
            fx_buf_printf(&none, "%s%s", none.len ? ", " : "", turns[i].arm);
    if (none.len)
        fprintf(out, "  does not apply: %s\n", fx_buf_str(&none));
    fx_buf_free(&none);
    fprintf(out, "%s: proposer rewards, newest last:", in);
    fx_vec_foreach(FxReward, r, &P->prop.history)
            fprintf(out, " %+.2f (%s, %s: %s)", r->reward, r->arm, r->intent, r->what);
    fprintf(out, "%s; cumulative reward %+.2f over %u pulls\n",
            P->prop.history.len ? "" : " none", P->prop.total, P->prop.pulls);
}

/* Records the round's turns in the store (the time travel of `flux serve`
 * shows them: docs/web.md): what each rule said, in the table's order. */
static FxStatus record_round(Round *R, const Turn *turns, size_t n, bool done)
{
    FxBuf j = {0}, outcome = {0};
    fx_buf_putc(&j, '[');
    for (size_t i = 0; i < n; i++) {
        const Turn *t = &turns[i];
        fx_buf_puts(&j, i ? ", {\"rule\": " : "{\"rule\": ");
        fx_api_json_string(t->name, &j);
        fx_buf_printf(&j, ", \"applies\": %s, \"outcome\": ", t->applies ? "true" : "false");
        fx_api_json_string(t->outcome[0] ? t->outcome : t->applies ? "not tried" : "does not apply",
                           &j);
        fx_buf_puts(&j, ", \"why\": ");
        if (t->stays && t->why.len)
            fx_api_json_string(fx_buf_str(&t->why), &j);
        else
            fx_buf_puts(&j, "null");
        fx_buf_putc(&j, '}');
        if (done && !strncmp(t->outcome, "installed ", 10))
            fx_buf_printf(&outcome, "%s: %s", t->name, t->outcome);
    }
    fx_buf_putc(&j, ']');
    if (!outcome.len)
        fx_buf_printf(&outcome, "%s stays", R->current->version);
    FxStatus st = fx_store_add_round(R->fs->store, R->lineage, R->version, fx_buf_str(&j),
                                     fx_buf_str(&outcome));
    fx_buf_free(&j);
    fx_buf_free(&outcome);
    return st;
}

/* The round's rules (step 3 of the round): every applicable turn, in the
 * proposer's order, until one installs. Every one is tried when the better
 * ranked fail, so the order changes what is tried first, never what can be
 * installed. */
static int run_turns(Round *R, const FluxOptimizeOptions *opts, bool *done)
{
    Policy P;
    policy_open(R, &P);
    Turn turns[FX_KERNEL__COUNT + 16];
    size_t order[FX_KERNEL__COUNT + 16], ranked = 0;
    size_t n = *done ? 0 : list_turns(opts->rule, turns, sizeof(turns) / sizeof(turns[0]));
    for (size_t i = 0; i < n; i++)
        turn_applies(R, &turns[i]);
    ranked = rank_turns(&P, turns, n, order);
    int status = FLUX_OK;
    for (size_t i = 0; i < ranked && !*done && !R->raced && status == FLUX_OK; i++)
        status = try_turn(R, &P, &turns[order[i]], done);
    for (size_t i = 0; i < n; i++) { /* the reasons in the table's order */
        if (turns[i].stays)
            stays(R, turns[i].name, fx_buf_str(&turns[i].why));
    }
    if (!*done && !R->raced && status == FLUX_OK)
        fprintf(R->out, "%s: %s stays: %s\n", R->in->name, R->current->version,
                n ? fx_buf_str(&R->stays) : "no rule of that name");
    if (opts->explain)
        explain_policy(R, &P, turns, n, order, ranked);
    if (P.changed && status == FLUX_OK &&
        fx_api_proposer_save(R->fs, &P.prop) != FX_OK)
        status = FLUX_ERR_STORE;
    if (n && status == FLUX_OK && !R->raced && record_round(R, turns, n, *done) != FX_OK)
        status = FLUX_ERR_STORE;
    for (size_t i = 0; i < n; i++) {
        if (turns[i].rule->release)
            turns[i].rule->release(&turns[i].run);
        free(turns[i].run.name);
        free(turns[i].run.model);
        fx_buf_free(&turns[i].why);
    }
    fx_proposer_free(&P.prop);
    return status;
}

static int optimize_intent(FluxProgram *fp, FluxStore *fs, const FxIntent *in,
                           const FluxOptimizeOptions *opts, FILE *out)
{
    Round R = {.fp = fp, .fs = fs, .in = in, .out = out,
               .current = fx_runtime_graph(fx_api_runtime(fp), in->name)};
    if (fx_api_version_of(fp, in, R.current, &R.lineage, &R.version) != FX_OK ||
        fx_api_traces(fs, in->name, R.lineage, TRACES, &R.tr) != FX_OK)
        return FLUX_ERR_STORE;
    fx_analyze(R.tr.v.data, R.tr.v.len, R.current->version, &R.an);
    if (R.tr.v.len == 0) {
        fprintf(out, "%s: %s stays: no recorded run to learn from\n", in->name,
                R.current->version);
        fx_api_traces_free(&R.tr);
        return FLUX_OK;
    }
    /* Only runs a budget stopped: their EXPRs are evidence for the rules,
     * which time them under caps of their own; their times are the
     * budget's, so they judge no rollback, fit no model and promote no
     * native code. */
    bool stopped_only = R.tr.stopped_only;
    bool done = false;
    int status = stopped_only ? FLUX_OK : recheck(&R, &done);
    if (!done && status == FLUX_OK && !stopped_only)
        status = maybe_roll_back(&R, &done);
    const FxGraph *g = R.current;
    if (!done && status == FLUX_OK && !stopped_only &&
        (g->variants & (FX_VARIANT_LOOP | FX_VARIANT_POWER)) == (FX_VARIANT_LOOP | FX_VARIANT_POWER))
        status = fx_api_models_refit(fs, R.version, g, &R.tr, out) == FX_OK ? FLUX_OK
                                                                           : FLUX_ERR_STORE;
    FxApiRuleHost host;
    fx_api_rule_host_init(&host, fp, in->name);
    char *label = NULL; /* nothing makes a version before the rule that installs */
    if (fx_store_next_label(fs->store, R.lineage, &label) != FX_OK || !label)
        label = fx_xstrdup("v2");
    R.run = (FxRuleRun){.host = &host.host, .intent = in->name, .current = R.current,
                        .label = label, .expr = R.tr.v.data[0].expr,
                        .newest_size = R.tr.v.data[0].size,
                        .newest_current = newest_of_current(&R), .an = &R.an};
    bool native_only = opts->rule && !strcmp(opts->rule, FX_NATIVE_RULE);
    if (status == FLUX_OK && !native_only)
        status = run_turns(&R, opts, &done);
    /* the version that stays may become native code */
    if (status == FLUX_OK && !done && !stopped_only && (!opts->rule || native_only))
        status = fx_api_native_round(fp, fs, in->name, R.current->version, &R.tr, out);
    free(label);
    free(R.raced);
    fx_api_rule_host_free(&host);
    fx_buf_free(&R.stays);
    fx_api_traces_free(&R.tr);
    return status;
}

int flux_optimize(FluxProgram *fp, FluxStore *fs, const char *intent, FILE *out,
                  FILE *diagnostics)
{
    return flux_optimize_with(fp, fs, intent, NULL, out, diagnostics);
}

int flux_optimize_with(FluxProgram *fp, FluxStore *fs, const char *intent,
                       const FluxOptimizeOptions *options, FILE *out, FILE *diagnostics)
{
    int lock = fx_api_learn_lock(fs, diagnostics); /* one round of a store at a time */
    if (lock < 0)
        return FLUX_ERR_STORE;
    int status = fx_api_optimize(fp, fs, intent, options, out, diagnostics);
    fx_api_learn_unlock(lock);
    return status;
}

int fx_api_optimize(FluxProgram *fp, FluxStore *fs, const char *intent,
                    const FluxOptimizeOptions *options, FILE *out, FILE *diagnostics)
{
    static const FluxOptimizeOptions plain = {0};
    /* a fresh runtime on the newest versions: a run before may have switched
     * a table on mid-run, which would hide the repeated work it showed */
    flux_program_use_store(fp, fs, fp->keep_values);
    int status = FLUX_OK;
    bool found = false;
    /* every intent: the callees that took the time first, each called alone
     * (callees.c) */
    size_t n = fp->prog->root->intents.len, k = 0;
    FxCalleeTaken *taken = fx_xcalloc(n + 1, sizeof(*taken));
    const FxIntent **order = fx_xcalloc(n + 1, sizeof(*order));
    if (!intent && (!options || !options->rule))
        k = fx_api_callees_take(fp, fs, FLUX_LEARN_NOW, true, taken, n, out);
    n = fx_api_round_order(fp, taken, k, order);
    for (size_t i = 0; i < n; i++) {
        const FxIntent *in = order[i];
        if (intent && strcmp(intent, in->name) != 0)
            continue;
        found = true;
        if (optimize_intent(fp, fs, in, options ? options : &plain, out) != FLUX_OK)
            status = FLUX_ERR_STORE;
    }
    free(taken);
    free(order);
    if (!found && !intent) { /* a file of imports only: its intents learn in their own files */
        if (out)
            fprintf(out, "no intent of its own in this file to optimize; an imported file's "
                         "intents are optimized with that file\n");
        return FLUX_OK;
    }
    if (!found) {
        if (diagnostics)
            fprintf(diagnostics, "flux: no intent `%s` in this program\n", intent);
        return FLUX_ERR_USAGE;
    }
    if (status != FLUX_OK && diagnostics)
        fprintf(diagnostics, "flux: the store: %s\n", fx_store_error(fs->store));
    return status;
}
