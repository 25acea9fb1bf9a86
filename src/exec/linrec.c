/*
 * linrec.c: exact kernels for f(n) = c_1 f(n-1) + ... + c_k f(n-k).
 *
 * DESIGN
 *
 * The loop (fx_linrec_loop) keeps a window of the last k values, oldest
 * first. While the values fit int64 it runs a tight loop with
 * __builtin_*_overflow checks; order 2 and the shape c = (1, 1) have loops
 * of their own so that fibonacci(90) costs about what a plain C loop does.
 * A step whose int64 evaluation overflows is redone exactly in GMP
 * (exact_step): if f(m) still fits (only a partial sum overflowed), the
 * int64 loop goes on; otherwise the window moves into mpz_t's and the loop
 * continues there from the same step, never from the start. The mpz phase
 * allocates nothing per step: the new value is computed in place over the
 * oldest one (c_k f(m-k), then += c_i f(m-i)) and the window's pointers
 * rotate. It polls every POLL_STEPS steps, and sooner when the limbs it
 * has touched pass POLL_LIMBS (about a millisecond of work).
 *
 * The power (fx_linrec_power) is Fiduccia's method. A vector r in Z^k is
 * "for a" when f(a+m) = sum_{j<k} r[j] f(m+j) for every m >= 0 and every
 * f satisfying the recurrence: r holds the coefficients of x^a modulo
 * chi(x) = x^k - c_1 x^{k-1} - ... - c_k (the first row of C^a for the
 * companion matrix C). The operations, named as in the Coq proof:
 *
 *   r_0 = e_0                        r for 0
 *   shift(r)[0] = r[k-1] c_k,        r for a+1 when r is for a
 *   shift(r)[j] = r[j-1] + r[k-1] c_{k-j}   (1 <= j < k)
 *   mul(r, s)[j] = sum_{i<k} s[i] shift^i(r)[j]   r for a+b
 *   rpow(n): from the top bit of n down, r := mul(r, r), then
 *            r := shift(r) when the bit is 1
 *   f(n) = sum_{j<k} rpow(n)[j] f(j)
 *
 * mul(r, r) is computed as the polynomial square of r (degree 2k-2, with
 * k(k+1)/2 big products) reduced modulo chi by the small c_i, highest
 * degree first: x^d = sum_i c_i x^{d-i} (square_step). Three facts make it
 * cheaper still; each is a lemma the proof needs beside the ones above:
 *
 *   1. Small start. The leading bits run in int64 with overflow checks
 *      (small_square, small_shift, the same operations); the first step
 *      that overflows is redone in GMP from the last good r.
 *   2. Last bit. With n = 2a + b (b = 0 or 1) and r = rpow(a), f(n) =
 *      sum_i r[i] u[i] where u[i] = sum_j r[j] f(i+j+b) = f(a+b+i), since
 *      f(a + m) = sum_i r[i] f(m+i) twice. That is k big multiplications
 *      instead of the k(k+1)/2 of a last squaring (final_step). The values
 *      f(0) .. f(2k-1) it needs are precomputed in the spec.
 *   3. Norm, for k = 2 with c_2 = +-1 and c_1 != 0 (fibonacci, lucas,
 *      pell, ...). For r for a, N(r) = r0^2 + c_1 r0 r1 - c_2 r1^2 =
 *      (-c_2)^a: it is 1 for r_0, and N(shift(r)) = -c_2 N(r) by expanding.
 *      So the cross product r0 r1 = (nu - r0^2 + c_2 r1^2) / c_1 with
 *      nu = (-c_2)^a = +-1 is known from the two squares: a step costs
 *      two big squarings (norm_square), as GMP's own mpz_fib_ui does. And
 *      the last bit needs one multiplication: subtracting f(b) N(r) from
 *      the quadratic form of fact 2 leaves
 *        f(2a+b) = f(b) nu + r1 ((2 f(b+1) - c_1 f(b)) r0
 *                                 + (f(b+2) + c_2 f(b)) r1)   (norm_final).
 *
 * Budgets: the power asks the run's meter (meter.h) before each squaring,
 * priced as value.c prices a product (fx_val_mul_cost): k(k+1)/2 squarings
 * of the largest r[j], their results and scratch, so a squaring that would
 * not fit the memory, the steps or the time left is never started. The
 * loop's steps add a few limbs each: it counts the limbs it touched as work
 * at each poll, and its polls stop it.
 *
 * GMP's *_si functions take a long, which is int64 on the LP64 systems
 * Flux targets. Nothing here is global: every scratch value is a local or
 * lives in a struct on the caller's stack.
 */
#include "linrec.h"

#include <string.h>

#include "base/base.h"
#include "meter.h"
#include "value_gmp.h"

_Static_assert(sizeof(long) == sizeof(int64_t), "linrec.c assumes a 64-bit long (LP64)");

/* The loop polls at least this often (steps)... */
#define POLL_STEPS 4096
/* ...and, in GMP, once it has touched this many limbs (0.1-0.5 ms). */
#define POLL_LIMBS ((uint64_t)1 << 19)

/* The power sizes its scratch for at most this many bits up front: past
 * that, reallocation is small beside the multiplications. */
#define PRESIZE_CAP ((size_t)1 << 16)

#define K_MAX FX_LINREC_MAX_ORDER

/* ---- the spec ---- */

/* An optional '-' then at least one digit, nothing else. */
/* acc += c * x, without a multiplication when c is 0, 1 or -1. */
static void addmul_si(mpz_t acc, const mpz_t x, int64_t c)
{
    if (c == 1)
        mpz_add(acc, acc, x);
    else if (c == -1)
        mpz_sub(acc, acc, x);
    else if (c > 0)
        mpz_addmul_ui(acc, x, (unsigned long)c);
    else if (c < 0)
        mpz_submul_ui(acc, x, 0UL - (unsigned long)c); /* |INT64_MIN| fits */
}

/* f(m) for m < 2k, from the spec. */
static mpz_srcptr f_at(const FxLinRecSpec *s, uint32_t m)
{
    return m < s->order ? s->initial[m] : s->ahead[m - s->order];
}

bool fx_linrec_init(FxLinRecSpec *s, uint32_t order, const int64_t *coeffs,
                    const char *const *initial_decimal)
{
    if (order == 0 || order > K_MAX)
        return false;
    for (uint32_t i = 0; i < order; i++) {
        if (!fx_is_decimal(initial_decimal[i]))
            return false;
    }
    memset(s, 0, sizeof(*s));
    s->order = order;
    memcpy(s->coeffs, coeffs, order * sizeof(coeffs[0]));
    for (uint32_t i = 0; i < order; i++) {
        mpz_init_set_str(s->initial[i], initial_decimal[i], 10); /* checked above */
        if (s->small_count == i && mpz_fits_slong_p(s->initial[i]))
            s->small[s->small_count++] = mpz_get_si(s->initial[i]);
    }
    // f(k) .. f(2k-1), straight from the definition
    for (uint32_t m = order; m < 2 * order; m++) {
        mpz_ptr fm = s->ahead[m - order];
        mpz_init(fm);
        for (uint32_t i = 1; i <= order; i++)
            addmul_si(fm, f_at(s, m - i), s->coeffs[i - 1]);
    }
    return true;
}

void fx_linrec_clear(FxLinRecSpec *s)
{
    for (uint32_t i = 0; i < s->order; i++) {
        mpz_clear(s->initial[i]);
        mpz_clear(s->ahead[i]);
    }
    s->order = 0;
}

/* ---- the loop in int64 ---- */

/* *out = acc + c * x; false on overflow. No multiplication for c = +-1. */
static inline bool mac(int64_t acc, int64_t c, int64_t x, int64_t *out)
{
    int64_t p;
    if (c == 1)
        return !__builtin_add_overflow(acc, x, out);
    if (c == -1)
        return !__builtin_sub_overflow(acc, x, out);
    if (__builtin_mul_overflow(c, x, &p))
        return false;
    return !__builtin_add_overflow(acc, p, out);
}

/* Drops the oldest value of the window w[0..k-1] (w has K_MAX entries, all
 * initialised) and appends x. The copy has a fixed length, so it compiles
 * to a few moves rather than a call. */
static inline void push_small(int64_t *w, uint32_t k, int64_t x)
{
    int64_t tail[K_MAX - 1];
    memcpy(tail, w + 1, sizeof(tail));
    memcpy(w, tail, sizeof(tail));
    w[k - 1] = x;
}

/* Order 1: w[0] = f(m-1). Returns the steps done (< steps: overflow). */
static uint64_t run1(int64_t c, int64_t *w, uint64_t steps)
{
    int64_t a = w[0], t;
    uint64_t done = 0;
    for (; done < steps; done++) {
        if (__builtin_mul_overflow(c, a, &t))
            break;
        a = t;
    }
    w[0] = a;
    return done;
}

/* Order 2: w = {f(m-2), f(m-1)}. Returns the steps done. */
static uint64_t run2(const int64_t *c, int64_t *w, uint64_t steps)
{
    int64_t a = w[0], b = w[1], t;
    uint64_t done = 0;
    if (c[0] == 1 && c[1] == 1) {
        // fibonacci's shape: one checked add a step, two steps a turn so
        // that no moves sit between the adds
        int64_t u;
        for (; steps - done >= 2; done += 2) {
            if (__builtin_add_overflow(a, b, &t))
                goto out;
            if (__builtin_add_overflow(b, t, &u)) {
                a = b;
                b = t;
                done++;
                goto out;
            }
            a = t;
            b = u;
        }
        if (done < steps && !__builtin_add_overflow(a, b, &t)) {
            a = b;
            b = t;
            done++;
        }
    } else {
        for (; done < steps; done++) {
            if (!mac(0, c[1], a, &t) || !mac(t, c[0], b, &t))
                break;
            a = b;
            b = t;
        }
    }
out:
    w[0] = a;
    w[1] = b;
    return done;
}

/* *out = sum c_i w[k-i]; false when a product or partial sum overflows. */
static bool small_next(const int64_t *c, uint32_t k, const int64_t *w, int64_t *out)
{
    int64_t acc = 0;
    for (uint32_t i = 1; i <= k; i++) {
        if (c[i - 1] != 0 && !mac(acc, c[i - 1], w[k - i], &acc))
            return false;
    }
    *out = acc;
    return true;
}

/* Any order: w = f(m-k) .. f(m-1). Returns the steps done. */
__attribute__((noinline)) static uint64_t run_any(const int64_t *c, uint32_t k, int64_t *w,
                                                  uint64_t steps)
{
    uint64_t done = 0;
    int64_t t;
    for (; done < steps; done++) {
        if (!small_next(c, k, w, &t))
            break;
        push_small(w, k, t);
    }
    return done;
}

/* f(m) exactly from the int64 window: true with *out when it fits int64. */
static bool exact_step(const FxLinRecSpec *s, const int64_t *w, int64_t *out)
{
    uint32_t k = s->order;
    mpz_t acc, x;
    mpz_init(acc);
    mpz_init(x);
    for (uint32_t i = 1; i <= k; i++) {
        mpz_set_si(x, w[k - i]);
        addmul_si(acc, x, s->coeffs[i - 1]);
    }
    bool fits = mpz_fits_slong_p(acc);
    if (fits)
        *out = mpz_get_si(acc);
    mpz_clear(acc);
    mpz_clear(x);
    return fits;
}

/* The int64 loop for s's order: the steps done, fewer on overflow. */
static inline uint64_t run_small(const FxLinRecSpec *s, int64_t *w, uint64_t steps)
{
    if (s->order == 2)
        return run2(s->coeffs, w, steps);
    if (s->order == 1)
        return run1(s->coeffs[0], w, steps);
    return run_any(s->coeffs, s->order, w, steps);
}

/* After the int64 evaluation overflowed: steps on while the values
 * themselves fit, and returns the steps done. Cold, so out of line. */
__attribute__((noinline)) static uint64_t small_resume(const FxLinRecSpec *s, int64_t *w,
                                                       uint64_t steps)
{
    uint64_t done = 0;
    int64_t t;
    while (done < steps && exact_step(s, w, &t)) {
        push_small(w, s->order, t);
        done++;
        done += run_small(s, w, steps - done);
    }
    return done;
}

/* Advances the int64 window w by up to `steps` steps and returns the
 * number done: fewer only when the next value does not fit int64. */
static inline uint64_t small_advance(const FxLinRecSpec *s, int64_t *w, uint64_t steps)
{
    uint64_t done = run_small(s, w, steps);
    return done == steps ? done : done + small_resume(s, w, steps - done);
}

bool fx_linrec_loop_small(const FxLinRecSpec *s, uint64_t n, int64_t *out)
{
    uint32_t k = s->order;
    if (n < k) {
        if (n >= s->small_count)
            return false;
        *out = s->small[n];
        return true;
    }
    if (s->small_count < k)
        return false;
    int64_t w[K_MAX];
    memcpy(w, s->small, sizeof(w)); // fixed length: no call
    uint64_t steps = n - k + 1;     // f(k) .. f(n)
    if (small_advance(s, w, steps) != steps)
        return false;
    *out = w[k - 1];
    return true;
}

/* ---- the loop in GMP ---- */

typedef struct BigWindow {
    mpz_t v[K_MAX];
    mpz_ptr w[K_MAX]; /* w[0] = f(m-k) .. w[k-1] = f(m-1), into v */
} BigWindow;

/* Runs `steps` steps over the window; false when keep_going said stop. */
static bool big_advance(const FxLinRecSpec *s, BigWindow *bw, uint64_t steps,
                        FxKeepGoing keep_going, void *ctx)
{
    uint32_t k = s->order;
    const int64_t *c = s->coeffs;
    uint64_t since_poll = 0, limbs = 0;
    for (uint64_t done = 0; done < steps; done++) {
        // f(m) over f(m-k): c_k f(m-k) in place, then += c_i f(m-i)
        mpz_ptr next = bw->w[0];
        if (c[k - 1] == 0)
            mpz_set_ui(next, 0);
        else if (c[k - 1] == -1)
            mpz_neg(next, next);
        else if (c[k - 1] != 1)
            mpz_mul_si(next, next, c[k - 1]);
        for (uint32_t i = 1; i < k; i++)
            addmul_si(next, bw->w[k - i], c[i - 1]);
        // the window moves on (fixed-length copies: a few moves, not a call)
        mpz_ptr tail[K_MAX - 1];
        memcpy(tail, bw->w + 1, sizeof(tail));
        memcpy(bw->w, tail, sizeof(tail));
        bw->w[k - 1] = next;

        limbs += k * mpz_size(next);
        if (++since_poll >= POLL_STEPS || limbs >= POLL_LIMBS) {
            fx_meter_work(limbs + since_poll); /* about a nanosecond a limb */
            if (keep_going && !keep_going(ctx))
                return false;
            since_poll = limbs = 0;
        }
    }
    return true;
}

bool fx_linrec_loop(const FxLinRecSpec *s, uint64_t n, mpz_t out, FxKeepGoing keep_going, void *ctx)
{
    uint32_t k = s->order;
    if (n < k) {
        mpz_set(out, s->initial[n]);
        return true;
    }
    uint64_t left = n - k + 1; // steps to f(n)
    int64_t w[K_MAX] = {0};
    bool small = s->small_count == k;
    if (small) {
        memcpy(w, s->small, sizeof(w)); // fixed length: no call
        while (left > 0) {
            uint64_t chunk = left < POLL_STEPS ? left : POLL_STEPS;
            uint64_t done = small_advance(s, w, chunk);
            fx_meter_work(done);
            left -= done;
            if (done < chunk)
                break; // f(next) is past int64
            if (left > 0 && keep_going && !keep_going(ctx))
                return false;
        }
        if (left == 0) {
            mpz_set_si(out, w[k - 1]);
            return true;
        }
    }
    // GMP from here, continuing from the window
    BigWindow bw;
    memset(&bw, 0, sizeof(bw));
    for (uint32_t i = 0; i < k; i++) {
        bw.w[i] = bw.v[i];
        if (small)
            mpz_init_set_si(bw.v[i], w[i]);
        else
            mpz_init_set(bw.v[i], s->initial[i]);
    }
    bool ok = big_advance(s, &bw, left, keep_going, ctx);
    if (ok)
        mpz_swap(out, bw.w[k - 1]);
    for (uint32_t i = 0; i < k; i++)
        mpz_clear(bw.v[i]);
    return ok;
}

/* ---- the power: fact 1, the leading bits in int64 ---- */

/* r := mul(r, r) in int64, as square_step does it. False on overflow, r
 * untouched. */
static bool small_square(const int64_t *c, uint32_t k, int64_t *r)
{
    int64_t p[2 * K_MAX - 1] = {0}, x;
    for (uint32_t i = 0; i < k; i++) {
        for (uint32_t j = 0; j < k; j++) {
            if (__builtin_mul_overflow(r[i], r[j], &x) ||
                __builtin_add_overflow(p[i + j], x, &p[i + j]))
                return false;
        }
    }
    for (uint32_t d = 2 * k - 2; d >= k; d--) {
        for (uint32_t i = 1; i <= k; i++) {
            if (!mac(p[d - i], c[i - 1], p[d], &p[d - i]))
                return false;
        }
    }
    memcpy(r, p, k * sizeof(r[0]));
    return true;
}

/* r := shift(r) in int64. False on overflow, r untouched. */
static bool small_shift(const int64_t *c, uint32_t k, int64_t *r)
{
    int64_t top = r[k - 1], q[K_MAX];
    if (__builtin_mul_overflow(top, c[k - 1], &q[0]))
        return false;
    for (uint32_t j = 1; j < k; j++) {
        if (!mac(r[j - 1], c[k - j - 1], top, &q[j]))
            return false;
    }
    memcpy(r, q, k * sizeof(r[0]));
    return true;
}

/* ---- the power in GMP ---- */

typedef struct Power {
    uint32_t k;
    const int64_t *c;       /* c_1 .. c_k */
    mpz_t r[K_MAX];         /* r for the bits of n done so far */
    mpz_t p[2 * K_MAX - 1]; /* the polynomial square; scratch */
    mpz_t t;
} Power;

/* Asks the meter for the next squaring: its products (two with the norm,
 * else k(k+1)/2) of the largest r[j], each priced as a product, and their
 * results, the square's coefficients and the scratch at once. */
static bool afford_square(const Power *pw, bool norm)
{
    uint64_t h = 0;
    for (uint32_t j = 0; j < pw->k; j++)
        h = mpz_size(pw->r[j]) > h ? mpz_size(pw->r[j]) : h;
    uint64_t units, bytes, products = norm ? 2 : (uint64_t)pw->k * (pw->k + 1) / 2;
    fx_val_mul_cost(h, h, &units, &bytes);
    return fx_meter_afford(products * units, bytes + 8 * 2 * h * (3 * pw->k));
}

/* r := mul(r, r): the polynomial square of r, reduced modulo chi. */
static void square_step(Power *pw)
{
    uint32_t k = pw->k, deg = 2 * k - 2;
    bool cross[2 * K_MAX - 1] = {false};
    // p[m] = sum over i < j, i + j = m of r[i] r[j]
    for (uint32_t i = 0; i < k; i++) {
        for (uint32_t j = i + 1; j < k; j++) {
            if (cross[i + j])
                mpz_addmul(pw->p[i + j], pw->r[i], pw->r[j]);
            else
                mpz_mul(pw->p[i + j], pw->r[i], pw->r[j]);
            cross[i + j] = true;
        }
    }
    // p[m] = 2 p[m] + r[m/2]^2
    for (uint32_t m = 0; m <= deg; m++) {
        if (m % 2 == 0) {
            mpz_mul(pw->t, pw->r[m / 2], pw->r[m / 2]); // GMP squares
            if (cross[m])
                mpz_addmul_ui(pw->t, pw->p[m], 2);
            mpz_swap(pw->p[m], pw->t);
        } else {
            mpz_mul_2exp(pw->p[m], pw->p[m], 1); // odd m always has a cross pair
        }
    }
    // modulo chi: x^d = sum_i c_i x^{d-i}, from the top degree down
    for (uint32_t d = deg; d >= k; d--) {
        for (uint32_t i = 1; i <= k; i++)
            addmul_si(pw->p[d - i], pw->p[d], pw->c[i - 1]);
    }
    for (uint32_t j = 0; j < k; j++)
        mpz_swap(pw->r[j], pw->p[j]);
}

/* r := shift(r): r[j] = r[j-1] + r[k-1] c_{k-j}, r[0] = r[k-1] c_k. */
static void shift_step(Power *pw)
{
    uint32_t k = pw->k;
    mpz_swap(pw->t, pw->r[k - 1]); // t = r[k-1]
    for (uint32_t j = k - 1; j >= 1; j--) {
        mpz_swap(pw->r[j], pw->r[j - 1]);
        addmul_si(pw->r[j], pw->t, pw->c[k - j - 1]);
    }
    mpz_mul_si(pw->r[0], pw->t, pw->c[k - 1]);
}

/* (-c_2)^a for k = 2 with c_2 = +-1: the norm of r for a (fact 3). */
static int norm_of(const Power *pw, uint64_t a)
{
    return pw->c[1] == 1 && (a & 1) ? -1 : 1;
}

/* r := mul(r, r) for k = 2, c_2 = +-1, c_1 != 0, r for a, nu = N(r) =
 * (-c_2)^a: two squarings, and the cross product from the norm (fact 3). */
static void norm_square(Power *pw, int nu)
{
    int64_t c1 = pw->c[0], c2 = pw->c[1];
    mpz_ptr a = pw->p[0], b = pw->p[2], d = pw->p[1];
    mpz_mul(a, pw->r[0], pw->r[0]);
    mpz_mul(b, pw->r[1], pw->r[1]);
    // r0' = r0^2 + c_2 r1^2;  d = nu - r0^2 + c_2 r1^2 = c_1 r0 r1
    if (c2 == 1) {
        mpz_add(pw->r[0], a, b);
        mpz_sub(d, b, a);
    } else {
        mpz_sub(pw->r[0], a, b);
        mpz_add(d, a, b);
        mpz_neg(d, d);
    }
    if (nu > 0)
        mpz_add_ui(d, d, 1);
    else
        mpz_sub_ui(d, d, 1);
    // d := 2 r0 r1 = 2 d / c_1, exact
    uint64_t g = c1 < 0 ? 0 - (uint64_t)c1 : (uint64_t)c1;
    if (g % 2 == 0) {
        if (g > 2)
            mpz_divexact_ui(d, d, g / 2);
    } else {
        mpz_mul_2exp(d, d, 1);
        if (g > 1)
            mpz_divexact_ui(d, d, g);
    }
    if (c1 < 0)
        mpz_neg(d, d);
    // r1' = 2 r0 r1 + c_1 r1^2
    addmul_si(d, b, c1);
    mpz_swap(pw->r[1], d);
}

/* out = f(2a + b) from r for a: sum_i r[i] u[i], u[i] = sum_j r[j]
 * f(i+j+b) (fact 2). */
static void final_step(Power *pw, const FxLinRecSpec *s, uint32_t b, mpz_t out)
{
    uint32_t k = pw->k;
    for (uint32_t i = 0; i < k; i++) {
        mpz_mul(pw->p[i], pw->r[0], f_at(s, i + b));
        for (uint32_t j = 1; j < k; j++)
            mpz_addmul(pw->p[i], pw->r[j], f_at(s, i + j + b));
    }
    mpz_mul(out, pw->r[0], pw->p[0]);
    for (uint32_t i = 1; i < k; i++)
        mpz_addmul(out, pw->r[i], pw->p[i]);
}

/* out = f(2a + b) from r for a, k = 2, nu = N(r): one big multiplication
 * (fact 3), f(b) nu + r1 ((2 f(b+1) - c_1 f(b)) r0 + (f(b+2) + c_2 f(b)) r1). */
static void norm_final(Power *pw, const FxLinRecSpec *s, uint32_t b, int nu, mpz_t out)
{
    mpz_ptr alpha = pw->p[0], beta = pw->p[1], sum = pw->p[2];
    mpz_mul_2exp(alpha, f_at(s, b + 1), 1);
    mpz_mul_si(pw->t, f_at(s, b), pw->c[0]);
    mpz_sub(alpha, alpha, pw->t);
    mpz_set(beta, f_at(s, b + 2));
    addmul_si(beta, f_at(s, b), pw->c[1]);
    mpz_mul(sum, pw->r[0], alpha);
    mpz_addmul(sum, pw->r[1], beta);
    mpz_mul(out, pw->r[1], sum);
    if (nu > 0)
        mpz_add(out, out, f_at(s, b));
    else
        mpz_sub(out, out, f_at(s, b));
}

/* The bits f's r will reach, guessed from the small start: r for v (the
 * bits of a above `bit`) has `have` bits, and sizes grow about linearly
 * with the index. Sizing the scratch once saves the reallocations that
 * dominate small n; the guess is capped, as later growth costs little
 * beside the multiplications. */
static size_t presize_bits(const int64_t *r, uint32_t k, uint64_t a, int bit)
{
    if (bit < 0)
        return 0;
    uint64_t v = a >> (bit + 1), have = 1;
    for (uint32_t i = 0; i < k; i++) {
        uint64_t m = r[i] < 0 ? 0 - (uint64_t)r[i] : (uint64_t)r[i];
        if (m && 64 - (uint64_t)__builtin_clzll(m) > have)
            have = 64 - (uint64_t)__builtin_clzll(m);
    }
    double guess = (double)have * (double)a / (double)(v ? v : 1) + 64;
    return guess < PRESIZE_CAP ? (size_t)guess : PRESIZE_CAP;
}

/* Initialises pw for s with r = small, the scratch sized for `bits`. */
static void power_init(Power *pw, const FxLinRecSpec *s, const int64_t *small, size_t bits)
{
    pw->k = s->order;
    pw->c = s->coeffs;
    for (uint32_t i = 0; i < pw->k; i++) {
        mpz_init2(pw->r[i], bits);
        mpz_set_si(pw->r[i], small[i]);
    }
    for (uint32_t i = 0; i < 2 * pw->k - 1; i++)
        mpz_init2(pw->p[i], 2 * bits);
    mpz_init2(pw->t, 2 * bits);
}

static void power_clear(Power *pw)
{
    for (uint32_t i = 0; i < pw->k; i++)
        mpz_clear(pw->r[i]);
    for (uint32_t i = 0; i < 2 * pw->k - 1; i++)
        mpz_clear(pw->p[i]);
    mpz_clear(pw->t);
}

bool fx_linrec_power(const FxLinRecSpec *s, uint64_t n, mpz_t out, FxKeepGoing keep_going,
                     void *ctx)
{
    uint32_t k = s->order;
    if (n < k) {
        mpz_set(out, s->initial[n]);
        return true;
    }
    // n = 2a + b: rpow(a) by the ladder, then the last bit (fact 2)
    uint64_t a = n >> 1;
    uint32_t b = (uint32_t)(n & 1);
    int bit = a ? 63 - __builtin_clzll(a) : -1; // the next bit of a
    int64_t small[K_MAX] = {1};                 // r_0 = e_0
    for (; bit >= 0; bit--) {
        int64_t q[K_MAX];
        memcpy(q, small, sizeof(q));
        if (!small_square(s->coeffs, k, q))
            break;
        if ((a >> bit) & 1 && !small_shift(s->coeffs, k, q))
            break;
        memcpy(small, q, sizeof(q));
    }

    Power pw;
    power_init(&pw, s, small, presize_bits(small, k, a, bit));

    bool norm = k == 2 && (s->coeffs[1] == 1 || s->coeffs[1] == -1) && s->coeffs[0] != 0;
    bool ok = true;
    for (; bit >= 0; bit--) {
        if ((keep_going && !keep_going(ctx)) || !afford_square(&pw, norm)) {
            ok = false;
            break;
        }
        // a < 2^63, so bit + 1 < 64
        if (norm)
            norm_square(&pw, norm_of(&pw, a >> (bit + 1)));
        else
            square_step(&pw);
        if ((a >> bit) & 1)
            shift_step(&pw);
    }
    if (ok && keep_going && !keep_going(ctx))
        ok = false;
    if (ok && norm)
        norm_final(&pw, s, b, norm_of(&pw, a), out);
    else if (ok)
        final_step(&pw, s, b, out);

    power_clear(&pw);
    return ok;
}
