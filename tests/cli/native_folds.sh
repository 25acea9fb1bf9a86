#!/usr/bin/env bash
# native_folds.sh: min and max folds of several generators in native code
# (docs/native.md). `min(3 for k in A, j in B for x in xs if k = n)` is a
# fold of folds; an inner one whose filter holds for nothing has no value,
# which the interpreter ignores: native code folded its stale register in
# (0 for 3; found by gen_fuzz --native 2, seed 1796668747156). Each is
# compiled and equal to the interpreter, Ints and Floats, min and max.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_folds: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > f.flux <<'F'
intent calc(n: Natural, xs: List[Natural]) -> List[Natural]:
    constraints:
        - for each p in xs: min(3 for k in -2..=len(xs), j in 1..=5 for x in xs if k = n)

intent top(n: Int, xs: List[Int]) -> Int:
    constraints:
        - result = max(x * k for k in 0..4 for x in xs if x > n)

intent low(n: Int, xs: List[Float]) -> Float:
    constraints:
        - result = min(x + k for k in 0..6, j in 0..3 for x in xs if k + j = n)
F
export FLUX_EXPLORE=off FLUX_NATIVE_HOT_MS=0
run() { "$FLUX" run f.flux "$@" --no-learn --store s; }
interp() { FLUX_NATIVE=off "$FLUX" run f.flux "$@" --no-learn --store s; }
tier() { if [[ "$(run "$1" --json)" =~ \"native,\ ([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo interpreted; fi; }
exprs=('calc(6, [5, 114, 23, 75, 1, 101, 4, 1])' 'calc(0, [2, 3])' 'calc(20, [1])'
       'top(3, [1, 5, 2, 9])' 'top(-1, [0, 0])' 'low(4, [2.5, -1.0, 7.25])' 'low(1, [0.5])')
for e in "${exprs[@]}"; do run "$e" >/dev/null 2>&1 || true; done
for i in calc top low; do
    out=$("$FLUX" optimize f.flux $i --rule "native code" --store s)
    [[ "$out" == "$i: native code for v1: tcc "*"equal to the interpreter on "* ]] || fail "$i: $out"
done
for e in "${exprs[@]}"; do
    # (an empty min gives the call back: the interpreter's error)
    if interp "$e" >/dev/null 2>&1; then [ "$(tier "$e")" = tcc ] || fail "$e does not run natively"; fi
    [ "$(run "$e" 2>&1)" = "$(interp "$e" 2>&1)" ] || fail "$e: native $(run "$e" 2>&1), interpreted $(interp "$e" 2>&1)"
done
[ "$(run 'calc(6, [5, 114, 23, 75, 1, 101, 4, 1])')" = "[3, 3, 3, 3, 3, 3, 3, 3]" ] || fail "calc"
echo "native_folds: ${#exprs[@]} calls equal to the interpreter, natively"
