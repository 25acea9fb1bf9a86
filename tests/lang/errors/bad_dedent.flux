# a dedent must return to an enclosing level
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
      properties:
        - pure
