intent fibonacci(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n-1) + fib(n-2)
    properties:
        - pure (no side effects)
        - commutative (can parallelize)
