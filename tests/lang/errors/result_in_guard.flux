# `result` cannot appear in a `when` guard
intent clamp(n: Int) -> Int:
    constraints:
        - clamp(n) = 0 when result < 0
        - clamp(n) = n
