#!/usr/bin/env bash
# native_uncovered.sh: an intent whose equations may not cover a call (a
# `when` guard with no otherwise) becomes native code, and an uncovered
# call gives the interpreter's error. Found by the generator's native
# comparison (docs/testing.md, "The native tier against the interpreter"):
# the C read the failure's register, which nothing writes, in the dead code
# after the jump out, without declaring it, so tcc refused every such
# intent ("'r10' undeclared") and it stayed interpreted.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_uncovered: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > p.flux <<'F'
intent f(n: Int) -> Int:
    constraints:
        - result = n + 1 when n > 0 and (exists q in 3..18: q > n)
F
export FLUX_EXPLORE=off FLUX_NATIVE_HOT_MS=0
run() { "$FLUX" run p.flux "$@" --no-learn --store s; }
[ "$(run 'f(4)')" = 5 ] || fail "f(4) interpreted"
for tier in tcc cc; do
    out=$("$FLUX" optimize p.flux f --rule "native code" --store s)
    [[ "$out" == "f: native code for v1: $tier "*"equal to the interpreter"* ]] ||
        fail "promotion to $tier: $out"
    json=$(run 'f(5)' --json)
    [[ "$json" == *"\"native, $tier"* ]] || fail "f(5) did not run on $tier"
    [ "$(run 'f(5)')" = 6 ] || fail "f(5) on $tier"
    # uncovered: the interpreter's message, exit 1
    set +e
    err=$(run 'f(-3)' 2>&1)
    rc=$?
    set -e
    [ $rc = 1 ] || fail "f(-3) on $tier: exit $rc"
    [[ "$err" == *"no equation of \`f\` covers the call f(-3)"* ]] || fail "f(-3) on $tier: $err"
done

# the failure's register moved into a list's: declared as a list (the
# generator's seed 1796646955964: tcc refused "cannot convert 'long long'
# to 'struct FxNatList'")
cat > q.flux <<'F'
intent pick(n: Int, xs: List[Natural]) -> List[Int]:
    constraints:
        - pick(n, xs) = xs when not true
        - pick(n, xs) = [3] when true
F
"$FLUX" run q.flux 'pick(1, [0, 8])' --no-learn --store s2 >/dev/null
out=$("$FLUX" optimize q.flux pick --rule "native code" --store s2)
[[ "$out" == "pick: native code for v1: tcc "*"equal to the interpreter"* ]] || fail "pick: $out"
[ "$("$FLUX" run q.flux 'pick(2, [1])' --no-learn --store s2)" = "[3]" ] || fail "pick(2, [1])"
exit 0
