# `and` needs booleans
intent both(a: Natural, b: Natural) -> Bool:
    constraints:
        - result = a and b
