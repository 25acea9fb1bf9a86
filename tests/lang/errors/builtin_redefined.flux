# `len` is built in
intent len(n: Int) -> Int:
    constraints:
        - result = n
