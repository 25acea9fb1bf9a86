intent f(n: Int) -> Int:
        constraints:
            - result = n
      properties:
   - pure
  performance_hints:
            - prefer_parallel
 )]}
