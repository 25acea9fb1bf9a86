# `flux optimize`: a recorded run is the evidence; memoization is proposed,
# proved and installed as v2; later runs use v2 (a budget the naive
# recursion cannot meet proves it), and explain/history say where it came
# from. Rules match structure: a two-parameter recursion written here gets
# the same treatment, and an intent that does not call itself keeps v1.
set -u
# rounds on demand only: no learning round after each run
export FLUX_LEARN=off
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store"
fib="$root/examples/fibonacci.flux"

out=$("$FLUX" optimize "$fib") || fail "optimize with no runs: exit $?"
case $out in *"v1 stays: no recorded run"*) ;; *) fail "no runs: $out" ;; esac

"$FLUX" run "$fib" 'fibonacci(20)' >/dev/null || fail "run"
"$FLUX" run "$fib" 'fibonacci(90)' --max-steps 60000 >/dev/null 2>&1 &&
    fail "naive fibonacci(90) met a budget of 60000 steps"
out=$("$FLUX" optimize "$fib") || fail "optimize: exit $?"
case $out in *"fibonacci: installed v2: memoization (proof #"*) ;; *) fail "install: $out" ;; esac
got=$("$FLUX" run "$fib" 'fibonacci(100)' --max-steps 60000) || fail "v2 run: exit $?"
[ "$got" = 354224848179261915075 ] || fail "fibonacci(100) = $got"
"$FLUX" explain "$fib" 'fibonacci(10)' | grep -q 'v2 of `fibonacci`: made from v1 by the memoization rewrite' ||
    fail "explain does not name v2's origin"
"$FLUX" history "$fib" | grep -q 'fibonacci v2 .*' || fail "history lacks v2"
"$FLUX" proofs "$fib" | grep -q 'memoization for `fibonacci`: accepted' || fail "proofs lacks the proposal"
"$FLUX" run "$fib" 'fibonacci(30)' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["graph_version"] == "v2" and r["optimizations_applied"] == ["memoization"], r
assert r["proof_ids"] == [r["decision_tree"][0]["proof_id"]] and r["proof_ids"][0] > 0, r
assert r["verified"].startswith("by proof #"), r' || fail "run --json does not describe v2"
"$FLUX" graph "$fib" fibonacci | head -n 1 | grep -q '^graph fibonacci v2 .*\[kernel memo\]' ||
    fail "graph does not show v2"
"$FLUX" graph "$fib" fibonacci --version v1 | head -n 1 | grep -q '^graph fibonacci v1 ' ||
    fail "graph --version v1"
"$FLUX" graph "$fib" fibonacci --version v3 2>/dev/null; [ $? = 2 ] || fail "graph v3: not exit 2"
# The next round goes one step further: the recurrence, certified and
# proved, computed by a loop; the matrix power is not worth it at n <= 100.
out=$("$FLUX" optimize "$fib")
case $out in *"fibonacci: installed v3: recursion to iteration (proof #"*) ;; *) fail "second round: $out" ;; esac
out=$("$FLUX" optimize "$fib")
case $out in *"v3 stays: "*"matrix power does not apply (at the largest n seen, 100, "*) ;; *) fail "third round: $out" ;; esac
"$FLUX" graph "$fib" fibonacci | sed -n 2p | grep -q 'fibonacci(n) = fibonacci(n-1) + fibonacci(n-2) for n >= 2; fibonacci(0) = 0, fibonacci(1) = 1; variants loop$' ||
    fail "graph does not show the certificate: $("$FLUX" graph "$fib" fibonacci | sed -n 2p)"

cat > "$tmp/grid.flux" <<'FLUX'
intent lattice(r: Natural, c: Natural) -> Natural:
    constraints:
        - lattice(0, c) = 1
        - lattice(r, 0) = 1
        - lattice(r, c) = lattice(r-1, c) + lattice(r, c-1)
FLUX
"$FLUX" run "$tmp/grid.flux" 'lattice(6, 7)' >/dev/null || fail "lattice run"
out=$("$FLUX" optimize "$tmp/grid.flux" lattice)
case $out in *"lattice: installed v2"*) ;; *) fail "lattice: $out" ;; esac
got=$("$FLUX" run "$tmp/grid.flux" 'lattice(40, 40)' --max-steps 60000) || fail "lattice v2"
[ "$got" = 107507208733336176461620 ] || fail "lattice(40, 40) = $got"

# Memoization over a String parameter: the candidate is the same graph
# under a table, proved by identity (no solver needed), and an EXPR with
# quotes still makes valid JSON evidence.
cat > "$tmp/s.flux" <<'FLUX'
intent tally(s: String, n: Natural) -> Natural:
    constraints:
        - tally(s, 0) = len(s)
        - tally(s, 1) = len(s)
        - tally(s, n) = tally(s, n-1) + tally(s, n-2)
FLUX
"$FLUX" run "$tmp/s.flux" 'tally("a\"b", 12)' --no-learn >/dev/null || fail "tally run"
out=$("$FLUX" optimize "$tmp/s.flux")
case $out in *'tally: installed v2: memoization (proof #'*'"expr": "tally(\"a\\\"b\", 12)"'*) ;; *) fail "tally: $out" ;; esac
[ "$("$FLUX" run "$tmp/s.flux" 'tally("xy", 100)' --no-learn)" = 1146295688027634168202 ] ||
    fail "tally v2"

# A wrong guess is refuted, recorded with the counterexample, never
# installed: glitch's first values follow fibonacci's recurrence, but not
# at n = 40, which only the prover looks at.
cat > "$tmp/g.flux" <<'FLUX'
intent glitch(n: Natural) -> Natural:
    constraints:
        - glitch(0) = 0
        - glitch(1) = 1
        - glitch(n) = glitch(n-1) + glitch(n-2) + (if n = 40 then 1 else 0)
FLUX
"$FLUX" run "$tmp/g.flux" 'glitch(12)' >/dev/null || fail "glitch run"
"$FLUX" optimize "$tmp/g.flux" | grep -q 'glitch: installed v2: memoization' || fail "glitch memo"
out=$("$FLUX" optimize "$tmp/g.flux")
case $out in
*"glitch: rejected v3: recursion to iteration (proof #"*"at n = 40, when glitch(n - 1) = "*"the equations give "*"but the certificate's recurrence "*) ;;
*) fail "glitch: $out" ;;
esac
"$FLUX" history "$tmp/g.flux" | grep -q 'glitch v3' && fail "a refuted rewrite was installed"
"$FLUX" proofs "$tmp/g.flux" | grep -q 'recursion to iteration for `glitch`: rejected' ||
    fail "the refuted proposal is not listed"
[ "$("$FLUX" run "$tmp/g.flux" 'glitch(45)')" = 1134903178 ] || fail "glitch(45) is wrong"

"$FLUX" run "$root/examples/sort.flux" 'sort([3, 1, 2])' >/dev/null || fail "sort run"
out=$("$FLUX" optimize "$root/examples/sort.flux")
case $out in *"v1 stays: "*"memoization does not apply (the intent does not call itself)"*) ;; *) fail "sort: $out" ;; esac
"$FLUX" optimize "$fib" nosuch 2>/dev/null; [ $? = 2 ] || fail "unknown intent: not exit 2"
# a file of imports only has nothing of its own to optimize (found/014)
printf 'import "%s"\n' "$fib" > "$tmp/imports.flux"
out=$("$FLUX" optimize "$tmp/imports.flux" 2>&1) || fail "imports only: exit $?: $out"
case $out in "no intent of its own in this file to optimize"*) ;; *) fail "imports only: $out" ;; esac
exit 0
