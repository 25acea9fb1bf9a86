# Forced runs (FluxRunOptions.version and .variant, `flux run --version vN
# --variant NAME`): the version and the kernel variant asked are the ones
# that run, the record's decision says "forced by the caller", nothing is
# recorded, and an unknown variant or version is a usage error that says why.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=wait FLUX_EXPLORE=off
root=$(cd "$(dirname "$0")/../.." && pwd)
fib="$root/examples/fibonacci.flux"
for n in 10 20 30 40 100 300 1000 3000 10000; do
    "$FLUX" run "$fib" "fibonacci($n)" >/dev/null || fail "training run $n"
done
"$FLUX" history "$fib" | grep -q '^fibonacci v4 .*' || fail "no v4: $("$FLUX" history "$fib")"
"$FLUX" history "$fib" | grep -A1 '^fibonacci v4 ' | grep -q 'matrix power' || fail "v4 is not the power"
runs=$("$FLUX" traces "$fib" --json | wc -l)
want=$("$FLUX" run "$fib" 'fibonacci(5000)' --no-learn)
runs=$((runs + 1))

# decision: the list of [decision, reason] pairs of a --json record
decisions() { python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["execution_id"] is None, "a forced run was recorded"
print(r["graph_version"])
for d in r["decision_tree"]:
    print(d["decision"] + " | " + d["reason"])'; }
for variant in loop power; do
    out=$("$FLUX" run "$fib" 'fibonacci(5000)' --version v4 --variant $variant --json | decisions) ||
        fail "--variant $variant: $out"
    echo "$out" | head -1 | grep -qx v4 || fail "--variant $variant ran $(echo "$out" | head -1)"
    echo "$out" | grep -q "^variant $variant | forced by the caller: n = 5000$" ||
        fail "--variant $variant: the decision does not say forced: $out"
    got=$("$FLUX" run "$fib" 'fibonacci(5000)' --variant $variant) || fail "--variant $variant alone"
    [ "$got" = "$want" ] || fail "--variant $variant: a different answer"
done
out=$("$FLUX" run "$fib" 'fibonacci(5000)' --version v1 --json | decisions) || fail "--version v1: $out"
echo "$out" | head -1 | grep -qx v1 || fail "--version v1 ran $(echo "$out" | head -1)"
echo "$out" | grep -q '^version v1 of `fibonacci` | forced by the caller' || fail "v1 not forced: $out"
out=$("$FLUX" run "$fib" 'fibonacci(5000)' --version v3 --json | decisions) || fail "--version v3: $out"
echo "$out" | grep -q '^version v3 of `fibonacci` | forced by the caller: made from v2 by the recursion to iteration rewrite' ||
    fail "v3 not forced: $out"
[ "$("$FLUX" traces "$fib" --json | wc -l)" = "$runs" ] || fail "forced runs were recorded"

# the errors: exit 2 and a reason
err() { # WANT_MESSAGE ARGS...: exit 2 with the message on stderr
    local want=$1; shift
    "$FLUX" run "$fib" 'fibonacci(50)' "$@" >/dev/null 2>"$tmp/err.txt"; local rc=$?
    [ $rc = 2 ] || fail "$*: exit $rc, not 2"
    grep -qF "$want" "$tmp/err.txt" || fail "$*: $(cat "$tmp/err.txt")"
}
err 'flux: the store has no usable version v9 of `fibonacci`' --version v9
err 'flux: no kernel has a variant `nosuch`; the variants are loop, power, insertion, pdq, radix, parallel, vqsort, trial, eratosthenes, segmented' --variant nosuch
err 'flux: no kernel this run reached has the variant `power` (it reached no kernel with a choice of variants)' --version v3 --variant power
err 'flux: no kernel this run reached has the variant `radix` (the variants of those it reached: loop, power)' --variant radix
"$FLUX" run "$fib" '1 + 2' --version v2 >/dev/null 2>"$tmp/err.txt"; [ $? = 2 ] || fail "no intent called: not exit 2"
grep -q 'this EXPR calls none' "$tmp/err.txt" || fail "no intent called: $(cat "$tmp/err.txt")"

# the sort kernels and the sieve: the same mechanism
sort="$root/examples/sort.flux" primes="$root/examples/primes.flux"
"$FLUX" run "$sort" "sort([$(seq -s ', ' 400 -1 1)])" >/dev/null || fail "sort training"
"$FLUX" history "$sort" | grep -q 'rewrite sort kernels' || fail "no sort kernels"
for kernel in insertion pdq radix parallel vqsort; do
    out=$("$FLUX" run "$sort" 'sort([5, -2, 5, 0, 9])' --variant $kernel --json | decisions) ||
        fail "sort --variant $kernel: $out"
    echo "$out" | grep -q "^sort kernel $kernel | forced by the caller, n = 5$" ||
        fail "sort --variant $kernel: $out"
done
"$FLUX" run "$primes" 'find_primes(5000)' >/dev/null || fail "primes training"
"$FLUX" history "$primes" | grep -q 'rewrite sieve' || fail "no sieve: $("$FLUX" history "$primes")"
for sieve in trial eratosthenes segmented; do
    out=$("$FLUX" run "$primes" 'len(find_primes(3000))' --variant $sieve --json | decisions) ||
        fail "--variant $sieve: $out"
    echo "$out" | grep -q "^sieve $sieve | forced by the caller, \[2, 3001) on [0-9]* threads*$" ||
        fail "--variant $sieve: $out"
    [ "$("$FLUX" run "$primes" 'len(find_primes(3000))' --variant $sieve)" = 430 ] || fail "$sieve: wrong count"
done
exit 0
