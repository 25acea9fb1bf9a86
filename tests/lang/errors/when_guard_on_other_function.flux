# `abs(n) = n` is a postcondition about another function; it takes no `when`
intent f(n: Int) -> Int:
    constraints:
        - result = n
        - abs(n) = n when n > 0
