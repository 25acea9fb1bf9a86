# The Benchmarks Game programs of examples/benchmarks/ print the published
# outputs at the standard small sizes (n-body 1,000 steps, spectral-norm
# 100, fannkuch-redux 7, binary-trees 10), and mandelbrot 200 the count of
# points that the C version of bench/game/ finds on the same grid.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
dir="$root/examples/benchmarks"

# PROGRAM EXPR: the printed String, its escapes (\n, \t, \") decoded
text() {
    out=$("$FLUX" run "$dir/$1.flux" "$2" 2>"$tmp/err") || fail "$1: $2: $(cat "$tmp/err")"
    case $out in \"*\") ;; *) fail "$1: not a String: $out" ;; esac
    out=${out#\"}
    printf '%b' "${out%\"}"
}
expect() {
    got=$(text "$1" "$2")
    [ "$got" = "$3" ] || fail "$1: $2 printed
$got
not the published
$3"
}

expect nbody 'nbody(1000)' '-0.169075164
-0.169087605'
expect spectral_norm 'spectral_norm(100)' '1.274219991'
expect fannkuch_redux 'fannkuch_redux(7)' '228
Pfannkuchen(7) = 16'
t=$(printf '\t')
expect binary_trees 'binary_trees(10)' "stretch tree of depth 11$t check: 4095
1024$t trees of depth 4$t check: 31744
256$t trees of depth 6$t check: 32512
64$t trees of depth 8$t check: 32704
16$t trees of depth 10$t check: 32752
long lived tree of depth 10$t check: 2047"

# mandelbrot: the count, and the C version's on the same grid
cc -O2 -o "$tmp/mandelbrot" "$root/bench/game/mandelbrot.c" || fail "cannot build the C mandelbrot"
want=$("$tmp/mandelbrot" 200)
got=$("$FLUX" run "$dir/mandelbrot.flux" 'mandelbrot(200)') || fail "mandelbrot(200) failed"
[ "$got" = "$want" ] && [ "$got" = 15899 ] || fail "mandelbrot(200): $got, the C version $want"
[ "$("$FLUX" run "$dir/mandelbrot.flux" 'mandelbrot(16)')" = "$("$tmp/mandelbrot" 16)" ] ||
    fail "mandelbrot(16) differs from the C version"

# the programs written as users write them (bench/user) print what their C prints
while read -r name intent size _; do
    cc -O2 -o "$tmp/$name" "$root/bench/user/$name.c" -lm || fail "cannot build bench/user/$name.c"
    small=$((size / 10 > 2 ? size / 10 : size - 2)) # fannkuch's 9: 7
    got=$("$FLUX" run "$root/bench/user/$name.flux" "$intent($small)") ||
        fail "$intent($small) failed"
    got=${got#\"}
    got=$(printf '%b' "${got%\"}") # a String's \n as C prints it
    # numbers compared as numbers: C's %.9f keeps trailing zeros Flux drops
    awk -v a="$got" -v b="$("$tmp/$name" "$small")" 'BEGIN { exit !(a == b || a + 0 == b + 0) }' || fail "$intent($small): $got, the C version $("$tmp/$name" "$small")"
    "$FLUX" check --warnings "$root/bench/user/$name.flux" >/dev/null 2>&1 || fail "bench/user/$name.flux warns"
done < <(grep -v '^#' "$root/bench/user/programs")

# every program checks without a warning
for f in "$dir"/*.flux; do
    out=$("$FLUX" check --warnings "$f" 2>&1) && [ -z "$out" ] || fail "$(basename "$f"): $out"
done
exit 0
