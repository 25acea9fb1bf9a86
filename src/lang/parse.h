/*
 * parse.h: the recursive-descent parser for .flux files.
 */
#ifndef FX_PARSE_H
#define FX_PARSE_H

#include "ast.h"

/* Parses a whole source into a new module. Syntax errors are reported to d
 * (all of them, one per line at most) and the module holds whatever could be
 * read. Never returns NULL. Caller frees with fx_module_free(). */
FxModule *fx_parse(FxDiag *d, const FxSource *src);

void fx_module_free(FxModule *m);

/* Parses src as one expression (the command line's EXPR), its nodes in
 * arena. Returns NULL after reporting to d when it is not one. */
FxExpr *fx_parse_expression(FxDiag *d, const FxSource *src, FxArena *arena);

#endif
