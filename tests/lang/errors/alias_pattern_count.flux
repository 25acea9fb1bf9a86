# An alias equation with more patterns than the intent has parameters.
intent fibonacci(n: Natural) -> Natural:
    constraints:
        - fib(1, 2) = 1
