# `parallelizable_over` needs an element-wise definition
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    properties:
        - parallelizable_over(i)
