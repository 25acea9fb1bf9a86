# every error of a file is reported, not only the first
intent a(n: Natral) -> Natural:
    constraints:
        - result = n

intent b(n: Natural) -> Natural:
    constraints:
        - result = n / 2

intent c(n: Natural) -> Natural:
    constraints:
        - result = m
