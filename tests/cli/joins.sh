# A join written as two generators runs by a hash index (compile.c,
# compile_join) and gives exactly what the nested loops give: the same
# elements in the same order, duplicates, extra conditions, keys of
# different numeric kinds, and an empty outer side that evaluates nothing.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
python3 - <<'P'
import random
random.seed(7)
with open("emp.csv", "w") as f:
    f.write("name,age,dept\n")
    for i in range(3000):
        f.write("e%d,%d,d%d\n" % (i, random.randint(20, 60), random.randint(0, 120)))
with open("dept.csv", "w") as f:
    f.write("id,title\n")
    for i in range(150):  # some ids twice, some never used
        f.write("d%d,T%d\n" % (random.randint(0, 140), i))
P
cat > j.flux <<'F'
type Emp = { name: String, age: Int, dept: String }
type Dept = { id: String, title: String }
type Row = { name: String, title: String }
data employees: List[Emp] from "emp.csv"
data depts: List[Dept] from "dept.csv"
intent hashed(a: Int) -> List[Row]:
    constraints:
        - result = [{name: e.name, title: d.title} for e in employees for d in depts if e.dept = d.id and e.age > a]
intent nested(a: Int) -> List[Row]:
    constraints:
        - result = [{name: e.name, title: d.title} for e in employees for d in depts if e.age > a and e.dept = d.id]
intent pairs(xs: List[Int], ys: List[Float]) -> List[Float]:
    constraints:
        - result = [x * 10.0 + y for x in xs for y in ys if y = x]
intent none(xs: List[Int]) -> List[Int]:
    constraints:
        - result = [x for x in xs for y in [1 div 0] if x = y]
F
"$FLUX" check j.flux || fail "check"
h=$("$FLUX" run j.flux 'hashed(40)') && n=$("$FLUX" run j.flux 'nested(40)') || fail "run"
[ "$h" = "$n" ] || fail "hashed and nested differ"
[ "$("$FLUX" run j.flux 'len(hashed(0))')" = "$(python3 -c '
import csv
e = list(csv.DictReader(open("emp.csv"))); d = list(csv.DictReader(open("dept.csv")))
print(sum(1 for a in e for b in d if a["dept"] == b["id"]))')" ] || fail "count"
[ "$("$FLUX" run j.flux 'pairs([1, 2, 2, 3], [2.0, 1.0, 2.0, 5.0])')" = '[11.0, 22.0, 22.0, 22.0, 22.0]' ] ||
    fail "numeric keys: $("$FLUX" run j.flux 'pairs([1, 2, 2, 3], [2.0, 1.0, 2.0, 5.0])')"
[ "$("$FLUX" run j.flux 'none([])')" = '[]' ] || fail "empty outer side evaluated the inner one"
"$FLUX" run j.flux 'none([1])' >/dev/null 2>err; rc=$?
[ $rc = 1 ] && grep -q 'division by zero' err || fail "inner error: rc=$rc $(cat err)"
exit 0
