#!/usr/bin/env bash
# serve.sh: `flux serve` (docs/web.md) against a running server on a free
# loopback port: every API path and its JSON, errors as JSON, paths outside
# the assets (../, encoded, absolute) answered 404, methods and sizes
# refused, 1000 concurrent requests all answered, a run of another process
# streamed live, and a non-loopback bind that wants its token.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
store=$tmp/store
cp "$root/examples/fibonacci.flux" "$tmp/fib.flux"
for n in 10 20 30; do
    "$FLUX" run "$tmp/fib.flux" "fibonacci($n)" --store "$store" --no-learn >/dev/null
done
"$FLUX" optimize "$tmp/fib.flux" --store "$store" >/dev/null
for n in $(seq 40 160); do # a page of 100 and more
    "$FLUX" run "$tmp/fib.flux" "fibonacci($n)" --store "$store" --no-learn >/dev/null
done
# a program whose data source lies outside its folder, run by its owner
mkdir "$tmp/app"
printf 'x\n1\n2\n' > "$tmp/outside.csv"
cat > "$tmp/app/outside.flux" <<'F'
type Row = { x: Int }
data rows: List[Row] from "../outside.csv"
intent total() -> Int:
    constraints:
        - result = sum(r.x for r in rows)
F
outside_id=$("$FLUX" run "$tmp/app/outside.flux" 'total()' --store "$store" --no-learn --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["execution_id"][5:])')
export OUTSIDE_ID=$outside_id

# start SERVER_OUT ARGS...: a server in the background; its URL in $url
start() {
    local out=$1
    shift
    "$FLUX" serve "$tmp/fib.flux" --store "$store" --port 0 "$@" >"$out" 2>"$out.err" &
    pids+=($!)
    for _ in $(seq 100); do
        url=$(sed -n 's/^flux serve: //p' "$out")
        [[ -n "$url" ]] && return 0
        sleep 0.1
    done
    echo "the server did not start:" >&2
    cat "$out.err" >&2
    return 1
}

start "$tmp/out"
python3 - "$url" "$FLUX" "$tmp/fib.flux" "$store" <<'EOF'
import concurrent.futures, json, socket, subprocess, sys, threading, time, urllib.error
import urllib.request

url, flux, program, store = sys.argv[1:5]
host, port = url.split('//')[1].split('/')[0].split(':')
port = int(port)

def get(path, status=200):
    try:
        with urllib.request.urlopen(url.rstrip('/') + path, timeout=10) as r:
            code, body, kind = r.status, r.read(), r.headers['Content-Type']
    except urllib.error.HTTPError as e:
        code, body, kind = e.code, e.read(), e.headers['Content-Type']
    assert code == status, (path, code, body[:200])
    return json.loads(body) if kind.startswith('application/json') else body

def post(path, status=200, headers=None):
    """POST with no body; status None: (status, body) whatever it is."""
    req = urllib.request.Request(url.rstrip('/') + path, data=b'', method='POST',
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            code, body = r.status, r.read()
    except urllib.error.HTTPError as e:
        code, body = e.code, e.read()
    if status is None:
        return code, body
    assert code == status, (path, code, body[:200])
    return json.loads(body)

def raw(request):
    """The status line and body of a request written as is."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(request)
        data = b''
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return data

# the API
progs = get('/api/programs')['programs']
assert progs[0]['intents'] == ['fibonacci'], progs
versions = get('/api/versions?intent=fibonacci')['versions']
assert len(versions) >= 2 and versions[0]['version'] == 'v1', versions
assert versions[1]['rewrite'] and versions[1]['proof_id'], versions[1]
page = get('/api/executions?intent=fibonacci&limit=2')
ids = [int(e['execution_id'][5:]) for e in page['executions']]
assert len(ids) == 2 and ids[0] > ids[1] and page['next_before'] == ids[1], page
older = get('/api/executions?intent=fibonacci&limit=2&before=%d' % ids[1])
assert int(older['executions'][0]['execution_id'][5:]) < ids[1], older
one = get('/api/execution?id=%d' % ids[0])['execution']
assert one['execution_id'] == 'exec_%d' % ids[0] and one['decision_tree'], one
first = get('/api/executions?limit=1000')
first_id = int(first['executions'][0]['execution_id'][5:])
assert len(first['executions']) == 124 and first['next_before'] is None, len(first['executions'])
graph = get('/api/graph?intent=fibonacci&version=v1')['graph']
assert graph['version'] == 'v1' and graph['nodes'] and graph['nodes'][0]['origin'], graph
for v in versions:  # every version's graph, not only the current one
    assert get('/api/graph?intent=fibonacci&version=' + v['version'])['graph']['version'] == v['version']
svg = get('/api/graph?intent=fibonacci&format=svg')
assert b'<svg' in svg and b'class="node"' in svg, svg[:200]
proofs = get('/api/proofs')['proofs']
assert proofs and proofs[0]['result'] == 'proved', proofs
text = get('/api/proof?id=%d' % proofs[0]['proof_id'])['proof']['text']
assert 'obligation' in text, text[:200]
counts = get('/api/counts?intent=fibonacci&version=v1')['node_counts']
assert counts['version'] == 'v1' and counts['counts'] and all(c['count'] > 0 for c in counts['counts']), counts
assert get('/api/counts?intent=fibonacci')['node_counts']['version'] == versions[-1]['version']
get('/api/counts?intent=fibonacci&version=v99', 404)
# fibonacci(30) on v1 runs long enough for the sampler: v1's nodes have times
assert sum(c['ms'] for c in counts['counts']) > 0, counts
# time travel: the learning round before an execution, and none before the first
runs = get('/api/executions?limit=1000')['executions']
oldest, newest = int(runs[-1]['execution_id'][5:]), int(runs[0]['execution_id'][5:])
assert get('/api/round?id=%d' % oldest) == {'round': None}
rnd = get('/api/round?id=%d' % newest)['round']
assert rnd['version'] == 'v1' and rnd['after_execution'] < newest and rnd['outcome'], rnd
assert {'rule', 'applies', 'outcome', 'why'} <= set(rnd['turns'][0]), rnd['turns'][0]
assert any(not t['applies'] and t['why'] for t in rnd['turns']), 'a rule that did not apply, and why'
get('/api/round?id=x', 400)
# executions filtered by version and by time, paged across the filter
v1 = get('/api/executions?intent=fibonacci&version=v1&limit=1000')
assert [e['graph_version'] for e in v1['executions']] == ['v1'] * 3 and v1['next_before'] is None, v1
two = get('/api/executions?version=v1&limit=2')
assert len(two['executions']) == 2 and two['next_before'], two
rest = get('/api/executions?version=v1&limit=2&before=%d' % two['next_before'])
assert len(rest['executions']) == 1 and rest['next_before'] is None, rest
assert {e['execution_id'] for e in two['executions'] + rest['executions']} == \
    {e['execution_id'] for e in v1['executions']}
at = runs[60]['recorded_at']
since = get('/api/executions?limit=1000&since=' + at)['executions']
until = get('/api/executions?limit=1000&until=' + at)['executions']
assert all(e['recorded_at'] >= at for e in since) and all(e['recorded_at'] < at for e in until)
assert len(since) + len(until) == len(runs) and since and until, (len(since), len(until))
assert get('/api/executions?version=v77')['executions'] == []
# cost models: none for memoization (no kernel variants); an unknown version is 404
cm = get('/api/models?intent=fibonacci')['cost_models']
assert cm['version'] == versions[-1]['version'] and cm['here'] is None and cm['at_install'] is None, cm
get('/api/models?intent=fibonacci&version=v99', 404)
get('/api/models', 400)
assert 'kernels' in one, one  # null for a run that called no kernel
again = post('/api/replay?id=%d&version=v1' % ids[0])['replay']
assert again['replayed_version'] == 'v1' and again['same_result'] is True, again
assert again['execution_id'] == 'exec_%d' % ids[0] and again['ms'] >= 0, again
post('/api/replay?id=999999', 404)
# a replay runs code: never for a GET (any page can make one with an <img>),
# never from another site's page (its Origin), one at a time, and off the
# lock the other answers take (issue 32)
get('/api/replay?id=%d' % ids[0], 405)
# data sources confined by default: the page's replay of a program that
# reads outside its folder is refused, naming the file
import os
code, body = post('/api/replay?id=%s' % os.environ['OUTSIDE_ID'], None)
assert code == 403 and b'outside the program' in body and b'outside.csv' in body, (code, body)
post('/api/replay?id=%d' % ids[0], 403, {'Origin': 'http://evil.example'})
post('/api/replay?id=%d' % ids[0], 403, {'Origin': 'null'})
assert post('/api/replay?id=%d' % ids[0], 200,
            {'Origin': 'http://%s' % url.split('//')[1].rstrip('/')})['replay']['same_result']
slow = [e for e in get('/api/executions?limit=1000')['executions'] if e['expr'] == 'fibonacci(30)']
assert slow, 'a slow run to replay'
def slow_replay():
    return post('/api/replay?id=%s&version=v1' % slow[0]['execution_id'][5:], None)
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    first = pool.submit(slow_replay)
    time.sleep(0.05)
    t = time.perf_counter()
    get('/api/executions?limit=5')
    during = (time.perf_counter() - t) * 1e3
    second = slow_replay()
    done = first.result()
print('serve: a page of executions in %.1f ms during a replay of fibonacci(30) on v1' % during)
assert 200 in (done[0], second[0]) and 503 in (done[0], second[0]) or \
    done[0] == second[0] == 200, (done[0], second[0])
before_replay = get('/api/executions?limit=1')['executions'][0]['execution_id']
assert before_replay == 'exec_%d' % first_id, 'a replay records nothing'
page_ms = []
for _ in range(21):
    t = time.perf_counter()
    get('/api/executions?limit=100')
    page_ms.append((time.perf_counter() - t) * 1e3)
page_ms.sort()
print('serve: a page of 100 executions in %.1f ms (median of 21)' % page_ms[10])

# errors: JSON with a status
for path, status in [('/api/executions?limit=0', 400), ('/api/executions?before=x', 400),
                     ('/api/graph?intent=nope', 404), ('/api/graph', 400),
                     ('/api/execution?id=999999', 404), ('/api/proof?id=x', 400),
                     ('/api/nothing', 404), ('/nothing', 404), ('/index.html', 404)]:
    e = get(path, status)['error']
    assert e['status'] == status and e['message'], (path, e)

# paths outside the assets, sent as they are written
for target in [b'/../etc/passwd', b'/../../../../etc/passwd', b'/%2e%2e/%2e%2e/etc/passwd',
               b'/..%2f..%2fetc%2fpasswd', b'//etc/passwd', b'/app.js/../../etc/passwd',
               b'/etc/passwd', b'http://localhost/etc/passwd', b'/api/../../etc/passwd',
               b'/%00/etc/passwd', b'/.%252e/etc/passwd']:
    answer = raw(b'GET ' + target + b' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
    status = answer.split(b' ', 2)[1] if answer else b''
    assert status in (b'400', b'404'), (target, answer[:120])
    assert b'root:' not in answer, target

# methods and sizes
get('/api/programs')  # still up
for method in [b'POST', b'PUT', b'DELETE']:
    answer = raw(method + b' /api/programs HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n'
                 b'Connection: close\r\n\r\n')
    assert answer.split(b' ', 2)[1] == b'405', answer[:120]
answer = raw(b'GET /api/programs HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n'
             b'Connection: close\r\n\r\n')
assert answer.split(b' ', 2)[1] == b'413', answer[:120]
answer = raw(b'GET /api/programs?' + b'a' * 200000 + b' HTTP/1.1\r\nHost: localhost\r\n\r\n')
assert not answer.startswith(b'HTTP/1.1 200'), answer[:120]
answer = raw(b'GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ' + b'b' * 200000 + b'\r\n\r\n')
assert not answer.startswith(b'HTTP/1.1 200'), answer[:120]
# a long URL (past 8 KiB) and large headers (past 16 KiB): refused as JSON
# errors, as every other error is (libmicrohttpd's own page only past 128 KiB)
for request, status in [
        (b'GET /api/programs?x=' + b'a' * 9000 + b' HTTP/1.1\r\nHost: localhost\r\n', b'414'),
        (b'GET /api/programs HTTP/1.1\r\nHost: localhost\r\n' +
         b''.join(b'X-H%d: %s\r\n' % (i, b'b' * 1000) for i in range(20)), b'431')]:
    answer = raw(request + b'Connection: close\r\n\r\n')
    head, body = answer.split(b'\r\n\r\n', 1)
    assert head.split(b' ', 2)[1] == status and b'application/json' in head, answer[:200]
    assert json.loads(body)['error']['status'] == int(status), body
# a chunked body has no length to check first: refused, whatever its size
answer = raw(b'GET /api/programs HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n'
             b'Connection: close\r\n\r\n' + (b'1000\r\n' + b'x' * 4096 + b'\r\n') * 64 + b'0\r\n\r\n')
assert answer.split(b' ', 2)[1] == b'413', answer[:120]

# a parameter that is not UTF-8, echoed in an error, is U+FFFD there: the
# answer stays JSON, valid UTF-8
answer = raw(b'GET /api/versions?intent=%FF%FEab%C3%A9%22 HTTP/1.1\r\nHost: localhost\r\n'
             b'Connection: close\r\n\r\n')
body = json.loads(answer.split(b'\r\n\r\n', 1)[1].decode('utf-8'))
assert body['error']['message'] == 'no intent `\ufffd\ufffdab\u00e9"` in the programs served', body

# DNS rebinding: a name that is not this machine's loopback is refused (421),
# the loopback names with any port are answered
for name in [b'evil.example', b'localhost.evil.example', b'127.0.0.1.nip.io:80', b'']:
    answer = raw(b'GET /api/programs HTTP/1.1\r\nHost: ' + name + b'\r\nConnection: close\r\n\r\n')
    assert answer.split(b' ', 2)[1] in (b'421', b'400'), (name, answer[:120])
    assert b'"file"' not in answer, name
for name in [b'localhost', b'LOCALHOST:8080', b'127.0.0.1:1', b'[::1]:9']:
    answer = raw(b'GET /api/programs HTTP/1.1\r\nHost: ' + name + b'\r\nConnection: close\r\n\r\n')
    assert answer.split(b' ', 2)[1] == b'200', (name, answer[:120])

# 1000 concurrent requests: every one answered
def fetch(i):
    paths = ['/api/programs', '/api/executions?limit=5', '/app.js', '/']
    with urllib.request.urlopen(url.rstrip('/') + paths[i % 4], timeout=30) as r:
        return r.status, len(r.read())
t = time.perf_counter()
with concurrent.futures.ThreadPoolExecutor(max_workers=200) as pool:
    results = list(pool.map(fetch, range(1000)))
assert len(results) == 1000 and all(s == 200 and n > 0 for s, n in results), results[:5]
print('serve: 1000 concurrent requests answered in %.2f s' % (time.perf_counter() - t))
get('/api/programs')

# live: a run of another process arrives as an event
events, opened = [], threading.Event()
def listen():
    with urllib.request.urlopen(url.rstrip('/') + '/api/events', timeout=20) as r:
        opened.set()
        for line in r:
            if line.startswith(b'data: '):
                events.append((time.perf_counter(), json.loads(line[6:])))
                return
threading.Thread(target=listen, daemon=True).start()
assert opened.wait(10)
time.sleep(0.3)
ran = time.perf_counter()
out = subprocess.run([flux, 'run', program, 'fibonacci(7)', '--store', store, '--json',
                      '--no-learn'], capture_output=True, check=True).stdout
done = time.perf_counter()
run_id = json.loads(out)['execution_id']
deadline = time.perf_counter() + 5
while not events and time.perf_counter() < deadline:
    time.sleep(0.05)
assert events and events[0][1]['execution_id'] == run_id, (events, run_id)
print('serve: a run of another process streamed %.0f ms after it ended'
      % ((events[0][0] - done) * 1e3))
EOF

# a second server on the port of the first: refused, with the reason
port=$(echo "$url" | sed 's/.*:\([0-9]*\)\/.*/\1/')
if "$FLUX" serve "$tmp/fib.flux" --store "$store" --port "$port" >/dev/null 2>"$tmp/busy"; then
    echo "a second server on port $port started" >&2
    exit 1
fi
grep -q "cannot listen on 127.0.0.1 port $port" "$tmp/busy"

# a non-loopback bind: every request needs the token printed at start
start "$tmp/out2" --bind 0.0.0.0
token=${url##*token=}
port=$(echo "$url" | sed 's/.*:\([0-9]*\)\/.*/\1/')
[[ ${#token} -eq 64 ]]
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[[ $(code "http://127.0.0.1:$port/api/programs") == 401 ]]
[[ $(code "http://127.0.0.1:$port/") == 401 ]]
[[ $(code -H "Authorization: Bearer ${token%?}x" "http://127.0.0.1:$port/api/programs") == 401 ]]
[[ $(code -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/programs") == 200 ]]
[[ $(code "http://127.0.0.1:$port/app.js?token=$token") == 200 ]]

# usage errors
set +e
"$FLUX" serve "$tmp/fib.flux" --port 70000 >/dev/null 2>&1
[[ $? -eq 2 ]] || exit 1
"$FLUX" serve "$tmp/fib.flux" --token short >/dev/null 2>&1
[[ $? -eq 2 ]] || exit 1
"$FLUX" serve "$tmp/fib.flux" --bind nowhere --store "$store" >/dev/null 2>"$tmp/bad"
[[ $? -eq 2 ]] || exit 1
set -e
grep -q "not an IPv4 or IPv6 address" "$tmp/bad"

# with no FILE: the programs whose sources the store keeps
"$FLUX" serve --store "$store" --port 0 >"$tmp/out3" 2>"$tmp/out3.err" &
pids+=($!)
for _ in $(seq 100); do
    url=$(sed -n 's/^flux serve: //p' "$tmp/out3")
    [[ -n "$url" ]] && break
    sleep 0.1
done
curl -s "${url}api/programs" | python3 -c '
import json, sys
p = json.load(sys.stdin)["programs"]
assert p == [{"file": sys.argv[1], "intents": ["fibonacci"]}], p' "$tmp/fib.flux"
[[ $(curl -s -o /dev/null -w '%{http_code}' "${url}api/executions?intent=fibonacci") == 200 ]]
set +e
"$FLUX" serve --store "$tmp/none" >/dev/null 2>"$tmp/none.err"
[[ $? -eq 4 ]] || exit 1
set -e
grep -q "no store at $tmp/none" "$tmp/none.err"

# SIGTERM stops each server cleanly: exit 0 (under ASan: nothing leaked)
for p in "${pids[@]}"; do kill -TERM "$p"; done
for p in "${pids[@]}"; do
    wait "$p" || { echo "a server did not end cleanly:" >&2; cat "$tmp"/out*.err >&2; exit 1; }
done
pids=()
echo "serve: ok"
