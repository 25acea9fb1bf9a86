// std.numbers: number theory (docs/stdlib.md). `import std.numbers`.
// Each intent is its naive definition, correct by construction; Flux
// learns the fast versions from the runs.

intent factorial(n: Natural) -> Natural:
    constraints:
        - factorial(0) = 1
        - factorial(n) = n * factorial(n - 1)

intent binomial(n: Natural, k: Natural) -> Natural:
    constraints:
        - result = if k > n then 0 else factorial(n) div (factorial(k) * factorial(n - k))

intent power_mod(b: Int, e: Natural, m: Natural) -> Natural:
    constraints:
        - result = (b ^ e) mod m

intent divisors(n: Natural) -> List[Natural]:
    constraints:
        - result = [d for d in 1..=n if n mod d = 0]

intent sum_of_divisors(n: Natural) -> Natural:
    constraints:
        - result = sum(d for d in 1..=n if n mod d = 0)

intent is_perfect(n: Natural) -> Bool:
    constraints:
        - result = n > 0 and sum(d for d in 1..n if n mod d = 0) = n

intent digit_sum(n: Natural) -> Natural:
    constraints:
        - digit_sum(0) = 0
        - digit_sum(n) = n mod 10 + digit_sum(n div 10)

intent totient(n: Natural) -> Natural:
    constraints:
        - result = count(k for k in 1..=n if gcd(k, n) = 1)

intent prime_count(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 2..=n if prime(p))

intent is_square(n: Natural) -> Bool:
    constraints:
        - result = isqrt(n) * isqrt(n) = n
