# flux hw: the hardware profile for people and as one JSON object; the
# summary it shows is the "hardware" every recorded execution carries; the
# devices kernels run on, the CPU (its thread pool) always among them.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
out=$("$FLUX" hw) || fail "hw: exit $?"
for key in cores caches numa simd arch pool source recorded devices; do
    printf '%s\n' "$out" | grep -q "^$key " || fail "no $key line: $out"
done
printf '%s\n' "$out" | grep -Eq '^cores +[1-9][0-9]* physical, [1-9][0-9]* hardware threads?$' ||
    fail "cores: $out"
printf '%s\n' "$out" | grep -Eq '^pool +[1-9][0-9]* threads? \(the caller and [0-9]+ workers?\)$' ||
    fail "pool: $out"
printf '%s\n' "$out" | grep -Eq '^devices +cpu: [1-9][0-9]* threads? on [1-9][0-9]* cores? \(the pool\), .*, ([0-9.]+ [GM]iB of memory|memory unknown)$' ||
    fail "devices: $out"
json=$("$FLUX" hw --json) || fail "hw --json: exit $?"
printf '%s\n' "$json" | python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 1, lines
h = json.loads(lines[0])
assert set(h) == {"cores", "threads", "numa_nodes", "caches", "simd", "arch", "pool_threads",
                  "source", "hardware", "devices", "native"}, h
n = h["native"]
assert [x["tier"] for x in n] == ["tcc", "cc -O2"], n
assert all(set(x) == {"tier", "compiler", "note"} for x in n), n
assert all((x["compiler"] is None) == (x["note"] is not None) for x in n), n
d = h["devices"]
assert d[0]["name"] == "cpu" and d[0]["id"] == 0 and d[0]["units"] == h["pool_threads"], d
assert all(set(x) == {"id", "name", "present", "units", "memory", "what"} for x in d), d
assert [x["name"] for x in d] == ["cpu", "opencl", "mpi"], d
assert [x["id"] for x in d] == [0, 1, 2], d
assert d[0]["present"] and all(x["what"] for x in d), d
assert d[1]["present"] or d[1]["what"].startswith(("none", "off")), d
assert not d[2]["present"] and d[2]["what"].startswith("none"), d  # outside mpirun
assert h["cores"] >= 1 and h["threads"] >= h["cores"] and h["numa_nodes"] >= 1, h
assert h["pool_threads"] == h["cores"], h
c = h["caches"]
assert set(c) == {"l1d", "l2", "l3", "line"}, c
known = [c[k] for k in ("l1d", "l2", "l3") if c[k] is not None]
assert all(s > 0 and s % 1024 == 0 for s in known) and known == sorted(known), c
assert c["line"] is None or c["line"] & (c["line"] - 1) == 0, c
assert isinstance(h["simd"], list) and all(isinstance(s, str) for s in h["simd"]), h
cores = "%d core%s, " % (h["cores"], "" if h["cores"] == 1 else "s")
assert h["hardware"].startswith(cores + (h["arch"] or "unknown")), h
' || fail "hw --json: $json"
# the line a run records is the one hw shows
recorded=$(printf '%s\n' "$out" | sed -n 's/^recorded *"\(.*\)"$/\1/p')
run=$("$FLUX" run "$root/examples/fibonacci.flux" 'fibonacci(10)' --json --no-learn) ||
    fail "run: exit $?"
printf '%s\n' "$run" | python3 -c '
import json, sys
assert json.loads(sys.stdin.read())["hardware"] == sys.argv[1], sys.argv[1]' "$recorded" ||
    fail "run records another hardware line than \"$recorded\": $run"
# no compiler (FLUX_NATIVE=off stands for none on PATH): a note, never an error
off=$(FLUX_NATIVE=off "$FLUX" hw) || fail "hw with FLUX_NATIVE=off: exit $?"
printf '%s\n' "$off" | grep -q '^native    tcc: none (FLUX_NATIVE=off): ' || fail "no note: $off"
off=$(PATH=/nonexistent "$FLUX" hw --json) || fail "hw with no PATH: exit $?"
printf '%s\n' "$off" | python3 -c '
import json, sys
n = json.loads(sys.stdin.read())["native"]
assert [x["compiler"] for x in n] == [None, None], n
assert n[0]["note"] == "no tcc on PATH" and n[1]["note"] == "no cc on PATH", n' ||
    fail "hw --json without compilers: $off"
"$FLUX" hw --help | grep -q '^usage: flux hw \[--json\]' || fail "hw --help"
"$FLUX" hw --bogus 2>/dev/null; [ $? = 2 ] || fail "--bogus: not exit 2"
"$FLUX" hw extra 2>/dev/null; [ $? = 2 ] || fail "extra argument: not exit 2"
exit 0
