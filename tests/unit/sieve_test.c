/*
 * sieve_test.c: the prime-sieve kernels against a reference that tries
 * every odd divisor d with d * d <= n: each kernel, counting and listing,
 * on thousands of random ranges (lo often 0 .. 3, hi <= 2, empty ranges,
 * tiny segments of 8 to 200 bytes so that ranges straddle many segment
 * boundaries, 1 to 3 threads), around the squares of sieving primes and
 * the segment edges, every range of [0, 200], windows above 2^32 up to
 * 10^15; pi(10^6), pi(10^7) and pi(10^8); the prime sets (membership,
 * iteration, twin primes); and cancellation in each phase. Leaks are
 * caught by LeakSanitizer in the asan build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "exec/linrec.h" /* both headers define FxKeepGoing: they must agree */
#include "exec/sieve.h"
#include "fx_test.h"

/* ---- the reference ---- */

static bool ref_is_prime(uint64_t n)
{
    if (n < 2)
        return false;
    for (uint64_t d = 2; d <= n / d; d += 1 + (d > 2)) {
        if (n % d == 0)
            return false;
    }
    return true;
}

/* ref_table[n] = ref_is_prime(n) for n < TABLE, built once. */
#define TABLE ((uint64_t)1 << 20)
static bool *ref_table;

static bool ref_at(uint64_t n)
{
    if (!ref_table) {
        ref_table = malloc(TABLE);
        for (uint64_t i = 0; i < TABLE; i++)
            ref_table[i] = ref_is_prime(i);
    }
    return n < TABLE ? ref_table[n] : ref_is_prime(n);
}

/* The reference list of [lo, hi), into a new FxPrimes. */
static FxPrimes ref_list(uint64_t lo, uint64_t hi)
{
    FxPrimes r = {0};
    for (uint64_t n = lo; n < hi; n++) {
        if (!ref_at(n))
            continue;
        if (r.len == r.cap) {
            r.cap = r.cap ? 2 * r.cap : 64;
            r.v = realloc(r.v, r.cap * sizeof(*r.v));
        }
        r.v[r.len++] = n;
    }
    return r;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(uint64_t bound)
{
    rng ^= rng << 13; // xorshift64
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return bound ? rng % bound : rng;
}

/* ---- one range, one kernel ---- */

typedef struct Config {
    FxSieveKind kind;
    unsigned threads;
    size_t seg;
} Config;

/* Count and list of [lo, hi) by c equal the reference's; the list is
 * appended after two values already there, which must stay. Prints the
 * first difference. */
static bool check(Config c, uint64_t lo, uint64_t hi, const FxPrimes *ref)
{
    const char *what = NULL;
    uint64_t count = 12345;
    FxPrimes got = {0};
    got.v = malloc(2 * sizeof(*got.v));
    got.v[0] = 7;
    got.v[1] = 8;
    got.len = got.cap = 2;
    if (!fx_sieve_count(c.kind, lo, hi, c.threads, c.seg, &count, NULL, NULL))
        what = "count returned false";
    else if (count != ref->len)
        what = "count";
    else if (!fx_sieve_list(c.kind, lo, hi, c.threads, c.seg, &got, NULL, NULL))
        what = "list returned false";
    else if (got.len != ref->len + 2 || got.v[0] != 7 || got.v[1] != 8)
        what = "list length";
    else if (ref->len && memcmp(got.v + 2, ref->v, ref->len * sizeof(*ref->v)) != 0)
        what = "list values";
    if (what)
        fprintf(stderr, "%s [%llu, %llu) threads %u seg %zu: %s (count %llu, list %zu, ref %zu)\n",
                fx_sieve_name(c.kind), (unsigned long long)lo, (unsigned long long)hi, c.threads,
                c.seg, what, (unsigned long long)count, got.len - 2, ref->len);
    fx_primes_free(&got);
    return !what;
}

/* The set of [lo, hi) answers has() and next() as the reference does. */
static bool check_set(unsigned threads, size_t seg, uint64_t lo, uint64_t hi, const FxPrimes *ref)
{
    FxPrimeSet s;
    if (!fx_sieve_set(lo, hi, threads, seg, &s, NULL, NULL))
        return false;
    bool ok = s.lo == lo && s.hi == (hi > lo ? hi : lo);
    size_t i = 0;
    for (uint64_t x = lo; x < hi && ok; x++) {
        ok = fx_primeset_has(&s, x) == (i < ref->len && ref->v[i] == x);
        if (i < ref->len && ref->v[i] == x)
            i++;
    }
    i = 0;
    for (uint64_t p = fx_primeset_next(&s, 0); p < s.hi && ok; p = fx_primeset_next(&s, p + 1))
        ok = i < ref->len && ref->v[i++] == p;
    ok = ok && i == ref->len && fx_primeset_next(&s, hi) == s.hi;
    if (!ok)
        fprintf(stderr, "set [%llu, %llu) threads %u seg %zu differs\n", (unsigned long long)lo,
                (unsigned long long)hi, threads, seg);
    fx_primeset_free(&s);
    return ok;
}

/* Every kernel, segmented with several segment sizes and thread counts;
 * trial only where the range is short. */
static bool check_all(uint64_t lo, uint64_t hi, bool eratosthenes)
{
    static const size_t segs[] = {8, 64, 128, 200, 0};
    FxPrimes ref = ref_list(lo, hi);
    bool ok = true;
    if (hi - lo < 20000 || hi < lo)
        ok = check((Config){FX_SIEVE_TRIAL, 1, 0}, lo, hi, &ref);
    if (ok && eratosthenes)
        ok = check((Config){FX_SIEVE_ERATOSTHENES, 1, 0}, lo, hi, &ref);
    for (unsigned threads = 1; threads <= 3 && ok; threads++) {
        size_t seg = segs[rnd(sizeof(segs) / sizeof(segs[0]))];
        ok = check((Config){FX_SIEVE_SEGMENTED, threads, seg}, lo, hi, &ref);
    }
    free(ref.v);
    return ok;
}

/* ---- the tests ---- */

FX_TEST(random_ranges)
{
    for (int i = 0; i < 3000; i++) {
        uint64_t lo = rnd(4) == 0 ? rnd(4) : rnd(TABLE);
        uint64_t width = rnd(8) == 0 ? rnd(100000) : rnd(8) == 0 ? rnd(8) : rnd(3000);
        uint64_t hi = lo + width > TABLE ? TABLE : lo + width;
        if (rnd(20) == 0) // empty, or hi <= 2
            hi = rnd(2) ? rnd(lo + 1) : rnd(3);
        if (!check_all(lo, hi, rnd(8) == 0)) {
            EXPECT(false);
            return;
        }
    }
}

FX_TEST(every_small_range)
{
    // covers the pre-sieved primes 7 .. 179 and the first sieving ones
    FxPrimes ref = ref_list(0, 200);
    for (uint64_t lo = 0; lo <= 200; lo++) {
        for (uint64_t hi = 0; hi <= 200; hi++) {
            FxPrimes part = {ref.v, 0, 0};
            for (size_t i = 0; i < ref.len; i++) {
                if (ref.v[i] < lo)
                    part.v = ref.v + i + 1;
                else if (ref.v[i] < hi)
                    part.len++;
            }
            bool ok = check((Config){FX_SIEVE_SEGMENTED, 1, 8}, lo, hi, &part) &&
                      check((Config){FX_SIEVE_TRIAL, 1, 0}, lo, hi, &part) &&
                      check((Config){FX_SIEVE_ERATOSTHENES, 1, 0}, lo, hi, &part);
            if (!ok) {
                EXPECT(false);
                free(ref.v);
                return;
            }
        }
    }
    free(ref.v);
}

FX_TEST(prime_squares_and_segment_edges)
{
    // the first multiple a sieving prime crosses is its square
    for (uint64_t p = 181; p < 1200; p += 2) {
        if (!ref_at(p))
            continue;
        if (!check_all(p * p - 70, p * p + 70, false) || !check_all(p * p, p * p + 1, false)) {
            EXPECT(false);
            return;
        }
    }
    // the edges of 64-byte segments (1920 numbers): ranges across them,
    // and ending or starting on them
    static const uint64_t d[] = {0, 1, 29, 30, 31, 61};
    for (uint64_t k = 1; k < 60; k++) {
        for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
            uint64_t e = 1920 * k;
            uint64_t r[3][2] = {{e - d[i], e + d[i] + 1}, {e - d[i] - 1, e}, {e, e + d[i] + 1}};
            for (int j = 0; j < 3; j++) {
                FxPrimes ref = ref_list(r[j][0], r[j][1]);
                bool ok = check((Config){FX_SIEVE_SEGMENTED, 1, 64}, r[j][0], r[j][1], &ref) &&
                          check((Config){FX_SIEVE_SEGMENTED, 3, 64}, r[j][0], r[j][1], &ref);
                free(ref.v);
                if (!ok) {
                    EXPECT(false);
                    return;
                }
            }
        }
    }
}

FX_TEST(known_counts)
{
    static const struct {
        uint64_t n, pi;
    } known[] = {{2, 0}, {3, 1}, {10, 4}, {100, 25}, {1000000, 78498}, {10000000, 664579}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        uint64_t c = 0;
        EXPECT(fx_sieve_count(FX_SIEVE_ERATOSTHENES, 0, known[i].n, 1, 0, &c, NULL, NULL));
        EXPECT_EQ(c, known[i].pi);
        for (unsigned threads = 1; threads <= 3; threads++) {
            c = 0;
            EXPECT(fx_sieve_count(FX_SIEVE_SEGMENTED, 0, known[i].n, threads, 0, &c, NULL, NULL));
            EXPECT_EQ(c, known[i].pi);
        }
        if (known[i].n <= 1000000) {
            c = 0;
            EXPECT(fx_sieve_count(FX_SIEVE_TRIAL, 0, known[i].n, 1, 0, &c, NULL, NULL));
            EXPECT_EQ(c, known[i].pi);
        }
    }
    // 10^8 on two threads, and with 2^24-byte segments (the largest)
    uint64_t c = 0;
    EXPECT(fx_sieve_count(FX_SIEVE_SEGMENTED, 0, 100000000, 2, 0, &c, NULL, NULL));
    EXPECT_EQ(c, 5761455);
    c = 0;
    EXPECT(fx_sieve_count(FX_SIEVE_SEGMENTED, 0, 100000000, 1, (size_t)1 << 30, &c, NULL, NULL));
    EXPECT_EQ(c, 5761455);
    // the list of 10^7 ends with the largest prime below it
    FxPrimes l = {0};
    EXPECT(fx_sieve_list(FX_SIEVE_SEGMENTED, 0, 10000000, 2, 0, &l, NULL, NULL));
    EXPECT_EQ(l.len, 664579);
    EXPECT_EQ(l.len ? l.v[l.len - 1] : 0, 9999991);
    fx_primes_free(&l);
}

FX_TEST(large_windows)
{
    static const struct {
        uint64_t lo, width;
    } w[] = {
            {((uint64_t)1 << 32) - 3000, 6000},   /* across 2^32 */
            {((uint64_t)1 << 40) - 1000, 2000},   /* across 2^40 */
            {1000000000000ull - 500, 1000},       /* 10^12 */
            {1000000000000000ull - 40, 80},       /* 10^15: sieving primes to 3.2 * 10^7 */
    };
    for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
        uint64_t lo = w[i].lo, hi = lo + w[i].width;
        FxPrimes ref = ref_list(lo, hi);
        EXPECT(ref.len > 0);
        if (lo < 1000000000000000ull) // at 10^15 a trial costs as much as the reference
            EXPECT(check((Config){FX_SIEVE_TRIAL, 1, 0}, lo, hi, &ref));
        EXPECT(check((Config){FX_SIEVE_SEGMENTED, 1, 64}, lo, hi, &ref));
        EXPECT(check((Config){FX_SIEVE_SEGMENTED, 3, 8}, lo, hi, &ref));
        EXPECT(check((Config){FX_SIEVE_SEGMENTED, 2, 0}, lo, hi, &ref));
        EXPECT(check_set(2, 64, lo, hi, &ref));
        free(ref.v);
    }
}

FX_TEST(empty_ranges)
{
    for (int k = 0; k < FX_SIEVE__COUNT; k++) {
        uint64_t c = 99;
        EXPECT(fx_sieve_count((FxSieveKind)k, 10, 10, 2, 0, &c, NULL, NULL));
        EXPECT_EQ(c, 0);
        c = 99;
        EXPECT(fx_sieve_count((FxSieveKind)k, 1000, 5, 2, 0, &c, NULL, NULL));
        EXPECT_EQ(c, 0);
        c = 99;
        EXPECT(fx_sieve_count((FxSieveKind)k, 0, 2, 1, 0, &c, NULL, NULL));
        EXPECT_EQ(c, 0);
        c = 99;
        EXPECT(fx_sieve_count((FxSieveKind)k, 24, 29, 3, 64, &c, NULL, NULL)); // 24 .. 28
        EXPECT_EQ(c, 0);
        FxPrimes l = {0};
        EXPECT(fx_sieve_list((FxSieveKind)k, 90, 97, 3, 64, &l, NULL, NULL));
        EXPECT_EQ(l.len, 0);
        EXPECT(fx_sieve_list((FxSieveKind)k, 2, 3, 3, 64, &l, NULL, NULL));
        EXPECT_EQ(l.len, 1);
        EXPECT_EQ(l.len ? l.v[0] : 0, 2);
        fx_primes_free(&l);
        fx_primes_free(&l); // twice is fine
    }
    fx_primes_free(NULL);
    FxPrimeSet s;
    EXPECT(fx_sieve_set(50, 40, 1, 0, &s, NULL, NULL));
    EXPECT_EQ(fx_primeset_next(&s, 0), s.hi);
    fx_primeset_free(&s);
    fx_primeset_free(NULL);
}

FX_TEST(sets_and_twin_primes)
{
    for (int i = 0; i < 300; i++) {
        uint64_t lo = rnd(3) == 0 ? rnd(4) : rnd(TABLE - 20000);
        uint64_t hi = lo + rnd(rnd(2) ? 100 : 20000);
        FxPrimes ref = ref_list(lo, hi);
        bool ok = check_set(1 + (unsigned)rnd(3), rnd(2) ? 64 : 0, lo, hi, &ref);
        free(ref.v);
        if (!ok) {
            EXPECT(false);
            return;
        }
    }
    // the twin primes below 10^5, as the interpreter would walk them
    uint64_t n = 100000, twins = 0, ref = 0;
    FxPrimeSet s;
    EXPECT(fx_sieve_set(0, n + 2, 2, 128, &s, NULL, NULL));
    for (uint64_t p = fx_primeset_next(&s, 0); p < n; p = fx_primeset_next(&s, p + 1))
        twins += fx_primeset_has(&s, p + 2);
    fx_primeset_free(&s);
    for (uint64_t p = 0; p < n; p++)
        ref += ref_at(p) && ref_at(p + 2);
    EXPECT_EQ(twins, ref);
    EXPECT_EQ(twins, 1224);
}

/* fx_primeset_tuples against the definition: p in [lo, hi) prime with
 * every p + c prime, counted and listed, for offsets on and off the wheel,
 * offsets that cross bytes and words, ranges from 0 and unaligned ends,
 * and offsets past what a word reaches (walked). */
FX_TEST(tuples_from_the_bits)
{
    static const uint64_t sets[][4] = {{1, 2}, {1, 4}, {1, 6}, {2, 2, 6}, {3, 2, 6, 8},
                                       {1, 0}, {1, 1}, {1, 30}, {2, 4, 210}, {1, 240},
                                       {2, 12, 18}, {1, 3}};
    int bad = 0;
    for (int i = 0; i < 400 && !bad; i++) {
        const uint64_t *set = sets[i % 12];
        size_t n = (size_t)set[0];
        const uint64_t *c = set + 1;
        uint64_t reach = 0;
        for (size_t k = 0; k < n; k++)
            reach = c[k] > reach ? c[k] : reach;
        uint64_t lo = rnd(3) == 0 ? rnd(40) : rnd(TABLE - 30000);
        uint64_t hi = lo + rnd(rnd(2) ? 200 : 25000);
        FxPrimeSet s;
        EXPECT(fx_sieve_set(lo, hi + reach, 1 + (unsigned)rnd(2), 0, &s, NULL, NULL));
        FxPrimes got = {0};
        uint64_t count = fx_primeset_tuples(&s, lo, hi, c, n, NULL);
        uint64_t listed = fx_primeset_tuples(&s, lo, hi, c, n, &got);
        fx_primeset_free(&s);
        size_t want = 0;
        for (uint64_t p = lo; p < hi && !bad; p++) {
            bool all = ref_at(p);
            for (size_t k = 0; all && k < n; k++)
                all = ref_at(p + c[k]);
            if (all)
                bad |= want >= got.len || got.v[want++] != p;
        }
        bad |= count != want || listed != want || got.len != want;
        if (bad)
            fprintf(stderr, "tuples of [%llu, %llu), offsets[0] = %llu: %llu counted, %zu listed, "
                    "%zu wanted\n", (unsigned long long)lo, (unsigned long long)hi,
                    (unsigned long long)c[0], (unsigned long long)count, got.len, want);
        fx_primes_free(&got);
    }
    EXPECT_EQ(bad, 0);
}

FX_TEST(names)
{
    EXPECT_STR_EQ(fx_sieve_name(FX_SIEVE_TRIAL), "trial");
    EXPECT_STR_EQ(fx_sieve_name(FX_SIEVE_ERATOSTHENES), "eratosthenes");
    EXPECT_STR_EQ(fx_sieve_name(FX_SIEVE_SEGMENTED), "segmented");
    EXPECT_STR_EQ(fx_sieve_name(FX_SIEVE__COUNT), "?");
}

/* ---- cancellation ---- */

typedef struct Budget {
    long calls;   /* the polls so far */
    long stop_at; /* the poll that says stop; 0: never */
    bool polled_after_stop;
} Budget;

static bool keep_going(void *ctx)
{
    Budget *b = ctx;
    if (b->stop_at && b->calls >= b->stop_at)
        b->polled_after_stop = true;
    b->calls++;
    return !b->stop_at || b->calls < b->stop_at;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

FX_TEST(cancellation_stops_each_kernel)
{
    // each of these would run for seconds (10^11: minutes); stopped at the
    // third poll they return at once, leaving the result as it was
    static const struct {
        FxSieveKind k;
        uint64_t lo, hi;
        unsigned threads;
    } runs[] = {
            {FX_SIEVE_TRIAL, (uint64_t)1 << 40, ((uint64_t)1 << 40) + 10000000, 1},
            {FX_SIEVE_ERATOSTHENES, 0, 2000000000, 1},
            {FX_SIEVE_SEGMENTED, 0, 100000000000ull, 1},
            {FX_SIEVE_SEGMENTED, 0, 100000000000ull, 2},
            {FX_SIEVE_SEGMENTED, 0, 100000000000ull, 3},
    };
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        Budget b = {0, 3, false};
        uint64_t c = 777;
        double t0 = now();
        EXPECT(!fx_sieve_count(runs[i].k, runs[i].lo, runs[i].hi, runs[i].threads, 0, &c,
                               keep_going, &b));
        EXPECT(now() - t0 < 1.0);
        EXPECT_EQ(c, 777);
        EXPECT_EQ(b.calls, 3);
        EXPECT(!b.polled_after_stop);
    }
    Budget b = {0, 2, false};
    FxPrimes l = {0};
    EXPECT(!fx_sieve_list(FX_SIEVE_SEGMENTED, 0, 10000000000ull, 2, 0, &l, keep_going, &b));
    EXPECT_EQ(l.len, 0);
    fx_primes_free(&l);
    b = (Budget){0, 2, false};
    FxPrimeSet s = {1, 2, 3, NULL};
    EXPECT(!fx_sieve_set(0, 10000000000ull, 2, 0, &s, keep_going, &b));
    EXPECT_EQ(s.lo, 1); // untouched
    EXPECT(s.bits == NULL);
}

FX_TEST(cancellation_at_every_poll_of_a_list)
{
    // A list polls in both its phases (sieve, then decode) and while it
    // makes the sieving primes. Stopping at poll k, for every k, leaves
    // the list as it was; never stopping gives the full list.
    Budget all = {0, 0, false};
    FxPrimes l = {0};
    EXPECT(fx_sieve_list(FX_SIEVE_SEGMENTED, 1000, 3000000, 1, 1024, &l, keep_going, &all));
    EXPECT_EQ(l.len, 216816 - 168);
    EXPECT(all.calls >= 2 * (3000000 / 30 / 1024)); // a poll a segment, in each phase
    for (long k = 1; k <= all.calls; k += 1 + all.calls / 40) {
        Budget b = {0, k, false};
        l.len = 1; // one value there before
        EXPECT(!fx_sieve_list(FX_SIEVE_SEGMENTED, 1000, 3000000, 1, 1024, &l, keep_going, &b));
        EXPECT_EQ(l.len, 1);
        EXPECT_EQ(b.calls, k);
    }
    fx_primes_free(&l);
}

int main(void)
{
    int rc = fx_test_run();
    free(ref_table);
    return rc;
}
