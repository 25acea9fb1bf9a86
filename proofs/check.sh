#!/bin/bash
# Compile the Coq library lemmas in dependency order (coqc -Q . Flux) in
# the folder this script lives in, then check with Print Assumptions that
# every main theorem listed in Assumptions.v is closed under the global
# context (no unproved assumption).  Exit 0 on success, 1 on failure,
# 2 when coqc is missing.
set -u
cd "$(dirname "$0")" || exit 1
command -v coqc >/dev/null 2>&1 || { echo "proofs: coqc not found on PATH" >&2; exit 2; }

# Library files in dependency order (LinRecPoly.v needs LinRec.v);
# Assumptions.v comes last.
FILES="LinRec.v LinRecPoly.v Sieve.v SortUnique.v Matmul.v Fusion.v"

for f in $FILES; do
    coqc -Q . Flux "$f" || { echo "proofs: $f does not compile" >&2; exit 1; }
done

out=$(coqc -Q . Flux Assumptions.v 2>&1) || { echo "$out" >&2; echo "proofs: Assumptions.v does not compile" >&2; exit 1; }

want=$(grep -c '^Print Assumptions ' Assumptions.v)
closed=$(printf '%s\n' "$out" | grep -c '^Closed under the global context$')
if [ "$closed" != "$want" ] || printf '%s\n' "$out" | grep -qv '^Closed under the global context$'; then
    printf '%s\n' "$out" >&2
    echo "proofs: $closed of $want theorems closed under the global context" >&2
    exit 1
fi
echo "proofs: $want theorems closed under the global context"
