intent long_expr(a: Int,
                 b: Int,
        c: Int) -> Int:
    constraints:
        - result = (a +
              b +
   c)
        - result[
            i] = [1,
                  2][i]
