# The numeric library (docs/language.md §5, "Numbers") through the CLI:
# each Float function on the edge cases (zeros, negatives, subnormals, the
# largest double, infinities, NaN, integers past 2^53 and past the largest
# double) printed by `flux run` and read back, against C's libm called by a
# small C program compiled here; the exact integer functions; pi and e and
# the names that hide them; the positioned errors of the functions whose
# result is an integer (exit 1), and type errors (exit 3).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off

# libm FUNC, then per line an argument (two for pow/atan2) and Flux's printed
# result: "ok" when the printed result reads back as libm's double
cat >"$tmp/libm.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    const char *f = argv[1];
    double x, y = 0, got;
    char a[64], b[64], g[64];
    int two = !strcmp(f, "pow") || !strcmp(f, "atan2"), line = 0, bad = 0;
    while ((two ? scanf("%63s %63s %63s", a, b, g) : scanf("%63s %63s", a, g)) == 2 + two) {
        x = strtod(a, NULL), y = two ? strtod(b, NULL) : 0, got = strtod(g, NULL);
        double want = !strcmp(f, "sqrt") ? sqrt(x) : !strcmp(f, "exp") ? exp(x)
                    : !strcmp(f, "log") ? log(x) : !strcmp(f, "sin") ? sin(x)
                    : !strcmp(f, "cos") ? cos(x) : !strcmp(f, "tan") ? tan(x)
                    : !strcmp(f, "floor") ? floor(x) : !strcmp(f, "ceil") ? ceil(x)
                    : !strcmp(f, "round") ? round(x) : !strcmp(f, "abs") ? fabs(x)
                    : !strcmp(f, "pow") ? pow(x, y) : atan2(x, y);
        if (!(isnan(want) ? isnan(got) : memcmp(&want, &got, sizeof got) == 0)) {
            printf("%s(%s%s%s) = %s, libm %.17g\n", f, a, two ? ", " : "", two ? b : "", g, want);
            bad = 1;
        }
        line++;
    }
    printf(bad || line == 0 ? "bad (%d)\n" : "ok (%d)\n", line);
    return 0;
}
C
cc -O0 -o "$tmp/libm" "$tmp/libm.c" -lm || fail "cannot compile the libm helper"
touch "$tmp/empty.flux"

# the arguments, as Flux reads them and as strtod reads them
fx_args='[0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3, -7, 1e-310, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1e300, 709.78, 710, -745.2, pi, e, 1e22, 0.1, 2^53 + 1, 10^400, -10^400, float("inf"), float("-inf"), float("nan")]'
c_args='0.0 -0.0 1.0 -1.0 0.5 -2.5 2.5 3 -7 1e-310 5e-324 2.2250738585072014e-308 1.7976931348623157e308 -1e300 709.78 710 -745.2 3.141592653589793 2.718281828459045 1e22 0.1 9007199254740992 inf -inf inf -inf nan'

# the elements of a printed list, one a line
elements() { sed -e 's/^\[//' -e 's/\]$//' -e 's/, /\n/g'; }

for f in sqrt exp log sin cos tan floor ceil round; do
    out=$("$FLUX" run "$tmp/empty.flux" "[$f(x) for x in $fx_args]" 2>&1) || fail "$f: $out"
    verdict=$(paste <(printf '%s\n' $c_args) <(printf '%s\n' "$out" | elements) | "$tmp/libm" "$f")
    [ "$verdict" = "ok (27)" ] || fail "$f against libm: $verdict"
done
# abs of a Float is fabs (of an integer, the prelude's exact intent)
floats='[0.0, -0.0, -2.5, 1e-310, -1e300, float("-inf"), float("nan")]'
out=$("$FLUX" run "$tmp/empty.flux" "[abs(x) for x in $floats]" 2>&1) || fail "abs: $out"
verdict=$(paste <(printf '%s\n' 0.0 -0.0 -2.5 1e-310 -1e300 -inf nan) <(printf '%s\n' "$out" | elements) |
          "$tmp/libm" abs)
[ "$verdict" = "ok (7)" ] || fail "abs against libm: $verdict"
# the two-argument ones, every pair of a smaller set
pairs_fx='[0.0, -0.0, 1.0, -1.0, 0.5, 2, -3, 1e-310, 1e300, float("inf"), float("-inf"), float("nan")]'
pairs_c='0.0 -0.0 1.0 -1.0 0.5 2 -3 1e-310 1e300 inf -inf nan'
for f in pow atan2; do
    out=$("$FLUX" run "$tmp/empty.flux" "[$f(x, y) for x in $pairs_fx for y in $pairs_fx]" 2>&1) ||
        fail "$f: $out"
    verdict=$(paste -d' ' <(for x in $pairs_c; do for y in $pairs_c; do echo "$x $y"; done; done) \
                  <(printf '%s\n' "$out" | elements) | "$tmp/libm" "$f")
    [ "$verdict" = "ok (144)" ] || fail "$f against libm: $verdict"
done

# FILE EXPR WANT: exit 0 and exactly WANT on stdout
expect() {
    out=$("$FLUX" run "$1" "$2" 2>"$tmp/err"); rc=$?
    [ $rc = 0 ] && [ "$out" = "$3" ] && [ ! -s "$tmp/err" ] ||
        fail "flux run '$2': rc=$rc, got: $out $(cat "$tmp/err"); want: $3"
}
e="$tmp/empty.flux"
expect "$e" 'isqrt(10^40 + 1)' 100000000000000000000
# a sum or product of Floats is a Float, also of nothing (it was the Int 0)
cat >"$tmp/sums.flux" <<'F'
intent total(xs: List[Float]) -> Float:
    constraints:
        - result = sum(x * 2.0 for x in xs)

intent scale(xs: List[Float]) -> Float:
    constraints:
        - result = product(x for x in xs)
F
expect "$tmp/sums.flux" '[total([]), total([1.5]), total([-0.0]), scale([]), scale([2.5, 2.0])]' \
    '[0.0, 3.0, 0.0, 1.0, 5.0]'
expect "$e" '[isqrt(0), isqrt(15), isqrt(16), log2(1), log2(1023), log2(1024), log2(2^200 - 1)]' \
       '[0, 3, 4, 0, 9, 10, 199]'
expect "$e" '[abs(-5), abs(-2^70)]' '[5, 1180591620717411303424]'
expect "$e" '[pi, e, cos(pi), round(2.5), round(-0.5), floor(-0.5), ceil(-0.5)]' \
       '[3.141592653589793, 2.718281828459045, -1.0, 3.0, -1.0, -1.0, -0.0]'
expect "$e" '[int(2.9), int(-2.9), int(round(2.5)), int(1e20)]' '[2, -2, 3, 100000000000000000000]'
expect "$e" '[min(1, 2.5), max(float("nan"), 1), min(k * 0.5 for k in 1..4), max([1, 2.5, 2])]' \
       '[1.0, 1.0, 0.5, 2.5]'

# a parameter, a pattern variable or an intent's own name hides a constant
cat >"$tmp/shadow.flux" <<'F'
intent bump(e: Int) -> Int:
    constraints:
        - result = e + 1

intent circle(r: Float) -> Float:
    constraints:
        - result = pi * r * r

intent hyp(x: Float, y: Float) -> Float:
    constraints:
        - result = sqrt(x * x + y * y)

intent root(n: Int) -> Natural:
    constraints:
        - result = isqrt(n)
F
expect "$tmp/shadow.flux" 'bump(41)' 42
expect "$tmp/shadow.flux" 'circle(2.0)' 12.566370614359172
expect "$tmp/shadow.flux" 'hyp(3, 4)' 5.0

# errors with positions where the type promises an integer (exit 1)
expect_error() {
    out=$("$FLUX" run "$1" "$2" 2>"$tmp/err"); rc=$?
    [ $rc = 1 ] && [ "$(cat "$tmp/err")" = "$3" ] ||
        fail "flux run '$2': rc=$rc, got: $out $(cat "$tmp/err"); want error: $3"
}
expect_error "$e" '1 + isqrt(-4)' '<expr>:1:5: in `<expr>`: `isqrt` needs an integer >= 0, not -4'
expect_error "$e" 'log2(0)' '<expr>:1:1: in `<expr>`: `log2` needs an integer >= 1, not 0'
expect_error "$e" 'int(sqrt(-1.0))' '<expr>:1:1: in `<expr>`: `int` needs a finite Float, not nan'
expect_error "$e" 'int(exp(1000))' '<expr>:1:1: in `<expr>`: `int` needs a finite Float, not inf'
expect_error "$tmp/shadow.flux" 'root(-9)' \
    "$tmp/shadow.flux:15:20: in \`root\`: \`isqrt\` needs an integer >= 0, not -9"

# subnormals print in their shortest form too, as the normal doubles do
for x in 5e-324 1e-310 2.5e-320 -4e-323 2.225073858507201e-308; do
    got=$("$FLUX" run "$e" "$x * 1.0") || fail "$x"
    [ "$got" = "$x" ] || fail "subnormal $x printed as $got"
done

# type errors in the expression (exit 2, as for any expression that does not check)
expect_check_error() {
    out=$("$FLUX" run "$1" "$2" 2>&1); rc=$?
    [ $rc = 2 ] && printf '%s\n' "$out" | grep -qF -- "$3" ||
        fail "flux run '$2': rc=$rc, got: $out; want: $3"
}
expect_check_error "$e" 'isqrt(2.0)' 'argument `n` of `isqrt` must be an integer, but it is Float'
expect_check_error "$e" 'sqrt("4")' 'argument `x` of `sqrt` must be a number, but it is String'
expect_check_error "$e" 'atan2(1.0)' '`atan2` takes two arguments, but 1 was given'
expect_check_error "$e" 'sqr(2.0)' 'unknown function `sqr`; did you mean `sqrt`?'
echo ok
