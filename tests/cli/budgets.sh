# run alone: it times its budgets
# Budgets that hold (docs/executor.md, "Budgets"): each run below used to
# overshoot its budget by seconds or gigabytes. Each must now stop with exit
# 1 and the budget's message, its peak resident memory under 1.1 times the
# memory budget, its time under 1.5 times the time budget (loose: the test
# machine is shared), and be recorded in the store with the budget named.
# Peaks are not checked under AddressSanitizer, whose redzones, shadow and
# quarantine the budget does not see (its resident-size backstop still stops
# those runs), and times may be twice as long there.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
asan=false
case "$FLUX" in */asan/*) asan=true ;; esac
cd "$tmp"
cat > b.flux <<'FLUX'
intent fact(n: Natural) -> Natural:
    constraints:
        - fact(0) = 1
        - fact(n) = n * fact(n - 1)

intent pw(a: Natural, b: Natural) -> Natural:
    constraints:
        - result = a ^ b

intent upto(n: Natural) -> List[Natural]:
    constraints:
        - result contains all x where x < n

intent powers(n: Natural) -> List[Natural]:
    constraints:
        - result = [2 ^ k for k in 0..n]
FLUX
truncate -s 10G zero.csv # sparse: 10 GB of zeros read, none of it on disk
cat > z.flux <<'FLUX'
type R = { a: Int }
data rows: List[R] from "zero.csv"

intent rows_from(k: Int) -> List[R]:
    constraints:
        - result contains all rows where row.a >= k
FLUX

# run FILE EXPR FLAGS...: sets rc, secs (wall) and mb (peak resident, MB);
# stderr in err. Killed after 30 s, so that a regression fails, not hangs.
run() {
    read -r rc secs mb < <(python3 - "$FLUX" run "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
try:
    rc = subprocess.run(sys.argv[1:], stdout=open("out", "w"), stderr=open("err", "w"),
                        timeout=30).returncode
except subprocess.TimeoutExpired:
    rc = "timeout"
print(rc, "%.3f" % (time.monotonic() - t),
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
)
}
# expect WHAT RC MESSAGE [MAX_MB] [MAX_SECONDS]
expect() {
    [ "$rc" = "$2" ] || fail "$1: exit $rc, not $2 ($(cat err))"
    [ "$(cat err)" = "$3" ] || fail "$1: the message is $(cat err)"
    [ ! -s out ] || fail "$1: printed $(cat out)"
    if [ -n "${4:-}" ] && ! $asan; then
        [ "$mb" -lt "$4" ] || fail "$1: peak $mb MB, not under $4"
    fi
    if [ -n "${5:-}" ]; then # AddressSanitizer's frees are slower: twice the bound
        python3 -c "import sys; sys.exit(not $secs < $5 * (2 if '$asan' == 'true' else 1))" ||
            fail "$1: took $secs s, not under $5"
    fi
    echo "$1: exit $rc in $secs s, peak $mb MB"
}
memory() { echo "the memory budget of $1 MB is exhausted; raise it with --max-memory"; }
seconds() { echo "the time budget of $1 s is exhausted; raise it with --max-seconds"; }

# big-number work is counted: the clock is read while GMP multiplies
run b.flux 'fact(100000) mod 1000003' --max-seconds 0.5
expect "fact, 0.5 s" 1 "$(seconds 0.5)" "" 0.75
# a deep recursion building big values holds one level's at a time, not
# every level's (the frames of a return let go): well within 200 MB
# (AddressSanitizer's quarantine holds gigabytes of freed blocks here: no
# memory budget there, only the answer, and of 30000!: its page faults took
# 45 s of 100000! on a VM where they are dear, past the 30 s of run)
if $asan; then
    run b.flux 'fact(30000) mod 1000003' --max-memory 32000
    want=833233
else
    run b.flux 'fact(100000) mod 1000003' --max-memory 200
    want=353746
fi
[ "$rc" = 0 ] && [ "$(cat out)" = "$want" ] || fail "fact, 200 MB: exit $rc, $(cat out) $(cat err)"
[ "$mb" -lt 100 ] || $asan || fail "fact, 200 MB: peak $mb MB"
echo "fact, 200 MB: done in $secs s, peak $mb MB"
# GMP's allocations are charged: 100,000 powers of 2 (625 MB of digits)
# stop at the budget, not at gigabytes
run b.flux 'len(powers(100000))' --max-seconds 10 --max-memory 200
expect "powers, 200 MB" 1 "$(memory 200)" 220 1

# a list builder asks before it doubles, and fills the budget, not half of it
run b.flux 'len(upto(10^12))' --max-memory 64
expect "upto, 64 MB" 1 "$(memory 64)" 71
run b.flux 'len(upto(10^12))' --max-memory 160
expect "upto, 160 MB" 1 "$(memory 160)" 176
# and the clock is read while it grows
run b.flux 'len(upto(10^10))' --max-seconds 0.5 --max-memory 2048
expect "upto, 0.5 s" 1 "$(seconds 0.5)" "" 0.75

# a power is priced before it runs: its 3.3 * 10^9 bits do not fit 256 MB,
# and its squarings would take longer than 10 s
run b.flux 'pw(10, 10^9)' --max-memory 256 --max-seconds 10
expect "pw, 256 MB" 1 "the memory budget of 256 MB is exhausted: \`^\` would need about 1122 MB for a result of 3321928095 bits; raise it with --max-memory" 282 1
run b.flux '10^(10^9) mod 7' --max-memory 256 --max-seconds 10
expect "10^(10^9), 256 MB" 1 "the memory budget of 256 MB is exhausted: \`^\` would need about 1122 MB for a result of 3321928095 bits; raise it with --max-memory" 282 1
run b.flux 'pw(10, 10^9)' --max-seconds 10
expect "pw, 10 s" 1 "the time budget of 10 s is exhausted: \`^\` is estimated at 15 s for a result of 3321928095 bits; raise it with --max-seconds" "" 1
run b.flux 'pw(3, 10^7)' --max-steps 1000
expect "pw, 1000 steps" 1 "the step budget of 1000 steps (calls and loop iterations) is exhausted: \`^\` is estimated at 4306822 steps for a result of 15849626 bits; raise it with --max-steps" "" 1

# a data source too large to read stops at the budget
run z.flux 'rows_from(0)' --max-memory 64
expect "10 GB of zeros, 64 MB" 1 "$(memory 64)" 71
# one that never ends (a device, a FIFO) is refused before it is opened
mv zero.csv sparse.csv && ln -s /dev/zero zero.csv
run z.flux 'rows_from(0)' --max-memory 64
expect "/dev/zero" 1 "z.flux:2:1: cannot read data file \`zero.csv\` for \`rows\`: it is not a regular file (a FIFO, a device or a socket), whose reads could wait past any budget" 71 1

# each stop above that called an intent is recorded, the budget named (the
# EXPR 10^(10^9) mod 7 calls none: nothing is recorded, as for a success)
"$FLUX" traces b.flux --json > traces || fail "traces"
"$FLUX" traces z.flux --json >> traces || fail "traces of z.flux"
python3 - <<'PY' || fail "the records: $(cut -c1-400 traces)"
import collections, json
rows = [json.loads(line) for line in open("traces")]
stops = collections.Counter()
for r in rows:
    if r["intent"] == "fact" and r["output"] is not None:
        continue  # the run that finished
    last = r["decision_tree"][-1]
    assert last["decision"].startswith("stopped by the "), r
    assert last["reason"].startswith("the " + last["decision"][15:].split()[0]), r
    assert r["output"] is None and r["verified"].startswith("not verified"), r
    stops[(r["intent"], last["decision"])] += 1
assert stops == {("fact", "stopped by the time budget"): 1,
                 ("powers", "stopped by the memory budget"): 1,
                 ("upto", "stopped by the memory budget"): 2,
                 ("upto", "stopped by the time budget"): 1,
                 ("pw", "stopped by the memory budget"): 1,
                 ("pw", "stopped by the time budget"): 1,
                 ("pw", "stopped by the step budget"): 1,
                 ("rows_from", "stopped by the memory budget"): 1}, stops
PY

# recording a 3 * 10^7-digit result costs a fraction of computing it: it is
# summarised without being turned into decimal (it took 6 s, after 0.4)
run b.flux 'pw(10, 3 * 10^7) mod 7'
[ "$rc" = 0 ] && [ "$(cat out)" = 1 ] || fail "pw(10, 3 * 10^7) mod 7: exit $rc, $(cat out)"
python3 -c "import sys; sys.exit(not $secs < 3)" || fail "recording took $secs s"
"$FLUX" traces b.flux --json --last 1 | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
o = r["output"]
assert o["bits"] == 99657843 and o["sign"] == 1 and o["last_digits"] == "0" * 20, o
assert o["summary"] == "an integer of 99657843 bits (about 30000001 decimal digits), not written out", o
assert len(o["hash"]) == 16, o' || fail "the summary of 10^(3 * 10^7)"
echo "pw(10, 3 * 10^7) mod 7, recorded: $secs s"

# the decimal digits of a big integer are asked of the time budget before
# they are written: 3^(10^8) has 47.7 million, 16 s of GMP's time
run b.flux 'len(str(pw(3, 10^8)))' --max-seconds 2
[ "$rc" = 1 ] && grep -q 'time budget of 2 s is exhausted' err || fail "str of 3^(10^8): exit $rc, $(cat err)"
python3 -c "import sys; sys.exit(not $secs < 2.2)" || fail "str of 3^(10^8) stopped after $secs s"
run b.flux 'len(str(pw(3, 10^6)))' --max-seconds 2
[ "$rc" = 0 ] && [ "$(cat out)" = 477122 ] || fail "str of 3^(10^6): exit $rc, $(cat out)"

# writing the result is part of the run's time (issue 32): a String of 128
# MiB took 4.4 s to print and record after a 0.4 s evaluation under a 1 s
# budget, exit 0. Now it is refused before any of it is written
cat > g.flux <<'FLUX'
intent grow(n: Natural) -> String:
    constraints:
        - grow(0) = "ab"
        - grow(n) = grow(n - 1) ++ grow(n - 1)
FLUX
# budget, exit 0. Now it is refused before any of it is written, unless the
# time left is enough for it (then it all fits, within 10%)
# (on a loaded machine the evaluation itself may be what runs out: either
# way nothing is written and the run stops on time)
run g.flux 'grow(26)' --max-seconds 0.5
[ "$rc" = 1 ] && grep -qE 'time budget of 0.5 s is exhausted(: writing the result \(134217730 bytes of text\)|;)' err ||
    fail "grow(26) in 0.5 s: exit $rc, $(cat err)"
[ ! -s out ] || fail "grow(26) printed $(wc -c < out) bytes"
# within one operation of the budget: the last `++` of two 64 MiB halves
# takes 0.1 to 0.2 s where page faults are dear (0.67 s seen on this VM)
python3 -c "import sys; sys.exit(not $secs < 0.8 * (2 if '$asan' == 'true' else 1))" ||
    fail "grow(26) stopped after $secs s"
run g.flux 'grow(26)' --max-seconds 1
# (as above: the evaluation may be what runs out where the machine is slow)
[ "$rc" = 1 ] && grep -q 'time budget of 1 s is exhausted' err || [ "$rc" = 0 ] ||
    fail "grow(26) in 1 s: exit $rc, $(cat err)"
python3 -c "import sys; sys.exit(not $secs < 1.1 * (2 if '$asan' == 'true' else 1))" ||
    fail "grow(26) under 1 s took $secs s (exit $rc)"
echo "grow(26) under a 1 s budget: exit $rc in $secs s"
run g.flux 'grow(26)' --max-seconds 30
[ "$rc" = 0 ] && [ "$(wc -c < out)" = 134217731 ] || fail "grow(26) in 30 s: exit $rc, $(wc -c < out) bytes"
exit 0
