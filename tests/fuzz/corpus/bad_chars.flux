intent f(n: Int) -> Int:
    constraints:
        - result = n @ 2 $ 3 ` ☃ 
        - result = ((((((((((n))))))))))
        - result = [[[[[[[[[[n]]]]]]]]]]
        - result = n..=..m -> -> ++ ++
    properties:
        - parallelizable_over(i, j, 
