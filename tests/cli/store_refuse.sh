# What flux refuses or only reads it leaves as it was (issue 15, point 4):
# a foreign SQLite database (rollback and WAL mode), a file that is not
# SQLite, a store of a newer schema: every file byte-identical and the
# folder listing the same after `run`, `traces` and `history` refuse them
# (exit 4). A read-only store is listed by `traces` and `history` and
# refused by `run`, unchanged. A WAL-mode SQLite data source is read
# without a -wal or -shm left beside it, also from a read-only folder.
set -u
fail() { echo "$*"; exit 1; }
fib=$(cd "$(dirname "$0")/../../examples" && pwd)/fibonacci.flux
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cd "$tmp"
export FLUX_LEARN=wait

# the folder as it is: names, sizes, modes, and every file's bytes
snap() { (cd "$1" && ls -lA --time-style=+ | awk '{ print $1, $5, $NF }' && find . -type f | sort | xargs sha256sum); }
sql() { python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript(sys.argv[2]); db.commit(); db.close()' "$@"; }

refused_unchanged() { # DIR WHAT: each command exits 4 and DIR stays as it was
    local before; before=$(snap "$1")
    for cmd in "run $fib fibonacci(5)" "traces $fib" "history $fib"; do
        # shellcheck disable=SC2086
        "$FLUX" $cmd --store "$1" >/dev/null 2>err.txt
        rc=$?
        [ $rc = 4 ] || fail "$2: \`${cmd%% *}\` exited $rc: $(cat err.txt)"
        grep -q "$3" err.txt || fail "$2: \`${cmd%% *}\` said: $(cat err.txt)"
        [ "$(snap "$1")" = "$before" ] || { diff <(echo "$before") <(snap "$1"); fail "$2: changed by ${cmd%% *}"; }
    done
}

mkdir foreign wforeign notdb newer
sql foreign/flux.db 'create table t(x); insert into t values (1);'
refused_unchanged foreign "a foreign database" "not a flux store"
sql wforeign/flux.db 'pragma journal_mode = wal; create table t(x); insert into t values (1);'
refused_unchanged wforeign "a foreign WAL database" "not a flux store"
sql wforeign/flux.db 'pragma user_version = 3;'
refused_unchanged wforeign "a foreign database with a schema version" "not a flux store"
printf 'not a database at all, but long enough to have a header\n' > notdb/flux.db
refused_unchanged notdb "a file that is not SQLite" "not a SQLite database"
"$FLUX" run "$fib" 'fibonacci(6)' --store newer >/dev/null || fail "making a store"
sql newer/flux.db 'pragma user_version = 99;'
refused_unchanged newer "a newer store" "newer than this flux"

# A read-only store: as root, permissions do not bind, so the commands run
# as nobody (setpriv) on a store nobody may not write.
"$FLUX" run "$fib" 'fibonacci(7)' --store ro >/dev/null || fail "making a store"
"$FLUX" run "$fib" 'fibonacci(8)' --store ro >/dev/null || fail "recording"
as_reader=()
if [ "$(id -u)" = 0 ]; then
    command -v setpriv >/dev/null || { echo "skip: root without setpriv cannot make a read-only store"; exit 0; }
    as_reader=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    chmod -R go+rX,go-w ro
    "${as_reader[@]}" test -w ro/flux.db && { echo "skip: nobody can write the store"; exit 0; }
else
    chmod -R a-w ro
fi
before=$(snap ro)
out=$("${as_reader[@]}" "$FLUX" traces "$fib" --store ro 2>&1) || fail "traces on a read-only store: $out"
echo "$out" | grep -q '{"n": 8}' || fail "traces on a read-only store lists: $out"
out=$("${as_reader[@]}" "$FLUX" traces "$fib" --json --store ro 2>&1) || fail "traces --json: $out"
[ "$(echo "$out" | wc -l)" = 2 ] || fail "traces --json on a read-only store: $out"
out=$("${as_reader[@]}" "$FLUX" history "$fib" --store ro 2>&1) || fail "history on a read-only store: $out"
echo "$out" | grep -q 'fibonacci v1' || fail "history on a read-only store: $out"
"${as_reader[@]}" "$FLUX" store check --store ro >/dev/null 2>&1 || fail "store check on a read-only store"
"${as_reader[@]}" "$FLUX" run "$fib" 'fibonacci(9)' --store ro >/dev/null 2>err.txt
rc=$?
[ $rc = 4 ] && grep -q 'read-only' err.txt || fail "run on a read-only store: exit $rc, $(cat err.txt)"
[ "$(snap ro)" = "$before" ] || { diff <(echo "$before") <(snap ro); fail "the read-only store changed"; }

# A WAL-mode data source, in a writable folder and in a read-only one.
mkdir src
sql src/shop.db 'pragma journal_mode = wal; create table items (name text, price integer);
                 insert into items values ("nail", 1), ("saw", 40);'
cat > src/shop.flux <<'F'
type Item = { name: String, price: Int }
data stock: List[Item] from "shop.db:items"
intent total() -> Int:
    constraints:
        - result = sum(i.price for i in stock)
F
before=$(snap src)
out=$("$FLUX" run src/shop.flux 'total()' --store s1 2>&1) || fail "a WAL source: $out"
[ "$out" = 41 ] || fail "a WAL source gives $out"
[ "$(snap src)" = "$before" ] || { diff <(echo "$before") <(snap src); fail "reading a WAL source changed its folder"; }
mkdir s2 && chmod 777 s2
if [ ${#as_reader[@]} = 0 ]; then chmod a-w src; fi
out=$("${as_reader[@]}" "$FLUX" run src/shop.flux 'total()' --store s2 2>&1) || fail "a WAL source in a read-only folder: $out"
[ "$out" = 41 ] || fail "a WAL source in a read-only folder gives $out"
[ "$(snap src)" = "$before" ] || fail "reading a WAL source in a read-only folder changed it"
# a store whose header is damaged (page size, reserved bytes, the size in
# pages, the largest root, the schema version) is refused and left as it
# is: no -wal or -shm made beside it, nothing changed (issue 32)
printf 'intent fibonacci(n: Natural) -> Natural:\n    constraints:\n        - fibonacci(0) = 0\n        - fibonacci(1) = 1\n        - fibonacci(n) = fibonacci(n - 1) + fibonacci(n - 2)\n' > hd.flux
for n in 5 10 15; do FLUX_LEARN=off "$FLUX" run hd.flux "fibonacci($n)" --store hd0 --no-learn >/dev/null; done
python3 -c 'import sqlite3; sqlite3.connect("hd0/flux.db").execute("PRAGMA wal_checkpoint(TRUNCATE)")'
rm -f hd0/flux.db-wal hd0/flux.db-shm
for off in 16 20 28 52 60; do
    rm -rf hd && cp -r hd0 hd
    printf '\377\356' | dd of=hd/flux.db bs=1 seek=$off conv=notrunc 2>/dev/null
    before=$(ls hd | tr '\n' ' ') sum=$(md5sum < hd/flux.db)
    FLUX_LEARN=off "$FLUX" run hd.flux 'fibonacci(5)' --store hd > out 2> err; rc=$?
    [ $rc = 4 ] || fail "header byte $off damaged: exit $rc, $(cat out err)"
    [ "$(ls hd | tr '\n' ' ')" = "$before" ] || fail "header byte $off: the refusal made $(ls hd)"
    [ "$(md5sum < hd/flux.db)" = "$sum" ] || fail "header byte $off: the refusal changed flux.db"
done
exit 0
