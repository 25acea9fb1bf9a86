/*
 * buf.h: a growable, always NUL-terminated byte buffer for building text.
 */
#ifndef FX_BUF_H
#define FX_BUF_H

#include "base.h"

typedef struct FxBuf {
    char *data; /* NUL-terminated once anything was appended; NULL when empty */
    size_t len, cap;
} FxBuf;

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
