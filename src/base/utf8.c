/*
 * utf8.c: UTF-8 well-formedness, by the table of RFC 3629 section 4: the
 * lead byte fixes the length and the range of the byte after it (which is
 * what excludes overlong forms, surrogates and code points past U+10FFFF);
 * the bytes after that are any continuation byte, 0x80..0xBF.
 */
#include "utf8.h"

#include <stdint.h>
#include <string.h>

size_t fx_utf8_next(const char *s, size_t rest, const char **why)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned char c = p[0], lo = 0x80, hi = 0xBF; /* the second byte's range */
    const char *out_of_range = "an overlong encoding";
    size_t n;
    if (c < 0x80)
        return 1;
    if (c < 0xC0) {
        if (why)
            *why = "a continuation byte with no lead byte";
        return 0;
    }
    if (c < 0xC2 || c > 0xF4) {
        if (why)
            *why = c < 0xC2   ? "an overlong encoding"
                   : c < 0xF8 ? "past U+10FFFF, the last code point"
                              : "a byte that UTF-8 never uses";
        return 0;
    }
    n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED) {
        hi = 0x9F;
        out_of_range = "an encoded surrogate (U+D800..U+DFFF)";
    } else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4) {
        hi = 0x8F;
        out_of_range = "past U+10FFFF, the last code point";
    }
    for (size_t i = 1; i < n; i++) {
        if (i == rest || (p[i] & 0xC0) != 0x80) {
            if (why)
                *why = i == rest ? "a sequence cut short by the end of the text"
                                 : "a sequence cut short";
            return 0;
        }
        if (i == 1 && (p[1] < lo || p[1] > hi)) {
            if (why)
                *why = out_of_range;
            return 0;
        }
    }
    return n;
}

size_t fx_utf8_check(const char *s, size_t len, const char **why)
{
    size_t i = 0;
    while (i < len) {
        for (uint64_t w; i + 8 <= len && (memcpy(&w, s + i, 8), !(w & 0x8080808080808080u));)
            i += 8; // the common case: ASCII, 8 bytes at a time
        while (i < len && (unsigned char)s[i] < 0x80)
            i++;
        if (i == len)
            break;
        size_t n = fx_utf8_next(s + i, len - i, why);
        if (n == 0)
            return i;
        i += n;
    }
    return len;
}
