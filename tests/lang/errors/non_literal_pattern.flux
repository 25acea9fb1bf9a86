# a pattern is a literal or a variable, not `n+1`
intent pred(n: Natural) -> Natural:
    constraints:
        - pred(0) = 0
        - pred(n+1) = n
