/*
 * base.c: allocation that never returns NULL, and the fatal-error exit.
 *
 * Out of memory is not a condition Flux recovers from in the middle of a
 * parse or a proof; it stops with a message naming the size, as Redis does.
 * Budgets on the interpreter keep user programs far from this point.
 */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include "base.h"

#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FX_NORETURN void out_of_memory(size_t size)
{
    fprintf(stderr, "flux: out of memory allocating %zu bytes\n", size);
    abort();
}

void *fx_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

void *fx_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void *fx_xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

char *fx_xstrndup(const char *s, size_t len)
{
    char *p = fx_xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *fx_xstrdup(const char *s)
{
    return fx_xstrndup(s, strlen(s));
}

bool fx_is_decimal(const char *s)
{
    if (!s)
        return false;
    s += *s == '-';
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

char *fx_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    FX_CHECK(n >= 0, "bad format string %s", fmt);
    char *p = fx_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void fx_fatal(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "flux: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void fx_hint_huge_pages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + size) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}
