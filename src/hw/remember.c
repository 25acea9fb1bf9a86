/*
 * remember.c: a hardware profile kept across processes (hw.h).
 *
 * Detecting the profile loads hwloc's topology: a few hundred sysfs reads,
 * and on x86 the process is moved onto each CPU in turn to run CPUID
 * there, which on a busy machine waits for each CPU; milliseconds of every
 * start. The profile cannot change while the machine runs with the same
 * CPUs allowed, so the API keeps it in the store under fx_hw_machine_key
 * and hands it back with fx_hw_adopt.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "hw.h"

void fx_hw_machine_key(FxBuf *out)
{
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof(boot), f))
            boot[0] = '\0';
        fclose(f);
    }
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
        CPU_ZERO(&cpus);
    uint64_t h = fx_fnv1a(FX_FNV_BASIS, boot, strlen(boot));
    h = fx_fnv1a(h, &cpus, sizeof(cpus));
    fx_buf_printf(out, "%016llx", (unsigned long long)h);
}

/* The SIMD flags in a fixed order, for the text. */
#define SIMD_FLAGS(X)                                                                              \
    X(sse42) X(avx) X(avx2) X(fma) X(bmi2) X(avx512f) X(avx512dq) X(avx512bw) X(avx512vl)          \
    X(avx512vnni) X(neon) X(sve)

void fx_hw_encode(const FxHardware *hw, FxBuf *out)
{
    unsigned simd = 0, bit = 0;
#define BIT(f) simd |= (unsigned)hw->f << bit++;
    SIMD_FLAGS(BIT)
#undef BIT
    fx_buf_printf(out, "1 %u %u %u %zu %zu %zu %u %x %s|%s", hw->cores, hw->threads,
                  hw->numa_nodes, hw->l1d, hw->l2, hw->l3, hw->cache_line, simd,
                  hw->arch[0] ? hw->arch : "-", hw->source);
}

bool fx_hw_decode(const char *text, FxHardware *out)
{
    FxHardware hw = {0};
    unsigned simd = 0, bit = 0;
    int at = 0;
    char arch[sizeof(hw.arch)];
    if (sscanf(text, "1 %u %u %u %zu %zu %zu %u %x %31[^|]|%n", &hw.cores, &hw.threads,
               &hw.numa_nodes, &hw.l1d, &hw.l2, &hw.l3, &hw.cache_line, &simd, arch, &at) != 9 ||
        !at || strlen(text + at) >= sizeof(hw.source))
        return false;
    snprintf(hw.arch, sizeof(hw.arch), "%s", strcmp(arch, "-") ? arch : "");
    snprintf(hw.source, sizeof(hw.source), "%s", text + at);
#define FLAG(f) hw.f = (simd >> bit++) & 1;
    SIMD_FLAGS(FLAG)
#undef FLAG
    fx_hw_settle(&hw);
    *out = hw;
    return true;
}
