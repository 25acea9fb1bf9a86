# Run-time errors: exit 1 with a message that names what went wrong.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > p.flux <<'F'
intent half(n: Natural) -> Natural:
    constraints:
        - half(0) = 0
        - half(n) = 1 + half(n - 2) when n >= 2
intent down(n: Natural) -> Natural:
    constraints:
        - result = n - 1
        - result >= 0
intent loop(n: Int) -> Int:
    constraints:
        - loop(n) = loop(n + 1)
intent depth(n: Natural) -> Natural:
    constraints:
        - depth(0) = 0
        - depth(n) = depth(n - 1) + 1
intent ratio(a: Int, b: Int) -> Int:
    constraints:
        - result = a div b
F
run() { "$FLUX" run p.flux "$@" 2>err >out; }

run 'half(3)'; rc=$?
[ $rc = 1 ] || fail "uncovered call: want exit 1, got $rc"
grep -q 'no equation of `half` covers the call half(1)' err || fail "uncovered: $(cat err)"

run 'half(-4)'; rc=$?
[ $rc = 1 ] || fail "negative Natural: want 1, got $rc"
grep -q 'parameter `n` is a Natural' err || fail "negative: $(cat err)"
grep -q 'n = -4' err || fail "negative value not named: $(cat err)"

run 'down(0)'; rc=$?
[ $rc = 1 ] || fail "postcondition: want 1, got $rc"
grep -q 'postcondition `result >= 0` (line 8) does not hold for down(0)' err || fail "post: $(cat err)"

run 'loop(0)' --max-depth 100000; rc=$?
[ $rc = 1 ] || fail "runaway recursion: want 1, got $rc"
grep -q 'depth budget of 100000 nested calls is exhausted in `loop`; raise it with --max-depth' err ||
    fail "depth: $(cat err)"
# at the recursive call's place, as every other run-time error
grep -q '^p.flux:11:21: in `loop`: the depth budget' err || fail "depth without its place: $(cat err)"

run 'loop(0)' --max-steps 5000; rc=$?
[ $rc = 1 ] && grep -q 'step budget of 5000 steps' err || fail "steps: rc=$rc $(cat err)"

run 'depth(1000000)'; rc=$?
[ $rc = 0 ] && [ "$(cat out)" = 1000000 ] || fail "depth 10^6: rc=$rc $(cat out) $(cat err)"

run 'ratio(1, 0)'; rc=$?
[ $rc = 1 ] && grep -q 'division by zero' err || fail "div by zero: rc=$rc $(cat err)"

run 'ratio(-7, 2)'; [ "$(cat out)" = -4 ] || fail "floor div: $(cat out)"

run 'nosuch(1)'; rc=$?
[ $rc = 2 ] && grep -q '<expr>:1:1: error: unknown function `nosuch`' err || fail "bad EXPR: rc=$rc $(cat err)"
run 'half(1'; rc=$?
[ $rc = 2 ] || fail "malformed EXPR: want 2, got $rc"
exit 0
