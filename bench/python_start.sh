#!/usr/bin/env bash
# python_start.sh: the whole-process start of one call from Python on a warm
# store (docs/python.md), against `python3 -c pass` plus the CLI's own
# `flux run`; the goal is at most 2x that sum. Medians of 15, interleaved.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
flux=${FLUX:-$root/build/flux}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/examples/fibonacci.flux" "$tmp/fib.flux"
cd "$tmp"
export PYTHONPATH=$root/python FLUX_LIBRARY=${FLUX_LIBRARY:-$root/build/libflux.so} FLUX_LEARN=off
py_call='import flux; p = flux.load("fib.flux", store="s"); p.fibonacci(30); p.close()'
# warm: the store made, the checker's verdicts kept, the caches full
for _ in 1 2 3; do
    "$flux" run fib.flux 'fibonacci(30)' --store s >/dev/null
    python3 -c "$py_call"
done
python3 - "$flux" "$py_call" <<'PY'
import statistics, subprocess, sys, time
flux, call = sys.argv[1:3]
cmds = {"python3 -c pass": ["python3", "-c", "pass"],
        "flux run": [flux, "run", "fib.flux", "fibonacci(30)", "--store", "s"],
        "python3 import flux, one call": ["python3", "-c", call]}
times = {k: [] for k in cmds}
for _ in range(15):
    for k, c in cmds.items():
        t = time.perf_counter()
        subprocess.run(c, check=True, stdout=subprocess.DEVNULL)
        times[k].append((time.perf_counter() - t) * 1e3)
m = {k: statistics.median(v) for k, v in times.items()}
for k, v in m.items():
    print("python_start: %-32s %7.2f ms" % (k, v))
limit = 2 * (m["python3 -c pass"] + m["flux run"])
ratio = m["python3 import flux, one call"] / (m["python3 -c pass"] + m["flux run"])
print("python_start: one call from Python is %.2fx (python3 -c pass + flux run); goal 2x: %s"
      % (ratio, "met" if ratio <= 2 else "NOT MET"))
PY
