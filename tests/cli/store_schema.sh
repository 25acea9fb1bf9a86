# A store from a newer flux is refused (exit 4); one from an older flux is
# migrated and keeps its rows.
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
grep -q 'has schema version 99, newer than this flux (5)' err || fail "message: $(cat err)"
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
if v != 5 or c != 1 or "output_bytes" not in cols or "rolled_back" not in vcols or n != 2 or t != 1 or kept != ("sq(2)",):
    sys.exit("not migrated: version %d, columns %s, %d executions, proposals %d, kept %s" % (v, cols, n, t, kept))
PY2
"$FLUX" traces f.flux --store old | grep -q 'sq(6)\|{"n": 6}' || fail "traces after migration"
exit 0
