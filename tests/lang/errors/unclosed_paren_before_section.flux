# A bracket left open before the next section: one error, at the bracket.
intent t(n: Int) -> Int:
    constraints:
        - result = 2 * (n + 1
    properties:
        - pure
