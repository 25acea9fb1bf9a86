# Hot inputs: when most runs ask for the same arguments, their results are
# kept in a bounded table in front of the version, proved by identity (the
# same nodes) and purity; the table answers those calls, the rest run as
# before, and everything stays exact.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cat > sq.flux <<'FLUX'
intent squares(n: Natural) -> Natural:
    constraints:
        - result = sum(i * i for i in 0..n)
FLUX
for n in 150000 150000 7 150000 150000 90000 150000 90000 90000 150000; do
    "$FLUX" run sq.flux "squares($n)" >/dev/null || fail "run $n"
done
out=$("$FLUX" optimize sq.flux) || fail "optimize: exit $?"
case $out in *"squares: installed v2: hot inputs (proof #"*'"recurring": 2'*) ;; *) fail "no table: $out" ;; esac
"$FLUX" graph sq.flux squares | sed -n 2p |
    grep -qx '  table: squares(150000) = 1124988750025000; squares(90000) = 242995950015000' ||
    fail "graph: $("$FLUX" graph sq.flux squares | sed -n 2p)"
"$FLUX" run sq.flux 'squares(150000)' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["output"] == sum(i * i for i in range(150000)), r
d = [x["decision"] for x in r["decision_tree"]]
assert r["graph_version"] == "v2" and d[:2] == ["version v2 of `squares`", "hot-input table"], r
assert d[2:] == ["validation checked"] or d[2:] == ["validation skipped"], r' ||
    fail "a hot input is not answered from the table"
"$FLUX" run sq.flux 'squares(1234)' --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["output"] == sum(i * i for i in range(1234)), r
assert [x["decision"] for x in r["decision_tree"]][:-1] == ["version v2 of `squares`"], r' ||
    fail "another input"
"$FLUX" proofs sq.flux 1 | grep -q 'obligation identity: .*(proved)' || fail "the proof"
"$FLUX" explain sq.flux 'squares(90000)' | grep -q 'keeps the results of 2 recurring inputs' ||
    fail "explain"
out=$("$FLUX" optimize sq.flux)
case $out in *"hot inputs does not apply (the table holds the recurring inputs already)"*) ;; *) fail "again: $out" ;; esac
exit 0
