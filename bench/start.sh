#!/usr/bin/env bash
# A fast start: the whole process of `flux run FILE 'EXPR'` on a warm store
# (the program unchanged since its last check, its versions learned),
# against `lua5.4 -e 'print(1)'` and `/usr/bin/python3 -c 'print(1)'`, each
# run RUNS times (default 31, at least 21), interleaved so that all three
# see the same machine. Each time is a fork and exec from this shell to the
# exit, so all three pay the same overhead; the median of each is printed
# with the ratios. Issue 14's target: flux ≤ 10 ms.
#
#   bench/start.sh [RUNS]      (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-31}
[ "$runs" -ge 21 ] || { echo "bench: at least 21 runs" >&2; exit 2; }
flux=${FLUX:-build/flux}
file=examples/fibonacci.flux expr='fibonacci(10)'
store=$(mktemp -d); trap 'rm -rf "$store"' EXIT

lua=lua5.4
command -v "$lua" >/dev/null || {
    echo "bench: lua5.4 is not installed (scripts/install-deps installs it); flux and python only"
    lua=
}

# Warm: the verdicts kept, the learning rounds done (FLUX_LEARN=wait), so
# that the runs measured start as a user's hundredth run does.
for n in 10 20 40 80 10 10; do
    FLUX_LEARN=wait "$flux" run "$file" "fibonacci($n)" --store "$store" >/dev/null
done
want=$("$flux" run "$file" "$expr" --store "$store")

time_of() { # runs the command: its output into $out, its wall time (ms) into $took
    local t0=$EPOCHREALTIME
    out=$("$@")
    local t1=$EPOCHREALTIME
    took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 1000 }')
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

flux_t=() lua_t=() py_t=()
for _ in $(seq "$runs"); do
    time_of "$flux" run "$file" "$expr" --store "$store"
    [ "$out" = "$want" ] || { echo "bench: flux printed $out, not $want" >&2; exit 1; }
    flux_t+=("$took")
    if [ -n "$lua" ]; then
        time_of "$lua" -e 'print(1)'
        lua_t+=("$took")
    fi
    time_of /usr/bin/python3 -c 'print(1)'
    py_t+=("$took")
done
flux_m=$(printf '%s\n' "${flux_t[@]}" | median)
py_m=$(printf '%s\n' "${py_t[@]}" | median)

printf 'start of a whole process, median of %s runs (warm store, %s %s)\n' "$runs" "$file" "$expr"
printf '  flux run   %8.2f ms   (target: <= 10 ms)\n' "$flux_m"
if [ -n "$lua" ]; then
    lua_m=$(printf '%s\n' "${lua_t[@]}" | median)
    printf '  lua5.4 -e  %8.2f ms\n' "$lua_m"
fi
printf '  python3 -c %8.2f ms\n' "$py_m"
[ -z "$lua" ] || printf 'ratio flux/lua    %.2f\n' "$(awk "BEGIN{print $flux_m / $lua_m}")"
printf 'ratio flux/python %.2f\n' "$(awk "BEGIN{print $flux_m / $py_m}")"
