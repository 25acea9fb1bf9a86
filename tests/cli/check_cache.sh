# The checker's verdicts kept in the store (issue 14, a fast start): a warm
# load of an unchanged program replays them without the solver; a changed
# file is checked again, its warnings and errors printed as before.
#
# That the warm load did not check is shown by tampering: the kept verdicts
# are rewritten in the store, and the tampered text is what the next run
# prints. And by the dynamic loader: Z3 is opened only by a load that asks
# the solver (LD_DEBUG=files lists each library a process opens).
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export FLUX_LEARN=off
cat > p.flux <<'F'
intent f(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(n) = f(n - 1) + 2
    properties:
        - monotone
intent g(a: Int, b: Int) -> Int:
    constraints:
        - result = a * b + 1
    properties:
        - commutative
F
warn='p.flux:6:11: warning: property `monotone` of `f` could not be proved or refuted (its recursion is not unfolded by the solver); kept as an assumption'
proved='property commutative: holds, proved by Z3: f(a, b) = f(b, a)'
z3_opened() { LD_DEBUG=files "$FLUX" "$@" 2>&1 >/dev/null | grep -c 'file=libz3'; }
rows() { python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM learned WHERE kind = ?", ("checked",)).fetchone()[0])' st/flux.db; }

# cold: the solver runs, and its verdicts are kept
[ "$(z3_opened run p.flux 'f(3)' --store st)" -gt 0 ] || fail "cold: Z3 not opened"
[ "$(rows)" = 1 ] || fail "cold: $(rows) rows kept, not 1"
"$FLUX" run p.flux 'f(3)' --store st --warnings >out 2>err
[ "$(cat out)" = 6 ] && [ "$(head -n 1 err)" = "$warn" ] || fail "warm: $(cat out) $(cat err)"
"$FLUX" run p.flux 'f(3)' --store st >out 2>err
[ "$(cat out)" = 6 ] && [ ! -s err ] || fail "warm, quiet: $(cat err)"
"$FLUX" explain p.flux 'g(2, 3)' --store st | grep -qF "$proved" || fail "warm explain"
[ "$(z3_opened run p.flux 'f(3)' --store st)" = 0 ] || fail "warm: Z3 opened"
[ "$(rows)" = 1 ] || fail "warm: $(rows) rows, not 1"

# the warm run prints what the store says: it did not ask the solver
python3 - st/flux.db <<'P'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(v,) = db.execute("SELECT value FROM learned WHERE kind = 'checked'").fetchone()
v = bytes(v).decode().replace("its recursion is not unfolded by the solver", "TAMPERED")
v = v.replace("f(a, b) = f(b, a)", "TAMPERED")
db.execute("UPDATE learned SET value = ? WHERE kind = 'checked'", (v.encode(),))
db.commit()
P
"$FLUX" run p.flux 'f(3)' --store st --warnings 2>&1 >/dev/null | grep -q '(TAMPERED); kept' ||
    fail "tampered warning not printed: the warm run checked again"
"$FLUX" explain p.flux 'g(2, 3)' --store st | grep -q 'proved by Z3: TAMPERED' ||
    fail "tampered verdict not shown"

# a changed file is checked again: the solver's own words, a new row
cp p.flux kept.flux
echo '// a comment changes the source' >> p.flux
[ "$(z3_opened run p.flux 'f(3)' --store st)" -gt 0 ] || fail "changed: Z3 not opened"
"$FLUX" run p.flux 'f(3)' --store st --warnings 2>err >/dev/null
[ "$(head -n 1 err)" = "$warn" ] || fail "changed: $(cat err)"
"$FLUX" explain p.flux 'g(2, 3)' --store st | grep -qF "$proved" || fail "changed: explain"
[ "$(rows)" = 2 ] || fail "changed: $(rows) rows, not 2"

# an error the solver finds is printed, and a rejected program keeps nothing
cat >> p.flux <<'F'
intent h(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b
    properties:
        - commutative
F
"$FLUX" run p.flux 'f(3)' --store st >out 2>err; rc=$?
[ $rc = 3 ] && grep -q "error: property \`commutative\` of \`h\` is false" err ||
    fail "refuted: rc=$rc $(cat err)"
"$FLUX" run p.flux 'f(3)' --store st >out 2>err; rc=$?
[ $rc = 3 ] && grep -q "error: property \`commutative\` of \`h\` is false" err ||
    fail "refuted again: rc=$rc $(cat err)"
[ "$(rows)" = 2 ] || fail "refuted: $(rows) rows, not 2"

# the key is the text: the first version finds its (tampered) verdicts again
cp kept.flux p.flux
"$FLUX" run p.flux 'f(3)' --store st --warnings 2>&1 >/dev/null | grep -q '(TAMPERED); kept' ||
    fail "the unchanged text was checked again"

# a kept memo that does not fit the program is ignored, and replaced
python3 - st/flux.db <<'P'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE learned SET value = ? WHERE kind = 'checked'", (b'[{"v": [[9, null]], "d": []}]',))
db.commit()
P
"$FLUX" run p.flux 'f(3)' --store st --warnings 2>err >/dev/null
[ "$(head -n 1 err)" = "$warn" ] || fail "damaged: $(cat err)"
[ "$(z3_opened run p.flux 'f(3)' --store st)" = 0 ] || fail "damaged: not replaced"
exit 0
