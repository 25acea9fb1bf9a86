# A call of an intent by itself whose result is the caller's (a tail call)
# runs in the caller's frame: a loop written as a recursion holds one
# step's values, not every step's (src/exec/vm.c, OP_CALL). To the
# language it is still a nested call: the depth budget counts it.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > p.flux <<'F'
intent walk(xs: List[Int], n: Natural) -> Int:
    constraints:
        - walk(xs, 0) = sum(xs)
        - walk(xs, n) = walk([x + 1 for x in xs], n - 1)
intent climb(xs: List[Int], n: Natural) -> Int:
    constraints:
        - climb(xs, 0) = sum(xs)
        - climb(xs, n) = 1 + climb([x + 1 for x in xs], n - 1)
F
# 20,000 steps of a 1,001-element list: 320 MB if every step's list were
# kept, a few MB in one frame. (Under AddressSanitizer freed blocks wait in
# a quarantine of up to 256 MB, resident: kept small here.)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}quarantine_size_mb=4"
"$FLUX" run p.flux 'walk(0..=1000, 20000)' --max-memory 64 >out 2>err ||
    fail "tail call kept its frames: $(cat err)"
[ "$(cat out)" = 20520500 ] || fail "walk: $(cat out)"
# the same loop not in tail position keeps every step: the budget stops it
"$FLUX" run p.flux 'climb(0..=1000, 20000)' --max-memory 64 >out 2>err && fail "climb fit in 64 MB"
grep -q 'memory budget of 64 MB is exhausted' err || fail "climb: $(cat err)"
# tail calls are nested calls to the depth budget
"$FLUX" run p.flux 'walk([1], 5000)' --max-depth 1000 >out 2>err && fail "depth not counted"
grep -q 'depth budget of 1000 nested calls is exhausted in `walk`' err || fail "depth: $(cat err)"
"$FLUX" run p.flux 'walk([1], 998)' --max-depth 1000 >out 2>err || fail "depth 999: $(cat err)"
[ "$(cat out)" = 999 ] || fail "walk 998: $(cat out)"
# explain keeps a level a call
"$FLUX" explain p.flux 'walk([1], 3)' >out 2>err || fail "explain: $(cat err)"
[ "$(grep -c 'walk(' out)" -ge 4 ] || fail "explain lost the calls: $(cat out)"
exit 0
