# The evolved sort follows the data: after the sort-kernels rewrite, explain
# shows a different kernel for a small list, a nearly sorted one, a random
# one and a large one with a narrow key range, each with its reason, and
# every answer equals Python's sorted().
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
sort="$root/examples/sort.flux"
python3 - <<'PY'
import random
random.seed(7)
lists = {
    "small": [5, -2, 5, 0, 9],
    "nearly": list(range(3000)),
    "random": [random.randint(-10**12, 10**12) for _ in range(1000)],
    "narrow": [random.randint(0, 99) for _ in range(5000)],
}
for i in range(0, 3000, 500):
    lists["nearly"][i], lists["nearly"][i + 7] = lists["nearly"][i + 7], lists["nearly"][i]
for name, xs in lists.items():
    open(name + ".expr", "w").write("sort(%s)" % xs)
    open(name + ".want", "w").write("%s\n" % sorted(xs))
PY
"$FLUX" run "$sort" "$(cat random.expr)" >/dev/null || fail "v1 run"
out=$("$FLUX" optimize "$sort") || fail "optimize"
case $out in *"sort: installed v2: sort kernels (proof #"*) ;; *) fail "no sort kernels: $out" ;; esac
"$FLUX" proofs "$sort" 1 | grep -q 'SortUnique.sort_correct_any' || fail "the proof does not cite the lemma"
check() { # NAME KERNEL REASON
    "$FLUX" run "$sort" "$(cat "$1.expr")" > got || fail "$1: run"
    cmp -s got "$1.want" || fail "$1: wrong answer"
    "$FLUX" explain "$sort" "$(cat "$1.expr")" | grep -q "^|    - sort kernel $2: $3" ||
        fail "$1: explain: $("$FLUX" explain "$sort" "$(cat "$1.expr")" | grep 'sort kernel')"
}
check small insertion 'n = 5, [0-9]* descents, key range [0-9]*; predicted [0-9.]* ns (the array in L1)'
check nearly 'batch insertion' 'n = 3000, 12 descents, key range [0-9]*; predicted [0-9.]* µs, against pdq [0-9.]* µs, radix [0-9.]* µs'
check random pdq 'n = 1000, [0-9]* descents'
check narrow radix 'n = 5000, [0-9]* descents, key range 99;'
"$FLUX" run "$sort" "$(cat narrow.expr)" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = r["decision_tree"][1]
assert d["decision"] == "sort kernel radix" and d["reason"].startswith("n = 5000"), r["decision_tree"]' ||
    fail "the record lacks the kernel decision"
exit 0
