#!/usr/bin/env bash
# The naive interpreter against Lua 5.4 and Python 3 on the same naive
# recursion, fib(N) (default 27), in one run. Each runs RUNS times (default
# 15); the best time of each is compared, since noise only ever adds time.
# Times are of the call alone, measured inside each process: Flux's
# duration_ms, Lua's os.clock, Python's perf_counter. Startup is excluded
# for all three.
#
#   bench/interp.sh [N] [RUNS]      (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-27}
runs=${2:-15}
flux=${FLUX:-build/flux}
command -v lua5.4 >/dev/null || { echo "bench: lua5.4 is missing (scripts/install-deps)"; exit 1; }

best() { sort -g | head -n 1; }
# the naive recursion itself: a store of its own and no mid-run memoization
store=$(mktemp -d); trap 'rm -rf "$store"' EXIT

want=$(python3 bench/fib.py "$n" | cut -d' ' -f1)
# Interleaved, so that all three see the same machine: its speed drifts
# when other work shares it.
flux_t=() lua_t=() py_t=()
for _ in $(seq "$runs"); do
    out=$("$flux" run bench/fib.flux "fib($n)" --json --no-learn --store "$store")
    [[ "$out" == *"\"output\": $want,"* ]] || { echo "bench: flux gave a wrong answer: $out" >&2; exit 1; }
    flux_t+=("$(sed -E 's/.*"duration_ms": ([0-9.]+).*/\1/' <<<"$out" | awk '{print $1 / 1000}')")
    out=$(lua5.4 bench/fib.lua "$n")
    [ "$(cut -f1 <<<"$out")" = "$want" ] || { echo "bench: lua disagrees" >&2; exit 1; }
    lua_t+=("$(cut -f2 <<<"$out")")
    py_t+=("$(python3 bench/fib.py "$n" | cut -d' ' -f2)")
done
flux_s=$(printf '%s\n' "${flux_t[@]}" | best)
lua_s=$(printf '%s\n' "${lua_t[@]}" | best)
py_s=$(printf '%s\n' "${py_t[@]}" | best)

printf 'naive fib(%s) = %s, best of %s runs\n' "$n" "$want" "$runs"
printf '  flux       %8.2f ms\n' "$(awk "BEGIN{print $flux_s * 1000}")"
printf '  lua 5.4    %8.2f ms\n' "$(awk "BEGIN{print $lua_s * 1000}")"
printf '  python 3   %8.2f ms\n' "$(awk "BEGIN{print $py_s * 1000}")"
printf 'ratio flux/lua    %.2f\n' "$(awk "BEGIN{print $flux_s / $lua_s}")"
printf 'ratio flux/python %.2f\n' "$(awk "BEGIN{print $flux_s / $py_s}")"
