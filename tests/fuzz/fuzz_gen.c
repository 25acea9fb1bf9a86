/*
 * fuzz_gen.c: libFuzzer target for the whole pipeline, structure-aware.
 *
 * An input is not program text but the generator's decisions
 * (tests/fuzz/gen.h): gen_source_bytes() reads one or two bytes per
 * decision, so every input is a well-typed program, and libFuzzer's
 * coverage feedback steers which productions, types and values come up.
 * The program goes through check, lower and run by gen_run(), the same
 * harness as the standalone build/tests/gen_fuzz; a finding prints the
 * program and why, then aborts so that libFuzzer keeps the input (replay
 * it with `build/fuzz/fuzz_gen ARTIFACT`, which prints the program again).
 *
 * Environment:
 *   FLUX_GEN_AVOID  auto (default): avoid the known bugs whose reproducers
 *                   in FLUX_GEN_FOUND (default tests/fuzz/found) still
 *                   fail; all; none; or a number (GEN_KNOWN_* bits).
 *   FLUX_GEN_PRINT  set: print every program (with a replayed artifact).
 *   FLUX_GEN_FEATURES  GEN_FEAT_* bits: forms being added, off by default.
 *   FLUX_GEN_NATIVE  N: one input in N (by a hash of its bytes) also runs
 *                   its calls as native code and compares them with the
 *                   interpreter's answers (GenRunOptions.native); default
 *                   4, 0 for none.
 * Built and run by tests/fuzz/run-fuzz.sh (`make fuzz`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/flux-fuzz-gen-XXXXXX";
static GenOptions options;
static bool print_all;
static unsigned long native_every = 4;

/* FNV-1a of the input: which inputs go through the native comparison. */
static uint64_t input_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!mkdtemp(dir)) {
        perror("fuzz_gen: mkdtemp");
        exit(2);
    }
    const char *avoid = getenv("FLUX_GEN_AVOID");
    const char *found = getenv("FLUX_GEN_FOUND");
    if (!avoid || !*avoid || strcmp(avoid, "auto") == 0)
        options.avoid = gen_probe_found(found ? found : "tests/fuzz/found", stderr);
    else if (strcmp(avoid, "all") == 0)
        options.avoid = GEN_KNOWN_ALL;
    else if (strcmp(avoid, "none") != 0)
        options.avoid = (unsigned)strtoul(avoid, NULL, 0);
    fprintf(stderr, "fuzz_gen: programs in %s; the known bugs avoided: 0x%x\n", dir,
            options.avoid);
    print_all = getenv("FLUX_GEN_PRINT") != NULL;
    const char *features = getenv("FLUX_GEN_FEATURES");
    if (features)
        options.features = (unsigned)strtoul(features, NULL, 0);
    const char *native = getenv("FLUX_GEN_NATIVE");
    if (native && *native)
        native_every = strtoul(native, NULL, 10);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GenSource src;
    GenProgram p;
    gen_source_bytes(&src, data, size);
    gen_program(&src, &options, &p);
    if (print_all)
        gen_program_print(&p, stderr);
    // libFuzzer stops an input after -timeout seconds: half a second a run
    GenRunOptions ro = {.max_steps = 1000000, .max_memory_mb = 512, .max_seconds = 0.5,
                        .native = native_every && input_hash(data, size) % native_every == 0};
    GenStats st = {0};
    char why[8192];
    if (gen_run(&p, dir, &ro, &st, why, sizeof(why))) {
        if (!print_all)
            gen_program_print(&p, stderr);
        fprintf(stderr, "fuzz_gen: FOUND: %s\n", why);
        abort();
    }
    char path[4096];
    for (size_t i = 0; i < p.n_files; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, p.files[i].name);
        unlink(path);
    }
    gen_program_free(&p);
    return 0;
}
