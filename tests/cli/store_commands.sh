# traces, history and replay as a user drives them, and an unusable store.
set -u
# what explicit commands record and list: no learning round in between
export FLUX_LEARN=off
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > f.flux <<'F'
intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n - 1) + fib(n - 2)
intent twice(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs ++ xs
F
export FLUX_STORE="$tmp/st"
"$FLUX" run f.flux 'fib(12)' >/dev/null || fail "run 1"
id=$("$FLUX" run f.flux 'fib(15)' --json | grep -o '"execution_id": "exec_[0-9]*' | cut -d_ -f3)
[ -n "$id" ] || fail "no id"
"$FLUX" run f.flux 'twice([1, 2])' >/dev/null || fail "run 3"

out=$("$FLUX" traces f.flux) || fail "traces"
[ "$(printf '%s\n' "$out" | wc -l)" = 4 ] || fail "traces: want a header and 3 rows: $out"
printf '%s\n' "$out" | sed -n 2p | grep -q 'twice' || fail "traces: newest first: $out"
[ "$("$FLUX" traces f.flux fib --json | wc -l)" = 2 ] || fail "traces fib --json"
"$FLUX" traces f.flux fib --json | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' ||
    fail "traces --json lines are not JSON"
[ "$("$FLUX" traces f.flux --last 1 --json | wc -l)" = 1 ] || fail "--last 1"
"$FLUX" traces f.flux nosuch >/dev/null 2>&1; [ $? = 2 ] || fail "traces of an unknown intent: want 2"

"$FLUX" history f.flux | grep -q '^fib v1 (lineage [0-9a-f]*), made .*, 2 executions$' ||
    fail "history: $("$FLUX" history f.flux)"
"$FLUX" history f.flux twice --json | python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); assert d["version"]=="v1"' ||
    fail "history --json"

out=$("$FLUX" replay "exec_$id") || fail "replay: $out"
printf '%s\n' "$out" | grep -q 'result: 610, the same as recorded' || fail "replay: $out"
"$FLUX" replay "$id" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["same_result"] is True' ||
    fail "replay --json"
# replay uses the stored source: editing the file changes nothing
printf 'intent fib(n: Natural) -> Natural:\n    constraints:\n        - result = 0\n' > f.flux
"$FLUX" replay "$id" | grep -q 'the same as recorded' || fail "replay after the file changed"
"$FLUX" replay exec_999999 >/dev/null 2>&1; [ $? = 2 ] || fail "unknown execution: want 2"
"$FLUX" replay "$id" --version v9 >/dev/null 2>&1; [ $? = 2 ] || fail "unknown version: want 2"

# an EXPR around a call records the intent's own run
printf 'intent sq(n: Int) -> Int:\n    constraints:\n        - result = n * n\n' > g.flux
[ "$("$FLUX" run g.flux 'sq(3) + 1')" = 10 ] || fail "sq(3) + 1"
"$FLUX" traces g.flux --json | grep -q '"output": 9,' || fail "recorded the intent's own output"
"$FLUX" explain g.flux 'sq(2)' --version v1 >/dev/null 2>&1; [ $? = 2 ] ||
    fail "explain --version: want a usage error"

touch notadir
"$FLUX" run f.flux 'fib(3)' --store notadir >/dev/null 2>err; rc=$?
[ $rc = 4 ] || fail "unusable store: want 4, got $rc ($(cat err))"
exit 0
