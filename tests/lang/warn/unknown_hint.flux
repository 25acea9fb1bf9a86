# an unknown performance hint is a warning, with a suggestion
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - prefer_paralel
