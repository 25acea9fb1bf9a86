/*
 * detect.c: what machine this is, read from the OS and the CPU itself
 * (sysconf for online cores, uname for the architecture, the compiler's
 * CPUID wrapper for SIMD).
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hw.h"

FxHardware fx_hw_detect(void)
{
    FxHardware hw = {0};
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    hw.cores = n > 0 ? (unsigned)n : 1;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(hw.arch, sizeof(hw.arch), "%.31s", u.machine);
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    hw.avx2 = __builtin_cpu_supports("avx2");
    hw.avx512f = __builtin_cpu_supports("avx512f");
#elif defined(__aarch64__)
    hw.neon = true;
#endif
    return hw;
}

void fx_hw_describe(const FxHardware *hw, FxBuf *out)
{
    fx_buf_printf(out, "%u core%s, %s", hw->cores, hw->cores == 1 ? "" : "s",
                  hw->arch[0] ? hw->arch : "unknown");
    if (hw->avx512f)
        fx_buf_puts(out, ", avx512f");
    if (hw->avx2)
        fx_buf_puts(out, ", avx2");
    if (hw->neon)
        fx_buf_puts(out, ", neon");
}
