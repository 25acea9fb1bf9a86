# A B-transposed product (tests/unit/gemm_evolved_test.c): element-wise, and
# a sum of products, but not A * B, so the matrix kernel must not take it.
intent abt(A: Matrix[M,K,Int], B: Matrix[N,K,Int]) -> Matrix[M,N,Int]:
    constraints:
        - result[i,j] = sum(A[i,k] * B[j,k] for k in 0..K)
