/*
 * sortk.c: sorting kernels for int64 arrays and (key, index) pairs.
 *
 * DESIGN
 *
 * Every kernel sorts ascending. A descending sort is an ascending one on
 * ~x, since ~x = -x - 1 maps int64 onto itself reversing the order; for
 * pairs that keeps the sort stable, where reversing an ascending result
 * would put equal keys backwards. INSERTION and PDQ flip the keys before
 * and after; the radix sorts fold the flip into the digit they extract.
 * VQSORT (Highway's, vqsort_plugin.cc) sorts descending itself, and pairs as
 * 128-bit (key, index) numbers, the key flipped there.
 *
 * Insertion. Up to INSERTION_MAX elements, straight insertion. Above, one
 * pass keeps a sorted prefix a[0..w) as a stack: an element at least as
 * large as the top is pushed; a smaller one is lifted out together with
 * the top it undercuts (that top may be the one out of place). So d
 * descents lift at most 2d elements; they are sorted by pdq and merged
 * back from the end of the array, where the lifted elements left exactly
 * the room they need. When more than n/8 are lifted the input is not
 * nearly sorted: they go back into the gap they left and pdq sorts it all.
 *
 * Pdq: the pattern-defeating quicksort of Orson Peters, written anew here
 * from its description:
 *   - below PDQ_INSERTION elements, insertion sort; unguarded when the
 *     range is not leftmost, as the element before it bounds it below;
 *   - pivot: median of 3, or Tukey's ninther above PDQ_NINTHER;
 *   - a range whose left neighbour equals the pivot is all >= it, so it
 *     is split into "== pivot" (done) and "> pivot" (partition_left):
 *     many equal keys cost O(n);
 *   - otherwise partition_right puts < pivot left and >= pivot right,
 *     in blocks of BLOCK elements in the manner of BlockQuicksort (Edelkamp
 *     and Weiss): the misplaced elements of a left and a right block are
 *     found without branches, their offsets noted, then swapped as one
 *     cycle. It also says whether the range was already partitioned;
 *   - already partitioned and balanced: a partial insertion sort of each
 *     side, abandoned after PARTIAL_LIMIT moves, finishes sorted runs in
 *     O(n);
 *   - unbalanced (a side under n/8): a few elements at the pivot sample
 *     positions are swapped with pseudo-random ones to break the pattern;
 *     after log2(n) such partitions on one path the range is heapsorted,
 *     which bounds the whole at O(n log n).
 *   The smaller side is sorted by recursion, the larger by the loop, so
 *   the stack holds O(log n) frames.
 *
 * Radix. Over the keys minus their minimum (u = (key ^ flip) - base), so
 * only bits that vary count: bits(max - min) split into the fewest digits
 * of at most 8 bits, of equal widths. Up to LSD_BYTES of data (it and its
 * scratch stay in L2) it is LSD: one read counts every digit, a digit
 * that every key shares is skipped, the passes go back and forth between
 * the array and the scratch, with a copy when they end on the wrong side.
 * A larger array is split first, MSD, on its top digit: one pass scatters
 * it into the scratch, through write-combining lines streamed past the
 * cache (scattering plainly to 256 places misses the TLB and fetches each
 * line it writes; on the machine this was tuned on, 4x slower), then each
 * bucket is sorted from the scratch back into its place in the array,
 * planned anew on its own range: LSD in cache, or split again if it is
 * still large (when a few keys far apart widen the range). Counting
 * scatters keep equal keys in input order, so both steps are stable. For
 * int64 arrays (not pairs: they carry a payload) a range below
 * COUNTING_MAX and below n is a counting sort instead, rewriting the
 * array from the counts.
 *
 * Parallel radix. The same on T threads: thread t owns the t-th chunk of
 * the array and counts its top digits; the calling thread lays out where
 * each (digit, thread) goes, digit major, thread minor, which keeps it
 * stable; each thread scatters its chunk into the scratch; then each
 * sorts a run of whole buckets, the runs cut at about n/T elements. Each
 * phase is one launch of T tasks on the CPU device (hw/device.h: the
 * thread pool, the calling thread working too), which returns when all
 * have run: that orders one phase's writes before the next one's reads.
 * A counting sort runs the same way: tallies per chunk, then each thread
 * rewrites its chunk of the output.
 *
 * The radix code is written once over elements of es bytes whose first
 * 8 bytes are the key (int64, or FxSortPair). Its loops are inlined into
 * small wrappers (minmax_es, count_es, scatter_es, ...) that instantiate
 * each for the two sizes, so every loop compiles for a constant size; the
 * recursive code above them takes es as a variable.
 */
#include "sortk.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/base.h"
#include "hw/device.h"
#include "vqsort.h"

#define INSERTION_MAX 32  /* straight insertion up to here */
#define LIFT_DIVISOR  8   /* batch insertion gives up past n/8 lifted */
#define PDQ_INSERTION 24  /* pdq: insertion sort below this */
#define PDQ_NINTHER   128 /* pdq: ninther pivot above this */
#define PARTIAL_LIMIT 8   /* pdq: moves a partial insertion sort may make */
#define BLOCK         64  /* block partition: elements a block (offsets fit a byte) */

#define RADIX_SMALL      64 /* radix: insertion sort below this */
#define RADIX_BITS       8  /* radix: most bits a pass */
#define RADIX_BUCKETS    (1u << RADIX_BITS)
#define RADIX_MAX_PASSES (64 / RADIX_BITS)
#define LSD_BYTES        ((size_t)1 << 19)   /* LSD when this fits, with its scratch, in L2 */
#define COUNTING_MAX     ((uint64_t)1 << 16) /* counting sort when range < this and < n */
#define LINE             64                  /* bytes a cache line */
#define PAR_MAX_THREADS  64

#define SIGN_BIT ((uint64_t)1 << 63)
#define INLINE   static inline __attribute__((always_inline))

_Static_assert(BLOCK <= 255, "block offsets are stored in bytes");
_Static_assert(offsetof(FxSortPair, key) == 0, "the radix code reads a key at offset 0");

/* ORDER FX_SORTK */
static const char *const kind_names[] = {"insertion", "pdq", "radix", "parallel", "vqsort"};
_Static_assert(FX_ARRAY_LEN(kind_names) == FX_SORTK__COUNT, "kind_names[] out of sync");

const char *fx_sortk_name(FxSortKind k)
{
    return (unsigned)k < FX_SORTK__COUNT ? kind_names[k] : "?";
}

static inline size_t min_size(size_t x, size_t y)
{
    return x < y ? x : y;
}

static inline void swap_i64(int64_t *x, int64_t *y)
{
    int64_t t = *x;
    *x = *y;
    *y = t;
}

/* The order-reversing flip ~x of every key, for descending sorts. */
static void flip_i64(int64_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = ~a[i];
}

static void flip_pairs(FxSortPair *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i].key = ~p[i].key;
}

/* ---- insertion sorts ---- */

static void insertion_sort(int64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int64_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* Insertion sort of a range whose left neighbour a[-1] is <= all of it,
 * so the inner loop needs no bound check. */
static void insertion_unguarded(int64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        int64_t x = a[i];
        int64_t *p = a + i;
        while (p[-1] > x) {
            *p = p[-1];
            p--;
        }
        *p = x;
    }
}

/* Insertion sort that gives up, leaving a permutation, once it has moved
 * elements more than PARTIAL_LIMIT places in all. True when it sorted. */
static bool partial_insertion(int64_t *a, size_t n)
{
    size_t moves = 0;
    for (size_t i = 1; i < n; i++) {
        int64_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
        moves += i - j;
        if (moves > PARTIAL_LIMIT) return false;
    }
    return true;
}

/* Stable: an element moves left only past strictly greater keys. */
static void insertion_pairs(FxSortPair *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        FxSortPair x = p[i];
        size_t j = i;
        while (j > 0 && p[j - 1].key > x.key) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

/* ---- heapsort, pdq's guarantee ---- */

static void sift_down(int64_t *a, size_t n, size_t i)
{
    int64_t x = a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && a[c] < a[c + 1]) c++;
        if (!(x < a[c])) break;
        a[i] = a[c];
        i = c;
    }
    a[i] = x;
}

static void heapsort_i64(int64_t *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(a, n, i);
    for (size_t end = n; end > 1; end--) {
        swap_i64(&a[0], &a[end - 1]);
        sift_down(a, end - 1, 0);
    }
}

/* ---- pdq ---- */

static inline void sort2(int64_t *x, int64_t *y)
{
    int64_t lo = *x < *y ? *x : *y, hi = *x < *y ? *y : *x;
    *x = lo;
    *y = hi;
}

static inline void sort3(int64_t *x, int64_t *y, int64_t *z)
{
    sort2(x, y);
    sort2(y, z);
    sort2(x, y);
}

/* Moves the pivot to a[0]. Either way some element >= the pivot stays in
 * a[1..n), which partition_right's first scan relies on. */
static void choose_pivot(int64_t *a, size_t n)
{
    size_t h = n / 2;
    if (n > PDQ_NINTHER) {
        sort3(&a[0], &a[h], &a[n - 1]);
        sort3(&a[1], &a[h - 1], &a[n - 2]);
        sort3(&a[2], &a[h + 1], &a[n - 3]);
        sort3(&a[h - 1], &a[h], &a[h + 1]);
        swap_i64(&a[0], &a[h]);
    } else {
        sort3(&a[h], &a[0], &a[n - 1]);
    }
}

/* Swaps first[offl[i]] (each >= pivot) with last[-offr[i]] (each < pivot),
 * i < m, as one cycle: 2m + 1 moves instead of 3m. */
static void swap_offsets(int64_t *first, int64_t *last, const unsigned char *offl,
                         const unsigned char *offr, size_t m)
{
    if (m == 0) return;
    int64_t *l = first + offl[0], *r = last - offr[0];
    int64_t tmp = *l;
    *l = *r;
    for (size_t i = 1; i < m; i++) {
        l = first + offl[i];
        *r = *l;
        r = last - offr[i];
        *l = *r;
    }
    *r = tmp;
}

/* Notes in off[] the offsets of the elements of first[0..size) that are
 * >= pivot; returns how many. No branch depends on the data. */
static size_t scan_left(const int64_t *first, size_t size, int64_t pivot, unsigned char *off)
{
    size_t m = 0;
    for (size_t i = 0; i < size; i++) {
        off[m] = (unsigned char)i;
        m += !(first[i] < pivot);
    }
    return m;
}

/* The same for last[-1], last[-2], ..., last[-size] and elements < pivot,
 * noting i + 1 for last[-(i + 1)]. */
static size_t scan_right(const int64_t *last, size_t size, int64_t pivot, unsigned char *off)
{
    size_t m = 0;
    for (size_t i = 0; i < size; i++) {
        off[m] = (unsigned char)(i + 1);
        m += last[-(ptrdiff_t)i - 1] < pivot;
    }
    return m;
}

/*
 * Partitions a[0..n) around the pivot a[0]: returns p with a[p] the pivot,
 * a[0..p) < pivot <= a(p..n). *out_already says no element had to move.
 *
 * Invariant of the block phase: a[1..first) < pivot <= a[last..n). A block
 * whose misplaced elements are not all swapped yet stays pending (nl or nr
 * > 0, its offsets from sl or sr on); at most one side is pending.
 */
static size_t partition_right(int64_t *a, size_t n, bool *out_already)
{
    const int64_t pivot = a[0];
    int64_t *first = a + 1, *last = a + n;

    // choose_pivot left an element >= pivot in a[1..n) to stop this scan
    while (*first < pivot)
        first++;
    // and a[first - 1] < pivot stops this one, unless there is none
    if (first == a + 1) {
        while (first < last && !(*--last < pivot)) {
        }
    } else {
        while (!(*--last < pivot)) {
        }
    }
    *out_already = first >= last;
    if (first >= last) {
        swap_i64(&a[0], first - 1);
        return (size_t)(first - 1 - a);
    }
    swap_i64(first, last);
    first++;

    unsigned char offl[BLOCK], offr[BLOCK];
    size_t nl = 0, nr = 0, sl = 0, sr = 0;
    while (last - first > 2 * BLOCK) {
        if (nl == 0) {
            sl = 0;
            nl = scan_left(first, BLOCK, pivot, offl);
        }
        if (nr == 0) {
            sr = 0;
            nr = scan_right(last, BLOCK, pivot, offr);
        }
        size_t m = min_size(nl, nr);
        swap_offsets(first, last, offl + sl, offr + sr, m);
        nl -= m, nr -= m, sl += m, sr += m;
        if (nl == 0) first += BLOCK;
        if (nr == 0) last -= BLOCK;
    }

    // the last round: two blocks that cover [first, last) exactly
    size_t rest = (size_t)(last - first), lsize, rsize;
    if (nl) {
        lsize = BLOCK, rsize = rest - BLOCK;
    } else if (nr) {
        lsize = rest - BLOCK, rsize = BLOCK;
    } else {
        lsize = rest / 2, rsize = rest - rest / 2;
    }
    if (nl == 0) {
        sl = 0;
        nl = scan_left(first, lsize, pivot, offl);
    }
    if (nr == 0) {
        sr = 0;
        nr = scan_right(last, rsize, pivot, offr);
    }
    size_t m = min_size(nl, nr);
    swap_offsets(first, last, offl + sl, offr + sr, m);
    nl -= m, nr -= m, sl += m, sr += m;
    if (nl == 0) first += lsize;
    if (nr == 0) last -= rsize;

    // misplaced elements left over on one side go to the side's inner end,
    // highest offset first, so each swaps with an element known to belong
    int64_t *mid = first;
    if (nl) {
        mid = first + lsize;
        while (nl--)
            swap_i64(first + offl[sl + nl], --mid);
    } else if (nr) {
        mid = last - rsize;
        while (nr--)
            swap_i64(last - offr[sr + nr], mid++);
    }
    swap_i64(&a[0], mid - 1);
    return (size_t)(mid - 1 - a);
}

/* Partitions a[0..n) around the pivot a[0] into <= pivot, then > pivot;
 * returns the pivot's place. Used when a[-1] equals the pivot, so the
 * left side is all equal to it and done. */
static size_t partition_left(int64_t *a, size_t n)
{
    const int64_t pivot = a[0];
    int64_t *first = a, *last = a + n;

    while (pivot < *--last) { // a[0] stops it
    }
    if (last + 1 == a + n) {
        while (first < last && !(pivot < *++first)) {
        }
    } else {
        while (!(pivot < *++first)) { // a[last + 1] > pivot stops it
        }
    }
    while (first < last) {
        swap_i64(first, last);
        while (pivot < *--last) {
        }
        while (!(pivot < *++first)) {
        }
    }
    swap_i64(&a[0], last);
    return (size_t)(last - a);
}

/* After an unbalanced partition: swaps the places choose_pivot samples
 * with pseudo-random others, so the next pivot comes from elsewhere. */
static void break_patterns(int64_t *a, size_t n)
{
    if (n < PDQ_INSERTION) return;
    uint64_t r = (uint64_t)n * 0x9E3779B97F4A7C15u;
    size_t h = n / 2;
    size_t at[] = {0, 1, 2, h - 1, h, h + 1, n - 3, n - 2, n - 1};
    for (size_t i = 0; i < FX_ARRAY_LEN(at); i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17; // xorshift64
        swap_i64(&a[at[i]], &a[r % n]);
    }
}

static void pdq_loop(int64_t *a, size_t n, unsigned bad_allowed, bool leftmost)
{
    for (;;) {
        if (n < PDQ_INSERTION) {
            if (leftmost)
                insertion_sort(a, n);
            else
                insertion_unguarded(a, n);
            return;
        }
        if (bad_allowed == 0) {
            heapsort_i64(a, n);
            return;
        }
        choose_pivot(a, n);
        // a[-1] <= everything here; equal to the pivot, it takes its copies
        if (!leftmost && !(a[-1] < a[0])) {
            size_t p = partition_left(a, n);
            a += p + 1, n -= p + 1;
            continue;
        }
        bool already;
        size_t p = partition_right(a, n, &already);
        size_t ls = p, rs = n - p - 1;
        if (ls < n / 8 || rs < n / 8) {
            bad_allowed--;
            break_patterns(a, ls);
            break_patterns(a + p + 1, rs);
        } else if (already && partial_insertion(a, ls) && partial_insertion(a + p + 1, rs)) {
            return;
        }
        if (ls < rs) {
            pdq_loop(a, ls, bad_allowed, leftmost);
            a += p + 1, n = rs, leftmost = false;
        } else {
            pdq_loop(a + p + 1, rs, bad_allowed, false);
            n = ls;
        }
    }
}

static unsigned log2_floor(size_t n)
{
    unsigned k = 0;
    while (n >>= 1)
        k++;
    return k;
}

static void pdq_sort(int64_t *a, size_t n)
{
    pdq_loop(a, n, log2_floor(n), true);
}

void fx_sortk_pdq_budget(int64_t *a, size_t n, unsigned bad_allowed)
{
    pdq_loop(a, n, bad_allowed, true);
}

/* ---- batch insertion ---- */

static void batch_insertion(int64_t *a, size_t n)
{
    if (n <= INSERTION_MAX) {
        insertion_sort(a, n);
        return;
    }
    size_t cap = n / LIFT_DIVISOR;
    int64_t *lifted = malloc(cap * sizeof(*lifted));
    if (!lifted) {
        pdq_sort(a, n); // needs no memory
        return;
    }
    // a[0..w) sorted, lifted[0..m) out of order, w + m = r elements read
    size_t w = 0, m = 0, r;
    for (r = 0; r < n; r++) {
        int64_t x = a[r];
        if (w == 0 || a[w - 1] <= x) {
            a[w++] = x;
            continue;
        }
        if (m + 2 > cap) break;
        lifted[m++] = a[--w];
        lifted[m++] = x;
    }
    if (r < n) {
        memcpy(a + w, lifted, m * sizeof(*lifted)); // fills the gap a[w..r)
        free(lifted);
        pdq_sort(a, n);
        return;
    }
    pdq_sort(lifted, m);
    // merge from the top down into a[0..n): the write never passes a read
    size_t i = w, j = m, k = n;
    while (j > 0) {
        if (i > 0 && a[i - 1] > lifted[j - 1])
            a[--k] = a[--i];
        else
            a[--k] = lifted[--j];
    }
    free(lifted);
}

/* ---- merge sort of pairs ---- */

/* The first place in p[0..n) whose key is > key. */
static size_t upper_bound(const FxSortPair *p, size_t n, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid].key <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first place in p[0..n) whose key is >= key. */
static size_t lower_bound(const FxSortPair *p, size_t n, int64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Merges the sorted runs p[0..nl) and p[nl..nl+nr) stably. The left
 * prefix <= the right's first key and the right suffix >= the left's last
 * key are in place already; only what lies between is merged, through buf. */
static void merge_runs(FxSortPair *p, size_t nl, size_t nr, FxSortPair *buf)
{
    FxSortPair *r = p + nl;
    if (p[nl - 1].key <= r[0].key) return;
    size_t from = upper_bound(p, nl, r[0].key);
    FxSortPair *rend = r + lower_bound(r, nr, p[nl - 1].key);
    size_t m = nl - from;
    memcpy(buf, p + from, m * sizeof(*buf));
    FxSortPair *out = p + from, *l = buf, *lend = buf + m;
    while (l < lend && r < rend) {
        if (r->key < l->key) // ties from the left: stable
            *out++ = *r++;
        else
            *out++ = *l++;
    }
    while (l < lend)
        *out++ = *l++;
}

static void merge_sort_pairs(FxSortPair *p, size_t n, FxSortPair *buf)
{
    for (size_t i = 0; i < n; i += INSERTION_MAX)
        insertion_pairs(p + i, min_size(INSERTION_MAX, n - i));
    for (size_t width = INSERTION_MAX; width < n; width *= 2) {
        for (size_t lo = 0; lo < n && n - lo > width; lo += 2 * width)
            merge_runs(p + lo, width, min_size(width, n - lo - width), buf);
    }
}

/* ---- radix: plans and loops over elements of es bytes ---- */

typedef struct RadixPlan {
    uint64_t flip, base; /* a key's digits come from ((uint64_t)key ^ flip) - base */
    uint64_t range;      /* max - min of those values */
    unsigned passes;     /* digits of `bits` bits, lowest first */
    unsigned bits;
} RadixPlan;

/* What a radix sort reuses from call to call as it recurses into buckets:
 * one per thread. */
typedef struct RadixWork {
    _Alignas(LINE) unsigned char stage[RADIX_BUCKETS * LINE]; /* scatter_staged's lines */
    size_t count[RADIX_MAX_PASSES * RADIX_BUCKETS];           /* [pass][digit] */
    size_t begin[RADIX_BUCKETS];                              /* scatter_staged's starts */
    size_t es;
    uint64_t flip;
} RadixWork;

INLINE uint64_t elem_value(const unsigned char *e, uint64_t flip)
{
    int64_t key;
    memcpy(&key, e, sizeof(key));
    return (uint64_t)key ^ flip;
}

static size_t buckets(const RadixPlan *plan)
{
    return (size_t)1 << plan->bits;
}

INLINE void minmax_loop(const unsigned char *a, size_t lo, size_t hi, size_t es, uint64_t flip,
                        uint64_t *out_min, uint64_t *out_max)
{
    uint64_t mn = UINT64_MAX, mx = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t u = elem_value(a + i * es, flip);
        mn = u < mn ? u : mn;
        mx = u > mx ? u : mx;
    }
    *out_min = mn;
    *out_max = mx;
}

/* Counts the digits of every pass at once: count[p * buckets + digit p];
 * `passes` is a constant where count_loop calls it, so the inner loop
 * unrolls. */
INLINE void count_passes(const unsigned char *a, size_t n, size_t es, const RadixPlan *plan,
                         size_t *count, unsigned passes)
{
    const uint64_t flip = plan->flip, base = plan->base, mask = ((uint64_t)1 << plan->bits) - 1;
    const unsigned bits = plan->bits;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = elem_value(a + i * es, flip) - base;
        for (unsigned p = 0; p < passes; p++)
            count[(p << bits) + ((u >> (p * bits)) & mask)]++;
    }
}

INLINE void count_loop(const unsigned char *a, size_t n, size_t es, const RadixPlan *plan,
                       size_t *count)
{
    _Static_assert(RADIX_MAX_PASSES == 8, "count_loop counts up to 8 passes");
    switch (plan->passes) {
    case 1:
        count_passes(a, n, es, plan, count, 1);
        break;
    case 2:
        count_passes(a, n, es, plan, count, 2);
        break;
    case 3:
        count_passes(a, n, es, plan, count, 3);
        break;
    case 4:
        count_passes(a, n, es, plan, count, 4);
        break;
    case 5:
        count_passes(a, n, es, plan, count, 5);
        break;
    case 6:
        count_passes(a, n, es, plan, count, 6);
        break;
    case 7:
        count_passes(a, n, es, plan, count, 7);
        break;
    default:
        count_passes(a, n, es, plan, count, 8);
        break;
    }
}

/* Counts digit `pass` alone, of a[lo..hi). */
INLINE void count_digit_loop(const unsigned char *a, size_t lo, size_t hi, size_t es,
                             const RadixPlan *plan, unsigned pass, size_t *count)
{
    const uint64_t flip = plan->flip, base = plan->base, mask = ((uint64_t)1 << plan->bits) - 1;
    const unsigned shift = pass * plan->bits;
    for (size_t i = lo; i < hi; i++)
        count[((elem_value(a + i * es, flip) - base) >> shift) & mask]++;
}

/* Moves src[lo..hi) to dst by digit `pass`; next[d] is where the next
 * element of digit d goes, and is advanced. */
INLINE void scatter_loop(const unsigned char *src, unsigned char *dst, size_t lo, size_t hi,
                         size_t es, const RadixPlan *plan, unsigned pass, size_t *next)
{
    const uint64_t flip = plan->flip, base = plan->base, mask = ((uint64_t)1 << plan->bits) - 1;
    const unsigned shift = pass * plan->bits;
    for (size_t i = lo; i < hi; i++) {
        const unsigned char *e = src + i * es;
        size_t d = ((elem_value(e, flip) - base) >> shift) & mask;
        memcpy(dst + next[d]++ * es, e, es);
    }
}

/* Writes a whole line, 64-byte aligned, past the caches where the machine
 * can: the line will not be read again before the pass ends, and a plain
 * store would first fetch the line it overwrites. */
static inline void stream_line(unsigned char *dst, const unsigned char *line)
{
#if defined(__SSE2__)
    __m128i *q = (__m128i *)(void *)dst;
    const __m128i *l = (const __m128i *)(const void *)line;
    _mm_stream_si128(q, l[0]);
    _mm_stream_si128(q + 1, l[1]);
    _mm_stream_si128(q + 2, l[2]);
    _mm_stream_si128(q + 3, l[3]);
#else
    memcpy(dst, line, LINE);
#endif
}

/* Orders the streamed lines before what follows (the next phase's reads,
 * other threads'). */
static inline void stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* scatter_loop through write-combining lines, for a dst far larger than
 * the caches. Scattering to hundreds of places at once makes nearly every
 * store miss the TLB and fetch the line it writes. Here digit d's elements
 * gather in stage[d], one line laid out as the line of dst they go to
 * (slot = address % LINE / es), and a line whose last slot fills goes out
 * whole, streamed. Lines that the digit (or, in parallel, this thread's
 * share of it) owns only in part, its first and its last, are copied in
 * part. Needs dst aligned to es. */
INLINE void scatter_staged(const unsigned char *src, unsigned char *dst, size_t lo, size_t hi,
                           size_t es, const RadixPlan *plan, unsigned pass, size_t *next,
                           RadixWork *w)
{
    const uint64_t flip = plan->flip, base = plan->base, mask = ((uint64_t)1 << plan->bits) - 1;
    const unsigned shift = pass * plan->bits;
    const size_t per = LINE / es, lead = (uintptr_t)dst % LINE / es; // lead: slot of position 0
    size_t *begin = w->begin;
    memcpy(begin, next, buckets(plan) * sizeof(*begin));
    for (size_t i = lo; i < hi; i++) {
        const unsigned char *e = src + i * es;
        size_t d = ((elem_value(e, flip) - base) >> shift) & mask;
        size_t at = next[d]++, slot = (lead + at) % per;
        unsigned char *line = w->stage + d * LINE;
        memcpy(line + slot * es, e, es);
        if (slot == per - 1) {
            size_t have = at + 1 - begin[d];
            if (have >= per)
                stream_line(dst + (at + 1 - per) * es, line);
            else
                memcpy(dst + begin[d] * es, line + (slot + 1 - have) * es, have * es);
        }
    }
    for (size_t d = 0; d < buckets(plan); d++) {
        size_t end = next[d], pending = (lead + end) % per;
        pending = pending < end - begin[d] ? pending : end - begin[d];
        size_t from = end - pending;
        memcpy(dst + from * es, w->stage + d * LINE + (lead + from) % per * es, pending * es);
    }
    stream_fence();
}

/* The loops for one element size each: the recursive code below takes es
 * as a variable and calls these. */
static void minmax_es(const unsigned char *a, size_t lo, size_t hi, size_t es, uint64_t flip,
                      uint64_t *out_min, uint64_t *out_max)
{
    if (es == sizeof(int64_t))
        minmax_loop(a, lo, hi, sizeof(int64_t), flip, out_min, out_max);
    else
        minmax_loop(a, lo, hi, sizeof(FxSortPair), flip, out_min, out_max);
}

static void count_es(const unsigned char *a, size_t n, size_t es, const RadixPlan *plan,
                     size_t *count)
{
    if (es == sizeof(int64_t))
        count_loop(a, n, sizeof(int64_t), plan, count);
    else
        count_loop(a, n, sizeof(FxSortPair), plan, count);
}

static void count_digit_es(const unsigned char *a, size_t lo, size_t hi, size_t es,
                           const RadixPlan *plan, unsigned pass, size_t *count)
{
    if (es == sizeof(int64_t))
        count_digit_loop(a, lo, hi, sizeof(int64_t), plan, pass, count);
    else
        count_digit_loop(a, lo, hi, sizeof(FxSortPair), plan, pass, count);
}

/* Staged when dst is much larger than the caches (and aligned to es). */
static void scatter_es(const unsigned char *src, unsigned char *dst, size_t lo, size_t hi,
                       size_t es, const RadixPlan *plan, unsigned pass, size_t *next, size_t dst_n,
                       RadixWork *w)
{
    bool staged = dst_n * es > LSD_BYTES && (uintptr_t)dst % es == 0;
    if (es == sizeof(int64_t) && staged)
        scatter_staged(src, dst, lo, hi, sizeof(int64_t), plan, pass, next, w);
    else if (es == sizeof(int64_t))
        scatter_loop(src, dst, lo, hi, sizeof(int64_t), plan, pass, next);
    else if (staged)
        scatter_staged(src, dst, lo, hi, sizeof(FxSortPair), plan, pass, next, w);
    else
        scatter_loop(src, dst, lo, hi, sizeof(FxSortPair), plan, pass, next);
}

/* ---- radix: the sort ---- */

/* The fewest passes of at most RADIX_BITS bits that cover max - min, of
 * equal widths. umin < umax. */
static void make_plan(RadixPlan *plan, uint64_t flip, uint64_t umin, uint64_t umax)
{
    unsigned bits = 64 - (unsigned)__builtin_clzll(umax - umin);
    plan->flip = flip;
    plan->base = umin;
    plan->range = umax - umin;
    plan->passes = (bits + RADIX_BITS - 1) / RADIX_BITS;
    plan->bits = (bits + plan->passes - 1) / plan->passes;
}

/* Plans a[0..n); false when there is nothing to sort (fewer than two
 * distinct keys). */
static bool plan_of(const unsigned char *a, size_t n, const RadixWork *w, RadixPlan *plan)
{
    uint64_t umin, umax;
    minmax_es(a, 0, n, w->es, w->flip, &umin, &umax);
    if (n < 2 || umin == umax) return false;
    make_plan(plan, w->flip, umin, umax);
    return true;
}

static bool is_counting(const RadixPlan *plan, size_t n, size_t es)
{
    return es == sizeof(int64_t) && plan->range < COUNTING_MAX && plan->range < n;
}

/* Is the digit counted in count[] the same for all n elements? */
static bool pass_trivial(const size_t *count, const RadixPlan *plan, size_t n)
{
    for (size_t d = 0; d < buckets(plan); d++) {
        if (count[d] != 0) return count[d] == n;
    }
    return true;
}

/* Turns counts into starting places, from `at` on; returns the end. */
static size_t exclusive_sums(size_t *count, size_t nb, size_t at)
{
    for (size_t d = 0; d < nb; d++) {
        size_t c = count[d];
        count[d] = at;
        at += c;
    }
    return at;
}

/* Sorts a[0..n) by LSD over the plan's digits, skipping those every key
 * shares, back and forth between a and b; the result ends in b when
 * into_b, else in a (a copy when the passes end on the other side). */
static void lsd(unsigned char *a, unsigned char *b, size_t n, const RadixPlan *plan, RadixWork *w,
                bool into_b)
{
    size_t es = w->es, nb = buckets(plan);
    memset(w->count, 0, plan->passes * nb * sizeof(*w->count));
    count_es(a, n, es, plan, w->count);
    unsigned char *from = a, *to = b;
    for (unsigned p = 0; p < plan->passes; p++) {
        size_t *next = w->count + p * nb;
        if (pass_trivial(next, plan, n)) continue;
        exclusive_sums(next, nb, 0);
        scatter_es(from, to, 0, n, es, plan, p, next, n, w);
        unsigned char *done = from;
        from = to, to = done;
    }
    unsigned char *want = into_b ? b : a;
    if (from != want) memcpy(want, from, n * es);
}

static void radix_into(unsigned char *src, unsigned char *dst, size_t n, RadixWork *w);

/*
 * Sorts x[0..n) in place, planned as `plan`, with tmp[0..n) as scratch.
 * What fits the cache is LSD-sorted. Larger arrays are split by their top
 * digit: one pass that scatters x into tmp by bucket, then each bucket is
 * sorted from tmp back into its place in x (radix_into). Buckets of random
 * keys fit the cache, and their remaining passes run there; a bucket that
 * does not is split again, on its own narrower range. Both steps keep
 * equal keys in order, so the whole is stable.
 */
static void radix_in_place(unsigned char *x, unsigned char *tmp, size_t n, const RadixPlan *plan,
                           RadixWork *w)
{
    size_t es = w->es, nb = buckets(plan);
    if (n * es <= LSD_BYTES || plan->passes == 1) {
        lsd(x, tmp, n, plan, w, false);
        return;
    }
    unsigned top = plan->passes - 1;
    size_t bounds[RADIX_BUCKETS + 1];
    size_t *next = w->count;
    memset(next, 0, nb * sizeof(*next));
    count_digit_es(x, 0, n, es, plan, top, next);
    exclusive_sums(next, nb, 0);
    memcpy(bounds, next, nb * sizeof(*next));
    bounds[nb] = n;
    scatter_es(x, tmp, 0, n, es, plan, top, next, n, w);
    for (size_t d = 0; d < nb; d++) {
        size_t lo = bounds[d], c = bounds[d + 1] - lo;
        if (c > 0) radix_into(tmp + lo * es, x + lo * es, c, w);
    }
}

/* Sorts src[0..n) into dst[0..n); src is scratch. */
static void radix_into(unsigned char *src, unsigned char *dst, size_t n, RadixWork *w)
{
    RadixPlan plan;
    if (!plan_of(src, n, w, &plan)) {
        memcpy(dst, src, n * w->es);
    } else if (n * w->es <= LSD_BYTES) {
        lsd(src, dst, n, &plan, w, true);
    } else {
        radix_in_place(src, dst, n, &plan, w);
        memcpy(dst, src, n * w->es);
    }
}

/* Rewrites a[lo..hi) from the sorted multiset whose value v + base occurs
 * start[v + 1] - start[v] times. */
static void counting_fill(int64_t *a, size_t lo, size_t hi, const RadixPlan *plan,
                          const size_t *start)
{
    // the value whose copies cover a[lo]: the last v with start[v] <= lo
    size_t v = 0, top = (size_t)plan->range + 1;
    while (top - v > 1) {
        size_t mid = v + (top - v) / 2;
        if (start[mid] <= lo)
            v = mid;
        else
            top = mid;
    }
    for (size_t i = lo; i < hi; v++) {
        int64_t x = (int64_t)((v + plan->base) ^ plan->flip);
        size_t end = min_size(start[v + 1], hi);
        while (i < end)
            a[i++] = x;
    }
}

static bool counting_sort(int64_t *a, size_t n, const RadixPlan *plan)
{
    size_t *start = calloc((size_t)plan->range + 2, sizeof(*start));
    if (!start) return false;
    for (size_t i = 0; i < n; i++)
        start[((uint64_t)a[i] ^ plan->flip) - plan->base + 1]++;
    for (size_t v = 1; v <= plan->range + 1; v++)
        start[v] += start[v - 1];
    counting_fill(a, 0, n, plan, start);
    free(start);
    return true;
}

static RadixWork *new_work(size_t es, bool descending)
{
    RadixWork *w = aligned_alloc(LINE, sizeof(RadixWork));
    if (w) {
        w->es = es;
        w->flip = descending ? ~SIGN_BIT : SIGN_BIT;
    }
    return w;
}

/* An n-element buffer aligned for streaming. */
static unsigned char *new_scratch(size_t n, size_t es)
{
    return aligned_alloc(LINE, (n * es + LINE - 1) / LINE * LINE);
}

static bool radix_sort(void *data, size_t n, size_t es, bool descending)
{
    unsigned char *a = data, *buf = NULL;
    RadixWork *w = new_work(es, descending);
    if (!w) return false;
    RadixPlan plan;
    bool ok = true;
    if (!plan_of(a, n, w, &plan))
        ok = true;
    else if (is_counting(&plan, n, es))
        ok = counting_sort(data, n, &plan);
    else if ((buf = new_scratch(n, es)) == NULL)
        ok = false;
    else
        radix_in_place(a, buf, n, &plan, w);
    free(buf);
    free(w);
    return ok;
}

/* ---- parallel radix ---- */

typedef struct ParSort ParSort;
typedef void (*ParPhase)(ParSort *s, unsigned t);

struct ParSort {
    unsigned char *a, *buf; /* the array and the scratch */
    size_t n, es;
    unsigned threads; /* the number of chunks: a task each in every phase */
    RadixPlan plan;
    uint64_t tmin[PAR_MAX_THREADS], tmax[PAR_MAX_THREADS];
    RadixWork *work[PAR_MAX_THREADS];
    size_t *count;                            /* [thread][digit]: where its elements go */
    size_t bounds[RADIX_BUCKETS + 1];         /* where each bucket starts */
    size_t first_bucket[PAR_MAX_THREADS + 1]; /* thread t sorts buckets [first, first of t+1) */
    size_t *start;                            /* counting sort: [thread][value] */
    ParPhase phase;                           /* the phase being launched */
};

/* Thread t's chunk of the elements: [chunk_lo(t), chunk_lo(t + 1)). */
static size_t chunk_lo(const ParSort *s, unsigned t)
{
    size_t each = s->n / s->threads, extra = s->n % s->threads;
    return t * each + min_size(t, extra);
}

static void phase_task(void *arg, size_t t)
{
    ParSort *s = arg;
    s->phase(s, (unsigned)t);
}

/* Runs fn(s, t) for every chunk t, a task each on the CPU device; the
 * launch returns when all have, which orders each phase's writes before
 * the next phase's reads. */
static void run_phase(ParSort *s, ParPhase fn)
{
    s->phase = fn;
    fx_device_launch(fx_device_cpu(), s->threads, phase_task, s, NULL);
}

static void phase_minmax(ParSort *s, unsigned t)
{
    minmax_es(s->a, chunk_lo(s, t), chunk_lo(s, t + 1), s->es, s->plan.flip, &s->tmin[t],
              &s->tmax[t]);
}

static void phase_count_top(ParSort *s, unsigned t)
{
    size_t *count = s->count + t * buckets(&s->plan);
    memset(count, 0, buckets(&s->plan) * sizeof(*count));
    count_digit_es(s->a, chunk_lo(s, t), chunk_lo(s, t + 1), s->es, &s->plan, s->plan.passes - 1,
                   count);
}

static void phase_scatter_top(ParSort *s, unsigned t)
{
    scatter_es(s->a, s->buf, chunk_lo(s, t), chunk_lo(s, t + 1), s->es, &s->plan,
               s->plan.passes - 1, s->count + t * buckets(&s->plan), s->n, s->work[t]);
}

static void phase_buckets(ParSort *s, unsigned t)
{
    for (size_t d = s->first_bucket[t]; d < s->first_bucket[t + 1]; d++) {
        size_t lo = s->bounds[d], c = s->bounds[d + 1] - lo;
        if (c > 0) radix_into(s->buf + lo * s->es, s->a + lo * s->es, c, s->work[t]);
    }
}

static void phase_tally(ParSort *s, unsigned t)
{
    size_t lo = chunk_lo(s, t), hi = chunk_lo(s, t + 1);
    size_t *tally = s->start + t * ((size_t)s->plan.range + 2);
    const int64_t *a = (const int64_t *)(void *)s->a;
    memset(tally, 0, ((size_t)s->plan.range + 2) * sizeof(*tally));
    for (size_t i = lo; i < hi; i++)
        tally[((uint64_t)a[i] ^ s->plan.flip) - s->plan.base + 1]++;
}

static void phase_fill(ParSort *s, unsigned t)
{
    counting_fill((int64_t *)(void *)s->a, chunk_lo(s, t), chunk_lo(s, t + 1), &s->plan, s->start);
}

/* Counting sort on the threads: each tallies its chunk, thread 0's array
 * gathers the starts, each rewrites its chunk of the output. */
static bool par_counting(ParSort *s)
{
    size_t width = (size_t)s->plan.range + 2;
    s->start = malloc(s->threads * width * sizeof(*s->start));
    if (!s->start) return false;
    run_phase(s, phase_tally);
    for (unsigned t = 1; t < s->threads; t++) {
        for (size_t v = 0; v < width; v++)
            s->start[v] += s->start[t * width + v];
    }
    for (size_t v = 1; v < width; v++)
        s->start[v] += s->start[v - 1];
    run_phase(s, phase_fill);
    free(s->start);
    return true;
}

/* Turns every thread's counts of the top digit into where its elements go,
 * digit major, thread minor (stable), noting where each bucket starts; then
 * deals the buckets out to the threads in runs of about n / threads
 * elements. */
static void lay_out(ParSort *s)
{
    size_t nb = buckets(&s->plan), at = 0;
    for (size_t d = 0; d < nb; d++) {
        s->bounds[d] = at;
        for (unsigned t = 0; t < s->threads; t++) {
            size_t *count = s->count + t * nb;
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
    }
    s->bounds[nb] = at;
    unsigned t = 0;
    s->first_bucket[0] = 0;
    for (size_t d = 0; d < nb; d++) {
        while (t + 1 < s->threads && s->bounds[d + 1] >= (t + 1) * (s->n / s->threads))
            s->first_bucket[++t] = d + 1;
    }
    while (t < s->threads)
        s->first_bucket[++t] = nb;
}

/* The top digit split across the threads (each scatters its chunk into the
 * scratch), then the buckets sorted back into the array, a run of them a
 * thread. */
static bool par_radix(ParSort *s)
{
    s->buf = new_scratch(s->n, s->es);
    s->count = malloc(s->threads * buckets(&s->plan) * sizeof(*s->count));
    bool ok = s->buf && s->count;
    for (unsigned t = 0; t < s->threads && ok; t++)
        ok = (s->work[t] = new_work(s->es, s->plan.flip != SIGN_BIT)) != NULL;
    if (ok) {
        run_phase(s, phase_count_top);
        lay_out(s);
        run_phase(s, phase_scatter_top);
        run_phase(s, phase_buckets);
    }
    for (unsigned t = 0; t < s->threads; t++)
        free(s->work[t]);
    free(s->buf);
    free(s->count);
    return ok;
}

static bool par_sort(void *data, size_t n, size_t es, bool descending, unsigned threads)
{
    ParSort *s = calloc(1, sizeof(*s));
    if (!s) return false;
    s->a = data, s->n = n, s->es = es;
    s->plan.flip = descending ? ~SIGN_BIT : SIGN_BIT;
    unsigned want = threads == 0 ? 1 : threads;
    s->threads = (unsigned)min_size(min_size(want, PAR_MAX_THREADS), n ? n : 1);
    run_phase(s, phase_minmax);
    uint64_t umin = s->tmin[0], umax = s->tmax[0];
    for (unsigned t = 1; t < s->threads; t++) {
        umin = s->tmin[t] < umin ? s->tmin[t] : umin;
        umax = s->tmax[t] > umax ? s->tmax[t] : umax;
    }
    bool ok = true;
    if (n >= 2 && umin != umax) {
        make_plan(&s->plan, s->plan.flip, umin, umax);
        ok = is_counting(&s->plan, n, es) ? par_counting(s) : par_radix(s);
    }
    free(s);
    return ok;
}

/* ---- entry points ---- */

/* Reverses a[0..n) when it never rises, so that input sorted the other
 * way costs one pass, and says so. Other input costs the scan of its first
 * falling run. */
static bool reverse_if_descending(int64_t *a, size_t n)
{
    size_t i = 1;
    while (i < n && a[i - 1] >= a[i])
        i++;
    if (i < n) return false;
    for (size_t l = 0, r = n ? n - 1 : 0; l < r; l++, r--)
        swap_i64(&a[l], &a[r]);
    return true;
}

/* The same for pairs, when the keys strictly fall: with no equal keys,
 * reversing keeps the sort stable. */
static bool reverse_if_decreasing(FxSortPair *p, size_t n)
{
    size_t i = 1;
    while (i < n && p[i - 1].key > p[i].key)
        i++;
    if (i < n) return false;
    for (size_t l = 0, r = n ? n - 1 : 0; l < r; l++, r--) {
        FxSortPair t = p[l];
        p[l] = p[r], p[r] = t;
    }
    return true;
}

bool fx_sortk_parallel(int64_t *a, size_t n, bool descending, unsigned threads, size_t min_n)
{
    if (n < min_n) return fx_sortk(FX_SORTK_RADIX, a, n, descending, 1);
    return par_sort(a, n, sizeof(*a), descending, threads);
}

bool fx_sortk_parallel_by_key(FxSortPair *p, size_t n, bool descending, unsigned threads,
                              size_t min_n)
{
    if (n < min_n) return fx_sortk_by_key(FX_SORTK_RADIX, p, n, descending, 1);
    return par_sort(p, n, sizeof(*p), descending, threads);
}

bool fx_sortk(FxSortKind k, int64_t *a, size_t n, bool descending, unsigned threads)
{
    FX_ASSERT((unsigned)k < FX_SORTK__COUNT);
    if (k == FX_SORTK_RADIX && n >= RADIX_SMALL) return radix_sort(a, n, sizeof(*a), descending);
    if (k == FX_SORTK_PARALLEL)
        return fx_sortk_parallel(a, n, descending, threads, FX_SORTK_PARALLEL_MIN);
    if (k == FX_SORTK_VQSORT && fx_vqsort_i64(a, n, descending)) return true;
    if (descending) flip_i64(a, n);
    if (!reverse_if_descending(a, n)) {
        if (k == FX_SORTK_PDQ || k == FX_SORTK_VQSORT) // VQSORT here: without its plugin
            pdq_sort(a, n);
        else
            batch_insertion(a, n); // INSERTION, and RADIX on few elements
    }
    if (descending) flip_i64(a, n);
    return true;
}

bool fx_sortk_by_key(FxSortKind k, FxSortPair *p, size_t n, bool descending, unsigned threads)
{
    FX_ASSERT((unsigned)k < FX_SORTK__COUNT);
    if (k == FX_SORTK_RADIX && n >= RADIX_SMALL) return radix_sort(p, n, sizeof(*p), descending);
    if (k == FX_SORTK_PARALLEL)
        return fx_sortk_parallel_by_key(p, n, descending, threads, FX_SORTK_PARALLEL_MIN);
    if (k == FX_SORTK_VQSORT && fx_vqsort_pairs(p, n, descending)) return true;
    bool ok = true;
    if (descending) flip_pairs(p, n);
    if (!reverse_if_decreasing(p, n)) {
        FxSortPair *buf = n > INSERTION_MAX ? malloc(n * sizeof(*buf)) : NULL;
        if (n > INSERTION_MAX && !buf)
            ok = false; // p[] flipped back below: as it was
        else
            merge_sort_pairs(p, n, buf); // insertion alone up to INSERTION_MAX
        free(buf);
    }
    if (descending) flip_pairs(p, n);
    return ok;
}

/* ---- features ---- */

#define SAMPLE_RUNS 64
#define SAMPLE_LEN  1024

/* Scans a[lo..hi), lo < hi: widens [*mn, *mx] to its keys and returns
 * its descents. */
static size_t scan_features(const int64_t *a, size_t lo, size_t hi, int64_t *mn, int64_t *mx)
{
    size_t descents = 0;
    int64_t lo_v = a[lo] < *mn ? a[lo] : *mn, hi_v = a[lo] > *mx ? a[lo] : *mx;
    for (size_t i = lo + 1; i < hi; i++) {
        int64_t x = a[i];
        descents += a[i - 1] > x;
        lo_v = x < lo_v ? x : lo_v;
        hi_v = x > hi_v ? x : hi_v;
    }
    *mn = lo_v, *mx = hi_v;
    return descents;
}

void fx_sortk_features(const int64_t *a, size_t n, FxSortFeatures *out)
{
    *out = (FxSortFeatures){.n = n};
    if (n == 0) return;
    out->min = out->max = a[0];
    if (n <= FX_SORTK_FEATURES_EXACT_MAX) {
        out->descents = scan_features(a, 0, n, &out->min, &out->max);
        return;
    }
    // runs at 0 .. n - SAMPLE_LEN, evenly spaced, the last ending at a[n-1]
    size_t descents = 0, pairs = SAMPLE_RUNS * (SAMPLE_LEN - 1);
    for (size_t r = 0; r < SAMPLE_RUNS; r++) {
        size_t lo = r * ((n - SAMPLE_LEN) / (SAMPLE_RUNS - 1));
        if (r == SAMPLE_RUNS - 1) lo = n - SAMPLE_LEN;
        descents += scan_features(a, lo, lo + SAMPLE_LEN, &out->min, &out->max);
    }
    out->sampled = true;
    if (descents == pairs)
        out->descents = n - 1;
    else
        out->descents = (size_t)((double)descents * (double)(n - 1) / (double)pairs + 0.5);
}
