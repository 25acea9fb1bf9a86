# Runaway protection: on a fresh store, a recursion that repeats work is
# switched to its table mid-run, so exponential recursions of any shape
# answer exactly within a small step budget (naive fibonacci(1000) would need
# ~10^209 calls); the switch is recorded with its evidence. A recursion
# without repeated work is left alone.
set -u
# runaway protection on a fresh store, run after run: no round installs a
# memoized version in between
export FLUX_LEARN=off
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store"
cat > "$tmp/r.flux" <<'FLUX'
intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n-1) + fib(n-2)

intent paths(r: Natural, c: Natural) -> Natural:
    constraints:
        - paths(0, c) = 1
        - paths(r, 0) = 1
        - paths(r, c) = paths(r-1, c) + paths(r, c-1)

intent trib(n: Natural) -> Int:
    constraints:
        - trib(0) = 2
        - trib(1) = -1
        - trib(2) = 3
        - trib(n) = 2 * trib(n-1) - trib(n-2) + 5 * trib(n-3)

intent ack(m: Natural, n: Natural) -> Natural:
    constraints:
        - ack(0, n) = n + 1
        - ack(m, 0) = ack(m - 1, 1) when m > 0
        - ack(m, n) = ack(m - 1, ack(m, n - 1)) when m > 0 and n > 0

intent total(n: Natural) -> Natural:
    constraints:
        - total(0) = 0
        - total(n) = total(n-1) + n
FLUX
expect() { # EXPR VALUE
    got=$("$FLUX" run "$tmp/r.flux" "$1" --max-steps 300000) || fail "$1: exit $?"
    [ "$got" = "$2" ] || fail "$1 = $got, not $2"
}
expect 'fib(1000)' "$(python3 -c '
a, b = 0, 1
for _ in range(1000): a, b = b, a + b
print(a)')"
expect 'paths(30, 30)' "$(python3 -c 'import math; print(math.comb(60, 30))')"
expect 'trib(200)' "$(python3 -c '
t = [2, -1, 3]
while len(t) <= 200: t.append(2 * t[-1] - t[-2] + 5 * t[-3])
print(t[200])')"
# Ackermann's repeats are thousands of calls apart (naive ack(4, 1) makes
# ~2.8 * 10^9 calls): the sample spread over the window sees them
expect 'ack(4, 1)' 65533
"$FLUX" run "$tmp/r.flux" 'ack(3, 10)' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["output"] == 8189, r
d = [x for x in r["decision_tree"] if x["decision"] == "runaway protection"]
assert d and "one hash slice in 64, over 32768 calls" in d[0]["reason"], r' || fail "ack: not switched"
"$FLUX" run "$tmp/r.flux" 'fib(40)' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = [x for x in r["decision_tree"] if x["decision"] == "runaway protection"]
assert d and "memoized `fib` mid-run" in d[0]["reason"], r
assert "memoization, switched on mid-run" in r["optimizations_applied"], r' ||
    fail "the switch is not recorded"
"$FLUX" run "$tmp/r.flux" 'total(200000)' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["output"] == 200000 * 200001 // 2, r
assert all(x["decision"] != "runaway protection" for x in r["decision_tree"]), r' ||
    fail "a recursion without repeated work was switched"
"$FLUX" run "$tmp/r.flux" 'fib(40)' --no-learn --max-steps 300000 >/dev/null 2>&1
[ $? = 1 ] || fail "--no-learn still switched fib to its table"
exit 0
