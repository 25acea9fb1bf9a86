# a matrix result is defined with two indices
intent f(A: Matrix[R, C]) -> Matrix[R, C]:
    constraints:
        - result[i] = 0.0
