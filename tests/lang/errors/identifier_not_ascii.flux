# identifiers are ASCII
intent f(é: Natural) -> Natural:
    constraints:
        - result = é
