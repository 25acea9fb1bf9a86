// A count of twin primes (sieve, the second condition kept).
// call: twin_count(3000)
// call: twin_count(4000)
// call: twin_count(5000)
intent twin_count(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p) and prime(p + 2))
