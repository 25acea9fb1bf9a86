# The prover on the numeric library (docs/prover.md, "Library functions"):
# the laws of isqrt and log2 prove what follows from them and refute a
# wrong rewrite with a true counterexample; a true rewrite that needs more
# than the laws, and anything over Floats (sqrt(x) * sqrt(x) as x,
# floor(x) <= x), is not proved, so not installable.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$root/tests/prove/library_laws.flux" laws.flux
# INTENT CANDIDATE EXIT LINE: the verdict's exit status and a line of its report
verdict() {
    out=$("$FLUX" proofs laws.flux --store st --check "$1" "$2"); rc=$?
    [ $rc = "$3" ] || fail "$2 for $1: want exit $3, got $rc: $out"
    printf '%s\n' "$out" | grep -qF -- "$4" || fail "$2 for $1: no '$4' in: $out"
}
verdict root_fits root_fits__law 0 'root_fits__law as a rewrite of root_fits: proved'
verdict roots_ordered roots_ordered__law 0 'roots_ordered__law as a rewrite of roots_ordered: proved'
verdict twice twice__power 3 'validity    unknown'
verdict half_root half_root__wrong 3 'counterexample: n = 1: the current version gives 1, the candidate 0'
verdict square square__real 3 'validity    unknown'
verdict down down__law 3 'validity    unknown'
# the checker's properties use the same laws: isqrt is monotone, proved; a
# property over a Float function is not
cat >props.flux <<'F'
intent root(n: Natural) -> Natural:
    constraints:
        - result = isqrt(n)
    properties:
        - monotone

intent lg(n: Natural) -> Natural:
    constraints:
        - result = log2(n + 1)
    properties:
        - monotone

intent root_down(n: Natural) -> Int:
    constraints:
        - result = -isqrt(n)
    properties:
        - monotone

intent grows(x: Float) -> Float:
    constraints:
        - result = exp(x)
    properties:
        - monotone
F
out=$("$FLUX" check --describe props.flux 2>&1); rc=$?
[ $rc = 0 ] || [ $rc = 3 ] || fail "check --describe: exit $rc: $out"
desc() { printf '%s\n' "$out" | grep -A3 "^intent $1(" | grep 'property monotone'; }
desc root | grep -q 'holds, proved by Z3' || fail "isqrt is not proved monotone: $out"
desc lg | grep -q 'holds, proved by Z3' || fail "log2 is not proved monotone: $out"
desc root_down | grep -q 'proved by Z3' && fail "-isqrt proved monotone: $out"
desc grows | grep -q 'proved by Z3' && fail "exp proved monotone over Floats: $out"
# the refuted rewrite's counterexample is the run's answer
[ "$("$FLUX" run laws.flux 'half_root(1)' --store st)" = 1 ] || fail "half_root(1) is not 1"
# the optimizer's own round over these intents proves or installs nothing wrong, and does not crash
"$FLUX" run laws.flux 'square(2.0)' --store st >/dev/null || fail "square(2.0) did not run"
"$FLUX" optimize laws.flux --store st >/dev/null 2>&1; rc=$?
[ $rc = 0 ] || fail "flux optimize on the library's functions: exit $rc"
[ "$("$FLUX" run laws.flux 'square(2.0)' --store st)" = 2.0000000000000004 ] || fail "square(2.0) changed"
exit 0
