# The sort kernels' cost model outlives the process: a sort large enough to
# be timed refits its kernel's costs, which the store keeps in cost_models
# (kernel, variant, device, hardware); the next run reads them back and
# refits them further (observed counts every timed run, across processes).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
sort="$root/examples/sort.flux"
python3 -c '
import random
random.seed(7)
open("narrow.expr", "w").write("sort(%s)" % [random.randint(0, 99) for _ in range(5000)])'
"$FLUX" run "$sort" "$(cat narrow.expr)" >/dev/null || fail "v1 run"
"$FLUX" optimize "$sort" | grep -q 'sort: installed v2: sort kernels' || fail "no sort kernels"
rows() {
    python3 -c '
import sqlite3
db = sqlite3.connect("store/flux.db")
for r in db.execute("select kernel, variant, device, hardware != \"\", observed, params from cost_models order by variant"):
    print(*r)'
}
[ -z "$(rows)" ] || fail "a model before any timed sort: $(rows)"
"$FLUX" run "$sort" "$(cat narrow.expr)" >/dev/null || fail "first sort"
first=$(rows)
case $first in "sort radix cpu 1 1 ["*) ;; *) fail "after one sort: $first" ;; esac
"$FLUX" run "$sort" "$(cat narrow.expr)" >/dev/null || fail "second sort"
second=$(rows)
# the second sort runs radix again, or the variant the refit now predicts
# faster (timing: under a sanitizer radix may measure past vqsort's
# default); either way the variant that ran has its row, counted once more
case $second in "sort radix cpu 1 2 ["*) n=1 ;; "sort radix cpu 1 1 ["*) n=2 ;; *) fail "after two sorts: $second" ;; esac
[ "$(printf '%s\n' "$second" | wc -l)" = $n ] || fail "a row for each variant that ran: $second"
printf '%s\n' "$second" | awk '{s += $5} END {exit s != 2}' || fail "two sorts, two observations: $second"
exit 0
