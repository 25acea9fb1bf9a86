# Every example of the language reference gives the right answer, naively.
set -u
# the answers of v1 itself: no learning round may install a version meanwhile
export FLUX_LEARN=off
cd "$(dirname "$0")/../.."
fail() { echo "$*"; exit 1; }
expect() { # FILE EXPR WANT
    out=$("$FLUX" run "$1" "$2" 2>&1); rc=$?
    [ $rc = 0 ] && [ "$out" = "$3" ] || fail "flux run $1 '$2': rc=$rc, got: $out; want: $3"
}
expect examples/fibonacci.flux 'fibonacci(25)' 75025
expect examples/fibonacci.flux 'fibonacci(0)' 0
expect examples/primes.flux 'find_primes(30)' '[2, 3, 5, 7, 11, 13, 17, 19, 23, 29]'
expect examples/primes.flux 'find_primes(1000)[10]' 31
expect examples/primes.flux 'find_primes(1)' '[]'
expect examples/sort.flux 'sort([5, -2, 5, 0])' '[-2, 0, 5, 5]'
expect examples/sort.flux 'sort([3, -1, 2, 3])' '[-1, 2, 3, 3]'
expect examples/sort.flux 'sort([])' '[]'
expect examples/matrix.flux 'matrix_multiply([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]])' \
    '[[58.0, 64.0], [139.0, 154.0]]'
expect examples/matrix.flux 'matrix_multiply_int([[1, 2], [3, 4]], [[5, 6], [7, 8]])' '[[19, 22], [43, 50]]'
expect examples/users.flux 'query_users(18)' \
    '[{name: "Ada", age: 36}, {name: "Alan", age: 41}, {name: "Edsger", age: 18}, {name: "Donald", age: 88}]'
expect examples/users.flux 'len(query_users(40))' 2
expect examples/particles.flux 'simulate_particles([{x: 0.5, y: 0.5, vx: 1.0, vy: 0.0}, {x: 0.51, y: 0.5, vx: -1.0, vy: 0.0}], 0.2)' \
    '[{x: 0.68, y: 0.5, vx: 0.9000000000000001, vy: 0.0}, {x: 0.32999999999999996, y: 0.5, vx: -0.9000000000000001, vy: 0.0}]'
expect examples/images.flux 'process_images([{id: 1, width: 2, height: 3, brightness: 0.7}])' '[{id: 1, pixels: 6, bright: true}]'
expect examples/classify.flux 'classify_image({brightness: 0.45, edges: 15})' '"day"'
# composition and indexing in EXPR
expect examples/primes.flux 'len(find_primes(100)) + find_primes(10)[0]' 27
expect examples/sort.flux 'sort(sort([2, 1]) ++ [0])[0]' 0

out=$("$FLUX" run examples/fibonacci.flux 'fibonacci(20)' --json); rc=$?
[ $rc = 0 ] || fail "--json: rc=$rc"
for key in '"execution_id": ' '"intent": "fibonacci"' '"graph_version": "v1"' '"input": {"n": 20}' \
    '"output": 6765' '"decision_tree": ' '"hardware": ' '"duration_ms": ' \
    '"optimizations_applied": ' '"proof_ids": ' '"verified": '; do
    [[ "$out" == *"$key"* ]] || fail "--json lacks $key: $out"
done
python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out" || fail "--json is not JSON: $out"
exit 0
