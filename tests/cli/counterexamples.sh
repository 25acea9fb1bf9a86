# Every counterexample the prover prints reproduces: for each wrong rewrite
# of the suite (tests/prove/rewrites.flux, `NAME__bad_K`), `flux proofs
# --check` prints its counterexamples, and `flux run` of the intent and of
# the candidate on those arguments gives what each one says (the value, or
# a failure). And rewrites that fail alike on both sides (a division by
# zero) are proved, not refuted with a counterexample that does not hold.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$root/tests/prove/rewrites.flux" rw.flux

# outcome INTENT ARGS: "gives VALUE" or "fails"
outcome() {
    local v
    if v=$("$FLUX" run rw.flux "$1($2)" --store runs --no-learn --quiet 2>/dev/null); then
        echo "gives $v"
    else
        echo fails
    fi
}

checked=0
for cand in $(sed -n 's/^intent \([a-z_0-9]*__bad_[a-z_0-9]*\)(.*/\1/p' rw.flux); do
    base=${cand%%__*}
    out=$("$FLUX" proofs rw.flux --check "$base" "$cand" --store st)
    [ $? = 3 ] || fail "$cand: a wrong rewrite not rejected: $out"
    while IFS= read -r cex; do
        [ -n "$cex" ] || continue
        # a = 0, b = 1: the current version gives -1, the candidate 1
        args=$(printf '%s\n' "$cex" | sed 's/: the current version .*//; s/[a-z_0-9]* = //g')
        said_cur=$(printf '%s\n' "$cex" | sed 's/.*: the current version \(gives [^,]*\|fails\).*/\1/')
        said_cand=$(printf '%s\n' "$cex" | sed 's/.*, the candidate //; s/^fails.*/fails/')
        case $said_cand in fails | gives*) ;; *) said_cand="gives $said_cand" ;; esac
        ran_cur=$(outcome "$base" "$args")
        ran_cand=$(outcome "$cand" "$args")
        [ "$ran_cur" = "$said_cur" ] && [ "$ran_cand" = "$said_cand" ] ||
            fail "$cand: \"$cex\" does not reproduce: $base($args) $ran_cur, $cand($args) $ran_cand"
        [ "$ran_cur" != "$ran_cand" ] || fail "$cand: \"$cex\": both versions $ran_cur"
        checked=$((checked + 1))
    done <<EOF
$(printf '%s\n' "$out" | sed -n 's/^ *counterexample: //p')
EOF
done
[ "$checked" -ge 15 ] || fail "only $checked counterexamples were checked"

# division or remainder by zero on both sides: proved
for pair in remainder:remainder__ok_1 ratio:ratio__ok_1 never:never__ok_1; do
    out=$("$FLUX" proofs rw.flux --check "${pair%%:*}" "${pair#*:}" --store st) ||
        fail "${pair#*:}: a rewrite that fails where its intent fails was rejected: $out"
    printf '%s\n' "$out" | grep -q "^${pair#*:} as a rewrite of ${pair%%:*}: proved" || fail "$out"
done
exit 0
