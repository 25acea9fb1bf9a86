# the defining expression must have the result type
intent f(n: Natural) -> Natural:
    constraints:
        - result = "n"
