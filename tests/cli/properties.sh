# The acceptance cases of the checker: properties proved or refuted with a
# counterexample, contradicting equations named by both lines.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

cat > sub.flux <<'F'
intent sub(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b
    properties:
        - commutative
F
"$FLUX" check sub.flux 2>err; rc=$?
[ $rc = 3 ] || fail "commutative a - b: want exit 3, got $rc"
grep -qF 'sub.flux:5:11: error: property `commutative` of `sub` is false: sub(0, 1) = -1 but sub(1, 0) = 1' err ||
    fail "no counterexample: $(cat err)"

cat > add.flux <<'F'
intent add(a: Int, b: Int) -> Int:
    constraints:
        - result = a + b
    properties:
        - commutative
F
out=$("$FLUX" check add.flux 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$out" ] || fail "commutative a + b: want silent 0, got $rc: $out"
"$FLUX" check add.flux --describe | grep -qF "property commutative: holds, proved by Z3" ||
    fail "describe does not show the proof"

cat > f.flux <<'F'
intent f(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(0) = 1
        - f(n) = n
F
"$FLUX" check f.flux 2>err; rc=$?
[ $rc = 3 ] || fail "f(0) = 0 and f(0) = 1: want 3, got $rc"
grep -qF 'f.flux:4:11: error: contradictory equations at lines 3 and 4: for f(0) the first gives 0 and the second gives 1' err ||
    fail "contradiction not reported: $(cat err)"
grep -qF 'f.flux:3:11: note: the equation at line 3 is here' err || fail "no note at line 3"
exit 0
