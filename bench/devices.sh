#!/usr/bin/env bash
# The devices (issue 21, docs/devices.md), side by side in one run:
#
#   1. one step of the particle simulation (examples/particles.flux, all
#      pairs) on the CPU (the interpreter, one thread) and on the OpenCL
#      device (PoCL here: the same cores, compiled; a GPU where there is
#      one), forced each way, best of RUNS; the values must be equal.
#   2. the cost model, unforced, in a fresh store: the runs it takes to
#      learn (CPU, then the device once), then its choice for the same call
#      and for a small one, and whether each choice was right, judged by the
#      forced times of (1) and of the small call.
#
# Times are Flux's own measure of the run (duration_ms), which includes
# the driver's start and the kernel's build from the driver's cache in
# each new process. bench/gpu.sh runs this on an NVIDIA GPU.
#
#   bench/devices.sh [RUNS] [PARTICLES]      (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
n=${2:-1200}
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
for i in 1 2 3; do
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
exit $status
