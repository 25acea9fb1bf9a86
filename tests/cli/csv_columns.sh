# CSV sources read into columns (exec/data.c): the fast path, the general
# reader, the windows of a large file and its parts across threads must
# all give what the file says. Random files with every feature the format
# has (quotes, "" escapes, line breaks in cells, CRLF, spaces around
# numbers, +signs, integers past int64, a byte-order mark, blank last
# lines) are checked value for value against Python's reading of the same
# text; two files past the 16 MB window (one with a quote late in it, which
# sends the rest to the general reader) are checked by their sums, and a
# bad cell in each must be reported at its line.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > t.flux <<'F'
type Row = { i: Int, s: String, f: Float, b: Bool, n: Natural }
data rows: List[Row] from "t.csv"
F
python3 - "$FLUX" <<'PY' || exit 1
import json, random, subprocess, sys
flux = sys.argv[1]
rnd = random.Random(16)

def cell_int(allow_neg=True):
    k = rnd.random()
    if k < 0.1:
        v = rnd.choice([2**63 - 1, -2**63, 2**63, -2**63 - 1, 10**30, -(10**25)])
    elif k < 0.5:
        v = rnd.randint(-2**63, 2**63 - 1)
    else:
        v = rnd.randint(-1000, 1000)
    if not allow_neg:
        v = abs(v)
    t = str(v)
    if rnd.random() < 0.05 and v >= 0:
        t = "+" + t
    if rnd.random() < 0.05:
        t = " " * rnd.randint(1, 2) + t + "\t"
    if rnd.random() < 0.03:
        t = "000" + t.strip().lstrip("+") if v >= 0 else t
    return t, v

def cell_float():
    v = rnd.choice([rnd.uniform(-1e6, 1e6), rnd.randint(-50, 50), rnd.uniform(0, 1) * 1e-300,
                    1.5e300, -0.0, 0.1])
    t = rnd.choice([repr(float(v)), "%.3f" % v, "%e" % v, str(int(v)) if abs(v) < 1e15 else repr(float(v))])
    if rnd.random() < 0.05:
        t = " " + t + " "
    return t, float(t)

def cell_bool():
    v = rnd.random() < 0.5
    t = rnd.choice(["true", "TRUE", "True", "1"] if v else ["false", "False", "0"])
    if rnd.random() < 0.05:
        t = " " + t
    return t, v

def cell_str():
    alphabet = ["a", "b", "Z", " ", "é", "漢", "😀", "-", "x"]
    special = [",", '"', "\n", "\r\n"]
    s = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
    if rnd.random() < 0.2:
        pos = rnd.randint(0, len(s))
        s = s[:pos] + rnd.choice(special) + s[pos:]
    if any(c in s for c in ',"\n\r') or (s[:1] == '"') or rnd.random() < 0.05:
        return '"' + s.replace('"', '""') + '"', s
    return s, s

def write(path, n_rows, crlf, bom, tail):
    cols = ["i", "s", "f", "b", "n", "extra"]
    order = cols[:]
    rnd.shuffle(order)
    nl = "\r\n" if crlf else "\n"
    rows, lines = [], [",".join('"%s"' % c if rnd.random() < 0.3 else c for c in order)]
    for _ in range(n_rows):
        cells = {}
        ti, vi = cell_int(); ts, vs = cell_str(); tf, vf = cell_float()
        tb, vb = cell_bool(); tn, vn = cell_int(False)
        cells = {"i": ti, "s": ts, "f": tf, "b": tb, "n": tn, "extra": "zz"}
        rows.append({"i": vi, "s": vs, "f": vf, "b": vb, "n": vn})
        lines.append(",".join(cells[c] for c in order))
    text = nl.join(lines) + (nl if n_rows or rnd.random() < 0.5 else "") + tail
    with open(path, "wb") as fh:
        fh.write((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    return rows

for trial in range(40):
    rows = write("t.csv", rnd.choice([0, 1, 2, 7, 50, 300]), rnd.random() < 0.3,
                 rnd.random() < 0.2, rnd.choice(["", "\n", "\n\n", "\r\n"]))
    out = subprocess.run([flux, "run", "t.flux", "rows", "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("trial %d: exit %d: %s" % (trial, out.returncode, out.stderr))
    got = json.loads(out.stdout)["output"]
    if got != rows:
        bad = next(k for k in range(min(len(got), len(rows))) if got[k] != rows[k]) if len(got) == len(rows) else None
        sys.exit("trial %d: %d rows read, %d written; first difference at %s: %s against %s" %
                 (trial, len(got), len(rows), bad, got[bad] if bad is not None else "",
                  rows[bad] if bad is not None else ""))
print("csv_columns: 40 random files read as written")
PY

# Large files: past the 16 MB window, split across threads (plain, every
# name quoted, and one with a line break in a quoted cell late in it). Test builds
# (make asan: FLUX_SMALL_CHUNKS=1) cut windows at 4 KB and split from 1 KB,
# so a tenth of the rows crosses as many windows there, at a tenth of the
# sanitizers' time.
rows=600000
[ -n "${FLUX_SMALL_CHUNKS:-}" ] && rows=60000
cat > big.flux <<'F'
type Row = { k: Int, name: String, x: Float, on: Bool }
data rows: List[Row] from "big.csv"
intent ks() -> List[Int]:
    constraints:
        - result[i] = rows[i].k
        - len(result) = len(rows)
intent xs() -> List[Float]:
    constraints:
        - result = [r.x for r in rows]
F
python3 - "$FLUX" "$rows" <<'PY' || exit 1
import random, subprocess, sys
flux, n_rows = sys.argv[1], int(sys.argv[2])
rnd = random.Random(7)

def make(quote_at, quote_all):
    lines, ks, names, xs, ons = ['"k","name",x,"on"'], [], [], [], []  # quoted names
    for r in range(n_rows):
        k = rnd.randint(-2**63, 2**63 - 1) if r % 1000 else 2**64 + r  # a big integer now and then
        name = "n%d" % rnd.randint(0, 10**9)
        if r == quote_at:  # a line break in it: the rest of the file goes to one reader
            name = 'q"uo\nte'
            cell = '"q""uo\nte"'
        else:  # every name quoted: the rows still split across threads
            cell = '"%s"' % name if quote_all else name
        x = rnd.randint(-10**6, 10**6) / 8.0
        on = rnd.random() < 0.3
        ks.append(k); names.append(name); xs.append(x); ons.append(on)
        kt = ("+%d" % k) if r % 777 == 5 and k >= 0 else str(k)
        lines.append("%s,%s,%r,%s" % (kt, cell, x, "true" if on else "false"))
    with open("big.csv", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return ks, names, xs, ons

def run(expr):
    out = subprocess.run([flux, "run", "big.flux", expr], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("%s: exit %d: %s" % (expr, out.returncode, out.stderr))
    return out.stdout.strip()

for quote_at, quote_all in ((None, False), (None, True), (n_rows - n_rows // 60, False)):
    ks, names, xs, ons = make(quote_at, quote_all)
    size = len(open("big.csv", "rb").read())
    assert size > (20 << 20) * n_rows // 600000, size
    want = {
        "len(rows)": str(len(ks)),
        "sum(ks())": str(sum(ks)),
        "sum(len(r.name) for r in rows)": str(sum(len(n) for n in names)),
        "len([r for r in rows where r.on])": str(sum(ons)),
        "rows[%d].name" % (quote_at or n_rows // 5):
            '"%s"' % names[quote_at or n_rows // 5].replace('"', '\\"').replace("\n", "\\n"),
        "rows[%d].x" % (n_rows - 1): repr(xs[n_rows - 1]),
        "ks()[%d]" % (n_rows // 2): str(ks[n_rows // 2]),
        "sum(xs())": repr(sum(xs)),
        "xs()[%d]" % (n_rows // 3): repr(xs[n_rows // 3]),
    }
    for expr, value in want.items():
        got = run(expr)
        if got != value:
            sys.exit("quote at %s: %s = %s, want %s" % (quote_at, expr, got, value))
    # a bad cell far into the file is reported at its line
    lines = open("big.csv").read().split("\n")
    bad = n_rows * 5 // 6 if quote_at is None else n_rows - n_rows // 120
    cells = lines[bad].split(",")
    cells[0] = "12ab"
    lines[bad] = ",".join(cells)
    open("big.csv", "w").write("\n".join(lines))
    out = subprocess.run([flux, "run", "big.flux", "len(rows)"], capture_output=True, text=True)
    wanted = "big.csv:%d: column `k`: `12ab` is not an Int" % (bad + 1)
    if out.returncode != 1 or wanted not in out.stderr:
        sys.exit("bad cell at line %d: exit %d: %s" % (bad + 1, out.returncode, out.stderr))
print("csv_columns: three files of %d rows read as written, bad cells placed" % n_rows)
PY
