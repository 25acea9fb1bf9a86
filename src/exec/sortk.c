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
 * Radix. LSD over the keys minus their minimum (u = (key ^ flip) - base),
 * so only bits that vary are sorted: bits(max - min) split into the
 * fewest passes of at most 11 bits (8 for small n), equal widths. One read
 * counts all the digits; a pass whose digit is the same for every key is
 * skipped. The passes go back and forth between the array and a scratch
 * buffer, with a copy home when they end in the buffer. LSD with counts in
 * input order is stable. For int64 arrays (not pairs: they carry a
 * payload) a range below COUNTING_MAX and below n is a counting sort
 * instead, rewriting the array from the counts, without scratch.
 *
 * Parallel radix. The same passes on T threads: thread t owns the t-th
 * chunk of the source; each pass it counts its chunk's digits, then the
 * calling thread lays out where each (bucket, thread) starts, bucket
 * major, thread minor, which keeps it stable, and each thread scatters its
 * chunk. Phases are separated by creating and joining the threads: a
 * dozen creations per sort of over a million elements cost nothing, and a
 * thread that cannot be created leaves its chunk to the calling thread.
 *
 * The radix code is written once over elements of es bytes whose first
 * 8 bytes are the key (int64, or FxSortPair); it is inlined into callers
 * passing es as a constant, so each loop compiles for one element size.
 */
#include "sortk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define INSERTION_MAX 32   /* straight insertion up to here */
#define LIFT_DIVISOR  8    /* batch insertion gives up past n/8 lifted */
#define PDQ_INSERTION 24   /* pdq: insertion sort below this */
#define PDQ_NINTHER   128  /* pdq: ninther pivot above this */
#define PARTIAL_LIMIT 8    /* pdq: moves a partial insertion sort may make */
#define BLOCK         64   /* block partition: elements a block (offsets fit a byte) */

#define RADIX_SMALL      64                  /* radix: insertion sort below this */
#define RADIX_BITS       11                  /* radix: most bits a pass */
#define RADIX_BITS_SMALL 8                   /* ... below RADIX_WIDE elements */
#define RADIX_WIDE       ((size_t)1 << 14)
#define RADIX_PASSES     8                   /* ceil(64 / RADIX_BITS_SMALL) */
#define RADIX_BUCKETS    (1u << RADIX_BITS)
#define COUNTING_MAX     ((uint64_t)1 << 16) /* counting sort when range < this and < n */
#define PAR_MAX_THREADS  64

#define SIGN_BIT ((uint64_t)1 << 63)
#define INLINE   static inline __attribute__((always_inline))

_Static_assert(BLOCK <= 255, "block offsets are stored in bytes");
_Static_assert(offsetof(FxSortPair, key) == 0, "the radix code reads a key at offset 0");

/* ORDER FX_SORTK */
static const char *const kind_names[] = {"insertion", "pdq", "radix", "parallel"};
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
        if (moves > PARTIAL_LIMIT)
            return false;
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
        if (c >= n)
            break;
        if (c + 1 < n && a[c] < a[c + 1])
            c++;
        if (!(x < a[c]))
            break;
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
    if (m == 0)
        return;
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
        if (nl == 0)
            first += BLOCK;
        if (nr == 0)
            last -= BLOCK;
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
    if (nl == 0)
        first += lsize;
    if (nr == 0)
        last -= rsize;

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
    if (n < PDQ_INSERTION)
        return;
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
        if (m + 2 > cap)
            break;
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
    if (p[nl - 1].key <= r[0].key)
        return;
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

INLINE uint64_t elem_value(const unsigned char *e, uint64_t flip)
{
    int64_t key;
    memcpy(&key, e, sizeof(key));
    return (uint64_t)key ^ flip;
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

/* Counts the digits of every pass at once: count[p][digit p]. */
INLINE void count_loop(const unsigned char *a, size_t lo, size_t hi, size_t es,
                       const RadixPlan *plan, size_t (*count)[RADIX_BUCKETS])
{
    const uint64_t flip = plan->flip, base = plan->base, mask = ((uint64_t)1 << plan->bits) - 1;
    for (size_t i = lo; i < hi; i++) {
        uint64_t u = elem_value(a + i * es, flip) - base;
        for (unsigned p = 0; p < plan->passes; p++)
            count[p][(u >> (p * plan->bits)) & mask]++;
    }
}

/* Counts digit `pass` alone. */
INLINE void count_pass_loop(const unsigned char *a, size_t lo, size_t hi, size_t es,
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

/* The fewest passes of at most RADIX_BITS (RADIX_BITS_SMALL for small n)
 * bits that cover `range`, of equal widths. range > 0. */
static void make_plan(RadixPlan *plan, uint64_t flip, uint64_t umin, uint64_t umax, size_t n)
{
    unsigned most = n >= RADIX_WIDE ? RADIX_BITS : RADIX_BITS_SMALL;
    unsigned bits = 64 - (unsigned)__builtin_clzll(umax - umin);
    plan->flip = flip;
    plan->base = umin;
    plan->range = umax - umin;
    plan->passes = (bits + most - 1) / most;
    plan->bits = (bits + plan->passes - 1) / plan->passes;
}

static bool is_counting(const RadixPlan *plan, size_t n, size_t es)
{
    return es == sizeof(int64_t) && plan->range < COUNTING_MAX && plan->range < n;
}

/* Is digit `pass` the same for all n elements? */
static bool pass_trivial(const size_t *count, const RadixPlan *plan, size_t n)
{
    for (size_t d = 0; d < ((size_t)1 << plan->bits); d++) {
        if (count[d] != 0)
            return count[d] == n;
    }
    return true;
}

/* Rewrites a[lo..hi) from the sorted multiset whose value v + base occurs
 * count[v] times, start[v] = how many values come before v. */
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
    if (!start)
        return false;
    for (size_t i = 0; i < n; i++)
        start[((uint64_t)a[i] ^ plan->flip) - plan->base + 1]++;
    for (size_t v = 1; v <= plan->range + 1; v++)
        start[v] += start[v - 1];
    counting_fill(a, 0, n, plan, start);
    free(start);
    return true;
}

INLINE bool radix_sort(void *data, size_t n, size_t es, bool descending)
{
    unsigned char *a = data;
    uint64_t flip = descending ? ~SIGN_BIT : SIGN_BIT, umin, umax;
    minmax_loop(a, 0, n, es, flip, &umin, &umax);
    if (n < 2 || umin == umax)
        return true;
    RadixPlan plan;
    make_plan(&plan, flip, umin, umax, n);
    if (is_counting(&plan, n, es))
        return counting_sort(data, n, &plan);

    size_t(*count)[RADIX_BUCKETS] = calloc(plan.passes, sizeof(*count));
    unsigned char *buf = malloc(n * es);
    if (!count || !buf) {
        free(count);
        free(buf);
        return false;
    }
    count_loop(a, 0, n, es, &plan, count);
    unsigned char *src = a, *dst = buf;
    for (unsigned p = 0; p < plan.passes; p++) {
        if (pass_trivial(count[p], &plan, n))
            continue;
        size_t next = 0;
        for (size_t d = 0; d < ((size_t)1 << plan.bits); d++) {
            size_t c = count[p][d];
            count[p][d] = next;
            next += c;
        }
        scatter_loop(src, dst, 0, n, es, &plan, p, count[p]);
        unsigned char *done = src;
        src = dst, dst = done;
    }
    if (src != a)
        memcpy(a, src, n * es);
    free(count);
    free(buf);
    return true;
}

static bool radix_i64(int64_t *a, size_t n, bool descending)
{
    return radix_sort(a, n, sizeof(*a), descending);
}

static bool radix_pairs(FxSortPair *p, size_t n, bool descending)
{
    return radix_sort(p, n, sizeof(*p), descending);
}

/* ---- parallel radix ---- */

typedef struct ParSort ParSort;
typedef void (*ParPhase)(ParSort *s, unsigned t);

struct ParSort {
    unsigned char *a, *buf; /* the array and the scratch */
    unsigned char *src, *dst;
    size_t n, es;
    unsigned threads;
    RadixPlan plan;
    unsigned pass;                                   /* the digit of this phase */
    uint64_t tmin[PAR_MAX_THREADS], tmax[PAR_MAX_THREADS];
    size_t (*count)[RADIX_PASSES][RADIX_BUCKETS];    /* [thread][pass][digit] */
    size_t *start;                                   /* counting sort: [thread][value] */
};

typedef struct ParTask {
    ParSort *s;
    ParPhase fn;
    unsigned t;
} ParTask;

/* Thread t's chunk of the elements: [chunk_lo(t), chunk_lo(t + 1)). */
static size_t chunk_lo(const ParSort *s, unsigned t)
{
    size_t each = s->n / s->threads, extra = s->n % s->threads;
    return t * each + min_size(t, extra);
}

static void *par_thread(void *arg)
{
    ParTask *task = arg;
    task->fn(task->s, task->t);
    return NULL;
}

/* Runs fn(s, t) for every t, on threads 1.. and the calling thread as 0. */
static void run_phase(ParSort *s, ParPhase fn)
{
    pthread_t tid[PAR_MAX_THREADS];
    ParTask task[PAR_MAX_THREADS];
    bool started[PAR_MAX_THREADS];
    for (unsigned t = 1; t < s->threads; t++) {
        task[t] = (ParTask){s, fn, t};
        started[t] = pthread_create(&tid[t], NULL, par_thread, &task[t]) == 0;
    }
    fn(s, 0);
    for (unsigned t = 1; t < s->threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            fn(s, t);
    }
}

/* The phases: each specialises the loops for the two element sizes. */
#define BY_SIZE(s, call8, call16)                                                                  \
    do {                                                                                           \
        if ((s)->es == sizeof(int64_t))                                                            \
            call8;                                                                                 \
        else                                                                                       \
            call16;                                                                                \
    } while (0)

static void phase_minmax(ParSort *s, unsigned t)
{
    size_t lo = chunk_lo(s, t), hi = chunk_lo(s, t + 1);
    uint64_t flip = s->plan.flip;
    BY_SIZE(s, minmax_loop(s->a, lo, hi, 8, flip, &s->tmin[t], &s->tmax[t]),
            minmax_loop(s->a, lo, hi, 16, flip, &s->tmin[t], &s->tmax[t]));
}

static void phase_count_all(ParSort *s, unsigned t)
{
    size_t lo = chunk_lo(s, t), hi = chunk_lo(s, t + 1);
    memset(s->count[t], 0, sizeof(s->count[t]));
    BY_SIZE(s, count_loop(s->a, lo, hi, 8, &s->plan, s->count[t]),
            count_loop(s->a, lo, hi, 16, &s->plan, s->count[t]));
}

static void phase_count_pass(ParSort *s, unsigned t)
{
    size_t lo = chunk_lo(s, t), hi = chunk_lo(s, t + 1);
    size_t *count = s->count[t][s->pass];
    memset(count, 0, sizeof(s->count[t][s->pass]));
    BY_SIZE(s, count_pass_loop(s->src, lo, hi, 8, &s->plan, s->pass, count),
            count_pass_loop(s->src, lo, hi, 16, &s->plan, s->pass, count));
}

static void phase_scatter(ParSort *s, unsigned t)
{
    size_t lo = chunk_lo(s, t), hi = chunk_lo(s, t + 1);
    size_t *next = s->count[t][s->pass];
    BY_SIZE(s, scatter_loop(s->src, s->dst, lo, hi, 8, &s->plan, s->pass, next),
            scatter_loop(s->src, s->dst, lo, hi, 16, &s->plan, s->pass, next));
}

static void phase_copy_home(ParSort *s, unsigned t)
{
    size_t lo = chunk_lo(s, t), hi = chunk_lo(s, t + 1);
    memcpy(s->a + lo * s->es, s->src + lo * s->es, (hi - lo) * s->es);
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
    counting_fill((int64_t *)(void *)s->a, chunk_lo(s, t), chunk_lo(s, t + 1), &s->plan,
                  s->start);
}

/* Counting sort on the threads: each tallies its chunk, thread 0's array
 * gathers the starts, each rewrites its chunk of the output. */
static bool par_counting(ParSort *s)
{
    size_t width = (size_t)s->plan.range + 2;
    s->start = malloc(s->threads * width * sizeof(*s->start));
    if (!s->start)
        return false;
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

/* Turns every thread's counts of digit `pass` into where its elements of
 * each digit go: digit major, thread minor, which keeps the sort stable. */
static void lay_out(ParSort *s, unsigned pass)
{
    size_t next = 0;
    for (size_t d = 0; d < ((size_t)1 << s->plan.bits); d++) {
        for (unsigned t = 0; t < s->threads; t++) {
            size_t c = s->count[t][pass][d];
            s->count[t][pass][d] = next;
            next += c;
        }
    }
}

static bool par_radix(ParSort *s)
{
    s->buf = malloc(s->n * s->es);
    s->count = malloc(s->threads * sizeof(*s->count));
    if (!s->buf || !s->count) {
        free(s->buf);
        free(s->count);
        return false;
    }
    run_phase(s, phase_count_all);
    s->src = s->a, s->dst = s->buf;
    bool counted = true; // count[t] describes src's chunks (true before any move)
    for (unsigned p = 0; p < s->plan.passes; p++) {
        size_t total[RADIX_BUCKETS] = {0};
        for (unsigned t = 0; t < s->threads; t++) {
            for (size_t d = 0; d < ((size_t)1 << s->plan.bits); d++)
                total[d] += s->count[t][p][d];
        }
        if (pass_trivial(total, &s->plan, s->n))
            continue;
        s->pass = p;
        if (!counted)
            run_phase(s, phase_count_pass);
        lay_out(s, p);
        run_phase(s, phase_scatter);
        unsigned char *done = s->src;
        s->src = s->dst, s->dst = done;
        counted = false;
    }
    if (s->src != s->a)
        run_phase(s, phase_copy_home);
    free(s->buf);
    free(s->count);
    return true;
}

static bool par_sort(void *data, size_t n, size_t es, bool descending, unsigned threads)
{
    ParSort s = {.a = data, .n = n, .es = es};
    s.threads = threads == 0 ? 1 : threads;
    s.threads = (unsigned)min_size(min_size(s.threads, PAR_MAX_THREADS), n ? n : 1);
    s.plan.flip = descending ? ~SIGN_BIT : SIGN_BIT;
    run_phase(&s, phase_minmax);
    uint64_t umin = s.tmin[0], umax = s.tmax[0];
    for (unsigned t = 1; t < s.threads; t++) {
        umin = s.tmin[t] < umin ? s.tmin[t] : umin;
        umax = s.tmax[t] > umax ? s.tmax[t] : umax;
    }
    if (n < 2 || umin == umax)
        return true;
    make_plan(&s.plan, s.plan.flip, umin, umax, n);
    return is_counting(&s.plan, n, es) ? par_counting(&s) : par_radix(&s);
}

/* ---- entry points ---- */

bool fx_sortk_parallel(int64_t *a, size_t n, bool descending, unsigned threads, size_t min_n)
{
    if (n < min_n)
        return fx_sortk(FX_SORTK_RADIX, a, n, descending, 1);
    return par_sort(a, n, sizeof(*a), descending, threads);
}

bool fx_sortk_parallel_by_key(FxSortPair *p, size_t n, bool descending, unsigned threads,
                              size_t min_n)
{
    if (n < min_n)
        return fx_sortk_by_key(FX_SORTK_RADIX, p, n, descending, 1);
    return par_sort(p, n, sizeof(*p), descending, threads);
}

bool fx_sortk(FxSortKind k, int64_t *a, size_t n, bool descending, unsigned threads)
{
    FX_ASSERT((unsigned)k < FX_SORTK__COUNT);
    if (k == FX_SORTK_RADIX && n >= RADIX_SMALL)
        return radix_i64(a, n, descending);
    if (k == FX_SORTK_PARALLEL)
        return fx_sortk_parallel(a, n, descending, threads, FX_SORTK_PARALLEL_MIN);
    if (descending)
        flip_i64(a, n);
    if (k == FX_SORTK_PDQ)
        pdq_sort(a, n);
    else
        batch_insertion(a, n); // INSERTION, and RADIX on few elements
    if (descending)
        flip_i64(a, n);
    return true;
}

bool fx_sortk_by_key(FxSortKind k, FxSortPair *p, size_t n, bool descending, unsigned threads)
{
    FX_ASSERT((unsigned)k < FX_SORTK__COUNT);
    if (k == FX_SORTK_RADIX && n >= RADIX_SMALL)
        return radix_pairs(p, n, descending);
    if (k == FX_SORTK_PARALLEL)
        return fx_sortk_parallel_by_key(p, n, descending, threads, FX_SORTK_PARALLEL_MIN);
    FxSortPair *buf = NULL;
    if (n > INSERTION_MAX) {
        buf = malloc(n * sizeof(*buf));
        if (!buf)
            return false;
    }
    if (descending)
        flip_pairs(p, n);
    merge_sort_pairs(p, n, buf); // insertion alone up to INSERTION_MAX
    if (descending)
        flip_pairs(p, n);
    free(buf);
    return true;
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
    if (n == 0)
        return;
    out->min = out->max = a[0];
    if (n <= FX_SORTK_FEATURES_EXACT_MAX) {
        out->descents = scan_features(a, 0, n, &out->min, &out->max);
        return;
    }
    // runs at 0 .. n - SAMPLE_LEN, evenly spaced, the last ending at a[n-1]
    size_t descents = 0, pairs = SAMPLE_RUNS * (SAMPLE_LEN - 1);
    for (size_t r = 0; r < SAMPLE_RUNS; r++) {
        size_t lo = r * ((n - SAMPLE_LEN) / (SAMPLE_RUNS - 1));
        if (r == SAMPLE_RUNS - 1)
            lo = n - SAMPLE_LEN;
        descents += scan_features(a, lo, lo + SAMPLE_LEN, &out->min, &out->max);
    }
    out->sampled = true;
    if (descents == pairs)
        out->descents = n - 1;
    else
        out->descents = (size_t)((double)descents * (double)(n - 1) / (double)pairs + 0.5);
}
