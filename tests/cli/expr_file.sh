# run alone: it compares timings
# EXPR from a file (@PATH) or stdin (@-): an expression past the command
# line's 128 KiB runs, and its errors name the file with line and column;
# an unreadable file is a usage error. Parsing is linear: 10x the elements
# may not take more than 30x the time (it was quadratic).
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export FLUX_STORE="$tmp/store" FLUX_LEARN=off
cd "$tmp"
printf 'intent total(xs: List[Int]) -> Int:\n    constraints:\n        - result = sum(xs[i] for i in 0..len(xs))\n' > s.flux
python3 -c "print('total([' + ','.join(str(i) for i in range(30000)) + '])')" > big.txt
[ "$(wc -c < big.txt)" -gt 131072 ] || fail "the expression is not past 128 KiB"
out=$("$FLUX" run s.flux @big.txt) || fail "@big.txt: $out"
[ "$out" = 449985000 ] || fail "sum: $out"
out=$(echo 'total([4, 5])' | "$FLUX" run s.flux @-) || fail "@-"
[ "$out" = 9 ] || fail "stdin: $out"
printf 'total([1,\n  2,)\n' > bad.txt
"$FLUX" run s.flux @bad.txt 2> err && fail "a malformed expression ran"
grep -q '^bad.txt:2:5: error: expected an expression' err || fail "position: $(cat err)"
"$FLUX" run s.flux @missing.txt 2> err; [ $? -eq 2 ] || fail "a missing file is not exit 2"
grep -q "cannot read the expression from \`missing.txt\`" err || fail "missing: $(cat err)"
t() { python3 -c "print('total([' + ','.join('7' for i in range($1)) + '])')" > n$1.txt
      local s=$(date +%s%N); "$FLUX" run s.flux @n$1.txt > /dev/null || fail "n$1"; echo $(( ($(date +%s%N) - s) / 1000 )); }
small=$(t 20000); large=$(t 200000)
[ "$large" -lt $((small * 30)) ] || fail "not linear: 20000 elements $small us, 200000 $large us"
exit 0
