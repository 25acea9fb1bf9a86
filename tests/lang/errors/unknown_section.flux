# `examples` is not a section
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    examples:
        - double(2) = 4
