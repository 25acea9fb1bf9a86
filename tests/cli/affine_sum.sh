# The closed-form sum kernel (FX_KERNEL_AFFINE_SUM, docs/extending.md): a
# round measures sum(3 * i - k for i in 1..n) against its closed form and
# installs it, proved; the answers stay those of v1 on empty, one-element,
# small and huge ranges; a body not affine in the variable (i * i) stays a
# loop.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
cat > sums.flux <<'FX'
intent total(n: Natural, k: Int) -> Int:
    constraints:
        - result = sum(3 * i - k for i in 1..n)

intent squares(n: Natural) -> Int:
    constraints:
        - result = sum(i * i for i in 0..n)
FX
args=("0, 7" "1, 7" "2, -5" "10, 2" "1000001, 7" "100000000000000000000, 3")
for a in "${args[@]:0:5}"; do "$FLUX" run sums.flux "total($a)"; done > v1 || fail "v1"
"$FLUX" run sums.flux "squares(300000)" > squares.v1 || fail "v1 squares"
out=$("$FLUX" optimize sums.flux) || fail "optimize"
case $out in *"total: installed v2: closed-form sum (proof #"*) ;; *) fail "total: $out" ;; esac
case $out in *"squares: v1 stays: "*"closed-form sum does not apply (no sum over a range has a body affine in its variable)"*) ;;
*) fail "squares: $out" ;; esac
for a in "${args[@]:0:5}"; do "$FLUX" run sums.flux "total($a)"; done | cmp -s - v1 || fail "total changed"
[ "$("$FLUX" run sums.flux "total(${args[5]})")" = 14999999999999999999550000000000000000003 ] ||
    fail "total past int64"
"$FLUX" graph sums.flux total | grep -q 'fold sum \[slot 2\] \[affine_sum\]' || fail "graph"
"$FLUX" proofs sums.flux 1 | grep -q 'obligation contract: e affine in i' || fail "proofs"
exit 0
