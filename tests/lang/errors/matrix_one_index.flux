# a matrix takes a row and a column
intent first_row(A: Matrix[R, C, Int]) -> Int:
    constraints:
        - result = A[0]
