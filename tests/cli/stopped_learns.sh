# Learning after a run a budget stopped: a sort of a data source too large
# for v1's bubble sort is stopped by the time budget every time, and no run
# ever finished to learn from, so it stayed on the bubble sort for good.
# Now the stopped run's EXPR is the evidence: the round after it installs
# the sort kernel (timing v1 under the rules' own cap), and the next run
# answers, in input order among equal keys, as Python's stable sort does.
# A stopped run's time is the budget's: it judges no rollback.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=wait
cd "$tmp"
python3 -c '
import random
random.seed(3)
print("id,price")
for i in range(30000): print(f"{i},{random.randint(1, 500)}")' > items.csv
cat > items.flux <<'FLUX'
type Item = { id: Int, price: Int }
data items: List[Item] from "items.csv"

intent by_price(k: Natural) -> List[Item]:
    constraints:
        - result is a permutation of items
        - result is sorted descending by price
FLUX
expr='[i.id for i in by_price(0)][0..8]'
out=$("$FLUX" run items.flux "$expr" --max-seconds 1 2>&1)
[ $? = 1 ] || fail "v1 finished within 1 s: $out"
case $out in *"time budget of 1 s is exhausted"*) ;; *) fail "no budget stop: $out" ;; esac
"$FLUX" history items.flux | grep -q '^by_price v2 .*$' || fail "no v2: $("$FLUX" history items.flux)"
"$FLUX" history items.flux | grep -A1 '^by_price v2' | grep -q 'sort kernels' ||
    fail "v2 is not the sort: $("$FLUX" history items.flux)"
want=$(python3 -c '
import csv
rows = list(csv.DictReader(open("items.csv")))
rows.sort(key=lambda r: -int(r["price"]))
print("[" + ", ".join(r["id"] for r in rows[:8]) + "]")')
got=$("$FLUX" run items.flux "$expr" --max-seconds 1) || fail "v2 stopped too"
[ "$got" = "$want" ] || fail "v2: $got, not $want"
# a stopped run is on the record as such, and proofs name the rewrite
"$FLUX" traces items.flux --json | grep -q '"stopped by the time budget"' ||
    fail "the stop is not in the traces"
"$FLUX" proofs items.flux | grep -q 'for `by_price`: accepted' || fail "no proof"
exit 0
