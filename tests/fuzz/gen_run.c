/*
 * gen_run.c: the harness. One generated program goes through the public
 * API (include/flux.h) the way an embedder drives it: written to files,
 * loaded and checked (with a short solver timeout, or types only), every
 * intent graphed in each format, every call run with tight budgets and no
 * store, and the answers compared; one program in 8 then goes through a
 * store and an optimization round. Last, the known bugs' probes
 * (gen_probe_found), which run the reproducers of tests/fuzz/found.
 *
 * What counts as a finding (docs/testing.md):
 *   - a signal, a sanitizer report or a leak: the caller's process dies or
 *     LeakSanitizer complains; gen_run_current names the call in flight;
 *   - an internal error (FX_CHECK prints "internal error" and aborts);
 *   - a false rejection: the checker refuses a program the generator
 *     believes well-typed, unless every error is one the program allows
 *     (a refuted property where it claims one that may be false; the
 *     nesting limit where it nests past it);
 *   - a malformed call: flux_run says the generated EXPR is not an
 *     expression of the program (exit 2);
 *   - a difference: the same call run twice, or with and without mid-run
 *     learning, or before and after an optimization round, gives two
 *     different answers; or a printed value does not read back as itself;
 *   - a version caught by run-time validation after an optimization round
 *     (its answer is replaced by v1's, so the difference above hides);
 *   - the nesting limit not kept: a program or a call nested past 1000
 *     levels (by a margin) accepted or run.
 * Run-time errors (exit 1: budgets, division by zero, an index out of
 * range, a failed postcondition, an uncovered call, a negative Natural, a
 * bad data file) are answers, not findings; they are counted by kind.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "flux.h"
#include "gen.h"

const char *volatile gen_run_current;

static FILE *devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    return f;
}

static int found(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int found(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return 1;
}

/* ---- files ---- */

static int write_file(const char *dir, const GenFile *f, char *why, size_t why_len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, f->name);
    unlink(path);
    if (f->kind == GEN_FILE_SQL) {
        sqlite3 *db = NULL;
        char *err = NULL;
        int rc = sqlite3_open(path, &db);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(db, f->text, NULL, NULL, &err);
        if (rc != SQLITE_OK) {
            found(why, why_len, "harness: cannot make %s: %s", path,
                  err ? err : sqlite3_errmsg(db));
            sqlite3_free(err);
            sqlite3_close(db);
            return 1;
        }
        sqlite3_close(db);
        return 0;
    }
    FILE *out = fopen(path, "wb");
    if (!out || fputs(f->text, out) < 0 || fclose(out) != 0)
        return found(why, why_len, "harness: cannot write %s", path);
    return 0;
}

/* ---- diagnostics ---- */

/* A memory stream for diagnostics, read back after. */
typedef struct Diag {
    char *text;
    size_t len;
    FILE *f;
} Diag;

static void diag_open(Diag *d)
{
    d->text = NULL;
    d->len = 0;
    d->f = open_memstream(&d->text, &d->len);
}

static const char *diag_close(Diag *d)
{
    fclose(d->f);
    d->f = NULL;
    return d->text ? d->text : "";
}

static void diag_free(Diag *d)
{
    free(d->text);
    d->text = NULL;
}

/* Is every error line of a rejection one the program allows? */
static bool rejection_allowed(const GenProgram *p, const char *diags)
{
    bool any = false;
    for (const char *line = diags; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *err = strstr(line, ": error: ");
        if (err && (size_t)(err - line) < n) {
            any = true;
            const char *msg = err + 9;
            bool ok = false;
            if (p->may_refute && strncmp(msg, "property `", 10) == 0) {
                const char *fa = strstr(msg, " is false: ");
                ok = fa && (size_t)(fa - line) < n;
            }
            if (p->very_deep && strstr(msg, "nests deeper than") &&
                (size_t)(strstr(msg, "nests deeper than") - line) < n)
                ok = true;
            if (!ok)
                return false;
        }
        line = end ? end + 1 : line + n;
    }
    return any;
}

/* The kind of a run-time error, from its message. */
static void count_error(GenStats *st, const char *msg)
{
    st->errors++;
    if (strstr(msg, "budget"))
        st->err_budget++;
    else if (strstr(msg, "division by zero"))
        st->err_div++;
    else if (strstr(msg, "out of range"))
        st->err_index++;
    else if (strstr(msg, "postcondition"))
        st->err_post++;
    else if (strstr(msg, "covers"))
        st->err_cover++;
    else if (strstr(msg, "is a Natural"))
        st->err_natural++;
    else if (strstr(msg, "data file") || strstr(msg, "column") || strstr(msg, ".csv") ||
             strstr(msg, ".db"))
        st->err_data++;
    else
        st->err_other++;
}

/* Budgets of time and memory depend on the machine's load and on what ran
 * before (the memory budget is the whole process's resident size): an
 * answer stopped by one is not compared. */
static bool unsteady(const char *msg)
{
    return strstr(msg, "time budget") || strstr(msg, "memory budget");
}

/* Does the printed value read back? Not when it holds inf or nan (outside
 * strings), and not worth it when it is long. */
static bool reads_back(const char *text)
{
    if (strlen(text) > 4096)
        return false;
    for (const char *p = text; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                return false;
            continue;
        }
        if (strncmp(p, "inf", 3) == 0 || strncmp(p, "nan", 3) == 0)
            return false;
    }
    return true;
}

/* ---- one call ---- */

typedef struct Outcome {
    int rc;
    char *text; /* the value, or the error message */
} Outcome;

static Outcome run_once(FluxProgram *prog, const char *expr, const FluxRunOptions *ro)
{
    Diag d;
    diag_open(&d);
    FluxResult r;
    Outcome o;
    gen_run_current = expr;
    o.rc = flux_run(prog, expr, ro, d.f, &r);
    gen_run_current = NULL;
    const char *msg = diag_close(&d);
    o.text = strdup(o.rc == FLUX_OK ? (r.text ? r.text : "") : msg);
    if (o.rc == FLUX_OK)
        flux_result_free(&r);
    diag_free(&d);
    return o;
}

/* The resident size now, in MB, as the memory budget reads it. */
static unsigned long long resident_mb(void)
{
    unsigned long long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (unsigned long long)sysconf(_SC_PAGESIZE) / (1024 * 1024);
}

/* Runs one call and its checks; when keep is not NULL, the first answer
 * is moved there (the caller frees its text), for the native comparison. */
static int check_call(const GenProgram *p, FluxProgram *prog, const char *expr,
                      const GenRunOptions *o, GenStats *st, char *why, size_t why_len,
                      Outcome *keep)
{
    FluxRunOptions ro = {
        .max_steps = o->max_steps,
        .max_memory_mb = resident_mb() + o->max_memory_mb,
        .max_seconds = o->max_seconds,
        .max_depth = p->max_depth,
        .want_json = p->want_json,
        .no_learn = 1,
    };
    int res = 0;
    st->calls++;
    Outcome a = run_once(prog, expr, &ro);
    if (o->log)
        fprintf(o->log, "  %s -> [%d] %.200s\n", expr, a.rc, a.text);
    if (strstr(a.text, "internal error")) {
        res = found(why, why_len, "internal error running %.300s: %.2000s", expr, a.text);
        goto out;
    }
    if (a.rc == FLUX_ERR_USAGE && p->very_deep && strstr(a.text, "nests deeper than")) {
        count_error(st, a.text); // past the nesting limit: refused, as it should be
        goto out;
    }
    if (a.rc == FLUX_ERR_USAGE || a.rc > FLUX_ERR_RUNTIME) {
        res = found(why, why_len, "flux_run(%.300s) gave %d: %.2000s", expr, a.rc, a.text);
        goto out;
    }
    if (a.rc == FLUX_OK)
        st->values++;
    else
        count_error(st, a.text);

    // the same call again: the same answer
    Outcome b = run_once(prog, expr, &ro);
    bool steady = !unsteady(a.text) && !unsteady(b.text);
    if (steady && (a.rc != b.rc || (a.rc == FLUX_OK && strcmp(a.text, b.text) != 0)))
        res = found(why, why_len, "%.300s gave two answers: [%d] %.1000s, then [%d] %.1000s", expr,
                    a.rc, a.text, b.rc, b.text);
    free(b.text);
    if (res)
        goto out;

    // with mid-run learning on, the same value
    if (p->learn) {
        ro.no_learn = 0;
        Outcome c = run_once(prog, expr, &ro);
        ro.no_learn = 1;
        if (a.rc == FLUX_OK && c.rc == FLUX_OK && strcmp(a.text, c.text) != 0)
            res = found(why, why_len, "%.300s: %.1000s without learning, %.1000s with", expr,
                        a.text, c.text);
        else if (strstr(c.text, "internal error"))
            res = found(why, why_len, "internal error running %.300s with learning: %.2000s", expr,
                        c.text);
        free(c.text);
        if (res)
            goto out;
    }

    // the printed value, read back as an EXPR, prints the same
    if (a.rc == FLUX_OK && reads_back(a.text)) {
        ro.want_json = 0;
        Outcome r = run_once(prog, a.text, &ro);
        st->roundtrips++;
        if ((r.rc != FLUX_OK && !unsteady(r.text)) || (r.rc == FLUX_OK && strcmp(r.text, a.text)))
            res = found(why, why_len, "the value of %.300s, %.1000s, reads back as [%d] %.1000s",
                        expr, a.text, r.rc, r.text);
        free(r.text);
    }
out:
    if (keep) {
        *keep = a;
        return res;
    }
    free(a.text);
    return res;
}

/* Is a call nested past the limit refused as such (exit 2, positioned)? */
static bool refused_as_deep(FluxProgram *prog, const char *expr)
{
    FluxRunOptions ro = {.max_steps = 1000, .no_learn = 1};
    Outcome o = run_once(prog, expr, &ro);
    bool refused = o.rc == FLUX_ERR_USAGE && strstr(o.text, "nests deeper than");
    free(o.text);
    return refused;
}

/* ---- with a store: an optimization round ---- */

/* Removes dir and everything under it (the store's files). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            remove_tree(path);
    }
    closedir(d);
    rmdir(dir);
}

/* The calls recorded in a new store, one round of flux_optimize, and the
 * calls again on the versions it installed: a proved rewrite gives the
 * values the naive graph gave. The store's reports (traces, history,
 * proofs) are written to /dev/null on the way. */
static int check_optimized(const GenProgram *p, FluxProgram *prog, const char *dir,
                           const GenRunOptions *o, GenStats *st, char *why, size_t why_len)
{
    char sdir[4096];
    snprintf(sdir, sizeof(sdir), "%s/store", dir);
    remove_tree(sdir);
    FluxStore *store = NULL;
    Diag d;
    diag_open(&d);
    int rc = flux_store_open(sdir, d.f, &store);
    const char *msg = diag_close(&d);
    int res = 0;
    if (rc != FLUX_OK) {
        res = found(why, why_len, "flux_store_open(%s) gave %d: %s", sdir, rc, msg);
        diag_free(&d);
        return res;
    }
    diag_free(&d);
    flux_program_use_store(prog, store, 0);
    FluxRunOptions ro = {.max_steps = o->max_steps,
                         .max_memory_mb = resident_mb() + o->max_memory_mb,
                         .max_seconds = o->max_seconds, .max_depth = p->max_depth,
                         .no_learn = 1};
    Outcome before[GEN_MAX_CALLS];
    size_t n = p->n_calls;
    for (size_t i = 0; i < n; i++)
        before[i] = run_once(prog, p->calls[i], &ro);
    diag_open(&d);
    rc = flux_store_flush(store, d.f); // a run counts once it is written
    msg = diag_close(&d);
    if (rc != FLUX_OK)
        res = found(why, why_len, "flux_store_flush gave %d: %.2000s", rc, msg);
    diag_free(&d);
    diag_open(&d);
    gen_run_current = "(flux_optimize)";
    rc = flux_optimize(prog, store, NULL, o->log ? o->log : devnull(), d.f);
    gen_run_current = NULL;
    msg = diag_close(&d);
    if (!res && (rc != FLUX_OK || strstr(msg, "internal error")))
        res = found(why, why_len, "flux_optimize gave %d: %.2000s", rc, msg);
    diag_free(&d);
    flux_program_use_store(prog, store, 0); // the newest versions
    for (size_t i = 0; i < n; i++) {
        if (!res) {
            ro.max_memory_mb = resident_mb() + o->max_memory_mb;
            Outcome after = run_once(prog, p->calls[i], &ro);
            bool steady = !unsteady(before[i].text) && !unsteady(after.text);
            if (steady && before[i].rc == FLUX_OK && after.rc == FLUX_OK &&
                strcmp(before[i].text, after.text) != 0)
                res = found(why, why_len, "%.300s: %.1000s before an optimization round, "
                                          "%.1000s after", p->calls[i], before[i].text,
                            after.text);
            else if (strstr(after.text, "internal error"))
                res = found(why, why_len, "internal error running %.300s after an "
                                          "optimization round: %.2000s", p->calls[i],
                            after.text);
            free(after.text);
        }
        free(before[i].text);
    }
    diag_open(&d);
    flux_history(store, prog, NULL, 0, d.f, NULL);
    msg = diag_close(&d);
    if (!res && strstr(msg, "failed run-time validation"))
        res = found(why, why_len, "a proved version's output failed run-time validation: %.2000s",
                    msg);
    diag_free(&d);
    flux_traces(store, prog, NULL, 0, p->want_json, devnull(), NULL);
    flux_history(store, prog, NULL, p->want_json, devnull(), NULL);
    flux_proofs(store, prog, 0, 0, 0, p->want_json, devnull(), NULL);
    flux_program_use_store(prog, NULL, 0); // back to v1, before the store goes
    diag_open(&d);
    rc = flux_store_close(store, d.f);
    msg = diag_close(&d);
    if (!res && rc != FLUX_OK)
        res = found(why, why_len, "flux_store_close gave %d: %s", rc, msg);
    diag_free(&d);
    remove_tree(sdir);
    st->optimized++;
    return res;
}

/* ---- the native tier against the interpreter ---- */

/* Tallies why an intent stayed interpreted: the round's line is "NAME: v1
 * stays interpreted: `F` WHAT", and WHAT (up to a parenthesis) is kept. */
static void tally_reason(GenStats *st, const char *line)
{
    const char *w = strstr(line, "stays interpreted: ");
    if (!w)
        return;
    w += strlen("stays interpreted: ");
    if (*w == '`' && strchr(w + 1, '`'))
        w = strchr(w + 1, '`') + 1;
    while (*w == ' ')
        w++;
    char key[72];
    size_t n = strcspn(w, "(\n");
    while (n && w[n - 1] == ' ')
        n--;
    if (n >= sizeof(key))
        n = sizeof(key) - 1;
    memcpy(key, w, n);
    key[n] = '\0';
    // an instruction's number differs from one program to the next
    char *num = strstr(key, "instruction (");
    if (num)
        num[strlen("instruction")] = '\0';
    st->native_stayed++;
    for (size_t i = 0; i < GEN_MAX_REASONS; i++) {
        if (!st->reasons[i][0])
            snprintf(st->reasons[i], sizeof(st->reasons[i]), "%s", key);
        if (!strcmp(st->reasons[i], key)) {
            st->reason_n[i]++;
            return;
        }
    }
}

/* Reads the round's report: a rejected or unbuilt object is a finding
 * (found), the rest is counted. */
static int read_round(GenStats *st, const char *report, char *why, size_t why_len)
{
    int res = 0;
    for (const char *line = report; *line;) {
        size_t n = strcspn(line, "\n");
        char buf[4096];
        snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), line);
        if (strstr(buf, "native code for") && strstr(buf, "; equal to the interpreter"))
            st->native_objects++;
        else if (strstr(buf, "stays interpreted: "))
            tally_reason(st, buf);
        if (!res && strstr(buf, "native code for") &&
            (strstr(buf, " rejected: ") || strstr(buf, " not built: ") ||
             strstr(buf, " disabled: ")))
            res = found(why, why_len, "native code differs from the interpreter (caught by "
                                      "the round's own test): %.3000s", buf);
        line += n + (line[n] == '\n');
    }
    return res;
}

/* An environment variable set for the round, and put back after. */
typedef struct SavedEnv {
    const char *name;
    char *old; /* NULL: was not set */
} SavedEnv;

static void env_set(SavedEnv *e, const char *name, const char *value, bool keep_users)
{
    const char *v = getenv(name);
    e->name = name;
    e->old = v ? strdup(v) : NULL;
    if (!(keep_users && v && *v))
        setenv(name, value, 1);
}

static void env_restore(SavedEnv *e)
{
    if (e->old)
        setenv(e->name, e->old, 1);
    else
        unsetenv(e->name);
    free(e->old);
}

/* The calls recorded in store (a version with no recorded run is never
 * promoted), then one round of the "native code" rule with every intent
 * hot; its report is read by read_round. */
static int native_round(const GenProgram *p, FluxProgram *prog, FluxStore *store,
                        FluxRunOptions *ro, const GenRunOptions *o, GenStats *st, char *why,
                        size_t why_len)
{
    int res = 0;
    for (size_t i = 0; i < p->n_calls; i++)
        free(run_once(prog, p->calls[i], ro).text);
    Diag d, rep;
    diag_open(&d);
    int rc = flux_store_flush(store, d.f);
    const char *msg = diag_close(&d);
    if (rc != FLUX_OK)
        res = found(why, why_len, "flux_store_flush gave %d: %.2000s", rc, msg);
    diag_free(&d);
    // every intent hot, and a short random test: the comparison of the
    // calls is the test that counts here (FLUX_NATIVE_INPUTS set by a
    // person wins)
    SavedEnv hot, inputs;
    env_set(&hot, "FLUX_NATIVE_HOT_MS", "0", false);
    env_set(&inputs, "FLUX_NATIVE_INPUTS", "64", true);
    diag_open(&rep);
    diag_open(&d);
    FluxOptimizeOptions oo = {.rule = "native code"};
    gen_run_current = "(flux_optimize_with native code)";
    rc = flux_optimize_with(prog, store, NULL, &oo, rep.f, d.f);
    gen_run_current = NULL;
    env_restore(&hot);
    env_restore(&inputs);
    msg = diag_close(&d);
    const char *report = diag_close(&rep);
    if (o->log)
        fprintf(o->log, "native round:\n%s", report);
    if (!res && (rc != FLUX_OK || strstr(msg, "internal error")))
        res = found(why, why_len, "flux_optimize_with(native code) gave %d: %.2000s", rc, msg);
    if (!res)
        res = read_round(st, report, why, why_len);
    diag_free(&d);
    diag_free(&rep);
    return res;
}

/* One call after the round against the interpreter's answer ref: to the
 * character, and with runaway protection on, the same value. */
static int native_call(const GenProgram *p, FluxProgram *prog, const char *expr,
                       const Outcome *ref, FluxRunOptions *ro, const GenRunOptions *o,
                       GenStats *st, char *why, size_t why_len)
{
    int res = 0;
    ro->max_memory_mb = resident_mb() + o->max_memory_mb;
    ro->want_json = 1;
    Diag e;
    diag_open(&e);
    FluxResult r;
    gen_run_current = expr;
    int nrc = flux_run(prog, expr, ro, e.f, &r);
    gen_run_current = NULL;
    const char *err = diag_close(&e);
    const char *text = nrc == FLUX_OK ? (r.text ? r.text : "") : err;
    bool ran = nrc == FLUX_OK && r.json && strstr(r.json, "\"native code\"");
    st->native_calls++;
    st->native_ran += ran;
    if (o->log)
        fprintf(o->log, "  native%s: %s -> [%d] %.200s\n", ran ? "" : " (interpreted)", expr,
                nrc, text);
    bool steady = !unsteady(ref->text) && !unsteady(text);
    if (strstr(text, "internal error"))
        res = found(why, why_len, "internal error running %.300s with native code: %.2000s",
                    expr, text);
    else if (steady && (nrc != ref->rc || strcmp(text, ref->text) != 0))
        res = found(why, why_len,
                    "native code differs from the interpreter%s: %.300s gave [%d] %.1000s "
                    "interpreted, [%d] %.1000s after the native round",
                    ran ? "" : " (its record names no native code)", expr, ref->rc, ref->text,
                    nrc, text);
    if (nrc == FLUX_OK)
        flux_result_free(&r);
    diag_free(&e);
    // runaway protection hands calls between native code and the interpreter
    if (!res && p->learn) {
        ro->no_learn = 0;
        ro->want_json = 0;
        Outcome c = run_once(prog, expr, ro);
        ro->no_learn = 1;
        if (ref->rc == FLUX_OK && c.rc == FLUX_OK && strcmp(ref->text, c.text) != 0)
            res = found(why, why_len, "native code differs from the interpreter with learning "
                                      "on: %.300s gave %.1000s interpreted, %.1000s after the "
                                      "native round", expr, ref->text, c.text);
        else if (strstr(c.text, "internal error"))
            res = found(why, why_len, "internal error running %.300s with native code and "
                                      "learning: %.2000s", expr, c.text);
        free(c.text);
    }
    return res;
}

/* The interpreter's answers (ref, from check_call: no store, so no native
 * code) against the answers after a round that made every intent it could
 * native code (docs/testing.md, "The native tier against the interpreter"). */
static int check_native(const GenProgram *p, FluxProgram *prog, const char *dir,
                        const Outcome *ref, const GenRunOptions *o, GenStats *st, char *why,
                        size_t why_len)
{
    char sdir[4096];
    snprintf(sdir, sizeof(sdir), "%s/nstore", dir);
    remove_tree(sdir);
    FluxStore *store = NULL;
    Diag d;
    diag_open(&d);
    int rc = flux_store_open(sdir, d.f, &store);
    const char *msg = diag_close(&d);
    int res = 0;
    if (rc != FLUX_OK) {
        res = found(why, why_len, "flux_store_open(%s) gave %d: %s", sdir, rc, msg);
        diag_free(&d);
        return res;
    }
    diag_free(&d);
    st->native_programs++;
    flux_program_use_store(prog, store, 0);
    FluxRunOptions ro = {.max_steps = o->max_steps,
                         .max_memory_mb = resident_mb() + o->max_memory_mb,
                         .max_seconds = o->max_seconds, .max_depth = p->max_depth,
                         .no_learn = 1};
    res = native_round(p, prog, store, &ro, o, st, why, why_len);
    flux_program_use_store(prog, store, 0); // the objects the round made
    for (size_t i = 0; i < p->n_calls && !res; i++)
        if (ref[i].rc >= 0) // run (a finding came first otherwise)
            res = native_call(p, prog, p->calls[i], &ref[i], &ro, o, st, why, why_len);
    flux_program_use_store(prog, NULL, 0);
    diag_open(&d);
    rc = flux_store_close(store, d.f);
    msg = diag_close(&d);
    if (!res && rc != FLUX_OK)
        res = found(why, why_len, "flux_store_close gave %d: %s", rc, msg);
    diag_free(&d);
    remove_tree(sdir);
    return res;
}

/* ---- one program ---- */

static int graph_all(const GenProgram *p, FluxProgram *prog, GenStats *st, char *why,
                     size_t why_len)
{
    static const char *const formats[] = {"text", "json", "dot"};
    for (size_t i = 0; i < p->n_intents; i++) {
        for (size_t f = 0; f < 3; f++) {
            Diag d;
            diag_open(&d);
            int rc = flux_graph(prog, p->intents[i], f == 2 ? "v1" : NULL, formats[f], devnull(),
                                d.f);
            const char *msg = diag_close(&d);
            int res = rc == FLUX_OK ? 0
                                    : found(why, why_len, "flux_graph(%s, %s) gave %d: %s",
                                            p->intents[i], formats[f], rc, msg);
            diag_free(&d);
            if (res)
                return res;
            st->graphs++;
        }
    }
    return 0;
}

int gen_run(const GenProgram *p, const char *dir, const GenRunOptions *o, GenStats *st,
            char *why, size_t why_len)
{
    st->programs++;
    for (size_t i = 0; i < p->n_files; i++)
        if (write_file(dir, &p->files[i], why, why_len))
            return 1;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, p->files[0].name);
    FluxLoadOptions lo = {.smt_timeout_ms = p->smt_timeout_ms, .types_only = p->types_only};
    FluxProgram *prog = NULL;
    Diag d;
    diag_open(&d);
    gen_run_current = "(loading)";
    int rc = flux_program_load(path, &lo, d.f, &prog);
    gen_run_current = NULL;
    const char *diags = diag_close(&d);
    int res = 0;
    if (strstr(diags, "internal error")) {
        res = found(why, why_len, "internal error while loading:\n%s", diags);
    } else if (rc == FLUX_ERR_REJECTED && rejection_allowed(p, diags)) {
        st->rejected_expected++;
    } else if (rc != FLUX_OK) {
        res = found(why, why_len, "%s (flux_program_load gave %d):\n%s",
                    rc == FLUX_ERR_REJECTED ? "false rejection" : "cannot load", rc, diags);
    }
    diag_free(&d);
    if (rc != FLUX_OK || res) {
        flux_program_free(prog);
        return res;
    }
    st->accepted++;
    if (p->too_deep) {
        flux_program_free(prog);
        return found(why, why_len, "accepted a program nested past the limit of 1000 levels "
                                   "(docs/language.md §5)");
    }
    if (o->log)
        fprintf(o->log, "accepted (%zu warnings)\n", flux_program_warnings(prog));
    flux_program_describe(prog, devnull());
    res = graph_all(p, prog, st, why, why_len);
    Outcome ref[GEN_MAX_CALLS];
    for (size_t i = 0; i < p->n_calls; i++)
        ref[i] = (Outcome){-1, NULL};
    for (size_t i = 0; i < p->n_calls && !res; i++) {
        res = check_call(p, prog, p->calls[i], o, st, why, why_len, &ref[i]);
        if (!res && (int)i + 1 == p->too_deep_call && !refused_as_deep(prog, p->calls[i]))
            res = found(why, why_len, "ran a call nested past the limit of 1000 levels "
                                      "(docs/language.md §5)");
    }
    // native code first: the round below may install versions, and the
    // comparison is with v1's answers
    if (!res && o->native)
        res = check_native(p, prog, dir, ref, o, st, why, why_len);
    for (size_t i = 0; i < p->n_calls; i++)
        free(ref[i].text);
    if (!res && p->optimize)
        res = check_optimized(p, prog, dir, o, st, why, why_len);
    if (!res && p->explain && p->n_calls) {
        FluxRunOptions ro = {.max_steps = o->max_steps,
                             .max_memory_mb = resident_mb() + o->max_memory_mb,
                             .max_seconds = o->max_seconds, .max_depth = p->max_depth,
                             .no_learn = 1};
        Diag e;
        diag_open(&e);
        gen_run_current = p->calls[0];
        flux_explain(prog, p->calls[0], &ro, p->want_json, devnull(), e.f);
        gen_run_current = NULL;
        const char *msg = diag_close(&e);
        if (strstr(msg, "internal error"))
            res = found(why, why_len, "internal error explaining %s: %s", p->calls[0], msg);
        diag_free(&e);
    }
    flux_program_free(prog);
    return res;
}

/* ---- the known bugs and their reproducers ---- */

/* ORDER GEN_KNOWN */
static const char *const known_names[] = {
    "comp-eq-var", "comp-in-list", "deep-stack", "minmax-empty", "post-call-eq", "any-concat",
    "alias-empty-record", "matrix-from-list", "budget-poll", "big-power",
    "range-budget", "prelude-sees-user", "len-size-alias", "optimize-imported",
};

unsigned gen_known_bit(const char *name)
{
    for (size_t i = 0; i < sizeof(known_names) / sizeof(known_names[0]); i++)
        if (strcmp(known_names[i], name) == 0)
            return 1u << i;
    return 0;
}

/* The value of a `# KEY: value` line of text, in buf, or NULL. */
static const char *header(const char *text, const char *key, char *buf, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "# %s: ", key);
    const char *p = strstr(text, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = strcspn(p, "\n");
    if (n >= len)
        n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

/* In the child: 0 when the reproducer passes (the bug is fixed). */
static int probe_child(const char *path, const char *probe)
{
    FluxLoadOptions lo = {.smt_timeout_ms = 2000};
    FluxProgram *prog = NULL;
    if (flux_program_load(path, &lo, NULL, &prog) != FLUX_OK)
        return 1;
    if (strcmp(probe, "check") == 0)
        return 0;
    if (strcmp(probe, "optimize") == 0) {
        // `optimize`: one round over the whole program, in a new store, is fine
        char dir[] = "/tmp/flux-probe-XXXXXX";
        FluxStore *st = NULL;
        if (!mkdtemp(dir) || flux_store_open(dir, NULL, &st) != FLUX_OK)
            return 2;
        FILE *null = fopen("/dev/null", "w");
        return flux_optimize(prog, st, NULL, null, null) == FLUX_OK ? 0 : 1;
    }
    static char expr[1 << 20];
    if (strncmp(probe, "deep ", 5) == 0) {
        // `deep N`: N parentheses around id(1): an answer or an error, not a crash
        size_t n = strtoul(probe + 5, NULL, 10);
        if (2 * n + 16 > sizeof(expr))
            return 2;
        memset(expr, '(', n);
        strcpy(expr + n, "id(1)");
        memset(expr + n + 5, ')', n);
        expr[2 * n + 5] = '\0';
        FluxRunOptions ro = {.max_steps = 1000, .no_learn = 1};
        FluxResult r;
        if (flux_run(prog, expr, &ro, NULL, &r) == FLUX_OK)
            flux_result_free(&r);
        return 0;
    } else if (strncmp(probe, "budget ", 7) == 0 || strncmp(probe, "budget-store ", 13) == 0) {
        // `budget EXPR`: with budgets of 1 s and 64 MB, done within 3 s and
        // 500 MB; `budget-store EXPR` the same, recorded in a new store
        bool store = probe[6] == '-';
        char dir[] = "/tmp/flux-probe-XXXXXX";
        FluxStore *st = NULL;
        if (store && (!mkdtemp(dir) || flux_store_open(dir, NULL, &st) != FLUX_OK))
            return 2;
        if (st)
            flux_program_use_store(prog, st, 0);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        FluxRunOptions ro = {.max_seconds = 1, .max_memory_mb = 64, .no_learn = 1};
        FluxResult r;
        if (flux_run(prog, probe + (store ? 13 : 7), &ro, NULL, &r) == FLUX_OK)
            flux_result_free(&r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        return secs < 3 && ru.ru_maxrss < 500 * 1024 ? 0 : 1;
    } else if (strncmp(probe, "run ", 4) == 0) {
        snprintf(expr, sizeof(expr), "%s", probe + 4);
    } else {
        return 2;
    }
    char *want = strstr(expr, " => ");
    if (want) {
        *want = '\0';
        want += 4;
    }
    FluxRunOptions ro = {.max_steps = 10000000, .max_memory_mb = 1024, .max_seconds = 10,
                         .no_learn = 1};
    FluxResult r;
    int rc = flux_run(prog, expr, &ro, NULL, &r);
    if (rc == FLUX_OK) {
        bool same = !want || strcmp(r.text, want) == 0;
        flux_result_free(&r);
        return same ? 0 : 1;
    }
    return rc == FLUX_ERR_RUNTIME && !want ? 0 : 1;
}

unsigned gen_probe_found(const char *dir, FILE *log)
{
    unsigned mask = 0;
    struct dirent **list = NULL;
    int count = scandir(dir, &list, NULL, alphasort);
    if (count < 0) {
        if (log)
            fprintf(log, "gen_fuzz: no reproducers in %s\n", dir);
        return 0;
    }
    for (int k = 0; k < count; k++) {
        const struct dirent *e = list[k];
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".flux") != 0)
            continue;
        char path[4096], text[8192] = "", name[64], probe[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t got = fread(text, 1, sizeof(text) - 1, f);
        text[got] = '\0';
        fclose(f);
        if (!header(text, "avoid", name, sizeof(name)) ||
            !header(text, "probe", probe, sizeof(probe)))
            continue;
        unsigned bit = gen_known_bit(name);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            _exit(probe_child(path, probe));
        }
        int status = 0;
        bool fails = pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
                     WEXITSTATUS(status) != 0;
        if (fails)
            mask |= bit;
        if (log)
            fprintf(log, "gen_fuzz: %s (%s): %s\n", e->d_name, name,
                    !bit ? "unknown name" : fails ? "still fails, avoided" : "passes");
    }
    for (int k = 0; k < count; k++)
        free(list[k]);
    free(list);
    return mask;
}
