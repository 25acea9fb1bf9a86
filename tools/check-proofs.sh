#!/usr/bin/env bash
# check-proofs.sh FILE...: walks every version in the store ($FLUX_STORE) of
# the intents of each FILE and checks that each one made by a rewrite has a
# stored proof that says proved, and that z3 (when installed) answers unsat
# to every obligation of it, read back from the store as SMT-LIB (a proof by
# identity, a kernel around the very same nodes, has no query to answer).
# Prints "N versions, N proofs checked"; exit 1 on the first failure.
set -u
FLUX=${FLUX:-$(dirname "$0")/../build/flux}
versions=0 proofs=0
for file in "$@"; do
    rows=$("$FLUX" history "$file" --json) || { echo "check-proofs: history of $file failed"; exit 1; }
    ids=$(printf '%s\n' "$rows" | python3 -c '
import json, sys
for line in sys.stdin:
    if not line.strip():
        continue
    v = json.loads(line)
    if v["rewrite"] is None:
        if v["version"] != "v1":
            sys.exit("%s %s: no rewrite made it, and it is not v1" % (v["intent"], v["version"]))
        print("v1")
        continue
    if not isinstance(v["proof_id"], int):
        sys.exit("%s %s: made by %s without a proof" % (v["intent"], v["version"], v["rewrite"]))
    print(v["proof_id"])') || { echo "check-proofs: $ids"; exit 1; }
    for id in $ids; do
        versions=$((versions + 1))
        [ "$id" = v1 ] && continue
        "$FLUX" proofs "$file" "$id" | grep -q "^proof #$id: proved by " ||
            { echo "check-proofs: proof #$id of $file is not proved"; exit 1; }
        smt=$("$FLUX" proofs "$file" "$id" --smt)
        if command -v z3 >/dev/null && printf '%s\n' "$smt" | grep -q '(check-sat)'; then
            out=$(printf '%s\n' "$smt" | z3 -in | sort -u)
            [ "$out" = unsat ] || { echo "check-proofs: z3 does not confirm proof #$id: $out"; exit 1; }
        fi
        proofs=$((proofs + 1))
    done
done
echo "$versions versions, $proofs proofs checked"
