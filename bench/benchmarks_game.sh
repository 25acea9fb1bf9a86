#!/usr/bin/env bash
# The Benchmarks Game programs of examples/benchmarks/ against C versions of
# the same algorithms (bench/game/*.c, gcc -O2), whole process each, median
# of RUNS (default 3):
#   fresh    `flux run` on a store that has never seen the program
#   trained  after TRAIN runs (default 3), each followed by the learning
#            round it warrants, and `flux optimize`
#   new      the trained store on an input it has not seen (one size
#            smaller): what training does for computing, not recalling
# with the version of the top intent that ran and its tier (interpreted:
# the VM's bytecode; kernel: a rewrite that runs a native kernel; table:
# the answer for a recurring input kept by a hot-input or materialised
# version, so not a measure of computing). The outputs must agree with C's.
#
#   bench/benchmarks_game.sh [RUNS] [TRAIN]      (make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
train=${2:-3}
flux=$(realpath "${FLUX:-build/flux}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc=${CC:-gcc}

# file, intent, the size trained on and the new one: sizes where C takes
# tens of milliseconds (the game's own sizes would keep the interpreter for
# minutes). BENCH_SET=user runs bench/user/programs instead: programs
# written as users write them (helper intents, repeated sub-expressions),
# each beside its C (bench/user/NAME.c).
if [ "${BENCH_SET:-game}" = user ]; then
    flux_dir=bench/user c_dir=bench/user
    mapfile -t programs < <(grep -v '^#' bench/user/programs)
else
    flux_dir=examples/benchmarks c_dir=bench/game
    programs=(
        "nbody nbody 100000 99999"
        "spectral_norm spectral_norm 1000 999"
        "mandelbrot mandelbrot 1000 999"
        "fannkuch_redux fannkuch_redux 9 8"
        "binary_trees binary_trees 16 15"
    )
fi

now() { date +%s%N; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# the text Flux prints, a String's escapes decoded, as C prints it
decoded() { local s=$1; case $s in \"*\") s=${s#\"}; printf '%b\n' "${s%\"}" ;; *) printf '%s\n' "$s" ;; esac; }
# do Flux's text and C's agree? A number as a number (C's %.9f keeps the
# trailing zeros Flux drops)
agree() { local a; a=$(decoded "$1"); [ "$a" = "$2" ] || awk -v a="$a" -v b="$2" 'BEGIN { exit !(a ~ /^-?[0-9.]+$/ && a + 0 == b + 0) }'; }

printf 'The Benchmarks Game against C (gcc -O2), whole process, median of %d runs:\n' "$runs"
printf '%-15s %-22s %8s %10s %7s %10s %7s %7s  %s\n' program call 'C ms' 'fresh ms' ratio \
    'trained ms' ratio new 'version, tier'
# whole-process ms of C and Flux (STORE) at SIZE, median of $runs; checks the output
pair() {
    local store=$1 size=$2 s e out c=() f=()
    for _ in $(seq "$runs"); do
        s=$(now); "$tmp/$name" "$size" >/dev/null; e=$(now); c+=($(((e - s) / 1000)))
        s=$(now); out=$(FLUX_LEARN=off "$flux" run "$src" "$intent($size)" --store "$store"); e=$(now)
        f+=($(((e - s) / 1000)))
        agree "$out" "$("$tmp/$name" "$size")" ||
            { echo "bench: $intent($size) printed $out" >&2; exit 1; }
    done
    echo "$(median "${c[@]}") $(median "${f[@]}")"
}
for p in "${programs[@]}"; do
    read -r name intent arg other <<<"$p"
    call="$intent($arg)"
    "$cc" -O2 -o "$tmp/$name" "$c_dir/$name.c" -lm
    src=$flux_dir/$name.flux
    want=$("$tmp/$name" "$arg")
    c=() fresh=() trained=()
    for i in $(seq "$runs"); do
        s=$(now); "$tmp/$name" "$arg" >/dev/null; e=$(now); c+=($(((e - s) / 1000)))
        s=$(now); out=$(FLUX_LEARN=off "$flux" run "$src" "$call" --store "$tmp/fresh$i"); e=$(now)
        fresh+=($(((e - s) / 1000)))
        agree "$out" "$want" || { echo "bench: $call printed $out, C $want" >&2; exit 1; }
    done
    for _ in $(seq "$train"); do
        FLUX_LEARN=wait "$flux" run "$src" "$call" --store "$tmp/trained" >/dev/null
    done
    "$flux" optimize "$src" --store "$tmp/trained" >/dev/null
    for _ in $(seq "$runs"); do
        s=$(now); out=$(FLUX_LEARN=off "$flux" run "$src" "$call" --store "$tmp/trained"); e=$(now)
        trained+=($(((e - s) / 1000)))
        agree "$out" "$want" || { echo "bench: trained $call printed $out" >&2; exit 1; }
    done
    nums=$(pair "$tmp/trained" "$other")
    read -r new_c new_f <<<"$nums"
    json=$(FLUX_LEARN=off "$flux" run "$src" "$call" --store "$tmp/trained" --json)
    what=$(printf '%s' "$json" | python3 -c '
import json, sys
r = json.load(sys.stdin)
kernels = {"sort kernels", "sieve", "matrix kernel", "query index", "closed-form sum"}
tables = {"hot inputs", "materialised results"}
applied = r["optimizations_applied"]
native = any(d.get("decision") == "native code" for d in r["decision_tree"])
tier = ("table (the answer kept for this input, not computed)" if any(a in tables for a in applied)
        else "kernel" if any(a in kernels for a in applied) else "native" if native
        else "interpreted")
print("%s of %s%s, %s" % (r["graph_version"], r["intent"], " (" + ", ".join(applied) + ")" if applied else "", tier))')
    cm=$(median "${c[@]}") fm=$(median "${fresh[@]}") tm=$(median "${trained[@]}")
    awk -v n="$name" -v call="$call" -v c="$cm" -v f="$fm" -v t="$tm" -v nc="$new_c" -v nf="$new_f" \
        -v w="$what" 'BEGIN {
        printf "%-15s %-22s %8.1f %10.1f %6.1fx %10.1f %6.1fx %6.1fx  %s\n", n, call, c / 1000, f / 1000,
            f / c, t / 1000, t / c, nf / nc, w }'
done
