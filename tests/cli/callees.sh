#!/usr/bin/env bash
# callees.sh: learning over the call tree (docs/optimizer.md, "Which
# intents a round considers"). A run's time is in the intents its EXPR
# calls; each recorded run keeps a call profile, and learning calls every
# callee that took a significant share alone, records that run as the
# callee's, and gives the callee rounds of its own, callees first. Here a
# recursion called through a wrapper is memoized without ever being called
# by the user, its proof is recorded and verified, the answer is unchanged,
# and a callee below the share is named as not considered.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "callees: $*"; exit 1; }
cd "$tmp"
cat > p.flux <<'F'
intent steps(n: Natural) -> Natural:
    constraints:
        - steps(0) = 0
        - steps(1) = 1
        - steps(n) = steps(n - 1) + steps(n - 2)

intent label(n: Natural) -> String:
    constraints:
        - result = "n = " ++ str(n)

intent report(n: Natural) -> String:
    constraints:
        - result = label(n) ++ ": " ++ str(steps(n))
F
want='"n = 22: 17711"'

# a store where nothing is learned keeps no profile and no callee run
out=$(FLUX_LEARN=off "$FLUX" run p.flux 'report(22)' --store plain)
[ "$out" = "$want" ] || fail "v1 printed $out"
"$FLUX" history p.flux --store plain | grep -q '^steps' && fail "steps has a lineage before learning"

# flux optimize FILE: the callee is considered, run alone, and memoized
out=$("$FLUX" optimize p.flux --store plain)
echo "$out" | grep -Eq '^steps: considered, as a callee of report: [0-9]+% of the time of report\(22\) \(exec [0-9]+\); its first call there ran alone in [0-9.e+]+ ms \(exec [0-9]+\)$' ||
    fail "optimize did not consider steps: $out"
echo "$out" | grep -q '^label: not considered, as a callee of report: under 5% of the run' ||
    fail "optimize did not say why label was not considered: $out"
# callees first: steps's round comes before report's
first=$(echo "$out" | grep -nE '^steps: (installed|v1)' | head -1 | cut -d: -f1)
last=$(echo "$out" | grep -nE '^report: ' | grep -v considered | head -1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$last" ] && [ "$first" -lt "$last" ] || fail "steps's round is not before report's: $out"
"$FLUX" history p.flux --store plain | grep -q '^steps v2 .*' || fail "steps has no v2"
"$FLUX" history p.flux --store plain | grep -A1 '^steps v2' | grep -q 'rewrite memoization, proof' ||
    fail "steps v2 is not memoization with a proof: $("$FLUX" history p.flux --store plain)"
out=$("$FLUX" proofs p.flux --store plain --verify)
echo "$out" | grep -q '^steps v2: proof #[0-9]* holds' || fail "steps v2's proof does not verify: $out"

# ordinary runs learn the same way, in the run's learning process
out=$(FLUX_LEARN=wait "$FLUX" run p.flux 'report(22)' --store runs)
[ "$out" = "$want" ] || fail "the first run printed $out"
"$FLUX" history p.flux --store runs | grep -A1 '^steps v2' | grep -q 'rewrite memoization' ||
    fail "a run's learning did not memoize steps: $("$FLUX" history p.flux --store runs)"
for _ in 1 2 3; do
    out=$(FLUX_LEARN=wait "$FLUX" run p.flux 'report(22)' --store runs)
    [ "$out" = "$want" ] || fail "a trained run printed $out"
done
# the trained call runs steps's v2 (its run-time check passes: the answer is the same)
out=$(FLUX_LEARN=off "$FLUX" run p.flux 'steps(25)' --store runs --json)
echo "$out" | grep -q '"graph_version": "v2"' || fail "steps(25) did not run v2: $out"

# a recursive helper keyed by lists (a knapsack), which the user never
# calls: it is considered, memoized with the lists as keys once a timing
# shows the table pays, and a size that v1 cannot finish in 20 s answers
cat > k.flux <<'F'
intent best(ws: List[Natural], vs: List[Natural], i: Natural, c: Natural) -> Natural:
    constraints:
        - best(ws, vs, i, c) = 0 when i >= len(ws)
        - best(ws, vs, i, c) = best(ws, vs, i + 1, c) when ws[i] > c
        - best(ws, vs, i, c) = max(best(ws, vs, i + 1, c), vs[i] + best(ws, vs, i + 1, c - ws[i]))

intent knapsack(n: Natural, c: Natural) -> Natural:
    constraints:
        - result = best([1 + (k * 7) mod 13 for k in 0..n], [1 + (k * 11) mod 17 for k in 0..n], 0, c)
F
[ "$("$FLUX" run k.flux 'knapsack(20, 40)' --store k)" = 103 ] || fail "knapsack(20, 40) is not 103"
"$FLUX" history k.flux --store k | grep -A1 '^best v2' | grep -q 'rewrite memoization, proof' ||
    fail "best was not memoized by its lists: $("$FLUX" history k.flux --store k)"
"$FLUX" proofs k.flux --store k --verify | grep -q '^best v2: proof #[0-9]* holds' ||
    fail "best v2's proof does not verify"
out=$(FLUX_LEARN=off "$FLUX" run k.flux 'knapsack(40, 100)' --store k --max-seconds 20) ||
    fail "the trained knapsack(40, 100) did not finish"
[ "$out" = 230 ] || fail "knapsack(40, 100) printed $out"

# a callee's call is printed again only as rounds fall due (the 1st,
# 2nd, 4th ... run): the 3rd run's call is not kept, the 4th's is
kept() { sqlite3 counts/flux.db "SELECT value FROM learned WHERE kind = 'callee_call'"; }
if command -v sqlite3 >/dev/null; then
    for n in 22 22 23; do FLUX_LEARN=off "$FLUX" run p.flux "report($n)" --store counts >/dev/null; done
    [ "$(kept)" = 'steps(22)' ] || fail "after a 3rd run the kept call is $(kept), not steps(22)"
    FLUX_LEARN=off "$FLUX" run p.flux 'report(23)' --store counts >/dev/null
    [ "$(kept)" = 'steps(23)' ] || fail "after a 4th run the kept call is $(kept), not steps(23)"
fi

# a profile names only the intents of the file; a taken call records no
# profile of its own (the caller's covers it)
n=$(sqlite3 runs/flux.db "SELECT count(*) FROM learned WHERE kind = 'call_profile'" 2>/dev/null ||
    echo skip)
[ "$n" = skip ] || [ "$n" = 1 ] || fail "$n call profiles kept, 1 expected"
echo ok
