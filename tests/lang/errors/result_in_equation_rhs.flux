# `result` cannot appear on the right side of its own definition
intent double(n: Natural) -> Natural:
    constraints:
        - result = result + n
