// The naive recursion the interpreter benchmark runs (bench/interp.sh).
intent fib(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fib(1) = 1
        - fib(n) = fib(n - 1) + fib(n - 2)
