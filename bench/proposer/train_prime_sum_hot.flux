// A sum of primes asked again and again for the same ranges (sieve, and a
// table of recurring inputs).
// call: prime_total(0, 3000)
// call: prime_total(0, 3000)
// call: prime_total(0, 3000)
// call: prime_total(0, 2000)
// call: prime_total(0, 3000)
intent prime_total(lo: Natural, hi: Natural) -> Natural:
    constraints:
        - result = sum(p for p in lo..hi if prime(p))
