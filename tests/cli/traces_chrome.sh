#!/usr/bin/env bash
# traces_chrome.sh: `flux traces --format chrome` (docs/web.md): the recorded
# executions as a Chrome trace event document that Perfetto opens: one
# complete event per execution, named by its EXPR, on its version's thread,
# ending at its recorded time; an intent a process.
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
python3 - "$tmp" <<'PY'
import json, sys, datetime
tmp = sys.argv[1]
records = [json.loads(l) for l in open(tmp + '/lines')]
doc = json.load(open(tmp + '/trace.json'))
assert doc['displayTimeUnit'] == 'ms'
runs = [e for e in doc['traceEvents'] if e['ph'] == 'X']
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
two = [e for e in json.load(open(tmp + '/two.json'))['traceEvents'] if e['ph'] == 'X']
assert len(two) == 2 and {e['name'] for e in two} == {'fibonacci(25)', 'fibonacci(30)'}, two
PY
set +e
"$FLUX" traces "$tmp/fib.flux" --store "$tmp/s" --format xml >/dev/null 2>&1
[[ $? -eq 2 ]] || exit 1
"$FLUX" traces "$tmp/fib.flux" nope --store "$tmp/s" --format chrome >/dev/null 2>&1
[[ $? -eq 2 ]] || exit 1
echo "traces_chrome: ok"
