// std.matrices: linear algebra on small matrices of floats (docs/stdlib.md).
// `import std.matrices`. Sizes are checked at the call.

intent transpose(A: Matrix[M, N]) -> Matrix[N, M]:
    constraints:
        - result[i, j] = A[j, i]

intent matrix_add(A: Matrix[M, N], B: Matrix[M, N]) -> Matrix[M, N]:
    constraints:
        - result[i, j] = A[i, j] + B[i, j]

intent matrix_scale(A: Matrix[M, N], c: Float) -> Matrix[M, N]:
    constraints:
        - result[i, j] = c * A[i, j]

intent matrix_product(A: Matrix[M, K], B: Matrix[K, N]) -> Matrix[M, N]:
    constraints:
        - result[i, j] = sum(A[i, k] * B[k, j] for k in 0..K)

intent trace(A: Matrix[N, N]) -> Float:
    constraints:
        - result = sum(A[i, i] for i in 0..N)

intent dot(u: List[Float], v: List[Float]) -> Float:
    constraints:
        - result = sum(u[i] * v[i] for i in 0..min(len(u), len(v)))

intent matrix_vector(A: Matrix[M, N], v: List[Float]) -> List[Float]:
    constraints:
        - result = [sum(A[i, k] * v[k] for k in 0..N) for i in 0..M]

intent determinant2(A: Matrix[2, 2]) -> Float:
    constraints:
        - result = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
