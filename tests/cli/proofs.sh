# The Coq library lemmas in proofs/ compile, and every main theorem is
# closed under the global context (no Admitted, no unproved assumption).
# Skipped when coqc is not installed.
set -u
cd "$(dirname "$0")/../.."
fail() { echo "$*"; exit 1; }

command -v coqc >/dev/null 2>&1 || { echo "proofs: coqc not on PATH, skipped"; exit 0; }

hits=$(grep -nE 'Admitted|admit|Axiom|Parameter|Hypothesis' proofs/*.v)
[ -z "$hits" ] || fail "proofs: forbidden word in proofs/*.v: $hits"

# Compile in a copy so that no .vo/.glob is left in the tree.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r proofs "$tmp/proofs" || fail "proofs: cannot copy proofs/"
rm -f "$tmp"/proofs/*.vo "$tmp"/proofs/*.vok "$tmp"/proofs/*.vos "$tmp"/proofs/*.glob
out=$(bash "$tmp/proofs/check.sh" 2>&1); rc=$?
[ $rc = 0 ] || fail "proofs: check failed (exit $rc): $out"
printf '%s\n' "$out" | grep -q 'closed under the global context' || fail "proofs: unexpected check output: $out"
exit 0
