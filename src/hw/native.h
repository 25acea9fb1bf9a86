/*
 * native.h: the compilers of the native tier and its cache of objects
 * (docs/native.md). The C comes from exec/cgen.c; here it becomes a
 * shared object in the store's `native` folder, and an object becomes a
 * function pointer again in a later process.
 *
 * Two tiers, one source: FX_CODE_FAST compiles with tcc (about 15 ms, code
 * about 3x slower than gcc's) for a function's first promotion, and
 * FX_CODE_OPT with `cc -O2 -march=native` (150-250 ms) once it stays hot.
 * An object is named by the hash of its source, the compiler (its path,
 * size and time stamp) with its flags, and the machine's fingerprint, and
 * loaded only when the MAC recorded when it was built, made with this
 * user's key (base/mac.h, kept outside every store), holds for its bytes:
 * a corrupt, stale, planted or foreign object is never run.
 *
 *   FxNativeObject o;
 *   if (fx_native_build(FX_CODE_FAST, src, dir, hw, &o, err, sizeof(err)))
 *       entry = fx_native_load(&o, err, sizeof(err));
 */
#ifndef FX_HW_NATIVE_H
#define FX_HW_NATIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"

typedef enum { FX_CODE_FAST, FX_CODE_OPT, FX_CODE__COUNT } FxCodeTier;

typedef struct FxNativeObject {
    FxCodeTier tier;
    char key[40];        /* hash of source, compiler, flags and machine: the file's name */
    char path[512];      /* DIR/KEY.so */
    char object_mac[65]; /* of the object's bytes with this user's key (base/mac.h) */
    double compile_ms;
    char compiler[160];  /* "tcc -shared", "cc -O2 -march=native ..." */
} FxNativeObject;

/* The compiler of a tier on this machine (its path in *path), or false
 * with the reason ("no tcc on PATH"). FLUX_NATIVE=off: none at all. */
bool fx_native_compiler(FxCodeTier tier, char *path, size_t len, char *why, size_t why_len);
/* The object a tier would build from src on this machine: o's key, path
 * and compiler set (nothing built, nothing read). False when the tier has
 * no compiler here. */
bool fx_native_plan(FxCodeTier tier, const char *src, const char *dir, const char *machine,
                    FxNativeObject *o, char *why, size_t why_len);
/* Builds o (planned) from src into its path (written whole, then renamed
 * into place), setting compile_ms and object_mac; false with the
 * compiler's first lines of complaint. */
bool fx_native_build(FxNativeObject *o, const char *src, char *why, size_t why_len);
/* Is o's object there, and does o->object_mac hold for its bytes? Reads
 * it, opens nothing; why says what is wrong. */
typedef enum { FX_NATIVE_OURS, FX_NATIVE_MISSING, FX_NATIVE_FOREIGN } FxNativeHolds;
FxNativeHolds fx_native_holds(const FxNativeObject *o, char *why, size_t why_len);
/* The entry of o's object once o->object_mac holds for its bytes, else
 * NULL with why ("missing", "not built by this user's flux"). Objects stay loaded
 * for the process's life. */
void *fx_native_load(const FxNativeObject *o, const char *symbol, char *why, size_t why_len);
/* The line of `flux hw` about the native tier: the compilers found. */
void fx_native_report(bool json, FxBuf *out);

const char *fx_tier_name(FxCodeTier t); /* "tcc", "cc -O2" */

#endif
