#!/usr/bin/env bash
# native_inplace.sh: maps in their list's block in native code (docs/native.md,
# "Lists in place"). A list the frame owns and no one reads after is given
# to the callee; a map over its positions builds in its block; a map that
# changes a range of positions alone (`if i = k then ... else xs[i]`: a
# point update; `i < k`: a prefix, ...) runs that range only. Each shape,
# and each where the list must be copied (read after the map, passed twice),
# is equal to the interpreter for k before, inside and past the list.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native_inplace: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cat > m.flux <<'F'
type P = { a: Int, b: Float }

intent bump(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i = k then xs[i] + 1 else xs[i] for i in 0..len(xs)]

intent prefix(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i < k then xs[i] * 2 else xs[i] for i in 0..len(xs)]

intent upto(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i <= k then i - xs[i] else xs[i] for i in 0..len(xs)]

intent after(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i > k then xs[i] + i else xs[i] for i in 0..len(xs)]

intent from(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i >= k then 3 else xs[i] for i in 0..len(xs)]

// the identity first: changed where i = k
intent others(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i != k then xs[i] else xs[i] * 10 for i in 0..len(xs)]

// k on the left
intent left(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if k > i then xs[i] - 1 else xs[i] for i in 0..len(xs)]

// a guard on the position and a filter: every position is not appended
intent thin(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - result = [if i < k then xs[i] * 2 else xs[i] for i in 0..len(xs) if i mod 3 != 1]

intent tdrive(n: Natural, k: Int) -> Int:
    constraints:
        - result = total(thin(thin([i - 4 for i in 0..n], k), k + 1))

intent evens(xs: List[Int]) -> List[Int]:
    constraints:
        - result = [x for x in xs if x mod 2 = 0]

intent touch(ps: List[P], k: Int) -> List[P]:
    constraints:
        - result = [if p.a = k then p with {b: 2.5} else p for p in ps]

intent older(ps: List[P], k: Int) -> List[P]:
    constraints:
        - result = [p for p in ps if p.a > k]

intent total(xs: List[Int]) -> Int:
    constraints:
        - result = sum(x * (i + 1) for i in 0..len(xs) for x in [xs[i]])

intent weigh(ps: List[P]) -> Float:
    constraints:
        - result = sum(ps[i].b * ps[i].a * (i + 1) for i in 0..len(ps))

// each step hands its list on: owned from the first
intent chain(xs: List[Int], k: Int, n: Natural) -> List[Int]:
    constraints:
        - chain(xs, k, 0) = xs
        - chain(xs, k, n) = chain(left(others(from(after(upto(prefix(bump(xs, k), k - 1), k), k + 2), k + 3), k), k - 2), k + 1, n - 1)

intent drive(n: Natural, k: Int) -> Int:
    constraints:
        - result = total(chain([i * 3 - 7 for i in 0..n], k, 4))

// xs read after the map: a copy
intent shared(xs: List[Int], k: Int) -> Int:
    constraints:
        - result = total(bump(xs, k)) * 1000 + total(xs)

intent sdrive(n: Natural, k: Int) -> Int:
    constraints:
        - result = shared([i + 1 for i in 0..n], k)

// the same list as two arguments
intent pair(a: List[Int], b: List[Int]) -> Int:
    constraints:
        - result = total(a) * 100 + total(b)

intent twice(n: Natural, k: Int) -> Int:
    constraints:
        - result = both([i * i for i in 0..n], k)

intent both(xs: List[Int], k: Int) -> Int:
    constraints:
        - result = pair(bump(xs, k), xs) + pair(xs, prefix(xs, k))

intent edrive(n: Natural) -> Int:
    constraints:
        - result = total(evens(after([i * 7 mod 5 for i in 0..n], 2)))

intent rdrive(n: Natural, k: Int) -> Float:
    constraints:
        - result = weigh(older(touch(touch([{a: i, b: 0.5 * i} for i in 0..n], k), k + 1), k - 2))
F
"$FLUX" check m.flux || fail "m.flux does not check"
export FLUX_EXPLORE=off FLUX_NATIVE_HOT_MS=0
run() { "$FLUX" run m.flux "$@" --no-learn --store s; }
interp() { FLUX_NATIVE=off "$FLUX" run m.flux "$@" --no-learn --store s; }
tier() { # the native tier of EXPR's run, or "interpreted"
    local out
    out=$(run "$1" --json)
    if [[ "$out" =~ \"native,\ ([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo interpreted; fi
}
promote() { "$FLUX" optimize m.flux "$1" --rule "native code" --store s; }
dump() { FLUX_DUMP_NATIVE=1 "$FLUX" optimize m.flux "$1" --rule "native code" --store s 2>&1 >/dev/null; }

exprs=('drive(10, 3)' 'drive(0, 1)' 'drive(5, -3)' 'drive(9, 20)' 'drive(12, 11)' 'drive(7, 0)'
       'sdrive(6, 2)' 'sdrive(0, 0)' 'twice(5, 1)' 'twice(1, 0)' 'edrive(13)' 'edrive(0)'
       'rdrive(8, 3)' 'rdrive(3, 9)' 'bump([1, 2, 3], 1)' 'tdrive(11, 4)' 'tdrive(20, -1)'
       'drive(3000, 1500)' 'drive(5000, 7)')
for e in "${exprs[@]}"; do run "$e" >/dev/null; done
for i in drive sdrive twice edrive rdrive bump tdrive; do
    out=$(promote $i)
    [[ "$out" == "$i: native code for v1: "*"equal to the interpreter on "*" recorded and 10000 random inputs" ]] ||
        fail "$i is not compiled: $out"
done
for e in "${exprs[@]}"; do
    [ "$(tier "$e")" != interpreted ] || fail "$e does not run natively"
    [ "$(run "$e")" = "$(interp "$e")" ] || fail "$e: native $(run "$e"), interpreted $(interp "$e")"
done
# the code says so: each range map runs its range (rng), every map may
# build in place (own_), and a list is given (g0_) where none reads it after
code=$(dump drive)
for f in bump prefix upto after from others left; do
    body=$(printf '%s\n' "$code" | awk -v f="/* $f */" '$0 == f && !d {on = 1} on {print} on && /^}/ {on = 0; d = 1}')
    [[ "$body" == *"rng0 = 1"* ]] || fail "$f does not run its range alone"
done
[[ "$code" == *"int g0_ = 0; if ("* ]] || fail "drive gives no list to a callee"
for f in evens touch older thin; do
    body=$(dump edrive; dump rdrive; dump tdrive)
    body=$(printf '%s\n' "$body" | awk -v f="/* $f */" '$0 == f && !d {on = 1} on {print} on && /^}/ {on = 0; d = 1}')
    [[ "$body" == *"if (own_) { b0.p"* ]] || fail "$f does not build in its list's block"
    [[ "$body" != *"rng0"* ]] || fail "$f runs a range, though its guard is not on the position"
done
# the step budget stops a chain of range maps as it stops the interpreter
run 'drive(100000, 5)' --max-steps 20000 2>err && fail "the step budget did not stop it"
grep -q 'step budget of 20000 steps' err || fail "steps: $(cat err)"
echo "native_inplace: ${#exprs[@]} calls equal to the interpreter, natively"
