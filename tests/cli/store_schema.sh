# A store from a newer flux is refused (exit 4); one from an older flux is
# migrated and keeps its rows, its proofs sealed as they are.
set -u
fixture=$(cd "$(dirname "$0")" && pwd)/fixtures/store_v1.sql
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'intent sq(n: Int) -> Int:\n    constraints:\n        - result = n * n\n' > f.flux
"$FLUX" run f.flux 'sq(3)' --store new >/dev/null || fail "first run"
python3 -c 'import sqlite3; db = sqlite3.connect("new/flux.db"); db.execute("pragma user_version = 99"); db.commit()'
"$FLUX" run f.flux 'sq(4)' --store new 2>err >/dev/null; rc=$?
[ $rc = 4 ] || fail "newer schema: want exit 4, got $rc"
grep -q 'has schema version 99, newer than this flux (8)' err || fail "message: $(cat err)"
"$FLUX" traces f.flux --store new >/dev/null 2>&1; [ $? = 4 ] || fail "traces on a newer store: want 4"

# version 1: the first release's schema, with one execution in it
mkdir old
python3 -c 'import sqlite3, sys; db = sqlite3.connect("old/flux.db"); db.executescript(open(sys.argv[1]).read()); db.commit()' "$fixture" ||
    fail "making the old store"
"$FLUX" run f.flux 'sq(6)' --store old >/dev/null || fail "migrating run failed"
python3 - <<'PY2' || exit 1
import sqlite3, sys
db = sqlite3.connect("old/flux.db")
v = db.execute("pragma user_version").fetchone()[0]
cols = [r[1] for r in db.execute("pragma table_info(executions)")]
vcols = [r[1] for r in db.execute("pragma table_info(versions)")]
n = db.execute("select count(*) from executions").fetchone()[0]
kept = db.execute("select expr from executions where id = 1").fetchone()
t = db.execute("select count(*) from sqlite_master where name = 'proposals'").fetchone()[0]
c = db.execute("select count(*) from sqlite_master where name = 'cost_models'").fetchone()[0]
rounds = db.execute("select count(*) from sqlite_master where name = 'rounds'").fetchone()[0]
ncols = [r[1] for r in db.execute("pragma table_info(node_counts)")]
if v != 8 or c != 1 or rounds != 1 or "ns" not in ncols or "kernels" not in cols or "output_bytes" not in cols or "rolled_back" not in vcols or n != 2 or t != 1 or kept != ("sq(2)",):
    sys.exit("not migrated: version %d, columns %s, %d executions, proposals %d, kept %s" % (v, cols, n, t, kept))
PY2
"$FLUX" traces f.flux --store old | grep -q 'sq(6)\|{"n": 6}' || fail "traces after migration"

# version 5: a learned store made before proofs were sealed. The migration
# seals its proofs from the rows as they are (nothing earlier was signed):
# the learned version still runs, with no warning; a version that had no
# proof is still refused.
cat > fib.flux <<'FLUX'
intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n-1) + fib(n-2)
FLUX
for n in 20 25 25 27; do FLUX_LEARN=off "$FLUX" run fib.flux "fib($n)" --store v5 >/dev/null || fail "fib($n)"; done
"$FLUX" optimize fib.flux --store v5 | grep -q 'installed v2' || fail "no v2 to migrate"
cp -r v5 v5bare
for st in v5 v5bare; do
    python3 - "$st/flux.db" <<'PY' || fail "making a version-5 store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for c in ("graph_before", "graph_after", "certificate", "chain"):
    db.execute("alter table proofs drop column " + c)
# version 8 added the node times, the kernel calls and the learning rounds
db.execute("alter table node_counts drop column ns")
db.execute("alter table executions drop column kernels")
db.execute("drop table rounds")
# before version 7 the decisions were a table of their own
db.execute("drop view decisions")
db.execute("create table decisions (id integer primary key, execution integer not null"
           " references executions(id), seq integer not null, decision text, reason text,"
           " proof_id integer)")
db.execute("create index decisions_by_execution on decisions(execution, seq)")
db.execute("insert into decisions(execution, seq, decision, reason) select e.id, d.key,"
           " d.value ->> '$.decision', d.value ->> '$.reason' from executions e,"
           " json_each(e.decisions) d")
db.execute("pragma user_version = 5")
db.commit()
PY
done
python3 -c 'import sqlite3; db = sqlite3.connect("v5bare/flux.db"); db.execute("update versions set proof_id = null where label = '"'v2'"'"); db.commit()'
FLUX_LEARN=off "$FLUX" run fib.flux 'fib(30)' --store v5 --json > out 2> err || fail "migrating v5"
[ ! -s err ] || fail "a warning after the migration: $(cat err)"
grep -q '"graph_version": "v2"' out || fail "v2 does not run after the migration: $(cat out)"
python3 - v5/flux.db <<'PY' || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
v = db.execute("pragma user_version").fetchone()[0]
sealed = db.execute("select count(*) from proofs p join versions v on v.proof_id = p.id "
                    "where p.graph_before is not null and p.graph_after is not null "
                    "and p.certificate is not null and p.chain is not null").fetchone()[0]
kind = db.execute("select type from sqlite_master where name = 'decisions'").fetchone()[0]
rows = db.execute("select count(*) from decisions").fetchone()[0]
runs = db.execute("select count(*) from executions").fetchone()[0]
if v != 8 or sealed != 1 or kind != "view" or rows < runs:
    sys.exit("v5 not migrated: version %d, %d proofs sealed, decisions a %s of %d rows for %d runs"
             % (v, sealed, kind, rows, runs))
PY
FLUX_LEARN=off "$FLUX" run fib.flux 'fib(30)' --store v5bare 2> err | grep -qx 832040 || fail "v5bare"
grep -q 'version v2 of `fib` is refused: it is the memoization rewrite of v1, and no proof covers it' err ||
    fail "v5bare: $(cat err)"
exit 0
