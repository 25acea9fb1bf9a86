# a call to a function that no file defines (no cube root in the library)
intent hyp(a: Natural, b: Natural) -> Float:
    constraints:
        - result = cbrt(a * a + b * b)
