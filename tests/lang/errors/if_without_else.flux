# an `if` expression needs both branches
intent f(n: Int) -> Int:
    constraints:
        - result = if n < 0 then 0
