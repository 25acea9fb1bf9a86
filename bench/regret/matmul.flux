// The matrix product of integers: bench/regret.
intent mat_product(A: Matrix[M,K,Int], B: Matrix[K,N,Int]) -> Matrix[M,N,Int]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
