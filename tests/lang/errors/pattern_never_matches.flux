# a Natural parameter is never negative
intent f(n: Natural) -> Natural:
    constraints:
        - f(-1) = 0
        - f(n) = n
