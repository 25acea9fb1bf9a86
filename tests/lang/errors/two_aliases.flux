# an intent's equations use one name
intent fibonacci(n: Natural) -> Natural:
    constraints:
        - fib(0) = 0
        - fibo(1) = 1
        - fib(n) = fib(n-1) + fib(n-2)
