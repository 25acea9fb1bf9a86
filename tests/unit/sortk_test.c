/*
 * sortk_test.c: the sorting kernels (src/exec/sortk.c) against qsort.
 *
 * Every kernel, the parallel one forced onto 1, 2 and 3 threads below its
 * cutoff and run above it, in both directions, on sizes around every
 * threshold of the code (insertion cut-offs, pdq's ninther and blocks,
 * radix's small case and digit widths, the counting sort's range) and on
 * thousands of random inputs, over patterns that trouble sorts: sorted,
 * reversed, organ pipe, sawtooth, few distinct values, INT64_MIN and
 * INT64_MAX, runs with a few swaps. The result must equal qsort's.
 * fx_sortk_by_key must keep equal keys in input order, both ways. pdq
 * must stay fast on the patterns that make a naive quicksort quadratic,
 * and its heapsort fallback must sort. The features are checked on inputs
 * whose answers are known, exact and sampled.
 */
#include <stdlib.h>
#include <time.h>

#include "exec/sortcost.h"
#include "exec/sortk.h"
#include "fx_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng = 0x2545F4914F6CDD1Du;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- inputs ---- */

typedef enum {
    P_RANDOM,      /* all 64 bits */
    P_SMALL_RANGE, /* 0 .. 999: the counting sort, one radix pass */
    P_FEW_UNIQUE,  /* 4 values far apart */
    P_SORTED,
    P_REVERSED,
    P_ORGAN_PIPE, /* up, then down */
    P_SAWTOOTH,   /* sorted runs of 1 .. 64 */
    P_ALL_EQUAL,
    P_NEARLY,        /* sorted, then about 1% random swaps */
    P_FEW_SWAPS,     /* sorted, then 1 .. 12 swaps of neighbours */
    P_EXTREMES,      /* INT64_MIN, INT64_MAX and their neighbours, 0, -1 */
    P_OFFSET,        /* 10^15 + 0 .. 99999: the minimum subtracted */
    P_LOW_HIGH,      /* only the lowest and highest bytes vary: passes skipped */
    P_NEGATIVE,      /* -2^40 .. -1 */
    P_MEDIAN_KILLER, /* Musser's median-of-3 killer */
    P_OUTLIERS,      /* 0 .. 2^44, and INT64_MIN, INT64_MAX: one radix bucket holds the rest */
    P_HALVES,        /* two descending halves, the lower first: partitioned, far from sorted */
    P__COUNT
} Pattern;

static const char *const pattern_names[] = {
        "random",   "small-range", "few-unique",    "sorted",    "reversed", "organ",
        "sawtooth", "all-equal",   "nearly",        "few-swaps", "extremes", "offset",
        "low-high", "negative",    "median-killer", "outliers",  "halves"};
_Static_assert(COUNT(pattern_names) == P__COUNT, "pattern_names[]");

static void fill(int64_t *a, size_t n, Pattern p)
{
    static const int64_t extremes[] = {INT64_MIN, INT64_MIN + 1, -1,       0,
                                       1,         INT64_MAX - 1, INT64_MAX};
    static const int64_t few[] = {-7000000000, 3, 5000, INT64_MAX / 3};
    size_t saw = 1 + rnd() % 64;
    for (size_t i = 0; i < n; i++) {
        switch (p) {
        case P_RANDOM:
            a[i] = (int64_t)rnd();
            break;
        case P_SMALL_RANGE:
            a[i] = (int64_t)(rnd() % 1000);
            break;
        case P_FEW_UNIQUE:
            a[i] = few[rnd() % COUNT(few)];
            break;
        case P_SORTED:
        case P_NEARLY:
        case P_FEW_SWAPS:
            a[i] = (int64_t)i * 3 - 50;
            break;
        case P_REVERSED:
            a[i] = (int64_t)(n - i) * 7;
            break;
        case P_ORGAN_PIPE:
            a[i] = (int64_t)(i < n / 2 ? i : n - i);
            break;
        case P_SAWTOOTH:
            a[i] = (int64_t)(i % saw);
            break;
        case P_ALL_EQUAL:
            a[i] = 42;
            break;
        case P_EXTREMES:
            a[i] = extremes[rnd() % COUNT(extremes)];
            break;
        case P_OFFSET:
            a[i] = 1000000000000000 + (int64_t)(rnd() % 100000);
            break;
        case P_LOW_HIGH:
            a[i] = (int64_t)((rnd() & 0xff) | (rnd() & 0xff00000000000000u));
            break;
        case P_NEGATIVE:
            a[i] = -1 - (int64_t)(rnd() % ((uint64_t)1 << 40));
            break;
        case P_MEDIAN_KILLER:
            a[i] = 0;
            break;
        case P_OUTLIERS:
            a[i] = (int64_t)(rnd() % ((uint64_t)1 << 44));
            break;
        case P_HALVES:
            a[i] = (int64_t)(i < n / 2 ? n / 2 - 1 - i : n - 1 - (i - n / 2));
            break;
        case P__COUNT:
            break;
        }
    }
    if (p == P_NEARLY) {
        for (size_t s = 0; s < n / 100 + 1 && n > 1; s++) {
            size_t i = rnd() % n, j = rnd() % n;
            int64_t t = a[i];
            a[i] = a[j], a[j] = t;
        }
    }
    if (p == P_FEW_SWAPS) {
        size_t swaps = 1 + rnd() % 12;
        for (size_t s = 0; s < swaps && n > 1; s++) {
            size_t i = rnd() % (n - 1);
            int64_t t = a[i];
            a[i] = a[i + 1], a[i + 1] = t;
        }
    }
    if (p == P_OUTLIERS && n > 2) {
        a[rnd() % n] = INT64_MIN;
        a[rnd() % n] = INT64_MAX;
    }
    if (p == P_MEDIAN_KILLER) {
        // Musser (1997), for k = n/2: the first half pairs odd i with k + i
        // (1, k+1, 3, k+3, ...), the second half holds 2, 4, ..., 2k; e.g.
        // 1 5 3 7 2 4 6 8 for n = 8
        size_t k = n / 2;
        for (size_t i = 1; i <= k; i++) {
            if (i % 2 == 1) {
                a[i - 1] = (int64_t)i;
                a[i] = (int64_t)(k + i);
            }
            a[k + i - 1] = (int64_t)(2 * i);
        }
        if (n % 2 == 1) a[n - 1] = (int64_t)n;
    }
}

/* ---- the reference ---- */

static int cmp_asc(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_desc(const void *x, const void *y)
{
    return cmp_asc(y, x);
}

/* Stable order of pairs whose index is the input position. */
static int cmp_pair_asc(const void *x, const void *y)
{
    const FxSortPair *a = x, *b = y;
    if (a->key != b->key) return (a->key > b->key) - (a->key < b->key);
    return (a->index > b->index) - (a->index < b->index);
}

static int cmp_pair_desc(const void *x, const void *y)
{
    const FxSortPair *a = x, *b = y;
    if (a->key != b->key) return (a->key < b->key) - (a->key > b->key);
    return (a->index > b->index) - (a->index < b->index);
}

/* ---- running a kernel ---- */

/* The kernels under test: the five kinds, and the parallel path forced
 * below its cutoff onto 1, 2 and 3 threads. */
typedef struct Runner {
    const char *name;
    FxSortKind kind;
    unsigned threads; /* forced parallel when > 0 */
} Runner;

static const Runner runners[] = {
        {"insertion", FX_SORTK_INSERTION, 0}, {"pdq", FX_SORTK_PDQ, 0},
        {"radix", FX_SORTK_RADIX, 0},         {"parallel", FX_SORTK_PARALLEL, 0},
        {"parallel/1", FX_SORTK_PARALLEL, 1}, {"parallel/2", FX_SORTK_PARALLEL, 2},
        {"parallel/3", FX_SORTK_PARALLEL, 3}, {"vqsort", FX_SORTK_VQSORT, 0},
};

static bool run_i64(const Runner *r, int64_t *a, size_t n, bool desc)
{
    if (r->threads) return fx_sortk_parallel(a, n, desc, r->threads, 0);
    return fx_sortk(r->kind, a, n, desc, 2);
}

static bool run_pairs(const Runner *r, FxSortPair *p, size_t n, bool desc)
{
    if (r->threads) return fx_sortk_parallel_by_key(p, n, desc, r->threads, 0);
    return fx_sortk_by_key(r->kind, p, n, desc, 2);
}

static int reported; /* failures printed so far: the first few are enough */

static void report(const char *what, const Runner *r, size_t n, Pattern p, bool desc)
{
    if (reported++ < 10)
        fprintf(stderr, "  %s: %s, n = %zu, %s, %s\n", what, r->name, n, pattern_names[p],
                desc ? "descending" : "ascending");
}

/* An input and its sorted reference, for int64 or for pairs (index = input
 * position, which makes the stable order the qsort order by (key, index)). */
typedef struct Case {
    size_t n;
    Pattern pattern;
    bool desc, pairs;
    int64_t *in, *ref;      /* int64 */
    FxSortPair *pin, *pref; /* pairs */
} Case;

static Case make_case(size_t n, Pattern p, bool desc, bool pairs)
{
    Case c = {n, p, desc, pairs, NULL, NULL, NULL, NULL};
    c.in = malloc((n + 1) * sizeof(*c.in));
    fill(c.in, n, p);
    if (pairs) {
        c.pin = malloc((n + 1) * sizeof(*c.pin));
        c.pref = malloc((n + 1) * sizeof(*c.pref));
        for (size_t i = 0; i < n; i++)
            c.pin[i] = (FxSortPair){c.in[i], i};
        memcpy(c.pref, c.pin, n * sizeof(*c.pin));
        qsort(c.pref, n, sizeof(*c.pref), desc ? cmp_pair_desc : cmp_pair_asc);
    } else {
        c.ref = malloc((n + 1) * sizeof(*c.ref));
        memcpy(c.ref, c.in, n * sizeof(*c.in));
        qsort(c.ref, n, sizeof(*c.ref), desc ? cmp_desc : cmp_asc);
    }
    return c;
}

static void free_case(Case *c)
{
    free(c->in);
    free(c->ref);
    free(c->pin);
    free(c->pref);
}

/* Sorts a copy of the case's input with r; true when it equals the reference. */
static bool check(const Runner *r, const Case *c)
{
    bool ok;
    if (c->pairs) {
        FxSortPair *a = malloc((c->n + 1) * sizeof(*a));
        memcpy(a, c->pin, c->n * sizeof(*a));
        ok = run_pairs(r, a, c->n, c->desc) && memcmp(a, c->pref, c->n * sizeof(*a)) == 0;
        free(a);
    } else {
        int64_t *a = malloc((c->n + 1) * sizeof(*a));
        memcpy(a, c->in, c->n * sizeof(*a));
        ok = run_i64(r, a, c->n, c->desc) && memcmp(a, c->ref, c->n * sizeof(*a)) == 0;
        free(a);
    }
    if (!ok)
        report(c->pairs ? "pairs differ from the stable order" : "int64 differs from qsort", r,
               c->n, c->pattern, c->desc);
    return ok;
}

/* A fresh case checked with one runner. */
static bool check_one(const Runner *r, size_t n, Pattern p, bool desc, bool pairs)
{
    Case c = make_case(n, p, desc, pairs);
    bool ok = check(r, &c);
    free_case(&c);
    return ok;
}

/* The parallel radix sees only the values, not their order: these patterns
 * reach all its paths (passes skipped or not, the counting sort), and the
 * forced runners, which wake threads a dozen times a sort, skip the rest. */
static bool reaches_parallel_paths(Pattern p)
{
    return p == P_RANDOM || p == P_SMALL_RANGE || p == P_FEW_UNIQUE || p == P_EXTREMES ||
           p == P_LOW_HIGH || p == P_NEGATIVE || p == P_OUTLIERS;
}

/* A fresh case checked with every runner: how many failed. */
static int check_all(size_t n, Pattern p, bool desc, bool pairs)
{
    Case c = make_case(n, p, desc, pairs);
    int failed = 0;
    for (size_t r = 0; r < COUNT(runners); r++) {
        if (runners[r].threads == 0 || reaches_parallel_paths(p)) failed += !check(&runners[r], &c);
    }
    free_case(&c);
    return failed;
}

/* Sizes at and beside every threshold in sortk.c. */
static const size_t edge_sizes[] = {
        0,   1,    2,    3,    4,    5,    7,    8,    9,    15,   16,   17,   23,   24,  25,
        31,  32,   33,   34,   47,   63,   64,   65,   66,   100,  127,  128,  129,  130, 131,
        191, 192,  193,  255,  256,  257,  258,  259,  300,  383,  384,  385,  511,  512, 513,
        999, 1000, 1001, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 9000,
};

FX_TEST(every_kernel_equals_qsort_at_edge_sizes)
{
    for (size_t s = 0; s < COUNT(edge_sizes); s++) {
        size_t n = edge_sizes[s];
        for (int p = 0; p < P__COUNT; p++) {
            EXPECT_EQ(check_all(n, (Pattern)p, false, false), 0);
            EXPECT_EQ(check_all(n, (Pattern)p, true, false), 0);
        }
    }
}

/* Sizes past the radix sort's cache limit (2^16 int64, 2^15 pairs), where
 * it splits on the top digit first, and recurses into a bucket too large
 * for the cache (outliers), on the patterns that reach those paths. */
FX_TEST(every_kernel_equals_qsort_past_the_radix_split)
{
    const Pattern patterns[] = {P_RANDOM, P_OUTLIERS, P_LOW_HIGH, P_OFFSET, P_FEW_UNIQUE};
    for (size_t p = 0; p < COUNT(patterns); p++) {
        EXPECT_EQ(check_all(70001, patterns[p], p % 2 == 0, false), 0);
        EXPECT_EQ(check_all(70001, patterns[p], p % 2 == 1, true), 0);
    }
}

FX_TEST(every_kernel_equals_qsort_on_random_inputs)
{
    for (int trial = 0; trial < 2500; trial++) {
        // sizes log-uniform up to ~4000
        size_t n = (size_t)(rnd() % ((uint64_t)1 << (rnd() % 13)));
        const Runner *r = &runners[rnd() % COUNT(runners)];
        EXPECT(check_one(r, n, (Pattern)(rnd() % P__COUNT), rnd() & 1, false));
    }
}

/* Above the cutoff the reference is pdq (checked against qsort above) for
 * int64, and a direct check of the stable order for pairs: qsort of a
 * million elements would cost more than the rest of the file. */
FX_TEST(parallel_above_its_cutoff)
{
    size_t n = FX_SORTK_PARALLEL_MIN + 12345;
    int64_t *a = malloc(n * sizeof(*a)), *ref = malloc(n * sizeof(*ref));
    const Pattern patterns[] = {P_RANDOM, P_SMALL_RANGE};
    for (size_t i = 0; i < COUNT(patterns); i++) {
        for (unsigned threads = 2; threads <= 3; threads++) {
            bool desc = threads == 3;
            fill(a, n, patterns[i]);
            memcpy(ref, a, n * sizeof(*a));
            EXPECT(fx_sortk(FX_SORTK_PDQ, ref, n, desc, 1));
            EXPECT(fx_sortk(FX_SORTK_PARALLEL, a, n, desc, threads));
            EXPECT(memcmp(a, ref, n * sizeof(*a)) == 0);
        }
    }
    free(ref);

    // pairs: keys descending, equal keys in index order, every index once
    FxSortPair *p = malloc(n * sizeof(*p));
    fill(a, n, P_FEW_UNIQUE);
    for (size_t i = 0; i < n; i++)
        p[i] = (FxSortPair){a[i], i};
    EXPECT(fx_sortk_by_key(FX_SORTK_PARALLEL, p, n, true, 2));
    unsigned char *seen = calloc(n, 1);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += p[i].index >= n || seen[p[i].index] || a[p[i].index] != p[i].key;
        if (p[i].index < n) seen[p[i].index] = 1;
        if (i > 0)
            bad += p[i - 1].key < p[i].key ||
                   (p[i - 1].key == p[i].key && p[i - 1].index > p[i].index);
    }
    EXPECT_EQ(bad, 0);
    free(seen);
    free(p);
    free(a);
}

FX_TEST(parallel_with_more_threads_than_elements)
{
    for (size_t n = 0; n < 12; n++) {
        for (unsigned threads = 0; threads <= 9; threads += 3) {
            const Runner r = {"parallel/many", FX_SORTK_PARALLEL, threads ? threads : 1};
            EXPECT(check_one(&r, n, P_RANDOM, n % 2, false));
            EXPECT(check_one(&r, n, P_FEW_UNIQUE, n % 3 == 0, true));
        }
    }
    int64_t a[] = {3, -1, 2};
    EXPECT(fx_sortk_parallel(a, 3, false, 0, 0)); // 0 threads counts as 1
    EXPECT(a[0] == -1 && a[1] == 2 && a[2] == 3);
}

/* The thresholds of the pair kernels: insertion up to 32 and the runs of
 * the merge sort, radix from 64 (the radix split: the test above). */
static const size_t pair_sizes[] = {0,   1,   2,   3,    5,    16,   31,   32,  33,  34,
                                    63,  64,  65,  66,   96,   97,   127,  128, 129, 255,
                                    256, 257, 300, 1023, 1024, 1025, 4097, 9000};

FX_TEST(by_key_is_stable_both_ways)
{
    for (size_t s = 0; s < COUNT(pair_sizes); s++) {
        size_t n = pair_sizes[s];
        for (int p = 0; p < P__COUNT; p++) {
            EXPECT_EQ(check_all(n, (Pattern)p, false, true), 0);
            EXPECT_EQ(check_all(n, (Pattern)p, true, true), 0);
        }
    }
    for (int trial = 0; trial < 1000; trial++) {
        size_t n = (size_t)(rnd() % ((uint64_t)1 << (rnd() % 13)));
        const Runner *r = &runners[rnd() % COUNT(runners)];
        EXPECT(check_one(r, n, (Pattern)(rnd() % P__COUNT), rnd() & 1, true));
    }
}

/* Stability where a reversed ascending sort would fail: equal keys in
 * input order, descending too. */
FX_TEST(by_key_descending_is_not_a_reversal)
{
    for (size_t k = 0; k < FX_SORTK__COUNT; k++) {
        FxSortPair p[200];
        for (size_t i = 0; i < COUNT(p); i++)
            p[i] = (FxSortPair){(int64_t)(i % 3), i};
        EXPECT(fx_sortk_by_key((FxSortKind)k, p, COUNT(p), true, 2));
        // keys 2, 2, ..., 1, ..., 0 with indexes rising within each key
        EXPECT_EQ(p[0].key, 2);
        EXPECT_EQ(p[0].index, 2);
        EXPECT_EQ(p[1].index, 5);
        EXPECT_EQ(p[66].key, 1);
        EXPECT_EQ(p[66].index, 1);
        EXPECT_EQ(p[199].key, 0);
        EXPECT_EQ(p[199].index, 198);
    }
}

/* vqsort (Highway's, whichever instruction set the CPU gives it) on a
 * million elements, past its base case and its sampling of pivots, in
 * both directions, against qsort; the small sizes are in the runners. */
FX_TEST(vqsort_sorts_a_million_exactly)
{
    const Runner r = {"vqsort", FX_SORTK_VQSORT, 0};
    const Pattern patterns[] = {P_RANDOM, P_SORTED, P_REVERSED, P_ALL_EQUAL, P_EXTREMES};
    for (size_t p = 0; p < COUNT(patterns); p++) {
        EXPECT(check_one(&r, 1000000, patterns[p], false, false));
        EXPECT(check_one(&r, 1000000, patterns[p], true, false));
    }
    EXPECT(check_one(&r, 1000000, P_FEW_UNIQUE, true, true));
}

/* vqsort sorts pairs as (key, index) numbers only where that order is the
 * stable one, the indices rising through an aligned array; anything else
 * goes to the merge sort, and the result is stable all the same. */
FX_TEST(vqsort_pairs_with_other_indices_or_alignment_stay_stable)
{
    size_t n = 5000;
    FxSortPair *p = malloc((n + 1) * sizeof(*p)), *in = malloc(n * sizeof(*in));
    FxSortPair *ref = malloc(n * sizeof(*ref));
    for (int variant = 0; variant < 3; variant++) {
        for (size_t i = 0; i < n; i++) /* indices falling, repeated, or rising (unaligned) */
            in[i] = (FxSortPair){(int64_t)(rnd() % 50) - 25,
                                 variant == 0 ? n - i : variant == 1 ? i / 2 : i};
        FxSortPair *a = variant == 2 ? p + 1 : p; /* 8 bytes off a 16-byte boundary */
        for (int desc = 0; desc < 2; desc++) {
            memcpy(ref, in, n * sizeof(*in));
            EXPECT(fx_sortk_by_key(FX_SORTK_PDQ, ref, n, desc, 1)); /* the merge sort: stable */
            memcpy(a, in, n * sizeof(*in));
            EXPECT(fx_sortk_by_key(FX_SORTK_VQSORT, a, n, desc, 1));
            EXPECT(memcmp(a, ref, n * sizeof(*a)) == 0);
        }
    }
    free(p);
    free(in);
    free(ref);
}

/* ---- speed on hostile patterns ---- */

/* Best of three times of kernel k on the pattern, n elements. */
static double best_time(FxSortKind k, size_t n, Pattern p)
{
    int64_t *a = malloc(n * sizeof(*a));
    double best = 1e9;
    for (int round = 0; round < 3; round++) {
        fill(a, n, p);
        double t0 = now();
        fx_sortk(k, a, n, false, 1);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    free(a);
    return best;
}

/* A quadratic sort of 2^16 elements does ~10^9 moves, some 500 times the
 * work of n log n, so a bound of 10x random input (plus noise) is far
 * from both. */
FX_TEST(no_pattern_makes_a_kernel_quadratic)
{
    const size_t n = (size_t)1 << 16;
    const FxSortKind kinds[] = {FX_SORTK_INSERTION, FX_SORTK_PDQ, FX_SORTK_RADIX,
                                FX_SORTK_VQSORT};
    double random_pdq = best_time(FX_SORTK_PDQ, n, P_RANDOM);
    for (size_t k = 0; k < COUNT(kinds); k++) {
        for (int p = 0; p < P__COUNT; p++) {
            double t = best_time(kinds[k], n, (Pattern)p);
            if (!(t < 10 * random_pdq + 0.005))
                fprintf(stderr, "  %s on %s: %.2f ms, random pdq %.2f ms\n",
                        fx_sortk_name(kinds[k]), pattern_names[p], t * 1e3, random_pdq * 1e3);
            EXPECT(t < 10 * random_pdq + 0.005);
        }
    }
}

/* With no budget pdq heapsorts at once; with a little, it mixes both. */
FX_TEST(pdq_heapsort_fallback_sorts)
{
    size_t sizes[] = {0, 1, 2, 23, 24, 25, 100, 129, 1000, 4097};
    for (size_t s = 0; s < COUNT(sizes); s++) {
        size_t n = sizes[s];
        int64_t *a = malloc((n + 1) * sizeof(*a)), *ref = malloc((n + 1) * sizeof(*ref));
        for (unsigned budget = 0; budget <= 2; budget++) {
            for (int p = 0; p < P__COUNT; p++) {
                fill(a, n, (Pattern)p);
                memcpy(ref, a, n * sizeof(*a));
                qsort(ref, n, sizeof(*ref), cmp_asc);
                fx_sortk_pdq_budget(a, n, budget);
                EXPECT(memcmp(a, ref, n * sizeof(*a)) == 0);
            }
        }
        free(a);
        free(ref);
    }
}

/* ---- features ---- */

FX_TEST(features_of_known_inputs)
{
    FxSortFeatures f;
    fx_sortk_features(NULL, 0, &f);
    EXPECT(f.n == 0 && f.descents == 0 && f.min == 0 && f.max == 0 && !f.sampled);

    int64_t one[] = {-5};
    fx_sortk_features(one, 1, &f);
    EXPECT(f.n == 1 && f.descents == 0 && f.min == -5 && f.max == -5);

    int64_t mixed[] = {3, 1, 2, 2, INT64_MAX, INT64_MIN, 0, -1};
    fx_sortk_features(mixed, COUNT(mixed), &f);
    EXPECT_EQ(f.n, 8);
    EXPECT_EQ(f.descents, 3); // 3>1, MAX>MIN, 0>-1; 2,2 is no descent
    EXPECT(f.min == INT64_MIN && f.max == INT64_MAX && !f.sampled);

    size_t n = FX_SORTK_FEATURES_EXACT_MAX;
    int64_t *a = malloc((n + 1) * sizeof(*a));
    fill(a, n, P_REVERSED); // exact at the limit
    fx_sortk_features(a, n, &f);
    EXPECT(!f.sampled);
    EXPECT_EQ(f.descents, n - 1);
    EXPECT_EQ(f.min, 7);
    EXPECT_EQ(f.max, (int64_t)n * 7);

    n++; // sampled from here
    fill(a, n, P_SORTED);
    fx_sortk_features(a, n, &f);
    EXPECT(f.sampled);
    EXPECT_EQ(f.n, n);
    EXPECT_EQ(f.descents, 0);
    EXPECT_EQ(f.min, -50);
    EXPECT_EQ(f.max, (int64_t)(n - 1) * 3 - 50);

    fill(a, n, P_REVERSED);
    fx_sortk_features(a, n, &f);
    EXPECT_EQ(f.descents, n - 1);

    for (size_t i = 0; i < n; i++)
        a[i] = (int64_t)(i % 2); // a descent every second pair
    fx_sortk_features(a, n, &f);
    EXPECT(f.descents > n / 2 - n / 100 && f.descents < n / 2 + n / 100);
    EXPECT(f.min == 0 && f.max == 1);
    free(a);
}

/* The default costs, whatever level of memory the hardware puts each size
 * in: vqsort for many keys in no order, never for n < 2 (nothing runs;
 * insertion keeps the name), nor where insertion, pdq or radix do less
 * work (sorted, reversed, a small range). */
FX_TEST(default_costs_choose_vqsort_where_it_pays)
{
    FxSortCosts c;
    fx_sortcost_defaults(&c);
    double predicted[FX_SORTK__COUNT];
    for (size_t n = 1000; n <= 100000000; n *= 10) {
        FxSortFeatures random = {n, n / 2, INT64_MIN / 2, INT64_MAX / 2, false};
        for (unsigned threads = 1; threads <= 2; threads++)
            EXPECT_EQ(fx_sortcost_choose(&c, &random, threads, predicted), FX_SORTK_VQSORT);
        FxSortFeatures sorted = {n, 0, 0, (int64_t)n, false}, reversed = {n, n - 1, 0, (int64_t)n, false};
        EXPECT(fx_sortcost_choose(&c, &sorted, 1, predicted) != FX_SORTK_VQSORT);
        EXPECT(fx_sortcost_choose(&c, &reversed, 1, predicted) != FX_SORTK_VQSORT);
        FxSortFeatures narrow = {n, n / 2, 0, 99, false};
        EXPECT_EQ(fx_sortcost_choose(&c, &narrow, 1, predicted), n < 100000 ? FX_SORTK_RADIX : FX_SORTK_VQSORT);
    }
    FxSortFeatures one = {1, 0, 7, 7, false};
    EXPECT_EQ(fx_sortcost_choose(&c, &one, 1, predicted), FX_SORTK_INSERTION);
    EXPECT(predicted[FX_SORTK_VQSORT] == predicted[FX_SORTK_INSERTION]);
}

FX_TEST(names)
{
    EXPECT_STR_EQ(fx_sortk_name(FX_SORTK_INSERTION), "insertion");
    EXPECT_STR_EQ(fx_sortk_name(FX_SORTK_PDQ), "pdq");
    EXPECT_STR_EQ(fx_sortk_name(FX_SORTK_RADIX), "radix");
    EXPECT_STR_EQ(fx_sortk_name(FX_SORTK_PARALLEL), "parallel");
    EXPECT_STR_EQ(fx_sortk_name(FX_SORTK_VQSORT), "vqsort");
    EXPECT_STR_EQ(fx_sortk_name(FX_SORTK__COUNT), "?");
}

int main(void)
{
    return fx_test_run();
}
