/*
 * data.h: loading `data` sources: CSV files with a header, and SQLite
 * tables (`"file.db:table"`), into a list of records typed by the declared
 * record type.
 */
#ifndef FX_DATA_H
#define FX_DATA_H

#include "exec/value.h"
#include "lang/ast.h"

/* Loads the source of dd (its resolved_path, relative to the declaring
 * file) into a new list of records. On failure returns FX_ERR_RUNTIME with
 * a message in why naming the file, the line and the column or field. */
FxStatus fx_data_load(const FxDataDecl *dd, FxValue *out, char *why, size_t why_len) FX_MUST_CHECK;

#endif
