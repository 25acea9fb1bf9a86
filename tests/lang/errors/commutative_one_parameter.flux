# `commutative` needs two parameters
intent double(n: Int) -> Int:
    constraints:
        - result = 2 * n
    properties:
        - commutative
