# a call to a function that no file defines
intent hyp(a: Natural, b: Natural) -> Float:
    constraints:
        - result = sqrt(a * a + b * b)
