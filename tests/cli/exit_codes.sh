# The exit codes of docs/cli.md, as a script sees them.
set -u
cd "$(dirname "$0")/../.."
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$FLUX" >/dev/null 2>&1; [ $? = 2 ] || fail "no command: want exit 2"
"$FLUX" frobnicate >/dev/null 2>"$tmp/err"; [ $? = 2 ] || fail "unknown command: want 2"
grep -q "unknown command \`frobnicate\`" "$tmp/err" || fail "unknown command not named"
"$FLUX" check >/dev/null 2>&1; [ $? = 2 ] || fail "check without FILE: want 2"
"$FLUX" check --bogus x.flux >/dev/null 2>&1; [ $? = 2 ] || fail "bad flag: want 2"
"$FLUX" check "$tmp/missing.flux" >/dev/null 2>"$tmp/err"; [ $? = 2 ] || fail "missing file: want 2"
grep -q "cannot read" "$tmp/err" || fail "missing file: no message"
"$FLUX" --help | grep -q "usage: flux" || fail "--help"
"$FLUX" check --help | grep -q "usage: flux check" || fail "check --help"
"$FLUX" --version | grep -q "^flux " || fail "--version"

out=$("$FLUX" check examples/fibonacci.flux 2>&1); rc=$?
[ $rc = 0 ] && [ -z "$out" ] || fail "fibonacci: want silent exit 0, got $rc: $out"

printf 'intent f(n: Nat) -> Int:\n    constraints:\n        - result = n\n' > "$tmp/bad.flux"
"$FLUX" check "$tmp/bad.flux" 2>"$tmp/err" >"$tmp/out"; rc=$?
[ $rc = 3 ] || fail "rejected program: want 3, got $rc"
[ ! -s "$tmp/out" ] || fail "diagnostics must go to stderr only"
head -n 1 "$tmp/err" | grep -qE "^$tmp/bad.flux:1:13: error: unknown type \`Nat\`" ||
    fail "diagnostic form: $(head -n 1 "$tmp/err")"
sed -n 3p "$tmp/err" | grep -q '^      |             \^~~$' || fail "caret line: $(sed -n 3p "$tmp/err")"
exit 0
