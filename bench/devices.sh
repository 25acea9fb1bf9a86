#!/usr/bin/env bash
# The devices (issue 21, docs/devices.md), side by side in one run:
#
#   1. one step of the particle simulation (examples/particles.flux, all
#      pairs) on the CPU (the interpreter, one thread) and on the OpenCL
#      device (PoCL here: the same cores, compiled; a GPU where there is
#      one), forced each way, best of RUNS; the values must be equal.
#   2. the cost model, unforced, in a fresh store: the runs it takes to
#      learn (the CPU until its calls have spent a second, then the device
#      once), then its choice for the same call
#      and for a small one, and whether each choice was right, judged by the
#      forced times of (1) and of the small call.
#   3. the MPI fold: a count of the primes below 10^10 (the sieve's fused
#      count) in one process and on 2 ranks (`--ranks 2`: mpirun started
#      by flux, on this machine's cores), forced each way, best of RUNS,
#      the counts equal; then the cost model under `--ranks 2`, unforced,
#      in a fresh store: its runs and its choice, right when the side it
#      chose was within 10% of the faster one forced.
#
# Times are Flux's own measure of the run (duration_ms), which includes
# the driver's start and the kernel's build from the driver's cache in
# each new process. bench/gpu.sh runs this on an NVIDIA GPU.
#
#   bench/devices.sh [RUNS] [PARTICLES] [PRIMES_BELOW]      (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
n=${2:-1200}
below=${3:-10000000000}
flux=${FLUX:-build/flux}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_LEARN=off
status=0
miss() { echo "MISSED: $*"; status=1; }
ms() { python3 -c 'import json,sys; print(json.load(sys.stdin)["duration_ms"])'; }
best() { sort -g | head -n 1; }

device=$("$flux" hw | sed -n 's/^ *opencl: //p')
case $device in none*|off*) echo "bench: no OpenCL device: $device (scripts/install-deps --test installs PoCL)"; exit 1 ;; esac
echo "== devices: the particle step (examples/particles.flux), $n particles, best of $runs"
echo "OpenCL device: $device"
step="simulate_particles(cloud($n), 0.01)"
small="simulate_particles(cloud(1100), 0.01)"
for dev in cpu opencl; do
    for r in $(seq "$runs"); do
        "$flux" run examples/particles.flux "$step" --device $dev --json --store "$tmp/$dev" > "$tmp/$dev.json"
        ms < "$tmp/$dev.json" >> "$tmp/$dev.ms"
    done
    "$flux" run examples/particles.flux "$step" --device $dev --store "$tmp/$dev" > "$tmp/$dev.out"
    "$flux" run examples/particles.flux "$small" --device $dev --json --store "$tmp/$dev" | ms > "$tmp/$dev.small"
done
cmp -s "$tmp/cpu.out" "$tmp/opencl.out" || miss "the device's particles differ from the CPU's"
cpu=$(best < "$tmp/cpu.ms"); dev=$(best < "$tmp/opencl.ms")
printf '%-34s %10s ms\n' "CPU (interpreter, 1 thread)" "$cpu" "OpenCL ($(echo "$device" | cut -d'(' -f1))" "$dev"
printf '%-34s %10sx\n' "speed-up of the device" "$(awk "BEGIN{printf \"%.1f\", $cpu / $dev}")"

echo "== the cost model, unforced, in a fresh store"
choose() { # EXPR: the decision's device and its run's time
    env -u FLUX_EXPLORE "$flux" run examples/particles.flux "$1" --json --store "$tmp/auto" | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = [x for x in r["decision_tree"] if x["decision"].startswith("device")]
print(d[0]["decision"].split()[1] if d else "cpu", r["duration_ms"], (d[0]["reason"][:110] if d else "no device decision"))'
}
for i in 1 2 3 4; do
    read -r where t why < <(choose "$step")
    printf 'run %d, %d particles: %-6s %10s ms  %s\n' "$i" "$n" "$where" "$t" "$why"
done
faster=$(awk "BEGIN{print ($dev < $cpu) ? \"opencl\" : \"cpu\"}")
[ "$where" = "$faster" ] && right=right || { right=WRONG; miss "the model chose $where for $n particles, $faster was faster"; }
echo "its choice for $n particles: $where, $right (forced: cpu $cpu ms, opencl $dev ms)"
read -r where t why < <(choose "$small")
cs=$(cat "$tmp/cpu.small"); ds=$(cat "$tmp/opencl.small")
faster=$(awk "BEGIN{print ($ds < $cs) ? \"opencl\" : \"cpu\"}")
[ "$where" = "$faster" ] && right=right || right="not the faster (forced: cpu $cs ms, opencl $ds ms)"
echo "its choice for 1100 particles: $where ($t ms), $right"

echo "== the MPI fold: the primes below $below, 1 process and 2 ranks, best of $runs"
if ! command -v mpirun >/dev/null || [ ! -f "$(dirname "$flux")/libflux_mpi.so" ]; then
    miss "no mpirun or no MPI plugin (scripts/install-deps --test, then make)"
    exit $status
fi
cat > "$tmp/fold.flux" <<'F'
intent count_primes(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p))
F
fold() { # STORE ARGS...: the count, then the run's time, then its device decision
    local store=$1; shift
    "$flux" run "$tmp/fold.flux" "count_primes($below)" --json --store "$store" "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = [x for x in r["decision_tree"] if x["decision"].startswith("device")]
print(r["output"], r["duration_ms"], d[0]["decision"].split()[1] if d else "cpu", (d[0]["reason"][:120] if d else ""))'
}
for s in 1 2 auto; do # the sieve, learned in each store
    "$flux" run "$tmp/fold.flux" 'count_primes(2000)' --store "$tmp/mpi$s" >/dev/null
    "$flux" optimize "$tmp/fold.flux" count_primes --store "$tmp/mpi$s" >/dev/null
done
for r in $(seq "$runs"); do
    read -r v1 t _ < <(fold "$tmp/mpi1" --device cpu); echo "$t" >> "$tmp/mpi1.ms"
    read -r v2 t _ < <(fold "$tmp/mpi2" --ranks 2 --device mpi); echo "$t" >> "$tmp/mpi2.ms"
done
[ "$v1" = "$v2" ] || miss "2 ranks counted $v2, 1 process $v1"
one=$(best < "$tmp/mpi1.ms"); two=$(best < "$tmp/mpi2.ms")
printf '%-34s %10s ms  (%s primes)\n' "1 process" "$one" "$v1" "2 ranks (Open MPI)" "$two" "$v2"
printf '%-34s %10sx\n' "speed-up of 2 ranks" "$(awk "BEGIN{printf \"%.2f\", $one / $two}")"
for i in 1 2 3 4; do
    read -r v t where why < <(FLUX_EXPLORE= fold "$tmp/mpiauto" --ranks 2)
    [ "$v" = "$v1" ] || miss "the model's run $i counted $v"
    printf 'run %d, --ranks 2: %-4s %10s ms  %s\n' "$i" "$where" "$t" "$why"
done
faster=$(awk "BEGIN{print ($two < $one) ? \"mpi\" : \"cpu\"}")
chosen=$([ "$where" = mpi ] && echo "$two" || echo "$one")
right=$(awk "BEGIN{print ($chosen <= 1.1 * ($two < $one ? $two : $one)) ? \"right\" : \"WRONG\"}")
[ "$right" = right ] || miss "the model chose $where for the fold, $faster was faster"
echo "its choice for the fold: $where, $right (forced: 1 process $one ms, 2 ranks $two ms)"
exit $status
