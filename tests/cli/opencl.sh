# The OpenCL device on PoCL (docs/devices.md): every kernel's result equals
# the CPU's, printed exactly (integers exactly, floats to the bit), on
# fixed shapes and on generated element-wise intents; a call the device
# gives back (an overflow, a division by zero) is the CPU's answer or
# error; a refused plan says why; no OpenCL means the CPU and a note.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"

"$FLUX" hw | grep -q '^          opencl: .*Portable Computing Language' ||
    fail "flux hw has no PoCL device (scripts/install-deps --test installs pocl-opencl-icd): $("$FLUX" hw | grep opencl)"
FLUX_OPENCL=off "$FLUX" hw | grep -q 'opencl: off (FLUX_OPENCL=off)' || fail "FLUX_OPENCL=off"
OCL_ICD_VENDORS="$tmp/none" "$FLUX" hw | grep -q 'opencl: none: no OpenCL platform' ||
    fail "no platform: $(OCL_ICD_VENDORS="$tmp/none" "$FLUX" hw | grep opencl)"

# same FILE EXPR: the CPU's and the device's output are equal, and the
# device ran it (its decision is in the record); EXPR goes through a file,
# as it may be long
same() {
    local cpu dev what=${2:0:60}
    printf '%s' "$2" > same.expr
    cpu=$(FLUX_DEVICE=cpu "$FLUX" run "$1" @same.expr 2>&1) || fail "cpu: $what: ${cpu:0:300}"
    dev=$(FLUX_DEVICE=opencl "$FLUX" run "$1" @same.expr --json 2>dev.err) || fail "opencl: $what: $(head -c 300 dev.err)"
    printf '%s' "$dev" | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = [x for x in r["decision_tree"] if x["decision"].startswith("device")]
if not d or d[0]["decision"] != "device opencl":
    sys.exit("not on the device: %s" % str(d)[:400])' || fail "$what"
    FLUX_DEVICE=opencl "$FLUX" run "$1" @same.expr > dev.txt || fail "opencl again: $what"
    [ "$cpu" = "$(cat dev.txt)" ] || fail "$what: cpu ${cpu:0:200}, opencl $(head -c 200 dev.txt)"
}

cat > shapes.flux <<'FLUX'
type P = { x: Float, v: Float, n: Int, on: Bool }
intent scale(xs: List[Float], a: Float) -> List[Float]:
    constraints:
        - for each x in xs: a * x + 1.0 / (x - 0.5)
intent step(ps: List[P], dt: Float) -> List[P]:
    constraints:
        - for each p in ps: p with {x: p.x + p.v * dt, n: p.n * 3 - 1, on: p.x > 0.0}
intent odd_squares(n: Natural) -> Int:
    constraints:
        - result = sum(i * i for i in 0..n if i % 3 == 1)
intent count_small(xs: List[Int], k: Int) -> Natural:
    constraints:
        - result = count(x for x in xs if x * x < k)
intent squares(n: Natural) -> List[Int]:
    constraints:
        - result = [i * i - 7 for i in 0..n]
intent cube(xs: List[Int]) -> List[Int]:
    constraints:
        - for each x in xs: x * x * x
intent halves(xs: List[Int], d: Int) -> List[Int]:
    constraints:
        - for each x in xs: x // d
intent fact(n: Natural) -> Natural:
    constraints:
        - fact(0) = 1
        - fact(n) = n * fact(n - 1)
intent facts(xs: List[Natural]) -> List[Natural]:
    constraints:
        - for each x in xs: fact(x)
FLUX
python3 - <<'PY'
import random
random.seed(21)
xs = [random.choice([random.uniform(-1e6, 1e6), random.uniform(-1, 1), 1e-310, -0.0, 0.5 + 2**-40]) for _ in range(3000)]
ps = ["{x: %r, v: %r, n: %d, on: false}" % (random.uniform(-2, 2), random.uniform(-1, 1), random.randint(-10**9, 10**9)) for _ in range(2000)]
ints = [random.randint(-2 * 10**6, 2 * 10**6) for _ in range(5000)]
open("scale.expr", "w").write("scale(%r, 1.75)" % xs)
open("step.expr", "w").write("step([%s], 0.01)" % ", ".join(ps))
open("count.expr", "w").write("count_small(%r, 1000000000000)" % ints)
open("cube.expr", "w").write("cube(%r)" % ints)
open("cube_big.expr", "w").write("cube(%r)" % (ints + [3 * 10**6 + 1, 2**40]))
PY
same shapes.flux "$(cat scale.expr)"
same shapes.flux "$(cat step.expr)"
same shapes.flux 'odd_squares(200000)'
same shapes.flux "$(cat count.expr)"
same shapes.flux 'squares(5000)'
same shapes.flux "$(cat cube.expr)"
same shapes.flux 'halves([7, -7, 8, -9, 0], 2)'

# given back: an overflow past 64 bits is the CPU's exact answer ...
out=$(FLUX_DEVICE=opencl "$FLUX" run shapes.flux @cube_big.expr --json) || fail "cube_big"
printf '%s' "$out" | grep -q '"decision": "device cpu", "reason": "forced (--device opencl, FLUX_DEVICE); the kernel gave the call back' ||
    fail "overflow not given back: $(printf '%s' "$out" | grep -o '"decision": "device.\{0,300\}')"
[ "$(FLUX_DEVICE=opencl "$FLUX" run shapes.flux @cube_big.expr)" = "$(FLUX_DEVICE=cpu "$FLUX" run shapes.flux @cube_big.expr)" ] ||
    fail "overflow: answers differ"
# ... a division by zero, or by a negative number, the CPU's answer
for d in 0 -3; do
    cpu=$(FLUX_DEVICE=cpu "$FLUX" run shapes.flux "halves([1, -2, 7], $d)" 2>&1); s1=$?
    dev=$(FLUX_DEVICE=opencl "$FLUX" run shapes.flux "halves([1, -2, 7], $d)" 2>&1); s2=$?
    [ "$s1" = "$s2" ] && [ "$cpu" = "$dev" ] || fail "division by $d: $cpu ($s1) / $dev ($s2)"
done
# a recursion is not translated, and the record says why
out=$(FLUX_DEVICE=opencl "$FLUX" run shapes.flux 'facts([3, 20])' --json) || fail "facts"
printf '%s' "$out" | grep -q '"decision": "device cpu", "reason": "fact calls itself (OpenCL has no recursion)' ||
    fail "recursion: $(printf '%s' "$out" | head -c 600)"

# the matrix product, Int exactly and Float to the bit, forced, before and
# after the matrix kernel is installed
mm="$root/examples/matrix.flux"
python3 - <<'PY'
import random
random.seed(5)
n = 40
A = [[random.randint(-10**6, 10**6) for _ in range(n)] for _ in range(n)]
F = [[random.uniform(-1, 1) for _ in range(n + 3)] for _ in range(n)]
G = [[random.uniform(-1, 1) for _ in range(n)] for _ in range(n + 3)]
open("int.expr", "w").write("matrix_multiply_int(%s, %s)" % (A, A))
open("float.expr", "w").write("matrix_multiply(%s, %s)" % (F, G))
PY
same "$mm" "$(cat int.expr)"
same "$mm" "$(cat float.expr)"
# explain of a cell: its work-item and work-group in 2 dimensions
"$FLUX" explain "$mm" "$(cat int.expr)[11, 13]" --device opencl > cell.out || fail "explain of a cell"
grep -q '^|    - cell \[11, 13\]: computed on pthread-.* by work-item \[3, 5\] of work-group \[1, 1\] (global id \[11, 13\]; 8 x 8 items a group)$' cell.out ||
    fail "explain of a cell: $(cat cell.out)"
"$FLUX" optimize "$mm" > /dev/null || fail "optimize"
same "$mm" "$(cat float.expr)"

# the particles with soft-sphere forces: 10 steps of 300, to the bit
pf="$root/examples/particles.flux"
e='cloud(300)'
for i in 1 2 3 4 5 6 7 8 9 10; do e="simulate_particles($e, 0.01)"; done
same "$pf" "$e"

# the neighbour cells (docs/devices.md): the step's sums visit the 9 cells
# around each particle, their other terms being exactly 0.0; to the bit
# the CPU's, and the all-pairs kernel's (FLUX_OPENCL_CELLS=off)
same "$pf" 'simulate_particles(cloud(1500), 0.01)'
"$FLUX" traces "$pf" simulate_particles --last 1 --json | grep -q 'visits the elements of the 9 cells around each element' ||
    fail "the step did not visit neighbour cells"
FLUX_OPENCL_CELLS=off "$FLUX" run "$pf" 'simulate_particles(cloud(1500), 0.01)' --device opencl > all.txt || fail "all pairs"
cmp -s all.txt dev.txt || fail "the cells' step differs from the all-pairs kernel's"
# a term that is not zero far away (a force that never vanishes) visits
# every element
cat > far.flux <<'FLUX'
type Q = { x: Float, y: Float }
intent pull(qs: List[Q]) -> List[Float]:
    constraints:
        - for each q in qs: sum(if (q.x - r.x) * (q.x - r.x) < 0.01 then 1.0 else 0.5 for r in qs)
FLUX
same far.flux 'pull([{x: float(i % 37) / 37.0, y: 0.5} for i in 0..2000])'
"$FLUX" traces far.flux pull --last 1 --json | grep -q 'cells around' && fail "a sum whose far terms are 0.5 visited cells"

# generated sums over pairs: terms zero far away (or not), tests that may
# raise an error far away (an integer overflow) before the distance test;
# the device's answer, with cells and without, is always the CPU's
python3 - <<'PY'
import random
random.seed(2112)
D = ["((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y))", "((q.y - p.y) * (q.y - p.y) + (q.x - p.x) * (q.x - p.x))", "((p.x - q.x) * (p.x - q.x))"]
def near(d):
    k = random.choice(["0.003", "0.002", "0.0031"])
    return random.choice(["%s < %s" % (d, k), "%s <= %s" % (d, k), "%s > %s" % (k, d)])
def value():
    return random.choice(["1.0", "q.x - p.x", "(p.y - q.y) * 3.5 + q.x", "1.0 / (%s + 0.5)" % random.choice(D), "q.w"])
def zero(depth, d):
    r = random.random()
    if depth == 0 or r < 0.2:
        return random.choice(["0.0", "-0.0"])
    if r < 0.6:
        return "(if %s then %s else %s)" % (cond(depth - 1, d), value(), zero(depth - 1, d))
    if r < 0.8:
        return "(if %s > 0.0 then %s else 0.0)" % (zero(depth - 1, d), value())
    return "(0.0 - %s)" % zero(depth - 1, d)
def cond(depth, d):
    r = random.random()
    if r < 0.5 or depth == 0:
        return near(d)
    if r < 0.7:
        return "(%s > 0.0 and %s)" % (d, near(d))
    if r < 0.85:  # an integer product that overflows far away: an error, never skipped
        return "(q.n * 1000 > 5 and %s)" % near(d)
    return "(%s or %s)" % (near(d), near(d))
def term():
    d = random.choice(D)
    r = random.random()
    if r < 0.7:
        return "(if %s then %s else %s)" % (cond(2, d), value(), zero(2, d))
    if r < 0.85:  # not zero far away: every element
        return "(if %s then 0.0 else %s)" % (near(d), value())
    return "(if %s then %s else 1.0)" % (near(d), value())
for k in range(10):
    t = term()
    if k % 3 == 0:  # a test evaluated far away first, which may divide by zero
        d = random.choice(D)
        t = "(if 10 div (p.n - q.n + 1) > 1 and %s then %s else %s)" % (near(d), value(), zero(1, d))
    with open("pairs%d.flux" % k, "w") as f:
        f.write("type Pt = { x: Float, y: Float, w: Float, n: Int }\n"
                "intent f(ps: List[Pt]) -> List[Float]:\n    constraints:\n"
                "        - for each p in ps: sum(%s for q in ps)\n" % t)
    # element 0 lies far from all the others, and the pair (1, 0) alone has
    # p.n - q.n + 1 = 0: every third term divides by it far away, an error
    with open("pairs%d.expr" % k, "w") as f:
        f.write("f([{x: if i == 0 then 5.0 else float((i * 7919) % 211) / 211.0, "
                "y: float((i * 104729) % 197) / 197.0, w: float(i % 5) - 2.0, "
                "n: if i == 0 then 1000000 else if i == 1 then 999999 else 3 * i} "
                "for i in 0..400])")
PY
cells=0
for k in 0 1 2 3 4 5 6 7 8 9; do
    cpu=$(FLUX_DEVICE=cpu "$FLUX" run pairs$k.flux @pairs$k.expr 2>&1; echo "exit $?")
    all=$(FLUX_OPENCL_CELLS=off FLUX_DEVICE=opencl "$FLUX" run pairs$k.flux @pairs$k.expr 2>&1; echo "exit $?")
    dev=$(FLUX_DEVICE=opencl "$FLUX" run pairs$k.flux @pairs$k.expr 2>&1; echo "exit $?")
    [ "$cpu" = "$dev" ] && [ "$cpu" = "$all" ] ||
        fail "pairs$k ($(sed -n 4p pairs$k.flux)): cpu ${cpu:0:200}; opencl ${dev:0:200}; all pairs ${all:0:200}"
    "$FLUX" traces pairs$k.flux f --last 1 --json | grep -q 'cells around' && cells=$((cells + 1))
done
[ $cells -ge 3 ] || fail "only $cells of the generated sums visited cells"

# 10 steps of 10^5 particles, forced, equal to the bit to the step written
# again in C (tests/cli/data/particles_ref.c, its own cells and merge)
cc -O2 -ffp-contract=off "$root/tests/cli/data/particles_ref.c" -lm -o particles_ref || fail "cc"
./particles_ref 100000 10 > ref.txt &
ref=$!
e='cloud(100000)'
for i in 1 2 3 4 5 6 7 8 9 10; do e="simulate_particles($e, 0.01)"; done
printf '%s' "$e" > big.expr
"$FLUX" run "$pf" @big.expr --device opencl --json > big.json || fail "10 steps of 10^5 particles"
wait $ref || fail "the C step"
python3 - <<'PY' || fail "10 steps of 10^5 particles differ from C's"
import json
r = json.load(open("big.json"))
ref = [tuple(float.fromhex(v) for v in l.split()) for l in open("ref.txt")]
got = [(p["x"], p["y"], p["vx"], p["vy"]) for p in r["output"]]
assert len(got) == len(ref) == 100000, (len(got), len(ref))
bad = [i for i in range(len(ref)) if ref[i] != got[i]]
assert not bad, (len(bad), bad[0], ref[bad[0]], got[bad[0]])
d = [x for x in r["decision_tree"] if x["decision"].startswith("device")]
assert d and d[0]["decision"] == "device opencl" and "9 cells" in d[0]["reason"], d
print("opencl: 10 steps of 10^5 particles in %.1f s, equal to C's" % (r["duration_ms"] / 1e3))
PY

# explain of an element computed on the device names the device, the
# element's work-item and work-group, and why the parts are independent
out=$("$FLUX" explain "$pf" 'simulate_particles(cloud(300), 0.01)[77]' --device opencl) || fail "explain"
printf '%s\n' "$out" | grep -q '^|- device: opencl: forced (--device opencl, FLUX_DEVICE); pthread-' || fail "explain device: $out"
printf '%s\n' "$out" | grep -q '^|    - element 77: computed on pthread-.* by work-item 13 of work-group 1 (global id 77; 64 items a group)$' ||
    fail "explain element: $out"
printf '%s\n' "$out" | grep -q '^|    - independent: each element of the result is the element-wise definition' ||
    fail "explain independence: $out"
"$FLUX" explain "$pf" 'simulate_particles(cloud(300), 0.01)[77]' --device opencl --json | python3 -c '
import json, sys
d = json.load(sys.stdin)["device"]
assert d[0].startswith("opencl: ") and d[1].startswith("element 77: ") and d[2].startswith("independent: "), d' ||
    fail "explain --json device"
"$FLUX" explain shapes.flux 'facts([3])' --device opencl | grep -q '^|- device: cpu: fact calls itself' ||
    fail "explain of a call the device cannot take"

# the cost model, unforced: the CPU until measured; a long call tries the
# device once; then the side predicted faster runs it, and says why; the
# answers never change; a short call is not tried
auto() { # EXPR: the device decision of a run, and its answer in auto.out
    printf '%s' "$1" > auto.expr
    env -u FLUX_EXPLORE "$FLUX" run "$pf" @auto.expr --json --store "$tmp/auto" > auto.json || fail "auto run: $1"
    python3 -c '
import json, sys
r = json.load(open("auto.json"))
open("auto.out", "w").write(json.dumps(r["output"]))
d = [x for x in r["decision_tree"] if x["decision"].startswith("device")]
print(d[0]["decision"] + ": " + d[0]["reason"] if d else "none")'
}
# the call must take the CPU a second or more (the time from which the
# device is tried): a faster machine gets more particles, in a new store
for n in 1200 1800 2700 4000; do
    rm -rf "$tmp/auto"
    big="simulate_particles(cloud($n), 0.01)"
    d=$(auto "$big"); first=$(cat auto.out)
    case $d in "device cpu: the CPU: no measured call of this version yet ($n items)"*) ;; *) fail "auto 1: $d" ;; esac
    python3 -c 'import json; exit(json.load(open("auto.json"))["duration_ms"] < 1100)' && break
done
d=$(auto "$big")
case $d in "device opencl: OpenCL on pthread-"*", once, to measure it: the CPU is predicted "*) ;; *) fail "auto 2: $d" ;; esac
[ "$(cat auto.out)" = "$first" ] || fail "auto 2 changed the answer"
d=$(auto "$big")
printf '%s' "$d" | python3 -c '
import re, sys
d = sys.stdin.read()
m = re.search(r"predicted ([0-9.e+]+) ms against ([0-9.e+]+) ms", d)
assert m, d
dev, cpu = (float(m.group(1)), float(m.group(2))) if d.startswith("device opencl") else (float(m.group(2)), float(m.group(1)))
assert (dev < cpu) == d.startswith("device opencl"), d' || fail "auto 3: $d"
[ "$(cat auto.out)" = "$first" ] || fail "auto 3 changed the answer"
d=$(auto 'simulate_particles(cloud(100), 0.01)')
[ "$d" = none ] || fail "a call of 100 items had a device decision: $d"

# generated element-wise intents: numbers, branches, calls, inner folds
python3 - <<'PY'
import random
random.seed(77)
def num(d, ty):
    if d == 0 or random.random() < 0.25:
        return random.choice(["x", "a", ("%d" % random.randint(-9, 9)) if ty == "Int" else ("%r" % random.uniform(-4, 4))])
    r = random.random()
    if r < 0.55:
        return "(%s %s %s)" % (num(d - 1, ty), random.choice("+-*"), num(d - 1, ty))
    if r < 0.7:
        return "(if %s %s %s then %s else %s)" % (num(d - 1, ty), random.choice(["<", ">=", "=="]), num(d - 1, ty), num(d - 1, ty), num(d - 1, ty))
    if r < 0.85:
        return "h%s(%s, %s)" % (ty, num(d - 1, ty), num(d - 1, ty))
    return "sum(%s for j in 0..5)" % num(d - 1, ty).replace("x", "(x + j)" if ty == "Int" else "(x + float(j))")
out = []
for ty in ("Int", "Float"):
    out.append("intent h%s(x: %s, a: %s) -> %s:\n    constraints:\n        - result = %s\n" % (ty, ty, ty, ty, num(2, ty)))
exprs = []
for k in range(8):
    ty = "Int" if k % 2 == 0 else "Float"
    out.append("intent g%d(xs: List[%s], a: %s) -> List[%s]:\n    constraints:\n        - for each x in xs: %s\n" % (k, ty, ty, ty, num(4, ty)))
    if ty == "Int":
        xs = [random.randint(-1000, 1000) for _ in range(700)]
        exprs.append("g%d(%r, %d)" % (k, xs, random.randint(-50, 50)))
    else:
        xs = [random.uniform(-100, 100) for _ in range(700)]
        exprs.append("g%d(%r, %r)" % (k, xs, random.uniform(-3, 3)))
open("gen.flux", "w").write("\n".join(out))
open("gen.exprs", "w").write("\n".join(exprs) + "\n")
PY
while read -r e; do same gen.flux "$e"; done < gen.exprs
exit 0
