/*
 * hw.h: the hardware profile Flux plans for: cores, architecture, SIMD.
 */
#ifndef FX_HW_H
#define FX_HW_H

#include "base/buf.h"

typedef struct FxHardware {
    unsigned cores;
    char arch[32];
    bool avx2, avx512f, neon;
} FxHardware;

FxHardware fx_hw_detect(void);
/* "2 cores, x86_64, avx2" */
void fx_hw_describe(const FxHardware *hw, FxBuf *out);

#endif
