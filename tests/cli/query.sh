# The query kernel through the CLI: a run asking a collection several times
# is measured faster on the kernel, so a round installs it, proved; the
# first query of a run scans, the next ones use the sorted index, explain
# says which, and the answers stay v1's. Then runs asking mostly for one
# argument get its result materialised: kept while users.csv is unchanged,
# and the answer follows the file when it changes.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cp "$root/examples/users.flux" .
python3 - <<'PY'
import random
random.seed(4)
with open("users.csv", "w") as f:
    f.write("name,age\n")
    for i in range(60000):
        f.write("u%d,%d\n" % (i, random.randint(0, 99)))
PY
many='sum(len(query_users(a)) for a in 90..100)'
"$FLUX" run users.flux "$many" > v1.out || fail "v1"
out=$("$FLUX" optimize users.flux) || fail "optimize"
case $out in *"query_users: installed v2: query index (proof #"*) ;; *) fail "no index: $out" ;; esac
"$FLUX" run users.flux "$many" | cmp -s - v1.out || fail "the answer changed"
"$FLUX" graph users.flux query_users | grep -q 'fold collect \[slot 1\] \[index\]' || fail "graph"
"$FLUX" explain users.flux "$many" | grep -q "^|    - query index: the sorted index on \`age\`, a binary search: " ||
    fail "explain: $("$FLUX" explain users.flux "$many" | grep query)"
"$FLUX" explain users.flux 'len(query_users(18))' | grep -q '^|    - query scan: a scan of 60000 rows' ||
    fail "one query: $("$FLUX" explain users.flux 'len(query_users(18))' | grep query)"
[ "$("$FLUX" run users.flux 'len(query_users(18))')" = "$(python3 -c '
import csv
print(sum(1 for r in csv.DictReader(open("users.csv")) if int(r["age"]) >= 18))')" ] || fail "count"
"$FLUX" proofs users.flux | grep -q 'query index for `query_users`: accepted' || fail "proofs"

for a in 18 18 18 40 18 18; do "$FLUX" run users.flux "len(query_users($a))" > /dev/null || fail "run $a"; done
out=$("$FLUX" optimize users.flux) || fail "optimize 2"
case $out in *"query_users: installed v3: materialised results (proof #"*) ;; *) fail "not materialised: $out" ;; esac
"$FLUX" graph users.flux query_users | grep -q "^  materialised: query_users(18)" || fail "graph 2: $("$FLUX" graph users.flux query_users | head -3)"
twice='len(query_users(18)) + len(query_users(18))'
"$FLUX" explain users.flux "$twice" | grep -q '^|    - materialised result: query_users(18) was computed before, and its sources are unchanged since (users.csv: ' ||
    fail "explain 2: $("$FLUX" explain users.flux "$twice")"
count() { python3 -c '
import csv
print(2 * sum(1 for r in csv.DictReader(open("users.csv")) if int(r["age"]) >= 18))'; }
[ "$("$FLUX" run users.flux "$twice")" = "$(count)" ] || fail "twice"
printf 'late,50\nlater,70\n' >> users.csv
[ "$("$FLUX" run users.flux "$twice")" = "$(count)" ] || fail "after the file changed"
"$FLUX" proofs users.flux | grep -q 'materialised results for `query_users`: accepted' || fail "proofs 2"
exit 0
