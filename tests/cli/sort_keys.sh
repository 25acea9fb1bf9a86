#!/usr/bin/env bash
# sort_keys.sh: a key after `by` that is a built-in function sorts by it
# (`by len`, as `by len(s)`), stably, interpreted and with the sort kernels;
# a name that is neither a field nor a function is an error at its
# position (tests/lang/errors/sort_key_*), never the element itself.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "sort_keys: $*"; exit 1; }
cd "$tmp"
export FLUX_LEARN=off
cat > s.flux <<'F'
intent bylen(xs: List[String]) -> List[String]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending by len

intent byabs(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted by abs
F
out=$("$FLUX" run s.flux 'bylen(["a", "bb", "ccc", "dddd", "ee", "f"])' --store s)
[ "$out" = '["dddd", "ccc", "bb", "ee", "a", "f"]' ] || fail "by len: $out"
out=$("$FLUX" run s.flux 'byabs([3, -1, 2, -3, 1])' --store s)
[ "$out" = '[-1, 1, 2, 3, -3]' ] || fail "by abs: $out"
# the same with the sort kernels, once a round installs them
e="bylen([$(python3 -c 'print(", ".join("\"%s\"" % ("x" * (i * 7 % 13)) for i in range(300)))')])"
want=$(python3 -c 'xs = ["x" * (i * 7 % 13) for i in range(300)]
print("[" + ", ".join("\"%s\"" % s for s in sorted(xs, key=len, reverse=True)) + "]")')
[ "$("$FLUX" run s.flux "$e" --store s)" = "$want" ] || fail "by len, 300 strings"
"$FLUX" optimize s.flux bylen --rule "sort kernels" --store s >/dev/null
[ "$("$FLUX" run s.flux "$e" --store s)" = "$want" ] || fail "by len, with the kernels"
echo ok
