# a postcondition alone does not construct the result
intent bigger(n: Natural) -> Natural:
    constraints:
        - result > n
