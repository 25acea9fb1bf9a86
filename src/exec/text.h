/*
 * text.h: the string functions of the language (docs/language.md §5):
 * indexing and slicing by code point, conversions between numbers and
 * text, splitting, joining, searching, case and whitespace.
 *
 * Positions and lengths count code points as value.h's
 * fx_val_string_length does. Whitespace is the six ASCII characters space,
 * \t, \n, \v, \f and \r; `upper` and `lower` change ASCII letters only.
 * Every function borrows its arguments and returns a new reference; those
 * that can fail return false with a message in *err, and set *out only on
 * success. Pure functions of their arguments: no state, any thread.
 */
#ifndef FX_TEXT_H
#define FX_TEXT_H

#include "value.h"

/* s[i]: the code point at i as a string; out of range (negative too) is an
 * error, as for lists. */
bool fx_text_at(FxValue s, FxValue i, FxValue *out, FxError *err);
/* s[lo..hi], s[lo..=hi] (closed) of a string or a list: the same kind of
 * value; bounds outside 0..len, or lo after hi, are an error naming them. */
bool fx_text_slice(FxValue x, FxValue lo, FxValue hi, bool closed, FxValue *out,
                   FxError *err);

/* str(x): x's text as `flux run` prints it; a string is itself. */
FxValue fx_text_str(FxValue x);
/* int(x): a string read as a decimal integer (surrounding whitespace and a
 * sign allowed), a Float truncated toward zero, an integer itself. */
bool fx_text_int(FxValue x, FxValue *out, FxError *err);
/* float(x): a string read as a decimal number (or inf, infinity, nan), an
 * integer rounded to the nearest double (ties to even), a Float itself. */
bool fx_text_float(FxValue x, FxValue *out, FxError *err);

/* split(s): the pieces between runs of whitespace, none empty.
 * split(s, sep) (sep = NULL for the first form): the pieces between
 * occurrences of sep, empty ones kept; an empty sep is an error. */
bool fx_text_split(FxValue s, const FxValue *sep, FxValue *out, FxError *err);
/* join(xs, sep) of a list of strings. */
bool fx_text_join(FxValue xs, FxValue sep, FxValue *out, FxError *err);
/* chars(s): the list of its code points, each a string. */
FxValue fx_text_chars(FxValue s);
/* reverse(x) of a string (its code points) or a list. */
FxValue fx_text_reverse(FxValue x);
/* upper(s) / lower(s): ASCII letters changed, every other byte kept. */
FxValue fx_text_case(FxValue s, bool upper);
/* trim(s): whitespace removed at both ends. */
FxValue fx_text_trim(FxValue s);
bool fx_text_starts_with(FxValue s, FxValue prefix);
bool fx_text_ends_with(FxValue s, FxValue suffix);
/* find(s, sub): the code-point position of sub's first occurrence, or -1;
 * 0 for an empty sub. */
int64_t fx_text_find(FxValue s, FxValue sub);
/* `sub in s` */
bool fx_text_contains(FxValue s, FxValue sub);
/* replace(s, old, new): every occurrence of old, left to right, without
 * overlaps; an empty old is an error. */
bool fx_text_replace(FxValue s, FxValue old, FxValue with, FxValue *out, FxError *err);

#endif
