/*
 * fuzz_parse.c: libFuzzer target for the front end.
 *
 * Each input is taken as the text of one .flux file: it is parsed, then
 * loaded as a whole program and checked (names, types, constraint forms;
 * the Z3 stage only when FLUX_FUZZ_SMT is set, since it is slow), the
 * diagnostics are rendered (to /dev/null, so the renderer's position and
 * caret code is fuzzed too), and everything is freed, so that LeakSanitizer
 * sees any leak. Built and run by tests/fuzz/run-fuzz.sh (`make fuzz`).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"
#include "lang/parse.h"
#include "lang/program.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;
static FxCheckOptions options = {.skip_smt = true, .smt_timeout_ms = 200};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    options.skip_smt = getenv("FLUX_FUZZ_SMT") == NULL;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FxDiag d = {0};
    FxSource *src = fx_diag_add_source(&d, "fuzz.flux", (const char *)data, size);
    FxModule *m = src ? fx_parse(&d, src) : NULL;

    FxDiag checked = {0};
    FxProgram *prog = fx_program_load_text(&checked, "fuzz.flux", (const char *)data, size,
                                           &options);
    if (devnull)
        fx_diag_render(&checked, devnull);
    fx_program_free(prog);
    fx_diag_free(&checked);

    if (devnull) {
        fx_diag_render(&d, devnull);
        fflush(devnull);
    }
    if (m)
        fx_module_free(m);
    fx_diag_free(&d);
    return 0;
}
