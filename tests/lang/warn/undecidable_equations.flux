# two guarded equations whose agreement depends on another intent
intent f(n: Natural) -> Natural:
    constraints:
        - f(n) = f(n - 1) when n > 0
        - f(n) = 1 when n > 5
        - f(n) = 0
