# A list's element's field, xs[i].f, where xs[i] is used nowhere else, is
# one instruction (OP_INDEXF, src/exec/compile.c): the same values and the
# same errors as the element read then its field, for lists built in the
# program and for records read from a file (a table kept by column).
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'name,x,w\na,1,0.5\nb,2,1.5\nc,30,-2.25\n' > rows.csv
cat > p.flux <<'F'
type P = {name: String, x: Int, w: Float}
data rows: List[P] from "rows.csv"
intent pick(ps: List[P], i: Int) -> Int:
    constraints:
        - result = ps[i].x
intent total(ps: List[P]) -> Float:
    constraints:
        - result = sum(ps[k].w * 2.0 for k in 0..len(ps))
intent names(ps: List[P]) -> List[String]:
    constraints:
        - result = [ps[k].name for k in 0..len(ps)]
intent both(ps: List[P], i: Int) -> Int:
    constraints:
        - result = ps[i].x + len(ps[i].name)
intent from_file(i: Int) -> String:
    constraints:
        - result = rows[i].name
F
run() { "$FLUX" run p.flux "$1" 2>err >out; }
L='[{name: "a", x: 1, w: 0.5}, {name: "bb", x: 2, w: 1.5}]'
run "pick($L, 1)" && [ "$(cat out)" = 2 ] || fail "pick: $(cat out err)"
run "total($L)" && [ "$(cat out)" = 4.0 ] || fail "total: $(cat out err)"
run "names($L)" && [ "$(cat out)" = '["a", "bb"]' ] || fail "names: $(cat out err)"
run "both($L, 1)" && [ "$(cat out)" = 4 ] || fail "both: $(cat out err)"
run "total(rows)" && [ "$(cat out)" = -0.5 ] || fail "total(rows): $(cat out err)"
# the element and its field in one instruction, then the return
FLUX_DUMP_BYTECODE=1 "$FLUX" run p.flux "pick($L, 0)" 2>err >out
# (the first compilation only: a learning round after the run compiles it again)
[ "$(awk '/bytecode of pick/{p=1;next} /bytecode of/{if(p)exit} p' err | grep -c ' op ')" = 2 ] ||
    fail "pick is not one read: $(cat err)"
run "from_file(2)" && [ "$(cat out)" = '"c"' ] || fail "from_file: $(cat out err)"
run "pick($L, 5)"; rc=$?
[ $rc = 1 ] && grep -q 'p.flux:5:20: in `pick`: index 5 is out of range for a list of 2' err ||
    fail "out of range: rc=$rc $(cat err)"
run "pick($L, -1)"; rc=$?
[ $rc = 1 ] && grep -q 'index -1 is out of range for a list of 2' err || fail "negative: $(cat err)"
run "from_file(3)"; rc=$?
[ $rc = 1 ] && grep -q 'index 3 is out of range for a list of 3' err || fail "file row: $(cat err)"
exit 0
