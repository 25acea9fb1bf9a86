/*
 * buf.c: FxBuf doubles its capacity as it grows; appends are amortised O(1).
 */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(FxBuf *b, size_t extra)
{
    if (b->spill && b->len && b->len + extra + 1 > FX_BUF_SPILL_AT) {
        fwrite(b->data, 1, b->len, b->spill);
        b->len = 0;
        b->data[0] = '\0';
    }
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = fx_xrealloc(b->data, cap);
    b->cap = cap;
}

void fx_buf_append(FxBuf *b, const char *s, size_t len)
{
    reserve(b, len);
    memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void fx_buf_puts(FxBuf *b, const char *s)
{
    fx_buf_append(b, s, strlen(s));
}

void fx_buf_putc(FxBuf *b, char c)
{
    fx_buf_append(b, &c, 1);
}

void fx_buf_printf(FxBuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *fx_buf_str(const FxBuf *b)
{
    return b->data ? b->data : "";
}

char *fx_buf_take(FxBuf *b)
{
    char *s = b->data ? b->data : fx_xstrdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void fx_buf_free(FxBuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
