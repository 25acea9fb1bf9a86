# syntax, name, type and property errors in one file are all reported
intent a(n: Natural) -> Natural:
    constraints:
        - result = n
        - result >= n $

intent b(n: Natural) -> Bool:
    constraints:
        - result = n and true

intent c(x: Int, y: Int) -> Int:
    constraints:
        - result = x - y
    properties:
        - commutative
