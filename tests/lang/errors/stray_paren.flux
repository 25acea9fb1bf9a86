# a `)` with nothing to close
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n)
