# `when` guards only defining equations.
intent f(n: Int) -> Int:
    constraints:
        - result = n
        - result > n when n > 0
