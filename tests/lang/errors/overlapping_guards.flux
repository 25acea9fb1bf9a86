# guards that overlap (3 < n < 5) give different values
intent f(n: Natural) -> Natural:
    constraints:
        - f(n) = 1 when n < 5
        - f(n) = 2 when n > 3
        - f(n) = 0
