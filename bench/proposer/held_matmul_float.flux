// A floating-point matrix product.
// call: mat_float(FMATRIX(24, 5), FMATRIX(24, 6))
// call: mat_float(FMATRIX(32, 7), FMATRIX(32, 8))
intent mat_float(A: Matrix[M,K], B: Matrix[K,N]) -> Matrix[M,N]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[k,j] for k in 0..K)
