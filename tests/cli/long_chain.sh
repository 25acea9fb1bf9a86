#!/usr/bin/env bash
# long_chain.sh: a chain of 12,000 intents, each calling the next, runs (it
# checked, then crashed `flux run` with SIGSEGV: compiling an intent
# compiled its callees inside it, 12,000 compiles deep on the C stack), and
# recording its run does not take time cubic in the intents (each callee
# asked every intent for its calls, each found by a linear search).
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "long_chain: $*"; exit 1; }
cd "$tmp"
python3 - <<'P'
n = 12000
with open("chain.flux", "w") as f:
    for i in range(n):
        body = f"c{i + 1}(x) + 1" if i + 1 < n else "x"
        f.write(f"intent c{i}(x: Int) -> Int:\n    constraints:\n        - result = {body}\n\n")
P
"$FLUX" check chain.flux || fail "check"
out=$(FLUX_LEARN=off timeout 60 "$FLUX" run chain.flux 'c0(1)' --store s) || fail "run: exit $?"
[ "$out" = 12000 ] || fail "c0(1) = $out"
out=$(FLUX_LEARN=off timeout 60 "$FLUX" run chain.flux 'c11990(5)' --store s) || fail "run: exit $?"
[ "$out" = 14 ] || fail "c11990(5) = $out"
echo ok
