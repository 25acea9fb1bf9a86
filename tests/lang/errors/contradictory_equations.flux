# two literal equations for the same argument disagree
intent f(n: Natural) -> Natural:
    constraints:
        - f(0) = 0
        - f(0) = 1
        - f(n) = n
