/*
 * detect.c: what machine this is, read from the OS and the CPU itself.
 *
 * DESIGN
 * The profile has three sources, each allowed to fail:
 *   1. hwloc (the topology library of Open MPI) counts cores, hardware
 *      threads (PUs) and NUMA nodes, and reads the first L1d, L2 and L3
 *      cache objects for their size and line size. hwloc honours the
 *      process's cpuset, so in a container restricted to 4 CPUs it says 4.
 *   2. sysconf and sysfs fill in whatever hwloc did not give: the online
 *      CPUs, the siblings of cpu0 (hardware threads per core), the caches
 *      of cpu0 (/sys/devices/system/cpu/cpu0/cache/index* /{level,type,size})
 *      and the NUMA nodes (/sys/devices/system/node/node*).
 *   3. The CPU: CPUID for the SIMD extensions on x86, checked against XGETBV
 *      so that a feature counts only when the OS also saves its registers
 *      (AVX-512 in a VM whose hypervisor hides the ZMM state is no use).
 *      aarch64 has no user-mode CPUID: the compiler's target macros say what
 *      this binary may use.
 * fx_hw_settle() then enforces the invariants of hw.h, turning a value that
 * breaks them into "unknown" (0) or the safe minimum rather than keeping it:
 * a wrong cache size is worse than none for a cost model.
 *
 * Detection runs once a process (pthread_once); fx_hw_detect hands out
 * copies of the cached profile. fx_hw_probe detects afresh, for the tests.
 */
#include <ctype.h>
#include <dirent.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "hw/native.h"
#include "device.h"
#include "hw.h"
#include "setup.h"

/* ---- 1. hwloc ---------------------------------------------------------- */

/* The size and line of the first cache object of type t, if any. */
static void hwloc_cache(hwloc_topology_t topo, hwloc_obj_type_t t, size_t *out_size,
                        unsigned *out_line)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, t, 0);
    if (!o || !o->attr)
        return;
    *out_size = (size_t)o->attr->cache.size;
    if (!*out_line && o->attr->cache.linesize > 0)
        *out_line = o->attr->cache.linesize;
}

/* Counts of one type; 0 when hwloc has none or spreads them over levels. */
static unsigned hwloc_count(hwloc_topology_t topo, hwloc_obj_type_t t)
{
    int n = hwloc_get_nbobjs_by_type(topo, t);
    return n > 0 ? (unsigned)n : 0;
}

static bool from_hwloc(FxHardware *hw)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return false;
    // instruction caches and I/O devices are of no use here and cost time
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return false;
    }
    hw->threads = hwloc_count(topo, HWLOC_OBJ_PU);
    hw->cores = hwloc_count(topo, HWLOC_OBJ_CORE);
    hw->numa_nodes = hwloc_count(topo, HWLOC_OBJ_NUMANODE);
    hwloc_cache(topo, HWLOC_OBJ_L1CACHE, &hw->l1d, &hw->cache_line);
    hwloc_cache(topo, HWLOC_OBJ_L2CACHE, &hw->l2, &hw->cache_line);
    hwloc_cache(topo, HWLOC_OBJ_L3CACHE, &hw->l3, &hw->cache_line);
    hwloc_topology_destroy(topo);

    unsigned v = hwloc_get_api_version(); // the library loaded, 0x00020900
    snprintf(hw->source, sizeof(hw->source), "hwloc, API %u.%u.%u", (v >> 16) & 0xff,
             (v >> 8) & 0xff, v & 0xff);
    return hw->threads > 0;
}

/* ---- 2. sysconf and sysfs ---------------------------------------------- */

/* The first line of a small file, without its newline; false if unreadable. */
static bool read_line(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok;
}

/* "48K", "2M", "1024": bytes; 0 when malformed. */
static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': n <<= 10; break;
    case 'M': n <<= 20; break;
    case 'G': n <<= 30; break;
    case '\0': break;
    default: return 0;
    }
    return (size_t)n;
}

/* The number of CPUs in a sysfs list, "0-3,8,10-11" (8 here); 0 if malformed. */
static unsigned count_cpu_list(const char *s)
{
    unsigned n = 0;
    while (*s) {
        char *end;
        unsigned long lo = strtoul(s, &end, 10), hi = lo;
        if (end == s)
            return 0;
        if (*end == '-') {
            s = end + 1;
            hi = strtoul(s, &end, 10);
            if (end == s || hi < lo)
                return 0;
        }
        n += (unsigned)(hi - lo + 1);
        s = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return 0;
    }
    return n;
}

/* cpu0's data and unified caches, for the levels still unknown. */
static void sysfs_caches(FxHardware *hw)
{
    for (int i = 0; i < 16; i++) {
        char path[96], level[16], type[32], size[32], line[16];
        const char *dir = "/sys/devices/system/cpu/cpu0/cache/index";
        snprintf(path, sizeof(path), "%s%d/level", dir, i);
        if (!read_line(path, level, sizeof(level)))
            break;
        snprintf(path, sizeof(path), "%s%d/type", dir, i);
        if (!read_line(path, type, sizeof(type)) || !strcmp(type, "Instruction"))
            continue;
        snprintf(path, sizeof(path), "%s%d/size", dir, i);
        size_t bytes = read_line(path, size, sizeof(size)) ? parse_size(size) : 0;
        size_t *slot = !strcmp(level, "1")   ? &hw->l1d
                       : !strcmp(level, "2") ? &hw->l2
                       : !strcmp(level, "3") ? &hw->l3
                                             : NULL;
        if (slot && !*slot)
            *slot = bytes;
        snprintf(path, sizeof(path), "%s%d/coherency_line_size", dir, i);
        if (!hw->cache_line && read_line(path, line, sizeof(line)))
            hw->cache_line = (unsigned)strtoul(line, NULL, 10);
    }
}

static unsigned sysfs_numa_nodes(void)
{
    DIR *d = opendir("/sys/devices/system/node");
    if (!d)
        return 0;
    unsigned n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4]))
            n++;
    closedir(d);
    return n;
}

/* Fills every field hwloc left unknown. */
static void from_sysfs(FxHardware *hw)
{
    if (!hw->threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        hw->threads = n > 0 ? (unsigned)n : 1;
        snprintf(hw->source, sizeof(hw->source), "sysfs");
    }
    if (!hw->cores) {
        char list[256];
        unsigned per_core = 0;
        if (read_line("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", list,
                      sizeof(list)))
            per_core = count_cpu_list(list);
        hw->cores = per_core ? hw->threads / per_core : hw->threads;
    }
    if (!hw->numa_nodes)
        hw->numa_nodes = sysfs_numa_nodes();
    if (!hw->l1d || !hw->l2 || !hw->l3 || !hw->cache_line)
        sysfs_caches(hw);
}

/* ---- 3. the CPU -------------------------------------------------------- */

#if defined(__x86_64__) || defined(__i386__)
static const char simd_source[] = "CPUID";

/* XCR0: which register states the OS saves on a context switch. */
static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void detect_simd(FxHardware *hw)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(1, 0, &a, &b, &c, &d))
        return;
    hw->sse42 = c & (1u << 20);
    uint64_t xcr0 = (c & (1u << 27)) ? xgetbv0() : 0; // bit 27: OSXSAVE
    bool ymm = (xcr0 & 0x06) == 0x06;                 // SSE and AVX state
    bool zmm = (xcr0 & 0xe6) == 0xe6;                 // and opmask, ZMM_Hi256, Hi16_ZMM
    hw->avx = ymm && (c & (1u << 28));
    hw->fma = ymm && (c & (1u << 12));
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return;
    hw->avx2 = ymm && (b & (1u << 5));
    hw->bmi2 = b & (1u << 8);
    hw->avx512f = zmm && (b & (1u << 16));
    hw->avx512dq = zmm && (b & (1u << 17));
    hw->avx512bw = zmm && (b & (1u << 30));
    hw->avx512vl = zmm && (b & (1u << 31));
    hw->avx512vnni = zmm && (c & (1u << 11));
}
#else
static const char simd_source[] = "the compiler's target";

static void detect_simd(FxHardware *hw)
{
#if defined(__aarch64__) || defined(__ARM_NEON)
    hw->neon = true;
#endif
#if defined(__ARM_FEATURE_SVE)
    hw->sve = true;
#endif
    (void)hw;
}
#endif

/* ---- the profile ------------------------------------------------------- */

static bool is_pow2(size_t n)
{
    return n && !(n & (n - 1));
}

void fx_hw_settle(FxHardware *hw)
{
    if (!hw->threads)
        hw->threads = 1;
    if (!hw->cores || hw->cores > hw->threads)
        hw->cores = hw->threads;
    if (!hw->numa_nodes)
        hw->numa_nodes = 1;
    if (!is_pow2(hw->cache_line) || hw->cache_line > 4096)
        hw->cache_line = 0;
    size_t *level[] = {&hw->l1d, &hw->l2, &hw->l3};
    size_t below = 0;
    for (size_t i = 0; i < FX_ARRAY_LEN(level); i++) {
        if (*level[i] % 1024 || *level[i] < below)
            *level[i] = 0;
        if (*level[i])
            below = *level[i];
    }
}

FxHardware fx_hw_probe(bool use_hwloc)
{
    FxHardware hw = {0};
    if (!use_hwloc || !from_hwloc(&hw)) {
        memset(&hw, 0, sizeof(hw)); // nothing half-read from a failed hwloc
    }
    from_sysfs(&hw);
    struct utsname u;
    if (uname(&u) == 0) {
        // keep the name printable as JSON and in one line without escaping
        size_t n = 0;
        for (const char *p = u.machine; *p && n + 1 < sizeof(hw.arch); p++)
            if (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.')
                hw.arch[n++] = *p;
        hw.arch[n] = '\0';
    }
    detect_simd(&hw);
    fx_hw_settle(&hw);
    return hw;
}

static FxHardware cached;
/* fx_hw_adopt's profile while it runs (one adopter at a time); a thread
 * that detects meanwhile may take it: its owner waits in pthread_once */
static _Atomic(const FxHardware *) adopted;
static pthread_mutex_t adopting = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t cached_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    const FxHardware *hw = atomic_load(&adopted);
    if (hw) {
        cached = *hw;
        return;
    }
    double t0 = fx_setup_clock_ms();
    cached = fx_hw_probe(true);
    fx_setup_charge(t0); /* hwloc's topology: milliseconds, once */
}

void fx_hw_adopt(const FxHardware *hw)
{
    pthread_mutex_lock(&adopting);
    atomic_store(&adopted, hw);
    pthread_once(&cached_once, detect_once);
    atomic_store(&adopted, NULL);
    pthread_mutex_unlock(&adopting);
}

FxHardware fx_hw_detect(void)
{
    pthread_once(&cached_once, detect_once);
    return cached;
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

/* ORDER: narrowest first, as fx_hw_simd promises. */
static size_t simd_names(const FxHardware *hw, const char *out[16])
{
    const struct {
        const char *name;
        bool on;
    } f[] = {
            {"sse4.2", hw->sse42},       {"avx", hw->avx},           {"avx2", hw->avx2},
            {"fma", hw->fma},            {"bmi2", hw->bmi2},         {"avx512f", hw->avx512f},
            {"avx512dq", hw->avx512dq},  {"avx512bw", hw->avx512bw}, {"avx512vl", hw->avx512vl},
            {"avx512vnni", hw->avx512vnni}, {"neon", hw->neon},      {"sve", hw->sve},
    };
    size_t n = 0;
    for (size_t i = 0; i < FX_ARRAY_LEN(f); i++)
        if (f[i].on)
            out[n++] = f[i].name;
    return n;
}

void fx_hw_simd(const FxHardware *hw, FxBuf *out)
{
    const char *names[16];
    size_t n = simd_names(hw, names);
    for (size_t i = 0; i < n; i++)
        fx_buf_printf(out, "%s%s", i ? " " : "", names[i]);
}

/* 49152 -> "48 KiB", 1310720 -> "1.25 MiB", 0 -> "unknown". */
static void put_size(FxBuf *out, size_t bytes)
{
    if (!bytes) {
        fx_buf_puts(out, "unknown");
        return;
    }
    const char *unit[] = {"B", "KiB", "MiB", "GiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < FX_ARRAY_LEN(unit)) {
        v /= 1024;
        u++;
    }
    fx_buf_printf(out, "%.4g %s", v, unit[u]);
}

static void put_json_size(FxBuf *out, const char *key, size_t bytes, bool last)
{
    if (bytes)
        fx_buf_printf(out, "\"%s\": %zu%s", key, bytes, last ? "" : ", ");
    else
        fx_buf_printf(out, "\"%s\": null%s", key, last ? "" : ", ");
}

static void report_json(const FxHardware *hw, unsigned pool_threads, FxBuf *out)
{
    // arch and source hold no character that JSON must escape (see fx_hw_probe)
    fx_buf_printf(out, "{\"cores\": %u, \"threads\": %u, \"numa_nodes\": %u, \"caches\": {",
                  hw->cores, hw->threads, hw->numa_nodes);
    put_json_size(out, "l1d", hw->l1d, false);
    put_json_size(out, "l2", hw->l2, false);
    put_json_size(out, "l3", hw->l3, false);
    put_json_size(out, "line", hw->cache_line, true);
    fx_buf_puts(out, "}, \"simd\": [");
    const char *names[16];
    size_t n = simd_names(hw, names);
    for (size_t i = 0; i < n; i++)
        fx_buf_printf(out, "%s\"%s\"", i ? ", " : "", names[i]);
    fx_buf_printf(out, "], \"arch\": \"%s\", \"pool_threads\": %u, \"source\": \"%s\", "
                       "\"hardware\": \"",
                  hw->arch, pool_threads, hw->source);
    fx_hw_describe(hw, out);
    fx_buf_puts(out, "\", \"devices\": ");
    fx_device_report(true, out);
    fx_buf_puts(out, ", \"native\": [");
    fx_native_report(true, out);
    fx_buf_puts(out, "]}\n");
}

void fx_hw_fingerprint(const FxHardware *hw, FxBuf *out)
{
    fx_buf_printf(out, "%s %uc%ut l1d=%zuK l2=%zuK l3=%zuK", hw->arch[0] ? hw->arch : "unknown",
                  hw->cores, hw->threads, hw->l1d >> 10, hw->l2 >> 10, hw->l3 >> 10);
    FxBuf simd = {0};
    fx_hw_simd(hw, &simd);
    if (simd.len)
        fx_buf_printf(out, " %s", fx_buf_str(&simd));
    fx_buf_free(&simd);
}

void fx_hw_report(const FxHardware *hw, unsigned pool_threads, bool json, FxBuf *out)
{
    if (json) {
        report_json(hw, pool_threads, out);
        return;
    }
    fx_buf_printf(out, "cores     %u physical, %u hardware thread%s\n", hw->cores, hw->threads,
                  hw->threads == 1 ? "" : "s");
    fx_buf_puts(out, "caches    L1d ");
    put_size(out, hw->l1d);
    fx_buf_puts(out, ", L2 ");
    put_size(out, hw->l2);
    fx_buf_puts(out, ", L3 ");
    put_size(out, hw->l3);
    if (hw->cache_line)
        fx_buf_printf(out, "; %u-byte lines", hw->cache_line);
    fx_buf_printf(out, "\nnuma      %u node%s\nsimd      ", hw->numa_nodes,
                  hw->numa_nodes == 1 ? "" : "s");
    size_t before = out->len;
    fx_hw_simd(hw, out);
    if (out->len == before)
        fx_buf_puts(out, "none");
    fx_buf_printf(out, "\narch      %s\npool      %u thread%s (the caller and %u worker%s)\n",
                  hw->arch[0] ? hw->arch : "unknown", pool_threads, pool_threads == 1 ? "" : "s",
                  pool_threads - 1, pool_threads == 2 ? "" : "s");
    fx_buf_printf(out, "source    %s; SIMD from %s\nrecorded  \"", hw->source, simd_source);
    fx_hw_describe(hw, out);
    fx_buf_puts(out, "\"\n");
    fx_device_report(false, out);
    fx_native_report(false, out);
}
