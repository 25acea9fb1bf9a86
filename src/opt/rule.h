/*
 * rule.h: the interface of a rewrite rule, and what the learning round
 * lends a rule to work with.
 *
 * The round (src/api/optimize.c) asks each rule of the table (rules.c)
 * whether it applies (steps 1 and 2), then runs the ones that do, in the
 * learned proposer's order (opt/proposer.h), through the rest:
 *   1. applies: does the running version's structure, with the evidence,
 *      fit the rule? If not, a reason a person can read;
 *   2. (the round) was this rule rolled back from this version before,
 *      and are its inputs still near the sizes it was judged on?
 *      (opt/rollback.h)
 *   3. candidate: the next version, or a reason why none can be made;
 *   4. measurement: the predicted gain, as evidence (JSON), or a reason
 *      why it is too small;
 *   5. obligations: the proof the prover gives for the candidate, and the
 *      effect that lets it hold;
 *   6. (the round) install the candidate when proved, or record it
 *      rejected with the first obligation that failed.
 * The first rule whose candidate is installed ends the round; the reasons
 * of the others are reported ("v1 stays: memoization does not apply
 * (...)"). Rules match structure, never an intent's name.
 *
 * A rule never runs the program itself: it asks the round's host
 * (FxRuleHost), which runs and times graphs in runtimes of their own.
 */
#ifndef FX_RULE_H
#define FX_RULE_H

#include <gmp.h>

#include "base/buf.h"
#include "exec/value.h"
#include "graph/graph.h"
#include "opt/analyze.h"
#include "opt/rule_memo.h"
#include "opt/rule_recurrence.h"
#include "proof/prove.h"

#define FX_RULE_MIN_GAIN 1.25        /* predicted speed-up a rewrite must promise */
#define FX_RULE_MIN_SAVING_MS 0.05   /* a measured gain saving less is timing noise */
#define FX_RULE_EVIDENCE_STEPS 2000000 /* the budget of an evidence run */

/* What the round lends the rules: running and timing graphs, each in a
 * runtime of its own unless said otherwise; nothing is recorded. */
typedef struct FxRuleHost {
    void *ctx;
    /* The best of up to five timings of EXPR run alone with g (fewer when
     * a run is slow); the measuring cap in ms when it did not finish in
     * time, -1 when it failed otherwise. */
    double (*best_time)(void *ctx, const FxGraph *g, const char *expr);
    /* The time of EXPR's second run in one runtime with g, as a process
     * asking again sees it (the data sources read once, what the version
     * keeps kept); -1 when a run failed. */
    double (*second_time)(void *ctx, const FxGraph *g, const char *expr);
    /* The VM instructions EXPR ran with g under the evidence budget, its
     * callees' included (sharing a call saves the callee's work). */
    uint64_t (*work)(void *ctx, const FxGraph *g, const char *expr);
    /* The calls of the round's intent, and their distinct arguments, when
     * EXPR runs on the running versions under the evidence budget; false
     * when it made none. */
    bool (*calls)(void *ctx, const char *expr, FxCallEvidence *out);
    /* The round's intent's value at n by its running version. */
    FxValueAt value_at;
    /* One call of g, in a runtime of its own; false when a budget stopped it. */
    bool (*value)(void *ctx, const FxGraph *g, const FxValue *args, FxValue *out);
    /* Does g read a data source, itself or by its calls? */
    bool (*reads_data)(void *ctx, const FxGraph *g);
    /* The program's intents (the prelude's too) by name, lowered once a round. */
    FxGraphLookup lower;
    /* A top-level field of a JSON object as its raw text, or NULL; caller frees. */
    char *(*json_field)(const char *json, const char *key);
    /* The best of a few timings of g's kernel variant at n, in ms; -1 when it
     * did not finish within cap_ms. */
    double (*time_kernel)(const FxGraph *g, uint32_t variant, uint64_t n, double cap_ms);
    /* The recurrence variants' predicted times at n (loop, power), from
     * models fitted by timing them, and the models' JSON (caller frees);
     * false when they could not be measured. */
    bool (*variant_times)(const FxGraph *g, double n, double *loop, double *power,
                          char **models);
    FxProofCache *proof_cache;
    /* Can native code take g's parameters and give its result (exec/native.h)?
     * NULL: taken as yes. */
    bool (*native_signature)(void *ctx, const FxGraph *g);
} FxRuleHost;

/* One rule's turn in a round: what it is given, and what it keeps between
 * its steps. */
typedef struct FxRuleRun {
    const FxRuleHost *host;
    const char *intent;
    const FxGraph *current;    /* the running version */
    const char *label;         /* the next version's ("v3") */
    const char *expr;          /* the newest recorded run's EXPR */
    double newest_size;        /* its input's size */
    const FxTrace *newest_current; /* the newest run of the running version, or NULL */
    const FxAnalysis *an;      /* of the lineage's recorded runs */
    FxKernelId kernel;         /* the kernels' rule: the kernel whose turn it is */
    /* the rule's own */
    void *state;  /* between its steps; `release` frees it */
    char *name;   /* the rule's name with what it did ("simplification (dead code)"), or NULL */
    char *model;  /* cost models to keep with the version (JSON), or NULL */
} FxRuleRun;

typedef struct FxRule {
    /* as recorded: the rewrite of a version, the rule of a proposal. NULL
     * for the kernels' rule (rule_kernel.c), which the round runs once for
     * each kernel of the registry that has a rule, under its name
     * (graph/kernel.h: FxKernel.rule) */
    const char *name;
    /* Does the rule fit? On false, why it does not (a phrase). */
    bool (*applies)(FxRuleRun *r, FxBuf *why);
    /* The next version labelled r->label (caller frees), or NULL and why. */
    FxGraph *(*candidate)(FxRuleRun *r, FxBuf *why);
    /* Is the predicted gain worth it? On true, the evidence (a JSON object
     * with "predicted_gain" where one was measured); on false, why not. */
    bool (*measurement)(FxRuleRun *r, const FxGraph *cand, FxBuf *evidence, FxBuf *why);
    /* The proof that cand computes what the running version does; the
     * effect that lets it hold, in words, when there is one. */
    FxProof *(*obligations)(FxRuleRun *r, const FxGraph *cand, FxBuf *effect);
    /* Frees r->state; NULL when the rule keeps none. */
    void (*release)(FxRuleRun *r);
} FxRule;

/* The rules, from the smallest departure from the running version to the
 * largest (rules.c). */
extern const FxRule *const fx_rules[];
extern const size_t fx_rules_count;

/* ---- what several rules share (rule.c) ---- */

/* EXPR as a JSON string: whole up to 120 characters, else its start and "...". */
void fx_rule_expr_json(const char *expr, FxBuf *out);
/* s as a JSON string. */
void fx_rule_json_string(const char *s, FxBuf *out);

/* Times r->expr with the running version and with cand. True when cand
 * promises FX_RULE_MIN_GAIN and saves FX_RULE_MIN_SAVING_MS; then evidence
 * holds {"expr", `extra`, "measured_ms", "candidate_ms", "predicted_gain"}.
 * Otherwise why says so. */
bool fx_rule_measured_gain(FxRuleRun *r, const FxGraph *cand, const char *extra,
                           FxBuf *evidence, FxBuf *why);

/* The argument texts of recurring input h (g->n_params cells of row), or
 * false with row cleared when an argument is not an integer or boolean.
 * Caller frees the cells. */
bool fx_rule_hot_arguments(const FxRuleRun *r, uint32_t h, char **row);
/* "f(a, b)" of a row of argument texts: the call a user makes. Caller frees. */
char *fx_rule_call_text(const FxGraph *g, char *const *row);

#endif
