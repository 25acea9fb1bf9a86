# `Int` is a built-in type
type Int = { z: Natural }

intent f(n: Natural) -> Natural:
    constraints:
        - result = n
