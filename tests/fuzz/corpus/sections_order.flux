intent sub(a: Int, b: Int) -> Int:
    properties:
        - total
    performance_hints:
        - optimize_for latency
    constraints:
        - result = a - b
        - sub(0, 0) = 0
        - result = if a > b then a - b else -(b - a)
