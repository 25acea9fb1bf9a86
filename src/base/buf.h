/*
 * buf.h: a growable, always NUL-terminated byte buffer for building text.
 */
#ifndef FX_BUF_H
#define FX_BUF_H

#include <stdio.h>

#include "base.h"

typedef struct FxBuf {
    char *data; /* NUL-terminated once anything was appended; NULL when empty */
    size_t len, cap;
    /* When set, the text is written there once it passes FX_BUF_SPILL_AT,
     * and data keeps only what was not written yet: a large text streams
     * instead of being held whole. */
    FILE *spill;
} FxBuf;

#define FX_BUF_SPILL_AT ((size_t)64 << 10)

void fx_buf_append(FxBuf *b, const char *s, size_t len);
void fx_buf_puts(FxBuf *b, const char *s);
void fx_buf_putc(FxBuf *b, char c);
void fx_buf_printf(FxBuf *b, const char *fmt, ...) FX_PRINTF(2, 3);
/* The text so far; "" for an empty buffer. Borrowed: valid until the next append. */
const char *fx_buf_str(const FxBuf *b);
/* Hands the text to the caller (who frees it) and empties the buffer. */
char *fx_buf_take(FxBuf *b);
void fx_buf_free(FxBuf *b);

#endif
