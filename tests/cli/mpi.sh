#!/usr/bin/env bash
# run alone: its ranks take both cores
# mpi.sh: the MPI device (docs/devices.md, "MPI") through the CLI, on
# `flux run --ranks N` (mpirun started by flux) and on mpirun itself, with
# 2 ranks and with 3 on this machine's cores (oversubscribed). Each split
# equals the single process: count_primes(10^10) equals primesieve's count
# (a C program built here against libprimesieve), a sort of 10^7 integers
# and a map over 10^7 elements print the very bytes a lone process prints.
# The decision is in the record and `explain` names the rank and the part
# of an element, and why the parts are independent; small calls stay
# local; --device cpu never splits; a worker's error fails the run naming
# its rank; a worker killed while it computes gives exit 1 naming the rank,
# and the store holds no record of that run. Outside mpirun nothing starts.
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "mpi: $*"; exit 1; }
command -v mpirun >/dev/null ||
    fail "mpirun is missing: scripts/install-deps --test installs Open MPI (libopenmpi-dev openmpi-bin)"
plugin=$(dirname "$FLUX")/libflux_mpi.so
[ -f "$plugin" ] || fail "$plugin was not built: Open MPI's headers were missing when Flux was built (scripts/install-deps --test, then make)"
# Under AddressSanitizer (make asan): Open MPI's own allocations that live
# until exit are suppressed by name (tests/lsan.supp), and its components,
# built without frame pointers, need the slow unwinder for those names to
# be seen (docs/testing.md)
# be seen (docs/testing.md); the sizes are smaller there (the same paths,
# each above its threshold: a sanitized sieve and VM are 3 to 5 times slower)
count_n=10000000000 sort_n=10000000 map_n=10000000
case "$FLUX" in */asan/*) export ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
    count_n=1000000000 sort_n=5000000 map_n=2000000 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export FLUX_STORE=$tmp/store FLUX_LEARN=off FLUX_EXPLORE=off FLUX_VALIDATE_SAMPLE=never
run() { "$FLUX" run "$@"; }
mpi_decision() { # the record's mpi decision of FILE's INTENT, newest run
    "$FLUX" traces "$1" "$2" --last 1 --json | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
print(*[d["reason"] for d in r["decision_tree"] if d["decision"] == "mpi"], sep="\n")'
}
runs() { "$FLUX" traces "$1" --json | wc -l; }

# ---- outside mpirun: nothing started, the device absent with its reason ----
"$FLUX" hw | grep -qx '          mpi: none (not started by mpirun)' || fail "hw: $("$FLUX" hw | grep mpi)"
cat > m.flux <<'F'
intent scale(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - for each x in xs: x * k + (x mod 7)

intent ratio(xs: List[Int], k: Int) -> List[Int]:
    constraints:
        - for each x in xs: k div x

intent shifted(xs: List[Int]) -> List[Int]:
    constraints:
        - for each x in xs: x + len(xs)
F
run m.flux 'scale([1, 2], 3)' --device mpi 2>err >/dev/null; rc=$?
[ $rc = 2 ] && grep -q 'flux: --device mpi: the MPI device is not there' err ||
    fail "--device mpi outside mpirun: rc $rc: $(cat err)"
run m.flux 'scale([1, 2], 3)' --ranks 0 2>/dev/null; [ $? = 2 ] || fail "--ranks 0 is a usage error"

# ---- count_primes(10^10): primesieve's count, on 1, 2 and 3 ranks ----
cp "$root/tests/prove/primes_shapes.flux" p.flux
run p.flux 'count_primes(2000)' >/dev/null || fail "count v1"
"$FLUX" optimize p.flux count_primes | grep -q 'count_primes: installed v2: sieve' || fail "no sieve"
cat > count.c <<'C'
#include <primesieve.h>
#include <stdio.h>
#include <stdlib.h>
/* the primes p with 0 <= p < n, as count(p for p in 0..n if prime(p)) */
int main(int argc, char **argv)
{
    unsigned long long n = strtoull(argv[1], NULL, 10);
    printf("%llu\n", (unsigned long long)primesieve_count_primes(0, n - 1));
    return 0;
}
C
cc -O2 count.c -lprimesieve -o count || fail "cannot build against libprimesieve (scripts/install-deps --test)"
want=$(./count $count_n)
[ $count_n != 10000000000 ] || [ "$want" = 455052511 ] || fail "primesieve says pi(10^10) = $want"
[ "$(run p.flux "count_primes($count_n)")" = "$want" ] || fail "count on one process"
[ "$(run p.flux "count_primes($count_n)" --ranks 2 --device mpi)" = "$want" ] || fail "count on 2 ranks"
mpi_decision p.flux count_primes | grep -q "^2 ranks (Open MPI v[0-9.]*), the count of \[0, $count_n) in 2 segments, .*rank 1: \[$((count_n / 2)), $count_n); forced (--device mpi)$" ||
    fail "count: the record's decision: $(mpi_decision p.flux count_primes)"
[ "$(run p.flux "count_primes($count_n)" --ranks 3 --device mpi)" = "$want" ] || fail "count on 3 ranks (oversubscribed)"
mpi_decision p.flux count_primes | grep -q "rank 2: \[$((count_n / 3 * 2)), $count_n)" ||
    fail "count on 3: $(mpi_decision p.flux count_primes)"
# the device cost model, unforced under mpirun: with no point on the CPU
# for 2 ranks' runs it stays on rank 0 and measures it; with a point on
# each side (the forced run above measured the ranks) the side predicted
# faster runs it, and the reason gives both predictions
device_decision() { # the record's device decision of FILE's INTENT, newest run
    "$FLUX" traces "$1" "$2" --last 1 --json | python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
print(*[d["decision"] + ": " + d["reason"] for d in r["decision_tree"] if d["decision"].startswith("device")], sep="\n")'
}
[ "$(run p.flux "count_primes($count_n)" --ranks 2)" = "$want" ] || fail "count on 2 ranks, unforced"
device_decision p.flux count_primes | grep -q '^device cpu: the CPU: no measured call of this version yet' ||
    fail "the model's first run: $(device_decision p.flux count_primes)"
[ "$(run p.flux "count_primes($count_n)" --ranks 2 --device mpi)" = "$want" ] || fail "count on 2 ranks"
[ "$(run p.flux "count_primes($count_n)" --ranks 2)" = "$want" ] || fail "count on 2 ranks, measured"
d=$(device_decision p.flux count_primes)
python3 - "$d" <<'P' || fail "the model's choice: $d"
import re, sys
d = sys.argv[1]
m = re.match(r"device (mpi|cpu): (?:MPI on 2 ranks \(Open MPI v[0-9.]+\)|the CPU): predicted ([0-9.e+]+) ms against ([0-9.e+]+) ms", d)
assert m, d
first, second = float(m.group(2)), float(m.group(3))
assert first <= second, d  # the side chosen is the one predicted faster
P
if [ "${d#device mpi}" != "$d" ]; then
    mpi_decision p.flux count_primes | grep -q "; MPI on 2 ranks (Open MPI v[0-9.]*): predicted" ||
        fail "the split's decision: $(mpi_decision p.flux count_primes)"
fi
# below the floor a call stays on rank 0, unasked; --device mpi splits it anyway
[ "$(run p.flux 'count_primes(1000000)' --ranks 2)" = 78498 ] || fail "a small count"
[ -z "$(mpi_decision p.flux count_primes)" ] || fail "a small count was split"
[ "$(run p.flux 'count_primes(1000000)' --ranks 2 --device mpi)" = 78498 ] || fail "a forced count"
mpi_decision p.flux count_primes | grep -q 'forced (--device mpi)' || fail "the forced count was not split"
# mpirun itself, as a user starts it (as root it needs the two variables)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-gl,-opencl
out=$(mpirun -np 2 --mca pml ob1 --mca btl self,vader "$FLUX" run p.flux 'count_primes(300000000)' --device mpi) ||
    fail "mpirun -np 2 flux run"
[ "$out" = "$(./count 300000000)" ] || fail "mpirun -np 2: $out"
out=$(mpirun -np 2 --mca pml ob1 --mca btl self,vader "$FLUX" hw | grep -c 'mpi: 2 ranks under mpirun' || true)
[ "$out" = 2 ] || fail "hw under mpirun: every rank lists the device"

# ---- a sort of 10^7 integers: the single process's bytes ----
cp "$root/examples/sort.flux" s.flux
run s.flux "sort([(i * 7919) mod 1009 for i in 0..1000])" >/dev/null
"$FLUX" optimize s.flux sort | grep -q 'sort: installed v2: sort kernels' || fail "no sort kernels"
list() { echo "[(i * 7919 + i div 7) mod 10000019 - 5000000 for i in 0..$1]"; }
xs=$(list $sort_n)
run s.flux "sort($xs)" | md5sum > sort.1 || fail "sort on one process"
grep -q d41d8cd98f00b204e9800998ecf8427e sort.1 && fail "sort on one process: nothing printed"
run s.flux "sort($xs)" --ranks 2 --device mpi | md5sum > sort.2 || fail "sort on 2 ranks"
cmp -s sort.1 sort.2 || fail "the sort on 2 ranks differs from the single process's"
mpi_decision s.flux sort | grep -q "^2 ranks (Open MPI v[0-9.]*), a sample sort of $sort_n keys" ||
    fail "sort: $(mpi_decision s.flux sort)"
run s.flux "sort($xs)" --ranks 3 --device mpi | md5sum > sort.3 || fail "sort on 3 ranks"
cmp -s sort.1 sort.3 || fail "the sort on 3 ranks differs from the single process's"
# descending, and keys past a bucket's bounds: Python's answer
ys='[(i * 7919) mod 100003 - 50000 for i in 0..300000]'
cat > desc.flux <<'F'
intent down(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending
F
run desc.flux "down([(i * 7919) mod 1009 for i in 0..1000])" >/dev/null
"$FLUX" optimize desc.flux down >/dev/null
run desc.flux "down($ys)" --ranks 3 --device mpi > got || fail "a descending sort on 3 ranks"
python3 -c 'print(sorted([(i * 7919) % 100003 - 50000 for i in range(300000)], reverse=True))' |
    tr -d ' ' > want || fail "python3"
tr -d ' ' < got | cmp -s - want || fail "the descending sort on 3 ranks is not Python's"

# ---- a map over 10^7 elements: the single process's bytes ----
xs=$(list $map_n)
run m.flux "scale($xs, 3)" | md5sum > map.1 || fail "map on one process"
grep -q d41d8cd98f00b204e9800998ecf8427e map.1 && fail "map on one process: nothing printed"
run m.flux "scale($xs, 3)" --ranks 2 --device mpi | md5sum > map.2 || fail "map on 2 ranks"
cmp -s map.1 map.2 || fail "the map on 2 ranks differs from the single process's"
mpi_decision m.flux scale | grep -q "\`scale\` mapped over $map_n elements of \`xs\` in 2 slices.*rank 1: \[$((map_n / 2)), $map_n)" ||
    fail "map: $(mpi_decision m.flux scale)"
run m.flux "scale($xs, 3)" --ranks 3 --device mpi | md5sum > map.3 || fail "map on 3 ranks"
cmp -s map.1 map.3 || fail "the map on 3 ranks differs from the single process's"
# E reads the list itself (len(xs)): not independent, never split
[ "$(run m.flux 'shifted([i for i in 0..200000])[7]' --ranks 2 --device mpi)" = 200007 ] || fail "shifted"
[ -z "$(mpi_decision m.flux shifted)" ] || fail "a map that reads its list whole was split"
# --device cpu: never split, and the other ranks print nothing
out=$(run m.flux "len(scale($xs, 3))" --ranks 2 --device cpu) || fail "--device cpu"
[ "$out" = $map_n ] || fail "--device cpu printed: $out"
[ -z "$(mpi_decision m.flux scale)" ] || fail "--device cpu split the map"

# ---- explain: the element on rank 1, its part, the independence ----
e='scale([(i * 7919) mod 10007 for i in 0..400000], 3)[300001]'
"$FLUX" explain m.flux "$e" --ranks 2 --device mpi > explain.out || fail "explain on 2 ranks"
grep -q '^|- device: mpi (Open MPI v[0-9.]*), 2 ranks: `scale` mapped over `xs` in 2 slices' explain.out &&
grep -q '^|    - rank 1: elements \[200000, 400000) of `xs` and of the result$' explain.out &&
grep -q '^|    - element 300001 was computed on the mpi device by rank 1 of 2, in its part \[200000, 400000)$' explain.out &&
grep -q '^|    - independent: `scale` is `for each x in xs: E` and E reads `xs` only through x' explain.out ||
    fail "explain: $(cat explain.out)"
[ "$(head -1 explain.out)" = "$e = $(( (300001 * 7919 % 10007) * 3 + (300001 * 7919 % 10007) % 7 ))" ] ||
    fail "explain's value: $(head -1 explain.out)"
"$FLUX" explain p.flux 'count_primes(1000000000)' --ranks 3 --device mpi --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["device"]
assert d["name"] == "mpi" and d["job"] == "count" and d["ranks"] == 3, d
assert [(p["lo"], p["hi"]) for p in d["parts"]] == [(0, 333333333), (333333333, 666666666), (666666666, 1000000000)], d
assert "disjoint segments" in d["independent"], d' || fail "explain of the count"

# ---- failures: a worker's error names its rank; a killed worker ----
before=$(runs m.flux)
run m.flux 'len(ratio([i - 700000 for i in 0..1000000], 5))' --ranks 2 --device mpi 2>err >out; rc=$?
[ $rc = 1 ] && grep -q 'rank 1: .*division by zero' err && [ ! -s out ] ||
    fail "a worker's error: rc $rc, $(cat err)"
[ "$(run m.flux 'len(ratio([i + 1 for i in 0..1000000], 5))' --ranks 2 --device mpi)" = 1000000 ] || fail "ratio"
[ "$(runs m.flux)" = $((before + 1)) ] || fail "the failed run was recorded"
before=$(runs p.flux)
"$FLUX" run p.flux 'count_primes(100000000000)' --ranks 2 --device mpi >out 2>err &
launcher=$!
worker=
for _ in $(seq 100); do # mpirun, then its ranks: rank 1 is the one to kill
    for m in $(pgrep -P "$launcher"); do
        for c in $(pgrep -P "$m"); do
            tr '\0' '\n' < "/proc/$c/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && worker=$c
        done
    done
    [ -n "$worker" ] && break
    sleep 0.1
done
[ -n "$worker" ] || fail "no rank 1 to kill"
sleep 1 # it computes its segment
kill -9 "$worker"
wait "$launcher"; rc=$?
[ $rc = 1 ] || fail "a killed rank: exit $rc, $(cat err)"
grep -q '^flux: rank 1 of 2 died (signal 9, Killed)' err || fail "a killed rank: $(cat err)"
[ ! -s out ] || fail "a killed rank: printed $(cat out)"
[ "$(runs p.flux)" = "$before" ] || fail "the store holds a record of the killed run"
echo "mpi: ok"
