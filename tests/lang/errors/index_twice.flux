# The same index for both dimensions: one error.
intent diag(A: Matrix[N, N, Int]) -> Matrix[N, N, Int]:
    constraints:
        - result[i, i] = A[i, i]
