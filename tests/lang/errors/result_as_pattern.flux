# `result` is not a pattern
intent id(n: Natural) -> Natural:
    constraints:
        - id(result) = n
