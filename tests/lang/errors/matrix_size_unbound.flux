# the result's sizes must come from the parameters
intent zeros(n: Natural) -> Matrix[R, C]:
    constraints:
        - result[i, j] = 0.0
