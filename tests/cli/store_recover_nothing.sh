#!/usr/bin/env bash
# store_recover_nothing.sh: `flux store recover` that can read no row of a
# store (every page past the header overwritten) says so and exits 4; it
# exited 0 after "kept 0 rows". One that keeps rows exits 0.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "store_recover_nothing: $*"; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$tmp"
export FLUX_LEARN=off
for i in 1 2 3; do "$FLUX" run "$root/examples/fibonacci.flux" "fibonacci($i)" --store s >/dev/null; done
cp -r s good
python3 - <<'P'
import os, random, sqlite3
db = "s/flux.db"
c = sqlite3.connect(db)
c.execute("pragma wal_checkpoint(TRUNCATE)")
c.close()
for f in ("s/flux.db-wal", "s/flux.db-shm"):
    if os.path.exists(f):
        os.remove(f)
n = os.path.getsize(db)
with open(db, "r+b") as f:
    f.seek(4096)
    f.write(bytes(random.Random(1).randrange(256) for _ in range(n - 4096)))
P
set +e
out=$("$FLUX" store recover --store s new 2>err)
rc=$?
set -e
[ $rc = 4 ] || fail "recovering nothing: exit $rc: $out"
[[ "$out" == *"kept 0 rows"* ]] || fail "no count: $out"
grep -q "nothing of the store at s could be read" err || fail "message: $(cat err)"
"$FLUX" store recover --store good new2 >/dev/null || fail "a readable store: exit $?"
echo ok
