# the solver does not model the string functions: properties and
# agreement that need them are kept as assumptions, never proved
intent digits(n: Int) -> Natural:
    constraints:
        - result = len(str(n))
    properties:
        - monotone

intent parity(n: Int) -> Int:
    constraints:
        - parity(n) = 0 when ends_with(str(n), "0")
        - parity(n) = 1 when int(str(n)) mod 2 = 1
