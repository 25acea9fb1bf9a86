# Nesting is bounded (docs/language.md §5): past 1000 levels a program or
# an EXPR is an error at its position, never a stack overflow; up to the
# limit every pass (check, lower, run, graph, explain) works.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > s.flux <<'F'
intent id(n: Int) -> Int:
    constraints:
        - result = n
F
msg='this nests deeper than 1000 levels, the most Flux allows; split it into intents'
too_deep() { # NAME EXPR: exit 2 with the message at a position
    "$FLUX" run s.flux "$2" >out 2>err; local rc=$?
    [ $rc = 2 ] || fail "$1: want exit 2, got $rc: $(head -c 300 err)"
    grep -q "^<expr>:1:[0-9]*: error: $msg" err || fail "$1: $(head -c 300 err)"
}
too_deep parens "$(python3 -c "print('(' * 10400 + '1' + ')' * 10400)")"
too_deep unclosed "$(python3 -c "print('(' * 10400 + '1')")"
too_deep brackets "$(python3 -c "print('[' * 10400 + '1' + ']' * 10400)")"
too_deep sum "$(python3 -c "print('+'.join(['1'] * 18000))")"
too_deep nots "$(python3 -c "print('not ' * 18000 + 'true')")"
too_deep negations "$(python3 -c "print('- ' * 18000 + '1')")"
too_deep powers "$(python3 -c "print('2^' * 18000 + '1')")"

python3 -c "print('intent deep(n: Int) -> Int:\n    constraints:\n        - result = ' + '(' * 100000 + 'n' + ')' * 100000)" > deep.flux
"$FLUX" check deep.flux >/dev/null 2>err; rc=$?
[ $rc = 3 ] && grep -q "^deep.flux:3:1020: error: $msg" err || fail "file: rc=$rc $(head -c 300 err)"
python3 -c "print('intent deep(xs: ' + 'List[' * 5000 + 'Int' + ']' * 5000 + ') -> Int:\n    constraints:\n        - result = 1')" > types.flux
"$FLUX" check types.flux >/dev/null 2>err; rc=$?
[ $rc = 3 ] && grep -q "error: $msg" err || fail "types: rc=$rc $(head -c 300 err)"

# just under the limit: everything works
python3 - <<'P'
n = 998
s = "intent wide(n: Int) -> Int:\n    constraints:\n        - result = " + "+".join(["n"] * 1000) + "\n"
s += "intent parens(n: Int) -> Int:\n    constraints:\n        - result = " + "(" * n + "n" + ")" * n + "\n"
s += "intent nots(b: Bool) -> Bool:\n    constraints:\n        - result = " + "not " * n + "b\n"
s += "intent lists(n: Int) -> Int:\n    constraints:\n        - result = len(" + "[" * (n - 2) + "n" + "]" * (n - 2) + ")\n"
s += "intent rec(n: Natural) -> Natural:\n    constraints:\n        - rec(0) = 0\n        - rec(n) = rec(n - 1) + " + "+".join(["1"] * 990) + "\n"
open("edge.flux", "w").write(s)
P
"$FLUX" check edge.flux 2>err || fail "edge check: $(head -c 300 err)"
expect() {
    local got; got=$("$FLUX" run edge.flux "$1" 2>&1)
    [ "$got" = "$2" ] || fail "$1: want $2, got $(printf '%s' "$got" | head -c 300)"
}
expect 'wide(1)' 1000
expect 'parens(7)' 7
expect 'nots(true)' true
expect 'lists(3)' 1
expect 'rec(5)' 4950
expect "$(python3 -c "print('+'.join(['1'] * 999))")" 999
for i in wide parens nots lists rec; do
    for fmt in text dot json; do
        "$FLUX" graph edge.flux $i --format $fmt >/dev/null 2>err || fail "graph $i $fmt: $(head -c 300 err)"
    done
done
"$FLUX" explain edge.flux 'rec(3)' >/dev/null 2>err || fail "explain: $(head -c 300 err)"
exit 0
