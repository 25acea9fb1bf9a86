/*
 * cluster.c: the jobs of the MPI device (cluster.h): a count of primes, a
 * sample sort and an element-wise map split across ranks, the loop the
 * workers serve them in, and the bytes Flux values travel as.
 *
 * DESIGN. Rank 0 runs the program; when a kernel call is worth splitting
 * it sends every worker a Job (a fixed header), then the data of the job;
 * each rank computes its part; the parts come back to rank 0 in rank order
 * and are combined so that the result is the one a single process gives:
 *
 *   count  [lo, hi) in N contiguous segments, one a rank; the counts are
 *          summed (each number is tested on its own; + on naturals is
 *          associative and commutative, so the sum is exact);
 *   sort   int64 keys: a slice a rank, sorted by a sort kernel; 64
 *          samples a rank give N - 1 splitters; rank j's bucket holds the
 *          keys in [split[j], split[j + 1]) of every slice, exchanged
 *          among all ranks and merged; the buckets, gathered in rank order,
 *          are the sorted list (int64 keys have one sorted order, so it is
 *          the single process's, equal keys being indistinguishable);
 *   map    `for each x in XS: E`: rank 0 sends every worker the graphs of
 *          the intent and of all it calls (so that every rank runs the
 *          versions rank 0 runs), the other arguments and a slice of XS;
 *          rank 0 runs its own slice in the VM (its loop's end lowered to
 *          the slice's, OP_SPLIT); the parts are joined in order. E reads
 *          XS only through x (fx_cluster_map_shape), so each element of the
 *          result depends only on its own element and the other arguments.
 *
 * Protocol, per job: rank 0 sends Job (tag JOB) to every worker, then the
 * job's data. A worker's answer is a Reply (tag REPLY: a status, a number,
 * an error); when data follows, the worker waits for rank 0's GO before it
 * sends it, so that a rank waiting for another one's computation sleeps
 * (fx_mpi_wait idle) and only a transfer in progress spins. Rank 0 takes
 * the replies in rank order. Invariants: between jobs no message is in
 * flight; while a map runs on rank 0 (between OP_SPLIT's two halves) the
 * job is `pending`, and an error in rank 0's loop leaves it to
 * fx_cluster_settle, which takes the workers' answers and drops them.
 *
 * Values travel as a tagged binary form, in the byte order of the ranks
 * (a cluster of one architecture): unboxed lists of integers or floats as
 * their arrays, big integers as decimal text, records with their names.
 */
#include "cluster.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "base/buf.h"
#include "choose.h"
#include "hw/mpi.h"
#include "interp_int.h"
#include "sortk.h"

enum { TAG_JOB = 1, TAG_DATA, TAG_REPLY, TAG_GO, TAG_RESULT, TAG_SAMPLE };
enum { JOB_DONE, JOB_COUNT, JOB_SORT, JOB_MAP };

/* What rank 0 sends every worker first. */
typedef struct Job {
    uint32_t kind; /* JOB_* */
    uint32_t arg;  /* count: the sieve; sort: the sort kernel; map: the list parameter */
    uint64_t lo, hi; /* count: the range; sort and map: [0, n) */
    uint64_t bytes;  /* map: the size of the payload every worker gets */
    uint64_t segment; /* count: the sieve's segment bytes */
    FxBudgets budgets; /* map: rank 0's */
} Job;

/* A worker's answer. */
typedef struct Reply {
    int32_t status;  /* 0: done; 1: failed, why says why */
    uint64_t value;  /* count: the count; sort and map: the bytes of data that follow */
    char why[240];
} Reply;

#define SAMPLES 64 /* a rank's samples for the sort's splitters */

static FxClusterMode mode;
static bool active;     /* rank 0 of a cluster that runs */
static bool broken;     /* a message failed: the ranks may be out of step */
static unsigned ranks;
/* guards busy: a job runs (from claim to release) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool busy;

/* The map that runs on rank 0 (between OP_SPLIT's halves). */
static struct {
    bool open;
    int64_t id;
    unsigned next; /* the next worker whose answer is to be taken */
} pending;
static int64_t jobs; /* ids of maps */

static FxClusterSplit last;
static bool has_last;

/* ---- messages ---- */

/* A message failed (a rank is gone, or MPI is): no more jobs, and at the
 * end the job is aborted rather than finalized, since a worker may wait
 * for a message that will not come. */
static void lose_step(void)
{
    active = false;
    broken = true;
}

static bool claim(void)
{
    if (!active)
        return false;
    pthread_mutex_lock(&lock);
    bool free_now = !busy;
    busy = true;
    pthread_mutex_unlock(&lock);
    return free_now;
}

static void release_job(void)
{
    pthread_mutex_lock(&lock);
    busy = false;
    pthread_mutex_unlock(&lock);
}

/* The same bytes to every worker. */
static bool send_workers(int tag, const void *buf, size_t bytes, char *why, size_t len)
{
    FxMpiMsg **m = fx_xcalloc(ranks, sizeof(*m));
    bool ok = true;
    for (unsigned r = 1; r < ranks && ok; r++)
        ok = (m[r] = fx_mpi_isend((int)r, tag, buf, bytes, why, len)) != NULL;
    for (unsigned r = 1; r < ranks; r++)
        if (m[r] && !fx_mpi_wait(m[r], false, why, len))
            ok = false;
    free(m);
    return ok;
}

/* Rank r's reply; when data follows, GO and then the data into a new
 * buffer (*data, *bytes). */
static bool take_reply(unsigned r, Reply *rep, char **data, char *why, size_t len)
{
    if (data)
        *data = NULL;
    if (!fx_mpi_recv((int)r, TAG_REPLY, rep, sizeof(*rep), true, why, len))
        return false;
    rep->why[sizeof(rep->why) - 1] = '\0';
    if (rep->status != 0 || !data)
        return true;
    *data = fx_xmalloc(rep->value ? rep->value : 1);
    char go = 1;
    FxMpiMsg *m = fx_mpi_irecv((int)r, TAG_RESULT, *data, rep->value, why, len);
    if (!m || !fx_mpi_send((int)r, TAG_GO, &go, 1, why, len) ||
        !fx_mpi_wait(m, false, why, len)) {
        free(*data);
        *data = NULL;
        return false;
    }
    return true;
}

/* A worker's answer: the reply, then (when it succeeded and data is given)
 * rank 0's GO and the data. */
static bool answer(const Reply *rep, const void *data, char *why, size_t len)
{
    if (!fx_mpi_send(0, TAG_REPLY, rep, sizeof(*rep), why, len))
        return false;
    if (rep->status != 0 || !data)
        return true;
    char go;
    return fx_mpi_recv(0, TAG_GO, &go, 1, true, why, len) &&
           fx_mpi_send(0, TAG_RESULT, data, rep->value, why, len);
}

static void failed_reply(Reply *rep, const char *fmt, const char *what)
{
    rep->status = 1;
    rep->value = 0;
    snprintf(rep->why, sizeof(rep->why), fmt, what);
}

/* Part r of [lo, hi) in `parts` contiguous segments. */
static void part(uint64_t lo, uint64_t hi, unsigned parts, unsigned r, uint64_t *a, uint64_t *b)
{
    uint64_t span = (hi - lo) / parts;
    *a = lo + span * r;
    *b = r + 1 == parts ? hi : *a + span;
}

/* ---- starting, stopping ---- */

static void at_exit(void)
{
    fx_cluster_stop();
}

FxClusterRole fx_cluster_start(FxClusterMode m, char *why, size_t why_len, bool *warning)
{
    *warning = false;
    mode = m;
    int env_rank = fx_mpi_env_rank();
    if (m == FX_CLUSTER_CPU)
        return env_rank > 0 ? FX_CLUSTER_IDLE : FX_CLUSTER_RUN;
    if (m == FX_CLUSTER_AUTO && fx_mpi_env_size() <= 1)
        return FX_CLUSTER_RUN;
    if (!fx_mpi_start(m == FX_CLUSTER_FORCE, why, why_len)) {
        if (m == FX_CLUSTER_FORCE)
            return FX_CLUSTER_ERROR;
        *warning = env_rank <= 0; /* rank 0 says it runs alone; the others say nothing */
        return env_rank > 0 ? FX_CLUSTER_IDLE : FX_CLUSTER_RUN;
    }
    ranks = (unsigned)fx_mpi_size();
    atexit(at_exit);
    if (fx_mpi_rank() > 0) {
        return FX_CLUSTER_SERVE;
    }
    active = true;
    return FX_CLUSTER_RUN;
}

bool fx_cluster_active(void)
{
    return active;
}

bool fx_cluster_forced(void)
{
    return active && mode == FX_CLUSTER_FORCE;
}

const char *fx_cluster_device(void)
{
    static char label[128];
    if (active && !label[0])
        snprintf(label, sizeof(label), "MPI on %u ranks (%s)", ranks, fx_mpi_library());
    return label;
}

void fx_cluster_stop(void)
{
    if (broken) {
        broken = false;
        fprintf(stderr, "flux: mpi: the ranks' messages failed; ending the job\n");
        fx_mpi_abort(1);
    }
    if (active) {
        fx_cluster_settle();
        active = false;
        Job done = {.kind = JOB_DONE};
        char why[256];
        if (!send_workers(TAG_JOB, &done, sizeof(done), why, sizeof(why)))
            fprintf(stderr, "flux: mpi: the workers' end was not sent: %s\n", why);
    }
    fx_mpi_stop();
}

/* chosen: the caller's reason to split (the device cost model's, or
 * forced), NULL to run here */
static bool wants(const char *chosen)
{
    return active && chosen;
}

/* "; rank 0: [a, b), rank 1: [c, d)": at most 4 ranks named, then the last. */
static void list_parts(FxBuf *b, const uint64_t *lo, const uint64_t *hi)
{
    for (unsigned r = 0; r < ranks; r++) {
        if (r == 3 && ranks > 4) {
            fx_buf_puts(b, ", ...");
            r = ranks - 1;
        }
        fx_buf_printf(b, "%s rank %u: [%llu, %llu)", r ? "," : ";", r,
                      (unsigned long long)lo[r], (unsigned long long)hi[r]);
    }
}

/* A split's decision: b (what was split, freed here), each rank's part,
 * and the reason to split; DONE. */
static FxSplit decided(FxBuf *b, const char *chosen, char *why, size_t why_len)
{
    list_parts(b, last.lo, last.hi);
    fx_buf_printf(b, "; %s", chosen);
    snprintf(why, why_len, "%s", fx_buf_str(b));
    fx_buf_free(b);
    return FX_SPLIT_DONE;
}

/* Makes `last` the record of a new split of `job` in `ranks` parts, its
 * parts zero (the caller sets them). */
static void record(const char *job, const char *intent, const char *list)
{
    free(last.lo);
    free(last.hi);
    free(last.split);
    memset(&last, 0, sizeof(last));
    last.job = job;
    last.intent = intent;
    last.list = list;
    last.ranks = ranks;
    last.lo = fx_xcalloc(ranks, sizeof(uint64_t));
    last.hi = fx_xcalloc(ranks, sizeof(uint64_t));
    snprintf(last.library, sizeof(last.library), "%s", fx_mpi_library());
    has_last = true;
}

const FxClusterSplit *fx_cluster_last(void)
{
    return has_last ? &last : NULL;
}

void fx_cluster_forget(void)
{
    has_last = false;
}

/* ---- count ---- */

static bool go_on(void *ctx)
{
    (void)ctx;
    return true;
}

FxSplit fx_cluster_count_primes(FxSieveKind kind, uint64_t lo, uint64_t hi, size_t segment,
                                FxKeepGoing keep_going, void *ctx, const char *chosen,
                                uint64_t *out, char *why, size_t why_len)
{
    if (hi <= lo || hi - lo < ranks || !wants(chosen) || !claim())
        return FX_SPLIT_LOCAL;
    Job j = {.kind = JOB_COUNT, .arg = kind, .lo = lo, .hi = hi, .segment = segment};
    if (!send_workers(TAG_JOB, &j, sizeof(j), why, why_len)) {
        lose_step();
        release_job();
        return FX_SPLIT_FAILED;
    }
    record("count", NULL, NULL);
    for (unsigned r = 0; r < ranks; r++)
        part(lo, hi, ranks, r, &last.lo[r], &last.hi[r]);
    uint64_t total = 0;
    bool stopped = !fx_sieve_count(kind, last.lo[0], last.hi[0], fx_mpi_threads(), segment,
                                   &total, keep_going, ctx);
    char err[320] = "";
    for (unsigned r = 1; r < ranks; r++) {
        Reply rep;
        if (!take_reply(r, &rep, NULL, err, sizeof(err))) {
            lose_step();
            break;
        }
        if (rep.status != 0 && !err[0])
            snprintf(err, sizeof(err), "rank %u: %s", r, rep.why);
        total += rep.value;
    }
    release_job();
    if (err[0]) {
        snprintf(why, why_len, "%s", err);
        return FX_SPLIT_FAILED;
    }
    if (stopped)
        return FX_SPLIT_STOPPED;
    *out = total;
    snprintf(last.why, sizeof(last.why),
             "the count of [%llu, %llu) is the sum of the counts of its %u disjoint segments: "
             "each number is tested on its own (a rank sieves its segment with the primes up to "
             "the square root of its end, which it finds itself), and + on naturals is "
             "associative and commutative, so the sum is exact in any order",
             (unsigned long long)lo, (unsigned long long)hi, ranks);
    FxBuf b = {0};
    fx_buf_printf(&b, "%u ranks (%s), the count of [%llu, %llu) in %u segments, sieve %s on %u "
                  "thread%s a rank", ranks, last.library, (unsigned long long)lo,
                  (unsigned long long)hi, ranks, fx_sieve_name(kind), fx_mpi_threads(),
                  fx_mpi_threads() == 1 ? "" : "s");
    return decided(&b, chosen, why, why_len);
}

static bool serve_count(const Job *j, char *why, size_t len)
{
    uint64_t a, b, count = 0;
    part(j->lo, j->hi, ranks, (unsigned)fx_mpi_rank(), &a, &b);
    Reply rep = {0};
    fx_sieve_count((FxSieveKind)j->arg, a, b, fx_mpi_threads(), j->segment, &count, go_on, NULL);
    rep.value = count;
    return answer(&rep, NULL, why, len);
}

/* ---- sort ---- */

static int64_t *xmalloc_keys(size_t n)
{
    return fx_xmalloc((n ? n : 1) * sizeof(int64_t));
}

/* The first position of a[0..n) (ascending) holding a key >= x. */
static size_t lower_bound(const int64_t *a, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The k sorted runs, merged into one new array (pairs of neighbours merged
 * level by level: log2 k passes). */
static int64_t *merge_runs(int64_t *const *run, const size_t *len, unsigned k, size_t *out_n)
{
    size_t total = 0;
    size_t *at = fx_xcalloc(k + 1, sizeof(size_t));
    for (unsigned i = 0; i < k; i++) {
        at[i] = total;
        total += len[i];
    }
    at[k] = total;
    int64_t *buf = xmalloc_keys(total), *tmp = xmalloc_keys(total);
    for (unsigned i = 0; i < k; i++)
        if (len[i])
            memcpy(buf + at[i], run[i], len[i] * sizeof(int64_t));
    while (k > 1) { /* run i is [at[i], at[i + 1]); at[k] = total */
        unsigned merged = 0;
        for (unsigned i = 0; i < k; i += 2) {
            size_t a = at[i], m = at[i + 1], e = i + 2 <= k ? at[i + 2] : m;
            size_t x = a, y = m, o = a;
            while (x < m && y < e)
                tmp[o++] = buf[y] < buf[x] ? buf[y++] : buf[x++];
            memcpy(tmp + o, buf + x, (m - x) * sizeof(int64_t));
            o += m - x;
            memcpy(tmp + o, buf + y, (e - y) * sizeof(int64_t));
            at[merged++] = a;
        }
        at[merged] = total;
        k = merged;
        int64_t *t = buf;
        buf = tmp;
        tmp = t;
    }
    free(tmp);
    free(at);
    *out_n = total;
    return buf;
}

/* Sends send[j] to each rank j and receives recv[i] from each rank i (not
 * this one), all at once. */
static bool exchange(void *const *send, const size_t *sbytes, void *const *recv,
                     const size_t *rbytes, int tag, bool idle, char *why, size_t len)
{
    unsigned me = (unsigned)fx_mpi_rank();
    FxMpiMsg **m = fx_xcalloc(2 * ranks, sizeof(*m));
    bool ok = true;
    for (unsigned i = 0; i < ranks && ok; i++)
        if (i != me)
            ok = (m[i] = fx_mpi_irecv((int)i, tag, recv[i], rbytes[i], why, len)) != NULL;
    for (unsigned j = 0; j < ranks && ok; j++)
        if (j != me)
            ok = (m[ranks + j] = fx_mpi_isend((int)j, tag, send[j], sbytes[j], why, len)) != NULL;
    for (unsigned i = 0; i < 2 * ranks; i++)
        if (m[i] && !fx_mpi_wait(m[i], idle, why, len))
            ok = false;
    free(m);
    return ok;
}

/* This rank's share of a sample sort of n keys: a[0..m) is its slice.
 * Sorts it, agrees on splitters with the others (rank 0 picks them from
 * every rank's samples; *split gets them, ranks of them, split[0] unused),
 * exchanges buckets, and returns its bucket, merged (*out_n keys). */
static int64_t *sample_sort(int64_t *a, size_t m, size_t n, FxSortKind kind, int64_t *split,
                            size_t *out_n, char *why, size_t len)
{
    unsigned me = (unsigned)fx_mpi_rank();
    if (!fx_sortk(kind, a, m, false, fx_mpi_threads()))
        fx_sortk(FX_SORTK_PDQ, a, m, false, 1); /* in place: needs no scratch */
    size_t s = m < SAMPLES ? m : SAMPLES;
    int64_t mine[SAMPLES];
    for (size_t i = 0; i < s; i++)
        mine[i] = a[(2 * i + 1) * m / (2 * s)];
    bool ok = true;
    if (me == 0) { /* every rank's samples, then splitters at regular ranks among them */
        int64_t *all = xmalloc_keys((size_t)ranks * SAMPLES);
        size_t total = s;
        memcpy(all, mine, s * sizeof(int64_t));
        for (unsigned r = 1; r < ranks && ok; r++) {
            uint64_t rlo, rhi;
            part(0, n, ranks, r, &rlo, &rhi);
            size_t sr = rhi - rlo < SAMPLES ? rhi - rlo : SAMPLES;
            ok = fx_mpi_recv((int)r, TAG_SAMPLE, all + total, sr * sizeof(int64_t), true, why,
                             len);
            total += sr;
        }
        fx_sortk(FX_SORTK_PDQ, all, total, false, 1);
        split[0] = INT64_MIN;
        for (unsigned j = 1; j < ranks; j++)
            split[j] = total ? all[(size_t)j * total / ranks] : 0;
        free(all);
        ok = ok && send_workers(TAG_SAMPLE, split, ranks * sizeof(int64_t), why, len);
    } else {
        ok = fx_mpi_send(0, TAG_SAMPLE, mine, s * sizeof(int64_t), why, len) &&
             fx_mpi_recv(0, TAG_SAMPLE, split, ranks * sizeof(int64_t), true, why, len);
    }
    if (!ok)
        return NULL;
    /* bucket j: the keys in [split[j], split[j + 1]) */
    size_t *cut = fx_xcalloc(ranks + 1, sizeof(size_t));
    uint64_t *count_out = fx_xcalloc(ranks, sizeof(uint64_t));
    uint64_t *count_in = fx_xcalloc(ranks, sizeof(uint64_t));
    for (unsigned j = 1; j < ranks; j++)
        cut[j] = lower_bound(a, m, split[j]);
    cut[ranks] = m;
    void **sp = fx_xcalloc(ranks, sizeof(void *)), **rp = fx_xcalloc(ranks, sizeof(void *));
    size_t *sb = fx_xcalloc(ranks, sizeof(size_t)), *rb = fx_xcalloc(ranks, sizeof(size_t));
    for (unsigned j = 0; j < ranks; j++) {
        count_out[j] = cut[j + 1] - cut[j];
        sp[j] = &count_out[j];
        rp[j] = &count_in[j];
        sb[j] = rb[j] = sizeof(uint64_t);
    }
    count_in[me] = count_out[me];
    ok = exchange(sp, sb, rp, rb, TAG_DATA, true, why, len);
    int64_t **run = fx_xcalloc(ranks, sizeof(int64_t *));
    size_t *run_len = fx_xcalloc(ranks, sizeof(size_t));
    for (unsigned j = 0; j < ranks && ok; j++) {
        sp[j] = a + cut[j];
        sb[j] = count_out[j] * sizeof(int64_t);
        run[j] = j == me ? a + cut[me] : xmalloc_keys(count_in[j]);
        run_len[j] = count_in[j];
        rp[j] = run[j];
        rb[j] = count_in[j] * sizeof(int64_t);
    }
    ok = ok && exchange(sp, sb, rp, rb, TAG_DATA, false, why, len);
    int64_t *bucket = ok ? merge_runs(run, run_len, ranks, out_n) : NULL;
    for (unsigned j = 0; j < ranks; j++)
        if (j != me)
            free(run[j]);
    free(run);
    free(run_len);
    free(sp);
    free(rp);
    free(sb);
    free(rb);
    free(cut);
    free(count_out);
    free(count_in);
    return bucket;
}

FxSplit fx_cluster_sort(const FxSortCosts *costs, int64_t *k, size_t n, bool desc,
                        const char *chosen, char *why, size_t why_len)
{
    if (n < (size_t)ranks * SAMPLES || !wants(chosen) || !claim())
        return FX_SPLIT_LOCAL;
    uint64_t lo0, hi0;
    part(0, n, ranks, 0, &lo0, &hi0);
    FxSortFeatures f;
    fx_sortk_features(k, hi0, &f);
    char kwhy[320];
    FxSortKind kind = fx_choose_sort(costs, &f, fx_mpi_threads(), kwhy, sizeof(kwhy));
    Job j = {.kind = JOB_SORT, .arg = kind, .lo = 0, .hi = n};
    bool ok = send_workers(TAG_JOB, &j, sizeof(j), why, why_len);
    /* the slices: scattered */
    FxMpiMsg **m = fx_xcalloc(ranks, sizeof(*m));
    for (unsigned r = 1; r < ranks && ok; r++) {
        uint64_t a, b;
        part(0, n, ranks, r, &a, &b);
        ok = (m[r] = fx_mpi_isend((int)r, TAG_DATA, k + a, (b - a) * sizeof(int64_t), why,
                                  why_len)) != NULL;
    }
    for (unsigned r = 1; r < ranks; r++)
        if (m[r] && !fx_mpi_wait(m[r], false, why, why_len))
            ok = false;
    free(m);
    int64_t *split = fx_xcalloc(ranks, sizeof(int64_t));
    size_t mine_n = 0;
    int64_t *mine = ok ? sample_sort(k, hi0, n, kind, split, &mine_n, why, why_len) : NULL;
    ok = mine != NULL;
    if (ok) { /* rank 0's bucket first, then each worker's after it, in rank order */
        record("sort", NULL, NULL);
        last.split = split;
        split = NULL;
        memcpy(k, mine, mine_n * sizeof(int64_t));
        last.lo[0] = 0;
        last.hi[0] = mine_n;
    }
    free(mine);
    free(split);
    char err[320] = "";
    size_t at = mine_n;
    for (unsigned r = 1; r < ranks && ok; r++) {
        Reply rep;
        char *data;
        ok = take_reply(r, &rep, &data, why, why_len);
        if (ok && rep.status != 0 && !err[0])
            snprintf(err, sizeof(err), "rank %u: %s", r, rep.why);
        if (ok && data && at + rep.value / sizeof(int64_t) <= n) {
            memcpy(k + at, data, rep.value);
            last.lo[r] = at;
            at += rep.value / sizeof(int64_t);
            last.hi[r] = at;
        }
        free(data);
    }
    release_job();
    if (!ok) {
        lose_step();
        return FX_SPLIT_FAILED;
    }
    if (err[0] || at != n) {
        snprintf(why, why_len, "%s", err[0] ? err : "the ranks' buckets do not hold n keys");
        return FX_SPLIT_FAILED;
    }
    if (desc) /* int64 keys: the descending order is the ascending one reversed */
        for (size_t i = 0, e = n - 1; i < e; i++, e--) {
            int64_t t = k[i];
            k[i] = k[e];
            k[e] = t;
        }
    snprintf(last.why, sizeof(last.why),
             "a sample sort: rank j's bucket holds the keys of every slice that are at least "
             "splitter j and below splitter j + 1, so the buckets, each sorted, laid end to end "
             "in rank order are the sorted list; int64 keys have one sorted order, so it is "
             "the single process's%s", desc ? " (descending: that list reversed)" : "");
    FxBuf b = {0};
    fx_buf_printf(&b, "%u ranks (%s), a sample sort of %zu keys: a slice a rank sorted by %s, "
                  "splitters from %d samples a rank, buckets exchanged and gathered in order",
                  ranks, last.library, n, fx_sortk_name(kind), SAMPLES);
    return decided(&b, chosen, why, why_len);
}

static bool serve_sort(const Job *j, char *why, size_t len)
{
    uint64_t a, b;
    part(j->lo, j->hi, ranks, (unsigned)fx_mpi_rank(), &a, &b);
    int64_t *slice = xmalloc_keys(b - a);
    int64_t *split = fx_xcalloc(ranks, sizeof(int64_t));
    size_t n_bucket = 0;
    int64_t *bucket = NULL;
    bool ok = fx_mpi_recv(0, TAG_DATA, slice, (b - a) * sizeof(int64_t), false, why, len) &&
              (bucket = sample_sort(slice, b - a, j->hi, (FxSortKind)j->arg, split, &n_bucket,
                                    why, len)) != NULL;
    Reply rep = {0};
    rep.value = n_bucket * sizeof(int64_t);
    ok = ok && answer(&rep, bucket, why, len);
    free(bucket);
    free(split);
    free(slice);
    return ok;
}

/* ---- values as bytes ---- */

enum { V_UNIT, V_FALSE, V_TRUE, V_INT, V_BIG, V_FLOAT, V_STRING, V_LIST, V_INTS, V_FLOATS,
       V_MATRIX, V_RECORD };

static void put_u8(FxBuf *b, uint8_t v)
{
    fx_buf_append(b, (const char *)&v, 1);
}

static void put_u64(FxBuf *b, uint64_t v)
{
    fx_buf_append(b, (const char *)&v, sizeof(v));
}

static void put_text(FxBuf *b, const char *s, size_t n)
{
    put_u64(b, n);
    fx_buf_append(b, s, n);
}

static void encode(FxValue v, FxBuf *b);

/* Elements [from, to) of a list. */
static void encode_list(FxValue list, size_t from, size_t to, FxBuf *b)
{
    const int64_t *ints = fx_val_list_ints(list);
    const double *floats = ints ? NULL : fx_val_list_floats(list);
    put_u8(b, ints ? V_INTS : floats ? V_FLOATS : V_LIST);
    put_u64(b, to - from);
    if (ints || floats)
        fx_buf_append(b, ints ? (const char *)(ints + from) : (const char *)(floats + from),
                      (to - from) * 8);
    else
        for (size_t i = from; i < to; i++)
            encode(fx_val_list_at(list, i), b);
}

static void encode(FxValue v, FxBuf *b)
{
    FxBuf digits = {0};
    size_t len;
    const char *s;
    switch (v.kind) {
    case FX_VAL_UNIT: put_u8(b, V_UNIT); break;
    case FX_VAL_BOOL: put_u8(b, v.u.b ? V_TRUE : V_FALSE); break;
    case FX_VAL_INT:
        put_u8(b, V_INT);
        put_u64(b, (uint64_t)v.u.i);
        break;
    case FX_VAL_BIG:
        fx_val_print(v, &digits);
        put_u8(b, V_BIG);
        put_text(b, fx_buf_str(&digits), digits.len);
        fx_buf_free(&digits);
        break;
    case FX_VAL_FLOAT:
        put_u8(b, V_FLOAT);
        fx_buf_append(b, (const char *)&v.u.f, sizeof(double));
        break;
    case FX_VAL_STRING:
        s = fx_val_string_data(v, &len);
        put_u8(b, V_STRING);
        put_text(b, s, len);
        break;
    case FX_VAL_LIST: encode_list(v, 0, fx_val_list_len(v), b); break;
    case FX_VAL_MATRIX: {
        size_t rows = fx_val_matrix_rows(v), cols = fx_val_matrix_cols(v);
        put_u8(b, V_MATRIX);
        put_u64(b, rows);
        put_u64(b, cols);
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                encode(fx_val_matrix_at(v, r, c), b);
        break;
    }
    case FX_VAL_RECORD: {
        size_t n = fx_val_record_size(v);
        put_u8(b, V_RECORD);
        put_u64(b, n);
        for (size_t i = 0; i < n; i++) {
            const char *name = fx_val_record_name(v, i);
            put_text(b, name, strlen(name));
            encode(fx_val_record_at(v, i), b);
        }
        break;
    }
    }
}

typedef struct Reader {
    const char *p, *end;
    bool bad;
} Reader;

static const char *take(Reader *r, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    const char *at = r->p;
    r->p += n;
    return at;
}

static uint64_t get_u64(Reader *r)
{
    uint64_t v = 0;
    const char *p = take(r, sizeof(v));
    if (p)
        memcpy(&v, p, sizeof(v));
    return v;
}

/* A count of things of at least `each` bytes that the rest can hold. */
static uint64_t get_count(Reader *r, size_t each)
{
    uint64_t n = get_u64(r);
    if (!r->bad && n > (uint64_t)(r->end - r->p) / each)
        r->bad = true;
    return r->bad ? 0 : n;
}

/* Field names of decoded records, kept for the life of the process (a
 * record borrows its names: value.h); a handful of distinct names. */
static const char *intern(const char *s, size_t n)
{
    static struct Name {
        struct Name *next;
        char text[];
    } *names;
    static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER; /* guards names */
    pthread_mutex_lock(&names_lock);
    struct Name *k = names;
    while (k && (strncmp(k->text, s, n) != 0 || k->text[n]))
        k = k->next;
    if (!k) {
        k = fx_xmalloc(sizeof(*k) + n + 1);
        memcpy(k->text, s, n);
        k->text[n] = '\0';
        k->next = names;
        names = k;
    }
    pthread_mutex_unlock(&names_lock);
    return k->text;
}

static FxValue decode(Reader *r, unsigned depth);

static FxValue decode_items(Reader *r, size_t n, unsigned depth)
{
    FxValue *items = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
    for (size_t i = 0; i < n; i++)
        items[i] = decode(r, depth + 1);
    FxValue v = fx_val_list_take(items, n);
    free(items);
    return v;
}

static FxValue decode(Reader *r, unsigned depth)
{
    FxValue v = {0};
    const char *p = take(r, 1);
    if (!p || depth > 100000) {
        r->bad = true;
        return v;
    }
    uint64_t n, m;
    switch ((uint8_t)*p) {
    case V_UNIT: return v;
    case V_FALSE:
    case V_TRUE: return fx_val_bool(*p == V_TRUE);
    case V_INT: return fx_val_int((int64_t)get_u64(r));
    case V_BIG: {
        n = get_count(r, 1);
        const char *d = take(r, n);
        char *text = fx_xmalloc(n + 1);
        if (d)
            memcpy(text, d, n);
        text[d ? n : 0] = '\0';
        v = d && n ? fx_val_int_text(text) : fx_val_int(0);
        free(text);
        return v;
    }
    case V_FLOAT: {
        double f = 0;
        if ((p = take(r, sizeof(f))))
            memcpy(&f, p, sizeof(f));
        return fx_val_float(f);
    }
    case V_STRING:
        n = get_count(r, 1);
        p = take(r, n);
        return fx_val_string(p ? p : "", p ? n : 0);
    case V_INTS:
    case V_FLOATS: {
        bool ints = (uint8_t)*p == V_INTS;
        n = get_count(r, 8);
        const char *a = take(r, n * 8);
        void *copy = fx_xmalloc(n ? n * 8 : 8);
        if (a && n)
            memcpy(copy, a, n * 8);
        n = a ? n : 0;
        return ints ? fx_val_list_adopt_ints(copy, n) : fx_val_list_adopt_floats(copy, n);
    }
    case V_LIST: return decode_items(r, get_count(r, 1), depth);
    case V_MATRIX: {
        n = get_u64(r);
        m = get_u64(r);
        if (r->bad || (n && m > (uint64_t)(r->end - r->p) / n)) {
            r->bad = true;
            return v;
        }
        FxValue *cells = fx_xmalloc((n && m ? n * m : 1) * sizeof(FxValue));
        for (size_t i = 0; i < n * m; i++)
            cells[i] = decode(r, depth + 1);
        v = fx_val_matrix(n, m, cells);
        for (size_t i = 0; i < n * m; i++)
            fx_value_release(cells[i]);
        free(cells);
        return v;
    }
    case V_RECORD: {
        n = get_count(r, 9);
        const char **names = fx_xmalloc((n ? n : 1) * sizeof(char *));
        FxValue *fields = fx_xmalloc((n ? n : 1) * sizeof(FxValue));
        for (size_t i = 0; i < n; i++) {
            m = get_count(r, 1);
            const char *s = take(r, m);
            names[i] = intern(s ? s : "", s ? m : 0);
            fields[i] = decode(r, depth + 1);
        }
        v = fx_val_record(n, names, fields);
        for (size_t i = 0; i < n; i++)
            fx_value_release(fields[i]);
        free(fields);
        free(names);
        return v;
    }
    default: r->bad = true; return v;
    }
}

/* ---- map ---- */

/* Does any node under id (inputs, lazy ones too) read parameter p but
 * through the binder, or read a data source or a measured choice? */
static bool reads_beyond(const FxGraph *g, FxNodeId id, int64_t p, uint8_t *seen)
{
    if (!id.v || seen[id.v])
        return false;
    seen[id.v] = 1;
    const FxNode *n = fx_graph_node(g, id);
    if ((n->op == FX_NODE_PARAM || n->op == FX_NODE_VAR) && n->num == p)
        return true;
    if (n->op == FX_NODE_DATA || n->op == FX_NODE_CHOOSE)
        return true;
    for (uint32_t k = 0; k < n->n_inputs; k++)
        if (reads_beyond(g, n->inputs[k], p, seen))
            return true;
    for (uint32_t k = 0; k < FX_KERNEL_MAX_ARGS; k++)
        if (reads_beyond(g, n->kargs[k], p, seen))
            return true;
    return false;
}

bool fx_cluster_map_shape(const FxGraph *g, uint32_t *param)
{
    if (!active || !g->root.v)
        return false;
    const FxNode *n = fx_graph_node(g, g->root);
    if (n->op != FX_NODE_FOLD || n->num != FX_FOLD_COLLECT || n->kernel || n->n_inputs != 3 ||
        n->inputs[1].v)
        return false;
    const FxNode *d = fx_graph_node(g, n->inputs[0]);
    if (d->op != FX_NODE_PARAM || d->num < 0 || (uint64_t)d->num >= g->n_params ||
        strncmp(g->param_types[d->num], "List[", 5) != 0)
        return false;
    uint8_t *seen = fx_xcalloc(g->n_nodes + 1, 1);
    bool beyond = reads_beyond(g, n->inputs[2], d->num, seen);
    free(seen);
    *param = (uint32_t)d->num;
    return !beyond;
}

/* Has any node of g a data source or a measured choice (what another rank
 * could not read or choose as rank 0 does)? */
static bool graph_local(const FxGraph *g)
{
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].op == FX_NODE_DATA || g->nodes[i].op == FX_NODE_CHOOSE)
            return true;
    return g->n_materialised > 0;
}

/* fn and every function it calls, callees first (post-order), into out;
 * false when one is local or they call each other in a cycle (a worker
 * installs each graph before its callers, which a cycle of two prevents). */
typedef FX_VEC(FxFunc *) FuncVec;

static bool closure(FxFunc *fn, FuncVec *out, FuncVec *path)
{
    fx_vec_foreach(FxFunc *, p, path) if (*p == fn) return false; /* a cycle through others */
    fx_vec_foreach(FxFunc *, o, out) if (*o == fn) return true;
    if (graph_local(fn->g))
        return false;
    fx_vec_push(path, fn);
    bool ok = true;
    for (uint32_t i = 0; i < fn->n_callees && ok; i++)
        if (fn->callees[i] != fn)
            ok = closure(fn->callees[i], out, path);
    path->len--;
    if (ok)
        fx_vec_push(out, fn);
    return ok;
}

FxSplit fx_cluster_map_begin(FxFunc *fn, const FxValue *R, uint32_t param, const FxBudgets *bg,
                             const char *chosen, int64_t *end, FxValue *token, char *why,
                             size_t why_len)
{
    *token = (FxValue){0};
    FxValue list = R[param];
    size_t n = list.kind == FX_VAL_LIST ? fx_val_list_len(list) : 0;
    if (n < ranks || !wants(chosen))
        return FX_SPLIT_LOCAL;
    FuncVec funcs = {0}, path = {0};
    bool ok = closure(fn, &funcs, &path);
    fx_vec_free(&path);
    if (!ok || !claim()) {
        fx_vec_free(&funcs);
        return FX_SPLIT_LOCAL;
    }
    const FxGraph *g = fn->g;
    /* what every worker gets: the intent, the graphs (callees first), the
     * arguments with the list left out */
    FxBuf common = {0}, json = {0};
    put_text(&common, g->intent, strlen(g->intent));
    put_u64(&common, funcs.len);
    fx_vec_foreach(FxFunc *, f, &funcs)
    {
        fx_graph_print_json((*f)->g, &json);
        put_text(&common, fx_buf_str(&json), json.len);
        fx_buf_free(&json);
    }
    fx_vec_free(&funcs);
    put_u64(&common, g->n_params);
    for (uint32_t i = 0; i < g->n_params; i++)
        encode(i == param ? (FxValue){0} : R[i], &common);
    Job j = {.kind = JOB_MAP, .arg = param, .lo = 0, .hi = n, .bytes = common.len,
             .budgets = *bg};
    ok = send_workers(TAG_JOB, &j, sizeof(j), why, why_len) &&
         send_workers(TAG_DATA, common.data, common.len, why, why_len);
    fx_buf_free(&common);
    record("map", g->intent, g->param_names[param]);
    for (unsigned r = 0; r < ranks; r++)
        part(0, n, ranks, r, &last.lo[r], &last.hi[r]);
    for (unsigned r = 1; r < ranks && ok; r++) { /* each worker's slice */
        FxBuf slice = {0};
        encode_list(list, last.lo[r], last.hi[r], &slice);
        uint64_t bytes = slice.len;
        ok = fx_mpi_send((int)r, TAG_DATA, &bytes, sizeof(bytes), why, why_len) &&
             fx_mpi_send((int)r, TAG_DATA, slice.data, slice.len, why, why_len);
        fx_buf_free(&slice);
    }
    if (!ok) {
        lose_step();
        release_job();
        return FX_SPLIT_FAILED;
    }
    pending.open = true;
    pending.id = ++jobs;
    pending.next = 1;
    *end = (int64_t)last.hi[0];
    *token = fx_val_int(pending.id);
    snprintf(last.why, sizeof(last.why),
             "`%s` is `for each x in %s: E` and E reads `%s` only through x (checked on the "
             "graph: no node of the body reads the parameter but through the element it binds, "
             "and none reads a data source or a measured choice), so each element of the "
             "result depends only on its own element and the other arguments: slices computed "
             "apart and joined in order are the whole", g->intent, last.list, last.list);
    FxBuf b = {0};
    fx_buf_printf(&b, "%u ranks (%s), `%s` mapped over %zu elements of `%s` in %u slices, each "
                  "rank running the graphs rank 0 runs", ranks, last.library, g->intent, n,
                  last.list, ranks);
    return decided(&b, chosen, why, why_len);
}

/* The lists parts[0..k), joined in order into one new list: unboxed when
 * every part is. */
static FxValue join(const FxValue *parts, unsigned k)
{
    size_t total = 0;
    bool ints = true, floats = true;
    for (unsigned i = 0; i < k; i++) {
        total += fx_val_list_len(parts[i]);
        ints = ints && fx_val_list_ints(parts[i]);
        floats = floats && fx_val_list_floats(parts[i]);
    }
    if (ints || floats) {
        char *a = fx_xmalloc(total ? total * 8 : 8);
        size_t at = 0;
        for (unsigned i = 0; i < k; i++) {
            size_t n = fx_val_list_len(parts[i]);
            const void *src = ints ? (const void *)fx_val_list_ints(parts[i])
                                   : (const void *)fx_val_list_floats(parts[i]);
            if (n)
                memcpy(a + at * 8, src, n * 8);
            at += n;
        }
        return ints ? fx_val_list_adopt_ints((int64_t *)a, total)
                    : fx_val_list_adopt_floats((double *)a, total);
    }
    FxValue *items = fx_xmalloc((total ? total : 1) * sizeof(FxValue));
    size_t at = 0;
    for (unsigned i = 0; i < k; i++)
        for (size_t e = 0, n = fx_val_list_len(parts[i]); e < n; e++) {
            items[at] = fx_val_list_get(parts[i], e);
            at++;
        }
    FxValue v = fx_val_list_take(items, total);
    free(items);
    return v;
}

/* The workers' answers from pending.next on: their parts (when parts is
 * given) or nothing; the first failure's reason in err. */
static bool collect(FxValue *parts, char *err, size_t err_len, char *why, size_t why_len)
{
    bool ok = true;
    for (; pending.next < ranks && ok; pending.next++) {
        unsigned r = pending.next;
        Reply rep;
        char *data;
        ok = take_reply(r, &rep, &data, why, why_len);
        if (ok && rep.status != 0 && !err[0])
            snprintf(err, err_len, "rank %u: %s", r, rep.why);
        if (ok && data && parts) {
            Reader rd = {data, data + rep.value, false};
            parts[r] = decode(&rd, 0);
            if ((rd.bad || parts[r].kind != FX_VAL_LIST) && !err[0])
                snprintf(err, err_len, "rank %u: its part does not read back as a list", r);
        }
        free(data);
    }
    return ok;
}

FxSplit fx_cluster_map_end(FxValue token, FxValue *io, char *why, size_t why_len)
{
    if (token.kind != FX_VAL_INT || !pending.open || token.u.i != pending.id)
        return FX_SPLIT_LOCAL;
    FxValue *parts = fx_xcalloc(ranks, sizeof(FxValue));
    parts[0] = *io;
    char err[320] = "";
    bool ok = collect(parts, err, sizeof(err), why, why_len);
    pending.open = false;
    release_job();
    FxSplit s = FX_SPLIT_FAILED;
    if (!ok)
        lose_step();
    else if (err[0])
        snprintf(why, why_len, "%s", err);
    else {
        FxValue whole = join(parts, ranks);
        fx_value_release(*io);
        *io = whole;
        s = FX_SPLIT_DONE;
    }
    for (unsigned r = 1; r < ranks; r++)
        fx_value_release(parts[r]);
    free(parts);
    return s;
}

void fx_cluster_settle(void)
{
    if (!pending.open)
        return;
    char err[320] = "", why[256];
    if (!collect(NULL, err, sizeof(err), why, sizeof(why)))
        lose_step();
    pending.open = false;
    release_job();
}

/* A worker's part of a map: the graphs, the arguments and its slice, the
 * intent run on them in a runtime of its own. */
static bool serve_map(const Job *j, FxClusterLoad load, void *ctx, char *why, size_t len)
{
    char *common = fx_xmalloc(j->bytes ? j->bytes : 1), *slice = NULL;
    uint64_t slice_bytes = 0;
    bool ok = fx_mpi_recv(0, TAG_DATA, common, j->bytes, false, why, len) &&
              fx_mpi_recv(0, TAG_DATA, &slice_bytes, sizeof(slice_bytes), false, why, len);
    if (ok) {
        slice = fx_xmalloc(slice_bytes ? slice_bytes : 1);
        ok = fx_mpi_recv(0, TAG_DATA, slice, slice_bytes, false, why, len);
    }
    if (!ok) {
        free(common);
        free(slice);
        return false;
    }
    Reply rep = {0};
    FxBuf out = {0};
    char err[240] = "";
    const FxProgram *prog = load(ctx, err, sizeof(err));
    FxRuntime *rt = prog ? fx_runtime_new(prog) : NULL;
    Reader rd = {common, common + j->bytes, false};
    uint64_t n = get_count(&rd, 1);
    const char *p = take(&rd, n);
    char *intent = fx_xasprintf("%.*s", p ? (int)n : 0, p ? p : "");
    uint64_t n_graphs = get_count(&rd, 9);
    for (uint64_t i = 0; i < n_graphs && rt && !err[0]; i++) {
        n = get_count(&rd, 1);
        p = take(&rd, n);
        char *text = fx_xasprintf("%.*s", p ? (int)n : 0, p ? p : "");
        FxGraph *g = fx_graph_read_json(text, err, sizeof(err));
        if (g && !fx_runtime_use_graph(rt, g))
            fx_graph_free(g); /* a callee installed already (its own caller's turn) */
        free(text);
    }
    uint64_t n_args = get_count(&rd, 1);
    FxValue *args = fx_xcalloc(n_args + 1, sizeof(FxValue));
    for (uint64_t i = 0; i < n_args; i++)
        args[i] = decode(&rd, 0);
    Reader rs = {slice, slice + slice_bytes, false};
    if (j->arg < n_args) {
        fx_value_release(args[j->arg]);
        args[j->arg] = decode(&rs, 0);
    }
    if (!err[0] && (rd.bad || rs.bad || j->arg >= n_args))
        snprintf(err, sizeof(err), "the job's bytes do not read back");
    FxValue result = {0};
    if (rt && !err[0]) {
        fx_runtime_set_budgets(rt, j->budgets);
        if (fx_runtime_call(rt, intent, args, n_args, &result) != FX_OK)
            snprintf(err, sizeof(err), "%s", fx_runtime_error(rt));
    }
    if (err[0]) {
        failed_reply(&rep, "%s", err);
    } else {
        encode(result, &out);
        rep.value = out.len;
    }
    ok = answer(&rep, out.data, why, len);
    fx_value_release(result);
    for (uint64_t i = 0; i < n_args; i++)
        fx_value_release(args[i]);
    free(args);
    fx_buf_free(&out);
    free(intent);
    if (rt)
        fx_runtime_free(rt);
    free(common);
    free(slice);
    return ok;
}

/* ---- the workers' loop ---- */

int fx_cluster_serve(FxClusterLoad load, void *ctx)
{
    char why[320];
    int rank = fx_mpi_rank();
    for (;;) {
        Job j;
        if (!fx_mpi_recv(0, TAG_JOB, &j, sizeof(j), true, why, sizeof(why))) {
            fprintf(stderr, "flux: mpi rank %d: %s\n", rank, why);
            fx_mpi_abort(1);
            return 1;
        }
        bool ok;
        switch (j.kind) {
        case JOB_DONE: fx_mpi_stop(); return 0;
        case JOB_COUNT: ok = serve_count(&j, why, sizeof(why)); break;
        case JOB_SORT: ok = serve_sort(&j, why, sizeof(why)); break;
        case JOB_MAP: ok = serve_map(&j, load, ctx, why, sizeof(why)); break;
        default:
            ok = false;
            snprintf(why, sizeof(why), "a job of unknown kind %u", j.kind);
        }
        if (!ok) { /* rank 0 waits for this one: end the job rather than hang */
            fprintf(stderr, "flux: mpi rank %d: %s\n", rank, why);
            fx_mpi_abort(1);
            return 1;
        }
    }
}
