# A CSV source's columns kept next to the store (exec/colcache.h): written
# at the second read of an unchanged file, read instead of the file from
# then on; a cache that is damaged, or a file that changed, is never used
# (the file is read and the cache written again). Results stay exact.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > t.flux <<'F'
type Row = { k: Int, name: String }
data rows: List[Row] from "data.csv"
F
python3 -c '
import random
r = random.Random(5)
with open("data.csv", "w") as f:
    f.write("k,name\n")
    for i in range(70000):
        f.write("%d,name%d\n" % (r.randint(-10**12, 10**12), r.randint(0, 10**6)))'
[ "$(stat -c %s data.csv)" -gt 1048576 ] || fail "the file is below the cache's 1 MiB"
want() { python3 -c '
import csv
rows = list(csv.DictReader(open("data.csv")))
print(sum(int(r["k"]) for r in rows) + sum(len(r["name"]) for r in rows))'; }
expr='sum(r.k for r in rows) + sum(len(r.name) for r in rows)'
run() { "$FLUX" run t.flux "$expr" --store st --no-learn; }
sleep 3.1 # past RACY_SECONDS in whole seconds (data.c): a stamp that is not racy
w=$(want)
[ "$(run)" = "$w" ] || fail "first read"
ls st/columns/*.cols.seen >/dev/null 2>&1 || fail "no mark of the first read"
ls st/columns/*.cols >/dev/null 2>&1 && fail "columns kept at the first read"
[ "$(run)" = "$w" ] || fail "second read"
cols=$(ls st/columns/*.cols 2>/dev/null) || fail "no columns kept at the second read"
ino=$(stat -c %i "$cols")
[ "$(run)" = "$w" ] || fail "read from the cache"
[ "$(stat -c %i "$cols")" = "$ino" ] || fail "the cache was not used: written again"
# a damaged cache: a byte in the middle of a column flipped
python3 -c '
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x40
open(p, "wb").write(bytes(b))' "$cols"
[ "$(run)" = "$w" ] || fail "a damaged cache was used"
[ "$(stat -c %i "$cols")" != "$ino" ] || fail "the damaged cache was not written again"
ino=$(stat -c %i "$cols")
[ "$(run)" = "$w" ] || fail "the rewritten cache"
# the file changes, the same size: its new values, never the kept ones
python3 -c '
t = open("data.csv").read().split("\n")
c = t[5].split(",")
c[0] = str(int(c[0]) // 10 * 10 + (int(c[0]) % 10 + 1) % 10) if not c[0].startswith("-") else c[0][:-1] + str((int(c[0][-1]) + 1) % 10)
t[5] = ",".join(c)
open("data.csv", "w").write("\n".join(t))'
sleep 3.1
w2=$(want)
[ "$w2" != "$w" ] || fail "the edit changed nothing"
[ "$(run)" = "$w2" ] || fail "a changed file was read from the cache"
[ "$(run)" = "$w2" ] || fail "the changed file, second read"
[ "$(run)" = "$w2" ] || fail "the changed file, from its new cache"
exit 0
