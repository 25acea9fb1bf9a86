# a type name is defined once
type P = { x: Int }
type P = { y: Int }

intent f(p: P) -> Int:
    constraints:
        - result = p.x
