#!/usr/bin/env bash
# expr_parse.sh: a list literal of 10^4, 10^5 and 10^6 elements, read by
# `flux run FILE @PATH` (no store written: FLUX_LEARN=off, a fresh store),
# timed whole; parsing, checking and lowering an EXPR are linear, so each
# tenfold step should cost about ten times (it was quadratic: 60,000
# elements took 2.18 s). Medians of 3 runs. `make bench` runs it.
set -euo pipefail
FLUX=${FLUX:-build/flux}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
printf 'intent total(xs: List[Int]) -> Int:\n    constraints:\n        - result = sum(xs[i] for i in 0..len(xs))\n' > "$tmp/s.flux"
prev=
for n in 10000 100000 1000000; do
    python3 -c "print('total([' + ','.join(str(i % 1000) for i in range($n)) + '])')" > "$tmp/e$n"
    ts=()
    for r in 1 2 3; do
        s=$(date +%s%N)
        "$FLUX" run "$tmp/s.flux" "@$tmp/e$n" > /dev/null
        ts+=($(( ($(date +%s%N) - s) / 1000000 )))
    done
    ms=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
    printf 'EXPR list literal of %7d elements (%7d bytes): %5d ms%s\n' "$n" \
        "$(wc -c < "$tmp/e$n")" "$ms" \
        "${prev:+, $(awk -v a="$ms" -v b="$prev" 'BEGIN { printf "%.1f", a / b }')x the tenth}"
    prev=$ms
done
