#!/usr/bin/env bash
# run alone: it times a budget's stop
# native.sh: the native tier (docs/native.md) through the CLI. A hot
# version becomes native code (tcc, then cc -O2) only after it equals the
# interpreter on its recorded inputs and on 10,000 random ones; a planted
# miscompile is caught and never run; the objects are cached by hash, a
# later process uses them without compiling, and a corrupt or missing one is
# rebuilt, never run; budgets stop native code as they stop the interpreter;
# an overflow or a deep recursion falls back to the interpreter with the
# exact answer; runaway protection still memoizes; no compiler is a note,
# never an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "native: $*"; exit 1; }
command -v tcc >/dev/null || fail "tcc is missing (scripts/install-deps)"
cd "$tmp"
cp "$root/bench/native.flux" p.flux
cat >> p.flux <<'F'

intent pow3(n: Natural) -> Natural:
    constraints:
        - pow3(0) = 1
        - pow3(n) = 3 * pow3(n - 1)

intent depth(n: Natural) -> Natural:
    constraints:
        - depth(0) = 0
        - depth(n) = depth(n - 1) + 1

intent floors(n: Int) -> Int:
    constraints:
        - result = sum(k div 4 + k mod 8 * 3 + k div 3 - k mod 5 + k div 1 + k mod 1 + k div 1024 for k in -n..n)
F
export FLUX_EXPLORE=off
run() { "$FLUX" run p.flux "$@" --no-learn --store s; }
tier() { # the native tier of EXPR's run, or "interpreted"
    local out
    out=$(run "$1" --json)
    if [[ "$out" =~ \"native,\ ([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo interpreted; fi
}
promote() { "$FLUX" optimize p.flux "$1" --rule "native code" --store s; }

# ---- promotion: interpreted, then tcc, then cc, each equal ----
[ "$(tier 'fib(22)')" = interpreted ] || fail "native before any round"
run 'fib(25)' >/dev/null # hot: several ms
out=$(promote fib)
[[ "$out" == "fib: native code for v1: tcc "*"equal to the interpreter on "*" recorded and 10000 random inputs" ]] ||
    fail "first promotion: $out"
[ "$(tier 'fib(22)')" = tcc ] || fail "not tcc after the first round"
[ "$(run 'fib(27)')" = 196418 ] || fail "fib(27) on tcc" # still hot
out=$(promote fib)
[[ "$out" == "fib: native code for v1: cc -O2 -march=native"*"10000 random inputs" ]] ||
    fail "second promotion: $out"
[ "$(tier 'fib(22)')" = cc ] || fail "not cc after the second round"
[ "$(run 'fib(30)')" = 832040 ] || fail "fib(30)"
# an overflow of int64 gives the call back: the interpreter's exact value
run 'sum(pow3(30) mod 7 for i in 0..20000)' >/dev/null # hot: 20000 calls
promote pow3 >/dev/null
[ "$(tier 'pow3(30)')" = tcc ] || fail "pow3 is not native"
[ "$(run 'pow3(30)')" = "$(python3 -c 'print(3**30)')" ] || fail "pow3(30)"
[ "$(run 'pow3(200)')" = "$(python3 -c 'print(3**200)')" ] || fail "pow3(200) past int64"
# ---- a later process: cached, nothing compiled ----
before=$(ls s/cache | sort)
out=$("$FLUX" explain p.flux 'fib(12)' --store s)
[[ "$out" == *"|- tier: native, cc -O2"*", cached; equal to the interpreter on "* ]] ||
    fail "explain does not name the cached native code: $out"
[ "$(ls s/cache | sort)" = "$before" ] || fail "a later process compiled again"
# ---- budgets stop native code as they stop the interpreter ----
run 'fib(30)' --max-steps 1000 2>err && fail "the step budget did not stop native code"
grep -q 'step budget of 1000 steps' err || fail "steps: $(cat err)"
# ---- a corrupt object is not run, and the next round builds it again ----
for f in s/cache/*.so; do printf 'garbage' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null; done
[ "$(tier 'fib(22)')" = interpreted ] || fail "a corrupt object was run"
[ "$(run 'fib(22)')" = 17711 ] || fail "fib(22) with a corrupt object"
out=$(promote fib)
[[ "$out" == *"was not built by this user's flux, or has changed since (its MAC does not hold"*"building it again"* ]] ||
    fail "no rebuild: $out"
[ "$(tier 'fib(22)')" != interpreted ] || fail "not native after the rebuild"
# a missing one: a run's learning builds it again
rm -f s/cache/*.so
[ "$(tier 'fib(22)')" = interpreted ] || fail "native with no object"
FLUX_LEARN=wait "$FLUX" run p.flux 'fib(22)' --store s >/dev/null
[ "$(tier 'fib(22)')" != interpreted ] || fail "the missing object was not built again"
# ---- a planted miscompile is caught before use, and nothing of it kept ----
run 'walk(300000, 1)' >/dev/null
objects=$(ls s/cache | wc -l)
out=$(FLUX_NATIVE_PLANT=1 promote walk)
[[ "$out" == "walk: native code for v1 (tcc "*") rejected: it differs from the interpreter on "*": native "*", the interpreter "* ]] ||
    fail "the planted miscompile was not caught: $out"
[ "$(tier 'walk(300000, 1)')" = interpreted ] || fail "a rejected object runs"
[ "$(ls s/cache | wc -l)" = "$objects" ] || fail "the rejected object stays in the cache"
# ---- shapes no rule knows: equal values, natively ----
run 'odd_squares(100000)' >/dev/null
run 'walk(100000, 1)' >/dev/null
run 'ramp(50000)' >/dev/null
run 'smooth(ramp(50000))' >/dev/null
for i in walk odd_squares ramp smooth; do promote "$i" >/dev/null; promote "$i" >/dev/null; done
for e in 'walk(100000, 1)' 'walk(77777, -5)' 'walk(0, 9)' 'odd_squares(100000)' 'odd_squares(0)' \
         'smooth(ramp(50000))[49999]' \
         'smooth([-0.0, 0.0, 1e308, -1e308, 5e-324, 2.5, -3.75])' 'smooth([])' 'len(ramp(12345))'; do
    want=$(FLUX_NATIVE=off run "$e" --max-seconds 60 2>&1) || want="error"
    got=$(run "$e" --max-seconds 60 2>&1) || got="error"
    [ "$got" = "$want" ] || fail "$e: native $got, interpreted $want"
done
[ "$(tier 'odd_squares(100000)')" = cc ] || fail "the fold is not native"
[ "$(tier 'walk(100000, 1)')" = cc ] || fail "the guarded recurrence is not native"
[ "$(tier 'smooth(ramp(1000))')" = cc ] || fail "the float map is not native"
# ---- the time budget and Ctrl-C stop a native loop ----
start=$(date +%s%N)
run 'odd_squares(4000000000)' --max-seconds 0.3 2>err && fail "the time budget did not stop native code"
grep -q 'time budget' err || fail "time: $(cat err)"
[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 5000 ] || fail "the time budget stopped it late"
printf '%s\n' 'odd_squares(4000000000)' 'odd_squares(10)' | "$FLUX" repl p.flux --store s >out 2>err &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid" || fail "after an interrupt: exit $? $(cat err)"
grep -qx 'interrupted' err || fail "interrupt: $(cat err)"
[ "$(cat out)" = "$(FLUX_NATIVE=off run 'odd_squares(10)')" ] || fail "after the interrupt: $(cat out)"
# ---- a deep recursion: past the C stack the interpreter runs it ----
run 'depth(300000)' >/dev/null
promote depth >/dev/null
[ "$(run 'depth(300000)')" = 300000 ] || fail "a deep native recursion"
run 'depth(5000)' --max-depth 1000 2>err && fail "the depth budget did not stop it"
grep -q 'depth budget of 1000 nested calls' err || fail "depth: $(cat err)"
# ---- runaway protection still memoizes: native code gives the call back ----
got=$("$FLUX" run p.flux 'fib(70)' --store s --max-seconds 20) || fail "fib(70) with runaway protection"
[ "$got" = 190392490709135 ] || fail "fib(70) = $got"
# ---- no compiler: a note, never an error ----
mkdir bare
out=$(FLUX_NATIVE=off "$FLUX" optimize p.flux walk --rule "native code" --store bare)
[[ "$out" == "walk: v1 stays: no recorded run to learn from" ]] || fail "bare store: $out"
FLUX_NATIVE=off "$FLUX" run p.flux 'walk(100000, 1)' --no-learn --store bare >/dev/null
out=$(FLUX_NATIVE=off "$FLUX" optimize p.flux walk --rule "native code" --store bare)
[[ "$out" == "walk: v1 stays interpreted: no C compiler (FLUX_NATIVE=off)" ]] || fail "no compiler: $out"
# ---- floor division: by a power of two a shift and a mask, negatives included ----
run 'floors(20000)' >/dev/null
promote floors >/dev/null
promote floors >/dev/null
[ "$(tier 'floors(777)')" = cc ] || fail "floors is not cc: $(tier 'floors(777)')"
for n in 0 1 2 3 7 777 4099; do
    [ "$(run "floors($n)")" = "$(FLUX_NATIVE=off run "floors($n)")" ] || fail "floors($n) natively"
done
exit 0
