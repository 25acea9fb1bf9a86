/*
 * sieve.c: the prime-sieve kernels of sieve.h.
 *
 * DESIGN
 *
 * Trial division and the plain sieve are the textbook ones. The plain
 * sieve (odd_sieve) keeps one bit per odd number below hi; it also makes
 * the sieving primes of the segmented kernel, the primes up to sqrt(hi).
 *
 * The segmented kernel works on the mod-30 wheel: byte b stands for the
 * eight numbers 30b + {1, 7, 11, 13, 17, 19, 23, 29} (bit j for wheel[j]),
 * the only ones that can be prime besides 2, 3 and 5, which are counted
 * apart. The range [lo, hi) is the bytes [blo, bhi); the first and last
 * byte are masked so that only numbers of the range are kept. Each
 * segment, of `seg` bytes, is made in the same steps (sieve_segment):
 *
 *   1. Pre-sieve: AND together 16 patterns, each the multiples of two or
 *      three primes with a period of their product (in bytes, 7663 ..
 *      33611), at the segment's offset in each period; all the primes 7 ..
 *      179 are in one of them (the groups are primesieve's). This removes
 *      about a third of the crossings, for a few vector ANDs a byte. The
 *      patterns cross out the primes 7 .. 179 themselves, so these get
 *      their bits back (and 1 loses its own) in the first bytes.
 *   2. Cross out the multiples p*q, q >= p, of each sieving prime p from
 *      181 to sqrt(hi - 1). Only cofactors q prime to 30 matter, and the
 *      multiples with q in one residue class mod 30 lie p bytes apart, all
 *      on one bit. So a prime with several crossings a segment (p < seg, a
 *      Small) keeps eight byte offsets, one per class, which stay within p
 *      bytes of each other: one loop crosses all eight a round, one
 *      pointer plus eight constant distances, the masks immediates of a
 *      copy of the loop per residue of p, and the last multiple of each
 *      class without a branch (cross_classes; eight strided loops, one per
 *      class, were 1.18-1.29x primesieve at 10^9 on one thread, this
 *      1.04-1.07x); those below CHUNK / 8, with the most
 *      crossings, do it CHUNK bytes (an L1 cache) at a time, the others
 *      once over the segment (an L2 cache). A larger prime (a Wheel)
 *      keeps one offset and the class j of its next q, and steps through
 *      its multiples in order (cross_big): from q = 30t + wheel[j] to the
 *      next class the byte advances by k * gap[j] + corr[r][j], with
 *      p = 30k + wheel[r]. Offsets are relative to the current segment
 *      (uint32: below seg + p), and a prime joins (activate) in the first
 *      segment that reaches p*p.
 *   3. Mask the first and last byte of the range.
 *
 * Work is split in blocks of whole segments, claimed in turn from a shared
 * counter: one block for one thread, else about eight a thread, so that a
 * thread slowed down by other work on the machine holds the rest up
 * little. A thread starts its primes again at each block it claims. The
 * threads are the CPU device's (hw/device.h: the pool), a task a thread.
 * The calling thread takes blocks too and polls keep_going before each of
 * its segments; the others only read the stop flag it sets. When no block
 * is left it waits for the others, polling every millisecond.
 *
 * A count pops the bits of each segment, in a buffer of the thread's own.
 * A set is sieved straight into its bitmap. A list is both: phase 1
 * sieves the range into a bitmap and counts each block, then the prefix
 * sums of the counts place each block in the caller's array (sized once,
 * exactly), and phase 2 decodes the blocks there, in parallel too. The
 * bitmap costs (hi - lo) / 30 bytes, a few percent of the list.
 *
 * Threads share the read-only job, the counters and the stop flag, and
 * write disjoint bytes of the bitmap or the list.
 *
 * Invariants: hi <= 2^63, so every number and multiple (below
 * hi + 30 sqrt(hi)) fits uint64; seg <= 2^24 and a prime below 2^32, so
 * every offset fits uint32. Bytes past the range in a bitmap are zero.
 */
#include "sieve.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "hw/device.h"
#include "hw/hw.h"

/* The trial kernel polls after this many divisions (about 0.5 ms)... */
#define POLL_DIVISIONS ((uint64_t)1 << 17)
/* ...the plain sieve after this many crossings (about 1 ms). */
#define POLL_CROSSINGS ((uint64_t)1 << 20)
/* Segment bounds in bytes (a byte holds 30 numbers). */
#define SEG_MIN 8
#define SEG_MAX ((size_t)1 << 24)
/* The pre-sieve: NPRE patterns, each of the multiples of a group of
 * primes, its period the product (in bytes, under 34000); together all
 * the primes from 7 to LAST_PRE, so that sieving starts after it. */
#define NPRE 16
#define LAST_PRE 179
/* The pre-sieve works in chunks of this many bytes; a pattern is stored
 * with its first PRE_CHUNK bytes repeated at the end, so a chunk never
 * wraps. */
#define PRE_CHUNK 4096
/* The primes below chunk / 8 cross a segment chunk bytes at a time: the
 * L1 data cache's size (48 KiB on a recent Xeon: 1.23x primesieve at
 * 10^9 where 32 KiB gave 1.30x), or CHUNK where it is not known. */
#define CHUNK 32768

static uint32_t chunk_bytes(void)
{
    size_t l1d = fx_hw_detect().l1d;
    return l1d >= (16u << 10) && l1d <= (128u << 10) ? (uint32_t)(l1d / 64 * 64) : CHUNK;
}
/* More threads than this are taken as this many. */
#define MAX_THREADS 256

/* ORDER FX_SIEVE: keep in sync with FxSieveKind */
static const char *const kind_names[FX_SIEVE__COUNT] = {"trial", "eratosthenes", "segmented"};

const char *fx_sieve_name(FxSieveKind k)
{
    return (unsigned)k < FX_SIEVE__COUNT ? kind_names[k] : "?";
}

void fx_primes_free(FxPrimes *p)
{
    if (!p)
        return;
    free(p->v);
    p->v = NULL;
    p->len = p->cap = 0;
}

/* Makes room for `extra` more values. */
static void primes_reserve(FxPrimes *p, size_t extra)
{
    if (p->cap - p->len >= extra)
        return;
    size_t cap = p->cap ? 2 * p->cap : 64;
    if (cap < p->len + extra)
        cap = p->len + extra;
    p->v = fx_xrealloc(p->v, cap * sizeof(p->v[0]));
    p->cap = cap;
}

static void primes_push(FxPrimes *p, uint64_t x)
{
    primes_reserve(p, 1);
    p->v[p->len++] = x;
}

/* The largest r with r * r <= x. */
static uint64_t isqrt(uint64_t x)
{
    uint64_t r = (uint64_t)sqrt((double)x);
    while (r > 0 && r > x / r)
        r--;
    while ((r + 1) <= x / (r + 1))
        r++;
    return r;
}

/* Calls the poll; NULL never stops. */
static bool poll(FxKeepGoing keep_going, void *ctx)
{
    return !keep_going || keep_going(ctx);
}

/* ---- tables ---- */

static const uint8_t wheel[8] = {1, 7, 11, 13, 17, 19, 23, 29};
static const uint8_t wheel_gap[8] = {6, 4, 2, 4, 2, 4, 6, 2}; /* wheel[j+1] - wheel[j], 31 - 29 */
/* The bit of a residue mod 30 in its byte; NO_BIT when it shares a factor with 30. */
#define NO_BIT 8
static const uint8_t bit_of[30] = {8, 0, 8, 8, 8, 8, 8, 1, 8, 8, 8, 2, 8, 3, 8,
                                   8, 8, 4, 8, 5, 8, 8, 8, 6, 8, 8, 8, 8, 8, 7};

static struct {
    /* mask[r][j]: clears the bit of p*q where p = wheel[r] and q = wheel[j] (mod 30) */
    uint8_t mask[8][8];
    /* corr[r][j]: the byte step from q = wheel[j] to the next class, less k * gap[j] */
    uint8_t corr[8][8];
    /* to_coprime[x]: the least d >= 0 with x + d prime to 30 */
    uint8_t to_coprime[30];
    /* at_least[x]: the bits j with wheel[j] >= x, for x in 0 .. 30 */
    uint8_t at_least[31];
    /* number[i]: the number bit i of a 64-bit word stands for, less its base */
    uint8_t number[64];
    uint8_t *pre[NPRE];
    uint32_t pre_len[NPRE];
    bool hw_popcount;
} tab;
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

/* The pre-sieve groups, as in primesieve's PreSieve.cpp: three primes
 * each, or two, so that the periods are alike and each fits a cache. */
static const uint8_t pre_groups[NPRE][3] = {
        {7, 67, 71},   {11, 41, 73},  {13, 43, 59},   {17, 37, 53},   {19, 29, 61},  {23, 31, 47},
        {79, 97, 1},   {83, 89, 1},   {101, 103, 1},  {107, 109, 1},  {113, 127, 1}, {131, 137, 1},
        {139, 149, 1}, {151, 157, 1}, {163, 167, 1},  {173, 179, 1},
};

/* Returns a new pattern (never freed) of period len = the product of the
 * group's primes: byte b holds the bits of the numbers of byte b that no
 * prime of the group divides, and the first PRE_CHUNK bytes repeat at the
 * end. */
static uint8_t *build_pattern(const uint8_t *group, uint32_t *out_len)
{
    uint32_t len = 1;
    for (int i = 0; i < 3; i++)
        len *= group[i];
    uint8_t *pat = fx_xmalloc(len + PRE_CHUNK);
    memset(pat, 0xFF, len);
    for (int i = 0; i < 3 && group[i] > 1; i++) {
        for (uint64_t m = group[i]; m < 30 * (uint64_t)len; m += group[i]) {
            if (bit_of[m % 30] != NO_BIT)
                pat[m / 30] &= (uint8_t)~(1u << bit_of[m % 30]);
        }
    }
    for (uint32_t i = 0; i < PRE_CHUNK; i++)
        pat[len + i] = pat[i % len];
    *out_len = len;
    return pat;
}

static void build_tables(void)
{
    for (int r = 0; r < 8; r++) {
        for (int j = 0; j < 8; j++) {
            uint32_t next = j < 7 ? wheel[j + 1] : 31;
            tab.mask[r][j] = (uint8_t)~(1u << bit_of[wheel[r] * wheel[j] % 30]);
            tab.corr[r][j] = (uint8_t)(wheel[r] * next / 30 - wheel[r] * wheel[j] / 30);
        }
    }
    for (int x = 0; x < 30; x++) {
        int d = 0;
        while (bit_of[(x + d) % 30] == NO_BIT)
            d++;
        tab.to_coprime[x] = (uint8_t)d;
    }
    for (int x = 0; x <= 30; x++) {
        for (int j = 0; j < 8; j++)
            tab.at_least[x] |= (uint8_t)(wheel[j] >= x ? 1u << j : 0);
    }
    for (int i = 0; i < 64; i++)
        tab.number[i] = (uint8_t)(30 * (i / 8) + wheel[i % 8]);
    for (int i = 0; i < NPRE; i++)
        tab.pre[i] = build_pattern(pre_groups[i], &tab.pre_len[i]);
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    tab.hw_popcount = __builtin_cpu_supports("popcnt");
#endif
}

static void init_tables(void)
{
    FX_CHECK(pthread_once(&tab_once, build_tables) == 0, "pthread_once failed");
}

/* ---- words ---- */

static uint64_t load64(const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof(w));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w); // byte i of the bitmap is bits 8i .. 8i+7
#endif
    return w;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static uint64_t popcount_hw(const uint8_t *p, size_t words)
{
    uint64_t n = 0;
    for (size_t i = 0; i < words; i++)
        n += (uint64_t)__builtin_popcountll(load64(p + 8 * i));
    return n;
}
#endif

/* The set bits of p[0 .. 8 * words). */
static uint64_t popcount(const uint8_t *p, size_t words)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (tab.hw_popcount)
        return popcount_hw(p, words);
#endif
    uint64_t n = 0;
    for (size_t i = 0; i < words; i++)
        n += (uint64_t)__builtin_popcountll(load64(p + 8 * i));
    return n;
}

/* ---- trial division ---- */

typedef struct Trial {
    FxKeepGoing keep_going;
    void *ctx;
    uint64_t work; /* divisions since the last poll */
    bool stopped;
} Trial;

/* Is n prime, by the odd divisors d with d * d <= n? Sets t->stopped (and
 * returns false) when the poll said stop. */
static bool trial_is_prime(Trial *t, uint64_t n)
{
    if (n < 4)
        return n >= 2;
    if (n % 2 == 0)
        return false;
    for (uint64_t d = 3; d <= n / d; d += 2) { // n / d: d * d could overflow
        if (n % d == 0)
            return false;
        if (++t->work >= POLL_DIVISIONS) {
            t->work = 0;
            if (!poll(t->keep_going, t->ctx)) {
                t->stopped = true;
                return false;
            }
        }
    }
    t->work++; // a candidate costs something even with no division
    return true;
}

static bool trial_run(uint64_t lo, uint64_t hi, uint64_t *count, FxPrimes *list,
                      FxKeepGoing keep_going, void *ctx)
{
    Trial t = {keep_going, ctx, 0, false};
    for (uint64_t n = lo; n < hi; n++) {
        if (trial_is_prime(&t, n)) {
            (*count)++;
            if (list)
                primes_push(list, n);
        }
        if (t.stopped)
            return false;
    }
    return true;
}

/* ---- the plain sieve ---- */

/* Returns a new bitmap (caller frees) whose bit i is set when 2i + 1 is
 * prime, for 2i + 1 < hi, in words of 64 bits, bits past the end clear;
 * NULL when the poll said stop. */
static uint64_t *odd_sieve(uint64_t hi, FxKeepGoing keep_going, void *ctx)
{
    uint64_t nbits = hi / 2; // the odd numbers below hi
    size_t words = (size_t)(nbits / 64 + 1);
    uint64_t *bits = fx_xmalloc(words * sizeof(*bits));
    memset(bits, 0xFF, words * sizeof(*bits));
    bits[0] &= ~(uint64_t)1; // 1 is not prime
    bits[nbits / 64] &= ((uint64_t)1 << (nbits % 64)) - 1;
    uint64_t work = 0;
    for (uint64_t p = 3; p * p < hi; p += 2) {
        if (!(bits[p / 2 / 64] >> (p / 2 % 64) & 1))
            continue;
        // odd multiples from p*p: bit (p*p)/2, then every p bits; in runs
        // of at most POLL_CROSSINGS crossings between polls
        for (uint64_t i = p * p / 2; i < nbits;) {
            uint64_t run = (nbits - i + p - 1) / p;
            if (run > POLL_CROSSINGS - work)
                run = POLL_CROSSINGS - work;
            for (uint64_t e = i + run * p; i < e; i += p)
                bits[i / 64] &= ~((uint64_t)1 << (i % 64));
            work += run;
            if (work == POLL_CROSSINGS) {
                work = 0;
                if (!poll(keep_going, ctx)) {
                    free(bits);
                    return NULL;
                }
            }
        }
    }
    return bits;
}

static bool eratosthenes_run(uint64_t lo, uint64_t hi, uint64_t *count, FxPrimes *list,
                             FxKeepGoing keep_going, void *ctx)
{
    uint64_t *bits = odd_sieve(hi, keep_going, ctx);
    if (!bits)
        return false;
    if (lo <= 2 && 2 < hi) {
        (*count)++;
        if (list)
            primes_push(list, 2);
    }
    // 2i + 1 in [lo, hi) exactly when i in [lo / 2, hi / 2)
    uint64_t a = lo / 2, b = hi / 2;
    for (uint64_t w = a / 64; w * 64 < b; w++) {
        uint64_t x = bits[w];
        if (w == a / 64)
            x &= ~(uint64_t)0 << (a % 64);
        if (w == b / 64)
            x &= ((uint64_t)1 << (b % 64)) - 1;
        *count += (uint64_t)__builtin_popcountll(x);
        for (; list && x; x &= x - 1)
            primes_push(list, 2 * (64 * w + (uint64_t)__builtin_ctzll(x)) + 1);
    }
    free(bits);
    return true;
}

/* ---- the segmented sieve ---- */

typedef enum { MODE_COUNT, MODE_LIST, MODE_SET } Mode;

/* A small sieving prime: the next offset of each residue class of q. */
typedef struct Small {
    uint32_t p;
    uint32_t off[8];
} Small;

/* A larger sieving prime p = 30k + wheel[r]: the offset of its next
 * multiple p*q, whose q is in class j. */
typedef struct Wheel {
    uint32_t off, k;
    uint8_t r, j;
} Wheel;

typedef struct Job {
    Mode mode;
    uint64_t blo, bhi;             /* the bytes of the range */
    uint8_t first_keep, last_keep; /* the bits of bytes blo and bhi - 1 inside [lo, hi) */
    uint32_t seg;                  /* segment bytes, a multiple of 8 */
    uint32_t chunk;                /* bytes crossed at a time by the first Small primes */
    const uint32_t *primes;        /* the sieving primes, ascending */
    size_t nprimes;
    size_t nchunked, nsmall;       /* the primes below chunk / 8, below seg */
    uint64_t block;                /* bytes a block (the unit of work), a multiple of 64 */
    size_t nblocks;
    uint8_t *bits;         /* MODE_LIST, MODE_SET: byte b is bits[b - blo] */
    uint64_t *block_count; /* MODE_LIST: the primes of each block, then where they go */
    uint64_t *list;        /* MODE_LIST: where the primes of the range go */
    FxKeepGoing keep_going;
    void *ctx;
    pthread_t caller; /* the thread that called: the one that polls */
    atomic_size_t next_block; /* the next block to claim */
    atomic_bool stop;
} Job;

typedef struct Worker {
    Job *job;
    bool polls; /* runs on the calling thread: it runs keep_going */
    Small *small;
    Wheel *big;
    size_t nsmall, nbig;
    size_t next;    /* the next sieving prime to activate */
    uint8_t *buf;   /* MODE_COUNT: one segment */
    uint64_t count; /* MODE_COUNT: the primes it found */
} Worker;

/* dst[0 .. m) = (first ? all ones : dst) & s[0] & s[1] & s[2] & s[3], 16
 * bytes at a time (SSE2 on x86-64; GCC and Clang lower it elsewhere). */
typedef uint8_t Vec16 __attribute__((vector_size(16)));

static void and4(uint8_t *dst, size_t m, const uint8_t *const *s, bool first)
{
    size_t i = 0;
    const uint8_t *s0 = s[0], *s1 = s[1], *s2 = s[2], *s3 = s[3];
    for (; i + 16 <= m; i += 16) {
        Vec16 a, b, c, d;
        memcpy(&a, s0 + i, 16);
        memcpy(&b, s1 + i, 16);
        memcpy(&c, s2 + i, 16);
        memcpy(&d, s3 + i, 16);
        a &= b & c & d;
        if (!first) {
            memcpy(&b, dst + i, 16);
            a &= b;
        }
        memcpy(dst + i, &a, 16);
    }
    for (; i < m; i++)
        dst[i] = (uint8_t)((first ? 0xFF : dst[i]) & s[0][i] & s[1][i] & s[2][i] & s[3][i]);
}

/* Fills buf[0 .. n), the bytes from b on, with the pre-sieve patterns:
 * the numbers prime to every prime from 7 to LAST_PRE. */
static void presieve(uint8_t *buf, uint64_t b, size_t n)
{
    for (size_t done = 0; done < n; done += PRE_CHUNK) {
        size_t m = n - done < PRE_CHUNK ? n - done : PRE_CHUNK;
        const uint8_t *s[NPRE];
        for (int i = 0; i < NPRE; i++)
            s[i] = tab.pre[i] + (b + done) % tab.pre_len[i];
        for (int i = 0; i < NPRE; i += 4)
            and4(buf + done, m, s + i, i == 0);
    }
}

/* Adds the sieving primes whose square lies below the end of the segment
 * [b, b + n), with their first multiples at or past its start. */
static void activate(Worker *w, uint64_t b, uint32_t n)
{
    const Job *job = w->job;
    uint64_t start = 30 * b, end = 30 * (b + n);
    for (; w->next < job->nprimes; w->next++) {
        uint64_t p = job->primes[w->next];
        if (p * p >= end)
            break;
        uint64_t s = p * p > start ? p * p : start;
        uint64_t q0 = (s + p - 1) / p; // the least cofactor, then by class
        if (w->next < job->nsmall) {
            Small *sp = &w->small[w->nsmall++];
            sp->p = (uint32_t)p;
            for (int j = 0; j < 8; j++) {
                uint64_t q = q0 + (wheel[j] + 30 - q0 % 30) % 30;
                sp->off[j] = (uint32_t)(p * q / 30 - b);
            }
        } else {
            Wheel *wp = &w->big[w->nbig++];
            uint64_t q = q0 + tab.to_coprime[q0 % 30];
            wp->off = (uint32_t)(p * q / 30 - b);
            wp->k = (uint32_t)(p / 30);
            wp->r = bit_of[p % 30];
            wp->j = bit_of[q % 30];
        }
    }
}

/* wheel[] and bit_of[] as constant expressions, for the masks the
 * crossing loops below hold as immediates. */
#define WHEEL_AT(j)                                                                                \
    ((j) == 0 ? 1 : (j) == 1 ? 7 : (j) == 2 ? 11 : (j) == 3 ? 13 : (j) == 4 ? 17 : (j) == 5 ? 19  \
     : (j) == 6 ? 23 : 29)
#define BIT_AT(x)                                                                                  \
    ((x) == 1 ? 0 : (x) == 7 ? 1 : (x) == 11 ? 2 : (x) == 13 ? 3 : (x) == 17 ? 4 : (x) == 19 ? 5  \
     : (x) == 23 ? 6 : 7)
#define MASK_AT(r, j) ((uint8_t)~(1u << BIT_AT(WHEEL_AT(r) * WHEEL_AT(j) % 30)))

/* `rounds` times: clears the eight multiples at at + rel[j] (class j), and
 * moves on p bytes; prime p's residue is wheel[R]. */
#define ROUNDS(R)                                                                                  \
    case R:                                                                                        \
        for (; rounds > 0; rounds--, at += p) {                                                    \
            at[r0] &= MASK_AT(R, 0);                                                               \
            at[r1] &= MASK_AT(R, 1);                                                               \
            at[r2] &= MASK_AT(R, 2);                                                               \
            at[r3] &= MASK_AT(R, 3);                                                               \
            at[r4] &= MASK_AT(R, 4);                                                               \
            at[r5] &= MASK_AT(R, 5);                                                               \
            at[r6] &= MASK_AT(R, 6);                                                               \
            at[r7] &= MASK_AT(R, 7);                                                               \
        }                                                                                          \
        break;

/* Crosses out, for each of the `count` primes of sp, its multiples below
 * byte `end` of buf; the offsets left are then less `rebase` (the segment
 * size after its last chunk, else 0). A prime's next multiples of the
 * eight classes lie within p bytes of the least one, and each class moves
 * on by p bytes, so the eight keep their distances: while the farthest is
 * below end, one round crosses all eight (one pointer, eight constant
 * distances and masks), and each class then has at most one multiple left
 * below end. */
static void cross_classes(Small *sp, size_t count, uint8_t *buf, uint32_t end, uint32_t rebase)
{
    for (; count > 0; count--, sp++) {
        uint32_t p = sp->p, lo = sp->off[0], hi = sp->off[0];
        for (int j = 1; j < 8; j++) {
            lo = sp->off[j] < lo ? sp->off[j] : lo;
            hi = sp->off[j] > hi ? sp->off[j] : hi;
        }
        uint8_t *at = buf + lo;
        if (hi < end) {
            uint32_t rounds = (end - 1 - hi) / p + 1;
            size_t r0 = sp->off[0] - lo, r1 = sp->off[1] - lo, r2 = sp->off[2] - lo,
                   r3 = sp->off[3] - lo, r4 = sp->off[4] - lo, r5 = sp->off[5] - lo,
                   r6 = sp->off[6] - lo, r7 = sp->off[7] - lo;
            switch (bit_of[p % 30]) {
                ROUNDS(0)
                ROUNDS(1)
                ROUNDS(2)
                ROUNDS(3)
                ROUNDS(4)
                ROUNDS(5)
                ROUNDS(6)
                ROUNDS(7)
            }
        }
        uint32_t moved = (uint32_t)(at - buf) - lo;
        const uint8_t *mask = tab.mask[bit_of[p % 30]];
        for (int j = 0; j < 8; j++) { /* branch-free: which classes cross is random */
            uint32_t i = sp->off[j] + moved, in = i < end, all = 0u - in;
            buf[i & all] &= (uint8_t)(mask[j] | ~all); /* else byte 0, unchanged */
            sp->off[j] = i + (p & all) - rebase;
        }
    }
}

/* The Small primes: the first job->nchunked CHUNK bytes at a time, so that
 * their many crossings stay in the L1 cache, then the others over the
 * whole segment. */
static void cross_small(Worker *w, uint8_t *buf, uint32_t n)
{
    const Job *job = w->job;
    size_t first = w->nsmall < job->nchunked ? w->nsmall : job->nchunked;
    for (uint32_t end = 0; end < n;) {
        end = n - end > job->chunk ? end + job->chunk : n;
        cross_classes(w->small, first, buf, end, end == n ? n : 0);
    }
    cross_classes(w->small + first, w->nsmall - first, buf, n, n);
}

/* The Wheel primes: each steps through its multiples in the segment in
 * order, class after class. */
static void cross_big(Worker *w, uint8_t *buf, uint32_t n)
{
    for (size_t s = 0; s < w->nbig; s++) {
        Wheel *wp = &w->big[s];
        uint32_t i = wp->off;
        if (i >= n) {
            wp->off = i - n;
            continue;
        }
        const uint8_t *mask = tab.mask[wp->r], *corr = tab.corr[wp->r];
        uint32_t j = wp->j, k = wp->k;
        do {
            buf[i] &= mask[j];
            i += k * wheel_gap[j] + corr[j];
            j = (j + 1) & 7;
        } while (i < n);
        wp->off = i - n;
        wp->j = (uint8_t)j;
    }
}

/* Leaves in buf[0 .. n) the primes of bytes [b, b + n) of the range. */
static void sieve_segment(Worker *w, uint8_t *buf, uint64_t b, uint32_t n)
{
    const Job *job = w->job;
    presieve(buf, b, n);
    if (b <= LAST_PRE / 30) { // the pattern primes crossed themselves out, and 1 is no prime
        for (int i = 0; i < NPRE; i++) {
            for (int j = 0; j < 3 && pre_groups[i][j] > 1; j++) {
                uint32_t q = pre_groups[i][j];
                if (q / 30 >= b && q / 30 < b + n)
                    buf[q / 30 - b] |= (uint8_t)(1u << bit_of[q % 30]);
            }
        }
        if (b == 0)
            buf[0] &= (uint8_t)~1u;
    }
    activate(w, b, n);
    cross_small(w, buf, n);
    cross_big(w, buf, n);
    if (b == job->blo)
        buf[0] &= job->first_keep;
    if (b + n == job->bhi)
        buf[n - 1] &= job->last_keep;
}

/* The set bits of p[0 .. n). */
static uint64_t popcount_bytes(const uint8_t *p, size_t n)
{
    uint64_t c = popcount(p, n / 8);
    for (size_t i = n / 8 * 8; i < n; i++)
        c += (uint64_t)__builtin_popcount(p[i]);
    return c;
}

/* Writes the numbers of the set bits of bits[0 .. 8 * words), the bytes
 * from b on, to o; returns the end of what it wrote. */
static uint64_t *decode(uint64_t *o, const uint8_t *bits, uint64_t b, size_t words)
{
    uint64_t base = 30 * b;
    for (size_t i = 0; i < words; i++, base += 240) {
        for (uint64_t x = load64(bits + 8 * i); x; x &= x - 1)
            *o++ = base + tab.number[__builtin_ctzll(x)];
    }
    return o;
}

static bool should_stop(Worker *w)
{
    Job *job = w->job;
    if (atomic_load_explicit(&job->stop, memory_order_relaxed))
        return true;
    if (w->polls && !poll(job->keep_going, job->ctx)) {
        atomic_store(&job->stop, true);
        return true;
    }
    return false;
}

/* Claims the next block: false when none is left. Its bytes: [*b0, *b1). */
static bool claim(Worker *w, size_t *blk, uint64_t *b0, uint64_t *b1)
{
    const Job *job = w->job;
    *blk = atomic_fetch_add(&w->job->next_block, 1);
    if (*blk >= job->nblocks)
        return false;
    *b0 = job->blo + *blk * job->block;
    *b1 = job->bhi - *b0 > job->block ? *b0 + job->block : job->bhi;
    return true;
}

/* Phase 1: sieves blocks until none is left, segment by segment; counts
 * their primes (MODE_COUNT, MODE_LIST) and leaves them in job->bits
 * (MODE_LIST, MODE_SET). */
static void sieve_blocks(Worker *w)
{
    Job *job = w->job;
    size_t blk;
    uint64_t b0, b1;
    while (claim(w, &blk, &b0, &b1)) {
        w->nsmall = w->nbig = w->next = 0; // the primes start again at b0
        uint64_t count = 0;
        for (uint64_t b = b0; b < b1; b += job->seg) {
            if (should_stop(w))
                return;
            uint32_t n = (uint32_t)(b1 - b < job->seg ? b1 - b : job->seg);
            uint8_t *buf = job->bits ? job->bits + (b - job->blo) : w->buf;
            sieve_segment(w, buf, b, n);
            if (job->mode != MODE_SET)
                count += popcount_bytes(buf, n);
        }
        if (job->mode == MODE_LIST)
            job->block_count[blk] = count;
        w->count += count;
    }
}

/* Phase 2 of MODE_LIST: writes the primes of each block where
 * job->block_count says, a segment's worth at a time. */
static void decode_blocks(Worker *w)
{
    Job *job = w->job;
    size_t blk;
    uint64_t b0, b1;
    while (claim(w, &blk, &b0, &b1)) {
        uint64_t *o = job->list + job->block_count[blk];
        for (uint64_t b = b0; b < b1; b += job->seg) {
            if (should_stop(w))
                return;
            uint64_t n = b1 - b < job->seg ? b1 - b : job->seg;
            // whole words: a segment is a multiple of 8 bytes, and the
            // bitmap ends in zero bytes
            o = decode(o, job->bits + (b - job->blo), b, (size_t)(n + 7) / 8);
        }
    }
}

/* A phase of the job: worker t's share is task t on the CPU device. */
typedef struct Phase {
    Job *job;
    Worker *ws;
    void (*work)(Worker *w);
} Phase;

static void phase_task(void *arg, size_t t)
{
    Phase *ph = arg;
    Worker *w = &ph->ws[t];
    w->polls = pthread_equal(pthread_self(), ph->job->caller);
    ph->work(w);
}

/* While the calling thread waits for the other tasks: keep_going each ms. */
static void phase_wait(void *arg)
{
    Job *job = ((Phase *)arg)->job;
    if (!atomic_load(&job->stop) && !job->keep_going(job->ctx))
        atomic_store(&job->stop, true);
}

/* Runs `work` on the n workers, a task each on the CPU device (the
 * calling thread among those that run them). False when stopped. */
static bool run_phase(Job *job, Worker *ws, unsigned n, void (*work)(Worker *w))
{
    atomic_store(&job->next_block, 0);
    Phase ph = {job, ws, work};
    fx_device_launch(fx_device_cpu(), n, phase_task, &ph,
                     job->keep_going ? phase_wait : NULL);
    return !atomic_load(&job->stop);
}

/* The sieving primes LAST_PRE < p <= sqrt(hi - 1), ascending, in a new
 * array (caller frees); NULL when the poll said stop. */
static uint32_t *sieving_primes(uint64_t hi, size_t *out_n, FxKeepGoing keep_going, void *ctx)
{
    uint64_t top = hi > 1 ? isqrt(hi - 1) : 0;
    uint64_t *bits = odd_sieve(top + 1, keep_going, ctx);
    if (!bits)
        return NULL;
    size_t n = 0, cap = 64;
    uint32_t *primes = fx_xmalloc(cap * sizeof(*primes));
    for (uint64_t w = 0; w * 64 < (top + 1) / 2; w++) {
        for (uint64_t x = bits[w]; x; x &= x - 1) {
            uint64_t p = 2 * (64 * w + (uint64_t)__builtin_ctzll(x)) + 1;
            if (p <= LAST_PRE)
                continue;
            if (n == cap) {
                cap *= 2;
                primes = fx_xrealloc(primes, cap * sizeof(*primes));
            }
            primes[n++] = (uint32_t)p;
        }
    }
    free(bits);
    *out_n = n;
    return primes;
}

/* Sizes the blocks: one for one thread (the primes start once), else
 * about eight a thread, so that a thread slowed down by other work on the
 * machine holds the others up little. Returns the threads worth starting. */
static unsigned plan_blocks(Job *job, unsigned threads)
{
    uint64_t total = job->bhi - job->blo;
    uint64_t block = (total + 8 * threads - 1) / (8 * threads);
    if (threads == 1)
        block = total;
    else if (block >= job->seg)
        block = (block + job->seg - 1) / job->seg * job->seg;
    job->block = (block + 63) / 64 * 64;
    job->nblocks = (size_t)((total + job->block - 1) / job->block);
    return job->nblocks < threads ? (unsigned)job->nblocks : threads;
}

/* Phase 2 of a list: places the blocks by the prefix sums of their counts,
 * appends the primes to list, decodes. */
static bool list_blocks(Job *job, Worker *ws, unsigned n, FxPrimes *list)
{
    uint64_t total = 0;
    for (size_t i = 0; i < job->nblocks; i++) {
        uint64_t c = job->block_count[i];
        job->block_count[i] = total;
        total += c;
    }
    primes_reserve(list, (size_t)total);
    job->list = list->v + list->len;
    if (!run_phase(job, ws, n, decode_blocks))
        return false;
    list->len += (size_t)total;
    return true;
}

/* The segmented kernel: counts into *count (MODE_COUNT), appends to list
 * (MODE_LIST), or fills bits (MODE_SET, bits[b - lo / 30] for byte b). */
static bool segmented_run(Mode mode, uint64_t lo, uint64_t hi, unsigned threads,
                          size_t segment_bytes, uint64_t *count, FxPrimes *list, uint8_t *bits,
                          FxKeepGoing keep_going, void *ctx)
{
    init_tables();
    Job job = {.mode = mode, .bits = bits, .keep_going = keep_going, .ctx = ctx,
               .caller = pthread_self()};
    job.blo = lo / 30;
    job.bhi = (hi + 29) / 30;
    job.first_keep = tab.at_least[lo % 30];
    job.last_keep = (uint8_t)~tab.at_least[hi - 30 * (job.bhi - 1)];
    size_t seg = segment_bytes ? segment_bytes : FX_SIEVE_SEGMENT_DEFAULT;
    seg = seg < SEG_MIN ? SEG_MIN : seg > SEG_MAX ? SEG_MAX : seg;
    job.seg = (uint32_t)((seg + 7) / 8 * 8);
    uint32_t chunk = chunk_bytes();
    job.chunk = job.seg < chunk ? job.seg : chunk;
    uint32_t *primes = sieving_primes(hi, &job.nprimes, keep_going, ctx);
    if (!primes)
        return false;
    job.primes = primes;
    while (job.nchunked < job.nprimes && primes[job.nchunked] < job.chunk / 8)
        job.nchunked++;
    job.nsmall = job.nchunked;
    while (job.nsmall < job.nprimes && primes[job.nsmall] < job.seg)
        job.nsmall++;
    unsigned n = plan_blocks(&job, threads == 0 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads);
    atomic_init(&job.next_block, 0);
    atomic_init(&job.stop, false);

    // 2, 3 and 5 are off the wheel; they come first in a list
    uint64_t c = 0;
    size_t before = list ? list->len : 0;
    for (uint64_t p = 2; p <= 5; p += p == 2 ? 1 : 2) {
        if (lo <= p && p < hi) {
            c++;
            if (list)
                primes_push(list, p);
        }
    }
    if (mode == MODE_LIST) {
        job.bits = fx_xcalloc((size_t)(job.bhi - job.blo) + 8, 1); // + 8: whole words
        job.block_count = fx_xcalloc(job.nblocks, sizeof(*job.block_count));
    }
    Worker *ws = fx_xcalloc(n, sizeof(*ws));
    for (unsigned t = 0; t < n; t++) {
        ws[t].job = &job;
        ws[t].small = fx_xmalloc((job.nsmall + 1) * sizeof(*ws[t].small));
        ws[t].big = fx_xmalloc((job.nprimes - job.nsmall + 1) * sizeof(*ws[t].big));
        if (mode == MODE_COUNT)
            ws[t].buf = fx_xmalloc(job.seg);
    }
    bool ok = run_phase(&job, ws, n, sieve_blocks);
    if (ok && mode == MODE_LIST)
        ok = list_blocks(&job, ws, n, list);
    for (unsigned t = 0; t < n; t++) {
        c += ws[t].count;
        free(ws[t].small);
        free(ws[t].big);
        free(ws[t].buf);
    }
    if (ok)
        *count += c;
    else if (list)
        list->len = before;

    free(ws);
    if (mode == MODE_LIST)
        free(job.bits);
    free(job.block_count);
    free(primes);
    return ok;
}

/* ---- the entry points ---- */

static bool run_kind(FxSieveKind k, uint64_t lo, uint64_t hi, unsigned threads,
                     size_t segment_bytes, uint64_t *count, FxPrimes *list, FxKeepGoing keep_going,
                     void *ctx)
{
    FX_CHECK(hi <= FX_SIEVE_HI_MAX, "sieve: hi = %llu is above 2^63", (unsigned long long)hi);
    if (lo >= hi)
        return true;
    switch (k) {
    case FX_SIEVE_TRIAL:
        return trial_run(lo, hi, count, list, keep_going, ctx);
    case FX_SIEVE_ERATOSTHENES:
        return eratosthenes_run(lo, hi, count, list, keep_going, ctx);
    case FX_SIEVE_SEGMENTED:
        return segmented_run(list ? MODE_LIST : MODE_COUNT, lo, hi, threads, segment_bytes,
                             count, list, NULL, keep_going, ctx);
    default:
        FX_CHECK(false, "sieve: no kernel %d", (int)k);
    }
    return false;
}

bool fx_sieve_count(FxSieveKind k, uint64_t lo, uint64_t hi, unsigned threads,
                    size_t segment_bytes, uint64_t *out, FxKeepGoing keep_going, void *ctx)
{
    uint64_t c = 0;
    if (!run_kind(k, lo, hi, threads, segment_bytes, &c, NULL, keep_going, ctx))
        return false;
    *out = c;
    return true;
}

bool fx_sieve_list(FxSieveKind k, uint64_t lo, uint64_t hi, unsigned threads,
                   size_t segment_bytes, FxPrimes *out, FxKeepGoing keep_going, void *ctx)
{
    uint64_t c = 0;
    size_t before = out->len;
    if (run_kind(k, lo, hi, threads, segment_bytes, &c, out, keep_going, ctx))
        return true;
    out->len = before;
    return false;
}

bool fx_sieve_set(uint64_t lo, uint64_t hi, unsigned threads, size_t segment_bytes,
                  FxPrimeSet *out, FxKeepGoing keep_going, void *ctx)
{
    FX_CHECK(hi <= FX_SIEVE_HI_MAX, "sieve: hi = %llu is above 2^63", (unsigned long long)hi);
    init_tables();
    FxPrimeSet s = {lo, hi < lo ? lo : hi, lo / 30, NULL};
    size_t bytes = (size_t)((s.hi + 29) / 30 - s.first_byte);
    s.bits = fx_xcalloc(bytes + 8, 1); // + 8: never empty
    uint64_t unused = 0;
    if (lo < hi && !segmented_run(MODE_SET, lo, hi, threads, segment_bytes, &unused, NULL,
                                  s.bits, keep_going, ctx)) {
        free(s.bits);
        return false;
    }
    *out = s;
    return true;
}

bool fx_primeset_has(const FxPrimeSet *s, uint64_t x)
{
    FX_CHECK(s->lo <= x && x < s->hi, "fx_primeset_has: %llu is outside the set",
             (unsigned long long)x);
    uint8_t bit = bit_of[x % 30];
    if (bit == NO_BIT)
        return x == 2 || x == 3 || x == 5;
    return s->bits[x / 30 - s->first_byte] >> bit & 1;
}

uint64_t fx_primeset_next(const FxPrimeSet *s, uint64_t x)
{
    if (x < s->lo)
        x = s->lo;
    if (x >= s->hi)
        return s->hi;
    for (uint64_t p = 2; p <= 5; p += p == 2 ? 1 : 2) {
        if (x <= p)
            return p < s->hi ? p : s->hi;
    }
    // the bytes past the range are zero, and the last byte is masked
    uint64_t last = (s->hi + 29) / 30 - s->first_byte;
    uint64_t b = x / 30 - s->first_byte;
    uint8_t bits = s->bits[b] & tab.at_least[x % 30];
    while (!bits) {
        if (++b >= last)
            return s->hi;
        bits = s->bits[b];
    }
    return 30 * (b + s->first_byte) + wheel[__builtin_ctz(bits)];
}

/* ---- tuples: p with p + c prime for every offset c, from the bits ---- */

/* Residue i of the wheel (p = 30b + wheel[i], p >= 30) can start a tuple
 * only when every p + c lies on the wheel too (else 2, 3 or 5 divides it);
 * p + c is then bit j[k] of byte b + d[k]. */
typedef struct TupleLane {
    bool open;
    uint8_t j[8], d[8];
} TupleLane;

/* The tuple starts of the 8 bytes at `at` (a 64-bit word, bit 8m + i for
 * wheel[i] of byte m): a word's bits ANDed with each offset's word, moved
 * so that p + c's bit lies on p's. */
static uint64_t tuple_word(const uint8_t *at, const TupleLane *lane, size_t n)
{
    uint64_t starts = 0, x = load64(at);
    for (int i = 0; i < 8; i++) {
        if (!lane[i].open)
            continue;
        uint64_t w = x & (0x0101010101010101ull << i);
        for (size_t k = 0; k < n && w; k++)
            w &= load64(at + lane[i].d[k]) >> lane[i].j[k] << i;
        starts |= w;
    }
    return starts;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static uint64_t popcount_word_hw(uint64_t x)
{
    return (uint64_t)__builtin_popcountll(x);
}
#endif

static uint64_t popcount_word(uint64_t x)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (tab.hw_popcount)
        return popcount_word_hw(x);
#endif
    return (uint64_t)__builtin_popcountll(x);
}

/* p in [lo, hi) walked one prime at a time (the ends, and 2, 3, 5). */
static uint64_t tuples_walked(const FxPrimeSet *s, uint64_t lo, uint64_t hi, const uint64_t *c,
                              size_t n, FxPrimes *list)
{
    uint64_t found = 0;
    for (uint64_t p = fx_primeset_next(s, lo); p < hi; p = fx_primeset_next(s, p + 1)) {
        bool all = true;
        for (size_t k = 0; all && k < n; k++)
            all = fx_primeset_has(s, p + c[k]);
        if (all && list)
            primes_push(list, p);
        found += all;
    }
    return found;
}

uint64_t fx_primeset_tuples(const FxPrimeSet *s, uint64_t lo, uint64_t hi, const uint64_t *c,
                            size_t n, FxPrimes *list)
{
    uint64_t reach = 0;
    for (size_t k = 0; k < n; k++)
        reach = c[k] > reach ? c[k] : reach;
    FX_CHECK(s->lo <= lo && (hi <= lo || hi + reach <= s->hi),
             "fx_primeset_tuples: [%llu, %llu) + %llu is outside the set",
             (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)reach);
    if (hi <= lo)
        return 0;
    TupleLane lane[8] = {{0}};
    bool wide = n > 8 || reach > 30 * 8 - 30;
    for (int i = 0; i < 8 && !wide; i++) {
        lane[i].open = true;
        for (size_t k = 0; k < n; k++) {
            uint64_t v = wheel[i] + c[k];
            lane[i].open &= bit_of[v % 30] != NO_BIT;
            lane[i].j[k] = bit_of[v % 30];
            lane[i].d[k] = (uint8_t)(v / 30);
        }
    }
    /* whole words of whole bytes, from p >= 30 on; the rest walked */
    uint64_t b0 = ((lo > 30 ? lo : 30) + 29) / 30, b1 = hi / 30;
    uint64_t words = wide || b1 <= b0 ? 0 : (b1 - b0) / 8;
    uint64_t mid_hi = 30 * (b0 + 8 * words), found = 0;
    if (!words)
        return tuples_walked(s, lo, hi, c, n, list);
    found += tuples_walked(s, lo, 30 * b0, c, n, list);
    for (uint64_t w = 0; w < words; w++) {
        uint64_t b = b0 + 8 * w, starts = tuple_word(s->bits + (b - s->first_byte), lane, n);
        if (!list) {
            found += popcount_word(starts);
            continue;
        }
        for (; starts; starts &= starts - 1) {
            int bit = __builtin_ctzll(starts);
            primes_push(list, 30 * (b + (uint64_t)bit / 8) + wheel[bit % 8]);
            found++;
        }
    }
    return found + tuples_walked(s, mid_hi, hi, c, n, list);
}

void fx_primeset_free(FxPrimeSet *s)
{
    if (!s)
        return;
    free(s->bits);
    s->bits = NULL;
    s->lo = s->hi = s->first_byte = 0;
}
