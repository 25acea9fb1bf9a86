# flux proofs: checking rewrites by hand, listing, and SMT-LIB that the z3
# command line answers the same way.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$root/tests/prove/rewrites.flux" rw.flux
p() { "$FLUX" proofs rw.flux --store st "$@"; }
out=$(p --check square_sum square_sum__ok_1) || fail "a right rewrite was rejected: $out"
printf '%s\n' "$out" | grep -q '^square_sum__ok_1 as a rewrite of square_sum: proved (proof #1' || fail "$out"
out=$(p --check sub sub__bad_1_cex); rc=$?
[ $rc = 3 ] || fail "a wrong rewrite: want exit 3, got $rc"
printf '%s\n' "$out" | grep -q 'counterexample: a = 0, b = 1: the current version gives -1, the candidate 1' ||
    fail "no counterexample: $out"
out=$(p) || fail "listing"
printf '%s\n' "$out" | grep -q '^proof #2: rewrite by hand: sub__bad_1_cex for `sub`: rejected' || fail "listing: $out"
[ "$(p --json | wc -l)" = 2 ] || fail "--json: one line per proof"
p 1 --coq | grep -q 'SortUnique.v' || fail "--coq"
p 99 >/dev/null 2>&1; [ $? = 2 ] || fail "unknown proof: want 2"
p --check nosuch sub >/dev/null 2>&1; [ $? = 2 ] || fail "unknown intent: want 2"
if command -v z3 >/dev/null; then
    # every obligation of a proof is unsat; a refutation has a sat one
    [ "$(p 1 --smt | z3 -in | sort -u)" = unsat ] || fail "z3 does not confirm proof #1: $(p 1 --smt | z3 -in)"
    p 2 --smt | z3 -in | grep -qx sat || fail "z3 does not confirm the refutation #2"
fi
exit 0
