/*
 * text.c: the string functions of text.h.
 *
 * DESIGN
 *
 * A string is UTF-8 bytes (value.c); positions are code points. The work
 * is done on bytes, and a byte offset becomes a position only where a
 * function takes or gives one: `s[i]` and slices ask value.c for the byte
 * offset of a position (O(1) on ASCII, bounded otherwise: the marks), and
 * `find` counts the code points before the byte it found. Searching is on
 * bytes too: a pattern that is valid UTF-8 can only match where a code
 * point starts, so a byte match is a code-point match.
 *
 * Searches (`find`, `in`, `split` and `replace` by a separator) use
 * Knuth-Morris-Pratt, with memchr to skip to the pattern's first byte, so
 * none is quadratic whatever the text and the pattern.
 *
 * Numbers are read strictly: `int` takes an optional sign and decimal
 * digits, `float` a decimal number with an optional exponent, or inf,
 * infinity or nan; both allow whitespace around, and nothing else (no
 * `_`, no hexadecimal, no empty text). A refused text is quoted in the
 * message as Flux prints strings, cut after 40 code points.
 */
#include "text.h"

#include "meter.h"

#include <gmp.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "value_gmp.h"

#define NOT_FOUND SIZE_MAX
#define QUOTE_POINTS 40

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool is_continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static FxValue str_of(const char *s, size_t len)
{
    return fx_val_string(s, len);
}

/* x as Flux prints it (a string quoted), cut after QUOTE_POINTS code
 * points of a long string. Caller frees. */
static char *quoted(FxValue x)
{
    FxBuf b = {0};
    if (x.kind == FX_VAL_STRING && fx_val_string_length(x) > QUOTE_POINTS) {
        size_t len;
        const char *s = fx_val_string_data(x, &len);
        FxValue head = str_of(s, fx_val_string_offset(x, QUOTE_POINTS));
        fx_val_print(head, &b);
        fx_value_release(head);
        b.len--; /* the closing quote */
        fx_buf_puts(&b, "...\"");
    } else {
        fx_val_print(x, &b);
    }
    return fx_buf_take(&b);
}

/* "MESSAGE, not X" into err; false. */
static FX_PRINTF(3, 4) bool refuse(FxError *err, FxValue x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    char *q = quoted(x);
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof(err->message) - used, ", not %s", q);
    free(q);
    return false;
}

/* ---- positions ---- */

/* The position i of a sequence of n elements: false when i is not an
 * integer in [0, n] (or [0, n) when strict). */
static bool position(FxValue i, size_t n, bool strict, size_t *out)
{
    int64_t k;
    if (!fx_val_to_int64(i, &k) || k < 0 || (uint64_t)k > n || (strict && (uint64_t)k == n))
        return false;
    *out = (size_t)k;
    return true;
}

bool fx_text_at(FxValue s, FxValue i, FxValue *out, FxError *err)
{
    size_t k, n = fx_val_string_length(s), len;
    if (!position(i, n, true, &k)) {
        char *t = quoted(i);
        snprintf(err->message, sizeof(err->message), "index %s is out of range for a string of %zu",
                 t, n);
        free(t);
        return false;
    }
    const char *bytes = fx_val_string_data(s, &len);
    size_t from = fx_val_string_offset(s, k);
    size_t to = from + 1;
    while (to < len && is_continuation(bytes[to]))
        to++;
    *out = str_of(bytes + from, to - from);
    return true;
}

bool fx_text_slice(FxValue x, FxValue lo, FxValue hi, bool closed, FxValue *out,
                   FxError *err)
{
    bool is_str = x.kind == FX_VAL_STRING;
    size_t n = is_str ? fx_val_string_length(x) : fx_val_list_len(x), a, b = 0;
    FxValue end = hi;
    bool end_ok = true;
    if (closed) /* a..=b is a..b+1 */
        end_ok = fx_val_add(hi, fx_val_int(1), &end, NULL);
    bool ok = position(lo, n, false, &a) && end_ok && position(end, n, false, &b);
    if (closed && end_ok)
        fx_value_release(end);
    if (!ok || a > b) {
        char *l = quoted(lo), *h = quoted(hi);
        const char *what = is_str ? "string" : "list";
        if (ok)
            snprintf(err->message, sizeof(err->message), "slice %s..%s%s of a %s of %zu ends "
                     "before it starts", l, closed ? "=" : "", h, what, n);
        else
            snprintf(err->message, sizeof(err->message), "slice %s..%s%s is out of range for "
                     "a %s of %zu", l, closed ? "=" : "", h, what, n);
        free(l);
        free(h);
        return false;
    }
    if (!is_str) {
        *out = fx_val_list_slice(x, a, b);
        return true;
    }
    size_t len;
    const char *bytes = fx_val_string_data(x, &len);
    size_t from = fx_val_string_offset(x, a);
    *out = str_of(bytes + from, fx_val_string_offset(x, b) - from);
    return true;
}

/* ---- conversions ---- */

FxValue fx_text_str(FxValue x)
{
    if (x.kind == FX_VAL_STRING) {
        fx_value_retain(x);
        return x;
    }
    FxBuf b = {0};
    fx_val_print(x, &b);
    FxValue v = str_of(fx_buf_str(&b), b.len);
    fx_buf_free(&b);
    return v;
}

/* The text of s without surrounding whitespace: [*from, *to). */
static void trimmed(const char *s, size_t len, size_t *from, size_t *to)
{
    size_t a = 0, b = len;
    while (a < b && is_space(s[a]))
        a++;
    while (b > a && is_space(s[b - 1]))
        b--;
    *from = a;
    *to = b;
}

/* [+-]digits, the whole of s[0..n). */
static bool read_int(const char *s, size_t n, FxValue *out)
{
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-');
    if (i == n)
        return false;
    for (size_t k = i; k < n; k++)
        if (!is_digit(s[k]))
            return false;
    char *text = fx_xmalloc(n - i + 2), *p = text;
    if (s[0] == '-')
        *p++ = '-';
    memcpy(p, s + i, n - i);
    p[n - i] = '\0';
    *out = fx_val_int_text(text);
    free(text);
    return true;
}

static bool int_of_float(double f, FxValue *out, FxError *err)
{
    if (!isfinite(f)) {
        snprintf(err->message, sizeof(err->message), "`int` needs a finite Float, not %s",
                 isnan(f) ? "nan" : f < 0 ? "-inf" : "inf");
        return false;
    }
    double t = trunc(f);
    if (t >= -0x1p63 && t < 0x1p63) {
        *out = fx_val_int((int64_t)t);
        return true;
    }
    mpz_t z;
    mpz_init_set_d(z, t); /* exact: t is an integer */
    *out = fx_val_int_take_mpz(z);
    return true;
}

bool fx_text_int(FxValue x, FxValue *out, FxError *err)
{
    if (fx_val_is_integer(x)) {
        fx_value_retain(x);
        *out = x;
        return true;
    }
    if (x.kind == FX_VAL_FLOAT)
        return int_of_float(x.u.f, out, err);
    if (x.kind != FX_VAL_STRING)
        return refuse(err, x, "`int` needs a String or a number");
    size_t len, a, b;
    const char *s = fx_val_string_data(x, &len);
    trimmed(s, len, &a, &b);
    if (!read_int(s + a, b - a, out))
        return refuse(err, x, "`int` needs a decimal integer");
    return true;
}

/* Does s[0..n) spell a decimal number: [+-] (d+ [. d*] | . d+) [(e|E) [+-] d+]? */
static bool decimal_syntax(const char *s, size_t n)
{
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-'), digits = 0;
    for (; i < n && is_digit(s[i]); i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit(s[i]); i++)
            digits++;
    if (digits == 0)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        i += i < n && (s[i] == '+' || s[i] == '-');
        size_t exp = i;
        while (i < n && is_digit(s[i]))
            i++;
        if (i == exp)
            return false;
    }
    return i == n;
}

/* inf, infinity or nan in any case, with an optional sign. */
static bool special_float(const char *s, size_t n, double *out)
{
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-');
    const char *w = s + i;
    size_t k = n - i;
    if ((k == 3 && strncasecmp(w, "inf", 3) == 0) || (k == 8 && strncasecmp(w, "infinity", 8) == 0))
        *out = s[0] == '-' ? -INFINITY : INFINITY;
    else if (k == 3 && strncasecmp(w, "nan", 3) == 0)
        *out = NAN;
    else
        return false;
    return true;
}

/* The double nearest to the decimal text (strtod rounds correctly, ties to
 * even; beyond the largest double it gives an infinity, as IEEE does). */
static double nearest(const char *s, size_t n)
{
    char small[64], *text = n < sizeof(small) ? small : fx_xmalloc(n + 1);
    memcpy(text, s, n);
    text[n] = '\0';
    double d = strtod(text, NULL);
    if (text != small)
        free(text);
    return d;
}

bool fx_text_float(FxValue x, FxValue *out, FxError *err)
{
    int64_t i;
    if (x.kind == FX_VAL_FLOAT) {
        *out = x;
        return true;
    }
    if (fx_val_to_int64(x, &i)) {
        *out = fx_val_float((double)i); /* rounds to nearest, ties to even */
        return true;
    }
    if (x.kind == FX_VAL_BIG) {
        *out = fx_val_float(fx_val_int_to_double(x));
        return true;
    }
    if (x.kind != FX_VAL_STRING)
        return refuse(err, x, "`float` needs a String or a number");
    size_t len, a, b;
    const char *s = fx_val_string_data(x, &len);
    trimmed(s, len, &a, &b);
    double d;
    if (special_float(s + a, b - a, &d)) {
        *out = fx_val_float(d);
        return true;
    }
    if (!decimal_syntax(s + a, b - a))
        return refuse(err, x, "`float` needs a decimal number");
    *out = fx_val_float(nearest(s + a, b - a));
    return true;
}

/* ---- searching ---- */

/* A pattern ready for Knuth-Morris-Pratt: back[j] is the length of the
 * longest proper border of pat[0..j]. */
typedef struct Finder {
    const char *pat;
    size_t m;
    size_t *back; /* NULL when m <= 1 */
} Finder;

static void finder_init(Finder *f, const char *pat, size_t m)
{
    f->pat = pat;
    f->m = m;
    f->back = NULL;
    if (m <= 1)
        return;
    f->back = fx_xmalloc(m * sizeof(size_t));
    f->back[0] = 0;
    for (size_t i = 1, k = 0; i < m; i++) {
        while (k > 0 && pat[i] != pat[k])
            k = f->back[k - 1];
        if (pat[i] == pat[k])
            k++;
        f->back[i] = k;
    }
}

static void finder_free(Finder *f)
{
    free(f->back);
}

/* The byte offset of the first match in s[from..n), or NOT_FOUND. */
static size_t finder_next(const Finder *f, const char *s, size_t n, size_t from)
{
    if (f->m == 0)
        return from <= n ? from : NOT_FOUND;
    if (from >= n || n - from < f->m)
        return NOT_FOUND;
    size_t j = 0;
    for (size_t i = from; i < n; i++) {
        if (j == 0) {
            const char *q = memchr(s + i, f->pat[0], n - i);
            if (!q)
                return NOT_FOUND;
            i = (size_t)(q - s);
        }
        while (j > 0 && s[i] != f->pat[j])
            j = f->back[j - 1];
        if (s[i] == f->pat[j])
            j++;
        if (j == f->m)
            return i + 1 - f->m;
    }
    return NOT_FOUND;
}

static size_t find_bytes(FxValue s, FxValue sub)
{
    size_t n, m;
    const char *hay = fx_val_string_data(s, &n), *pat = fx_val_string_data(sub, &m);
    Finder f;
    finder_init(&f, pat, m);
    size_t at = finder_next(&f, hay, n, 0);
    finder_free(&f);
    return at;
}

int64_t fx_text_find(FxValue s, FxValue sub)
{
    size_t at = find_bytes(s, sub), len;
    if (at == NOT_FOUND)
        return -1;
    const char *bytes = fx_val_string_data(s, &len);
    if (fx_val_string_length(s) == len)
        return (int64_t)at;
    size_t points = 0; /* the code points that start before byte `at` */
    for (size_t i = 0; i < at; i++)
        points += i == 0 || !is_continuation(bytes[i]);
    return (int64_t)points;
}

bool fx_text_contains(FxValue s, FxValue sub)
{
    return find_bytes(s, sub) != NOT_FOUND;
}

bool fx_text_starts_with(FxValue s, FxValue prefix)
{
    size_t n, m;
    const char *a = fx_val_string_data(s, &n), *b = fx_val_string_data(prefix, &m);
    return m <= n && memcmp(a, b, m) == 0;
}

bool fx_text_ends_with(FxValue s, FxValue suffix)
{
    size_t n, m;
    const char *a = fx_val_string_data(s, &n), *b = fx_val_string_data(suffix, &m);
    return m <= n && memcmp(a + n - m, b, m) == 0;
}

/* ---- building ---- */

/* Asks the meter before making a result the program sizes: `pieces`
 * strings of `bytes` in all (with the list that holds them), and `bytes`
 * more for the buffer they are built in. */
static bool ask(size_t pieces, size_t bytes, FxError *err)
{
    size_t need = pieces * (fx_val_string_bytes(0) + sizeof(FxValue)) + 2 * bytes;
    if (fx_meter_afford(bytes + pieces, need))
        return true;
    fx_meter_message(NULL, err->message, sizeof(err->message));
    return false;
}

typedef FX_VEC(FxValue) ValueVec;

static FxValue take_list(ValueVec *items)
{
    FxValue v = fx_val_list_take(items->data, items->len);
    fx_vec_free(items);
    return v;
}

/* The pieces split would make: a pass that counts them, to ask first. */
static size_t count_words(const char *bytes, size_t n)
{
    size_t words = 0;
    for (size_t i = 0; i < n; i++)
        words += !is_space(bytes[i]) && (i == 0 || is_space(bytes[i - 1]));
    return words;
}

bool fx_text_split(FxValue s, const FxValue *sep, FxValue *out, FxError *err)
{
    size_t n;
    const char *bytes = fx_val_string_data(s, &n);
    ValueVec items = {0};
    if (!sep) {
        if (!ask(count_words(bytes, n), n, err))
            return false;
        for (size_t i = 0; i < n;) {
            while (i < n && is_space(bytes[i]))
                i++;
            size_t from = i;
            while (i < n && !is_space(bytes[i]))
                i++;
            if (i > from)
                fx_vec_push(&items, str_of(bytes + from, i - from));
        }
        *out = take_list(&items);
        return true;
    }
    size_t m;
    const char *pat = fx_val_string_data(*sep, &m);
    if (m == 0) {
        snprintf(err->message, sizeof(err->message), "`split` needs a separator that is not "
                 "empty (use `chars` for the code points)");
        return false;
    }
    Finder f;
    finder_init(&f, pat, m);
    size_t from = 0, at, pieces = 1;
    for (; (at = finder_next(&f, bytes, n, from)) != NOT_FOUND; from = at + m)
        pieces++;
    if (!ask(pieces, n, err)) {
        finder_free(&f);
        return false;
    }
    from = 0;
    while ((at = finder_next(&f, bytes, n, from)) != NOT_FOUND) {
        fx_vec_push(&items, str_of(bytes + from, at - from));
        from = at + m;
    }
    fx_vec_push(&items, str_of(bytes + from, n - from));
    finder_free(&f);
    *out = take_list(&items);
    return true;
}

bool fx_text_join(FxValue xs, FxValue sep, FxValue *out, FxError *err)
{
    size_t m, n = fx_val_list_len(xs), total = 0;
    const char *between = fx_val_string_data(sep, &m);
    for (size_t i = 0; i < n; i++) {
        FxValue x = fx_val_list_at(xs, i);
        size_t len = 0;
        if (x.kind == FX_VAL_STRING)
            fx_val_string_data(x, &len);
        total += len + (i ? m : 0);
    }
    if (!ask(1, total, err))
        return false;
    FxBuf b = {0};
    for (size_t i = 0; i < n; i++) {
        FxValue x = fx_val_list_at(xs, i);
        if (x.kind != FX_VAL_STRING) {
            fx_buf_free(&b);
            return refuse(err, x, "`join` needs a list of strings");
        }
        size_t len;
        const char *s = fx_val_string_data(x, &len);
        if (i > 0)
            fx_buf_append(&b, between, m);
        fx_buf_append(&b, s, len);
    }
    *out = str_of(fx_buf_str(&b), b.len);
    fx_buf_free(&b);
    return true;
}

/* The end of the code point that starts at byte i. */
static size_t point_end(const char *s, size_t n, size_t i)
{
    for (i++; i < n && is_continuation(s[i]); i++)
        ;
    return i;
}

FxValue fx_text_chars(FxValue s)
{
    size_t n;
    const char *bytes = fx_val_string_data(s, &n);
    ValueVec items = {0};
    for (size_t i = 0, next; i < n; i = next) {
        next = point_end(bytes, n, i);
        fx_vec_push(&items, str_of(bytes + i, next - i));
    }
    return take_list(&items);
}

FxValue fx_text_reverse(FxValue x)
{
    if (x.kind == FX_VAL_LIST)
        return fx_val_list_reversed(x);
    size_t n;
    const char *bytes = fx_val_string_data(x, &n);
    char *r = fx_xmalloc(n + 1);
    for (size_t i = 0, next; i < n; i = next) { /* each code point to its mirror place */
        next = point_end(bytes, n, i);
        memcpy(r + n - next, bytes + i, next - i);
    }
    FxValue v = str_of(r, n);
    free(r);
    return v;
}

FxValue fx_text_case(FxValue s, bool upper)
{
    size_t n;
    const char *bytes = fx_val_string_data(s, &n);
    char *r = fx_xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        char c = bytes[i];
        if (upper && c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!upper && c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        r[i] = c;
    }
    FxValue v = str_of(r, n);
    free(r);
    return v;
}

FxValue fx_text_trim(FxValue s)
{
    size_t n, a, b;
    const char *bytes = fx_val_string_data(s, &n);
    trimmed(bytes, n, &a, &b);
    if (a == 0 && b == n) {
        fx_value_retain(s);
        return s;
    }
    return str_of(bytes + a, b - a);
}

bool fx_text_replace(FxValue s, FxValue old, FxValue with, FxValue *out, FxError *err)
{
    size_t n, m, k;
    const char *bytes = fx_val_string_data(s, &n), *pat = fx_val_string_data(old, &m);
    const char *rep = fx_val_string_data(with, &k);
    if (m == 0) {
        snprintf(err->message, sizeof(err->message), "`replace` needs a text to replace that is "
                 "not empty");
        return false;
    }
    Finder f;
    finder_init(&f, pat, m);
    size_t from = 0, at, found = 0;
    for (; (at = finder_next(&f, bytes, n, from)) != NOT_FOUND; from = at + m)
        found++;
    if (found && !ask(1, n - found * m + found * k, err)) {
        finder_free(&f);
        return false;
    }
    FxBuf b = {0};
    from = 0;
    while ((at = finder_next(&f, bytes, n, from)) != NOT_FOUND) {
        fx_buf_append(&b, bytes + from, at - from);
        fx_buf_append(&b, rep, k);
        from = at + m;
    }
    finder_free(&f);
    if (from == 0) { /* nothing replaced: the same string */
        fx_buf_free(&b);
        fx_value_retain(s);
        *out = s;
        return true;
    }
    fx_buf_append(&b, bytes + from, n - from);
    *out = str_of(fx_buf_str(&b), b.len);
    fx_buf_free(&b);
    return true;
}
