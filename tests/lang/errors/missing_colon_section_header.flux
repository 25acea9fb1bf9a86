# a section header must end in `:`
intent double(n: Natural) -> Natural:
    constraints
        - result = 2 * n
