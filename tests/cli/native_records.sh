#!/usr/bin/env bash
# native_records.sh: records in the native tier (docs/native.md, "What is
# translated"). Records as C structs (every field type: Int, Natural,
# Float, Bool), `with`, lists of records built, indexed, folded and passed
# along a tail call, min/max folds and if-expressions on them are compiled
# and equal to the interpreter; n-body's intents are; a planted miscompile
# in a record-using intent is caught; a big integer in a field, an empty
# Float sum and an overflow give the call back to the interpreter, exactly;
# budgets stop it as they stop the interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_records: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > r.flux <<'F'
type Cell = { n: Int, k: Natural, w: Float, on: Bool }

intent cell(i: Int) -> Cell:
    constraints:
        - result = {n: i * 7 - 3, k: i * i, w: 0.25 * i - 1.0, on: i mod 2 = 0}

intent cells(m: Natural) -> List[Cell]:
    constraints:
        - result = [cell(i) for i in 0..m]

intent step(c: Cell, d: Float) -> Cell:
    constraints:
        - result = c with {n: c.n + c.k, w: if c.on then c.w * d else c.w + d, on: not c.on}

intent walk(cs: List[Cell], n: Natural) -> List[Cell]:
    constraints:
        - walk(cs, 0) = cs
        - walk(cs, n) = walk([step(c, 0.5) for c in cs], n - 1)

intent total(cs: List[Cell]) -> Int:
    constraints:
        - result = sum(c.n + c.k for c in cs)

intent weight(cs: List[Cell]) -> Float:
    constraints:
        - result = sum(c.w * 2.0 for c in cs)

intent widest(cs: List[Cell]) -> Float:
    constraints:
        - result = max(c.w for c in cs)

intent lowest(cs: List[Cell]) -> Int:
    constraints:
        - result = min(cs[i].n for i in 0..len(cs))

intent heavier(a: Cell, b: Cell) -> Cell:
    constraints:
        - result = if a.w > b.w then a else b

intent clampf(c: Cell, lo: Float) -> Float:
    constraints:
        - result = max(min(c.w, 10.0), lo)

intent clampi(c: Cell, k: Int) -> Int:
    constraints:
        - result = min(max(c.n, k), 100)

intent grow(xs: List[Cell], n: Natural) -> List[Cell]:
    constraints:
        - grow(xs, 0) = xs
        - grow(xs, n) = grow(xs ++ [cell(n), cell(n + 1)], n - 1)

intent none(k: Int) -> List[Cell]:
    constraints:
        - result = if k > 0 then [cell(k)] else []

intent pad(cs: List[Cell]) -> List[Cell]:
    constraints:
        - result = cs ++ [] ++ none(len(cs))
F
export FLUX_EXPLORE=off FLUX_NATIVE_HOT_MS=0
run() { "$FLUX" run r.flux "$@" --no-learn --store s; }
interp() { FLUX_NATIVE=off "$FLUX" run r.flux "$@" --no-learn --store s; }
tier() { # the native tier of EXPR's run, or "interpreted"
    local out
    out=$(run "$1" --json)
    if [[ "$out" =~ \"native,\ ([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo interpreted; fi
}
promote() { "$FLUX" optimize r.flux "$1" --rule "native code" --store s; }

# ---- a planted miscompile in an intent on records is caught, never run ----
run 'total(cells(300))' >/dev/null
out=$(FLUX_NATIVE_PLANT=1 promote total)
[[ "$out" == "total: native code for v1 (tcc "*") rejected: it differs from the interpreter on "*": native "*", the interpreter "* ]] ||
    fail "the planted miscompile was not caught: $out"
[ "$(tier 'total(cells(300))')" = interpreted ] || fail "a rejected object runs"
[ "$(ls s/cache 2>/dev/null | wc -l)" = 0 ] || fail "the rejected object stays in the cache"

# ---- every intent compiled (tcc, then cc), equal to the interpreter ----
exprs=('walk(cells(40), 300)' 'total(cells(3000))' 'weight(cells(3000))' 'widest(cells(3000))'
       'lowest(cells(3000))' 'heavier(cell(5), cell(2))' 'heavier(cell(2), cell(5))'
       'step(cell(3), 0.5)' 'clampf(cell(3), 0.0)' 'clampi(cell(3), 7)'
       'clampf({n: 1, k: 1, w: -0.0, on: true}, 0.0)' # libm's fmax(-0.0, 0.0), not GCC's
       'grow([], 300)' 'grow(cells(3), 40)' 'none(0)' 'none(2)' 'pad([])' 'pad(cells(2))')
for e in "${exprs[@]}"; do run "$e" >/dev/null; done
for i in walk total weight widest lowest heavier step clampf clampi grow none pad; do
    out=$(promote $i)
    [[ "$out" == "$i: native code for v1: tcc "*"equal to the interpreter on "*" recorded and 10000 random inputs" ]] ||
        fail "$i is not compiled: $out"
    out=$(promote $i)
    [[ "$out" == "$i: native code for v1: cc -O2 "*"10000 random inputs" ]] || fail "$i on cc: $out"
done
for e in "${exprs[@]}"; do
    [ "$(tier "$e")" = cc ] || fail "$e does not run natively"
    [ "$(run "$e")" = "$(interp "$e")" ] || fail "$e: native $(run "$e"), interpreted $(interp "$e")"
done
out=$(FLUX_DUMP_NATIVE=1 "$FLUX" optimize r.flux step --rule "native code" --store s 2>&1 >/dev/null)
[[ "$out" == *"typedef struct { long long f0; long long f1; double f2; long long f3; } FxR0; /* Cell */"* ]] ||
    fail "no struct for Cell: $out"

# ---- what C cannot hold gives the call back: the interpreter's answer ----
e='total([{n: 10^20, k: 1, w: 1.0, on: true}])' # a field past int64
[ "$(run "$e")" = 100000000000000000001 ] || fail "$e: $(run "$e")"
e='total([{n: 9223372036854775807, k: 1, w: 1.0, on: true}])' # a sum past it
[ "$(run "$e")" = 9223372036854775808 ] || fail "$e: $(run "$e")"
[ "$(run 'weight([])')" = "$(interp 'weight([])')" ] || fail "an empty Float sum: $(run 'weight([])')"
run 'widest([])' 2>err && fail "max of nothing succeeded natively"
grep -q 'empty' err || fail "max of nothing: $(cat err)"
# a NaN compared: the interpreter's answer, whatever it is
e='heavier({n: 1, k: 1, w: 0.0 / 0.0, on: true}, cell(2))'
[ "$(run "$e" 2>&1)" = "$(interp "$e" 2>&1)" ] || fail "$e"

# ---- budgets stop native code as they stop the interpreter ----
run 'walk(cells(40), 1000000)' --max-steps 100000 2>err && fail "the step budget did not stop it"
grep -q 'step budget of 100000 steps' err || fail "steps: $(cat err)"
# `++` counts its elements as work, as the interpreter does
run 'grow([], 300)' --max-steps 6000 2>err && fail "the step budget did not stop ++"
grep -q 'step budget of 6000 steps' err || fail "++ steps: $(cat err)"
run 'grow([], 300)' --max-steps 7000 >/dev/null || fail "++ stopped with room to spare"

# ---- n-body: every intent but the formatting translates ----
nb="$root/examples/benchmarks/nbody.flux"
nrun() { "$FLUX" run "$nb" "$@" --no-learn --store n; }
nrun 'advance(system(), 300)' >/dev/null
nrun 'energy(system())' >/dev/null
nrun 'pulls(system(), 1, 0.01)' >/dev/null
nrun 'system()' >/dev/null
for i in advance energy pulls system; do
    out=$("$FLUX" optimize "$nb" $i --rule "native code" --store n)
    [[ "$out" == "$i: native code for v1: tcc "*"10000 random inputs" ]] || fail "nbody's $i: $out"
done
e='energy(advance(system(), 1000))'
[ "$(nrun "$e")" = "$(FLUX_NATIVE=off nrun "$e")" ] || fail "$e differs"
out=$(nrun 'advance(system(), 1000)' --json)
[[ "$out" == *'"native, tcc'* ]] || fail "advance does not run natively"
[ "$(nrun 'advance(system(), 1000)')" = "$(FLUX_NATIVE=off nrun 'advance(system(), 1000)')" ] ||
    fail "advance(system(), 1000) differs"

# ---- slices and reverse of lists: fannkuch-redux's helpers translate (the
# declarative one, bench/user/fannkuch.flux) ----
fk="$root/bench/user/fannkuch.flux"
frun() { "$FLUX" run "$fk" "$@" --no-learn --store f; }
frun 'rotated([0, 1, 2, 3, 4], 3, 1)' >/dev/null
frun 'flips([3, 1, 0, 2, 5, 4])' >/dev/null
for i in rotated flips; do
    out=$(FLUX_NATIVE_HOT_MS=0 "$FLUX" optimize "$fk" $i --rule "native code" --store f)
    [[ "$out" == "$i: native code for v1: tcc "*"10000 random inputs" ]] || fail "fannkuch's $i: $out"
done
for e in 'rotated([0, 1, 2, 3, 4], 3, 1)' 'rotated([5, 6], 1, 0)' 'flips([3, 1, 0, 2, 5, 4])' \
         'flips([0])'; do
    out=$(frun "$e" --json)
    [[ "$out" == *'"native, tcc'* ]] || fail "$e does not run natively"
    [ "$(frun "$e")" = "$(FLUX_NATIVE=off frun "$e")" ] || fail "$e differs"
done
# a slice out of range is the interpreter's error, with its words
e='rotated([0, 1], 5, 0)'
frun "$e" 2>err1 && fail "$e did not fail"
FLUX_NATIVE=off frun "$e" 2>err2 && fail "$e did not fail in the interpreter"
cmp -s err1 err2 || fail "$e: $(cat err1), the interpreter: $(cat err2)"

# a record-returning intent with an uncovered case (found by the generator):
# the failure's value, never computed, is declared with the record's type
cat > u.flux <<'F'
type Score = { score: Int }

intent calc(a: Int, b: Natural) -> Score:
    constraints:
        - calc(0, b) = {score: 34 + b}
F
"$FLUX" run u.flux 'calc(0, 5)' --store u --no-learn >/dev/null
out=$("$FLUX" optimize u.flux calc --rule "native code" --store u)
[[ "$out" == "calc: native code for v1: tcc "* ]] || fail "calc: $out"
[ "$("$FLUX" run u.flux 'calc(0, 5)' --store u --no-learn)" = '{score: 39}' ] || fail "calc(0, 5)"
"$FLUX" run u.flux 'calc(1, 5)' --store u --no-learn 2>err && fail "calc(1, 5) did not fail"
grep -q "no equation of \`calc\` covers the call calc(1, 5)" err || fail "calc(1, 5): $(cat err)"

# slices read once by what copies them are views, and a `++` onto a block
# the frame owns appends in place: each shape below, against the
# interpreter on 10,000 random inputs and on chosen ones (a list twice,
# empty parts, a slice out of range, a recursion that rebuilds its list)
cat > v.flux <<'F'
intent swap_halves(xs: List[Int], k: Natural) -> List[Int]:
    constraints:
        - result = xs[k..len(xs)] ++ xs[0..k]

intent twice(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs ++ xs

intent keeps(xs: List[Int], k: Natural) -> List[Int]:
    constraints:
        - result = reverse(xs[0..k]) ++ xs[k..len(xs)] ++ xs[0..k]

intent grown(xs: List[Int], k: Natural) -> List[Int]:
    constraints:
        - grown(xs, 0) = xs
        - grown(xs, k) = grown(reverse(xs[0..min(k, len(xs))]) ++ xs[min(k, len(xs))..len(xs)] ++ [k], k - 1)

intent pieces(xs: List[Float], k: Natural) -> List[Float]:
    constraints:
        - result = xs[0..k] ++ [1.5] ++ xs[k..len(xs)] ++ reverse(xs)
F
vrun() { "$FLUX" run v.flux "$@" --store v --no-learn; }
inputs=('swap_halves([1, 2, 3, 4, 5], 2)' 'swap_halves([], 0)' 'swap_halves([7], 1)'
        'twice([1, 2, 3])' 'twice([])' 'keeps([4, 5, 6, 7], 3)' 'keeps([1], 0)'
        'grown([3, 1, 2], 20)' 'grown([], 5)' 'pieces([0.5, -0.0, 2.25], 1)' 'pieces([], 0)')
for e in "${inputs[@]}"; do vrun "$e" >/dev/null; done
for i in swap_halves twice keeps grown pieces; do
    out=$("$FLUX" optimize v.flux $i --rule "native code" --store v)
    [[ "$out" == "$i: native code for v1: tcc "*"10000 random inputs" ]] || fail "$i: $out"
done
for e in "${inputs[@]}" 'swap_halves([1, 2], 3)'; do
    a=$(vrun "$e" 2>&1) || true
    b=$(FLUX_NATIVE=off vrun "$e" 2>&1) || true
    [ "$a" = "$b" ] || fail "$e: native $a, the interpreter $b"
done
out=$("$FLUX" run v.flux 'grown([3, 1, 2], 20)' --store v --no-learn --json)
[[ "$out" == *'"native, tcc'* ]] || fail "grown did not run natively: $out"
