# Comprehensions over primes for tests/unit/sieve_evolved_test.c and
# tests/cli/sieve.sh: the list, the count (fused into the kernel), twin
# primes (another condition kept), a sum, primality in the middle of a
# chain of `and`s (the user's own predicate, shaped as the prelude's), and
# a look-alike predicate that is not the prelude's prime (no sieve for it).
intent primes_to(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 2 <= p <= n
        - result is sorted ascending

intent count_primes(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p))

intent count_twins(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if prime(p) and prime(p + 2))

intent twins(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 2 <= p <= n and prime(p + 2)
        - result is sorted ascending

intent germain(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 2 <= p <= n and prime(2 * p + 1)
        - result is sorted ascending

intent quadruplets(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where p <= n and prime(p + 2) and prime(p + 6) and prime(p + 8)
        - result is sorted ascending

intent risky(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 2 <= p <= n and prime(p + 2) and 10 div (p - 7) > 0
        - result is sorted ascending

intent is_prime(k: Natural) -> Bool:
    constraints:
        - result = k >= 2 and forall d in 2..k: k mod d != 0

intent twins_inside(n: Natural) -> List[Natural]:
    constraints:
        - result contains all p where 2 <= p <= n and is_prime(p) and is_prime(p + 2)

intent middle(n: Natural) -> Natural:
    constraints:
        - result = count(p for p in 0..n if p mod 4 = 1 and prime(p) and p > 3)

intent risky_inside(n: Natural) -> List[Natural]:
    constraints:
        - result contains all p where p <= n and is_prime(p) and 10 div (p - 7) > 0

intent prime_sum(lo: Natural, hi: Natural) -> Natural:
    constraints:
        - result = sum(p for p in lo..hi if prime(p))

intent almost_prime(p: Natural) -> Bool:
    constraints:
        - result = p >= 2 and forall d in 2..p: p mod d != 1

intent almosts(n: Natural) -> List[Natural]:
    constraints:
        - result contains all p where 2 <= p <= n and almost_prime(p)
        - result is sorted ascending
