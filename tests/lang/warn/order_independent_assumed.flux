# `order_independent` is only recognised for a sorted permutation; kept as an assumption
intent count_zeros(xs: List[Int]) -> Natural:
    constraints:
        - result = count(x for x in xs if x = 0)
    properties:
        - order_independent
