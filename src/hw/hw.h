/*
 * hw.h: the hardware profile Flux plans for: cores and hardware threads,
 * the data caches, NUMA nodes, the architecture and its SIMD features.
 *
 * Topology comes from hwloc, SIMD from CPUID (x86) or the compiler's target
 * macros (aarch64). When hwloc is unusable the profile is read from sysconf
 * and sysfs instead, and whatever stays unknown is 0 (caches) or the safe
 * minimum (1 core, 1 thread, 1 NUMA node). Detection never fails.
 *
 * Invariants of a profile (tests/unit/hw_test.c checks them):
 *   1 <= cores <= threads, numa_nodes >= 1;
 *   a cache size is 0 (unknown) or a multiple of 1 KiB, and the known ones
 *   grow with the level: l1d <= l2 <= l3;
 *   cache_line is 0 (unknown) or a power of two.
 * Cache sizes are of one instance (one core's L1d and L2, one L3 slice
 * group), not the machine's total. They need not be powers of two: Ice Lake
 * has a 48 KiB L1d and a 1.25 MiB L2.
 */
#ifndef FX_HW_H
#define FX_HW_H

#include "base/buf.h"

typedef struct FxHardware {
    unsigned cores;      /* physical cores (>= 1) */
    unsigned threads;    /* hardware threads, hwloc's PUs (>= cores) */
    unsigned numa_nodes; /* >= 1 */
    size_t l1d, l2, l3;  /* bytes, one instance of each; 0 when unknown */
    unsigned cache_line; /* bytes; 0 when unknown */
    char arch[32];       /* uname's machine, "x86_64"; "" when unknown */
    char source[24];     /* where the topology came from: "hwloc, API 2.8.0", "sysfs" */
    /* SIMD the CPU has and the OS saves the registers of (x86: CPUID and XGETBV) */
    bool sse42, avx, avx2, fma, bmi2;
    bool avx512f, avx512dq, avx512bw, avx512vl, avx512vnni;
    bool neon, sve; /* aarch64, from the compiler's target macros */
} FxHardware;

/* The profile of this machine, detected on the first call and cached for the
 * process (thread-safe: pthread_once). Never fails. */
FxHardware fx_hw_detect(void);

/* ---- a profile kept across processes (remember.c) ---- */

/* What the profile of this process depends on, as a key to keep it under:
 * the boot (/proc/sys/kernel/random/boot_id) and the CPUs the process may
 * run on. 16 hex digits. */
void fx_hw_machine_key(FxBuf *out);
/* The profile as one line of text, and back (false when text is not one;
 * the invariants below are enforced on what is read). */
void fx_hw_encode(const FxHardware *hw, FxBuf *out);
bool fx_hw_decode(const char *text, FxHardware *out);
/* Makes hw the process's profile, unless one was detected already. Call
 * it before the threads that detect. */
void fx_hw_adopt(const FxHardware *hw);
/* Enforces the invariants below: what breaks them becomes unknown (0) or
 * the safe minimum. */
void fx_hw_settle(FxHardware *hw);

/* Detects afresh, without the cache; with use_hwloc false, from sysconf and
 * sysfs alone (the fallback path, which the tests exercise). */
FxHardware fx_hw_probe(bool use_hwloc);

/* One short line, the "hardware" of every recorded execution:
 * "2 cores, x86_64, avx512f, avx2" (of the SIMD, only avx512f, avx2, neon). */
void fx_hw_describe(const FxHardware *hw, FxBuf *out);

/* What a cost model fitted here holds for, one line: the architecture,
 * cores and threads, the cache sizes and the SIMD features,
 * "x86_64 2c2t l1d=48K l2=2048K l3=491520K avx avx2 ..." (hw.h's fields,
 * nothing of the moment). The store keys kernels' cost models by it. */
void fx_hw_fingerprint(const FxHardware *hw, FxBuf *out);

/* The SIMD features present, space-separated, widest last:
 * "sse4.2 avx avx2 fma bmi2 avx512f ..."; nothing when none. */
void fx_hw_simd(const FxHardware *hw, FxBuf *out);

/* The profile for `flux hw`: several aligned lines for people, or with json
 * one JSON object and a newline. pool_threads is the size of the thread pool
 * (fx_pool_default_size()). Both end with the devices present (device.h:
 * the "devices" lines, or the "devices" key). */
void fx_hw_report(const FxHardware *hw, unsigned pool_threads, bool json, FxBuf *out);

#endif
