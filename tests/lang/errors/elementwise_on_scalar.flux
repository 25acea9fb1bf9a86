# `result[i] = ...` needs a list or matrix result
intent f(n: Natural) -> Natural:
    constraints:
        - result[i] = n
