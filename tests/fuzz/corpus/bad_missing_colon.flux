intent f(n: Int) -> Int
    constraints
        - result = n +
        - f(0 = 1
intent g(: ) ->:
    constraints:
        - 
