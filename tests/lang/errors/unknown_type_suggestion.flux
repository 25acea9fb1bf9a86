# a lower-case `int` is not a type; `Int` is suggested
intent double(n: int) -> Int:
    constraints:
        - result = 2 * n
