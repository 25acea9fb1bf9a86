# An equation with fewer patterns than the intent has parameters.
intent power(b: Natural, e: Natural) -> Natural:
    constraints:
        - power(b) = b
