#!/usr/bin/env bash
# traces_chrome.sh: `flux traces --format chrome` (docs/web.md): the recorded
# executions as a Chrome trace event document that Perfetto opens: one
# complete event per execution, named by its EXPR, on its version's thread,
# ending at its recorded time; an intent a process; each kernel call inside
# its execution, and each of its tasks on the track of its thread.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/examples/fibonacci.flux" "$tmp/fib.flux"
for n in 10 20 25; do
    "$FLUX" run "$tmp/fib.flux" "fibonacci($n)" --store "$tmp/s" --no-learn >/dev/null
done
"$FLUX" optimize "$tmp/fib.flux" --store "$tmp/s" >/dev/null
"$FLUX" run "$tmp/fib.flux" "fibonacci(30)" --store "$tmp/s" --no-learn >/dev/null
"$FLUX" traces "$tmp/fib.flux" --store "$tmp/s" --json >"$tmp/lines"
"$FLUX" traces "$tmp/fib.flux" --store "$tmp/s" --format chrome >"$tmp/trace.json"
"$FLUX" traces "$tmp/fib.flux" fibonacci --last 2 --store "$tmp/s" --format chrome >"$tmp/two.json"
# a sieve on the device's threads
cp "$root/examples/primes.flux" "$tmp/primes.flux"
for n in 1000 2000; do
    "$FLUX" run "$tmp/primes.flux" "len(find_primes($n))" --store "$tmp/p" --no-learn >/dev/null
done
"$FLUX" optimize "$tmp/primes.flux" --store "$tmp/p" >/dev/null
"$FLUX" run "$tmp/primes.flux" "len(find_primes(20000000))" --store "$tmp/p" --no-learn >/dev/null
"$FLUX" traces "$tmp/primes.flux" --store "$tmp/p" --json >"$tmp/plines"
"$FLUX" traces "$tmp/primes.flux" --store "$tmp/p" --format chrome >"$tmp/primes.json"
python3 - "$tmp" <<'PY'
import json, sys, datetime
tmp = sys.argv[1]
records = [json.loads(l) for l in open(tmp + '/lines')]
doc = json.load(open(tmp + '/trace.json'))
assert doc['displayTimeUnit'] == 'ms'
runs = [e for e in doc['traceEvents'] if e['ph'] == 'X' and e['cat'] == 'execution']
assert len(runs) == len(records) == 4, (len(runs), len(records))
meta = [e for e in doc['traceEvents'] if e['ph'] == 'M']
assert {'name': 'process_name', 'ph': 'M', 'pid': 1, 'args': {'name': 'fibonacci'}} in meta, meta
by_id = {r['execution_id']: r for r in records}
for e in runs:
    r = by_id[e['args']['execution_id']]
    assert e['name'] == r['expr'] and e['args']['output'] == r['output'], (e, r)
    assert e['tid'] == int(r['graph_version'][1:]) and e['pid'] == 1, e
    assert {'name': 'thread_name', 'ph': 'M', 'pid': 1, 'tid': e['tid'],
            'args': {'name': r['graph_version']}} in meta, e['tid']
    end = datetime.datetime.strptime(r['recorded_at'], '%Y-%m-%dT%H:%M:%S.%fZ').replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1e6
    assert abs(e['ts'] + e['dur'] - end) < 1.0, (e['ts'], e['dur'], end)
    assert abs(e['dur'] - r['duration_ms'] * 1e3) < 0.01, e
assert len({e['tid'] for e in runs}) == 2, 'v1 and the rewritten version'
two = [e for e in json.load(open(tmp + '/two.json'))['traceEvents']
       if e['ph'] == 'X' and e['cat'] == 'execution']
assert len(two) == 2 and {e['name'] for e in two} == {'fibonacci(25)', 'fibonacci(30)'}, two
# memoization is no kernel: no kernel call in fibonacci's runs, none drawn
assert all(r['kernels'] is None for r in records), records
assert not [e for e in doc['traceEvents'] if e['ph'] == 'X' and e['cat'] != 'execution']
# the sieve's tasks, each on the track of the thread that ran it
plines = [json.loads(l) for l in open(tmp + '/plines')]
sieved = [r for r in plines if r['kernels']]
assert len(sieved) == 1 and sieved[0]['kernels']['calls'][0]['kernel'] == 'sieve', plines
call = sieved[0]['kernels']['calls'][0]
assert call['tasks'] and sieved[0]['kernels']['totals'][0]['calls'] == 1, call
events = json.load(open(tmp + '/primes.json'))['traceEvents']
tasks = [e for e in events if e['ph'] == 'X' and e['cat'] == 'task']
assert len(tasks) == len(call['tasks']), (tasks, call)
assert sorted(e['tid'] for e in tasks) == sorted(t['thread'] for t in call['tasks']), tasks
run = [e for e in events if e['ph'] == 'X' and e['cat'] == 'execution'
       and e['args']['execution_id'] == sieved[0]['execution_id']][0]
kernels = [e for e in events if e['ph'] == 'X' and e['cat'] == 'kernel']
assert len(kernels) == 1 and kernels[0]['name'] == 'sieve' and kernels[0]['tid'] == run['tid']
for t in tasks + kernels:
    assert run['ts'] <= t['ts'] and t['ts'] + t['dur'] <= run['ts'] + run['dur'] + 1, (t, run)
PY
set +e
"$FLUX" traces "$tmp/fib.flux" --store "$tmp/s" --format xml >/dev/null 2>&1
[[ $? -eq 2 ]] || exit 1
"$FLUX" traces "$tmp/fib.flux" nope --store "$tmp/s" --format chrome >/dev/null 2>&1
[[ $? -eq 2 ]] || exit 1
echo "traces_chrome: ok"
