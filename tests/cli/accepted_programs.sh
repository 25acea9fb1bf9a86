# Programs `flux check` accepts run without a crash, and give the right
# values: the comprehension bounds the checker accepted are the ones
# lowering uses (issue 12: `E = v` with E naming v, `x in xs` over a list),
# and min/max over several generators skip empty inner slices.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > p.flux <<'F'
intent perfect(n: Natural) -> List[Natural]:
    constraints:
        - result contains all x where 2 ≤ x ≤ n and sum(d for d in 1..x where x mod d = 0) = x
intent rev(p: Natural) -> Natural:
    constraints:
        - result = p mod 10 * 10 + p div 10
intent nonpal(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 10 ≤ p < n and rev(p) != p
intent g(a: Int) -> Int:
    constraints:
        - result = 0 - a
intent invol(n: Natural) -> List[Int]:
    constraints:
        - result contains all a where 0 - n ≤ a ≤ n and g(g(a)) = a
intent pos(xs: List[Int]) -> List[Int]:
    constraints:
        - result contains all x where x in xs and x > 0
intent posn(xs: List[Natural]) -> List[Natural]:
    constraints:
        - result contains all x where x in xs and x > 0
intent primes_of(xs: List[Int]) -> List[Int]:
    constraints:
        - result contains all primes p where p in xs
intent long_words(ws: List[String]) -> List[String]:
    constraints:
        - result contains all w where w in ws and len(w) > 2
        - result is sorted
intent profit(p: List[Int]) -> Int:
    constraints:
        - result = max(p[j] - p[i] for i in 0..len(p) for j in i+1..len(p))
intent primes_below(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where p < n
intent largest_gap(n: Natural) -> Natural:
    constraints:
        - result = max(primes_below(n)[i + 1] - primes_below(n)[i] for i in 0..len(primes_below(n)) - 1)
intent least_pair(n: Natural) -> Natural:
    constraints:
        - result = min(i + j for i in 0..n for j in 0..i)
intent by_abs(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending by abs
intent by_expr(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending by 0 - x
intent not_sorted(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs
        - result is sorted by abs
intent trace(A: Matrix[N, N, Int]) -> Int:
    constraints:
        - result = sum(A[i, i] for i in 0..N)
intent corner(A: Matrix[2, 3, Int]) -> Int:
    constraints:
        - result = A[1, 2]
F
"$FLUX" check p.flux 2>err || fail "check: $(cat err)"
expect() {
    local got
    got=$("$FLUX" run p.flux "$1" 2>&1); local rc=$?
    [ $rc = 0 ] && [ "$got" = "$2" ] || fail "$1: want $2, got rc=$rc $got"
}
expect 'perfect(500)' '[6, 28, 496]'
expect 'nonpal(40)' '[13, 17, 19, 23, 29, 31, 37]'
expect 'invol(2)' '[-2, -1, 0, 1, 2]'
expect 'pos([2, -1, 2, 5])' '[2, 2, 5]'
expect 'posn([2, 2, 5, 0])' '[2, 2, 5]'
expect 'primes_of([-7, 7, 4, 11, 11])' '[7, 11, 11]'
expect 'long_words(["ab", "zzzz", "abc", "abcd"])' '["abc", "abcd", "zzzz"]'
expect 'profit([7, 1, 5, 3, 6, 4])' 5
expect 'largest_gap(200)' 14
expect 'least_pair(4)' 1
"$FLUX" run p.flux 'least_pair(1)' 2>err; rc=$?
[ $rc = 1 ] && grep -q '`min`/`max` of an empty sequence' err || fail "all slices empty: rc=$rc $(cat err)"
# explain checks a keyed order by its key, and says so (issue 12: it said FAILS)
"$FLUX" explain p.flux 'by_abs([3, -1, 2, -3, 1])' >out 2>&1 || fail "explain by_abs: $(cat out)"
grep -q 'by_abs(\[3, -1, 2, -3, 1\]) = \[-1, 1, 2, 3, -3\]' out || fail "by_abs value: $(cat out)"
grep -q '`result is sorted ascending by abs`: checked again here: holds (5 elements)' out ||
    fail "by_abs: $(cat out)"
"$FLUX" explain p.flux 'by_expr([3, -1, 2, -3, 1])' >out 2>&1 || fail "explain by_expr: $(cat out)"
grep -q '`result is sorted descending by 0 - x`: checked again here: holds' out || fail "by_expr: $(cat out)"
"$FLUX" run p.flux 'not_sorted([2, -1])' >out 2>err; rc=$?
[ $rc = 1 ] && grep -q 'postcondition `result is sorted by abs`' err || fail "order as postcondition: rc=$rc $(cat err)"
# sizes a type declares equal, or literal, are checked
expect 'trace([[1, 2], [3, 4]])' 5
"$FLUX" run p.flux 'trace([[1, 2, 3]])' >out 2>err; rc=$?
[ $rc = 1 ] && grep -q 'the sizes of the arguments disagree with their types (`N` is both the rows of `A` and the columns of `A`)' err ||
    fail "Matrix[N, N]: rc=$rc $(cat err)"
expect 'corner([[1, 2, 3], [4, 5, 6]])' 6
"$FLUX" run p.flux 'corner([[1, 2], [4, 5]])' >out 2>err; rc=$?
[ $rc = 1 ] && grep -q '`A` must have 3 columns' err || fail "Matrix[2, 3]: rc=$rc $(cat err)"
# found by the generator of well-typed programs (tests/fuzz/found):
cat > found.flux <<'F'
type Pair = {name: Int}
type P2 = Pair
type Box = {}
type Names = List[Int]
intent column(n: Int, xs: Names) -> Matrix[len(xs), 1, Int]:
    constraints:
        - result[i, j] = n
intent post_or(xs: List[Int]) -> List[Int]:
    constraints:
        - result = xs
        - len(result) = 2 or true
intent any_concat(s: String) -> String:
    constraints:
        - result = if len(s) > 0 then s else max([]) ++ s
intent empty_box(b: Box) -> Box:
    constraints:
        - result = {}
intent corner(A: Matrix[R, C, Int]) -> Int:
    constraints:
        - result = A[0, 0]
intent one(n: Int) -> Matrix[1, 1, Int]:
    constraints:
        - one(0) = [[7]]
        - one(n) = [[n]]
F
"$FLUX" check found.flux 2>err || fail "found.flux: $(cat err)"
[ "$("$FLUX" run found.flux 'post_or([1, 2, 3])')" = '[1, 2, 3]' ] || fail "005: a postcondition read as an equation"
[ "$("$FLUX" run found.flux 'column(3, [1, 2])')" = '[[3], [3]]' ] || fail "013: len() of a parameter whose type is an alias"
[ "$("$FLUX" run found.flux 'any_concat("a")')" = '"a"' ] || fail "006"
[ "$("$FLUX" run found.flux 'empty_box({})')" = '{}' ] || fail "007: an alias taken for a record"
[ "$("$FLUX" run found.flux 'corner(one(0)) + corner(one(3))')" = 10 ] || fail "008: a list of rows as a matrix result"
# the prelude sees only the prelude, at run time too (found/012)
cat > shadow.flux <<'F'
intent abs(x: Int) -> Int:
    constraints:
        - result = 0 - x
intent gcd_of(a: Int, b: Int) -> Natural:
    constraints:
        - result = gcd(a, b)
F
[ "$("$FLUX" run shadow.flux 'gcd_of(-6, 4)')" = 2 ] || fail "the prelude's gcd called the program's abs"
[ "$("$FLUX" run shadow.flux 'abs(5)')" = -5 ] || fail "the program's abs"
# every equation counts, however many (the 257th was dropped, a wrong answer)
python3 -c "
print('intent many(n: Natural) -> Natural:\n    constraints:')
for i in range(300): print('        - many(%d) = %d' % (i, 2 * i))
print('        - many(n) = n')" > many.flux
[ "$("$FLUX" run many.flux 'many(299)')" = 598 ] || fail "300 equations: $("$FLUX" run many.flux 'many(299)' 2>&1)"
"$FLUX" graph p.flux nonpal >/dev/null || fail "graph nonpal"
"$FLUX" graph p.flux pos --format json >/dev/null || fail "graph pos"
exit 0
