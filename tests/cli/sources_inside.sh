# A program may read any path as a data source; `--sources-inside` (or
# FLUX_SOURCES_INSIDE=1) refuses those whose file, symlinks followed, lies
# outside the program's folder: an absolute path, `..`, a link pointing
# out, a folder linked from outside; each named in an error at its
# declaration (exit 3). Sources inside, by any path, still load.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(cd "$(mktemp -d)" && pwd -P); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
mkdir -p "$tmp/app/sub" "$tmp/outside"
printf 'name,price\nsecret,1\n' > "$tmp/outside/secret.csv"
python3 -c "
import sqlite3; db = sqlite3.connect('$tmp/outside/secret.db')
db.execute('create table items (name text, price integer)')
db.execute(\"insert into items values ('secret', 1)\"); db.commit()"
printf 'name,price\nmine,2\n' > "$tmp/app/items.csv"
ln -s ../outside/secret.csv "$tmp/app/out_link.csv"
ln -s "$tmp/outside" "$tmp/app/out_dir"
ln -s items.csv "$tmp/app/in_link.csv"
cd "$tmp/app"

# prog PATH: a program reading PATH as its one source, in prog.flux
prog() {
    cat > prog.flux <<F
type Item = { name: String, price: Int }
data items: List[Item] from "$1"
intent names() -> List[String]:
    constraints:
        - result = [i.name for i in items]
F
}
# PATH REAL: refused under the flag (whatever its place on the command line,
# and by the variable), read without it
refused() {
    prog "$1"
    want="prog.flux:2:29: error: data source \`items\` reads \`$2\`, outside the program's folder \`$tmp/app\`, where its sources must lie"
    out=$("$FLUX" run --sources-inside prog.flux 'names()' 2>err); rc=$?
    [ $rc = 3 ] && [ -z "$out" ] && [ "$(head -n 1 err)" = "$want" ] ||
        fail "$1 with the flag: rc=$rc out=$out err=$(cat err); want: $want"
    out=$(FLUX_SOURCES_INSIDE=1 "$FLUX" run prog.flux 'names()' 2>err); rc=$?
    [ $rc = 3 ] && [ "$(head -n 1 err)" = "$want" ] || fail "$1 by the variable: rc=$rc $(cat err)"
    "$FLUX" check prog.flux --sources-inside 2>err; rc=$?
    [ $rc = 3 ] && [ "$(head -n 1 err)" = "$want" ] || fail "$1, check: rc=$rc $(cat err)"
    out=$("$FLUX" run prog.flux 'names()' 2>err) && [ "$out" = '["secret"]' ] ||
        fail "$1 without the flag: $out $(cat err)"
}
refused "$tmp/outside/secret.csv" "$tmp/outside/secret.csv"
refused ../outside/secret.csv "$tmp/outside/secret.csv"
refused sub/../../outside/secret.csv "$tmp/outside/secret.csv"
refused out_link.csv "$tmp/outside/secret.csv"
refused out_dir/secret.csv "$tmp/outside/secret.csv"
refused out_dir/secret.db:items "$tmp/outside/secret.db" # an SQLite table too
# a file that does not exist yet is placed by its folder
prog ../outside/later.csv
"$FLUX" run --sources-inside prog.flux 'names()' 2>err; rc=$?
[ $rc = 3 ] && grep -q "reads \`$tmp/outside/later.csv\`, outside" err || fail "missing file: rc=$rc $(cat err)"

# inside, by any path: read under the flag
for p in items.csv in_link.csv ./sub/../items.csv "$tmp/app/items.csv"; do
    prog "$p"
    out=$("$FLUX" run --sources-inside prog.flux 'names()' 2>err) && [ "$out" = '["mine"]' ] ||
        fail "$p inside: $out $(cat err)"
done
# the flag is not an EXPR or a FILE wherever it stands
out=$("$FLUX" run prog.flux 'names()' --sources-inside 2>err) && [ "$out" = '["mine"]' ] ||
    fail "flag last: $out $(cat err)"
exit 0
