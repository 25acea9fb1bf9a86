/*
 * base.h: the few definitions every layer of Flux shares.
 *
 * FxStatus is the result of every fallible library call: FX_OK (zero) or an
 * error code, the same values as the public FLUX_* codes and the `flux`
 * command's exit codes (one set: error.h has the record that carries one). fx_xmalloc and friends abort with a message when memory runs
 * out, so call sites never test for NULL (as Redis' zmalloc). FX_ASSERT
 * checks internal invariants in debug and sanitizer builds only; FX_CHECK is
 * always on, for cheap checks whose failure means corrupt state. Neither is
 * ever used on user input: malformed programs become diagnostics.
 */
#ifndef FX_BASE_H
#define FX_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define FX_MUST_CHECK __attribute__((warn_unused_result))
#define FX_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define FX_NORETURN __attribute__((noreturn))
#else
#define FX_MUST_CHECK
#define FX_PRINTF(f, a)
#define FX_NORETURN
#endif

#define FX_API __attribute__((visibility("default")))

typedef enum {
    FX_OK = 0,
    FX_ERR_RUNTIME = 1,  /* a run-time error, a budget exceeded, a bad data file */
    FX_ERR_USAGE = 2,    /* the caller passed something malformed, or no such file */
    FX_ERR_REJECTED = 3, /* the program was rejected: diagnostics say why */
    FX_ERR_STORE = 4,    /* the store is unusable */
} FxStatus;

void *fx_xmalloc(size_t size);
void *fx_xcalloc(size_t count, size_t size);
void *fx_xrealloc(void *ptr, size_t size);
/* Asks the kernel to back the block [p, p + size) with huge pages where it
 * can (transparent huge pages, "madvise" mode): a block of many MB written
 * once, such as a file read whole or a column, then takes a fault per 2 MB
 * instead of per 4 KB. Only a hint: nothing changes where it is refused. */
void fx_hint_huge_pages(void *p, size_t size);
char *fx_xstrdup(const char *s);
char *fx_xstrndup(const char *s, size_t len);
/* Is s an integer in decimal: an optional '-', then one digit or more? */
bool fx_is_decimal(const char *s);
/* Returns a new string formatted as by printf; caller frees. */
char *fx_xasprintf(const char *fmt, ...) FX_PRINTF(1, 2);

FX_NORETURN void fx_fatal(const char *file, int line, const char *fmt, ...) FX_PRINTF(3, 4);

#define FX_CHECK(c, ...)                                                                           \
    do {                                                                                           \
        if (!(c))                                                                                  \
            fx_fatal(__FILE__, __LINE__, __VA_ARGS__);                                             \
    } while (0)

#ifdef NDEBUG
#define FX_ASSERT(c) ((void)0)
#define FX_UNREACHABLE() __builtin_unreachable()
#else
#define FX_ASSERT(c) FX_CHECK(c, "assertion failed: %s", #c)
#define FX_UNREACHABLE() fx_fatal(__FILE__, __LINE__, "unreachable")
#endif

#define FX_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A growable array of T: `FX_VEC(FxExpr *) items;` zero-initialised is empty.
 * fx_vec_push may move the storage, so never keep a pointer into it across a
 * push. The macros are deliberately tiny; anything cleverer is a function.
 */
#define FX_VEC(T)                                                                                  \
    struct {                                                                                       \
        T *data;                                                                                   \
        size_t len, cap;                                                                           \
    }

#define fx_vec_push(v, x)                                                                          \
    do {                                                                                           \
        if ((v)->len == (v)->cap) {                                                                \
            (v)->cap = (v)->cap ? 2 * (v)->cap : 8;                                                \
            (v)->data = fx_xrealloc((v)->data, (v)->cap * sizeof(*(v)->data));                     \
        }                                                                                          \
        (v)->data[(v)->len++] = (x);                                                               \
    } while (0)

#define fx_vec_free(v)                                                                             \
    do {                                                                                           \
        free((v)->data);                                                                           \
        (v)->data = NULL;                                                                          \
        (v)->len = (v)->cap = 0;                                                                   \
    } while (0)

#define fx_vec_foreach(T, it, v) for (T *it = (v)->data; it && it < (v)->data + (v)->len; it++)

#endif
