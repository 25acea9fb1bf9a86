#!/usr/bin/env bash
# wal_lost.sh: executions lost with the store's log are said, not silent
# (issue 32). A store's newest commits live in flux.db-wal until a
# checkpoint (at most 512 frames after a process closes: docs/store.md);
# removing or damaging that file lost up to 38 of 40 executions already
# reported as recorded, and every later run was as happy as before. The
# marker a closing process leaves (DIR/closed) names the newest execution
# then: an open that finds fewer says which were lost, once.
set -u
fail() { echo "wal_lost: $*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
export FLUX_LEARN=off
cd "$tmp"
cp "$examples/fibonacci.flux" .
run() { "$FLUX" run fibonacci.flux "fibonacci($2)" --store "$1" --no-learn; }
for n in $(seq 1 40); do run s "$n" >/dev/null || fail "run $n"; done
[ -s s/flux.db-wal ] || fail "the runs' commits are not in the log (the test needs them there)"
# as it is: nothing to say
run s 3 > out 2> err && [ "$(cat out)" = 2 ] && [ ! -s err ] || fail "the store as it is: $(cat err)"
# the log removed: every execution was in it
rm -rf t && cp -r s t && rm -f t/flux.db-wal t/flux.db-shm
run t 5 > out 2> err || fail "log removed: exit $?"
[ "$(cat out)" = 5 ] || fail "log removed: $(cat out)"
grep -q "^flux: warning: the store at t has lost executions exec_1 to exec_41, which earlier runs recorded: its log, flux.db-wal, was removed or damaged" err ||
    fail "log removed: $(cat err)"
run t 6 > out 2> err && [ ! -s err ] || fail "said twice: $(cat err)"
# the log damaged half-way: SQLite stops at the damage, the rest is lost
rm -rf t && cp -r s t
size=$(stat -c %s t/flux.db-wal)
printf 'damage%.0s' $(seq 50) | dd of=t/flux.db-wal bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
run t 5 > out 2> err || fail "log damaged: exit $?"
grep -q "^flux: warning: the store at t has lost executions exec_[0-9]* to exec_41" err ||
    fail "log damaged: $(cat err)"
exit 0
