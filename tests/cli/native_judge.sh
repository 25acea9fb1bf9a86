#!/usr/bin/env bash
# run alone: timings decide what it sees
# native_judge.sh: native code is used only when it is no slower than the
# interpreter (docs/native.md, "Judged against the interpreter"). A wrapper
# over an exponential recursion answers in a few ms interpreted, runaway
# protection switching the recursion to a table mid-run; compiled, the
# wrapper's module runs the recursion naively, 30x slower or more. Both
# tiers are equal to the interpreter, and neither is used: the runs stay
# interpreted, as fast as before, with the reason kept. And a version that
# only adds a hot-input table keeps its parent's native code for the rest.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_judge: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > p.flux <<'F'
intent slow(n: Natural) -> Natural:
    constraints:
        - slow(0) = 1
        - slow(1) = 1
        - slow(n) = slow(n - 1) + slow(n - 2) + 1

intent wrap(n: Natural) -> Natural:
    constraints:
        - result = slow(n) mod 1000 + 1
F
export FLUX_NATIVE_JUDGE=on
[ "$(FLUX_LEARN=off "$FLUX" run p.flux 'wrap(34)' --store s)" = 930 ] || fail "wrap(34) is not 930"
for tier in tcc cc; do
    out=$("$FLUX" optimize p.flux wrap --rule "native code" --store s)
    echo "$out" | grep -Eq "^wrap: native code for v1 \\($tier .*\\) not used: equal to the interpreter on [0-9]+ recorded and [0-9]+ random inputs, but measured slower than the interpreter: [0-9.e+]+ ms against [0-9.e+]+ ms on \`wrap\\(34\\)\`" ||
        fail "the $tier object was not refused as slower: $out"
done
out=$(FLUX_LEARN=off "$FLUX" run p.flux 'wrap(34)' --store s --json)
echo "$out" | grep -q '"native code"' && fail "a slower object ran: $out"
echo "$out" | grep -q '"output": 930' || fail "wrap(34) printed $out"
# with the timing off (the test suite's setting) the same objects are used
FLUX_NATIVE_JUDGE=off "$FLUX" optimize p.flux wrap --rule "native code" --store t >/dev/null 2>&1 || true
FLUX_LEARN=off "$FLUX" run p.flux 'wrap(30)' --store t >/dev/null
out=$(FLUX_NATIVE_JUDGE=off "$FLUX" optimize p.flux wrap --rule "native code" --store t)
echo "$out" | grep -q '^wrap: native code for v1: tcc' || fail "without the timing tcc was not used: $out"

# a version that only adds a table to its parent's code keeps its parent's
# native code: the table answers the hot input, the code the others
cat > h.flux <<'F'
intent hits(n: Natural) -> Natural:
    constraints:
        - result = count(x for x in 0..n if x mod 7 = 3 or x mod 11 = 5)
F
for _ in 1 2 3 4; do
    [ "$(FLUX_NATIVE_JUDGE=off FLUX_LEARN=wait "$FLUX" run h.flux 'hits(300000)' --store h)" = 66234 ] ||
        fail "hits(300000) is not 66234"
done
"$FLUX" history h.flux --store h | grep -A1 '^hits v2' | grep -q 'rewrite hot inputs' ||
    fail "hits has no hot-input version: $("$FLUX" history h.flux --store h)"
out=$(FLUX_LEARN=off "$FLUX" run h.flux 'hits(300000)' --store h --json)
echo "$out" | grep -q '"hot-input table"' || fail "the hot input was not answered by the table: $out"
out=$(FLUX_LEARN=off "$FLUX" run h.flux 'hits(299999)' --store h --json)
echo "$out" | grep -q '"decision": "native code"' || fail "an unseen input did not run v1's native code: $out"
echo "$out" | grep -q '"output": 66234' || fail "hits(299999): $out"
# a table's answers take microseconds, yet the code under it is hot: when
# the table came before cc -O2 (a helper inlined first, then tcc, then the
# table), a later round still makes the code cc -O2, from the lineage's runs
cat > m.flux <<'F'
intent mix(i: Natural) -> Natural:
    constraints:
        - result = (i * i) mod 7 * (i mod 3) + i div 5

intent mixed(n: Natural) -> Natural:
    constraints:
        - result = sum(mix(i) for i in 0..n)
F
for _ in 1 2 3; do
    FLUX_NATIVE_JUDGE=off FLUX_LEARN=wait "$FLUX" run m.flux 'mixed(300000)' --store m >/dev/null
done
"$FLUX" history m.flux --store m | grep -q 'rewrite hot inputs' ||
    fail "mixed has no hot-input version: $("$FLUX" history m.flux --store m)"
FLUX_NATIVE_JUDGE=off "$FLUX" optimize m.flux mixed --store m >/dev/null
out=$(FLUX_LEARN=off "$FLUX" run m.flux 'mixed(299999)' --store m --json)
echo "$out" | grep -q '"reason": "native, cc -O2' || fail "mixed's code did not reach cc -O2: $out"
echo ok
