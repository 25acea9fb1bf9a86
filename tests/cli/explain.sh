# `flux explain` for fibonacci, find_primes (indexed) and sort, against
# golden trees (execution ids masked); the --json tree is JSON with the same
# branches. UPDATE_GOLDEN=1 rewrites the goldens.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mask() { sed -E 's/exec_[0-9]+/exec_#/g'; }
check() { # NAME FILE EXPR
    out=$("$FLUX" explain "$root/examples/$2" "$3" --store "$tmp/store" 2>&1) || fail "$1: exit $?: $out"
    got=$(printf '%s\n' "$out" | mask)
    if [ "${UPDATE_GOLDEN:-}" = 1 ]; then printf '%s\n' "$got" > "$root/tests/cli/explain/$1.expected"; fi
    [ "$got" = "$(cat "$root/tests/cli/explain/$1.expected")" ] ||
        fail "$1 differs:$(diff <(printf '%s\n' "$got") "$root/tests/cli/explain/$1.expected")"
    "$FLUX" explain "$root/examples/$2" "$3" --store "$tmp/store" --json |
        python3 -c 'import json,sys; d=json.load(sys.stdin); assert {"expr","value","version","decisions","proofs","verified"} <= set(d), d' ||
        fail "$1: --json"
}
check fibonacci fibonacci.flux 'fibonacci(30)'
check find_primes primes.flux 'find_primes(1000)[10]'
check sort sort.flux 'sort([5, -2, 5, 0])'
# explain records, like run
"$FLUX" traces "$root/examples/fibonacci.flux" --store "$tmp/store" | grep -q '{"n": 30}' ||
    fail "explain did not record"
exit 0
