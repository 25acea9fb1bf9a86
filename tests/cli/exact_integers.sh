# Integers are exact at any size: compared with values computed independently
# (Python's integers).
set -u
fail() { echo "$*"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > big.flux <<'F'
intent fibonacci(n: Natural) -> Natural:
    constraints:
        - result = fib_from(n, 0, 1)
intent fib_from(n: Natural, a: Natural, b: Natural) -> Natural:
    constraints:
        - fib_from(0, a, b) = a
        - fib_from(n, a, b) = fib_from(n - 1, b, a + b)
intent power(b: Int, e: Natural) -> Int:
    constraints:
        - power(b, 0) = 1
        - power(b, e) = b * power(b, e - 1)
F
for n in 90 91 92 93 94 95; do
    got=$("$FLUX" run big.flux "fibonacci($n)") || fail "fibonacci($n) failed"
    want=$(python3 -c "a,b=0,1
for _ in range($n): a,b=b,a+b
print(a)")
    [ "$got" = "$want" ] || fail "fibonacci($n) = $got, want $want"
done
got=$("$FLUX" run big.flux 'power(-7, 236) + 1')
want=$(python3 -c 'print((-7)**236 + 1)')
[ "$got" = "$want" ] || fail "power: $got, want $want"
[ ${#got} -ge 200 ] || fail "not a 200-digit result: ${#got} digits"
got=$("$FLUX" run big.flux '3^400 div 7^100 - 10^100 mod 97')
want=$(python3 -c 'print(3**400 // 7**100 - 10**100 % 97)')
[ "$got" = "$want" ] || fail "mixed: $got, want $want"
exit 0
