# A damaged store (issue 15, point 5): random bytes written into copies of
# a small learned store, 35 fixed seeds. After each, a store that fails
# integrity_check is refused by `flux run` (exit 4, the way to recover
# named), `explain`, `history`, `replay` and `proofs`, and its files are
# not touched; `flux store check` agrees with
# integrity_check (exit 4 for damaged pages; 0, or 3 when a row's changed
# bytes fail a check a run makes, on a store whose pages are whole) and
# changes nothing; `flux store recover` makes a store that passes it and
# keeps every execution a row-by-row read of the damaged one can see.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap "rm -rf $tmp" EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo $tmp
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
export FLUX_LEARN=wait
base=$tmp/base
for n in 10 20 40 80 10 12 15 18 22 25 30 5; do
    "$FLUX" run "$examples/fibonacci.flux" "fibonacci($n)" --store "$base" >/dev/null ||
        fail "run fibonacci($n)"
done
"$FLUX" run "$examples/sort.flux" 'sort([3, 1, 2])' --store "$base" >/dev/null || fail "run sort"
# every page into flux.db, where the bytes are written
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("pragma wal_checkpoint(truncate)")' \
    "$base/flux.db" || fail "checkpoint"
"$FLUX" store check --store "$base" >/dev/null || fail "the base store fails the check"

python3 - "$FLUX" "$base" "$tmp" "$examples/fibonacci.flux" <<'PY' || exit 1
import hashlib, os, random, shutil, sqlite3, subprocess, sys

flux, base, tmp, fib = sys.argv[1:]
COLS = ("id, version, intent, expr, input, output, output_hash, output_bytes, decisions,"
        " hardware, duration_ms, optimizations, proof_ids, verified, recorded_at")

def fail(msg):
    print(msg)
    sys.exit(1)

def files(d):  # the folder as it is: every name, every file's bytes
    return {n: hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest()
            if os.path.isfile(os.path.join(d, n)) else "dir" for n in sorted(os.listdir(d))}

def reader(d):  # reads without changing anything
    db = sqlite3.connect("file:%s/flux.db?immutable=1" % d, uri=True)
    db.text_factory = bytes  # damaged text need not be UTF-8
    return db

def integrity(d):
    try:
        return reader(d).execute("pragma integrity_check").fetchone()[0].decode("utf-8", "replace")
    except (sqlite3.Error, UnicodeDecodeError) as e:
        return str(e)

def readable(d, ids):  # the executions a row-by-row read sees, every column
    seen = set()
    try:
        db = reader(d)
    except (sqlite3.Error, UnicodeDecodeError):
        return seen
    for i in ids:
        try:
            if db.execute("select %s from executions where id = ?" % COLS, (i,)).fetchall():
                seen.add(i)
        except (sqlite3.Error, UnicodeDecodeError):
            pass
    return seen

ids = [r[0] for r in reader(base).execute("select id from executions")]
size = os.path.getsize(base + "/flux.db")
damaged = refused = 0
for seed in range(1, 36):
    rnd = random.Random(seed)
    d = "%s/c%d" % (tmp, seed)
    if os.environ.get("ONLY") and int(os.environ["ONLY"]) != seed: continue
    shutil.copytree(base, d)
    with open(d + "/flux.db", "r+b") as f:
        for _ in range(rnd.randint(1, 4)):
            f.seek(rnd.randrange(100, size))
            f.write(bytes(rnd.randrange(256) for _ in range(rnd.randint(8, 1000))))
    ok = integrity(d) == "ok"
    before = files(d)
    run = subprocess.run([flux, "run", fib, "fibonacci(7)", "--store", d],
                         capture_output=True, text=True)
    if run.returncode not in (0, 4):
        fail("seed %d: run exited %d: %s" % (seed, run.returncode, run.stderr))
    if not ok:
        damaged += 1
        if run.returncode != 4:
            fail("seed %d: integrity_check fails, yet the run exited 0" % seed)
        if files(d) != before:
            fail("seed %d: a refused store was changed" % seed)
        if "flux store recover" not in run.stderr and "not a SQLite database" not in run.stderr:
            fail("seed %d: the refusal does not say how to recover: %s" % (seed, run.stderr))
        for cmd in (["explain", fib, "fibonacci(6)"], ["history", fib], ["replay", "1"],
                    ["proofs", fib]):
            other = subprocess.run([flux] + cmd + ["--store", d], capture_output=True)
            if other.returncode != 4 or files(d) != before:
                fail("seed %d: %s exited %d on a damaged store" % (seed, cmd[0], other.returncode))
    if run.returncode == 4:
        refused += 1
    pre = files(d)
    check = subprocess.run([flux, "store", "check", "--store", d], capture_output=True)
    # damaged pages: 4; whole pages, a row's bytes changed (a graph, a seal):
    # 0, or 3 when a check a run makes fails on what the bytes say now
    if (check.returncode == 4) != (integrity(d) != "ok") or check.returncode not in (0, 3, 4):
        fail("seed %d: store check exited %d, integrity_check says %s"
             % (seed, check.returncode, integrity(d)))
    seen = readable(d, ids)
    new = "%s/r%d" % (tmp, seed)
    rec = subprocess.run([flux, "store", "recover", "--store", d, new],
                         capture_output=True, text=True)
    if files(d) != pre:
        fail("seed %d: check or recover changed the store" % seed)
    if rec.returncode != 0:
        if seen:
            fail("seed %d: recover failed (%s) where %d executions are readable"
                 % (seed, rec.stderr, len(seen)))
        continue
    kept = {r[0] for r in reader(new).execute("select id from executions")}
    if not seen <= kept:
        fail("seed %d: recover lost readable executions %s" % (seed, sorted(seen - kept)))
    if integrity(new) != "ok":
        fail("seed %d: the recovered store fails integrity_check" % seed)
if damaged < 20:
    fail("only %d of 35 corruptions damaged the store: the test is too weak" % damaged)
print("%d of 35 damaged, %d runs refused" % (damaged, refused))
PY
