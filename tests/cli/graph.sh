# flux graph in every format, and its usage errors.
set -u
cd "$(dirname "$0")/../.."
fail() { echo "$*"; exit 1; }
g() { "$FLUX" graph examples/fibonacci.flux "$@"; }
g fibonacci | head -n 1 | grep -qx 'graph fibonacci v1 (n: Natural) -> Natural' || fail "text header"
g fibonacci | grep -q 'call fibonacci' || fail "text: no recursive call"
g fibonacci --format text | grep -q '@ examples/fibonacci.flux:6:' || fail "text: no origins"
g fibonacci --format dot | head -n 1 | grep -q '^digraph "fibonacci v1"' || fail "dot"
g fibonacci --format svg | grep -q '<svg' || fail "svg"
g fibonacci --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["format"]=="flux-graph-1" and d["intent"]=="fibonacci"' ||
    fail "json"
g fibonacci --version v1 >/dev/null || fail "--version v1"
g fibonacci --version v7 >/dev/null 2>&1; [ $? = 2 ] || fail "unknown version: want 2"
g nosuch >/dev/null 2>&1; [ $? = 2 ] || fail "unknown intent: want 2"
g fibonacci --format png >/dev/null 2>&1; [ $? = 2 ] || fail "unknown format: want 2"
"$FLUX" graph examples/primes.flux find_primes | grep -q 'fold collect' || fail "comprehension is a fold"
"$FLUX" graph examples/sort.flux sort | grep -q 'sort ascending' || fail "sort node"
"$FLUX" graph examples/matrix.flux matrix_multiply | grep -q 'map \[slot' || fail "map node"
exit 0
