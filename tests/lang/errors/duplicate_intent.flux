# an intent name is defined once
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n

intent double(n: Int) -> Int:
    constraints:
        - result = n + n
