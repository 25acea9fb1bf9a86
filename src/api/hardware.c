/*
 * hardware.c: the hardware profile kept in the store (hw/remember.c), so
 * that a start reads one row instead of detecting the machine again.
 *
 * The row is the learned table's, kind "hardware", keyed by the build of
 * this library and fx_hw_machine_key (the boot and the CPUs allowed), so a
 * reboot, another cpuset or another flux detects afresh.
 */
#include <stdlib.h>

#include "api_int.h"
#include "hw/hw.h"

static const char KIND[] = "hardware";

void fx_api_hardware_recall(FluxStore *fs)
{
    const char *build = fx_api_build_id();
    if (!fs || !build)
        return;
    FxBuf key = {0}, text = {0};
    fx_buf_printf(&key, "%s ", build);
    fx_hw_machine_key(&key);
    char *kept = NULL;
    FxHardware hw;
    if (fx_store_learned(fs->store, KIND, fx_buf_str(&key), "", &kept, NULL) == FX_OK && kept &&
        fx_hw_decode(kept, &hw)) {
        fx_hw_adopt(&hw);
    } else { /* detected now, kept for the next process */
        hw = fx_hw_detect();
        fx_hw_encode(&hw, &text);
        FxStatus st = fx_store_set_learned(fs->store, KIND, fx_buf_str(&key), "", text.data,
                                           text.len);
        (void)st; /* a store that refuses it costs the next process a detection */
    }
    free(kept);
    fx_buf_free(&key);
    fx_buf_free(&text);
}
