# a function used as a value
intent twice_abs(x: Int) -> Natural:
    constraints:
        - result = 2 * abs
