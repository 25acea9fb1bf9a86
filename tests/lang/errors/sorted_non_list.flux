# only a list can be sorted
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
        - result is sorted ascending
