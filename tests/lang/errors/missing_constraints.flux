# every intent needs a constraints section
intent double(n: Natural) -> Natural:
    properties:
        - pure
