# run alone: six processes at once
# Concurrent rounds on one store: two `flux optimize` and four `flux run`
# (each learning after its answer) at once, five times over. Rounds take
# the store's learning lock in turn, so every label is installed once, by
# one process, and every accepted proposal has its version (and every
# version after v1 its accepted proposal). A round kept waiting for the
# lock says so, then installs from the versions the round before left.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$root/examples/fibonacci.flux" fib.flux
q() { sqlite3 st/flux.db "$1"; }

for round in 1 2 3 4 5; do
    rm -rf st out.*
    for n in 20 25; do
        "$FLUX" run fib.flux "fibonacci($n)" --store st --no-learn >/dev/null || fail "seed run"
    done
    pids=
    for k in 1 2; do
        "$FLUX" optimize fib.flux --store st >out.opt$k 2>&1 &
        pids="$pids $!"
    done
    for k in 1 2 3 4; do
        FLUX_LEARN=wait "$FLUX" run fib.flux "fibonacci($((20 + k)))" --store st --verbose \
            >/dev/null 2>out.run$k &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || fail "round $round: a process failed: $(cat out.*)"; done
    installs=$(cat out.* | grep -o '^fibonacci: installed v[0-9]*' | sed 's/.* //' | sort)
    [ -n "$installs" ] || fail "round $round: nothing installed: $(cat out.*)"
    twice=$(printf '%s\n' "$installs" | uniq -d)
    [ -z "$twice" ] || fail "round $round: $twice installed twice: $(cat out.*)"
    # the store agrees: one version per install, each with its accepted proposal
    [ "$(q "SELECT label FROM versions WHERE label != 'v1' ORDER BY label")" = "$installs" ] ||
        fail "round $round: installed $installs, the store has $(q 'SELECT label FROM versions')"
    orphans=$(q "SELECT count(*) FROM proposals p WHERE status = 'accepted' AND proof_id IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.proof_id = p.proof_id)")
    [ "$orphans" = 0 ] || fail "round $round: $orphans accepted proposals without a version"
    unproposed=$(q "SELECT count(*) FROM versions v WHERE label != 'v1' AND (SELECT count(*)
                    FROM proposals p WHERE p.proof_id = v.proof_id AND status = 'accepted') != 1")
    [ "$unproposed" = 0 ] || fail "round $round: $unproposed versions without one accepted proposal"
    # and each installed version's proof is sealed to it
    "$FLUX" proofs fib.flux --verify --store st >out.verify 2>&1 ||
        fail "round $round: a version does not verify: $(cat out.verify)"
done

# A label already taken (here by a row written by hand, as a writer that
# ignores the lock would) is not installed again: the round says so and
# records its proposal rejected, and nothing accepted lacks its version.
rm -rf st
"$FLUX" run fib.flux 'fibonacci(25)' --store st --no-learn >/dev/null || fail "seed run"
q "INSERT INTO versions (lineage, label, graph_json, created_at, rolled_back)
   SELECT lineage, 'v3', graph_json, created_at, 'by hand' FROM versions WHERE label = 'v1'"
"$FLUX" optimize fib.flux --store st >out 2>err || fail "optimize with v3 taken: $(cat err)"
grep -q '^fibonacci: did not install v3: .*not installed: v3 exists already in this lineage' out ||
    fail "a taken label: $(cat out err)"
[ "$(q "SELECT count(*) FROM versions WHERE label = 'v3'")" = 1 ] || fail "two rows for v3"
[ "$(q "SELECT status || ': ' || reason FROM proposals")" = \
  "rejected: not installed: v3 exists already in this lineage" ] ||
    fail "the proposal: $(q 'SELECT * FROM proposals')"

# A round that waits long for the lock says so, and installs after it.
rm -rf st
"$FLUX" run fib.flux 'fibonacci(20)' --store st --no-learn >/dev/null || fail "seed run"
flock st/learn.lock sleep 5 &
holder=$!
for i in $(seq 50); do flock -n st/learn.lock true || break; sleep 0.1; done
flock -n st/learn.lock true && fail "the lock was never held"
"$FLUX" optimize fib.flux --store st >out 2>err || fail "optimize after the wait: $(cat err)"
wait "$holder"
grep -q 'waiting for the learning round in progress' err || fail "no word of the wait: $(cat err)"
grep -q '^fibonacci: installed v2' out || fail "nothing installed after the wait: $(cat out)"
exit 0
