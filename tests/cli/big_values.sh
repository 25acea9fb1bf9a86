# Values over 64 KiB as JSON are recorded as their size and hash (the
# value's, without printing it), the
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
assert xs["summary"] == "a value of at least 84000 bytes as JSON, not written out", xs
assert xs["elements"] == 12000 and r["output_bytes"] == 84000, (xs, r["output_bytes"])
assert len(xs["hash"]) == 16 and r["output"]["hash"] == xs["hash"], r["output"]
PY
# replay summarises the value again the same way, without printing it
"$FLUX" replay exec_1 > replay || fail "replay: $(cat replay)"
grep -q "the same as recorded" replay || fail "replay of a summary: $(cat replay)"
# a big integer kept without its digits replays the same way
printf 'intent pw(b: Int, e: Natural) -> Int:\n    constraints:\n        - result = b ^ e\n' > pw.flux
"$FLUX" run pw.flux 'pw(10, 100000)' > /dev/null || fail "pw"
"$FLUX" replay exec_2 > replay 2>&1 || fail "replay of a big integer: $(head -c 300 replay)"
grep -q "the same as recorded" replay || fail "replay of a big integer: $(head -c 300 replay)"
# an EXPR holding quotes and a tab replays as it was written
printf 'intent sl(s: String) -> Int:\n    constraints:\n        - result = len(s)\n' > sl.flux
"$FLUX" run sl.flux "$(printf 'sl("a\\"b\tc")')" > out || fail "sl"
[ "$(cat out)" = 5 ] || fail "sl: $(cat out)"
"$FLUX" replay exec_3 > replay 2>&1 || fail "replay of escapes: $(cat replay)"
grep -q "result: 5, the same as recorded" replay || fail "replay of escapes: $(cat replay)"
# a value of many 64 KiB chunks streams to stdout: the same text as whole
python3 -c "print('same(%s)' % list(range(-60000, 60000, 3)))" > expr2
"$FLUX" run big.flux @expr2 > streamed || fail "streamed"
python3 -c "import sys; sys.exit(open('streamed').read() != str(list(range(-60000, 60000, 3))) + chr(10))" ||
    fail "the streamed value differs: $(head -c 100 streamed)"
"$FLUX" run big.flux "$(cat expr)" --keep-values > /dev/null || fail "keep-values"
"$FLUX" traces big.flux --json | head -1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
assert r["input"]["xs"] == list(range(10000, 22000)) and r["output"] == r["input"]["xs"]' ||
    fail "--keep-values did not keep the values"
exit 0
