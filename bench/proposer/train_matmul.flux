// An integer matrix product.
// call: mat_int(MATRIX(24, 1), MATRIX(24, 2))
// call: mat_int(MATRIX(32, 3), MATRIX(32, 4))
intent mat_int(A: Matrix[M,K,Int], B: Matrix[K,N,Int]) -> Matrix[M,N,Int]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
