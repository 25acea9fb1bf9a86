#!/usr/bin/env bash
# The issue-14 reproduction, with several seeds: fibonacci trained on 11
# growing calls and 40 random ones in 500..3000, then called three times at
# n = 10^6, each call a `flux run` as a user runs it (FLUX_LEARN=wait, so
# each round finishes before the next run). Each 10^6 call's time is
# compared with the matrix power's own time on the same call (forced, not
# recorded). Goal: every call within 2x of the power.
#
#   bench/runaway.sh [SEEDS]      (make bench; default 3 seeds)
set -euo pipefail
cd "$(dirname "$0")/.."
flux=${FLUX:-build/flux}
seeds=${1:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ms() { sed -E 's/.*"duration_ms": ([0-9.]+).*/\1/'; }
worst=0 fails=0
for seed in $(seq 1 "$seeds"); do
    S=$tmp/s$seed
    RANDOM=$seed
    f() { FLUX_LEARN=wait "$flux" run examples/fibonacci.flux "fibonacci($1)" --store "$S" --json; }
    for i in $(seq 1 11); do f $((i * i * 10)) >/dev/null; done
    for i in $(seq 1 40); do f $((500 + RANDOM % 2500)) >/dev/null; done
    line="seed $seed: fibonacci(10^6):"
    for i in 1 2 3; do
        t=$(f 1000000 | ms)
        p=$("$flux" run examples/fibonacci.flux 'fibonacci(1000000)' --store "$S" --variant power --json | ms)
        r=$(awk -v t="$t" -v p="$p" 'BEGIN { printf "%.2f", t / p }')
        line="$line ${t} ms (power ${p} ms, ${r}x)"
        awk -v r="$r" 'BEGIN { exit !(r > 2) }' && fails=$((fails + 1))
        worst=$(awk -v a="$worst" -v b="$r" 'BEGIN { print (b > a ? b : a) }')
    done
    echo "runaway: $line"
done
echo "runaway: worst 10^6 call ${worst}x the power's time over $seeds seeds ($((seeds * 3)) calls): $([ $fails = 0 ] && echo PASS || echo "FAIL, $fails over 2x") (goal <= 2x)"
