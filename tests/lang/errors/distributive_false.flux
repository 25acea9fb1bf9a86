# a product with an offset does not distribute over `+`
intent f(a: Int, b: Int) -> Int:
    constraints:
        - result = a * b + 1
    properties:
        - distributive
