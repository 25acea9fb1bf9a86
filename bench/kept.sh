#!/usr/bin/env bash
# One query a process, as a user runs it (issue 14): `len(query_users(K))`
# over ROWS rows (default 200000), whole `flux run` processes timed from
# outside, median of RUNS (default 15), interleaved so that all three see
# the same machine:
#   v1        a store that has learned nothing: every process reads the CSV
#   computed  the version that materialises the query, its kept row removed
#             before each run: every process computes (and keeps) it again
#   kept      the same version reading the result the store keeps
# The answers must agree with a count over the CSV.
#
#   bench/kept.sh [ROWS] [RUNS]      (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-200000}
runs=${2:-15}
flux=$(realpath "${FLUX:-build/flux}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp examples/users.flux "$tmp"
cd "$tmp"
python3 - "$rows" <<'PY'
import random, sys
random.seed(7)
with open("users.csv", "w") as f:
    f.write("name,age\n")
    for i in range(int(sys.argv[1])):
        f.write("u%d,%d\n" % (i, random.randint(0, 99)))
PY
q='len(query_users(95))'
want=$(python3 -c 'import csv; print(sum(1 for r in csv.DictReader(open("users.csv")) if int(r["age"]) >= 95))')
export FLUX_LEARN=off
for _ in 1 2 3 4 5 6; do "$flux" run users.flux "$q" --store learned > /dev/null; done
for _ in 1 2 3; do
    "$flux" graph users.flux query_users --store learned | grep -q '^  materialised: ' && break
    "$flux" optimize users.flux --store learned > /dev/null
done
"$flux" graph users.flux query_users --store learned | grep -q '^  materialised: ' ||
    { echo "bench: no version materialises $q" >&2; exit 1; }
forget() { python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); db.execute("DELETE FROM learned WHERE kind = ?", ("kept_values",)); db.commit()' learned/flux.db; }
ms() { # whole process, in ms; checks the answer
    local s e out
    s=$(date +%s%N)
    out=$("$flux" run users.flux "$q" --store "$1")
    e=$(date +%s%N)
    [ "$out" = "$want" ] || { echo "bench: $1 answered $out, want $want" >&2; exit 1; }
    echo $(((e - s) / 1000))
}
"$flux" run users.flux "$q" --store learned > /dev/null # computes and keeps it
v1=() computed=() kept=()
for _ in $(seq "$runs"); do
    v1+=("$(ms naive)")
    kept+=("$(ms learned)")
    forget
    computed+=("$(ms learned)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {printf "%.1f", a[int((NR + 1) / 2)] / 1000}'; }
printf 'kept results: one query a process over %d rows, median of %d whole processes:\n' "$rows" "$runs"
printf '  v1 %s ms, materialised and computed %s ms, materialised and kept in the store %s ms\n' \
    "$(median "${v1[@]}")" "$(median "${computed[@]}")" "$(median "${kept[@]}")"
