# monotone on a recursive intent cannot be decided; it is kept as an assumption
intent fibonacci(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n-1) + fib(n-2)
    properties:
        - monotone
