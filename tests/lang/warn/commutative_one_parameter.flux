# `commutative` of one parameter says nothing: a warning, not a rejection
intent double(n: Int) -> Int:
    constraints:
        - result = 2 * n
    properties:
        - commutative
