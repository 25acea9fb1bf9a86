intent matrix_multiply(A: Matrix[M,K], B: Matrix[K,N]) -> Matrix[M,N]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
    properties:
        - associative
        - distributive
        - parallelizable_over(i, j)
    performance_hints:
        - prefer_blocked_computation (cache_locality)
        - if GPU_available then prefer_parallel
