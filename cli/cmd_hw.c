/*
 * cmd_hw.c: `flux hw [--json]`.
 *
 * Prints the hardware profile Flux plans for (src/hw/hw.h): cores and
 * hardware threads, the data caches, NUMA nodes, SIMD, the size of the
 * thread pool, the one-line summary recorded with every execution, and the
 * devices kernels run on (src/hw/device.h).
 * It holds no logic of its own: flux_hw_report (include/flux.h) writes it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flux.h"

static const char usage[] =
        "usage: flux hw [--json]\n"
        "\n"
        "Prints the hardware profile Flux plans for: physical cores and hardware\n"
        "threads, the L1d, L2 and L3 cache sizes and the line size, NUMA nodes,\n"
        "the SIMD extensions, the size of the thread pool, the one-line summary\n"
        "recorded as the \"hardware\" of every execution, and the devices kernels\n"
        "run on (the CPU, through the thread pool), a line each.\n"
        "\n"
        "  --json   one JSON object: cores, threads, numa_nodes, caches {l1d, l2,\n"
        "           l3, line} (bytes, null when unknown), simd, arch, pool_threads,\n"
        "           source, hardware, devices [{id, name, units, memory, what}]\n";

int fx_cmd_hw(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (a[0] == '-') {
            return fx_cli_usage_error("hw", "unknown option `%s`", a);
        } else {
            return fx_cli_usage_error("hw", "unexpected argument `%s`", a);
        }
    }
    flux_hw_report(json, stdout);
    return 0;
}
