/*
 * check_memo.h: the solver's part of a check, remembered (check_memo.c).
 *
 * The checker's solver stage (check_smt.c) is the only costly part of
 * loading a program. What it decides is a function of the program's
 * sources, the check options and the checker's build, so a memo of it,
 * kept under a hash of all three, can stand in for it: each property's
 * verdict and reason, and the diagnostics the solver's checks reported.
 * Where a memo is kept is the caller's (FxCheckOptions.recall).
 */
#ifndef FX_CHECK_MEMO_H
#define FX_CHECK_MEMO_H

#include "program.h"

typedef struct FxCheckMemo FxCheckMemo;

/* The key of prog's sources (every module's name and text, the prelude
 * included) under options and options->salt: 32 hex digits. */
void fx_check_memo_key(const FxProgram *prog, const FxCheckOptions *options, char out[33]);

/* A memo recalled from text when it fits prog (every intent and property
 * in place, every span inside its source), else an empty one to record
 * into. text may be NULL. */
FxCheckMemo *fx_check_memo_new(const FxProgram *prog, const char *text);
bool fx_check_memo_recalled(const FxCheckMemo *m);

/* The solver's part for the index-th intent of the program (counted over
 * its modules in order): replayed from a recalled memo, or run and
 * recorded into an empty one. */
void fx_check_memo_solve(FxCheckMemo *m, FxProgram *prog, size_t index, FxIntent *in,
                         const FxCheckOptions *options);

/* What was recorded, as text to keep (malloc'd), or NULL when there is
 * nothing to keep: the memo was recalled, or a diagnostic could not be
 * recorded. */
char *fx_check_memo_text(const FxCheckMemo *m);

void fx_check_memo_free(FxCheckMemo *m);

#endif
