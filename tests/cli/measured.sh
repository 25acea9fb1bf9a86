# Implementations measured (docs/language.md §4): the latency bound drives
# which one runs (the most accurate within it; without one that meets it,
# the fastest accurate one), from a constraint or a performance hint.
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
printf 'n,label\n1,true\n2,false\n3,true\n4,false\n5,true\n' > odd.csv
program() { # LATENCY-LINE
cat <<F
type Case = { n: Int, label: Bool }
data cases: List[Case] from "odd.csv"
intent odd_guess(n: Int) -> Bool:
    constraints:
        - result is one of careful(n), quick(n)
        - accuracy >= 60% on cases
$1
intent careful(n: Int) -> Bool:
    constraints:
        - result = sum(k for k in 0..3000000) > 0 and n mod 2 = 1
intent quick(n: Int) -> Bool:
    constraints:
        - result = n < 4
F
}
program '        - latency < 2s' > loose.flux
program '        - latency < 5ms' > tight.flux
program '    performance_hints:
        - latency < 5ms' > hint.flux
program '' > none.flux
for f in loose tight hint none; do "$FLUX" check $f.flux || fail "check $f"; done
chosen() { "$FLUX" explain $1.flux 'odd_guess(7)' | grep '^|- measured: '; }
case $(chosen loose) in *'`careful(n)` runs on target_device (the CPU): the most accurate implementation within the latency') ;;
    *) fail "loose: $(chosen loose)" ;; esac
case $(chosen tight) in *'`quick(n)` runs on target_device (the CPU): the most accurate implementation within the latency') ;;
    *) fail "tight: $(chosen tight)" ;; esac
case $(chosen hint) in *'`quick(n)` runs'*) ;; *) fail "hint: $(chosen hint)" ;; esac
case $(chosen none) in *'`quick(n)` runs on target_device (the CPU): the fastest implementation that meets the accuracy') ;;
    *) fail "none: $(chosen none)" ;; esac
[ "$("$FLUX" run loose.flux 'odd_guess(7)')" = true ] || fail "careful's answer"
[ "$("$FLUX" run tight.flux 'odd_guess(7)')" = false ] || fail "quick's answer"
"$FLUX" explain tight.flux 'odd_guess(7)' | grep -q '^|    - `careful(n)`: accuracy 100.0% (5 of 5 examples of `cases`): meets `accuracy >= 60%`; [0-9.e+-]* ms a call: fails `latency < 5ms`$' ||
    fail "figures: $("$FLUX" explain tight.flux 'odd_guess(7)')"
exit 0
