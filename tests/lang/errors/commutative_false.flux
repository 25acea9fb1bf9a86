# subtraction is not commutative
intent sub(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b
    properties:
        - commutative
