# `$` is not part of the language
intent double(n: Natural) -> Natural:
    constraints:
        - result = 2 * $n
