#!/usr/bin/env bash
# optimize_shared_args.sh: the bytecode compiler's test for a node shared
# among a call's arguments (compile.c, shared_inside) read node 0, the id of
# an input left out (the filter a fold has not), as a node: `flux optimize`
# crashed (SIGSEGV) compiling a candidate version of score7, whose call of
# score2 takes a `max(... for ..., ... for ...)` among its arguments.
# Found by gen_fuzz --native 2 (seed 1796668228395); the program as made.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "optimize_shared_args: $*"; exit 1; }
cd "$tmp"
cat > main.flux <<'F'
intent sign() -> Int:
    constraints:
        - sign() = sum(sum(if false then k10 + 8 else k10 + k10 for k10 in 1..k9 mod 4) for k9 ∈ 2..=9 mod 6)
        - sign() = 94 when 72 in 1..=4
        - divides(count([-6]), result) or (result != result != 8) ≠ odd(result)
    properties:
        - total (a (b) c)
        - stateless (a (b) c)
        - total (a (b) c)

intent score2(xs3: List[Natural], flag4: Bool, n5: Natural, n6: Float) -> List[Int]:
    constraints:
        - len(result) = count((n5 + k12) * k12 for k12 in xs3) % 4
        - result[i11] = i11 + i11
    properties:
        - total (no side effects)  # trailing
        - total (no side effects)

intent score7(xs8: List[Natural]) -> Float:
    constraints:
        - score7(xs8) = sum(max(0.0, 1.5e10) / 1e-9 ^ 3 for k17 in 1..=2)
        - result = sum(max(0.0, 1.5e10) / 1e-9 ^ 3 for k17 in 1..=2)
        - result = product(score2(score2(xs8, true, 4, 0.5), 98 in 1..=3, abs(7 - 9), max(j14 for k13 in xs8, j14 in -3..0 for j15 in xs8))) when not true and not true
        - result = min(k16 for k16 ∈ xs8) when not true and not not true and (true or true)
        - score7(xs8) = xs8[0 mod max(1, len(xs8))] when true
F
out=$("$FLUX" run main.flux 'score7([34, 59, -1, 3])' --store s --no-learn) || fail "run: exit $?"
[ "$out" = 34 ] || fail "score7([34, 59, -1, 3]) = $out, want 34"
"$FLUX" optimize main.flux --store s >out 2>&1 || fail "optimize: exit $? ($(tail -n 3 out))"
[ "$("$FLUX" run main.flux 'score7([34, 59, -1, 3])' --store s --no-learn)" = 34 ] ||
    fail "after the round, score7([34, 59, -1, 3]) is not 34"
