# Bytes that are not UTF-8 never become a Flux string: a CSV file, an
# SQLite TEXT value, a string literal in EXPR or in a program is refused
# at its place (the file's line and column in code points, or the table's
# row and column), and valid multi-byte text passes byte for byte, into
# `--json` too.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cat > shop.flux <<'F'
type Item = { name: String, price: Int }
data items: List[Item] from "items.csv"
data stock: List[Item] from "shop.db:items"
intent names() -> List[String]:
    constraints:
        - result = [i.name for i in items]
intent stocked() -> List[String]:
    constraints:
        - result = [i.name for i in stock]
F

# CSV-BYTES LINE:COL WHY: `names()` exits 1 with only that message on stderr
refused() {
    printf "$1" > items.csv
    out=$("$FLUX" run --json shop.flux 'names()' 2>err); rc=$?
    want="items.csv:$2: invalid UTF-8 byte $3"
    [ $rc = 1 ] && [ -z "$out" ] && [ "$(cat err)" = "$want" ] ||
        fail "$1: rc=$rc out=$out err=$(cat err); want: $want"
}
refused 'name,price\ncup,3\nx\x80y,4\n' 3:2 '0x80: a continuation byte with no lead byte'
refused 'name,price\n\xc0\xaf,1\n' 2:1 '0xc0: an overlong encoding'
refused 'name,price\nab\xe0\x80\xaf,1\n' 2:3 '0xe0: an overlong encoding'
refused 'name,price\n"\xed\xa0\x80",1\n' 2:2 '0xed: an encoded surrogate (U+D800..U+DFFF)'
refused 'name,price\ncaf\xc3,1\n' 2:4 '0xc3: a sequence cut short'
refused 'price,name\n1,ok\n2,caf\xe2\x82' 3:6 '0xe2: a sequence cut short by the end of the text'
refused 'name,price\n\xf4\x90\x80\x80,1\n' 2:1 '0xf4: past U+10FFFF, the last code point'
# columns count code points: ñ, ú and 日 are one each; a quoted line break
# starts a new line
refused 'name,price\n"ñandú\n日\xff",1\n' 3:2 '0xff: a byte that UTF-8 never uses'
refused '\xef\xbb\xbfname,price\nñ\xbf,1\n' 2:2 '0xbf: a continuation byte with no lead byte'

# valid text of 1 to 4 bytes a character, byte for byte, plain and JSON
printf 'name,price\n"naïve, 日本 😀 €",1\nǅ\xf4\x8f\xbf\xbf,2\n' > items.csv
"$FLUX" run shop.flux 'names()' > plain || fail "valid text: $(cat plain)"
printf '["naïve, 日本 😀 €", "ǅ\xf4\x8f\xbf\xbf"]\n' | cmp -s - plain || fail "plain: $(od -c plain)"
"$FLUX" run --json shop.flux 'names()' > json || fail "valid json: $(cat json)"
python3 - <<'PY' || fail "json: $(cat json)"
import json
rec = json.loads(open("json", "rb").read().decode("utf-8", "strict"))
assert rec["output"] == ["naïve, 日本 😀 €", "ǅ\U0010FFFF"], rec["output"]
PY

# an SQLite TEXT may hold any bytes: the same rule, at its table, row, column
python3 - <<'PY'
import sqlite3
db = sqlite3.connect("shop.db")
db.execute("create table items (name text, price integer)")
db.execute("insert into items values ('hé', 1)")
db.execute("insert into items values (cast(x'6869ffff' as text), 2)")
db.commit()
PY
out=$("$FLUX" run --json shop.flux 'stocked()' 2>err); rc=$?
[ $rc = 1 ] && [ -z "$out" ] && [ "$(cat err)" = 'shop.db:items: row 2: column `name`: invalid UTF-8 byte 0xff at byte 3 of the value: a byte that UTF-8 never uses' ] ||
    fail "sqlite: rc=$rc out=$out err=$(cat err)"

# string literals: in EXPR (exit 2) and in a program (exit 3); the lexer
# refuses what is not UTF-8, surrogates and overlong forms included
out=$("$FLUX" run shop.flux "$(printf '"a\xed\xb0\x80"')" 2>err); rc=$?
[ $rc = 2 ] && [ -z "$out" ] && grep -q '^<expr>:1:3: error: invalid UTF-8 in a string$' err ||
    fail "expr: rc=$rc out=$out err=$(cat err)"
printf 'intent s() -> String:\n    constraints:\n        - result = "x\xe0\x9f\xbf"\n' > lit.flux
"$FLUX" check lit.flux 2>err; rc=$?
[ $rc = 3 ] && grep -q '^lit.flux:3:22: error: invalid UTF-8 in a string$' err ||
    fail "literal: rc=$rc err=$(cat err)"
exit 0
