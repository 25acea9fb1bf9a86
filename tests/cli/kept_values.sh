# Materialised results outlive the process (issue 14): one query per
# `flux run`, as a user runs it, until learning materialises it; then the
# process that computes it keeps it in the store, and the next processes
# read it back instead of reading the CSV, while the file is unchanged.
# An edit (size, or only the times) makes the next process compute again,
# with the new answer; a damaged row is ignored, never an error. A forged
# row (the value edited, its checksum recomputed) is never served: each row
# carries a MAC made with this user's key, kept outside the store (issue
# 32); the control forges the MAC with that key too, and is served.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_KEY_FILE="$tmp/key"
cd "$tmp"
cp "$root/examples/users.flux" .
python3 - <<'PY'
import random
random.seed(14)
with open("users.csv", "w") as f:
    f.write("name,age\n")
    for i in range(50000):
        f.write("u%d,%d\n" % (i, random.randint(0, 99)))
PY
q='len(query_users(90))'
count() { python3 -c '
import csv
print(sum(1 for r in csv.DictReader(open("users.csv")) if int(r["age"]) >= 90))'; }
# run Q once; prints "OUTPUT VERSION HOW" (HOW: store, computed)
run() {
    FLUX_LEARN=${1:-off} "$FLUX" run users.flux "$q" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
kept = [d["reason"] for d in r["decision_tree"] if d["decision"] == "materialised result"]
how = "computed"
if kept:
    assert kept[0].startswith("query_users(90) was kept in the store by an earlier run, "
                              "and its sources are unchanged since (users.csv: "), kept
    how = "store"
print(r["output"], r["graph_version"], how)'
}
rows() { python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM learned WHERE kind = ? AND key LIKE ?",
                 ("kept_values", "%/query_users(90)")).fetchone()[0])' "$FLUX_STORE/flux.db"; }

# learning, one query a process, until a version materialises query_users(90)
n=$(count)
for i in $(seq 1 10); do
    out=$(run wait) || fail "run $i"
    [ "${out%% *}" = "$n" ] || fail "run $i: $out, want $n"
    "$FLUX" graph users.flux query_users | grep -q '^  materialised: query_users(90)$' && break
done
"$FLUX" graph users.flux query_users | grep -q '^  materialised: query_users(90)$' ||
    fail "not materialised: $("$FLUX" history users.flux query_users)"
sleep 3 # past the file clock's tick (2 s, in whole seconds): a stamp of file times alone

# the first process on the version computes and keeps; the next ones read it
out=$(run) || fail "first"
case $out in "$n v"*" computed") ;; *) fail "first: $out" ;; esac
[ "$(rows)" = 1 ] || fail "no row kept"
for i in 1 2 3; do
    out=$(run) || fail "kept $i"
    case $out in "$n v"*" store") ;; *) fail "kept $i: $out" ;; esac
done
"$FLUX" explain users.flux "$q" | grep -q '^|    - materialised result: query_users(90) was kept in the store by an earlier run' ||
    fail "explain: $("$FLUX" explain users.flux "$q")"

# rows appended: computed again, the new answer, and kept again
printf 'late,95\nlater,97\n' >> users.csv
n2=$(count)
[ "$n2" = $((n + 2)) ] || fail "the edit"
out=$(run) || fail "appended"
case $out in "$n2 v"*" computed") ;; *) fail "appended: $out, want $n2" ;; esac
out=$(run) || fail "appended, again"
case $out in "$n2 v"*) ;; *) fail "appended, again: $out" ;; esac
sleep 3
run > /dev/null || fail "settle"

# the same bytes, new times only: computed again
touch -d '1 hour ago' users.csv
out=$(run) || fail "touched"
case $out in "$n2 v"*" computed") ;; *) fail "touched: $out" ;; esac
sleep 3
run > /dev/null || fail "settle 2"
out=$(run) || fail "touched, again"
case $out in "$n2 v"*" store") ;; *) fail "touched, again: $out" ;; esac

# a damaged row (a byte of the value flipped, cut short, not ours at all)
# is ignored: computed, the right answer, and the row rewritten whole
for damage in "substr(value, 1, length(value) - 12) || x'5a' || substr(value, length(value) - 10)" \
              "substr(value, 1, length(value) / 2)" "x'00'"; do
    python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE learned SET value = %s WHERE kind = ?" % sys.argv[2], ("kept_values",))
db.commit()' "$FLUX_STORE/flux.db" "$damage" || fail "damage"
    out=$(run) || fail "damaged ($damage): exit $?"
    case $out in "$n2 v"*" computed") ;; *) fail "damaged ($damage): $out" ;; esac
    out=$(run) || fail "rewritten ($damage)"
    case $out in "$n2 v"*" store") ;; *) fail "rewritten ($damage): $out" ;; esac
done

# a forged row: the first user's name edited inside the value and the
# value's checksum recomputed (anyone can), the MAC left as it was
first=$("$FLUX" run users.flux 'query_users(90)[0].name' --no-learn)
first=${first//\"/}
forge() { # forge KEYFILE-OR-EMPTY: edits the row; with a key file, its MAC too
    python3 - "$FLUX_STORE/flux.db" "$first" "$1" <<'PY' || fail "forging"
import hashlib, hmac, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
key, row = db.execute("SELECT key, value FROM learned WHERE kind = 'kept_values'").fetchone()
body, mac = row[:-64], row[-64:]
value = body[:-8]
i = value.find(sys.argv[2].encode())
assert i > 0, "the name is not in the row"
value = value[:i] + b"X" + value[i + 1:]
M = (1 << 64) - 1
def step(h, v): return ((h ^ v) * 0x100000001b3) & M
h = step(0xcbf29ce484222325, len(value))
n = len(value) // 8 * 8
for j in range(0, n, 8):
    h = step(h, struct.unpack("<Q", value[j:j + 8])[0]); h ^= h >> 29
for b in value[n:]:
    h = step(h, b)
body = value + struct.pack("<Q", h)
if sys.argv[3]:
    k = open(sys.argv[3], "rb").read()
    mac = hmac.new(k, key.encode() + b"\0" + body, hashlib.sha512).hexdigest()[:64].encode()
db.execute("UPDATE learned SET value = ? WHERE kind = 'kept_values'", (body + mac,))
db.commit()
PY
}
name() { "$FLUX" run users.flux 'query_users(90)[0].name' --no-learn --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
how = "store" if any(d["decision"] == "materialised result" and "kept in the store" in d["reason"]
                     for d in r["decision_tree"]) else "computed"
print(r["output"], how)'; }
forge ""
"$FLUX" proofs users.flux --verify > verify; rc=$?
[ $rc = 3 ] && grep -q "kept result .*/query_users(90): its MAC does not hold" verify ||
    fail "verify does not name the forged row: exit $rc, $(cat verify)"
"$FLUX" store check > sc; rc=$?
[ $rc = 3 ] && grep -q "kept result .*/query_users(90): its MAC does not hold" sc ||
    fail "store check does not name the forged row: exit $rc, $(cat sc)"
out=$(name) || fail "forged: exit $?"
[ "$out" = "$first computed" ] || fail "the forged row was served: $out, want $first computed"
[ "$(name)" = "$first store" ] || fail "not kept again after the forgery"
"$FLUX" proofs users.flux --verify > verify || fail "verify, kept again: $(cat verify)"
grep -q "kept results: 1 of 1 hold" verify || fail "verify: $(cat verify)"
# the control: the MAC forged with this user's key is served
forge "$FLUX_KEY_FILE"
out=$(name)
[ "$out" = "X${first:1} store" ] || fail "the control was not served ($out): the test does not test the MAC"
exit 0
