# only lists, strings and matrices can be indexed
intent first(n: Natural) -> Natural:
    constraints:
        - result = n[0]
