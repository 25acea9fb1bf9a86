# A program's warnings: `check` prints them; the other commands only with
# --warnings (issue 12: every run repeated every intent's warnings).
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > w.flux <<'F'
intent f(n: Natural) -> Natural:
    constraints:
        - result = n
    performance_hints:
        - go_faster
intent g(n: Natural) -> Natural:
    constraints:
        - result = n + 1
F
want='w.flux:5:11: warning: unknown performance hint `go_faster` is ignored'
"$FLUX" check w.flux 2>err; rc=$?
[ $rc = 0 ] && grep -q "^$want" err || fail "check: rc=$rc $(cat err)"
"$FLUX" run w.flux 'g(1)' >out 2>err; rc=$?
[ $rc = 0 ] && [ "$(cat out)" = 2 ] && [ ! -s err ] || fail "run: rc=$rc out=$(cat out) err=$(cat err)"
"$FLUX" run w.flux 'g(1)' --warnings >out 2>err
[ "$(cat out)" = 2 ] && grep -q "^$want" err || fail "run --warnings: $(cat err)"
"$FLUX" --warnings graph w.flux g >/dev/null 2>err
grep -q "^$want" err || fail "graph --warnings: $(cat err)"
"$FLUX" graph w.flux g >/dev/null 2>err
[ ! -s err ] || fail "graph: $(cat err)"
# a rejected program shows everything
printf 'intent h(n: Natural) -> Natural:\n    constraints:\n        - result = m\n' >> w.flux
"$FLUX" run w.flux 'g(1)' >out 2>err; rc=$?
[ $rc = 3 ] && grep -q "^$want" err && grep -q "error: unknown name \`m\`" err || fail "rejected: rc=$rc $(cat err)"
exit 0
