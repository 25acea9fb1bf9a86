# run alone: it times a run
# The living loop, through the CLI: runs on growing inputs, with learning
# after each run, take linear recurrences of order 2 to 4 (different
# coefficients, base cases and ways of writing them) from the naive graph
# to memoization, to a loop, to the matrix power, within 100 runs; every
# answer on the way is exact; every version in the store has a proof that
# the prover accepted and that z3 confirms from its stored SMT-LIB. Then
# the default mode: learning in a detached process, which the run does not
# wait for.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=wait
cd "$tmp"

cat > rec.flux <<'FLUX'
intent pell(n: Natural) -> Int:
    constraints:
        - pell(0) = 2
        - pell(1) = -3
        - pell(n) = 2 * pell(n-1) + 3 * pell(n-2)

intent trib(n: Natural) -> Natural:
    constraints:
        - trib(0) = 0
        - trib(1) = 0
        - trib(2) = 1
        - trib(n) = trib(n-3) + trib(n-2) + trib(n-1)

intent padovan(n: Natural) -> Natural:
    constraints:
        - padovan(0) = 1
        - padovan(1) = 1
        - padovan(2) = 1
        - padovan(n) = padovan(n-2) + padovan(n-3)

intent quad(n: Natural) -> Int:
    constraints:
        - quad(0) = 1
        - quad(1) = 0
        - quad(2) = -1
        - quad(3) = 5
        - quad(n) = (quad(n-1) - 2 * quad(n-2)) + quad(n-3) + quad(n-4) * 3
FLUX
cp "$root/examples/fibonacci.flux" fib.flux

# reference values, by a loop in Python
ref() { # FN N
    python3 - "$1" "$2" <<'PY'
import sys
sys.set_int_max_str_digits(0)
spec = {"fibonacci": ([1, 1], [0, 1]), "pell": ([2, 3], [2, -3]),
        "trib": ([1, 1, 1], [0, 0, 1]), "padovan": ([0, 1, 1], [1, 1, 1]),
        "quad": ([1, -2, 1, 3], [1, 0, -1, 5])}
c, f = spec[sys.argv[1]]
n, f = int(sys.argv[2]), list(f)
while len(f) <= n:
    f.append(sum(c[j] * f[-1 - j] for j in range(len(c))))
print(f[n])
PY
}

for fn in fibonacci pell trib padovan quad; do
    file=rec.flux; [ $fn = fibonacci ] && file=fib.flux
    runs=0
    for i in $(seq 1 100); do
        n=$((10 * i))
        got=$("$FLUX" run $file "$fn($n)") || fail "$fn($n): exit $?"
        runs=$i
        if [ $((i % 7)) = 1 ]; then
            [ "$got" = "$(ref $fn $n)" ] || fail "$fn($n) = $got, not $(ref $fn $n)"
        fi
        "$FLUX" history $file $fn | grep -q 'rewrite matrix power' && break
    done
    hist=$("$FLUX" history $file $fn)
    printf '%s\n' "$hist" | grep -q 'rewrite matrix power' || fail "$fn: no matrix power after 100 runs: $hist"
    # memoization comes first where the first run shows repeated work
    # (fibonacci(10): 177 calls, 11 distinct; padovan(10) makes too few calls)
    rules='recursion to iteration'
    [ $fn = fibonacci ] && rules="memoization|$rules"
    IFS='|'; for rule in $rules; do
        printf '%s\n' "$hist" | grep -q "rewrite $rule, proof [0-9]" || fail "$fn: no $rule: $hist"
    done; unset IFS
    echo "$fn: matrix power installed after $runs runs"
    # the evolved version: exact far beyond the naive graph's reach
    got=$("$FLUX" run $file "$fn(5000)" --json | python3 -c '
import json, sys
sys.set_int_max_str_digits(0)
r = json.load(sys.stdin)
d = [x["decision"] for x in r["decision_tree"]]
assert d[1] == "variant power", d
print(r["output"])') || fail "$fn(5000): the power variant was not chosen"
    [ "$got" = "$(ref $fn 5000)" ] || fail "$fn(5000) is wrong"
    "$FLUX" explain $file "$fn(4000)" | grep -q 'variant power: matrix power chosen: n = 4000, predicted .* ms against .* ms for the loop' ||
        fail "$fn: explain does not give the variant's reason"
done
# exploration: a run's own call may take the variant predicted slower (one
# run in 16), so that its model stays true, but only where that is predicted
# to cost little: within 2x of the best and at most 5 ms more
explored=
for n in 20 50 100 200 400 800; do
    FLUX_EXPLORE=always "$FLUX" explain fib.flux "fibonacci($n)" |
        grep -q "explored (one run in 16, predicted regret small): n = $n, predicted" && explored=$n
done
[ -n "$explored" ] || fail "no exploration at small n"
FLUX_EXPLORE=always "$FLUX" explain fib.flux 'fibonacci(300000)' | grep -q 'variant power: matrix power chosen: n = 300000' ||
    fail "explored the loop at n = 300000: $(FLUX_EXPLORE=always "$FLUX" explain fib.flux 'fibonacci(300000)' | grep variant)"

# Every version in the store has a proof: the proof says proved, and z3
# answers unsat to every stored obligation.
out=$("$root/tools/check-proofs.sh" fib.flux rec.flux) || fail "$out"
set -- $out # "N versions, M proofs checked": every version but the five v1 has a proof
[ $# = 5 ] && [ "$3" = $(($1 - 5)) ] && [ "$1" -ge 15 ] || fail "proof walk: $out"

# --verbose: the version that ran, and what learning did, on stderr; stdout
# keeps the value alone.
export FLUX_STORE="$tmp/verbose"
out=$("$FLUX" run fib.flux 'fibonacci(20)' --verbose 2>err) || fail "verbose run"
[ "$out" = 6765 ] || fail "verbose stdout: $out"
grep -q '^flux: fibonacci v1, [0-9.]* ms$' err || fail "verbose note: $(cat err)"
grep -q '^fibonacci: installed v2: memoization' err || fail "verbose learning: $(cat err)"
"$FLUX" run fib.flux 'fibonacci(20)' --verbose --quiet 2>err >/dev/null
[ -s err ] && fail "--quiet still printed: $(cat err)"

# Background learning: the run prints and exits; a detached process learns.
unset FLUX_LEARN
export FLUX_STORE="$tmp/bg"
start=$(date +%s%N)
"$FLUX" run fib.flux 'fibonacci(24)' >/dev/null || fail "background run"
for _ in $(seq 1 100); do
    "$FLUX" history fib.flux | grep -q 'fibonacci v2' && break
    sleep 0.1
done
"$FLUX" history fib.flux | grep -q 'fibonacci v2 .*' || fail "no round ran in the background"
"$FLUX" run fib.flux 'fibonacci(30)' --no-learn --json | grep -q '"graph_version": "v2"' ||
    fail "the next run does not use v2"

# A burst of runs at once: each learner counts the records as they stood at
# its own run, and waits for the round in progress, so the burst learns
# (v2), and not once per run: a run that started after v2 was installed may
# add v3, nothing more.
export FLUX_STORE="$tmp/burst"
for n in 21 22 23 24 25 26 27 28; do "$FLUX" run fib.flux "fibonacci($n)" >/dev/null & done
wait
for _ in $(seq 1 100); do
    "$FLUX" history fib.flux | grep -q 'fibonacci v2' && break
    sleep 0.1
done
sleep 1 # the other learners finish: none may install a version from the old one
"$FLUX" history fib.flux | grep -q 'fibonacci v2 .*' || fail "a burst of runs learned nothing"
versions=$("$FLUX" history fib.flux | grep -c '^fibonacci v')
[ "$versions" -le 3 ] || fail "the burst learned once per run: $("$FLUX" history fib.flux)"
"$root/tools/check-proofs.sh" fib.flux >/dev/null || fail "a burst's version has no proof"
exit 0
