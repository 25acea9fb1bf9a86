# An intent that returns a Matrix built from a list literal (the checker
# accepts a list of rows where a matrix is expected, docs/language.md §3)
# returns the list as it is; indexing it as a matrix, in a postcondition or
# in a caller, trips an assertion. (A list literal passed as a matrix
# argument is converted at the call; a result is not, and neither is an
# argument `if c then [[1.5]] else A`, whose size variable then trips the
# same assertion: gen_fuzz seed 602595.)
# Found by gen_fuzz (seed 546).
# run: flux run 008-matrix-from-list.flux 'j(3)'
# symptom: flux: internal error at src/exec/value.c:377: assertion failed: m.kind == FX_VAL_MATRIX (abort)
# probe: run j(3) => 3
# avoid: matrix-from-list
intent g(A: Matrix[R, C, Int]) -> Int:
    constraints:
        - result = A[0, 0]
intent k(n: Int) -> Matrix[1, 1, Int]:
    constraints:
        - result = [[n]]
intent j(n: Int) -> Int:
    constraints:
        - result = g(k(n))
