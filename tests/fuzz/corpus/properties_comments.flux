# A comment with a hash
intent matmul(A: Matrix[M,K], B: Matrix[K,N]) -> Matrix[M,N]:   // trailing comment
    // comment inside the block
    constraints:
        - result[i, j] = sum(A[i, k] * B[k, j] for k in 0..K)   # why: definition
    properties:
        - parallelizable_over(i, j)
        - pure (no side effects, "quoted" words, and ≤ symbols)
        - deterministic
        - associative   // a false claim is an error with a counterexample
        - commutative (this one is wrong)
        - monotone
        - order_independent
        - no_such_property
