#!/usr/bin/env bash
# n-body's advance (examples/benchmarks/nbody.flux) in the native tier
# (docs/native.md, "Records"): advance(system(), N) interpreted, then
# native (tcc, then cc -O2), against bench/game/nbody.c (gcc -O2, the
# Benchmarks Game's algorithm: each pair once, where the intent takes every
# ordered pair, so twice the square roots) for N steps.
#
# Flux's times are its duration_ms (native code is loaded before the clock
# starts); C's is the whole process (start, N steps, two energies), best of
# RUNS each, on one machine in one run. Exits 1 when the native value
# differs from the interpreter's or advance does not run natively.
#
#   bench/nbody_native.sh [RUNS] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
n=${2:-100000}
flux=${FLUX:-build/flux}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_EXPLORE=off
nb=examples/benchmarks/nbody.flux
store="$tmp/s"
best() { sort -g | head -n 1; }
ms() { sed -E 's/.*"duration_ms": ([0-9.]+).*/\1/'; }
expr="advance(system(), $n)"
time_flux() { # best of $runs of EXPR, checking the tier named
    local t=() out
    for _ in $(seq "$runs"); do
        out=$("$flux" run "$nb" "$expr" --json --no-learn --store "$store")
        [[ "$out" == *"$1"* ]] || { echo "bench: advance did not run as $1" >&2; exit 1; }
        t+=("$(ms <<<"$out")")
    done
    printf '%s\n' "${t[@]}" | best
}
"$flux" run "$nb" 'advance(system(), 1000)' --no-learn --store "$store" >/dev/null
want=$(FLUX_NATIVE=off "$flux" run "$nb" "$expr" --no-learn --store "$store")
interp=$(FLUX_NATIVE=off time_flux '"output"')
"$flux" optimize "$nb" advance --rule "native code" --store "$store"
tcc_ms=$(time_flux '"native, tcc')
"$flux" optimize "$nb" advance --rule "native code" --store "$store"
cc_ms=$(time_flux '"native, cc')
[ "$("$flux" run "$nb" "$expr" --no-learn --store "$store")" = "$want" ] ||
    { echo "bench: native advance differs from the interpreter" >&2; exit 1; }
gcc -O2 -o "$tmp/nbody" bench/game/nbody.c -lm
c_t=()
for _ in $(seq "$runs"); do
    t0=$(date +%s%N); "$tmp/nbody" "$n" >/dev/null; t1=$(date +%s%N)
    c_t+=("$(awk "BEGIN{print ($t1 - $t0) / 1e6}")")
done
c_ms=$(printf '%s\n' "${c_t[@]}" | best)
printf 'advance(system(), %d), best of %d:\n' "$n" "$runs"
printf '  interpreted        %9.1f ms\n' "$interp"
printf '  native, tcc        %9.1f ms  (%.1fx the interpreter)\n' "$tcc_ms" "$(awk "BEGIN{print $interp / $tcc_ms}")"
printf '  native, cc -O2     %9.1f ms  (%.1fx the interpreter, %.2fx C)\n' "$cc_ms" \
    "$(awk "BEGIN{print $interp / $cc_ms}")" "$(awk "BEGIN{print $cc_ms / $c_ms}")"
printf '  C (gcc -O2), whole %9.1f ms  (bench/game/nbody.c %d)\n' "$c_ms" "$n"
