// The prelude: intents available in every file without an import.
// Written in Flux itself and embedded in the binary at build time
// (tools/embed.c). Each is the naive, obviously correct definition; the
// optimizer makes the hot ones fast, with proofs, as for any intent.

intent prime(p: Natural) -> Bool:
    constraints:
        - result = p >= 2 and forall d in 2..p: p mod d != 0

intent divides(d: Int, n: Int) -> Bool:
    constraints:
        - result = if d = 0 then n = 0 else n mod d = 0

intent abs(x: Int) -> Natural:
    constraints:
        - result = if x < 0 then -x else x

intent even(n: Int) -> Bool:
    constraints:
        - result = n mod 2 = 0

intent odd(n: Int) -> Bool:
    constraints:
        - result = n mod 2 = 1

intent gcd(a: Int, b: Int) -> Natural:
    constraints:
        - gcd(a, 0) = abs(a)
        - gcd(a, b) = gcd(b, a mod b)

intent lcm(a: Int, b: Int) -> Natural:
    constraints:
        - result = if a = 0 or b = 0 then 0 else abs(a * b) div gcd(a, b)

intent sign(x: Int) -> Int:
    constraints:
        - result = if x > 0 then 1 else if x < 0 then -1 else 0

intent is_sorted(xs: List[Int]) -> Bool:
    constraints:
        - result = forall i in 1..len(xs): xs[i - 1] <= xs[i]
