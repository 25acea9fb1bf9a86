#!/usr/bin/env bash
# stdlib.sh: the standard library (lib/std/, docs/stdlib.md): every module
# checks on its own, `import std.NAME` reads it from the binary, each intent
# gives the values below (a few computed independently by python3), and an
# unknown module is an error at the import, naming the modules there are.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "stdlib: $*"; exit 1; }
for m in "$root"/lib/std/*.flux; do
    "$FLUX" check "$m" || fail "$(basename "$m") does not check"
done
modules=$(cd "$root/lib/std" && ls ./*.flux | sed 's|^\./||; s|\.flux$||')
for m in $modules; do echo "import std.$m"; done > "$tmp/all.flux"
cd "$tmp"
n=0
while IFS='|' read -r expr want; do
    [[ -z "$expr" ]] && continue
    got=$("$FLUX" run all.flux "$expr" --store s --no-learn 2>&1) || fail "$expr: $got"
    [[ "$got" == "$want" ]] || fail "$expr = $got, expected $want"
    n=$((n + 1))
done <<'TABLE'
factorial(20)|2432902008176640000
binomial(50, 25)|126410606437752
binomial(3, 5)|0
power_mod(-2, 3, 5)|2
divisors(28)|[1, 2, 4, 7, 14, 28]
sum_of_divisors(28)|56
is_perfect(28)|true
is_perfect(12)|false
digit_sum(987654321)|45
totient(36)|12
prime_count(100)|25
is_square(144)|true
is_square(145)|false
sorted([3, 1, 2, -5])|[-5, 1, 2, 3]
take([1, 2, 3, 4], 2)|[1, 2]
drop([1, 2, 3, 4], 3)|[4]
count_of([1, 2, 1, 1], 1)|3
index_of([4, 5, 6], 6)|2
index_of([4, 5, 6], 9)|-1
unique([3, 1, 3, 2, 1])|[3, 1, 2]
running_sum([1, 2, 3, 4])|[1, 3, 6, 10]
pairwise_differences([1, 4, 9, 16])|[3, 5, 7]
argmax([3, 9, 2, 9])|1
interleave([1, 3, 5], [2, 4])|[1, 2, 3, 4]
average([1.0, 2.0, 3.0, 4.0])|2.5
variance([1.0, 2.0, 3.0, 4.0])|1.25
std_dev([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])|2.0
median([3.0, 1.0, 2.0])|2.0
median([4.0, 1.0, 3.0, 2.0])|2.5
value_range([1.5, -2.0, 7.0])|9.0
transpose([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])|[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]
matrix_add([[1.0, 2.0]], [[3.0, 4.0]])|[[4.0, 6.0]]
matrix_scale([[1.0, 2.0]], 2.5)|[[2.5, 5.0]]
matrix_product([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]])|[[17.0], [39.0]]
trace([[1.0, 2.0], [3.0, 4.0]])|5.0
dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])|32.0
matrix_vector([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])|[3.0, 7.0]
determinant2([[1.0, 2.0], [3.0, 4.0]])|-2.0
words("the quick  brown fox")|["the", "quick", "brown", "fox"]
word_total("the quick  brown fox")|4
is_palindrome_text("Level")|true
repeat("ab", 3)|"ababab"
count_substring("banana", "ana")|2
title_case("hello wORLD of flux")|"Hello World Of Flux"
vowel_count("Programming Flux")|4
TABLE
# against python3's own arithmetic
for args in "3, 200, 1000007" "12345, 6789, 99991" "2, 1000, 1"; do
    want=$(python3 -c "print(pow($args))")
    got=$("$FLUX" run all.flux "power_mod($args)" --store s --no-learn)
    [[ "$got" == "$want" ]] || fail "power_mod($args) = $got, python3 says $want"
done
got=$("$FLUX" run all.flux "binomial(200, 77)" --store s --no-learn)
[[ "$got" == "$(python3 -c 'import math; print(math.comb(200, 77))')" ]] || fail "binomial(200, 77)"
got=$("$FLUX" run all.flux "correlation([1.0, 2.0, 3.0, 5.0], [2.0, 4.0, 6.5, 9.0])" --store s --no-learn)
python3 - "$got" <<'PY' || fail "correlation: $got"
import statistics, sys
want = statistics.correlation([1.0, 2.0, 3.0, 5.0], [2.0, 4.0, 6.5, 9.0])
assert abs(float(sys.argv[1]) - want) < 1e-12, (sys.argv[1], want)
PY
# errors: a mean of nothing, an unknown module
"$FLUX" run all.flux "average([])" --store s 2>err >/dev/null && fail "average([]) ran"
grep -q 'empty' err || fail "average([]): $(cat err)"
printf 'import std.nope\n' > bad.flux
"$FLUX" check bad.flux 2>err && fail "std.nope accepted"
grep -q "^bad.flux:1:8: error: no module \`std.nope\` in the standard library (it has std.lists, std.matrices, std.numbers, std.stats, std.text)" err ||
    fail "unknown module: $(cat err)"
echo "stdlib: ok ($n values)"
