# a type cannot be defined as itself
type T = T

intent f(n: T) -> Int:
    constraints:
        - result = 1
