// A prime count over a range (sieve).
// call: prime_count(3000)
// call: prime_count(4000)
// call: prime_count(5000)
intent prime_count(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p))
