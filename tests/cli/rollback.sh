# Rollback: a version measured slower than the one it replaced, on inputs
# of the sizes the parent ran, is rolled back; the parent runs again,
# history says why and on which sizes, and the same rewrite is not
# proposed again from that parent until its inputs go well beyond those
# sizes (4x): then it is, and its measurement decides again. The slow-down
# is made by scaling the new version's recorded times in the store (what a
# slower machine, or a worse algorithm on these inputs, would have
# recorded): the test is of the decision, which reads only the recorded
# runs.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cat > grid.flux <<'FLUX'
intent lattice(r: Natural, c: Natural) -> Natural:
    constraints:
        - lattice(0, c) = 1
        - lattice(r, 0) = 1
        - lattice(r, c) = lattice(r-1, c) + lattice(r, c-1)
FLUX
for n in 5 6 7 8; do "$FLUX" run grid.flux "lattice($n, $n)" >/dev/null || fail "v1 run"; done
"$FLUX" optimize grid.flux | grep -q 'lattice: installed v2: memoization' || fail "no v2"
# inputs that do not recur three times (no hot-input table comes in
# between), of the sizes v1 ran (r + c from 10 to 16): comparable
for rc in "5, 5" "6, 6" "7, 7" "8, 8" "6, 7" "7, 6"; do
    "$FLUX" run grid.flux "lattice($rc)" >/dev/null || fail "v2 run"
done

# v2 measured as fast as it is: it stands
out=$("$FLUX" optimize grid.flux)
case $out in *"rolled back"*) fail "a faster version was rolled back: $out" ;; esac

python3 - <<'PY' || fail "could not scale the times"
import sqlite3
db = sqlite3.connect("store/flux.db")
db.execute("update executions set duration_ms = duration_ms * 1000 + 50 where version = "
           "(select id from versions where label = 'v2')")
db.commit()
PY
out=$("$FLUX" optimize grid.flux) || fail "optimize: exit $?"
case $out in
*"lattice: rolled back v2 to v1: measured "*"x slower than v1 (at least "*"x at 97.5% confidence, 0.05 ms of slack a run) on 6 runs of sizes 10 to 16, against v1's 4 runs of sizes 10 to 16 (4 at the same sizes, 2 between)"*) ;;
*) fail "no rollback: $out" ;;
esac
"$FLUX" run grid.flux 'lattice(6, 6)' --json | grep -q '"graph_version": "v1"' || fail "v1 does not run again"
"$FLUX" history grid.flux | grep -q '^    rolled back: measured .* on 6 runs of sizes 10 to 16, .* (4 at the same sizes, 2 between)$' ||
    fail "history does not say why: $("$FLUX" history grid.flux)"
out=$("$FLUX" optimize grid.flux)
case $out in
*"v1 stays: "*"memoization does not apply (it was rolled back from this version before (v2, judged on sizes up to 16; v1's inputs reach 16, not 4x beyond))"*) ;;
*) fail "the rolled back rewrite was proposed again: $out" ;;
esac
# larger inputs: 3x is not enough, 4x is; then the rule measures again
"$FLUX" run grid.flux 'lattice(12, 12)' >/dev/null || fail "v1 at 24"
out=$("$FLUX" optimize grid.flux)
case $out in
*"memoization does not apply (it was rolled back from this version before (v2, judged on sizes up to 16; v1's inputs reach 24, not 4x beyond))"*) ;;
*) fail "proposed again at 1.5x: $out" ;;
esac
"$FLUX" run grid.flux 'lattice(32, 33)' >/dev/null || fail "v1 at 65"
out=$("$FLUX" optimize grid.flux)
case $out in
*"lattice: installed v3: memoization"*) ;;
*) fail "not proposed again at 4x: $out" ;;
esac
"$FLUX" proofs grid.flux | grep -q 'rollback for `lattice`: accepted' || fail "the rollback is not listed"
exit 0
