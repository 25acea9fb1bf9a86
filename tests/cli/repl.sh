#!/usr/bin/env bash
# repl.sh: `flux repl` (docs/cli.md, "The REPL"): through a pipe (plain
# lines, no prompt: scriptable), then in a terminal through tmux as a person
# types: define an intent, call it, explain it, see an error with its
# position, redefine it, stop a long run with Ctrl-C, leave with Ctrl-D.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
session=flux-repl-test-$$
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "repl: $*"; exit 1; }
cp "$root/examples/fibonacci.flux" "$tmp/fib.flux"
cd "$tmp"

# ---- through a pipe ----
printf '%s\n' 'fibonacci(100)' \
    'intent sq(n: Int) -> Int:' '    constraints:' '        - result = n * n' '' \
    'sq(12)' \
    'intent sq(n: Int) -> Int:' '    constraints:' '        - result = n * n +' '' \
    'sq(3)' \
    'intent sq(n: Int) -> Int:' '    constraints:' '        - result = n + n' \
    'sq(5)' \
    'nope(1)' ':explain sq(2)' ':graph sq' ':history sq' ':bogus' ':source' |
    "$FLUX" repl fib.flux --store s >out 2>err || fail "exit $? $(cat err)"
expected_out='354224848179261915075
defined intent sq
144
9
redefined intent sq
10'
[[ "$(head -n 6 out)" == "$expected_out" ]] || fail "pipe: $(cat out err)"
# the rejected redefinition: its error at the line typed, the old sq kept (9)
grep -q '^<repl>:9:27: error: expected an expression$' err || fail "position: $(cat err)"
grep -q '^    9 |         - result = n \* n +$' err || fail "excerpt: $(cat err)"
grep -q '^<repl>:16:1: error: unknown function `nope`' err || fail "expression error: $(cat err)"
grep -q '^   16 | nope(1)$' err || fail "expression excerpt: $(cat err)"
grep -q '^sq(2) = 4$' out || fail "explain: $(cat out)"
grep -q '%3 = add %1, %2 : Int  *@ <repl>:14:20$' out || fail "graph: $(cat out)"
grep -q '^sq v1 (lineage' out || fail "history: $(cat out)"
grep -q 'unknown command `:bogus`' err || fail "command: $(cat err)"
grep -qx '        - result = n + n' out || fail "source: $(cat out)"
# the runs were recorded in the store, as flux run records them
"$FLUX" traces fib.flux --store s --json | grep -q '"expr": "fibonacci(100)"' || fail "not recorded"
# no prompt without a terminal
! grep -q 'flux>' out || fail "a prompt in a pipe"
# :load: a rejected file leaves the session as it was; another replaces it
printf 'intent bad(n: Int) -> Int:\n    constraints:\n        - result = n +\n' > bad.flux
printf '%s\n' 'intent tw(n: Int) -> Int:' '    constraints:' '        - result = 2 * n' '' \
    ':load bad.flux' 'tw(4)' ':load /nonexistent.flux' ":load $root/examples/primes.flux" \
    'len(find_primes(100))' 'tw(4)' | "$FLUX" repl --store s >out 2>err || fail "load: $(cat err)"
[[ "$(cat out)" == $'defined intent tw\n8\nloaded '"$root"$'/examples/primes.flux\n25' ]] ||
    fail "load: $(cat out)"
grep -q '^bad.flux:3:' err || fail "a rejected file's position: $(cat err)"
grep -q 'cannot read /nonexistent.flux' err || fail "a missing file: $(cat err)"
grep -q "unknown function \`tw\`" err || fail "the session after :load: $(cat err)"

# an interrupted run (SIGINT, as Ctrl-C sends it) is not recorded; the session goes on
printf '%s\n' 'fibonacci(5) + sum(k * k mod 7 for k in 0..3000000000)' 'fibonacci(12)' |
    "$FLUX" repl fib.flux --store s3 >out3 2>err3 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid" || fail "after an interrupt: exit $? $(cat err3)"
grep -qx 'interrupted' err3 || fail "interrupt: $(cat err3)"
[[ "$(cat out3)" == 144 ]] || fail "after the interrupt: $(cat out3)"
[[ $("$FLUX" traces fib.flux --store s3 --json | wc -l) == 1 ]] || fail "the interrupted run was recorded"

# ---- in a terminal, through tmux ----
tmux new-session -d -s "$session" -x 160 -y 50 \
    "cd '$tmp' && FLUX_STORE='$tmp/t' '$FLUX' repl fib.flux; echo \"repl exited \$?\"; sleep 30"
screen() { tmux capture-pane -p -t "$session"; }
wait_for() { # PATTERN: until the pane shows it, 10 s at most
    for _ in $(seq 100); do
        screen | grep -qE "$1" && return 0
        sleep 0.1
    done
    fail "the pane never showed /$1/: $(screen)"
}
type_line() { tmux send-keys -t "$session" -l "$1"; tmux send-keys -t "$session" Enter; }
wait_for '^flux>'
type_line 'intent tw(n: Int) -> Int:'
wait_for '^  \.\.\.'
type_line '    constraints:'
type_line '        - result = 2 * n'
type_line ''
wait_for '^defined intent tw$'
type_line 'tw(21)'
wait_for '^42$'
type_line ':explain tw(4)'
wait_for '^tw\(4\) = 8$'
type_line 'tw(1 +)'
wait_for '^<repl>:7:7: error: expected an expression'
screen | grep -q '^    7 | tw(1 +)$' || fail "the excerpt: $(screen)"
# line editing: the history brings back tw(21), edited to tw(50)
tmux send-keys -t "$session" Up Up Up BSpace BSpace BSpace '50)' Enter
wait_for '^100$'
# Ctrl-C stops a long run, not the session
type_line 'fibonacci(10) + sum(k * k mod 7 for k in 0..2000000000)'
sleep 0.5
tmux send-keys -t "$session" C-c
wait_for '^(\^C)?interrupted$'
type_line 'tw(5)'
wait_for '^10$'
tmux send-keys -t "$session" C-d
wait_for '^repl exited 0$'
echo "repl: ok"
