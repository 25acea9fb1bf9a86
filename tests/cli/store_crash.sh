# run alone: it kills runs at timed points
# Killing `flux run` with SIGKILL at random points, 200 times, never corrupts
# the store nor loses an execution whose id was printed (an id is printed
# only after its execution is committed).
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > f.flux <<'F'
intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n - 1) + fib(n - 2)
F
# how long one run takes here (a sanitizer build is several times slower):
# kills are spread over one and a half times that
start=$(date +%s%N)
"$FLUX" run f.flux 'fib(10)' --json --store warm >/dev/null || fail "a plain run failed"
span=$(( ($(date +%s%N) - start) / 1000 * 3 / 2 )) # microseconds
[ "$span" -gt 1000 ] || span=1000
: > ids
for i in $(seq 200); do
    "$FLUX" run f.flux "fib($((i % 18)))" --json --store st > "out$i" 2>/dev/null &
    pid=$!
    # anywhere from the start-up to past the write
    r=$(( (RANDOM * 32768 + RANDOM) % span ))
    sleep "$(printf '%d.%06d' $((r / 1000000)) $((r % 1000000)))"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    grep -so '"execution_id": "exec_[0-9]*' "out$i" | cut -d_ -f3 >> ids
    rm -f "out$i"
done
[ -s ids ] || fail "no run finished before its kill: nothing to check"
python3 - "$tmp/st/flux.db" "$tmp/ids" <<'PY' || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ok = db.execute("pragma integrity_check").fetchone()[0]
if ok != "ok":
    sys.exit("integrity_check: " + ok)
ids = [int(x) for x in open(sys.argv[2]).read().split()]
have = {r[0] for r in db.execute("select id from executions")}
missing = [i for i in ids if i not in have]
if missing:
    sys.exit("reported but missing: %s" % missing[:10])
print("%d reported executions present, %d in all" % (len(ids), len(have)))
PY
out=$("$FLUX" run f.flux 'fib(10)' --store st) || fail "the next run failed"
[ "$out" = 55 ] || fail "the next run: $out"
exit 0
