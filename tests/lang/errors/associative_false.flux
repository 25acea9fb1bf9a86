# subtraction is not associative
intent sub(a: Int, b: Int) -> Int:
    constraints:
        - result = a - b
    properties:
        - associative
