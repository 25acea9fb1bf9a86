# flux bench: N recorded runs with learning in between; the curve shows the
# versions taking over and the time falling; --json has every run.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store"
fib="$root/examples/fibonacci.flux"
out=$("$FLUX" bench "$fib" 'fibonacci(24)' --runs 5) || fail "bench: exit $?"
printf '%s\n' "$out" | grep -q '^    1  v1 ' || fail "run 1 is not v1: $out"
printf '%s\n' "$out" | grep -q '^versions: v1 from run 1, v2 from run 2, v3 from run 3$' ||
    fail "versions: $out"
[ "$("$FLUX" traces "$fib" | grep -c 'fibonacci ')" = 5 ] || fail "the runs were not recorded"
"$FLUX" bench "$fib" 'fibonacci(24)' --runs 3 --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert [x["run"] for x in r["runs"]] == [1, 2, 3], r
assert all(x["version"] == "v3" for x in r["runs"]), r
assert r["final_version"] == "v3" and r["converged_at_run"] == 1 and r["speedup"] > 0, r' ||
    fail "bench --json"
"$FLUX" bench "$fib" 'fibonacci(24)' --runs 0 2>/dev/null; [ $? = 2 ] || fail "--runs 0: not exit 2"
"$FLUX" bench "$fib" 'nosuch(1)' --runs 2 2>/dev/null; [ $? = 2 ] || fail "bad EXPR: not exit 2"
exit 0
