# run alone: the chooser learns from timings, and a neighbour's load once demoted the power (see docs/testing.md)
# Choices that cannot run away (issue 14): the variant chooser of a
# recurrence with a loop and a matrix power, trained on small inputs, must
# not run the loop at n = 10^6 (1.6 s or more where the power takes a few
# ms), in this process or a later one; a call measured far slower than
# predicted demotes its variant at once, in the store; and exploration is
# never spent on a call predicted to cost much more.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_LEARN=wait FLUX_EXPLORE=off
cd "$tmp"
cat > rec.flux <<'FLUX'
intent trib(n: Natural) -> Natural:
    constraints:
        - trib(0) = 0
        - trib(1) = 0
        - trib(2) = 1
        - trib(n) = trib(n-1) + trib(n-2) + trib(n-3)

intent tet(n: Natural) -> Natural:
    constraints:
        - tet(0) = 1
        - tet(1) = 1
        - tet(2) = 2
        - tet(3) = 3
        - tet(n) = tet(n-1) + 2 * tet(n-2) + tet(n-3) + tet(n-4)
FLUX

# the variant the call ran, from its record
variant() {
    python3 -c 'import json, sys
sys.set_int_max_str_digits(0)
r = json.load(sys.stdin)
print(" ".join(d["decision"][8:] for d in r["decision_tree"] if d["decision"].startswith("variant ")))'
}
run() { "$FLUX" run "$1" "$2" --store "$3" --json | variant; }

# The issue's reproduction, with a fixed seed: 11 growing calls, 40 random
# ones in 500..3000, then three at 10^6. Every one of those runs the power.
RANDOM=14
S=$tmp/fib
for i in $(seq 1 11); do run "$root/examples/fibonacci.flux" "fibonacci($((i * i * 10)))" $S >/dev/null; done
for i in $(seq 1 40); do run "$root/examples/fibonacci.flux" "fibonacci($((500 + RANDOM % 2500)))" $S >/dev/null; done
for i in 1 2 3; do
    v=$(run "$root/examples/fibonacci.flux" 'fibonacci(1000000)' $S)
    [ "$v" = power ] || fail "fibonacci(10^6) call $i ran the ${v:-no variant}: $("$FLUX" explain "$root/examples/fibonacci.flux" 'fibonacci(1000)' --store $S | grep -E 'variant|rolled')"
done

# Shapes nobody tuned for: order 3 and 4, trained on n = 25, 50, ..., 1000.
for fn in trib tet; do
    S=$tmp/$fn
    for i in $(seq 1 40); do run rec.flux "$fn($((i * 25)))" $S >/dev/null; done
    for i in 1 2; do
        v=$(run rec.flux "$fn(1000000)" $S)
        [ "$v" = power ] || fail "$fn(10^6) call $i ran the ${v:-no variant}"
    done
    # explain names the models, the points they rest on and their bounds
    "$FLUX" explain rec.flux "$fn(1000000)" --store $S |
        grep -q 'power ~ [^,]*, fitted on [0-9]* points up to n = [0-9]*, past them n\.\.n^1.6' ||
        fail "$fn: explain does not show the power's model"
done

# Exploration is bounded by its regret: even when asked to explore every
# run, a call where the loop is predicted far slower runs the power.
v=$(FLUX_EXPLORE=always run rec.flux 'tet(300000)' $tmp/tet)
[ "$v" = power ] || fail "explored the ${v:-?} at n = 300000"

# A demotion is evidence near its size: one slow call of the power at n =
# 2000 (a hiccup of a loaded machine) sends n = 3000 to the loop, but not
# n = 10^6, where the loop takes seconds and the power milliseconds.
python3 - "$tmp/tet/flux.db" <<'PY' || fail "could not plant a demotion"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select key, hardware, value from learned where kind = 'variant_models'").fetchall()
assert rows, "no learned variant models"
for key, hw, value in rows:
    m = json.loads(value)
    m["power"]["fitted_on"].append([2000.0, 200.0, "run, demoted"])
    db.execute("update learned set value = ? where kind = 'variant_models' and key = ? and hardware = ?",
               (json.dumps(m), key, hw))
db.commit()
PY
v=$(run rec.flux 'tet(3000)' $tmp/tet)
[ "$v" = loop ] || fail "the demotion at 2000 did not send 3000 to the loop: $v"
v=$(run rec.flux 'tet(1000000)' $tmp/tet)
[ "$v" = power ] || fail "a demotion at 2000 sent 10^6 to the ${v:-?}"

# Demotion: a model that claims the loop is free everywhere (as a model
# fitted on noise might) sends n = 200000 to the loop once; that call,
# measured far above its prediction, demotes the loop there, in the store,
# so the next process runs the power.
S=$tmp/trib
python3 - "$S/flux.db" <<'PY' || fail "could not plant a wrong model"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select key, hardware, value from learned where kind = 'variant_models'").fetchall()
assert rows, "no learned variant models"
for key, hw, value in rows:
    m = json.loads(value)
    m["loop"].update({"class": "1", "a": 0.0, "b": 1e-6, "max_size": 1e7, "fitted_on": []})
    m["power"].update({"class": "1", "a": 0.0, "b": 1.0, "max_size": 1e7, "fitted_on": []})
    db.execute("update learned set value = ? where kind = 'variant_models' and key = ? and hardware = ?",
               (json.dumps(m), key, hw))
db.commit()
PY
v=$(run rec.flux 'trib(200000)' $S)
[ "$v" = loop ] || fail "the planted model did not send the call to the loop: $v"
"$FLUX" explain rec.flux 'trib(200001)' --store $S | grep -q 'variant power: .*loop ~ 1, .*1 demotion' ||
    fail "no demotion: $("$FLUX" explain rec.flux 'trib(200001)' --store $S | grep variant)"
v=$(run rec.flux 'trib(250000)' $S)
[ "$v" = power ] || fail "after its demotion the loop ran again at 250000"
exit 0
