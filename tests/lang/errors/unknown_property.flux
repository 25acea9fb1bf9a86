# an unknown property is an error listing the known ones
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    properties:
        - idempotent
