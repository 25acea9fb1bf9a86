# Values over 64 KiB as JSON are recorded as their size and hash, the
# input's arguments as the output: the store does not grow by the whole
# argument at every run, and the analysis still sees the input's size (its
# element count). --keep-values keeps them whole. A reader that stops early
# (`| head`) does not keep the run from being recorded.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cat > big.flux <<'FLUX'
intent same(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs
FLUX
python3 -c "print('same(%s)' % list(range(10000, 22000)))" > expr
"$FLUX" run big.flux "$(cat expr)" | head -c 6 > got
[ "$(cat got)" = "[10000" ] || fail "the answer: $(cat got)"
"$FLUX" traces big.flux --json > traces || fail "traces"
python3 - <<'PY' || fail "the summarised record: $(cut -c1-300 traces)"
import json
r = json.loads(open("traces").read().splitlines()[0])
xs = r["input"]["xs"]
assert xs["summary"] == "a value of 84000 bytes as JSON" and xs["elements"] == 12000, xs
assert len(xs["hash"]) == 16 and r["output"]["hash"] == xs["hash"], r["output"]
PY
"$FLUX" run big.flux "$(cat expr)" --keep-values > /dev/null || fail "keep-values"
"$FLUX" traces big.flux --json | head -1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
assert r["input"]["xs"] == list(range(10000, 22000)) and r["output"] == r["input"]["xs"]' ||
    fail "--keep-values did not keep the values"
exit 0
