/*
 * utf8.h: is this text well-formed UTF-8 (RFC 3629)?
 *
 * Flux strings are UTF-8, and JSON output must be: text is checked where it
 * enters (the lexer's string literals, data sources), so nothing after can
 * hold other bytes. Well-formed excludes overlong encodings, the surrogates
 * U+D800..U+DFFF and anything past U+10FFFF.
 */
#ifndef FX_UTF8_H
#define FX_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed sequence at s[0..rest), rest > 0;
 * 0 when it is not one, and then *why (when why is not NULL) says what is
 * wrong in a phrase: "a continuation byte with no lead byte". */
size_t fx_utf8_next(const char *s, size_t rest, const char **why);

/* The offset of the first byte of s[0..len) that starts no well-formed
 * sequence (len when all of it is UTF-8), and *why as fx_utf8_next's. */
size_t fx_utf8_check(const char *s, size_t len, const char **why);

#endif
