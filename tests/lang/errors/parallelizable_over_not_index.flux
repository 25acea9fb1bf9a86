# `k` is summed over, not an index of the result
intent mm(A: Matrix[M, K], B: Matrix[K, N]) -> Matrix[M, N]:
    constraints:
        - result[i, j] = sum(A[i, k] * B[k, j] for k in 0..K)
    properties:
        - parallelizable_over(i, k)
