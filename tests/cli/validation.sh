# Run-time validation (docs/optimizer.md): a rewritten version's output is
# checked against the constraints, and the check is recorded on the
# execution. With the test-only fault switch FLUX_TEST_FAULT=kernel:sort
# (docs/testing.md) the sort kernel's result comes back reversed: the
# failure is caught, the answer printed is still right (v1's), the version
# is rolled back, and the record, explain and history say so. The checks
# that evaluate code (v1 run again, a comprehension's tests) run on the
# sampled calls, within a step budget: FLUX_VALIDATE_SAMPLE decides here.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
unset FLUX_TEST_FAULT FLUX_VALIDATE_SAMPLE
cd "$tmp"
sort="$root/examples/sort.flux"
train() { # a fresh store where `sort` runs the sort kernels (v2)
    rm -rf "$FLUX_STORE"
    python3 -c 'import random; random.seed(7); print("sort(%s)" % [random.randint(-10**6, 10**6) for _ in range(1000)])' > big.expr
    "$FLUX" run "$sort" "$(cat big.expr)" >/dev/null || fail "v1 run"
    out=$("$FLUX" optimize "$sort") || fail "optimize"
    case $out in *"sort: installed v2: sort kernels (proof #"*) ;; *) fail "no sort kernels: $out" ;; esac
}
train

# v2 answers, checked: the two linear checks run on every call
"$FLUX" run "$sort" 'sort([5, -2, 5, 0])' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["graph_version"] == "v2" and r["output"] == [-2, 0, 5, 5], r
d = r["decision_tree"][-1]
assert d["decision"] == "validation checked", d
assert d["reason"].startswith("v2: `result is a permutation of xs`, `result is sorted ascending`"), d' ||
    fail "v2's output is not recorded as checked"
# v1 is never validated: it is the constraints themselves
"$FLUX" run "$sort" 'len(sort([]))' >/dev/null || fail "an empty sort"

# the fault: caught, the answer is v1's, v2 rolled back, the record says so
out=$(FLUX_TEST_FAULT=kernel:sort "$FLUX" run "$sort" 'sort([5, -2, 5, 0])') || fail "run: exit $?"
[ "$out" = "[-2, 0, 5, 5]" ] || fail "a wrong answer was printed: $out"
"$FLUX" traces "$sort" --json --last 1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
assert r["graph_version"] == "v1" and r["output"] == [-2, 0, 5, 5], r
d = r["decision_tree"][-1]
assert d["decision"] == "validation failed", d
assert d["reason"] == ("v2: `result is sorted ascending` fails on [5, 5, 0, -2]: elements 1 and 2 "
                       "are out of order: 5 then 0; `result is a permutation of xs` holds; "
                       "v2 rolled back; the answer is v1'"'"'s"), d' ||
    fail "the record does not say the validation failed"
"$FLUX" history "$sort" | grep -qF '    rolled back: its output failed run-time validation on `sort([5, -2, 5, 0])`: `result is sorted ascending` fails on [5, 5, 0, -2]' ||
    fail "history does not say why: $("$FLUX" history "$sort")"
"$FLUX" proofs "$sort" | grep -q 'rollback for `sort`: accepted' || fail "the rollback is not listed"
# v1 runs from now on, and the rewrite is not proposed again from it
"$FLUX" run "$sort" 'sort([3, 1, 2])' --json | grep -q '"graph_version": "v1"' || fail "v2 still runs"
"$FLUX" run "$sort" "$(cat big.expr)" >/dev/null || fail "v1 run"
"$FLUX" optimize "$sort" | grep -q 'sort kernels does not apply (it was rolled back from this version before)' ||
    fail "the rolled back rewrite was proposed again"

# explain shows it for that execution
train
out=$(FLUX_TEST_FAULT=kernel:sort "$FLUX" explain "$sort" 'sort([5, -2, 5, 0])') || fail "explain: exit $?"
printf '%s\n' "$out" | head -1 | grep -qxF 'sort([5, -2, 5, 0]) = [-2, 0, 5, 5]' || fail "explain printed a wrong answer: $out"
printf '%s\n' "$out" | grep -qF '|- validation: failed at run time: v2: `result is sorted ascending` fails on [5, 5, 0, -2]' ||
    fail "explain does not show the failure: $out"
printf '%s\n' "$out" | grep -qF '|- version: v1 of `sort`' || fail "explain: not v1's answer: $out"
FLUX_TEST_FAULT=kernel:sort "$FLUX" explain "$sort" 'sort([7, 1])' --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["value"] == [1, 7] and d["version"]["label"] == "v1", d
assert "validation" not in d, d' || fail "explain --json after the rollback"

# the sampled checks: v1 run again, and a comprehension's members tested
last() { # FILE EXPR: the last decision of a run on a sampled call
    FLUX_VALIDATE_SAMPLE=always "$FLUX" run "$1" "$2" --json |
        python3 -c 'import json, sys; d = json.load(sys.stdin)["decision_tree"][-1]; print(d["decision"] + ": " + d["reason"])'
}
fib="$root/examples/fibonacci.flux" primes="$root/examples/primes.flux"
"$FLUX" run "$fib" 'fibonacci(20)' >/dev/null && "$FLUX" run "$primes" 'find_primes(5000)[9]' >/dev/null ||
    fail "v1 runs"
"$FLUX" optimize "$fib" | grep -q 'fibonacci: installed v2: memoization' || fail "no fibonacci v2"
"$FLUX" optimize "$primes" | grep -q 'find_primes: installed v2: sieve' || fail "no find_primes v2"
got=$(last "$fib" 'fibonacci(10)')
[ "$got" = "validation checked: v2: the same result as v1 holds" ] || fail "fibonacci(10): $got"
# v1's 10^5 calls are far more than 1/8 of v2's: given up, not failed
got=$(last "$fib" 'fibonacci(25)')
[ "$got" = "validation skipped: v2: not checked: the same result as v1 (did not finish: the steps allowed ran out)" ] ||
    fail "fibonacci(25): $got"
got=$(last "$primes" 'len(find_primes(30))')
[ "$got" = 'validation checked: v2: no repeats in `result contains all primes p where 2 ≤ p ≤ n`, sampled members pass `result contains all primes p where 2 ≤ p ≤ n`, `result is sorted ascending`, the same result as v1 hold' ] ||
    fail "find_primes(30): $got"
got=$(FLUX_VALIDATE_SAMPLE=never "$FLUX" run "$fib" 'fibonacci(10)' --json | grep -o '"validation skipped", "reason": "[^"]*"')
[ "$got" = '"validation skipped", "reason": "v2: not checked: the same result as v1 (evaluated, it runs on 1 call in 64, not this one)"' ] ||
    fail "a call not sampled: $got"
exit 0
