// A prime count asked again and again for the same n (sieve, and a table
// of recurring inputs).
// call: primes_below(4000)
// call: primes_below(4000)
// call: primes_below(4000)
// call: primes_below(2500)
// call: primes_below(4000)
intent primes_below(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p))
