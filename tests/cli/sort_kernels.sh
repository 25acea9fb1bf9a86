# The evolved sort follows the data: after the sort-kernels rewrite, explain
# shows a different kernel for a small list, a nearly sorted one, a
# reversed one, a random one and a large one with a narrow key range, each
# with its reason (the costs are the defaults: a fresh store, none of these
# sorts large enough to be timed, so no CPU changes them), and every answer
# equals Python's sorted(). Forced onto vqsort, plain and keyed sorts in
# both directions give Python's (stable) answers.
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
    "reversed": list(range(2000, 0, -1)),
    "random": [random.randint(-10**12, 10**12) for _ in range(1000)],
    "narrow": [random.randint(0, 99) for _ in range(4000)],
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
check small insertion 'n = 5, [0-9]* descents, key range [0-9]*; predicted [0-9.]* ns, against vqsort [0-9.]* ns (the array in L1)'
check nearly 'batch insertion' 'n = 3000, 12 descents, key range [0-9]*; predicted [0-9.]* µs, against pdq [0-9.]* µs, radix [0-9.]* µs'
check reversed pdq 'n = 2000, 1999 descents'
check random vqsort 'n = 1000, [0-9]* descents, key range [0-9]*; predicted [0-9.]* µs, against batch insertion [0-9.]* µs, pdq [0-9.]* µs, radix'
check narrow radix 'n = 4000, [0-9]* descents, key range 99;'
"$FLUX" run "$sort" "$(cat narrow.expr)" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = r["decision_tree"][1]
assert d["decision"] == "sort kernel radix" and d["reason"].startswith("n = 4000"), r["decision_tree"]' ||
    fail "the record lacks the kernel decision"

# forced onto vqsort: int64 keys, and keyed sorts whose equal keys
# (x and -x by abs) must keep their input order, ascending and descending
decision() { python3 -c 'import json, sys; d = json.load(sys.stdin)["decision_tree"]
print(*[e["decision"] + " | " + e["reason"] for e in d if e["decision"].startswith("sort kernel")], sep="\n")'; }
out=$("$FLUX" run "$sort" "$(cat random.expr)" --variant vqsort --json | decision) || fail "vqsort: run"
[ "$out" = "sort kernel vqsort | forced by the caller, n = 1000" ] || fail "vqsort: $out"
"$FLUX" run "$sort" "$(cat random.expr)" --variant vqsort > got || fail "vqsort: run"
cmp -s got random.want || fail "vqsort: wrong answer"
# without the Highway plugin (a flux copied alone): never chosen, and a
# forced vqsort sorts exactly all the same, with pdq
mkdir alone && cp "$FLUX" alone/flux
out=$(alone/flux run "$sort" "$(cat random.expr)" --json | decision) ||
    fail "without the plugin: run"
case $out in *"sort kernel vqsort"*) fail "without the plugin, vqsort chosen: $out" ;; esac
alone/flux run "$sort" "$(cat random.expr)" --variant vqsort > got ||
    fail "without the plugin: forced run"
cmp -s got random.want || fail "without the plugin: wrong answer"
cat > keyed.flux <<'FLUX'
intent by_abs(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending by abs
    properties:
        - pure

intent by_abs_desc(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending by abs
    properties:
        - pure
FLUX
python3 - <<'PY'
import random
random.seed(16)
xs = [random.randint(-300, 300) for _ in range(3000)] + [2**63 - 1, 5, -2**63 + 1]
open("keyed.expr", "w").write("%s" % xs)
open("by_abs.want", "w").write("%s\n" % sorted(xs, key=abs))
open("by_abs_desc.want", "w").write("%s\n" % sorted(xs, key=abs, reverse=True))
PY
for f in by_abs by_abs_desc; do
    "$FLUX" run keyed.flux "$f([(i * 7919) % 601 - 300 for i in 0..400])" >/dev/null ||
        fail "$f: v1 run"
done
"$FLUX" optimize keyed.flux > opt || fail "optimize keyed"
[ "$(grep -c 'installed v2: sort kernels' opt)" = 2 ] || fail "keyed: no sort kernels: $(cat opt)"
for f in by_abs by_abs_desc; do
    "$FLUX" run keyed.flux "$f($(cat keyed.expr))" --variant vqsort > got || fail "$f: vqsort run"
    cmp -s got $f.want || fail "$f: forced onto vqsort, not Python's stable order"
    out=$("$FLUX" run keyed.flux "$f($(cat keyed.expr))" --variant vqsort --json | decision)
    [ "$out" = "sort kernel vqsort | forced by the caller, n = 3003" ] || fail "$f: $out"
done
exit 0
