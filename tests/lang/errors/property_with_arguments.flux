# only `parallelizable_over` takes arguments; a comment needs a space
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    properties:
        - pure(always)
