# A stored version whose node no longer has the shape of its kernel is
# refused with the reason, never run as the naive loop under the kernel's
# name: `flux graph` says why, and a run answers from v1, its record and
# explain saying why (a stored graph is untrusted input: read.c checks it,
# docs/store.md). The edit is sealed again as a forger would
# (fixtures/reseal.py), so that it is read.c that refuses it, not the seal.
set -u
fixtures=$(cd "$(dirname "$0")" && pwd)/fixtures
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cat > sums.flux <<'FX'
intent total(n: Natural, k: Int) -> Int:
    constraints:
        - result = sum(3 * i - k for i in 1..n)
FX
"$FLUX" run sums.flux 'total(1000001, 7)' > v1 || fail "v1"
"$FLUX" optimize sums.flux | grep -q 'total: installed v2: closed-form sum' || fail "no v2"
"$FLUX" graph sums.flux total --version v2 | grep -q '\[affine_sum\]' || fail "v2 is not on the kernel"
# 3 * i becomes i * i: the fold's body is no longer affine in i
python3 - "$FLUX_STORE/flux.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(g,) = db.execute("select graph_json from versions where label = 'v2'").fetchone()
g = json.loads(g)
mul = next(n for n in g["nodes"] if n["op"] == "mul")
var = next(n for n in g["nodes"] if n["op"] == "var")
mul["inputs"] = [var["id"], var["id"]]
db.execute("update versions set graph_json = ? where label = 'v2'", (json.dumps(g),))
db.commit()
PY
python3 "$fixtures/reseal.py" "$FLUX_STORE/flux.db" total || fail "resealing"
"$FLUX" graph sums.flux total --version v2 > out 2> err && fail "a refused version printed: $(cat out)"
grep -q "version v2 of \`total\` is refused: node 9 no longer has the shape of its kernel \`affine_sum\` (sum(e(i) for i in lo..hi)" err ||
    fail "the reason: $(cat err)"
"$FLUX" run sums.flux 'total(1000001, 7)' | cmp -s - v1 || fail "the run changed"
# the run answers from v1, and its record and explain say why
"$FLUX" run sums.flux 'total(10, 7)' --json | grep -q '"reason": "version v2 of `total` is refused: node 9 no longer' ||
    fail "the record: $("$FLUX" run sums.flux 'total(10, 7)' --json)"
"$FLUX" explain sums.flux 'total(10, 7)' | grep -q '^|- version: v1 of `total`: the naive graph read from the constraints, because version v2 of `total` is refused' ||
    fail "explain: $("$FLUX" explain sums.flux 'total(10, 7)' | head -3)"
exit 0
