# a section needs at least one item
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    properties:
