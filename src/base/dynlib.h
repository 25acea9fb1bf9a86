/*
 * dynlib.h: a heavy library loaded when first needed (dlopen), so that a
 * command that never uses it never maps it: Z3 (proof/smt.c) and Graphviz
 * (graph/svg.c). A start of `flux run` pays for neither. Plugins, objects
 * of Flux's own build that link such a library, are found the same way.
 */
#ifndef FX_DYNLIB_H
#define FX_DYNLIB_H

#include "base.h"

/* Opens soname and resolves each of the n names into fns. On failure
 * writes why, for the user: "Z3 (libz3.so.4) is not installed: ...", or
 * "... has no Z3_mk_add: ...", and returns false. what names the library
 * in that sentence. */
bool fx_dynlib_load(const char *what, const char *soname, const char *const *names, void **fns,
                    size_t n, char *why, size_t why_len);

/* Where the plugin `name` (an object of Flux's own build, such as
 * libflux_mpi.so) lies: next to the object that holds this code
 * (libflux.so, or the program that links libflux.a), next to the
 * executable, in flux/ beside libflux.so or ../lib/flux/ beside the
 * executable (`make install`), or in the executable's parent (a build's
 * tests/ and bench/ programs). False when none is a file. */
bool fx_dynlib_plugin_path(const char *name, char *out, size_t len);

#endif
