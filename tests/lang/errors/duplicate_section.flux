# each section comes once per intent
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    properties:
        - pure
    properties:
        - deterministic
