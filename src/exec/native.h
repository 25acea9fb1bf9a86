/*
 * native.h: the native tier in the executor (docs/native.md).
 *
 * cgen.c translates a compiled function's bytecode, instruction for
 * instruction, into C: one C function per Flux function of a module (the
 * function and the functions it calls), with registers typed from the
 * graph (int64, double, bool, records of them as C structs laid out by
 * natrec.h, lists of numbers and of records). Whatever C cannot do exactly
 * as the interpreter does (an integer overflow, a division by a negative
 * number, a NaN compared, a failed equation, a C stack too deep) makes the
 * native code give up ("bail") and the interpreter runs the call instead,
 * from the start: the functions are pure, so nothing is lost but time.
 *
 * The generated code is a shared object; it talks to the VM only through
 * FxNatCtx, whose layout is written once below and pasted into every
 * source (FX_NAT_ABI_DEFS, stringified), so the two cannot disagree.
 *
 *   FxBuf c = {0}, why = {0};
 *   if (fx_native_source(rt, intent, &c, &why))  ... compile c.data, dlopen,
 *   fx_runtime_attach_native(rt, intent, (FxNatEntry)dlsym(h, FX_NAT_ENTRY), "native, cc -O2");
 */
#ifndef FX_NATIVE_H
#define FX_NATIVE_H

#include <stdbool.h>

#include "base/buf.h"
#include "exec/interp.h"

/* The ABI between the VM and generated code. Plain C types only: the
 * generated code includes no header. status: FX_NAT_OK, _BAIL (run it in
 * the interpreter instead) or _STOP (a budget stopped the run: the VM's
 * error says which). */
#define FX_NAT_ABI_DEFS                                                                            \
    typedef struct FxNatList { void *p; long long n; } FxNatList;                                  \
    typedef union FxNatWord { long long i; double f; FxNatList l; } FxNatWord;                     \
    struct FxNatCtx {                                                                              \
        long long fuel;               /* steps before refuel is asked */                           \
        int status;                                                                                \
        /* more fuel, or 0: stopped (status set) */                                                \
        long long (*refuel)(struct FxNatCtx *c);                                                   \
        /* a builder's block resized from old to new bytes (new 0: freed); NULL: stopped */        \
        void *(*grow)(struct FxNatCtx *c, void *p, long long old_bytes, long long new_bytes);      \
        /* the call of kernel callee k on args: the fuel left, or 0: stopped (status set) */      \
        long long (*kernel)(struct FxNatCtx *c, int k, const FxNatWord *args,                     \
                            FxNatWord *out, long long fuel);                                       \
        /* work the program sizes (`++`: its elements), in the meter's units: the fuel left,   \
         * or 0: stopped (status set) */                                                        \
        long long (*work)(struct FxNatCtx *c, long long units, long long fuel);                  \
        /* blocks let go of, charged still, for the next of their size (FX_NEW) */                \
        int n_spare;                                                                               \
        long long spare_bytes[8];                                                                  \
        void *spare[8];                                                                            \
    };
FX_NAT_ABI_DEFS
#define FX_NAT_SPARES 8 /* the length of FxNatCtx's spare arrays */

#define FX_NAT_OK 0
#define FX_NAT_BAIL 1
#define FX_NAT_STOP 2
/* The symbol of a module's entry: its root function on words. Called with
 * c NULL it runs nothing and puts in out->l.p its shape (the module's
 * functions and kernels, by intent), for fx_native_shape_holds. */
#define FX_NAT_ENTRY "fx_native_entry"
typedef int (*FxNatEntry)(struct FxNatCtx *c, const FxNatWord *args, FxNatWord *out);

/* Writes the C module of the intent's running version into *c (appended),
 * or says in *why what it cannot translate (false). The text depends on
 * the graphs alone, so its hash keys the compiled object. FLUX_NATIVE_PLANT
 * =1 plants a miscompile (integer additions off by one now and then), for
 * the test that differential testing catches one. */
bool fx_native_source(FxRuntime *rt, const char *intent, FxBuf *c, FxBuf *why);
/* Does native code hold g's parameter and result types (scalars, records,
 * lists of numbers or of records)? Without them no call of g is native. */
bool fx_native_signature(const FxProgram *prog, const FxGraph *g);

/* Was entry generated for the module root has now? Its code calls
 * kernels by number, and which callees a kernel answers changes within a
 * runtime (runaway protection memoizes one mid-run; a version installed
 * compiles it again): code generated before cannot be attached after. */
bool fx_native_shape_holds(FxFunc *root, FxNatEntry entry);
/* Runs the intent's calls through entry from now on (NULL: never again),
 * where the VM may (no hooks, the module's functions plain); tier says
 * which ("native, cc -O2 ..."), for the record. Returns false for an
 * intent the runtime has not compiled, and for an entry generated for
 * another shape of its module (fx_native_shape_holds): then no code runs
 * its calls. */
bool fx_runtime_attach_native(FxRuntime *rt, const char *intent, FxNatEntry entry,
                              const char *tier);
/* Native code off (false) or on: the differential test's two sides. */
void fx_runtime_set_native(FxRuntime *rt, bool on);

/* Asked once per function, at its first call, for its native code (it
 * calls fx_runtime_attach_native or not). */
typedef struct FxNativeProvider {
    void *ctx;
    void (*attach)(void *ctx, FxRuntime *rt, const char *intent);
} FxNativeProvider;
void fx_runtime_set_native_provider(FxRuntime *rt, const FxNativeProvider *p);

/* Asks the provider for the intent's native code now rather than at its
 * first call (an unknown intent is ignored). */
void fx_runtime_prepare_native(FxRuntime *rt, const char *intent);

/* The tier of the intent's native code, when it has some (asking the
 * provider if it was not asked yet), else NULL. Borrowed. */
const char *fx_runtime_native_of(FxRuntime *rt, const char *intent);

/* The tier of the last run's own call when native code answered it, else
 * NULL (borrowed until the next run). */
const char *fx_runtime_native_tier(const FxRuntime *rt);

#endif
