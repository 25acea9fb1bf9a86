# The learned proposer (docs/optimizer.md): its state lives in the store
# and a later process reads what an earlier one wrote: after a process
# that learned on one recurrence (simplification made nothing there,
# memoization and the loop installed), another process, on another
# program's recurrence, ranks one of those first (a fresh store ranks the
# table's first rule, simplification, first) and shows the earlier rewards
# in its history, the memo version's corrected by its measured speed-up. A row that does not parse is ignored with a warning, never an
# error. --rule tries one rule alone.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
recurrence() { # FILE NAME COEFFICIENT
    cat > "$1" <<FX
intent $2(n: Natural) -> Natural:
    constraints:
        - $2(0) = 0
        - $2(1) = 1
        - $2(n) = $3 * $2(n-1) + $2(n-2)
FX
}
recurrence a.flux first 1
recurrence b.flux second 3
for n in 16 17 18; do "$FLUX" run a.flux "first($n)" >/dev/null || fail "run a $n"; done
for n in 14 15 16; do "$FLUX" run b.flux "second($n)" >/dev/null || fail "run b $n"; done

# a fresh store's ranking is the table's order
cp -r store fresh
out=$("$FLUX" optimize b.flux --store fresh --explain) || fail "fresh: exit $?"
printf '%s\n' "$out" | grep -q '^  1\. simplification: score' || fail "fresh ranking: $out"

# process 1 learns on `first` (until it stays; v2 runs before the next
# round, which corrects v2's reward by its measured speed-up), process 2
# ranks `second`
for round in 1 2 3; do
    out=$("$FLUX" optimize a.flux --explain) || fail "a: exit $?"
    case $out in *" stays: "*) break ;; esac
    for n in 16 17 18 16 17 18; do "$FLUX" run a.flux "first($n)" >/dev/null || fail "run a $n"; done
done
printf '%s\n' "$out" | grep -q 'cumulative reward [-+0-9.]* over [1-9][0-9]* pulls' ||
    fail "no reward history: $out"
printf '%s\n' "$out" | grep -q '(memoization, first: measured v2 [0-9.e+]*x)' ||
    fail "v2's reward not corrected by its measured speed-up: $out"
out=$("$FLUX" optimize b.flux --explain) || fail "b: exit $?"
printf '%s\n' "$out" | grep -q '^  1\. \(memoization\|recursion to iteration\): score .* [1-9][0-9]* pulls before; installed v2' ||
    fail "the learned ranking: $out"
printf '%s\n' "$out" | grep -q 'proposer rewards, newest last: .*(memoization, first: installed v2)' ||
    fail "process 1's rewards not in process 2's history: $out"

# a corrupt row: a warning on stderr, the round goes on from the table's order
sqlite3 store/flux.db "UPDATE learned SET value = '{\"dim\": 21, \"arms\": [' WHERE kind = 'proposer'" ||
    fail "corrupting the row"
[ "$(sqlite3 store/flux.db "SELECT count(*) FROM learned WHERE kind = 'proposer'")" = 1 ] ||
    fail "no proposer row"
for n in 10 11 12; do "$FLUX" run b.flux "second($n)" >/dev/null || fail "run b $n"; done
out=$("$FLUX" optimize b.flux --explain 2>err) || fail "corrupt: exit $?"
grep -q "^flux: warning: the learned proposer's state in the store does not parse; ignored" err ||
    fail "no warning: $(cat err)"
printf '%s\n' "$out" | grep -q 'cumulative reward [-+0-9.]* over [1-9] pulls$' || fail "not afresh: $out"
# and it was replaced by a state that parses: no warning next time
"$FLUX" optimize b.flux 2>err >/dev/null || fail "after: exit $?"
[ ! -s err ] || fail "warned again: $(cat err)"

# --rule: one rule alone; a name that is no rule's
out=$("$FLUX" optimize a.flux --rule "sort kernels") || fail "--rule: exit $?"
case $out in *"first: v"*" stays: sort kernels does not apply ("*) ;; *) fail "--rule: $out" ;; esac
out=$("$FLUX" optimize a.flux --rule "no such rule") || fail "--rule unknown: exit $?"
case $out in *" stays: no rule of that name") ;; *) fail "--rule unknown: $out" ;; esac
exit 0
