# `replay` of a run whose data file changed since prints DIFFERENT and exits
# 5, with or without --json; the same result exits 0.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cat > shop.flux <<'F'
type Item = { name: String, price: Int }
data items: List[Item] from "items.csv"
intent total() -> Int:
    constraints:
        - result = sum(i.price for i in items)
F
printf 'name,price\ncup,3\nplate,12\n' > items.csv
id=$("$FLUX" run --json shop.flux 'total()' | python3 -c 'import json,sys; print(json.load(sys.stdin)["execution_id"])') ||
    fail "run"
out=$("$FLUX" replay "$id"); rc=$?
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^  result: 15, the same as recorded$' ||
    fail "unchanged: rc=$rc $out"

printf 'name,price\ncup,4\nplate,12\n' > items.csv
out=$("$FLUX" replay "$id" 2>err); rc=$?
[ $rc = 5 ] && [ ! -s err ] && printf '%s\n' "$out" | grep -q '^  result: 16, DIFFERENT from the recorded$' &&
    printf '%s\n' "$out" | grep -q '^          recorded: 15$' || fail "changed: rc=$rc $out $(cat err)"
"$FLUX" replay "$id" --json > json; rc=$?
[ $rc = 5 ] && python3 -c '
import json; d = json.load(open("json"))
assert d["same_result"] is False and d["recorded_output"] == 15 and d["output"] == 16, d' ||
    fail "changed, --json: rc=$rc $(cat json)"

# back as it was: the same again
printf 'name,price\ncup,3\nplate,12\n' > items.csv
"$FLUX" replay "$id" >/dev/null; rc=$?
[ $rc = 0 ] || fail "restored: rc=$rc"
# a data file that is gone is a run-time error, not a difference
rm items.csv
"$FLUX" replay "$id" >/dev/null 2>err; rc=$?
[ $rc = 1 ] && grep -q 'cannot read data file' err || fail "gone: rc=$rc $(cat err)"
exit 0
