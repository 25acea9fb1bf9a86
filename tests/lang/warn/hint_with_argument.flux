# `prefer_parallel` takes no argument; the word after it is ignored
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * n
    performance_hints:
        - prefer_parallel always
