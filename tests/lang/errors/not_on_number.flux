# `not` needs a boolean
intent f(n: Natural) -> Bool:
    constraints:
        - result = not n
