# `result` cannot name a parameter.
intent id(result: Natural) -> Natural:
    constraints:
        - result = 1
