#!/usr/bin/env bash
# run alone: it times the round's random test
# native_random_stops.sh: the native round's random test stops when more
# tries cannot test more: an intent without parameters (every try is the
# same run), or one whose runs all outlast the test's step budget whatever
# the input. It tried 60000 times, 5000 interpreted steps each: 3 s an
# intent here, minutes under ASan, where the generator's native comparison
# (docs/testing.md) timed out under libFuzzer on `build4()`.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_random_stops: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > p.flux <<'F'
intent heavy(n: Int) -> Int:
    constraints:
        - result = n + sum(i mod 7 for i in 0..20000)

intent heavy0() -> Int:
    constraints:
        - result = sum(i mod 7 for i in 0..20000)
F
export FLUX_EXPLORE=off FLUX_NATIVE_HOT_MS=0
run() { "$FLUX" run p.flux "$@" --no-learn --store s; }
[ "$(run 'heavy(3)')" = 60000 ] || fail "heavy(3)"
[ "$(run 'heavy0()')" = 59997 ] || fail "heavy0()"
start=$(date +%s%N)
out=$("$FLUX" optimize p.flux --rule "native code" --store s)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
for f in heavy heavy0; do
    [[ "$out" == *"$f: native code for v1: tcc "*"on 1 recorded and 0 random inputs"* ]] ||
        fail "$f: $out"
done
[ "$ms" -lt 3000 ] || fail "the round took $ms ms (the random tests did not stop)"
[ "$(run 'heavy(4)' --json | grep -c '"native, tcc')" = 1 ] || fail "heavy(4) did not run native"
[ "$(run 'heavy(4)')" = 60001 ] || fail "heavy(4) native"
exit 0
