# The examples of the language reference, section 9, exactly as written there.
intent fibonacci(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n-1) + fib(n-2)
    properties:
        - pure (no side effects)

intent find_primes(n: Natural) -> List[Natural]:
    constraints:
        - result contains all primes p where 2 ≤ p ≤ n
        - result is sorted ascending
    properties:
        - deterministic
        - parallelizable (sieve_independent)

intent sort(xs: List[Int]) -> List[Int]:
    constraints:
        - result is a permutation of xs
        - result is sorted ascending

intent matrix_multiply(A: Matrix[M,K], B: Matrix[K,N]) -> Matrix[M,N]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
    properties:
        - parallelizable_over(i, j)
    performance_hints:
        - prefer_blocked_computation (cache_locality)
        - if GPU_available then prefer_parallel

type User = { name: String, age: Int }
data users: List[User] from "users.csv"
intent query_users(age_min: Int) -> List[User]:
    constraints:
        - result contains all users where user.age >= age_min
