/*
 * types.h: checked types: construction, compatibility, and their names.
 *
 * Types are small arena values compared structurally. Two rules keep the
 * checker quiet where a careful user would expect it to be: Natural and Int
 * mix freely (a Natural parameter given a negative value is a run-time error
 * naming the parameter, as the language reference says), and an integer is
 * accepted where a Float is expected. FX_TY_ERROR (already reported) and
 * FX_TY_ANY (the element of `[]`) are compatible with everything, so one
 * mistake produces one message.
 */
#ifndef FX_TYPES_H
#define FX_TYPES_H

#include "ast.h"
#include "base/buf.h"

FxType *fx_type_new(FxArena *a, FxTypeKind kind);
FxType *fx_type_list(FxArena *a, FxType *elem);

bool fx_type_is_int(const FxType *t);     /* Natural or Int (or error/any) */
bool fx_type_is_numeric(const FxType *t); /* integer or Float */
bool fx_type_is_ordered(const FxType *t); /* numeric or String */
bool fx_type_is_collection(const FxType *t); /* List or Stream */
bool fx_type_is_scalar(const FxType *t);
bool fx_type_is_error(const FxType *t);   /* error or any: don't report again */

/* May a value of type `from` be used where `to` is expected? */
bool fx_type_assignable(const FxType *from, const FxType *to);

/* The type of `if c then a else b` / of a list holding both, or NULL when
 * they don't mix. */
FxType *fx_type_join(FxArena *a, FxType *x, FxType *y);

/* "List[Natural]", "Matrix[M, K, Int]", "User". */
void fx_type_print(const FxType *t, FxBuf *out);
/* The same into a new string; caller frees. */
char *fx_type_name(const FxType *t);

#endif
