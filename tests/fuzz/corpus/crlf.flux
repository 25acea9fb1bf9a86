intent f(n: Int) -> Int:
    constraints:
        - result = n
