# the branches of an `if` must have one type
intent describe(n: Int) -> String:
    constraints:
        - result = if n < 0 then "negative" else n
