// A count of primes (the sieve): bench/regret.
intent prime_count(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p))
