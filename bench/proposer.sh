#!/usr/bin/env bash
# The learned proposer (docs/optimizer.md, "The proposer"): trained on the
# intents of bench/proposer/train_*.flux, one store for all of them, then
# judged on bench/proposer/held_*.flux, intents it never saw.
#
# Training: for each intent, its calls (the `// call:` lines) are recorded
# and a round runs, again until the intent's version stays (3 rounds at
# most). Judging, for each held-out intent, each from the same recorded
# calls on v1:
#   - the policy's first choice: the rule ranked first by a round on a copy
#     of the trained store;
#   - the baseline's: the first applicable rule in the table's order (a
#     round on a store with no proposer state);
#   - the oracle: each applicable rule tried alone (`--rule`), each on a
#     copy of the same store, its predicted gain read from the evidence
#     (1.25, the least a rule must promise, for an install that measured
#     none; 0 when it installs nothing). The best is the largest gain; a
#     first choice within 10% of it (timing noise) is right.
# Prints: first choice right on N of M held-out intents (those where some
# rule installs), the baseline's K of M, and the cumulative reward.
# LIST(n, seed), MATRIX(n, seed) and FMATRIX(n, seed) in a call stand for
# a generated list of n integers and n x n matrices.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
flux=${FLUX:-$root/build/flux}
case $flux in /*) ;; *) flux=$PWD/$flux ;; esac # it runs from another folder
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export FLUX_LEARN=off FLUX_EXPLORE=off
cp "$root"/bench/proposer/*.flux "$work"/
cd "$work" || exit 1
python3 - <<'PY'
import random
random.seed(14)
with open("people.csv", "w") as f:
    f.write("name,age\n")
    for i in range(20000):
        f.write("p%d,%d\n" % (i, random.randint(0, 99)))
PY

calls() { # FILE: its calls, the generated inputs spelled out
    python3 - "$1" <<'PY'
import random, re, sys
def lst(n, s):
    r = random.Random(s); return str([r.randint(-10**6, 10**6) for _ in range(n)])
def mat(n, s, real):
    r = random.Random(s)
    cell = (lambda: "%.6f" % r.uniform(-1, 1)) if real else (lambda: str(r.randint(-1000, 1000)))
    return "[" + ", ".join("[" + ", ".join(cell() for _ in range(n)) + "]" for _ in range(n)) + "]"
gen = {"LIST": lambda n, s: lst(n, s), "MATRIX": lambda n, s: mat(n, s, False),
       "FMATRIX": lambda n, s: mat(n, s, True)}
for line in open(sys.argv[1]):
    if line.startswith("// call: "):
        print(re.sub(r"\b(F?MATRIX|LIST)\((\d+), (\d+)\)",
                     lambda m: gen[m.group(1)](int(m.group(2)), int(m.group(3))), line[9:].strip()))
PY
}
record() { # FILE STORE
    calls "$1" | while IFS= read -r e; do
        "$flux" run "$1" "$e" --store "$2" </dev/null >/dev/null || echo "proposer: a call of $1 failed" >&2
    done
}
first() { sed -n 's/^  1\. \([^:]*\): score .*/\1/p' | head -1; }
ranked() { sed -n 's/^  [0-9]*\. \([^:]*\): score .*/\1/p'; }
gain() { # a round's output: the installed rewrite's predicted gain, 1.25 without one, else 0
    local line
    line=$(grep ': installed v[0-9]*: ' | head -1)
    if [ -z "$line" ]; then echo 0; return; fi
    local g
    g=$(printf '%s' "$line" | grep -o '"predicted_gain": [0-9.e+-]*' | head -1 | sed 's/.*: //')
    echo "${g:-1.25}"
}
cumulative() { grep -o 'cumulative reward [-+0-9.]* over [0-9]* pulls' | tail -1; }
total() { cumulative | sed 's/cumulative reward \([-+0-9.]*\).*/\1/'; }

trained=$work/trained
n_train=0
for f in train_*.flux; do
    n_train=$((n_train + 1))
    for round in 1 2 3; do
        record "$f" "$trained"
        out=$("$flux" optimize "$f" --store "$trained" --explain) || { echo "proposer: optimize $f failed" >&2; exit 1; }
        last=$out
        case $out in *" stays: "*) break ;; esac
    done
done
echo "proposer: trained on $n_train intents: $(printf '%s\n' "$last" | cumulative)"
trained_total=$(printf '%s\n' "$last" | total)

n=0 right=0 base_right=0 held_reward=+0.00
for f in held_*.flux; do
    name=${f%.flux}
    fresh=$work/$name.fresh
    record "$f" "$fresh"
    cp -r "$fresh" "$work/$name.base"
    base=$("$flux" optimize "$f" --store "$work/$name.base" --explain)
    arms=$(printf '%s\n' "$base" | ranked)
    best_gain=0 best=""
    gains=""
    while IFS= read -r arm; do
        [ -n "$arm" ] || continue
        rm -rf "$work/oracle"; cp -r "$fresh" "$work/oracle"
        g=$("$flux" optimize "$f" --rule "$arm" --store "$work/oracle" | gain)
        gains="$gains${gains:+, }$arm ${g}x"
        if awk -v g="$g" -v b="$best_gain" 'BEGIN { exit !(g > b) }'; then best_gain=$g best=$arm; fi
    done <<<"$arms"
    cp -r "$trained" "$work/$name.policy"
    record "$f" "$work/$name.policy"
    pol=$("$flux" optimize "$f" --store "$work/$name.policy" --explain)
    mine=$(printf '%s\n' "$pol" | first)
    theirs=$(printf '%s\n' "$arms" | head -1)
    if [ "$best_gain" = 0 ]; then
        echo "proposer: $name: no rule installs (${gains:-none applies}); not counted"
        continue
    fi
    n=$((n + 1))
    ok() { # is arm $1's gain within 10% of the best?
        local g
        g=$(printf '%s\n' "$gains" | tr ',' '\n' | sed 's/^ //' | awk -v a="$1" '
            { g = $NF; sub(/x$/, "", g); $NF = ""; sub(/ $/, ""); if ($0 == a) print g }')
        awk -v g="${g:-0}" -v b="$best_gain" 'BEGIN { exit !(g >= 0.9 * b) }'
    }
    ok "$mine" && right=$((right + 1)) mark="right" || mark="wrong"
    ok "$theirs" && base_right=$((base_right + 1))
    # the round's reward: the policy's cumulative reward after it, less the training's
    held_reward=$(awk -v a="$held_reward" -v after="$(printf '%s\n' "$pol" | total)" \
        -v before="$trained_total" 'BEGIN { printf "%+.2f", a + after - before }')
    echo "proposer: $name: oracle $best (${gains}); policy first $mine ($mark); table order first $theirs"
done
echo "proposer: held-out: first choice right on $right of $n intents (the table's fixed order: $base_right of $n); reward on the held-out rounds $held_reward"
[ "$n" -gt 0 ]
