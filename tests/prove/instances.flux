# Graphs for the lemma-instance checks of tests/unit/prove_test.c.
intent find_primes(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 2 ≤ p ≤ n
        - result is sorted ascending

intent same_prime(p: Natural) -> Bool:
    constraints:
        - result = p >= 2 and forall d in 2..p: p mod d != 0
intent primes_by_copy(n: Natural) -> List[Natural]:
    constraints:
        - result contains all same_primes p where p < n

intent odd_prime(p: Natural) -> Bool:
    constraints:
        - result = p >= 2 and forall d in 2..p: p mod d != 1
intent not_primes(n: Natural) -> List[Natural]:
    constraints:
        - result contains all odd_primes p where p < n

intent up(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending
intent up_again(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending
intent down(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted descending
intent up_floats(xs: List[Float]) -> List[Float]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending

type Pair = { k: Int, v: Int }
intent by_k(ps: List[Pair]) -> List[Pair]:
    constraints:
        - result is a permutation of ps
        - result is sorted ascending by k
