#!/usr/bin/env bash
# native_reverse.sh: `reverse(p[0..k]) ++ p[k..len(p)]` in native code
# (docs/native.md, "Lists"). The `++` reverses as it copies, one block and
# no other; where the frame owns p's block and nothing but the result is
# read after, the prefix is reversed in place. Each shape where it must not
# be (p read after, in the next turn of a loop, by another argument, the
# two sides not p's prefix and the rest, an empty side, records) is equal
# to the interpreter; a flip loop reverses in place (the code says so).
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_reverse: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > r.flux <<'F'
type P = { a: Int, b: Float }

// the flips of fannkuch: p owned after the first turn, in place
intent flips(p: List[Natural]) -> Natural:
    constraints:
        - flips(p) = 0 when p[0] = 0
        - flips(p) = 1 + flips(reverse(p[0..p[0] + 1]) ++ p[p[0] + 1..len(p)])

// p read after the `++`: a copy
intent keep(p: List[Int], k: Natural) -> Int:
    constraints:
        - result = total(reverse(p[0..k]) ++ p[k..len(p)]) * 1000 + p[0] * 10 + len(p)

intent total(p: List[Int]) -> Int:
    constraints:
        - result = sum(x for x in p)

// read in the next turn of a loop: a copy each turn
intent each(p: List[Int]) -> List[Int]:
    constraints:
        - result = [total(reverse(p[0..k]) ++ p[k..len(p)]) * k + p[k] for k in 0..len(p)]

// the two sides from different points: no in place
intent skew(p: List[Int], k: Natural) -> List[Int]:
    constraints:
        - result = reverse(p[0..k]) ++ p[k div 2..len(p)]

// the same list twice, as two arguments
intent twice(p: List[Int], k: Natural) -> List[Int]:
    constraints:
        - result = pair(reverse(p[0..k]) ++ p[k..len(p)], p)

intent pair(a: List[Int], b: List[Int]) -> List[Int]:
    constraints:
        - result = a ++ [0] ++ b

// a tail recursion whose list the caller still holds
intent spin(p: List[Int], n: Natural) -> List[Int]:
    constraints:
        - spin(p, 0) = p
        - spin(p, n) = spin(reverse(p[0..n mod len(p) + 1]) ++ p[n mod len(p) + 1..len(p)], n - 1)

intent outer(p: List[Int], n: Natural) -> Int:
    constraints:
        - result = total(spin(p, n)) * 100 + total(p) * 7 + p[0]

// records, in place in a loop of flips
intent rflip(ps: List[P], n: Natural) -> List[P]:
    constraints:
        - rflip(ps, 0) = ps
        - rflip(ps, n) = rflip(reverse(ps[0..n mod len(ps) + 1]) ++ ps[n mod len(ps) + 1..len(ps)], n - 1)

intent rsum(n: Natural, m: Natural) -> Float:
    constraints:
        - result = weigh(rflip([{a: i, b: 0.5 * i} for i in 0..m], n))

// the order matters: each element weighed by its position
intent weigh(ps: List[P]) -> Float:
    constraints:
        - result = sum(ps[i].b * ps[i].a * (i + 1) for i in 0..len(ps))
F
"$FLUX" check r.flux || fail "r.flux does not check"
export FLUX_EXPLORE=off FLUX_NATIVE_HOT_MS=0
run() { "$FLUX" run r.flux "$@" --no-learn --store s; }
interp() { FLUX_NATIVE=off "$FLUX" run r.flux "$@" --no-learn --store s; }
tier() { # the native tier of EXPR's run, or "interpreted"
    local out
    out=$(run "$1" --json)
    if [[ "$out" =~ \"native,\ ([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo interpreted; fi
}
promote() { "$FLUX" optimize r.flux "$1" --rule "native code" --store s; }

exprs=('flips([3, 1, 4, 0, 2])' 'flips([0])' 'flips([8, 2, 6, 4, 0, 7, 1, 5, 3])'
       'keep([5, 6, 7, 8], 2)' 'keep([5, 6, 7, 8], 0)' 'keep([5, 6, 7, 8], 4)'
       'each([1, 2, 3, 4, 5])' 'each([])' 'skew([1, 2, 3, 4, 5, 6], 4)' 'skew([1, 2], 0)'
       'twice([1, 2, 3, 4], 3)' 'twice([9], 1)' 'outer([4, 3, 2, 1, 0], 17)' 'outer([1], 3)'
       'rsum(25, 7)' 'rsum(3, 1)')
for e in "${exprs[@]}"; do run "$e" >/dev/null; done
# each by tcc; flips, whose loop reverses in place, by cc -O2 too
for i in flips keep each skew twice outer rsum flips; do
    out=$(promote $i)
    [[ "$out" == "$i: native code for v1: "*"equal to the interpreter on "*" recorded and 10000 random inputs" ]] ||
        fail "$i is not compiled: $out"
done
[[ "$out" == "flips: native code for v1: cc -O2 "* ]] || fail "flips is not compiled by cc: $out"
for e in "${exprs[@]}"; do
    [ "$(tier "$e")" != interpreted ] || fail "$e does not run natively"
    [ "$(run "$e")" = "$(interp "$e")" ] || fail "$e: native $(run "$e"), interpreted $(interp "$e")"
done
# the flip loop reverses in place; where p is read after, the code cannot
# (skew may, but its sides are checked as it runs: not p's prefix and rest)
code=$(FLUX_DUMP_NATIVE=1 "$FLUX" optimize r.flux flips --rule "native code" --store s 2>&1 >/dev/null)
[[ "$code" == *"q_[i_] = q_[j_]"* ]] || fail "flips does not reverse in place: $code"
for i in keep each; do
    code=$(FLUX_DUMP_NATIVE=1 "$FLUX" optimize r.flux $i --rule "native code" --store s 2>&1 >/dev/null)
    [[ "$code" != *"q_[i_] = q_[j_]"* ]] || fail "$i reverses in place where p is read after"
done
# a step budget stops the flips as it stops the interpreter
run 'outer([4, 3, 2, 1, 0], 1000000)' --max-steps 100000 2>err && fail "the step budget did not stop it"
grep -q 'step budget of 100000 steps' err || fail "steps: $(cat err)"
echo "native_reverse: ${#exprs[@]} calls equal to the interpreter, natively"
